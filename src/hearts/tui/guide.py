"""The guided first game at the terminal table (``hearts tui --guide``): the web table's tips
(``static/guide.js``, the same words: messages of the catalogs), each shown once, at the moment
its part of the game first happens — the pass, the first trick, following suit, hearts broken,
the Q♠, and at the first round's end the scoring and the moon.

>>> from hearts import Game
>>> from hearts.view import View
>>> guide = Guide()
>>> view = View.of(Game(seed=1), 0)
>>> [guide.next(view).step, guide.next(view)]  # the pass's moment, once
['pass', None]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Final

from rich.text import Text
from textual.binding import Binding, BindingType

from hearts.i18n import N_, _, ngettext
from hearts.round import Phase
from hearts.tui.screens.info import InfoScreen
from hearts.view import View


@dataclass(frozen=True)
class Tip:
    """One tip: its step, its rule (docs/rules.md), its title and words (English messages;
    ``plural`` for a text that counts the cards passed), and when its moment has come."""

    step: str
    rule: str
    title: str
    text: str
    when: Callable[[View], bool]
    plural: str = ""

    def words(self, view: View) -> str:
        """The tip's text in the language in use."""
        if self.plural:
            n = view.rules.pass_count
            return ngettext(self.text, self.plural, n).format(n=n)
        return _(self.text)


def _follows(v: View) -> bool:
    plays = v.trick.cards
    return v.phase is Phase.PLAYING and v.to_move == v.seat and bool(plays) and any(c.suit == plays[0].suit for c in v.hand)


def _queen_played(v: View) -> bool:
    return any(str(c) == "QS" for t in (*v.tricks, v.trick) for c in t.cards)


TIPS: Final = (
    Tip(  # a plural message: in the catalogs through guide.js's ngettext() (tests/test_tui_rules.py checks it)
        "pass", "R2.1", N_("Passing cards"),
        "Before the first trick everyone passes {n} card to another player, face down. Pass the cards you least want: the Q♠, high spades, high hearts. Mark them, then press Pass.",
        lambda v: v.must_pass,
        "Before the first trick everyone passes {n} cards to another player, face down. Pass the cards you least want: the Q♠, high spades, high hearts. Mark them, then press Pass.",
    ),
    Tip(
        "first_trick", "R3.3", N_("The first trick"),
        N_("The player holding the lowest club (the 2♣) leads it. On this first trick nobody may throw a heart or the Q♠ unless they hold nothing else: no points on the first trick."),
        lambda v: v.phase is Phase.PLAYING and not v.tricks,
    ),
    Tip(
        "follow", "R3.2", N_("Following suit"),
        N_("You must play a card of the suit that was led while you have one: the cards you may play are the highlighted ones. With none of that suit you may play any card. The highest card of the suit led takes the trick."),
        _follows,
    ),
    Tip(
        "hearts_broken", "R3.5", N_("Hearts are broken"),
        N_("A heart has been played (or the Q♠, which breaks hearts too at the usual rules): hearts are broken, and from the next trick on a heart may be led. Each heart you take costs a point."),
        lambda v: v.hearts_broken,
    ),
    Tip(
        "queen", "R4.1", N_("The Q♠"),
        N_("The Q♠ has been played: whoever takes this trick takes 13 points with her. Keep her away from you, or throw her on a trick someone else takes."),
        _queen_played,
    ),
    Tip(
        "moon", "R4.4", N_("Scoring, and shooting the moon"),
        N_("The round is over: each heart taken is a point, the Q♠ 13, and the lowest total wins when someone reaches the target. Whoever takes every heart and the Q♠ shoots the moon: every other player scores 26 instead."),
        lambda v: v.phase is Phase.OVER or v.round_number > 0,
    ),
)
"""The tips in the order they are looked for (the web table's, in guide.js)."""


@dataclass
class Guide:
    """Which tips were shown, and whether the person skipped the rest."""

    seen: list[str] = field(default_factory=list)
    skipped: bool = False

    @property
    def done(self) -> bool:
        return self.skipped or len(self.seen) == len(TIPS)

    def next(self, view: View) -> Tip | None:
        """The first tip not shown yet whose moment has come in ``view`` (marked as shown), or None."""
        if self.skipped:
            return None
        tip = next((t for t in TIPS if t.step not in self.seen and t.when(view)), None)
        if tip is not None:
            self.seen.append(tip.step)
        return tip


class GuideScreen(InfoScreen):
    """A tip over the table: Enter (or Escape, Space) closes it, k skips the rest of the guide
    (then :attr:`skipped`)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("k", "skip", N_("Skip the guide"))]

    def __init__(self, tip: Tip, view: View) -> None:
        last = " " + _("That was the last tip: enjoy the game!") if tip.step == TIPS[-1].step else ""
        body = Text(tip.words(view) + last + " (" + _("rule {rule}").format(rule=tip.rule) + ")")
        super().__init__(_(tip.title), body, id=f"guide-{tip.step}", closing=N_("Enter: got it · k: skip the guide"))
        self.tip = tip
        self.skipped = False

    def action_skip(self) -> None:
        self.skipped = True
        self.dismiss(None)
