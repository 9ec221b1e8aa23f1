"""The review of a finished round at the terminal table: your decisions, trick by trick.

``r`` on a round's summary, at game over or at the table opens a :class:`ReviewScreen` on the
last finished round (←/→: the other rounds). Each round is reviewed once (then kept in
:attr:`Session.reviews <hearts.tui.session.Session.reviews>`), by
:func:`~hearts.tui.session.review_round` in a worker thread (one process, never forked from
the screen) on its own copy of the finished rounds, while a progress bar counts the decisions
valued; closing the screen stops a review still running (at the next decision). The review
values only your own seat, from what you could see at the time (R7).

It then reads, one line per decision, your pass and each of your plays with its verdict (a
play with a single legal card says so); an inaccuracy, a mistake or a blunder is marked in
colour *and* by its word in capitals, with the better choice and what yours cost
(``better 5♦ · cost 2.5 ± 0.4 points: 5♦ expected 1.5, A♦ 4.0``); then the round's summary
(expected points lost ± one standard error, accuracy, the flags) and a note that the numbers
are estimates from sampled deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from hearts.actions import Action, Pass, Play
from hearts.game import Game
from hearts.review import FLAGGED, Decision, RoundReview, Verdict, summary_text, tenths
from hearts.round import Round, Trick
from hearts.text import direction_name, points_word, possessive
from hearts.tui.look import card_text, cards_text
from hearts.tui.session import HUMAN, Session, review_round

VERDICT_STYLES: Final[dict[Verdict, str]] = {
    "best": "green",
    "ok": "",
    "inaccuracy": "bold yellow",
    "mistake": "bold #ff8700",
    "blunder": "bold #ffffff on #c00000",
}
"""Each verdict's colour; the word says it too (in capitals when flagged), never colour alone."""

FORCED: Final = "only card"
"""The verdict column of a play with a single legal card (not a decision, not reviewed)."""

COLUMN: Final = len("INACCURACY")
"""Cells of the verdict column, the first of every line (the lines wrap beside it)."""


# --- the text -------------------------------------------------------------------------------------


def verdict_word(verdict: Verdict) -> str:
    """``best``, ``ok``, or a flag in capitals: ``INACCURACY``, ``MISTAKE``, ``BLUNDER``."""
    return verdict.upper() if verdict in FLAGGED else verdict


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
    text = Text(f"Trick {number + 1:<2} ")
    if mine:
        text += Text("after ") + Text(", ").join(
            Text(f"{names[seat]} ") + card_text(card) for seat, card in plays[:mine]
        )
        text += Text(": ")
    else:
        text += Text("led ")
    return text + card_text(plays[mine][1])


def cost_text(d: Decision) -> Text:
    """Why a flagged decision is flagged: the better choice and the expected points of both."""
    mine, best = action_text(d.chosen), action_text(d.best)
    return Text.assemble(
        "better ",
        best,
        f" · cost {tenths(d.loss)} ± {tenths(d.loss_stderr)} points: ",
        best,
        f" expected {d.value(d.best).mean:.1f}, ",
        mine,
        f" {d.value(d.chosen).mean:.1f}",
    )


Row = tuple[Text, Text]
"""A line of the review: the verdict column and what was done (or why it cost points)."""


def decision_rows(d: Decision | None, what: Text) -> list[Row]:
    """The rows of one of your plays or your pass (``d`` ``None``: a play with a single
    legal card): its verdict and, when flagged, the better choice and the cost."""
    if d is None:
        return [(Text(FORCED, style="dim"), what)]
    rows = [(Text(verdict_word(d.verdict), style=VERDICT_STYLES[d.verdict]), what)]
    if d.flagged:
        rows.append((Text(), cost_text(d)))
    return rows


def round_review(rr: RoundReview, r: Round, names: Sequence[str], budget: int) -> Group:
    """The review of round ``r`` (finished) as the screen shows it: a heading, your pass and
    your play in each trick with its verdict, the round's summary and the note on estimates."""
    you = names[HUMAN]
    passing = direction_name(r.pass_offset, r.rules.players)
    if r.pass_offset:
        passing = f"pass {passing} to {names[r.pass_target(HUMAN)]}"
    score = "" if rr.points is None else f" · {possessive(you)} score {points_word(rr.points)}"
    by_trick = {d.trick: d for d in rr.decisions}
    rows: list[Row] = []
    if None in by_trick:
        passed = by_trick[None]
        rows += decision_rows(passed, Text("Pass     ") + action_text(passed.chosen))
    for number, trick in enumerate(r.tricks):
        rows += decision_rows(by_trick.get(number), play_text(number, trick, names))
    grid = RichTable.grid(padding=(0, 1))
    grid.add_column(width=COLUMN, no_wrap=True)
    grid.add_column(ratio=1)
    for row in rows:
        grid.add_row(*row)
    return Group(
        Text(f"Round {rr.round + 1} · {passing}{score}", style="bold"),
        grid,
        Text(f"Round {rr.round + 1}: {summary_text(rr.summary)}", style="bold"),
        Text(
            f"Estimates from {budget} sampled deals per decision (± one standard error).", style="dim italic"
        ),
    )


# --- the screen -----------------------------------------------------------------------------------


class ReviewStopped(Exception):
    """Raised in the review's thread when its screen has stopped it (closed, or another round)."""


class ReviewScreen(ModalScreen[None]):
    """Your decisions in one finished round (←/→: the others), reviewed in a worker thread
    with a progress bar; Escape closes it and stops a review still running."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", tooltip="close the review (a review still running stops)"),
        Binding("left", "round(-1)", "Earlier", priority=True, tooltip="the review of the round before"),
        Binding("right", "round(1)", "Later", priority=True, tooltip="the review of the round after"),
    ]

    class Progress(Message):
        """Decisions of round ``round_number`` valued so far, out of ``total``."""

        def __init__(self, round_number: int, done: int, total: int) -> None:
            super().__init__()
            self.round_number, self.done, self.total = round_number, done, total

    class Done(Message):
        """The review of a round is ready."""

        def __init__(self, review: RoundReview) -> None:
            super().__init__()
            self.review = review

    def __init__(self, session: Session, round_number: int, *, budget: int) -> None:
        super().__init__(id="review")
        self.session = session
        self.round_number = round_number
        self.budget = budget
        self.shown: RoundReview | None = None
        """The review on the screen (``None`` while it is being made)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("", id="review-title")
            yield ProgressBar(show_eta=False, id="review-progress")
            with VerticalScroll(classes="info-scroll", id="review-scroll"):
                yield Static("", classes="info-body", id="review-body")
            yield Label(Text(self.closing_line(), style="dim"))

    def closing_line(self) -> str:
        """How to close, scroll and go to other rounds."""
        rounds = self.session.finished_rounds
        other = " · ←/→ other rounds" if rounds > 1 else ""
        return f"Escape to close · ↑/↓ to scroll{other}"

    def on_mount(self) -> None:
        self.show_round(self.round_number)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        """The review scrolls when the window is too short for it; the title, the progress
        bar (while it shows) and the closing line stay."""
        fixed = 4 + (1 if self.query_one(ProgressBar).display else 0)
        self.query_one("#review-scroll").styles.max_height = max(3, height - fixed)

    # --- making the review -------------------------------------------------------------------

    def show_round(self, round_number: int) -> None:
        """Show the review of a round: at once if it was made before, else once it is made."""
        self.round_number = round_number
        self.shown = None
        title = f"Review of round {round_number + 1}"
        if self.session.finished_rounds > 1:
            title += f" (of {self.session.finished_rounds})"
        self.query_one("#review-title", Label).update(Text(title, style="bold"))
        made = self.session.reviews.get((round_number, self.budget))
        if made is not None:
            self._show(made)
            return
        self.query_one(ProgressBar).update(total=None, progress=0)
        self._set_waiting(True)
        self.query_one("#review-body", Static).update(
            Text(f"Reviewing your decisions in round {round_number + 1}…", style="italic")
        )
        game = self.session.finished_game()  # the worker's own: this game goes on meanwhile
        self.run_worker(
            lambda: self._make(game, round_number),
            thread=True,
            group="review",
            exclusive=True,
            exit_on_error=False,
        )

    def _make(self, game: Game, round_number: int) -> None:
        """In the worker thread: make the review, reporting progress, stopping when cancelled."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise ReviewStopped
            self.post_message(self.Progress(round_number, done, total))

        review = review_round(game, round_number, budget=self.budget, on_progress=progress)
        if not worker.is_cancelled:
            self.post_message(self.Done(review))

    def on_review_screen_progress(self, message: Progress) -> None:
        if message.round_number == self.round_number and self.shown is None:
            self.query_one(ProgressBar).update(total=max(message.total, 1), progress=message.done)

    def on_review_screen_done(self, message: Done) -> None:
        review = message.review
        self.session.reviews[review.round, self.budget] = review
        if review.round == self.round_number:
            self._show(review)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A review that failed (not one stopped on purpose) says why."""
        worker = event.worker
        if event.state is WorkerState.ERROR and not isinstance(worker.error, ReviewStopped):
            self._set_waiting(False)
            self.query_one("#review-body", Static).update(
                Text(f"The review failed: {worker.error}", style="bold red")
            )

    def _set_waiting(self, waiting: bool) -> None:
        self.query_one(ProgressBar).display = waiting
        self._fit(self.app.size.height)

    def _show(self, review: RoundReview) -> None:
        self.shown = review
        self._set_waiting(False)
        r = self.session.game.rounds[review.round]
        body = round_review(review, r, self.session.names, self.budget)
        self.query_one("#review-body", Static).update(body)
        self.query_one("#review-scroll", VerticalScroll).scroll_home(animate=False)

    # --- keys ----------------------------------------------------------------------------------

    def action_round(self, step: int) -> None:
        """Go to the round before or after (among the finished ones)."""
        number = self.round_number + step
        if 0 <= number < self.session.finished_rounds:
            self.show_round(number)

    def action_close(self) -> None:
        self.workers.cancel_group(self, "review")
        self.dismiss(None)


__all__ = ["ReviewScreen", "round_review"]
