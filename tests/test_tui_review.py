"""The review at the terminal table (``r``), by Textual's pilot: after a round, at game over,
between rounds; what it shows against :func:`hearts.review.review_game`; a planted blunder;
closing it while it runs; 80×24 and 60×20. Reviews here sample :data:`BUDGET` deals per
decision (the table's :data:`~hearts.tui.session.REVIEW_BUDGET` is for people), so each
takes a fraction of a second. Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import io
import threading
import time
from typing import Any

import pytest

pytest.importorskip("textual")

from rich.console import Console
from test_tui import run, settle
from test_tui_screens import at_last_trick, dialog_fits, first_legal, inside, screenshot, text_of
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import ProgressBar, Static

import hearts.tui.session as session_module
from hearts import Card, Game, Rules
from hearts.actions import Play
from hearts.cards import SPADES
from hearts.errors import HeartsError
from hearts.record import Seat
from hearts.review import VERDICTS, ProgressCallback, RoundReview, review_game, tenths
from hearts.text import Style
from hearts.tui.app import HeartsApp
from hearts.tui.review_text import COLUMN, FORCED, verdict_word
from hearts.tui.screens import REVIEW, HelpScreen, TableScreen
from hearts.tui.screens.review import ReviewScreen, ReviewStopped
from hearts.tui.session import HUMAN, Session, review_round
from hearts.view import View

BUDGET = 16
"""Sampled deals per decision in these tests: enough for a blunder of 13 points to stand out."""
STYLE = Style()
QS = Card.parse("QS")
SIZES = [(80, 24), (60, 20)]


class Blunderer:
    """The person's plays: the first legal card, except once: on a trick holding the Q♠, a spade
    above it when one below would duck (the planted blunder); ``index`` is its place in the
    game's history."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.index: int | None = None

    def __call__(self, view: View) -> Card:
        spades = [c for c in view.legal if c.suit == SPADES]
        above, below = [c for c in spades if c > QS], [c for c in spades if c < QS]
        if self.index is None and QS in view.trick.cards and above and below:
            self.index = len(self.session.game.history)
            return max(above)
        return first_legal(view)


def planted() -> tuple[Session, int]:
    """Seed 4, easy bots: at the last trick of round 1, with a blunder planted on the way."""
    session = Session.new(Rules(), seed=4, specs=["easy"], delay=0)
    blunderer = Blunderer(session)
    at_last_trick(session, play=blunderer)
    assert blunderer.index is not None, "seed 4 gives the person the Q♠ to take or duck"
    return session, blunderer.index


async def reviewed(pilot: Pilot[int], app: HeartsApp, timeout: float = 20.0) -> ReviewScreen:
    """Wait until the review on the screen has been made and shown."""
    end = time.monotonic() + timeout
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    while screen.shown is None:
        assert time.monotonic() < end, "the review did not finish"
        await pilot.pause(0.01)
    await pilot.pause()
    return screen


def review_text(screen: ReviewScreen) -> str:
    """The review on the screen as plain text, laid out as wide as it is shown."""
    body = screen.query_one("#review-body", Static)
    console = Console(width=body.content_size.width, record=True, file=io.StringIO())
    console.print(body.content)
    return console.export_text()


def entries(body: str) -> list[tuple[str, str]]:
    """Each line of a review with a verdict (``best`` … ``BLUNDER``, ``only card``): the verdict,
    and what follows it with the lines wrapped beside the verdict column, on one line."""
    words = {verdict_word(v) for v in VERDICTS} | {FORCED}
    out: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        verdict, rest = line[:COLUMN].strip(), line[COLUMN:].split()
        if verdict in words:
            out.append((verdict, rest))
        elif not verdict and out and rest:
            out[-1][1].extend(rest)
    return [(verdict, " ".join(words)) for verdict, words in out]


def expected(session: Session, round_number: int) -> RoundReview:
    """The review of the person's decisions in a round, as ``hearts analyze`` makes it."""
    return review_game(session.game, [HUMAN], rounds=[round_number], budget=BUDGET).of_seat(HUMAN)[0]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_r_on_the_round_summary_reviews_the_round_and_shows_the_planted_blunder(
    size: tuple[int, int],
) -> None:
    """After a round, r: a progress bar, then every decision of review_game for the person's
    seat (same count, same verdicts, in order; one line per trick), the planted blunder as
    BLUNDER with the better card and its cost, the summary and the note; Escape closes."""

    async def go() -> None:
        session, index = planted()
        app = HeartsApp(session, review_budget=BUDGET)
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app)
            await pilot.press("enter")  # the last card
            await settle(pilot, app)
            assert app.screen.id == "round-summary"
            assert "r: review your play" in text_of(app.screen.query_one("Label:last-of-type"))
            await pilot.press("r")
            screen = await reviewed(pilot, app)
            want = expected(session, 0)
            assert screen.shown == want
            bar = screen.query_one(ProgressBar)
            assert bar.total == bar.progress == len(want.decisions) and not bar.display
            body = review_text(screen)
            flat = " ".join(body.split())  # the lines as if they did not wrap
            shown = entries(body)
            verdicts = [v for v, _ in shown]
            assert [v for v in verdicts if v != FORCED] == [verdict_word(d.verdict) for d in want.decisions]
            assert verdicts.count(FORCED) == want.forced
            assert len(shown) == 1 + session.rules.hand_size  # the pass and each trick
            for d in want.decisions:
                if d.flagged:
                    assert f"cost {d.loss:.1f} ± {d.loss_stderr:.1f} points" in flat
            (blunder,) = [d for d in want.decisions if d.index == index]
            chosen, better = blunder.chosen, blunder.best
            assert isinstance(chosen, Play) and isinstance(better, Play) and blunder.trick is not None
            assert blunder.verdict == "blunder" and chosen.card > QS > better.card
            mine, best = STYLE.card(chosen.card), STYLE.card(better.card)
            (what,) = [w for v, w in shown if v == "BLUNDER" and w.startswith(f"Trick {blunder.trick + 1} ")]
            cost = f"cost {tenths(blunder.loss)} ± {tenths(blunder.loss_stderr)} points"
            assert "Q♠" in what and f": {mine} better {best} · {cost}: {best} expected " in what
            summary = want.summary
            assert f"accuracy {summary.accuracy_percent}%" in flat
            assert summary.blunders >= 1 and f"{summary.blunders} blunder" in flat  # the planted one among them
            assert (
                f"expected points lost {tenths(summary.points_lost)} ± {tenths(summary.points_lost_stderr)}" in flat
            )
            assert f"Estimates from {BUDGET} sampled deals per decision" in flat
            await dialog_fits(pilot, app)
            scroll = screen.query_one("#review-scroll")
            assert inside(app, scroll)
            if size[1] <= 20:  # the review is longer than the window: it scrolls
                assert scroll.max_scroll_y > 0
                await pilot.press("end")
                await pilot.pause()
                assert scroll.scroll_y == scroll.max_scroll_y
                await pilot.press("home")
                await pilot.pause()
            screenshot(app, f"tui-review-{size[0]}x{size[1]}")
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen.id == "round-summary"
            await pilot.press("enter")
            await settle(pilot, app)
            assert isinstance(app.screen, TableScreen)

    run(go)


def test_the_review_is_reached_at_game_over() -> None:
    """At game over, r (or the Review button) reviews the last round; Escape goes back."""

    async def go() -> None:
        session = at_last_trick(Session.new(Rules(target=1), seed=5, specs=["easy"], delay=0))
        app = HeartsApp(session, review_budget=BUDGET)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("enter")
            await settle(pilot, app)
            await pilot.press("enter")  # the round's summary
            await pilot.pause()
            assert app.screen.id == "game-over" and session.game.is_over
            await pilot.click("#review")
            screen = await reviewed(pilot, app)
            assert screen.shown == expected(session, 0)
            assert "Review of round 1" in text_of(screen.query_one("#review-title"))
            screenshot(app, "tui-review-game-over-80x24")
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen.id == "game-over"
            await pilot.press("r")
            await reviewed(pilot, app)  # made before: at once

    run(go)


def test_left_and_right_move_between_finished_rounds() -> None:
    """←/→ in a review go to the round before or after, each reviewed once; the table's r
    reviews the last finished round."""

    async def go() -> None:
        session = at_last_trick(Session.new(Rules(), seed=5, specs=["easy"], delay=0), round_number=1)
        app = HeartsApp(session, review_budget=BUDGET)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("enter")
            await settle(pilot, app)
            assert app.screen.id == "round-summary" and session.finished_rounds == 2
            await pilot.press("r")
            screen = await reviewed(pilot, app)
            assert screen.round_number == 1 and screen.shown == expected(session, 1)
            assert "Review of round 2 (of 2)" in text_of(screen.query_one("#review-title"))
            await pilot.press("left")
            screen = await reviewed(pilot, app)
            assert screen.round_number == 0 and screen.shown == expected(session, 0)
            await pilot.press("left")  # no round before the first
            assert screen.round_number == 0
            await pilot.press("right")
            await pilot.pause()
            assert screen.shown is session.reviews.get((1, BUDGET)) is not None  # kept: not made again
            await pilot.press("escape", "enter")
            await settle(pilot, app)
            await pilot.press("r")
            screen = await reviewed(pilot, app)
            assert screen.round_number == 1
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)

    run(go)


def test_escape_stops_a_review_still_running(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the review while it runs stops its thread at the next decision: the round's
    summary is back at once, nothing is kept. (The review is held after its first decision
    until Escape has been pressed, so it is surely running then, however fast the machine.)"""
    ends: list[str] = []
    escaped = threading.Event()

    def held(*args: Any, on_progress: ProgressCallback, **kw: Any) -> Any:
        def progress(done: int, total: int) -> None:
            on_progress(done, total)
            if done == 1:
                escaped.wait(10)

        try:
            out = review_game(*args, on_progress=progress, **kw)
        except ReviewStopped:
            ends.append("stopped")
            raise
        ends.append("finished")
        return out

    monkeypatch.setattr(session_module, "review_game", held)

    async def go() -> None:
        session = at_last_trick(Session.new(Rules(), seed=5, specs=["easy"], delay=0))
        app = HeartsApp(session, review_budget=BUDGET)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("enter")
            await settle(pilot, app)
            await pilot.press("r")
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            bar = screen.query_one(ProgressBar)
            end = time.monotonic() + 20
            while bar.progress < 1:
                assert time.monotonic() < end, "the review did not start"
                await pilot.pause(0.01)
            assert bar.display and screen.shown is None and bar.total is not None and bar.total > 1
            screenshot(app, "tui-review-progress-80x24")
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen.id == "round-summary"
            escaped.set()
            while not ends:
                assert time.monotonic() < end, "the review's thread did not stop"
                await pilot.pause(0.01)
            assert ends == ["stopped"] and (0, BUDGET) not in session.reviews

    run(go)


def test_review_key_in_the_help_and_before_any_round() -> None:
    """r and the review's keys are in the help (from their bindings); before a round has
    finished, r says there is nothing to review yet; the session reviews finished rounds only."""

    async def go() -> None:
        session = Session.new(Rules(), seed=2, specs=["easy"], delay=0)
        app = HeartsApp(session, review_budget=BUDGET)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen) and "none has finished yet" in app.message
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            rows = dict(app.screen.rows)
            assert rows["r"] == REVIEW.tooltip
            for binding in ReviewScreen.BINDINGS:
                assert isinstance(binding, Binding)
                assert rows[f"{app.get_key_display(binding)} (review)"] == binding.tooltip
        with pytest.raises(HeartsError, match="only finished rounds are reviewed"):
            review_round(session.game, 0, budget=BUDGET)

    run(go)


def test_a_review_reads_its_own_copy_of_the_finished_rounds() -> None:
    """The worker reviews a copy of the game up to its last finished round (explicit deals
    too), with the same history, so the same review; the game goes on without touching it."""
    deal = list(Game(Rules(), seed=9).rounds[0].dealt)[::-1]  # not the seed's own first deal
    seats = (Seat("You"), *(Seat(name, bot="easy") for name in ("West", "North", "East")))
    session = at_last_trick(Session(Game(Rules(), seed=1, deals=[deal]), seats, delay=0), round_number=1)
    game = session.game
    copy = session.finished_game()
    assert copy.history == game.history[: game.round_starts[1]] and copy.score_history == game.score_history
    assert copy.rounds[0].dealt == game.rounds[0].dealt == tuple(deal)
    assert review_round(copy, 0, budget=BUDGET) == expected(session, 0)
    before = copy.history
    session.apply(Play(HUMAN, next(iter(session.view.legal))))  # the last card of round 2
    session.run_bots_until_human()
    assert len(game.score_history) == 2 and copy.history == before and len(copy.score_history) == 1
