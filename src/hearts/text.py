"""Words for people: card names, seat names, bots, directions, refusals, score tables.

The line-mode table, the replay, the terminal table and any other front end print the game
with these helpers, so a card, a pass direction or a score table reads the same everywhere.
This module sits below every front end: it imports the engine only, never a front end.

>>> style = Style()
>>> style.card(Card.parse("TH")), style.hand(CardSet.parse("2C 5C QS 10H AH"))
('10♥', '♣ 2 5   ♠ Q   ♥ 10 A')
>>> direction_name(2, 4), does("West", "pass"), points_word(13), plural(1, "card")
('across', 'West passes', '13 points', '1 card')
>>> print("\\n".join(score_table(["You", "East"], [("Round 1", [3, 23])])))
          You  East
Round 1     3    23
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Final

from hearts.bots import LEVELS, bot_names
from hearts.bots.guard import FAILED, STOOD_IN, BotFault
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
from hearts.game import Game
from hearts.i18n import N_, _, ngettext
from hearts.mechanics import MoonChoice, trick_winner_offset
from hearts.record import Seat
from hearts.round import Phase, Round, Trick
from hearts.rules import OptionSpec

SEAT_NAMES: Final[dict[int, tuple[str, ...]]] = {
    3: ("South", "West", "East"),
    4: ("South", "West", "North", "East"),
    5: ("South", "West", "Northwest", "Northeast", "East"),
    6: ("South", "West", "Northwest", "North", "Northeast", "East"),
}
"""Seat names by the number of players, by convention: the person at seat 0 is South, at the
bottom of the table, and the seats follow clockwise (R1.4), so seat 1, on South's left, is West."""

SHORT_NAMES: Final = {
    "South": "S",
    "West": "W",
    "Northwest": "NW",
    "North": "N",
    "Northeast": "NE",
    "East": "E",
}
"""The compass names' abbreviations, for where a full name does not fit."""

DEFAULT_LEVEL: Final = "medium"
"""The bots' level when a person names none, whichever table they sit at (and whether its
input is a terminal or a script)."""

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
        return "   ".join(groups) if groups else _("(no cards)")


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
    """Seat names clockwise from seat 0 (:data:`SEAT_NAMES`); seat 0, South, is called
    ``human`` when given.

    >>> default_names(4), default_names(3, None)
    (['You', 'West', 'North', 'East'], ['South', 'West', 'East'])
    """
    names = list(SEAT_NAMES[players])
    if human is not None:
        names[0] = human
    return names


# The conventional names and the levels in words, marked for the catalogs (shown by name_word
# and level_word in the language in use; a record keeps them in English).
_WORDS: Final = frozenset({
    N_("You"), N_("South"), N_("West"), N_("North"), N_("East"), N_("Northwest"), N_("Northeast"),
    N_("random"), N_("easy"), N_("medium"), N_("hard"), N_("expert"),
})


def name_word(name: str) -> str:
    """A seat's name as shown in the language in use: a conventional one (``You``, ``North``) or
    a level translated, any other name as it is.

    >>> name_word("North"), name_word("Ann"), name_word("hard")
    ('North', 'Ann', 'hard')
    """
    return _(name) if name in _WORDS else name


def short_name(name: str) -> str:
    """A seat's name in at most 3 cells where space is short: ``NW`` for Northwest, ``Ann``.

    >>> short_name("Northwest"), short_name("You"), short_name("Annabel")
    ('NW', 'You', 'Ann')
    """
    return SHORT_NAMES.get(name, name[:3])


def bot_label(spec: str) -> str:
    """A bot spec as a person reads it: the level it is or stands for (``hard``), else the spec.

    >>> bot_label("hard"), bot_label("heuristic"), bot_label("search:iterations=30")
    ('hard', 'medium', 'search:iterations=30')
    """
    spec = spec.strip()
    if spec in LEVELS:
        return spec
    return next((level for level, s in LEVELS.items() if s == spec), spec)


def bots_help(default: str = DEFAULT_LEVEL) -> str:
    """What may follow ``--bot``: the levels first (the default marked), then the bots (built
    in, registered with :func:`hearts.bots.register`, or declared by installed packages), then
    the ``MODULE:CLASS`` form of a bot of one's own.

    >>> bots_help().split(";")[0]
    'a level: easy, medium (default), hard, expert'
    >>> bots_help().split(";")[2].strip()
    'or a bot of your own as MODULE:CLASS (see docs/bots.md)'
    """
    levels = ", ".join(f"{level} (default)" if level == default else level for level in LEVELS)
    return (f"a level: {levels}; or a bot: {', '.join(bot_names())}, with options as NAME:key=value; "
            "or a bot of your own as MODULE:CLASS (see docs/bots.md)")


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
    """A seat as a person reads it: its name, and a bot's level (or spec) in brackets, in the
    language in use (:func:`name_word`).

    >>> seat_label(Seat("East", bot="search:iterations=2500,pass_budget=3")), seat_label(Seat("Ann"))
    ('East (hard)', 'Ann')
    """
    name = name_word(seat.name)
    return f"{name} ({name_word(bot_label(seat.bot))})" if seat.bot is not None else name


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


def possessive(name: str) -> str:
    """``West's``, ``your``: whose a thing is.

    >>> possessive("West"), possessive("You")
    ("West's", 'your')
    """
    return "your" if is_you(name) else f"{name}'s"


def direction_name(offset: int, players: int) -> str:
    """R2.2: a pass offset as a word: ``left``, ``right``, ``across``, ``hold`` (or N seats).

    >>> [direction_name(k, 6) for k in range(6)]
    ['hold', 'left', '2 seats to the left', 'across', '4 seats to the left', 'right']
    """
    if offset == 0:
        return _("hold")
    if offset == 1:
        return _("left")
    if offset == players - 1:
        return _("right")
    if players % 2 == 0 and offset == players // 2:
        return _("across")
    return ngettext("{n} seat to the left", "{n} seats to the left", offset).format(n=offset)


# --- points and scores -----------------------------------------------------------------------


def plural(count: int, noun: str) -> str:
    """``1 card``, ``13 cards``, ``0 tricks``: a count and a regular noun that agree.

    >>> plural(1, "card"), plural(0, "trick")
    ('1 card', '0 tricks')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def points_word(points: int) -> str:
    """``no points``, ``1 point``, ``5 points``, ``-10 points``.

    >>> points_word(0), points_word(1), points_word(-10)
    ('no points', '1 point', '-10 points')
    """
    return _("no points") if points == 0 else ngettext("{n} point", "{n} points", points).format(n=points)


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
    ``the shooter -26`` (43 under Black Maria's spades, R4.5)."""
    result = r.result
    if result is None or result.shooter is None:
        raise ValueError("nobody shot the moon in this round")
    shooter = result.shooter
    bonus = r.rules.jack_of_diamonds if JACK_OF_DIAMONDS in r.won_cards(shooter) else 0
    worth = r.rules.round_points
    if result.scores[shooter] == bonus:
        return _("every other player +{n}").format(n=worth)
    return _("the shooter -{n}").format(n=worth)


def moon_choice_text(name: str, choice: MoonChoice, worth: int = 26) -> str:
    """The shooter's decision (R4.4 ``shooter_chooses``) in a sentence; ``worth`` is the
    moon's points (:attr:`Rules.round_points <hearts.rules.Rules.round_points>`: 43 under
    R4.5).

    >>> moon_choice_text("You", "subtract"), moon_choice_text("East", "add", 43)
    ('You choose to subtract 26 from your own score.', 'East chooses to add 43 to every other player.')
    """
    if choice == "add":
        if is_you(name):
            return _("You choose to add {n} to every other player.").format(n=worth)
        return _("{name} chooses to add {n} to every other player.").format(name=name_word(name), n=worth)
    if is_you(name):
        return _("You choose to subtract {n} from your own score.").format(n=worth)
    return _("{name} chooses to subtract {n} from their own score.").format(name=name_word(name), n=worth)


def refusal(error: IllegalAction, names: Sequence[str] | None = None, style: Style | None = None) -> str:
    """Why the engine refused a person's action, in a person's words, its rule last.

    The engine's reason speaks of the seat (``2C is not in its hand``, ``it must follow
    clubs``); this speaks to the person, names seats by ``names`` and shows cards in
    ``style``, without the engine's ``(legal: ...)`` list (a front end shows the legal cards
    its own way).

    >>> from hearts.errors import IllegalPass, IllegalPlay
    >>> refusal(IllegalPlay("2C is not in its hand", rule="R1.3", seat=0))
    "You don't hold 2♣ (rule R1.3)"
    >>> refusal(IllegalPlay("it must follow clubs (legal: 2C 9C)", rule="R3.2", seat=0))
    'You must follow clubs (rule R3.2)'
    >>> refusal(IllegalPlay("it is seat 2's turn", rule="R1.4", seat=0), ["You", "West", "North", "East"])
    "It is North's turn (rule R1.4)"
    >>> refusal(IllegalPass("3 cards are passed, not 2", rule="R2.1", seat=0), style=Style(ascii_only=True))
    'You pass 3 cards, not 2 (rule R2.1)'
    """
    rule, reason = _people_reason(error, names, style or Style())
    return _sentence(reason, rule)


def _people_reason(error: IllegalAction, names: Sequence[str] | None, style: Style) -> tuple[str, str]:
    """The rule and the reason of a refusal in a person's words (English, :func:`refusal`)."""
    reason = _LEGAL_LIST.sub("", error.reason)
    rule, reason = _split_rule(reason, error.rule)
    for pattern, words in _PEOPLE_WORDS:
        reason = pattern.sub(lambda m: words(m, names), reason)  # noqa: B023 - used at once
    return rule, _CARD.sub(lambda m: style.card(Card.parse(m.group())), reason)


WHY_NOT: Final[dict[str, str]] = {
    "not_held": N_("That card is not in your hand (R1.3)."),
    "not_your_turn": N_("It is not your turn: the others play first (R1.4)."),
    "passing": N_("The cards are being passed: choose the cards to pass first (R2.1)."),
    "no_play": N_("No card is played now: the round is being scored (R4)."),
    "follow_clubs": N_("You must follow suit: a club was led and you still hold a club (R3.2)."),
    "follow_diamonds": N_("You must follow suit: a diamond was led and you still hold a diamond (R3.2)."),
    "follow_spades": N_("You must follow suit: a spade was led and you still hold a spade (R3.2)."),
    "follow_hearts": N_("You must follow suit: a heart was led and you still hold a heart (R3.2)."),
    "first_trick_heart": N_(
        "No points on the first trick: you may not throw a heart on it while you hold a card that is neither a heart nor the Q♠ (R3.3)."
    ),
    "first_trick_queen": N_(
        "No points on the first trick: you may not throw the Q♠ on it while you hold a card that is neither a heart nor the Q♠ (R3.3)."
    ),
    "first_lead_lowest": N_("The first trick is opened with the lowest club in play (R3.1)."),
    "first_lead_club": N_("The first trick is opened with a club (R3.1)."),
    "lead_queen": N_("With only hearts and the Q♠ in your hand and hearts not broken, you must lead the Q♠ (R3.7)."),
    "queen_after_break": N_("At this table the Q♠ may not be led before hearts are broken (R3.6)."),
    "hearts_not_broken": N_(
        "Hearts are not broken yet: you may not lead a heart while you hold a card of another suit you may lead (R3.4)."
    ),
}
"""Why a card may not be played, in a player's words with its rule (English: messages of the
catalogs, translated where they are shown), by the refusal's kind (:func:`why_not_kind`). The
terminal says them and the web table shows them (the server sends the English words, the client
their translation)."""

_WHY_PATTERNS: Final[tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str], str], str]], ...]] = (
    ("R1.3", re.compile(r"^\S+ is not in its hand$"), lambda m, card: "not_held"),
    ("R1.4", re.compile(r"^it is seat \d+'s turn$"), lambda m, card: "not_your_turn"),
    ("R3", re.compile(r"^it is the (\w+) phase$"), lambda m, card: "passing" if m.group(1) == "passing" else "no_play"),
    ("R3.2", re.compile(r"^it must follow (clubs|diamonds|spades|hearts)\b"), lambda m, card: f"follow_{m.group(1)}"),
    ("R3.3", re.compile(r"^no points on the first trick\b"), lambda m, card: "first_trick_queen" if card == "QS" else "first_trick_heart"),
    ("R3.1", re.compile(r"^the first lead is a club\b"), lambda m, card: "first_lead_club"),
    ("R3.1", re.compile(r"^the first lead is the\b"), lambda m, card: "first_lead_lowest"),
    ("R3.7", re.compile(r"^with only hearts and the Q♠ left\b"), lambda m, card: "lead_queen"),
    ("R3.6", re.compile(r"^the Q♠ may not be led before hearts are broken\b"), lambda m, card: "queen_after_break"),
    ("R3.4", re.compile(r"^hearts are not broken yet\b"), lambda m, card: "hearts_not_broken"),
)
_PLAY_REFUSAL: Final = re.compile(r"^(R\d+(?:\.\d+)*): (?:seat \d+|the player) may not play (\S+): (.*)$", re.DOTALL)


def why_not_kind(rule: str, reason: str, card: str = "") -> str | None:
    """The kind of a card's refusal (a key of :data:`WHY_NOT`) from the engine's rule and
    reason (:class:`~hearts.errors.IllegalPlay`), or ``None`` for a refusal that is not about
    playing a card.

    >>> why_not_kind("R3.2", "it must follow clubs (legal: 2C 9C)"), why_not_kind("R3.3", "no points on the first trick", "QS")
    ('follow_clubs', 'first_trick_queen')
    >>> why_not_kind("R2.1", "it has already passed") is None
    True
    """
    for number, pattern, kind in _WHY_PATTERNS:
        m = pattern.match(reason)
        if number == rule and m:
            return kind(m, card)
    return None


def why_not(error: IllegalAction | str) -> str | None:
    """Why a card was refused, in a player's words citing the rule (:data:`WHY_NOT`, English:
    the caller translates it with ``_()``), from the engine's :class:`~hearts.errors.IllegalPlay`
    or its text (``str(error)``, as the server's ``illegal`` error carries it); ``None`` for a
    refusal that is not a card's.

    >>> why_not("R3.2: seat 0 may not play 2H: it must follow clubs (legal: 2C 9C)")
    'You must follow suit: a club was led and you still hold a club (R3.2).'
    >>> why_not("R2.1: seat 0 may not pass 2C 3C: 2 cards are passed, not 3") is None
    True
    """
    if isinstance(error, str):
        m = _PLAY_REFUSAL.match(error)
        if m is None:
            return None
        rule, card, reason = m.groups()
    else:
        rule, reason = error.rule, error.reason
        card = error.cards.removeprefix("play ") if error.cards.startswith("play ") else ""
    kind = why_not_kind(rule, reason, card)
    return WHY_NOT[kind] if kind is not None else None


def refusal_words(error: IllegalAction, names: Sequence[str] | None = None, style: Style | None = None) -> str:
    """Why the engine refused a person's action, as a table says it in the language in use, the
    rule's number last: a card's refusal by its rule's reason (:func:`why_not`), a pass's with its
    cards (R2.1), any other as :func:`refusal` words it (English).

    >>> from hearts.errors import IllegalPass, IllegalPlay
    >>> refusal_words(IllegalPlay("it must follow clubs (legal: 2C 9C)", rule="R3.2", seat=0, cards="play 2H"))
    'You must follow suit: a club was led and you still hold a club (R3.2).'
    >>> refusal_words(IllegalPass("3 cards are passed, not 2", rule="R2.1", seat=0))
    'You pass 3 cards, not 2 (R2.1).'
    >>> refusal_words(IllegalPass("it does not hold 2C QS", rule="R2.1", seat=0))
    "You don't hold 2♣ Q♠ (R2.1)."
    """
    why = why_not(error)
    if why is not None:
        return _(why)
    style = style or Style()
    reason = _LEGAL_LIST.sub("", error.reason)
    m = _PASS_COUNT.match(reason)
    if m:
        wanted, given = int(m.group(1)), int(m.group(2))
        text = ngettext("You pass {n} card, not {given} ({rule}).", "You pass {n} cards, not {given} ({rule}).", wanted)
        return text.format(n=wanted, given=given, rule=error.rule)
    m = _NOT_HELD.match(reason)
    if m:
        cards = _CARD.sub(lambda c: style.card(Card.parse(c.group())), m.group(1))
        return _("You don't hold {cards} ({rule}).").format(cards=cards, rule=error.rule)
    if reason == "it has already passed":
        return _("You have already passed ({rule}).").format(rule=error.rule)
    rule, words = _people_reason(error, names, style)  # a refusal a table rarely meets: English
    return f"{_sentence(words)} ({rule})."


_PASS_COUNT: Final = re.compile(r"^(\d+) cards are passed, not (\d+)$")
_NOT_HELD: Final = re.compile(r"^it does not hold (.+)$")
_NOT_A_CARD: Final = re.compile(r"^R1\.2: (.{1,42}) is not a card: write a rank\b")
_TWICE: Final = re.compile(r"^R1\.2: (.+) is given twice$")


def typo_words(error: HeartsError) -> str:
    """What is wrong with the cards a person typed (:class:`~hearts.errors.CardParseError`), in
    the language in use, the rule's number last; any other error as :func:`rule_last` words it.

    >>> from hearts.errors import CardParseError
    >>> try:
    ...     Card.parse("qq")
    ... except CardParseError as e:
    ...     print(typo_words(e))
    'qq' is not a card: write a rank 2-10 (or T), J, Q, K, A and a suit C, D, H, S (or ♣ ♦ ♥ ♠), e.g. QS or 10h (R1.2).
    """
    m = _NOT_A_CARD.match(str(error))
    if m:
        return _("{text} is not a card: write a rank 2-10 (or T), J, Q, K, A and a suit C, D, H, S "
                 "(or ♣ ♦ ♥ ♠), e.g. QS or 10h (R1.2).").format(text=m.group(1))
    m = _TWICE.match(str(error))
    if m:
        return _("{card} is given twice (R1.2).").format(card=m.group(1))
    return rule_last(error) + "."


def allowed_words(spec: OptionSpec) -> str:
    """What a rule option may be set to (:meth:`OptionSpec.allowed
    <hearts.rules.OptionSpec.allowed>`) in the language in use: the values as they are typed, a
    pass cycle's explanation in words.

    >>> from hearts.rules import Rules
    >>> allowed_words(Rules.option("moon"))
    'add_to_others | subtract_from_self | shooter_chooses | add_unless_losing'
    >>> allowed_words(Rules.option("pass_cycle")) == Rules.option("pass_cycle").allowed()
    True
    """
    if spec.kind != "pass_cycle":
        return spec.allowed()
    return _("steps {steps} or seat offsets separated by '/' (or ',', but not in an OpenSpiel game "
             "string), e.g. left/hold; 'default'").format(steps=", ".join(spec.choices))


def rule_last(error: HeartsError) -> str:
    """What is wrong with what a person typed (a card, a rule option), in a sentence with the
    rule it names last, as :func:`refusal` says it.

    >>> from hearts.errors import CardParseError, RulesError
    >>> rule_last(CardParseError("R1.2: 'qq' is not a card"))
    "'qq' is not a card (rule R1.2)"
    >>> rule_last(RulesError("R4.2: option 'jack_of_diamonds' is -40; allowed: -26..26"))
    "Option 'jack_of_diamonds' is -40; allowed: -26..26 (rule R4.2)"
    >>> rule_last(HeartsError("seed 'x' is not a whole number"))
    "Seed 'x' is not a whole number"
    """
    m = _RULE_FIRST.match(str(error))
    return _sentence(m.group(2), m.group(1)) if m else _sentence(str(error))


def _split_rule(text: str, rule: str) -> tuple[str, str]:
    """``("R1.2", "...")`` from ``"R1.2: ..."`` (the rule a message starts with wins), else ``(rule, text)``."""
    m = _RULE_FIRST.match(text)
    return (m.group(1), m.group(2)) if m else (rule, text)


def _sentence(text: str, rule: str | None = None) -> str:
    """``text`` as a sentence (capitalised), and its rule in brackets."""
    return f"{text[:1].upper()}{text[1:]}" + (f" (rule {rule})" if rule else "")


_PHASE_WORDS: Final = {
    Phase.PASSING.value: "the cards are being passed now",
    Phase.PLAYING.value: "the cards are being played now",
    Phase.MOON_CHOICE.value: "the shooter is choosing how the moon scores",
    Phase.OVER.value: "the round is over",
}


def _seat_name(m: re.Match[str], names: Sequence[str] | None) -> str:
    seat = int(m.group(1))
    return names[seat] if names is not None and 0 <= seat < len(names) else f"seat {seat}"


_Words = Callable[[re.Match[str], Sequence[str] | None], str]

_PEOPLE_WORDS: Final[tuple[tuple[re.Pattern[str], _Words], ...]] = (
    (re.compile(r"^(\S+) is not in its hand$"), lambda m, names: f"you don't hold {m.group(1)}"),
    (re.compile(r"^it does not hold\b"), lambda m, names: "you don't hold"),
    (re.compile(r"^it has already passed$"), lambda m, names: "you have already passed"),
    (
        re.compile(r"^(\d+) cards are passed, not (\d+)$"),
        lambda m, names: f"you pass {m.group(1)} cards, not {m.group(2)}",
    ),
    (re.compile(r"^it must\b"), lambda m, names: "you must"),
    (re.compile(r"\bwhile it holds\b"), lambda m, names: "while you hold"),
    (re.compile(r"^it is the (\w+) phase$"), lambda m, names: _PHASE_WORDS.get(m.group(1), m.group())),
    (
        re.compile(r"^it is seat (\d+)'s turn$"),
        lambda m, names: f"it is {possessive(_seat_name(m, names))} turn",
    ),
    (re.compile(r"^seat (\d+)(?= shot the moon)"), _seat_name),
)
"""The engine's wording of a refusal (about "it", the seat) and a person's (to "you")."""

_LEGAL_LIST: Final = re.compile(r"\s*\(legal: [^)]*\)$")
_RULE_FIRST: Final = re.compile(r"^(R\d+(?:\.\d+)*): (.*)$", re.DOTALL)
_CARD: Final = re.compile(r"(?<!['\w])(?:10|[2-9TJQKA])[CDHS](?![\w'])")


def round_summary(r: Round, names: Sequence[str], style: Style) -> list[str]:
    """A finished round in lines: the point cards each seat took, the moon if shot, and a
    table of the tricks, points, round scores and the new totals (R4).

    >>> game = Game(seed=1)
    >>> while not game.rounds[0].is_over:
    ...     game.apply(next(iter(game.legal_actions(game.actors()[0]))))
    >>> lines = round_summary(game.rounds[0], default_names(4), Style())
    >>> lines[0], lines[-1].split()[0]
    ('Round 1 is over.', 'Total')
    """
    result = r.result
    if result is None:
        raise ValueError(f"round {r.round_number + 1} is not over")
    jack = JACK_OF_DIAMONDS if r.rules.jack_of_diamonds else None
    lines = [_("Round {n} is over.").format(n=r.round_number + 1)]
    for seat, name in enumerate(names):
        cards = [c for c in r.won_cards(seat).sorted_by_suit() if r.rules.penalty_mask >> c & 1 or c == jack]
        took = f"{style.cards(cards)} ({points_word(result.points[seat])})" if cards else points_word(0)
        lines.append((_("You take {took}.") if is_you(name) else _("{name} takes {took}.")).format(name=name_word(name), took=took))
    if result.shooter is not None:
        shooter = name_word(names[result.shooter])
        lines.append(_("☾ {name} shot the moon ({effect}).").format(name=shooter, effect=moon_effect(r)))
    totals = [b + s for b, s in zip(r.scores_before, result.scores, strict=True)]
    rows = [
        (_("Tricks"), result.tricks_won),
        (_("Points"), result.points),
        (_("Round score"), result.scores),
        (_("Total"), totals),
    ]
    return lines + score_table([name_word(n) for n in names], rows)


def game_over_lines(game: Game, names: Sequence[str]) -> list[str]:
    """A finished game in lines: who won with what, then the totals after each round (the
    last row is the final totals, :attr:`Game.totals <hearts.game.Game.totals>`) (R5)."""
    winners = game.winners
    if winners is None:
        raise ValueError("the game is not over")
    return final_lines(names, winners, game.totals, game.score_history)


def final_lines(
    names: Sequence[str], winners: Sequence[int], totals: Sequence[int], history: Sequence[Sequence[int]]
) -> list[str]:
    """:func:`game_over_lines` of a game known by its facts alone (a table of the service):
    the ``winners``, the final ``totals`` and the totals after each round (R5).

    >>> for line in final_lines(["Ann", "Bob", "Cy"], [1], [104, 40, 78], [[50, 20, 8], [104, 40, 78]]):
    ...     print(line)  # doctest: +NORMALIZE_WHITESPACE
    Bob wins with 40 points!
    Score history (totals after each round; lowest total wins):
                      Ann  Bob  Cy
    Round 1            50   20   8
    Round 2 (final)   104   40  78
    """
    if not winners:
        raise ValueError("the game is not over")
    low, shown = totals[winners[0]], [name_word(n) for n in names]
    if len(winners) == 1:
        won = _("You win with {points}!") if is_you(names[winners[0]]) else _("{name} wins with {points}!")
        head = won.format(name=shown[winners[0]], points=points_word(low))
    else:
        head = _("{names} and {last} share the win with {points} each.").format(
            names=", ".join(shown[s] for s in winners[:-1]), last=shown[winners[-1]], points=points_word(low))
    last = len(history)
    rows = [((_("Round {n} (final)") if i == last else _("Round {n}")).format(n=i), list(t)) for i, t in enumerate(history, 1)]
    return [head, _("Score history (totals after each round; lowest total wins):"), *score_table(shown, rows)]



# --- a game stopped: the lines a player's command ends with ---------------------------------


def error_line(command: str, message: str) -> str:
    """The error line a player's command (``hearts play``, ``hearts tui``) ends with when the game
    cannot go on as asked, in the language in use (the usage errors stay argparse's English).

    >>> error_line("play", "the record could not be saved to 'x.json'")
    "hearts play: error: the record could not be saved to 'x.json'"
    """
    return _("hearts {command}: error: {message}").format(command=command, message=message)


def unfinished(message: str, path: Path | None, saved: bool = True, why: str = "") -> str:
    """``message`` about a game left unfinished, and where its record is, to go on with it: not
    kept (no ``--record`` ``path``), not saved there (``saved`` false; ``why``, the system's
    reason, when known) or saved (``hearts tui --resume``), in the language in use.

    >>> unfinished("the game is unfinished", None)
    'the game is unfinished (--record FILE keeps it)'
    >>> unfinished("the game is unfinished", Path("g.json"))
    'the game is unfinished; saved to g.json (go on: hearts tui --resume g.json)'
    """
    if path is None:
        return _("{message} (--record FILE keeps it)").format(message=message)
    if not saved:
        line = _("{message} and could not be saved to {path}").format(message=message, path=repr(str(path)))
        return f"{line} ({why})" if why else line
    return _("{message}; saved to {path} (go on: hearts tui --resume {path})").format(message=message, path=path)


def bot_failure(fault: BotFault) -> str:
    """A bot's failure on its turn in words: the bot, its seat and the error as it was (a bot's
    own exception stays as it was raised), in the language in use.

    >>> bot_failure(BotFault(2, "mine", "ValueError: boom", " (North)"))
    "the bot 'mine' at seat 2 (North) failed: ValueError: boom"
    """
    return _(FAILED).format(bot=repr(fault.bot), seat=fault.seat, where=fault.where, error=fault.error)


def bot_stood_in(fault: BotFault) -> str:
    """The line a table says when a bot failed and a random legal move was made for it."""
    return _(STOOD_IN).format(failure=bot_failure(fault))


def game_stopped(fault: BotFault) -> str:
    """Why a game stopped when a bot failed under ``--on-bot-error stop`` (:func:`bot_failure`)."""
    return _("{failure}; the game stops here, unfinished").format(failure=bot_failure(fault))


__all__ = [
    "DEFAULT_LEVEL",
    "SEAT_NAMES",
    "SHORT_NAMES",
    "Style",
    "allowed_words",
    "bot_failure",
    "bot_label",
    "bot_specs",
    "bot_stood_in",
    "bots_help",
    "can_encode",
    "default_names",
    "direction_name",
    "does",
    "error_line",
    "final_lines",
    "game_over_lines",
    "game_stopped",
    "is_you",
    "moon_choice_text",
    "moon_effect",
    "plural",
    "points_word",
    "possessive",
    "refusal",
    "refusal_words",
    "round_summary",
    "rule_last",
    "score_table",
    "seat_label",
    "short_name",
    "typo_words",
    "unfinished",
    "winning_card",
]
