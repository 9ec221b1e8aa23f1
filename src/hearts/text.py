"""Words for people: card names, seat names, directions, score tables (every front end's).

The line-mode table, the replay, the terminal table and any other front end print the game
with these helpers, so a card, a pass direction or a score table reads the same everywhere.
This module sits below every front end: it imports the engine only, never a front end.

>>> style = Style()
>>> style.card(Card.parse("TH")), style.hand(CardSet.parse("2C 5C QS 10H AH"))
('10♥', '♣ 2 5   ♠ Q   ♥ 10 A')
>>> direction_name(2, 4), does("West", "pass"), points_word(13)
('across', 'West passes', '13 points')
>>> print("\\n".join(score_table(["You", "East"], [("Round 1", [3, 23])])))
          You  East
Round 1     3    23
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from hearts.cards import (
    DISPLAY_SUIT_ORDER,
    JACK_OF_DIAMONDS,
    RANK_LETTERS,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    Card,
    CardSet,
)
from hearts.errors import HeartsError, IllegalAction
from hearts.mechanics import MoonChoice, trick_winner_offset
from hearts.record import Seat
from hearts.round import Round, Trick

COMPASS: Final = ("North", "East", "South", "West")
"""Seat names with four players (R1.4): seat 0 is North, then clockwise."""

_ASCII: Final = str.maketrans(
    {
        **{sym: letter for sym, letter in zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=True)},
        "→": "->",
        "═": "=",
        "─": "-",
        "·": "|",
        "☾": "*",
        "−": "-",
        "…": "...",
    }
)


class Style:
    """How cards are printed: suit symbols (``Q♠``) or, with ``ascii_only``, letters (``QS``)."""

    def __init__(self, ascii_only: bool = False) -> None:
        self.ascii_only = ascii_only
        self.suits = SUIT_LETTERS if ascii_only else SUIT_SYMBOLS

    def text(self, text: str) -> str:
        """``text`` as printed: unchanged, or with ``ascii_only`` its symbols spelt in ASCII
        (and any other character that is not ASCII as ``?``).

        >>> Style(ascii_only=True).text("→ West takes the Q♠ · ══ ✓")
        '-> West takes the QS | == ?'
        """
        if not self.ascii_only:
            return text
        return text.translate(_ASCII).encode("ascii", "replace").decode("ascii")

    @staticmethod
    def rank(card: Card) -> str:
        """The rank as a person writes it (``10`` rather than ``T``)."""
        return "10" if card.rank == 8 else RANK_LETTERS[card.rank]

    def card(self, card: Card) -> str:
        """One card, e.g. ``Q♠`` or ``10♥``."""
        return self.rank(card) + self.suits[card.suit]

    def cards(self, cards: Iterable[Card]) -> str:
        """Cards separated by blanks, in the order given."""
        return " ".join(self.card(c) for c in cards)

    def sorted_cards(self, cards: CardSet) -> str:
        """Cards grouped by suit (♣ ♦ ♠ ♥), low to high."""
        return self.cards(cards.sorted_by_suit())

    def hand(self, cards: CardSet) -> str:
        """A hand by suit: ``♣ 2 5 9 J   ♦ 3 K   ♠ 4 Q   ♥ 2 7 A``."""
        groups = []
        for suit in DISPLAY_SUIT_ORDER:
            ranks = [self.rank(c) for c in cards.of_suit(suit)]
            if ranks:
                groups.append(self.suits[suit] + " " + " ".join(ranks))
        return "   ".join(groups) if groups else "(no cards)"


def can_encode(stream: object) -> bool:
    """True when ``stream`` (a text stream) can print the suit symbols and arrows of :class:`Style`."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "♣♦♥♠→·═─☾".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


# --- seats -----------------------------------------------------------------------------------


def default_names(players: int, human: str | None = "You") -> list[str]:
    """Seat names: North, East, South, West with four players (R1.4), else ``Seat i``;
    seat 0 is called ``human`` when given.

    >>> default_names(4), default_names(3, None)
    (['You', 'East', 'South', 'West'], ['Seat 0', 'Seat 1', 'Seat 2'])
    """
    names = list(COMPASS) if players == 4 else [f"Seat {s}" for s in range(players)]
    if human is not None:
        names[0] = human
    return names


def bot_specs(specs: Sequence[str] | None, players: int, default: str) -> list[str]:
    """The bot specs people gave (one per seat 1..n-1, or one for all; none: ``default``), one
    per seat; a wrong count is a :class:`~hearts.errors.HeartsError`.

    >>> bot_specs(["hard"], 4, "random"), bot_specs(None, 3, "medium")
    (['hard', 'hard', 'hard'], ['medium', 'medium'])
    """
    chosen = list(specs) if specs else [default]
    if len(chosen) == 1:
        chosen *= players - 1
    if len(chosen) != players - 1:
        raise HeartsError(
            f"{players - 1} bot specs are needed (one per other seat) or one for all, got {len(chosen)}"
        )
    return chosen


def seat_label(seat: Seat) -> str:
    """A seat as a person reads it: its name, and a bot's spec in brackets.

    >>> seat_label(Seat("East", bot="search:iterations=900")), seat_label(Seat("Ann"))
    ('East (search:iterations=900)', 'Ann')
    """
    return f"{seat.name} ({seat.bot})" if seat.bot is not None else seat.name


def is_you(name: str) -> bool:
    """True for the name that is spoken to (``You``), which takes ``you``/``your`` wording."""
    return name.lower() == "you"


def does(name: str, verb: str) -> str:
    """``West plays``, ``You play``, ``Ann passes``: a name and a verb that agree.

    >>> does("West", "pass"), does("You", "pass"), does("You", "win")
    ('West passes', 'You pass', 'You win')
    """
    if is_you(name):
        return f"{name} {verb}"
    if verb.endswith(("s", "sh", "ch")):
        return f"{name} {verb}es"
    return f"{name} {verb}s"


def direction_name(offset: int, players: int) -> str:
    """R2.2: a pass offset as a word: ``left``, ``right``, ``across``, ``hold`` (or N seats).

    >>> [direction_name(k, 6) for k in range(6)]
    ['hold', 'left', '2 seats to the left', 'across', '4 seats to the left', 'right']
    """
    if offset == 0:
        return "hold"
    if offset == 1:
        return "left"
    if offset == players - 1:
        return "right"
    if players % 2 == 0 and offset == players // 2:
        return "across"
    return f"{offset} seats to the left"


# --- points and scores -----------------------------------------------------------------------


def points_word(points: int) -> str:
    """``no points``, ``1 point``, ``5 points``, ``-10 points``.

    >>> points_word(0), points_word(1), points_word(-10)
    ('no points', '1 point', '-10 points')
    """
    if points == 0:
        return "no points"
    return f"{points} point" if points == 1 else f"{points} points"


def score_table(names: Sequence[str], rows: Sequence[tuple[str, Sequence[object]]]) -> list[str]:
    """A right-aligned table, one column per seat, one line per row (a label and its values)."""
    label_width = max([len(label) for label, _ in rows] + [5])
    widths = [max(len(n), 4, *(len(str(values[i])) for _, values in rows)) for i, n in enumerate(names)]
    lines = [" " * label_width + "  " + "  ".join(n.rjust(w) for n, w in zip(names, widths, strict=True))]
    for label, values in rows:
        cells = "  ".join(str(v).rjust(w) for v, w in zip(values, widths, strict=True))
        lines.append(label.ljust(label_width) + "  " + cells)
    return lines


def winning_card(trick: Trick) -> Card:
    """The card that takes ``trick`` (so far): the highest of the suit led (R3.8).

    >>> winning_card(Trick(0, tuple(map(Card.parse, ["5C", "AD", "9C", "QS"])), 2, 4))
    Card('9C')
    """
    return trick.cards[trick_winner_offset(trick.cards)]


def moon_effect(r: Round) -> str:
    """How a finished round's shot moon was scored (R4.4): ``every other player +26`` or
    ``the shooter -26``."""
    result = r.result
    if result is None or result.shooter is None:
        raise ValueError("nobody shot the moon in this round")
    shooter = result.shooter
    bonus = r.rules.jack_of_diamonds if JACK_OF_DIAMONDS in r.won_cards(shooter) else 0
    return "every other player +26" if result.scores[shooter] == bonus else "the shooter -26"


def moon_choice_text(name: str, choice: MoonChoice) -> str:
    """The shooter's decision (R4.4 ``shooter_chooses``) in a sentence.

    >>> moon_choice_text("You", "subtract"), moon_choice_text("East", "add")
    ('You choose to subtract 26 from your own score.', 'East chooses to add 26 to every other player.')
    """
    if choice == "add":
        return f"{does(name, 'choose')} to add 26 to every other player."
    return f"{does(name, 'choose')} to subtract 26 from {'your' if is_you(name) else 'their'} own score."


def refusal(error: IllegalAction) -> str:
    """Why the engine refused an action: its rule and reason, without the engine's own
    ``(legal: ...)`` list (a front end shows the legal cards its own way).

    >>> from hearts.errors import IllegalPlay
    >>> refusal(IllegalPlay("it must follow clubs (legal: 2C 9C)", rule="R3.2", seat=0))
    'R3.2: it must follow clubs'
    """
    return f"{error.rule}: {_LEGAL_LIST.sub('', error.reason)}"


_LEGAL_LIST: Final = re.compile(r"\s*\(legal: [^)]*\)$")


def option_text(value: object) -> str:
    """A rule option's value as it is typed (``--option name=VALUE``, forms): ``true``,
    ``left,hold``, ``default`` for the default pass cycle (``None``).

    >>> option_text(False), option_text(("left", 2)), option_text(None), option_text(-10)
    ('false', 'left,2', 'default', '-10')
    """
    if value is None:
        return "default"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


__all__ = [
    "COMPASS",
    "Style",
    "bot_specs",
    "can_encode",
    "default_names",
    "direction_name",
    "does",
    "is_you",
    "moon_choice_text",
    "moon_effect",
    "option_text",
    "points_word",
    "refusal",
    "score_table",
    "seat_label",
    "winning_card",
]
