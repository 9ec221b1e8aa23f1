"""The review of a finished round as text: your decisions, trick by trick (Rich only, no widget).

One line per decision, your pass and each of your plays with its verdict (a play with a single
legal card says so); an inaccuracy, a mistake or a blunder is marked in colour *and* by its word
in capitals, with the better choice and what yours cost (``better 5♦ · cost 2.5 ± 0.4 points:
5♦ expected 1.5, A♦ 4.0``); then the round's summary (expected points lost ± one standard
error, accuracy, the flags) and a note that the numbers are estimates from sampled deals.
:class:`~hearts.tui.screens.review.ReviewScreen` shows it.

>>> verdict_word("blunder"), verdict_word("ok")
('BLUNDER', 'ok')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from hearts.actions import Action, Pass, Play
from hearts.i18n import N_, _
from hearts.review import FLAGGED, Decision, RoundReview, Verdict, summary_text, tenths
from hearts.round import Round, Trick
from hearts.text import direction_name, name_word, points_word
from hearts.tui.look import card_text, cards_text
from hearts.tui.session import HUMAN

VERDICT_STYLES: Final[dict[Verdict, str]] = {
    "best": "green",
    "ok": "",
    "inaccuracy": "bold yellow",
    "mistake": "bold #ff8700",
    "blunder": "bold #ffffff on #c00000",
}
"""Each verdict's colour; the word says it too (in capitals when flagged), never colour alone."""

FORCED: Final = N_("only card")
"""The verdict column of a play with a single legal card (not a decision, not reviewed)."""

COLUMN: Final = len("INACCURACY")
"""Cells of the verdict column, the first of every line (the lines wrap beside it)."""


VERDICT_WORDS: Final[dict[Verdict, str]] = {
    "best": N_("best"), "ok": N_("ok"), "inaccuracy": N_("inaccuracy"), "mistake": N_("mistake"), "blunder": N_("blunder"),
}
"""Each verdict in words (the language in use's, through :func:`verdict_word`)."""


def verdict_word(verdict: Verdict) -> str:
    """``best``, ``ok``, or a flag in capitals: ``INACCURACY``, ``MISTAKE``, ``BLUNDER``."""
    word = _(VERDICT_WORDS.get(verdict, verdict))
    return word.upper() if verdict in FLAGGED else word


def action_text(action: Action) -> Text:
    """A play's card or a pass's cards (by suit), in their colours."""
    if isinstance(action, Pass):
        return cards_text(action.cards.sorted_by_suit())
    assert isinstance(action, Play)
    return card_text(action.card)


def play_text(number: int, trick: Trick, names: Sequence[str]) -> Text:
    """Your play in a trick and the cards before it: ``Trick 3  after West 5♦, North 9♦: K♦``."""
    plays = list(trick.plays)
    mine = next(i for i, (seat, _) in enumerate(plays) if seat == HUMAN)
    text = Text(_("Trick {n}").format(n=f"{number + 1:<2}") + " ")
    if mine:
        text += Text(_("after") + " ") + Text(", ").join(
            Text(f"{name_word(names[seat])} ") + card_text(card) for seat, card in plays[:mine]
        )
        text += Text(": ")
    else:
        text += Text(_("led") + " ")
    return text + card_text(plays[mine][1])


def cost_text(d: Decision) -> Text:
    """Why a flagged decision is flagged: the better choice and the expected points of both."""
    mine, best = action_text(d.chosen), action_text(d.best)
    return Text.assemble(
        _("better") + " ",
        best,
        " · " + _("cost {n} ± {error} points:").format(n=tenths(d.loss), error=tenths(d.loss_stderr)) + " ",
        best,
        " " + _("expected {n}").format(n=f"{d.value(d.best).mean:.1f}") + ", ",
        mine,
        f" {d.value(d.chosen).mean:.1f}",
    )


Row = tuple[Text, Text]
"""A line of the review: the verdict column and what was done (or why it cost points)."""


def decision_rows(d: Decision | None, what: Text) -> list[Row]:
    """The rows of one of your plays or your pass (``d`` ``None``: a play with a single
    legal card): its verdict and, when flagged, the better choice and the cost."""
    if d is None:
        return [(Text(_(FORCED), style="dim"), what)]
    rows = [(Text(verdict_word(d.verdict), style=VERDICT_STYLES[d.verdict]), what)]
    if d.flagged:
        rows.append((Text(), cost_text(d)))
    return rows


def round_review(rr: RoundReview, r: Round, names: Sequence[str], budget: int) -> Group:
    """The review of round ``r`` (finished) as the screen shows it: a heading, your pass and
    your play in each trick with its verdict, the round's summary and the note on estimates."""
    passing = direction_name(r.pass_offset, r.rules.players)
    if r.pass_offset:
        passing = _("pass {direction} to {name}").format(direction=passing, name=name_word(names[r.pass_target(HUMAN)]))
    score = "" if rr.points is None else " · " + _("your score {points}").format(points=points_word(rr.points))
    by_trick = {d.trick: d for d in rr.decisions}
    rows: list[Row] = []
    if None in by_trick:
        passed = by_trick[None]
        rows += decision_rows(passed, Text(_("Pass").ljust(9)) + action_text(passed.chosen))
    for number, trick in enumerate(r.tricks):
        rows += decision_rows(by_trick.get(number), play_text(number, trick, names))
    grid = RichTable.grid(padding=(0, 1))
    grid.add_column(width=max(COLUMN, *(len(verdict_word(v)) for v in VERDICT_WORDS), len(_(FORCED))), no_wrap=True)
    grid.add_column(ratio=1)
    for row in rows:
        grid.add_row(*row)
    return Group(
        Text(_("Round {n}").format(n=rr.round + 1) + f" · {passing}{score}", style="bold"),
        grid,
        Text(_("Round {n}").format(n=rr.round + 1) + f": {summary_text(rr.summary)}", style="bold"),
        Text(
            _("Estimates from {n} sampled deals per decision (± one standard error).").format(n=budget), style="dim italic"
        ),
    )
