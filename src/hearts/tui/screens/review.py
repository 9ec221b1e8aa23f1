"""The review of a finished round at the terminal table: :class:`ReviewScreen`.

``r`` (:data:`REVIEW`) on a round's summary, at game over or at the table opens it on the last
finished round (←/→: the other rounds). Each round is reviewed once (then kept in
:attr:`Session.reviews <hearts.tui.session.Session.reviews>`), by
:func:`~hearts.tui.session.review_round` in a worker thread (``@work(exclusive=True)``: going
to another round cancels the review still running; one process, never forked from the screen)
on its own copy of the finished rounds, while a progress bar counts the decisions valued;
closing the screen stops a review still running (at the next decision). The review values only
your own seat, from what you could see at the time (R7); :mod:`hearts.tui.review_text` writes it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Label, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from hearts.game import Game
from hearts.i18n import N_, _
from hearts.review import RoundReview
from hearts.tui.review_text import round_review
from hearts.tui.screens.dialog import Dialog
from hearts.tui.session import Session, review_round

REVIEW = Binding(
    "r",
    "app.review",
    N_("Review"),
    tooltip=N_("review your decisions in the last finished round: each one's verdict, the mistakes "
               "with the better card and their cost (←/→ in the review: the other rounds)"),
)
"""The key that opens the review, on the table, on a round's summary and at game over."""


class ReviewStopped(Exception):
    """Raised in the review's thread when its screen has stopped it (closed, or another round)."""


class ReviewScreen(Dialog[None]):
    """Your decisions in one finished round (←/→: the others), reviewed in a worker thread
    with a progress bar; Escape closes it and stops a review still running."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Close"), tooltip=N_("close the review (a review still running stops)")),
        Binding("left", "round(-1)", N_("Earlier"), priority=True, tooltip=N_("the review of the round before")),
        Binding("right", "round(1)", N_("Later"), priority=True, tooltip=N_("the review of the round after")),
    ]

    class Progress(Message):
        """Decisions of round ``round_number`` valued so far, out of ``total`` (posted from the
        review's thread)."""

        def __init__(self, round_number: int, done: int, total: int) -> None:
            super().__init__()
            self.round_number, self.done, self.total = round_number, done, total

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
        other = " · " + _("←/→ other rounds") if rounds > 1 else ""
        return _("Escape to close · ↑/↓ to scroll") + other

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
        title = _("Review of round {n}").format(n=round_number + 1)
        if self.session.finished_rounds > 1:
            title += " " + _("(of {n})").format(n=self.session.finished_rounds)
        self.query_one("#review-title", Label).update(Text(title, style="bold"))
        made = self.session.reviews.get((round_number, self.budget))
        if made is not None:  # (a review of another round still running goes on, and is kept)
            self._show(made)
            return
        self.query_one(ProgressBar).update(total=None, progress=0)
        self._set_waiting(True)
        self.query_one("#review-body", Static).update(
            Text(_("Reviewing your decisions in round {n}…").format(n=round_number + 1), style="italic")
        )
        self.review(self.session.finished_game(), round_number)  # the worker's own copy of the game

    @work(exclusive=True, thread=True, group="review", exit_on_error=False)
    def review(self, game: Game, round_number: int) -> RoundReview:
        """In a worker thread: the review of a round, reporting progress, stopped (by
        :class:`ReviewStopped`) at the next decision once cancelled."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise ReviewStopped
            self.post_message(self.Progress(round_number, done, total))

        return review_round(game, round_number, budget=self.budget, on_progress=progress)

    def on_review_screen_progress(self, message: Progress) -> None:
        if message.round_number == self.round_number and self.shown is None:
            self.query_one(ProgressBar).update(total=max(message.total, 1), progress=message.done)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A review made is kept and shown (unless it was cancelled meanwhile: another round,
        or closed); one that failed (not one stopped on purpose) says why."""
        worker = event.worker
        if event.state is WorkerState.SUCCESS and not worker.is_cancelled:
            review = worker.result
            assert isinstance(review, RoundReview)
            self.session.reviews[review.round, self.budget] = review
            if review.round == self.round_number:
                self._show(review)
        elif event.state is WorkerState.ERROR and not isinstance(worker.error, ReviewStopped):
            self._set_waiting(False)
            self.query_one("#review-body", Static).update(
                Text(_("The review failed: {error}").format(error=worker.error), style="bold red")
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
