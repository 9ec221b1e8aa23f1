"""Actions: the one value for everything a seat can do, and its JSON codec.

A seat passes cards (:class:`Pass`, R2), plays a card (:class:`Play`, R3) or, having shot the
moon under ``moon="shooter_chooses"``, chooses how it scores (:class:`Moon`, R4.4). Each is a
small frozen, hashable value; :data:`Action` is their union. The same JSON text stands for an
action in a record, in the web server's log and on the wire.

>>> Play(0, "QS"), Pass(2, "AH 2C QS")
(Play(seat=0, card=Card('QS')), Pass(seat=2, cards=CardSet.parse('2C QS AH')))
>>> to_json(Play(1, "10h"))
'{"type":"play","seat":1,"card":"TH"}'
>>> from_json('{"type":"moon","seat":3,"choice":"add"}')
Moon(seat=3, choice='add')
>>> from_json('{"type":"play","seat":1,"card":"1X"}')
Traceback (most recent call last):
...
hearts.errors.ActionError: R1.2: a play's 'card' must be a card such as "QS": ...
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from hearts.cards import CARDS, Card, CardSet, mask_of
from hearts.errors import ActionError, CardParseError
from hearts.mechanics import MOON_CHOICES, MoonChoice

ACTION_TYPES: Final = ("pass", "play", "moon")
"""The ``"type"`` of each action in JSON, in the order of a round."""


def _seat(value: object, kind: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ActionError(f"R1.4: a {kind}'s 'seat' must be a seat number 0..5, not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Pass:
    """``seat`` passes ``cards`` face down (R2.1); the cards change hands once everyone has passed.

    >>> Pass(0, ["QS", "AH", "2C"]).cards
    CardSet.parse('2C QS AH')
    """

    seat: int
    cards: CardSet

    def __init__(self, seat: int, cards: CardSet | Iterable[Card | int | str] | str) -> None:
        _set_pass_seat(self, seat if type(seat) is int and seat >= 0 else _seat(seat, "pass"))
        try:
            if type(cards) is list or type(cards) is tuple:  # the common case, CardSet(cards) inlined
                value = _new(CardSet)
                _set_mask(value, mask_of(cards))
            else:
                value = cards if isinstance(cards, CardSet) else (
                    CardSet.parse(cards) if isinstance(cards, str) else CardSet(cards)
                )
        except (CardParseError, TypeError) as e:
            raise ActionError(f"R2.1: a pass's 'cards' must be a list of cards: {e}") from None
        _set_pass_cards(self, value)  # the slots' own setters, past the frozen __setattr__

    def __str__(self) -> str:
        return f"seat {self.seat} passes {self.cards}"


@dataclass(frozen=True, slots=True)
class Play:
    """``seat`` plays ``card`` to the trick (R3).

    >>> str(Play(2, "q♠"))
    'seat 2 plays QS'
    """

    seat: int
    card: Card

    def __init__(self, seat: int, card: Card | int | str) -> None:
        _set_play_seat(self, seat if type(seat) is int and seat >= 0 else _seat(seat, "play"))
        if type(card) is not Card:
            try:
                card = Card.parse(card) if isinstance(card, str) else Card(card)
            except (CardParseError, TypeError) as e:
                reason = str(e).removeprefix("R1.2: ")
                raise ActionError(f'R1.2: a play\'s \'card\' must be a card such as "QS": {reason}') from None
        _set_play_card(self, card)

    def __str__(self) -> str:
        return f"seat {self.seat} plays {self.card}"


@dataclass(frozen=True, slots=True)
class Moon:
    """The shooter's choice under ``moon="shooter_chooses"`` (R4.4): ``"add"`` 26 to every other
    seat, or ``"subtract"`` 26 from its own score.

    >>> Moon(1, "sideways")
    Traceback (most recent call last):
    ...
    hearts.errors.ActionError: R4.4: a moon 'choice' is 'add' or 'subtract', not 'sideways'
    """

    seat: int
    choice: MoonChoice

    def __init__(self, seat: int, choice: MoonChoice) -> None:
        object.__setattr__(self, "seat", _seat(seat, "moon choice"))
        if choice not in MOON_CHOICES:
            raise ActionError(f"R4.4: a moon 'choice' is 'add' or 'subtract', not {choice!r}")
        object.__setattr__(self, "choice", choice)

    def __str__(self) -> str:
        return f"seat {self.seat} chooses to {self.choice} 26"


_new: Final = object.__new__
_set_mask: Final = CardSet.__dict__["mask"].__set__
_set_pass_seat: Final = Pass.__dict__["seat"].__set__
_set_pass_cards: Final = Pass.__dict__["cards"].__set__
_set_play_seat: Final = Play.__dict__["seat"].__set__
_set_play_card: Final = Play.__dict__["card"].__set__

Action = Pass | Play | Moon
"""Anything a seat can do: :class:`Pass`, :class:`Play` or :class:`Moon`."""

PLAYS: Final[tuple[tuple[Play, ...], ...]] = tuple(tuple(Play(seat, card) for card in CARDS) for seat in range(6))
"""Every play as one shared value, ``PLAYS[seat][card]`` (seats 0..5, R1.1), so a legal-move
generator hands out plays without building and checking each again.

>>> PLAYS[2][Card.parse("QS")] == Play(2, "QS")
True
"""


def plays_of(seat: int, mask: int) -> list[Play]:
    """The plays of ``seat`` of the cards in ``mask`` (52 bits), in card order, from
    :data:`PLAYS`: what a legal-move generator hands out.

    >>> plays_of(1, CardSet.parse("2C QS").mask)
    [Play(seat=1, card=Card('2C')), Play(seat=1, card=Card('QS'))]
    """
    t0, t1, t2, t3, t4, t5, t6 = PLAY_TABLES[seat] or play_tables(seat)
    b0, b1, b2, b3, b4, b5, b6 = mask.to_bytes(7, "little")  # bytes: small ints, no shifts of a long
    return [*t0[b0], *t1[b1], *t2[b2], *t3[b3], *t4[b4], *t5[b5], *t6[b6]]


PlayTables = tuple[tuple[tuple[Play, ...], ...], ...]
PLAY_TABLES: Final[list[PlayTables | None]] = [None] * 6
""":func:`plays_of`'s tables, per seat, built on first use by :func:`play_tables`."""


def play_tables(seat: int) -> PlayTables:
    """The seven tables :func:`plays_of` reads for ``seat`` (1,552 tuples, built once): entry
    ``v`` of table ``k`` holds the plays of the cards ``8 * k + i`` for the bits ``i`` of ``v``.

    >>> play_tables(0)[1][0b101]
    (Play(seat=0, card=Card('4C')), Play(seat=0, card=Card('4H')))
    """
    plays = PLAYS[seat]
    tables = []
    for first in range(0, 52, 8):
        table: list[tuple[Play, ...]] = [()]
        for play in plays[first : first + 8]:
            table += [(*t, play) for t in table]
        tables.append(tuple(table))
    PLAY_TABLES[seat] = result = tuple(tables)
    return result


# --- the JSON codec --------------------------------------------------------------------------


def to_dict(action: Action) -> dict[str, Any]:
    """The JSON object of an action: ``type``, ``seat`` and ``cards``, ``card`` or ``choice``.

    >>> to_dict(Pass(0, "2C 3C 4C"))
    {'type': 'pass', 'seat': 0, 'cards': ['2C', '3C', '4C']}
    """
    if type(action) is Play:
        return {"type": "play", "seat": action.seat, "card": str(action.card)}
    if type(action) is Pass:
        return {"type": "pass", "seat": action.seat, "cards": [str(c) for c in action.cards]}
    if type(action) is Moon:
        return {"type": "moon", "seat": action.seat, "choice": action.choice}
    raise ActionError(f"{action!r} is not an action (Pass, Play or Moon)")


def from_dict(data: object, *, allow: Iterable[str] = ()) -> Action:
    """An action from its JSON object; any key but its own (and those in ``allow``, such as
    the wire's ``"seq"``) is an error.

    >>> from_dict({"type": "pass", "seat": 1, "cards": ["QS", "AH", "2C"]})
    Pass(seat=1, cards=CardSet.parse('2C QS AH'))
    >>> from_dict({"type": "play", "seat": 1, "card": "QS", "seq": 4})
    Traceback (most recent call last):
    ...
    hearts.errors.ActionError: a play has the keys 'type', 'seat', 'card', not 'seq'
    """
    if not isinstance(data, Mapping):
        raise ActionError(f"an action must be a JSON object with a 'type', not {data!r:.80}")
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise ActionError(f"unknown action type {kind!r:.40}; expected one of: {', '.join(ACTION_TYPES)}")
    field = _FIELDS[kind]
    extra = set(data) - {"type", "seat", field, *allow}
    if extra:
        raise ActionError(f"a {kind} has the keys 'type', 'seat', '{field}', not {sorted(extra)[0]!r:.40}")
    if field not in data:
        raise ActionError(f"a {kind} needs its {field!r}")
    value = data[field]
    if kind == "play":
        if not isinstance(value, str):
            raise ActionError(f'R1.2: a play\'s \'card\' must be a card such as "QS", not {value!r:.40}')
        return Play(data.get("seat"), value)  # type: ignore[arg-type]
    if kind == "pass":
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise ActionError(f'R2.1: a pass\'s \'cards\' must be a list such as ["QS", "AH", "2C"], not {value!r:.60}')
        return Pass(data.get("seat"), value)  # type: ignore[arg-type]
    return Moon(data.get("seat"), value)  # type: ignore[arg-type]


_FIELDS: Final = {"pass": "cards", "play": "card", "moon": "choice"}


def to_json(action: Action) -> str:
    """An action as compact JSON text (the text of records, the server's log and the wire)."""
    return json.dumps(to_dict(action), separators=(",", ":"))


def from_json(text: str | bytes) -> Action:
    """An action from JSON text; malformed text raises :class:`~hearts.errors.ActionError`."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise ActionError(f"an action is not valid JSON: {e}") from None
    return from_dict(data)


__all__ = [
    "ACTION_TYPES",
    "Action",
    "Moon",
    "Pass",
    "Play",
    "from_dict",
    "from_json",
    "plays_of",
    "to_dict",
    "to_json",
]
