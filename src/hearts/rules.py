"""Every rule option of docs/rules.md as one frozen, validated value.

>>> rules = Rules()
>>> rules.players, rules.pass_count, rules.moon, rules.target
(4, 3, 'add_to_others', 100)
>>> Rules.preset("omnibus").jack_of_diamonds
-10
>>> Rules(players=3).pass_offsets  # left, right, hold as seat offsets (R2.2)
(1, 2, 0)
>>> Rules.from_dict(Rules(players=6).to_dict()) == Rules(players=6)
True
>>> Rules(players=3, pass_cycle="left/hold").pass_cycle  # text or steps, everywhere (R2.2)
('left', 'hold')
>>> Rules(moon="sometimes")
Traceback (most recent call last):
...
hearts.errors.RulesError: R4.4: option 'moon' is 'sometimes'; allowed: 'add_to_others', 'subtract_from_self', 'shooter_chooses', 'add_unless_losing'
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final, Literal

from hearts.cards import CARDS, CLUBS, DIAMONDS, POINTS_MASK, SPADE_PENALTIES_MASK, SPADES, Card, mask_points
from hearts.errors import RulesError
from hearts.i18n import N_

FirstLead = Literal["lowest_club", "any_club"]
QueenLead = Literal["anytime", "after_break"]
Moon = Literal["add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing"]
Ties = Literal["play_on", "share"]
RemovedForThree = Literal["two_of_diamonds", "two_of_clubs"]
PassStep = str | int

FIRST_LEADS: Final = ("lowest_club", "any_club")
QUEEN_LEADS: Final = ("anytime", "after_break")
MOONS: Final = ("add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing")
TIES: Final = ("play_on", "share")
PASS_STEPS: Final = ("left", "right", "across", "hold")
REMOVED_FOR_THREE: Final = ("two_of_diamonds", "two_of_clubs")

# R1.2: cards removed so that the deck divides evenly.
REMOVED_CARDS: Final[dict[int, tuple[Card, ...]]] = {
    3: (Card.of(0, DIAMONDS),),
    4: (),
    5: (Card.of(0, DIAMONDS), Card.of(0, CLUBS)),
    6: (Card.of(0, DIAMONDS), Card.of(0, CLUBS), Card.of(1, CLUBS), Card.of(0, SPADES)),
}

# R2.2: the default pass rotation by number of players.
DEFAULT_PASS_CYCLES: Final[dict[int, tuple[str, ...]]] = {
    3: ("left", "right", "hold"),
    4: ("left", "right", "across", "hold"),
    5: ("left", "right", "hold"),
    6: ("left", "right", "across", "hold"),
}


OptionKind = Literal["bool", "int", "choice", "pass_cycle"]


@dataclass(frozen=True)
class OptionSpec:
    """One rule option, declared once: everything a form, a flag or a validator needs.

    >>> spec = Rules.option("moon")
    >>> spec.rule, spec.kind, spec.default, spec.choices[:2]
    ('R4.4', 'choice', 'add_to_others', ('add_to_others', 'subtract_from_self'))
    >>> spec.allowed()
    'add_to_others | subtract_from_self | shooter_chooses | add_unless_losing'
    """

    name: str
    rule: str
    """The rule of docs/rules.md it belongs to (``"R4.4"``)."""
    label: str
    """A few words for a form: ``"Shooting the moon"``."""
    help: str
    """One line on what it does."""
    kind: OptionKind
    default: Any
    choices: tuple[str, ...] = ()
    """The allowed values of a ``choice``; the steps of a ``pass_cycle``."""
    low: int | None = None
    high: int | None = None
    """The range of an ``int`` (``pass_count``: also below the hand size)."""

    def allowed(self) -> str:
        """What the option may be set to, as text."""
        if self.kind == "bool":
            return "true | false"
        if self.kind == "int":
            return f"{self.low}..{self.high}"
        if self.kind == "pass_cycle":
            return (
                f"steps {', '.join(self.choices)} or seat offsets separated by '/' (or ',', but not in an "
                "OpenSpiel game string), e.g. left/hold; 'default'"
            )
        return " | ".join(self.choices)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form of the spec (the web lobby's form is built from it)."""
        return {
            "name": self.name,
            "rule": self.rule,
            "label": self.label,
            "help": self.help,
            "kind": self.kind,
            "default": self.default,
            "choices": list(self.choices),
            "low": self.low,
            "high": self.high,
        }


def _option(
    default: Any,
    rule: str,
    label: str,
    help: str,
    *,
    choices: tuple[str, ...] = (),
    low: int | None = None,
    high: int | None = None,
) -> Any:
    """A :class:`Rules` field declared with its :class:`OptionSpec` (in the field's metadata)."""
    kind: OptionKind = (
        "bool" if isinstance(default, bool)
        else "int" if isinstance(default, int)
        else "choice" if default is not None
        else "pass_cycle"
    )
    spec = {"rule": rule, "label": label, "help": help, "kind": kind, "choices": choices, "low": low, "high": high}
    return field(default=default, metadata={"option": spec})


@dataclass(frozen=True)
class Rules:
    """The options of docs/rules.md (R1–R5), with the defaults marked there.

    Field names are the option names of docs/rules.md; ``pass_cycle=None`` means the default
    rotation for the number of players (R2.2). ``pass_cycle`` may be given as steps
    (``("left", "hold")``) or as the text every entry reads (:func:`parse_option_value`:
    ``"left/hold"``, ``"left,hold"``, ``"default"``); it is kept as steps.

    >>> Rules(pass_cycle="left,2").pass_cycle, Rules.from_dict({"pass_cycle": "default"}).pass_cycle
    (('left', 2), None)
    """

    players: int = _option(4, "R1.1", N_("Players"), N_("number of players"), low=3, high=6)
    removed_for_three: RemovedForThree = _option(
        "two_of_diamonds", "R1.2", N_("Card out for three"), N_("the card taken out for three players"), choices=REMOVED_FOR_THREE
    )
    pass_count: int = _option(
        3, "R2.1", N_("Cards passed"), N_("cards passed each round (0: no passing)"), low=0, high=16
    )
    pass_cycle: tuple[PassStep, ...] | None = _option(
        None, "R2.2", N_("Pass directions"), N_("pass directions, round by round"), choices=PASS_STEPS
    )
    first_lead: FirstLead = _option(
        "lowest_club", "R3.1", N_("First lead"), N_("what the first lead of a round must be"), choices=FIRST_LEADS
    )
    points_on_first_trick: bool = _option(
        False, "R3.3", N_("Points on the first trick"), N_("hearts and the Q♠ allowed on the first trick")
    )
    must_break_hearts: bool = _option(
        True, "R3.4", N_("Hearts must be broken"), N_("hearts may not be led until broken")
    )
    queen_breaks_hearts: bool = _option(
        True, "R3.5", N_("The Q♠ breaks hearts"), N_("playing the Q♠ breaks hearts")
    )
    queen_lead: QueenLead = _option(
        "anytime", "R3.6", N_("Leading the Q♠"), N_("when the Q♠ may be led"), choices=QUEEN_LEADS
    )
    lead_hearts_instead_of_queen: bool = _option(
        False, "R3.7", N_("Hearts instead of the Q♠"), N_("a hand of only hearts and the Q♠ may lead a heart")
    )
    jack_of_diamonds: int = _option(
        0, "R4.2", N_("J♦ bonus"), N_("score for taking the J♦ (e.g. -10)"), low=-26, high=26
    )
    no_tricks_bonus: int = _option(
        0, "R4.3", N_("No-trick bonus"), N_("score for taking no trick (e.g. -5)"), low=-26, high=26
    )
    spade_penalties: bool = _option(
        False, "R4.5", N_("Black Maria's spades"), N_("the K♠ scores 10 and the A♠ 7, as well as the Q♠ 13")
    )
    moon: Moon = _option(
        "add_to_others", "R4.4", N_("Shooting the moon"), N_("how shooting the moon scores"), choices=MOONS
    )
    target: int = _option(
        100, "R5.1", N_("Game target"), N_("the game ends when someone reaches it"), low=1, high=10_000
    )
    ties: Ties = _option(
        "play_on", "R5.2", N_("Ties for the lowest total"), N_("a tie for the lowest total at the end"), choices=TIES
    )
    # Derived values, computed once (not options).
    pass_offsets: tuple[int, ...] = field(init=False, repr=False, compare=False)
    deck_mask: int = field(init=False, repr=False, compare=False)
    lowest_club: Card = field(init=False, repr=False, compare=False)
    penalty_mask: int = field(init=False, repr=False, compare=False)
    """The penalty cards (R4.1, R4.5): the hearts and the Q♠, with the K♠ and the A♠ under
    ``spade_penalties``; who takes them all shoots the moon (R4.4)."""

    def __post_init__(self) -> None:
        for spec in OPTIONS:
            if spec.name == "pass_count":  # R2.1: fewer cards than a hand, for these players
                spec = replace(spec, high=self.hand_size - 1)
            if spec.kind != "pass_cycle":
                _check(spec, getattr(self, spec.name))
        cycle = None if self.pass_cycle is None else _cycle(self.pass_cycle)
        object.__setattr__(self, "pass_cycle", cycle)
        steps = cycle if cycle is not None else DEFAULT_PASS_CYCLES[self.players]
        if not steps:
            raise RulesError("R2.2: option 'pass_cycle' is empty; give at least one step, e.g. ['hold']")
        offsets = tuple(_pass_offset(step, self.players) % self.players for step in steps)
        object.__setattr__(self, "pass_offsets", offsets)
        if self.removed_for_three != "two_of_diamonds" and self.players != 3:
            raise RulesError(
                f"R1.2: option 'removed_for_three' is {self.removed_for_three!r} with {self.players} players; "
                "it applies to three players only (leave it 'two_of_diamonds')"
            )
        deck = (1 << 52) - 1
        for card in self.removed_cards:
            deck &= ~(1 << card)
        object.__setattr__(self, "deck_mask", deck)
        object.__setattr__(self, "lowest_club", next(c for c in CARDS[::4] if deck >> c & 1))
        object.__setattr__(self, "penalty_mask", POINTS_MASK | (SPADE_PENALTIES_MASK if self.spade_penalties else 0))

    # --- derived facts -------------------------------------------------------------------

    @property
    def removed_cards(self) -> tuple[Card, ...]:
        """The cards taken out of the deck (R1.2): the 2♦ for three players, or the 2♣ with
        ``removed_for_three="two_of_clubs"`` (Black Maria).

        >>> Rules(players=3).removed_cards, Rules(players=3, removed_for_three="two_of_clubs").removed_cards
        ((Card('2D'),), (Card('2C'),))
        """
        if self.players == 3 and self.removed_for_three == "two_of_clubs":
            return (Card.of(0, CLUBS),)
        return REMOVED_CARDS[self.players]

    @property
    def deck_size(self) -> int:
        """Cards in the deck (R1.2): 52, 51, 50 or 48."""
        return 52 - len(self.removed_cards)

    @property
    def round_points(self) -> int:
        """The penalty points in every round (R4.1, R4.5): 26, or 43 with ``spade_penalties``;
        also what a shot moon is worth (R4.4).

        >>> Rules().round_points, Rules.preset("black_maria").round_points
        (26, 43)
        """
        return 43 if self.spade_penalties else 26

    def points(self, mask: int) -> int:
        """The penalty points of the cards of ``mask`` under these rules (R4.1, R4.5).

        >>> from hearts.cards import CardSet
        >>> Rules().points(CardSet.parse("KS AS 2H").mask), Rules.preset("black_maria").points(CardSet.parse("KS AS 2H").mask)
        (1, 18)
        """
        return mask_points(mask, self.spade_penalties)

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player, which is also the number of tricks."""
        return self.deck_size // self.players

    def pass_offset(self, round_number: int) -> int:
        """Seats between passer and receiver in round ``round_number`` (0-based); 0 = hold.

        >>> [Rules().pass_offset(i) for i in range(5)]
        [1, 3, 2, 0, 1]
        """
        if self.pass_count == 0:
            return 0
        return self.pass_offsets[round_number % len(self.pass_offsets)]

    def game_winners(self, totals: Sequence[int]) -> tuple[int, ...] | None:
        """The winners if the game ends with these totals (R5.1, R5.2), else ``None``.

        >>> Rules(players=3).game_winners([40, 100, 60])
        (0,)
        >>> Rules(players=3).game_winners([40, 100, 40]) is None  # a tie for lowest: play on
        True
        >>> Rules(players=3, ties="share").game_winners([40, 100, 40])
        (0, 2)
        """
        if max(totals) < self.target:
            return None
        low = min(totals)
        winners = tuple(s for s, t in enumerate(totals) if t == low)
        if len(winners) > 1 and self.ties == "play_on":
            return None
        return winners

    # --- the options ---------------------------------------------------------------------

    @staticmethod
    def options() -> tuple[OptionSpec, ...]:
        """Every option with its rule, words, kind, default and allowed values (like OpenSpiel's
        ``parameter_specification``); validation, flags and forms are made from it.

        >>> [spec.name for spec in Rules.options()][:3]
        ['players', 'removed_for_three', 'pass_count']
        """
        return OPTIONS

    @staticmethod
    def option(name: str) -> OptionSpec:
        """The specification of one option (an unknown name is a :class:`RulesError`)."""
        spec = _SPECS.get(name)
        if spec is None:
            raise RulesError(f"R6: unknown option {name!r:.60}; allowed: {', '.join(OPTION_NAMES)}")
        return spec

    # --- construction --------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named preset of R6 (``standard``, ``openspiel``, ``omnibus``, ...), with overrides."""
        if name not in PRESETS:
            raise RulesError(f"R6: unknown preset {name!r:.60}; allowed: {', '.join(map(repr, PRESETS))}")
        return cls.from_dict({**PRESETS[name], **overrides})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from a mapping of option names; unknown names are an error."""
        if not isinstance(data, Mapping):
            raise RulesError(f"R6: rules must be a mapping of options, not {data!r:.60}")
        unknown = set(data) - set(OPTION_NAMES)
        if unknown:
            raise RulesError(f"R6: unknown option {sorted(map(str, unknown))[0]!r:.60}; allowed: {', '.join(OPTION_NAMES)}")
        try:
            return cls(**data)
        except TypeError as e:  # pragma: no cover - defensive: wrong types caught above
            raise RulesError(str(e)) from None

    @classmethod
    def from_json(cls, text: str | bytes) -> Rules:
        """Rules from a JSON object.

        >>> Rules.from_json("[" * 100_000 + "]" * 100_000)
        Traceback (most recent call last):
        ...
        hearts.errors.RulesError: R6: rules are not valid JSON: it nests too deeply
        """
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
            reason = "it nests too deeply" if isinstance(e, RecursionError) else str(e)
            raise RulesError(f"R6: rules are not valid JSON: {reason}") from None
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (every option, defaults included)."""
        out: dict[str, Any] = {}
        for name in OPTION_NAMES:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_json(self) -> str:
        """The options as a JSON object."""
        return json.dumps(self.to_dict())

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated)."""
        return Rules.from_dict({**self.to_dict(), **changes})

    def with_options(self, assignments: Iterable[str]) -> Rules:
        """A copy with options given as text, ``"name=value"`` (for command lines and forms).

        >>> Rules().with_options(["moon=shooter_chooses", "jack_of_diamonds=-10"]).moon
        'shooter_chooses'
        >>> Rules().with_options(["pass_cycle=left,hold"]).pass_cycle
        ('left', 'hold')
        """
        changes: dict[str, Any] = {}
        for item in assignments:
            name, sep, text = item.partition("=")
            name = name.strip().replace("-", "_")
            if not sep:
                raise RulesError(f"R6: {item!r:.60} is not an option setting; write name=value")
            changes[name] = parse_option_value(name, text.strip())
        return self.replace(**changes)

    def describe(self) -> str:
        """The options that differ from the defaults, as ``--option`` takes them.

        >>> Rules(players=3, moon="shooter_chooses", pass_cycle=("left", "hold")).describe()
        'players=3 pass_cycle=left/hold moon=shooter_chooses'
        """
        default = Rules(players=self.players)
        parts = [f"players={self.players}"]
        for name in OPTION_NAMES[1:]:
            value = getattr(self, name)
            if value != getattr(default, name):
                parts.append(f"{name}={option_text(value)}")
        return " ".join(parts)


def _init_checking_names(init: Any) -> Any:
    """Wrap the dataclass's ``__init__`` so that an unknown option is a :class:`RulesError`."""

    @functools.wraps(init)
    def __init__(self: Rules, *args: Any, **options: Any) -> None:
        unknown = set(options) - set(OPTION_NAMES)
        if unknown or len(args) > len(OPTION_NAMES):
            what = repr(sorted(unknown)[0]) if unknown else f"{len(args)} positional values"
            raise RulesError(f"R6: unknown option {what:.60}; allowed: {', '.join(OPTION_NAMES)}")
        init(self, *args, **options)

    return __init__


setattr(Rules, "__init__", _init_checking_names(Rules.__init__))  # noqa: B010
OPTIONS: Final = tuple(
    OptionSpec(name=f.name, default=f.default, **f.metadata["option"]) for f in fields(Rules) if f.init
)
OPTION_NAMES: Final = tuple(spec.name for spec in OPTIONS)
_SPECS: Final = {spec.name: spec for spec in OPTIONS}

PRESETS: Final[dict[str, dict[str, Any]]] = {
    "standard": {},
    "openspiel": {},
    "omnibus": {"jack_of_diamonds": -10},
    "no_queen_break": {"queen_breaks_hearts": False},
    "strict_queen": {"queen_lead": "after_break", "moon": "add_unless_losing"},
    "black_maria": {"players": 3, "removed_for_three": "two_of_clubs", "pass_cycle": "right", "spade_penalties": True},
}


def parse_option_value(name: str, text: str) -> Any:
    """Turn the text of an option's value into its type (bools, ints, pass cycles, choices):
    the one reader of option text (``--option``, forms, OpenSpiel parameters, and a
    ``pass_cycle`` given as text to :class:`Rules` or :meth:`Rules.from_dict`).
    :func:`option_text` writes what it reads.

    A pass cycle's steps are separated by ``/`` (as in OpenSpiel game strings, which separate
    parameters with commas) or ``,``; a lone offset may end with ``/`` (``"1/"``, as
    :func:`option_text` writes it); ``default`` (or nothing) is the default rotation.

    >>> parse_option_value("must_break_hearts", "no"), parse_option_value("pass_cycle", "left/2")
    (False, ('left', 2))
    >>> parse_option_value("pass_cycle", "left,hold"), parse_option_value("pass_cycle", "1/")
    (('left', 'hold'), (1,))
    """
    spec = Rules.option(name)
    if spec.kind == "pass_cycle":
        text = text.strip()
        if text.lower() in ("", "default", "none"):
            return None
        steps = re.split(r"[,/]", text[:-1] if text.endswith("/") else text)
        return tuple(int(s) if _is_int(s) else s.strip().lower() for s in steps)
    if spec.kind == "bool":
        low = text.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise RulesError(f"{spec.rule}: option {name!r} is {text!r:.40}; allowed: true, false")
    if spec.kind == "int":
        if not _is_int(text) or len(text) > 12:
            raise RulesError(f"{spec.rule}: option {name!r} is {text!r:.40}; expected a whole number {spec.allowed()}")
        return int(text)
    return text


def option_text(value: object) -> str:
    """A rule option's value as it is typed and printed — the one written form, which
    :func:`parse_option_value` reads back (``--option name=VALUE``, ``hearts rules``,
    :meth:`Rules.describe`, forms, the OpenSpiel game's parameters): ``true``, ``-10``;
    a pass cycle's steps joined by ``/`` (``left/2``; a lone offset ends with ``/``, ``1/``,
    which an OpenSpiel game string would otherwise read as a number), ``default`` for the
    default cycle (``None``).

    >>> option_text(False), option_text(("left", 2)), option_text(None), option_text(-10), option_text((1,))
    ('false', 'left/2', 'default', '-10', '1/')
    >>> parse_option_value("pass_cycle", option_text((1,)))
    (1,)
    """
    if value is None:
        return "default"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (tuple, list)):
        text = "/".join(map(str, value))
        return text + "/" if _is_int(text) else text
    return str(value)


def _cycle(value: object) -> tuple[Any, ...] | None:
    """A pass cycle's steps as a tuple (R2.2): from a list or a tuple, or from text read by
    :func:`parse_option_value` (``None`` for ``"default"``); not from a mapping or a set,
    whose keys or order would be taken silently.

    >>> _cycle("left/hold"), _cycle(["left", 2])
    (('left', 'hold'), ('left', 2))
    >>> _cycle({"left": 1})
    Traceback (most recent call last):
    ...
    hearts.errors.RulesError: R2.2: option 'pass_cycle' is {'left': 1}; expected a list of steps or their text (e.g. 'left/hold')
    """
    if isinstance(value, str):
        parsed: tuple[Any, ...] | None = parse_option_value("pass_cycle", value)
        return parsed
    if not isinstance(value, (list, tuple)):
        raise RulesError(
            f"R2.2: option 'pass_cycle' is {value!r:.60}; expected a list of steps or their text (e.g. 'left/hold')"
        )
    return tuple(value)


def _is_int(text: str) -> bool:
    return text.strip().lstrip("+-").isdigit()


def _check(spec: OptionSpec, value: object) -> None:
    """Validate one option's value against its spec (the one validator of every option)."""
    if spec.kind == "bool":
        ok = isinstance(value, bool)
    elif spec.kind == "int":
        ok = (
            isinstance(value, int)
            and not isinstance(value, bool)
            and spec.low is not None
            and spec.high is not None
            and spec.low <= value <= spec.high
        )
    else:
        ok = isinstance(value, str) and value in spec.choices
    if not ok:
        allowed = ", ".join(map(repr, spec.choices)) if spec.kind == "choice" else spec.allowed()
        raise RulesError(f"{spec.rule}: option {spec.name!r} is {value!r:.60}; allowed: {allowed}")


_STEPS_TEXT = f"{', '.join(PASS_STEPS)} or an offset, the steps separated by '/' (e.g. left/hold)"


def _pass_offset(step: PassStep, players: int) -> int:
    """R2.2: a pass step as a seat offset (left = +1, i.e. clockwise; 0 = hold)."""
    if isinstance(step, bool) or not isinstance(step, (int, str)):
        raise RulesError(f"R2.2: pass_cycle step {step!r:.40}; allowed: {_STEPS_TEXT}")
    if isinstance(step, int):
        if not 0 <= step < players:
            raise RulesError(f"R2.2: pass_cycle offset {step!r}; allowed: 0..{players - 1} (0 = hold)")
        return step
    if step == "left":
        return 1
    if step == "right":
        return -1
    if step == "hold":
        return 0
    if step == "across":
        if players % 2:
            raise RulesError(f"R2.2: pass_cycle step 'across' needs an even number of players, not {players}")
        return players // 2
    raise RulesError(f"R2.2: pass_cycle step {step!r:.40}; allowed: {_STEPS_TEXT}")
