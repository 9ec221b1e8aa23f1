"""Every rule option of RULES.md as one frozen, validated value.

>>> rules = Rules()
>>> rules.players, rules.pass_count, rules.moon, rules.target
(4, 3, 'add_to_others', 100)
>>> Rules.preset("omnibus").jack_of_diamonds
-10
>>> Rules(players=3).pass_offsets  # left, right, hold as seat offsets (R2.2)
(1, 2, 0)
>>> Rules.from_dict(Rules(players=6).to_dict()) == Rules(players=6)
True
>>> Rules(moon="sometimes")
Traceback (most recent call last):
...
hearts.errors.RulesError: option 'moon' is 'sometimes'; allowed: 'add_to_others', 'subtract_from_self', 'shooter_chooses', 'add_unless_losing'
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final, Literal

from hearts.cards import CARDS, CLUBS, DIAMONDS, SPADES, Card
from hearts.errors import RulesError

FirstLead = Literal["lowest_club", "any_club"]
QueenLead = Literal["anytime", "after_break"]
Moon = Literal["add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing"]
Ties = Literal["play_on", "share"]
PassStep = str | int

FIRST_LEADS: Final = ("lowest_club", "any_club")
QUEEN_LEADS: Final = ("anytime", "after_break")
MOONS: Final = ("add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing")
TIES: Final = ("play_on", "share")
PASS_STEPS: Final = ("left", "right", "across", "hold")

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


@dataclass(frozen=True)
class Rules:
    """The options of RULES.md (R1–R5), with the defaults marked there.

    Field names are the option names of RULES.md; ``pass_cycle=None`` means the default
    rotation for the number of players (R2.2).
    """

    players: int = 4
    pass_count: int = 3
    pass_cycle: tuple[PassStep, ...] | None = None
    first_lead: FirstLead = "lowest_club"
    points_on_first_trick: bool = False
    must_break_hearts: bool = True
    queen_breaks_hearts: bool = True
    queen_lead: QueenLead = "anytime"
    lead_hearts_instead_of_queen: bool = False
    jack_of_diamonds: int = 0
    no_tricks_bonus: int = 0
    moon: Moon = "add_to_others"
    target: int = 100
    ties: Ties = "play_on"
    # Derived values, computed once (not options).
    pass_offsets: tuple[int, ...] = field(init=False, repr=False, compare=False)
    deck_mask: int = field(init=False, repr=False, compare=False)
    lowest_club: Card = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_int("players", self.players, 3, 6)
        _check_int("pass_count", self.pass_count, 0, self.hand_size - 1)
        _check_choice("first_lead", self.first_lead, FIRST_LEADS)
        for name in (
            "points_on_first_trick",
            "must_break_hearts",
            "queen_breaks_hearts",
            "lead_hearts_instead_of_queen",
        ):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"option {name!r} is {getattr(self, name)!r}; allowed: true, false")
        _check_choice("queen_lead", self.queen_lead, QUEEN_LEADS)
        _check_int("jack_of_diamonds", self.jack_of_diamonds, -26, 26)
        _check_int("no_tricks_bonus", self.no_tricks_bonus, -26, 26)
        _check_choice("moon", self.moon, MOONS)
        _check_int("target", self.target, 1, 10_000)
        _check_choice("ties", self.ties, TIES)
        cycle = self.pass_cycle
        if cycle is not None:
            if isinstance(cycle, str) or not isinstance(cycle, Iterable):
                raise RulesError(f"option 'pass_cycle' is {cycle!r}; expected a list of steps")
            cycle = tuple(cycle)
            object.__setattr__(self, "pass_cycle", cycle)
        steps = cycle if cycle is not None else DEFAULT_PASS_CYCLES[self.players]
        if not steps:
            raise RulesError("option 'pass_cycle' is empty; give at least one step, e.g. ['hold']")
        offsets = tuple(_pass_offset(step, self.players) % self.players for step in steps)
        object.__setattr__(self, "pass_offsets", offsets)
        deck = (1 << 52) - 1
        for card in REMOVED_CARDS[self.players]:
            deck &= ~(1 << card)
        object.__setattr__(self, "deck_mask", deck)
        object.__setattr__(self, "lowest_club", next(c for c in CARDS[::4] if deck >> c & 1))

    # --- derived facts -------------------------------------------------------------------

    @property
    def deck_size(self) -> int:
        """Cards in the deck (R1.2): 52, 51, 50 or 48."""
        return 52 - len(REMOVED_CARDS[self.players])

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

    # --- construction --------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named preset of R6 (``standard``, ``openspiel``, ``omnibus``, ...), with overrides."""
        if name not in PRESETS:
            raise RulesError(f"unknown preset {name!r}; allowed: {', '.join(map(repr, PRESETS))}")
        return cls.from_dict({**PRESETS[name], **overrides})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from a mapping of option names; unknown names are an error."""
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a mapping of options, not {data!r}")
        unknown = set(data) - set(OPTION_NAMES)
        if unknown:
            raise RulesError(f"unknown option {sorted(unknown)[0]!r}; allowed: {', '.join(OPTION_NAMES)}")
        values = dict(data)
        cycle = values.get("pass_cycle")
        if cycle is not None:
            if isinstance(cycle, str) or not isinstance(cycle, Iterable):
                raise RulesError(f"option 'pass_cycle' is {cycle!r}; expected a list of steps")
            values["pass_cycle"] = tuple(cycle)
        try:
            return cls(**values)
        except TypeError as e:  # pragma: no cover - defensive: wrong types caught above
            raise RulesError(str(e)) from None

    @classmethod
    def from_json(cls, text: str) -> Rules:
        """Rules from a JSON object."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RulesError(f"rules are not valid JSON: {e}") from None
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
                raise RulesError(f"{item!r} is not an option setting; write name=value")
            changes[name] = parse_option_value(name, text.strip())
        return self.replace(**changes)

    def describe(self) -> str:
        """The options that differ from the defaults, e.g. ``'players=3 moon=shooter_chooses'``."""
        default = Rules(players=self.players)
        parts = [f"players={self.players}"]
        for name in OPTION_NAMES[1:]:
            value = getattr(self, name)
            if value != getattr(default, name):
                shown = ",".join(map(str, value)) if isinstance(value, tuple) else value
                parts.append(f"{name}={shown}")
        return " ".join(parts)


OPTION_NAMES: Final = tuple(f.name for f in fields(Rules) if f.init)

PRESETS: Final[dict[str, dict[str, Any]]] = {
    "standard": {},
    "openspiel": {},
    "omnibus": {"jack_of_diamonds": -10},
    "no_queen_break": {"queen_breaks_hearts": False},
    "strict_queen": {"queen_lead": "after_break", "moon": "add_unless_losing"},
}


def parse_option_value(name: str, text: str) -> Any:
    """Turn the text of an option's value into its type (bools, ints, pass cycles, choices)."""
    if name not in OPTION_NAMES:
        raise RulesError(f"unknown option {name!r}; allowed: {', '.join(OPTION_NAMES)}")
    default = _DEFAULTS[name]
    if name == "pass_cycle":
        if text.lower() in ("", "default", "none"):
            return None
        return tuple(int(s) if _is_int(s) else s.strip().lower() for s in text.split(","))
    if isinstance(default, bool):
        low = text.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise RulesError(f"option {name!r} is {text!r}; allowed: true, false")
    if isinstance(default, int):
        if not _is_int(text):
            raise RulesError(f"option {name!r} is {text!r}; expected a whole number")
        return int(text)
    return text


_DEFAULTS: Final = {f.name: f.default for f in fields(Rules) if f.init}


def _is_int(text: str) -> bool:
    return text.strip().lstrip("+-").isdigit()


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RulesError(f"option {name!r} is {value!r}; allowed: a whole number {low}..{high}")


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise RulesError(f"option {name!r} is {value!r}; allowed: {', '.join(map(repr, allowed))}")


def _pass_offset(step: PassStep, players: int) -> int:
    """R2.2: a pass step as a seat offset (left = +1, i.e. clockwise; 0 = hold)."""
    if isinstance(step, bool) or not isinstance(step, (int, str)):
        raise RulesError(f"pass_cycle step {step!r}; allowed: {', '.join(PASS_STEPS)} or an offset")
    if isinstance(step, int):
        if not 0 <= step < players:
            raise RulesError(f"pass_cycle offset {step!r}; allowed: 0..{players - 1} (0 = hold)")
        return step
    if step == "left":
        return 1
    if step == "right":
        return -1
    if step == "hold":
        return 0
    if step == "across":
        if players % 2:
            raise RulesError(f"pass_cycle step 'across' needs an even number of players, not {players}")
        return players // 2
    raise RulesError(f"pass_cycle step {step!r}; allowed: {', '.join(PASS_STEPS)} or an offset")
