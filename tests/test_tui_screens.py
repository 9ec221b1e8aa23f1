"""The terminal table's screens at the sizes people use (120×40, 80×24, 60×20), by Textual's pilot.

A round's summary, the help, the seats around you, a narrow hand, a window too small, the new
game dialog at 80×24, quitting with or without saving (and resuming), the game over. Each test
starts from a session driven without the screen to the point that matters (a round's last
trick, say), so it takes a few seconds at most. Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("textual")

from test_tui import ARTIFACTS, run, settle
from textual.binding import Binding
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from hearts import Game, Rules
from hearts.actions import Moon, Pass, Play
from hearts.cards import Card, CardSet
from hearts.record import Seat
from hearts.round import Phase
from hearts.text import SEAT_NAMES, Style, does, plural, points_word
from hearts.tui.app import HeartsApp
from hearts.tui.screens import HelpScreen, NewGameScreen, TableScreen
from hearts.tui.session import HUMAN, Session
from hearts.tui.widgets import CardWidget, SeatPanel
from hearts.view import View

SIZES = [(120, 40), (80, 24), (60, 20)]
STYLE = Style()


def first_legal(view: View) -> Card:
    """The person's plain play: the first legal card."""
    return next(iter(view.legal))


def at_last_trick(
    session: Session, round_number: int = 0, play: Callable[[View], Card] = first_legal
) -> Session:
    """``session`` played plainly (the first cards to pass, ``play`` (the first legal card),
    'add') up to the person's card in the last trick of round ``round_number``."""
    while True:
        session.run_bots_until_human()
        view = session.view
        r = session.round
        if (
            r.round_number == round_number
            and view.phase is Phase.PLAYING
            and r.tricks_played == r.hand_size - 1
        ):
            return session
        if view.must_pass:
            session.apply(Pass(HUMAN, list(view.hand)[: view.rules.pass_count]))
        elif view.moon_choice_pending:
            session.apply(Moon(HUMAN, "add"))
        else:
            session.apply(Play(HUMAN, play(view)))


def text_of(widget: Widget) -> str:
    """What a Static shows, as plain text."""
    assert isinstance(widget, Static)
    return str(widget.render())


def inside(app: HeartsApp, widget: Widget) -> bool:
    """True when the whole of ``widget`` is on the screen."""
    region = widget.region
    return region.width > 0 and region.height > 0 and Region(0, 0, *app.size).contains_region(region)


def screenshot(app: HeartsApp, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    svg = Path(app.save_screenshot(f"{name}.svg", path=str(ARTIFACTS)))
    assert svg.read_text(encoding="utf-8").startswith("<svg")


async def dialog_fits(pilot: Pilot[int], app: HeartsApp) -> None:
    """The dialog on top shows its title and its closing line (or buttons) on the screen (and
    every other part not hidden)."""
    await pilot.pause()
    dialog = app.screen.query_one(".dialog")
    assert inside(app, dialog), (dialog.region, app.size)
    for part in dialog.children:
        if part.display:
            assert inside(app, part), (part, part.region)


# --- a round's summary ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_round_summary_shows_the_last_trick_the_points_and_the_totals(size: tuple[int, int]) -> None:
    """R4: when a round ends, a summary: its last trick, the point cards each seat took, the
    round's scores and the new totals (Game.totals); the next round waits until a key."""

    async def go() -> None:
        session = at_last_trick(Session.new(Rules(), seed=5, specs=["easy"], delay=0))
        app = HeartsApp(session)
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app)
            for panel in app.table.query(SeatPanel):  # "1 card", not "1 cards"
                assert plural(session.view.hand_sizes[panel.seat], "card") in text_of(panel)
            await pilot.press("enter")  # the last card: the only one, and selected
            await settle(pilot, app)
            assert app.screen.id == "round-summary"
            await dialog_fits(pilot, app)
            game = session.game
            r = game.rounds[0]
            result = r.result
            assert result is not None and game.score_history == [tuple(game.totals)]
            body = text_of(app.screen.query_one(".info-body"))
            last = r.tricks[-1]
            for seat, card in last.plays:
                assert re.search(rf"{session.names[seat]} +{STYLE.card(card)}\n", body)
            assert last.winner is not None
            assert f"→ {does(session.names[last.winner], 'take')} it ({points_word(last.points)})" in body
            for seat, name in enumerate(session.names):
                took = [STYLE.card(c) for c in r.won_cards(seat).sorted_by_suit() if c.points]
                assert (" ".join(took) if took else "no points") in body.split(f"\n{name} take")[
                    1
                ].splitlines()[0]
            rows = {line.split()[0]: line.split()[-len(session.names) :] for line in body.splitlines()[-4:]}
            assert rows["Total"] == [str(t) for t in game.totals]
            assert [int(x) for x in rows["Points"]] == list(result.points)
            # the next round waits for the person: nobody has passed yet
            assert len(game.history) == game.round_starts[-1]
            screenshot(app, f"tui-round-summary-{size[0]}x{size[1]}")
            await pilot.press("space")
            await settle(pilot, app)
            assert isinstance(app.screen, TableScreen)
            assert session.round.round_number == 1
            assert len(game.history) == game.round_starts[-1] + 3  # the bots have passed
            history = game.history
            await pilot.press("u")  # undo stays in the round: nothing of round 1, no bot's pass
            await settle(pilot, app)
            assert game.history == history and "Nothing to undo" in app.message

    run(go)


def test_round_summary_tells_the_moon() -> None:
    """R4.4: a shot moon is in the summary, with how it was scored."""
    clubs = CardSet([c for c in CardSet.full() if c.suit == 0])
    others = [CardSet([c for c in CardSet.full() if c.suit == s]) for s in (1, 2, 3)]
    deal = [others[0], clubs, others[1], others[2]]  # West holds every club: every trick, a moon

    async def go() -> None:
        game = Game(Rules(pass_count=0), seed=1, deals=[deal])
        seats = (Seat("You"), *(Seat(name, bot="easy") for name in SEAT_NAMES[4][1:]))
        session = at_last_trick(Session(game, seats, delay=0))
        app = HeartsApp(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("enter")
            await settle(pilot, app)
            assert app.screen.id == "round-summary"
            body = text_of(app.screen.query_one(".info-body"))
            assert "☾ West shot the moon (every other player +26)." in body
            assert session.game.totals == [26, 0, 26, 26]

    run(go)


# --- help, seats, sizes -----------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_help_lists_every_key(size: tuple[int, int]) -> None:
    """`?` shows every key of the table and of the app, each with what it does; `?` closes it."""

    async def go() -> None:
        app = HeartsApp(Session.new(Rules(), seed=2, specs=["easy"], delay=0))
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app)
            await pilot.press("question_mark")
            await pilot.pause()
            assert app.screen.id == "help"
            await dialog_fits(pilot, app)
            assert isinstance(app.screen, HelpScreen)
            rows = dict(app.screen.rows)
            bindings = [*TableScreen.BINDINGS, *HeartsApp.BINDINGS]
            for binding in bindings:
                assert isinstance(binding, Binding)
                assert rows[app.get_key_display(binding)] == binding.tooltip
            assert {"?", "⏎", "space", "h", "u", "l", "s", "n", "^s", "^q", "←", "→"} <= set(rows)
            assert "a card's name" in rows
            screenshot(app, f"tui-help-{size[0]}x{size[1]}")
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)

    run(go)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_you_are_south_with_west_north_east_around_you(size: tuple[int, int]) -> None:
    """R1.4: you sit at the bottom, South; clockwise from your left: West (left), North
    (across, at the top), East (right); the trick shows each card on its seat's side."""

    async def go() -> None:
        session = Session.new(Rules(pass_count=0), seed=3, specs=["easy"], delay=0)
        app = HeartsApp(session)
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app)
            table = app.table
            assert session.names == ["You", "West", "North", "East"]
            trick = table.query_one("#trick").region
            west, north, east = (table.query_one(f"#seat-{s}").region for s in (1, 2, 3))
            assert west.right <= trick.x and east.x >= trick.right
            assert north.bottom <= trick.y and west.x < north.x < east.x
            assert text_of(table.query_one("#seat-1")).startswith(("West", "▶ West"))
            assert "You (South)" in text_of(table.query_one("#you"))
            hand = [w for w in table.query(CardWidget) if w.display]
            assert all(w.region.y >= trick.bottom for w in hand)
            assert "You" in text_of(table.query_one("#trick-bc"))
            assert "West" in text_of(table.query_one("#trick-ml")) or "W" in text_of(
                table.query_one("#trick-ml")
            )
            assert "North" in text_of(table.query_one("#trick-tc")) or "N" in text_of(
                table.query_one("#trick-tc")
            )
            for part in (
                *table.query(SeatPanel),
                table.query_one("#trick"),
                table.query_one("#status"),
                *hand,
            ):
                assert inside(app, part), part
            screenshot(app, f"tui-table-{size[0]}x{size[1]}")

    run(go)


@pytest.mark.parametrize("players", [3, 5, 6])
def test_seat_names_around_the_table_with_3_5_6_players(players: int) -> None:
    """R1.4 with 3, 5 or 6 players: West on your left, East on your right, the others across
    from left to right in clockwise order; every part fits at 80×24."""

    async def go() -> None:
        session = Session.new(Rules(players=players), seed=4, specs=["easy"], delay=0)
        app = HeartsApp(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            assert session.names == ["You", *SEAT_NAMES[players][1:]]
            table = app.table
            panels = {p.seat: p for p in table.query(SeatPanel)}
            assert sorted(panels) == list(range(1, players))
            trick = table.query_one("#trick").region
            assert panels[1].region.right <= trick.x and panels[players - 1].region.x >= trick.right
            across = [panels[s].region for s in range(2, players - 1)]
            assert all(r.bottom <= trick.y for r in across)
            assert [r.x for r in across] == sorted(r.x for r in across)
            for s, panel in panels.items():
                assert text_of(panel).splitlines()[0].removeprefix("▶ ") == SEAT_NAMES[players][s]
                assert inside(app, panel)
            assert not table.has_class("too-small")

    run(go)


def test_a_17_card_hand_wraps_at_60_columns_and_a_tiny_window_says_so() -> None:
    """With 3 players (17 cards) at 60×20 the hand takes two rows, every card on the screen;
    at 50×15 the window says it is too small (nothing is cut off silently); bigger again,
    the table is back."""

    async def go() -> None:
        session = Session.new(Rules(players=3), seed=6, specs=["easy"], delay=0)
        app = HeartsApp(session)
        async with app.run_test(size=(60, 20)) as pilot:
            await settle(pilot, app)
            await pilot.pause()
            table = app.table
            cards = [w for w in table.query(CardWidget) if w.display]
            assert len(cards) == len(session.view.hand) == 17
            assert all(inside(app, w) for w in cards)
            assert len({w.region.y for w in cards}) == 2
            for i, a in enumerate(cards):
                for b in cards[i + 1 :]:
                    assert not a.region.overlaps(b.region)
            for part in (*table.query(SeatPanel), table.query_one("#trick"), table.query_one("#you")):
                assert inside(app, part), part
            assert not table.has_class("too-small")
            screenshot(app, "tui-hand-60x20")
            await pilot.resize_terminal(50, 15)
            await pilot.pause()
            await pilot.pause()
            assert table.has_class("too-small")
            notice = table.query_one("#too-small")
            assert inside(app, notice)
            assert "This window is 50×15: the table needs at least 60×" in text_of(notice)
            assert table.query_one("#table").region.area == 0
            screenshot(app, "tui-too-small-50x15")
            await pilot.resize_terminal(60, 20)
            await pilot.pause()
            await pilot.pause()
            assert not table.has_class("too-small") and all(inside(app, w) for w in cards)

    run(go)


def test_the_new_game_dialog_is_usable_at_80x24() -> None:
    """At 80×24 the new game dialog's fields scroll and its buttons stay on the screen, also
    with an option's help shown; Start works by a click."""

    async def go() -> None:
        app = HeartsApp(Session.new(Rules(), seed=7, specs=["easy"], delay=0))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("n")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, NewGameScreen)
            for button in ("#start", "#cancel"):
                assert inside(app, form.query_one(button))
            ties, fields = form.query_one("#opt-ties"), form.query_one("#new-game-fields")
            ties.focus()  # far down the form: it scrolls there
            for _ in range(100):  # the scroll is animated
                await pilot.pause(0.02)
                if fields.region.contains_region(ties.region):
                    break
            assert fields.region.contains_region(ties.region) and inside(app, fields)
            assert "R5.2" in text_of(form.query_one("#new-game-help"))
            for button in ("#start", "#cancel"):
                assert inside(app, form.query_one(button))
            screenshot(app, "tui-new-game-80x24")
            form.query_one("#seed").value = "12"  # type: ignore[attr-defined]
            await pilot.click("#start")
            await settle(pilot, app)
            assert app.session.seed == 12 and isinstance(app.screen, TableScreen)

    run(go)


# --- quitting, saving, resuming --------------------------------------------------------------------


def test_quit_offers_to_save_and_the_saved_game_resumes(tmp_path: Path) -> None:
    """Ctrl+Q asks: Escape goes back to the game; s asks where to save, saves and quits; the
    saved record resumes at the same position with the same seats and seed."""
    path = tmp_path / "quit.json"
    session = Session.new(Rules(), seed=9, specs=["easy", "medium", "random"], delay=0)
    at_last_trick(session)  # the first round's last trick: a game well under way

    async def go() -> None:
        app = HeartsApp(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert app.screen.id == "quit"
            await dialog_fits(pilot, app)
            screenshot(app, "tui-quit-80x24")
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen) and app.is_running
            await pilot.press("ctrl+q", "s")
            await pilot.pause()
            assert app.screen.id == "save"
            app.screen.query_one("#save-path").value = str(path)  # type: ignore[attr-defined]
            await pilot.press("enter")
            await pilot.pause()
        assert app.return_code == 0 and path.exists()

    run(go)
    resumed = Session.resume(path, delay=0)
    assert resumed.seed == 9 and resumed.seats == session.seats and resumed.view == session.view

    async def again() -> None:
        app = HeartsApp(resumed)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            assert app.session.view.to_move == HUMAN and len(app.session.view.hand) == 1
            await pilot.press("enter")
            await settle(pilot, app)
            assert app.screen.id == "round-summary"

    run(again)


def test_quit_without_saving_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+Q then q: the table closes at once and no record is written."""
    monkeypatch.chdir(tmp_path)

    async def go() -> None:
        app = HeartsApp(Session.new(Rules(), seed=10, specs=["easy"], delay=0))
        async with app.run_test(size=(60, 20)) as pilot:
            await settle(pilot, app)
            await pilot.press("ctrl+q")
            await pilot.pause()
            await dialog_fits(pilot, app)
            await pilot.press("q")
            await pilot.pause()
        assert app.return_code == 0

    run(go)
    assert list(tmp_path.iterdir()) == []


# --- the game over -----------------------------------------------------------------------------------


def test_game_over_shows_the_winner_and_the_final_totals() -> None:
    """R5.1: after the last round's summary, the game over: the winner and the totals after
    each round, the last row the final totals (Game.totals); the table shows them too."""

    async def go() -> None:
        session = at_last_trick(Session.new(Rules(target=1), seed=5, specs=["easy"], delay=0))
        app = HeartsApp(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("enter")
            await settle(pilot, app)
            game = session.game
            assert game.is_over and game.winners is not None, "seed 5 ends the game in round 1"
            assert app.screen.id == "round-summary"
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen.id == "game-over"
            await dialog_fits(pilot, app)
            body = text_of(app.screen.query_one("#game-over-body"))
            (winner,) = game.winners
            low = points_word(game.totals[winner])
            assert body.splitlines()[0] == f"{does(session.names[winner], 'win')} with {low}!"
            final = body.splitlines()[-1].split()
            assert final[:3] == ["Round", str(len(game.rounds)), "(final)"]
            assert [int(x) for x in final[3:]] == game.totals
            screenshot(app, "tui-game-over-80x24")
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)
            for panel in app.table.query(SeatPanel):
                assert f"total {game.totals[panel.seat]}" in text_of(panel)
            assert f"total {game.totals[HUMAN]}" in text_of(app.table.query_one("#you"))

    run(go)
