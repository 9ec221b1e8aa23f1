"""The terminal table (Textual), driven headless by Textual's pilot: keys only, as a person would.

Every test plays against quick bots with no pacing (``delay=0``). The helpers only *read* the
app's state to decide which key to press next; every action goes through key presses (or a
mouse click where that is what is tested).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")

from textual.pilot import Pilot
from textual.widget import Widget

from hearts import Card, Game, Rules, record
from hearts.actions import Action, Moon, Pass, Play
from hearts.bots import Bot, RandomBot, register, unregister
from hearts.cards import RANK_LETTERS, SUIT_LETTERS, CardSet
from hearts.errors import HeartsError
from hearts.record import GameRecord, Seat
from hearts.text import Style
from hearts.tui.app import HeartsApp
from hearts.tui.screens import MoonScreen, NewGameScreen, TableScreen
from hearts.tui.session import HUMAN, Session, TableRefused
from hearts.tui.widgets import CardWidget, SeatPanel, StatusLine, TextLine
from hearts.view import View

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


def make_app(seed: int = 7, target: int = 100, specs: tuple[str, ...] = ("easy",), **kw: object) -> HeartsApp:
    session = Session.new(Rules(target=target), seed=seed, specs=list(specs), delay=0)
    return HeartsApp(session, hint_spec="search:iterations=40", **kw)  # type: ignore[arg-type]


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(test())


async def settle(pilot: Pilot[int], app: HeartsApp, timeout: float = 20.0) -> None:
    """Wait until no bot or hint is thinking, the game waits for the person (a move, or a
    dialog such as a round's summary) and the screen has caught up."""
    end = time.monotonic() + timeout
    await pilot.pause()
    while app.busy or not app.waiting:
        assert time.monotonic() < end, "the bots did not finish"
        await pilot.pause(0.01)
    await pilot.pause()


async def next_round(pilot: Pilot[int], app: HeartsApp) -> None:
    """Close a round's summary (Enter) and let the bots pass."""
    assert app.screen.id == "round-summary"
    await pilot.press("enter")
    await settle(pilot, app)


def key_name(card: Card) -> list[str]:
    """The keys that type a card: ``q s``, ``1 0 h``."""
    rank = "10" if card.rank == 8 else RANK_LETTERS[card.rank].lower()
    return [*rank, SUIT_LETTERS[card.suit].lower()]


async def pass_by_keys(pilot: Pilot[int], app: HeartsApp) -> None:
    """Mark three cards with arrows and Space (the cursor starts on the first card), then Enter."""
    table = app.table
    count = app.session.rules.pass_count
    while table.cursor != 0:
        await pilot.press("left")
    for _ in range(count):
        await pilot.press("space", "right", "right")
    await pilot.press("enter")


async def play_by_keys(pilot: Pilot[int], app: HeartsApp, by_name: bool) -> Card:
    """Play a legal card: by typing its name, or with the arrows; Enter plays it."""
    view = app.session.view
    table = app.table
    cards = view.hand.sorted_by_suit()
    legal = [c for c in cards if c in view.legal]
    if by_name:
        card = legal[-1]
        await pilot.press(*key_name(card))
    else:
        card = legal[0]
        target = cards.index(card)
        while table.cursor != target:
            await pilot.press("right" if table.cursor < target else "left")
    assert table._cards[table.cursor] == card
    await pilot.press("enter")
    return card


def test_a_whole_round_by_key_presses_only() -> None:
    """Passing (arrows, Space, Enter) and thirteen tricks (typed names and arrows, Enter)."""

    async def go() -> None:
        app = make_app(seed=11)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            session = app.session
            assert session.view.must_pass
            hand = session.view.hand
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            passed = session.round.passed(HUMAN)
            assert passed is not None and len(passed) == 3 and passed <= hand
            k = 0
            while len(session.game.score_history) == 0:
                assert session.view.to_move == HUMAN
                before = len(session.view.hand)
                card = await play_by_keys(pilot, app, by_name=k % 2 == 0)
                k += 1
                if len(session.game.score_history) == 0:
                    assert card not in session.view.hand and len(session.view.hand) == before - 1
                await settle(pilot, app)
            assert k == 13
            totals = session.game.score_history[0]
            assert sum(session.game.rounds[0].result.points) == 26  # type: ignore[union-attr]
            assert list(totals) == session.game.totals
            # the round's summary, and round 2 once it is closed: a fresh hand, passing right (R2.2)
            assert app.screen.id == "round-summary"
            await next_round(pilot, app)
            assert session.round.round_number == 1 and len(session.view.hand) == 13
            assert "pass 3 right" in str(app.table.query_one("#status").render())

    run(go)


def test_illegal_card_is_dimmed_and_refused_with_the_reason() -> None:
    """R3.1-R3.4: an illegal card is dimmed; Enter on it shows the rule and changes nothing."""

    async def go() -> None:
        app = make_app(seed=3)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            view = app.session.view
            illegal = [c for c in view.hand.sorted_by_suit() if c not in view.legal]
            assert illegal, "the first trick always forbids some card"
            widgets = {w.card: w for w in app.table.query(CardWidget) if w.display}
            assert widgets[illegal[0]].has_class("illegal")
            assert not widgets[next(iter(view.legal))].has_class("illegal")
            history = app.session.game.history
            await pilot.press(*key_name(illegal[0]), "enter")
            await pilot.pause()
            assert app.session.game.history == history and illegal[0] in app.session.view.hand
            assert "(R3." in app.message and "its hand" not in app.message  # the rule in words (hearts.text.WHY_NOT)
            # a click on a legal card plays it, and the refusal is no longer shown
            legal = next(iter(view.legal))
            await pilot.click(widgets[legal])
            await settle(pilot, app)
            assert legal not in app.session.view.hand and "(R3." not in app.message

    run(go)


def test_undo_takes_back_the_last_play_and_the_bots_after_it() -> None:
    """Undo (Game.undo) takes back the person's last play and the bots' plays after it."""

    async def go() -> None:
        app = make_app(seed=5)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await pilot.press("u")
            assert "Nothing to undo" in app.message
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            await play_by_keys(pilot, app, by_name=True)
            await settle(pilot, app)
            before = app.session.view  # before the second play
            history = app.session.game.history
            card = await play_by_keys(pilot, app, by_name=False)
            await settle(pilot, app)
            assert card not in app.session.view.hand and len(app.session.game.history) > len(history)
            await pilot.press("u")
            await settle(pilot, app)
            after = app.session.view
            assert "Undone" in app.message
            assert app.session.game.history == history
            assert (after.hand, after.trick, after.tricks, after.to_move) == (
                before.hand,
                before.trick,
                before.tricks,
                before.to_move,
            )
            # and the game goes on from there
            await play_by_keys(pilot, app, by_name=True)
            await settle(pilot, app)
            assert len(app.session.view.tricks) == 2

    run(go)


def test_hint_names_a_legal_card_in_one_line() -> None:
    async def go() -> None:
        app = make_app(seed=8)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await pilot.press("h")
            await settle(pilot, app)
            assert app.message.startswith("Hint: Pass ") and "\n" not in app.message
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            await play_by_keys(pilot, app, by_name=True)
            await settle(pilot, app)
            await pilot.press("h")
            await settle(pilot, app)
            assert app.message.startswith("Hint: Play ") and "\n" not in app.message
            shown = app.message.split()[2].rstrip(":")
            assert Card.parse(shown) in app.session.view.legal

    run(go)


def test_save_then_resume_to_the_same_position(tmp_path: Path) -> None:
    path = tmp_path / "game.json"

    async def go() -> None:
        app = make_app(seed=21, specs=("easy", "medium", "random"))
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            for k in range(3):
                await play_by_keys(pilot, app, by_name=k == 1)
                await settle(pilot, app)
            await pilot.press("ctrl+s")
            await pilot.pause()
            input_ = app.screen.query_one("#save-path")
            input_.value = str(path)  # type: ignore[attr-defined]
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)
            assert "Saved to" in app.message
            saved = app.session.view

        loaded = record.load(path)
        assert isinstance(loaded, GameRecord) and loaded.seats[1] == Seat("West", bot="easy")
        resumed = Session.resume(path, delay=0)
        assert resumed.specs == ["easy", "medium", "random"] and resumed.seed == 21 and not resumed.notices
        app2 = HeartsApp(resumed, hint_spec="search:iterations=40")
        async with app2.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app2)
            view = app2.session.view
            for field in (
                "hand",
                "trick",
                "tricks",
                "to_move",
                "points_taken",
                "scores",
                "round_number",
                "phase",
            ):
                assert getattr(view, field) == getattr(saved, field), field
            assert view.to_move == HUMAN
            await play_by_keys(pilot, app2, by_name=True)
            await settle(pilot, app2)
            assert len(app2.session.view.tricks) == 4

    run(go)


def test_resume_from_the_command_line(tmp_path: Path) -> None:
    """``hearts tui --resume FILE`` builds the same session (the app is not started here)."""
    from hearts.cli import build_parser
    from hearts.cli.tui import make_session

    session = Session.new(Rules(), seed=4, specs=["easy", "medium", "heuristic:blunder=0.1"], delay=0)
    session.run_bots_until_human()
    path = tmp_path / "g.json"
    session.save(path)
    args = build_parser().parse_args(["tui", "--resume", str(path), "--delay", "0"])
    resumed = make_session(args)
    assert resumed.specs == session.specs and resumed.view == session.view
    assert resumed.seats == session.seats and resumed.seed == 4 and resumed.delay == 0
    args = build_parser().parse_args(["tui", "--resume", str(path), "--bot", "random", "--name", "Ann"])
    resumed = make_session(args)
    assert resumed.specs == ["random"] * 3 and resumed.names[0] == "Ann" and resumed.view == session.view


def test_80x24_shows_every_part_of_the_table_and_saves_a_snapshot() -> None:
    async def go() -> None:
        app = make_app(seed=2)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, app)
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            await play_by_keys(pilot, app, by_name=True)
            await settle(pilot, app)
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            await pilot.pause()
            screen = app.table
            assert screen.size == (80, 24)
            whole = screen.region
            parts: list[Widget] = [
                screen.query_one("#status"),
                screen.query_one("#trick"),
                screen.query_one("#you"),
                screen.query_one("#message"),
                screen.query_one("Footer"),
                *screen.query(SeatPanel),
                *(w for w in screen.query(CardWidget) if w.display),
                *screen.query(".trick-cell"),
            ]
            assert len(list(screen.query(SeatPanel))) == 3
            assert len([w for w in screen.query(CardWidget) if w.display]) == len(app.session.view.hand) == 12
            for w in parts:
                region = w.region
                assert region.width > 0 and region.height > 0, w
                assert whole.contains_region(region), (w, region)
            # every seat panel shows its whole text (name, cards, points, total)
            for panel in screen.query(SeatPanel):
                assert panel.content_region.height >= 3 and panel.content_region.width >= 20
            # no two parts of the table overlap
            boxes = [screen.query_one("#trick").region, *(p.region for p in screen.query(SeatPanel))]
            for i, a in enumerate(boxes):
                for b in boxes[i + 1 :]:
                    assert not a.overlaps(b), (a, b)
            ARTIFACTS.mkdir(exist_ok=True)
            svg = app.save_screenshot("tui-80x24.svg", path=str(ARTIFACTS))
            text = Path(svg).read_text(encoding="utf-8")
            assert text.startswith("<svg") and "East" in text

    run(go)


def test_dialogs_last_trick_scores_new_game_and_moon() -> None:
    async def go() -> None:
        app = make_app(seed=9)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await pilot.press("l")
            assert "No trick" in app.message
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            await play_by_keys(pilot, app, by_name=False)
            await settle(pilot, app)
            await pilot.press("l")
            await pilot.pause()
            assert app.screen.id == "last-trick"
            await pilot.press("escape")
            await pilot.press("s")
            await pilot.pause()
            assert app.screen.id == "scores"
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)
            # a new game of 3 players to 50, hard bots, seed 1
            await pilot.press("n")
            await pilot.pause()
            form = app.screen
            form.query_one("#opt-players").value = 3  # type: ignore[attr-defined]
            form.query_one("#opt-target").value = "50"  # type: ignore[attr-defined]
            form.query_one("#opt-moon").value = "shooter_chooses"  # type: ignore[attr-defined]
            form.query_one("#specs").value = "easy random"  # type: ignore[attr-defined]
            form.query_one("#seed").value = "1"  # type: ignore[attr-defined]
            await pilot.click("#start")
            await settle(pilot, app)
            s = app.session
            assert s.rules.players == 3 and s.rules.target == 50 and s.rules.moon == "shooter_chooses"
            assert s.specs == ["easy", "random"] and s.seed == 1
            assert len(list(app.table.query(SeatPanel))) == 2 and len(s.view.hand) == 17
            # the moon dialog, when this seat must choose (R4.4 shooter_chooses)
            app.push_screen(
                MoonScreen([0, 0, 0], s.names), lambda choice: setattr(app, "message", str(choice))
            )
            await pilot.pause()
            await pilot.press("s")
            await pilot.pause()
            assert app.message == "subtract"

    run(go)


# --- the session: resume, undo, refusals ---------------------------------------------------------


def drive(session: Session, *, stop: Callable[[Session], bool] = lambda s: False) -> None:
    """Play the person's side plainly (the first cards to pass, the first legal card, 'add')
    and let the bots answer, until the game is over or ``stop(session)``."""
    while not session.game.is_over and not stop(session):
        session.run_bots_until_human()
        view = session.view
        if session.game.is_over:
            return
        if view.must_pass:
            session.apply(Pass(HUMAN, list(view.hand)[: view.rules.pass_count]))
        elif view.moon_choice_pending:
            session.apply(Moon(HUMAN, "add"))
        else:
            session.apply(Play(HUMAN, next(iter(view.legal))))


def test_a_resumed_game_deals_the_later_rounds_as_the_original(tmp_path: Path) -> None:
    """R1.3: a game saved partway (in round 3) and resumed goes on with its seed, so every
    later round's deal is the one the uninterrupted game of the same seed gets."""
    rules = Rules(target=100)
    original = Session.new(rules, seed=31, specs=["random"], delay=0)
    drive(original)
    partway = Session.new(rules, seed=31, specs=["random"], delay=0)
    drive(partway, stop=lambda s: len(s.game.score_history) == 2 and len(s.round.plays) >= 6)
    path = tmp_path / "partway.json"
    partway.save(path)

    resumed = Session.resume(path, delay=0)
    assert resumed.seed == 31 and resumed.game.history == partway.game.history
    assert resumed.seats == partway.seats and not resumed.notices
    drive(resumed)
    assert resumed.game.is_over
    later = min(len(original.game.rounds), len(resumed.game.rounds))
    assert later >= 4, "the game should go on past the saved round"
    assert [r.dealt for r in resumed.game.rounds[:later]] == [r.dealt for r in original.game.rounds[:later]]
    # and they are the seed's deals, whatever was played (R1.3)
    assert resumed.game.rounds[3].dealt != resumed.game.rounds[2].dealt


def test_undo_stays_in_the_round_and_keeps_the_passes() -> None:
    """Undo takes back the person's last play and the bots' plays after it; never the passes
    (R2.1), never into a finished, scored round (R4)."""
    session = Session.new(Rules(), seed=12, specs=["random"], delay=0)
    drive(session, stop=lambda s: s.view.to_move == HUMAN)
    passes = session.game.history
    assert len(passes) >= 4 and all(isinstance(a, Pass) for a in passes[:4])
    assert not session.can_undo and not session.undo() and session.game.history == passes

    first = next(iter(session.view.legal))
    session.apply(Play(HUMAN, first))
    session.run_bots_until_human()
    assert session.undo() and session.game.history == passes and first in session.view.hand

    drive(session, stop=lambda s: len(s.game.score_history) == 1)  # round 1 is scored
    session.run_bots_until_human()  # the bots pass in round 2
    scored = session.game.history
    assert session.round.round_number == 1 and session.view.must_pass
    assert not session.can_undo and not session.undo()
    assert session.game.history == scored and len(session.game.score_history) == 1


def test_refused_actions_change_nothing_and_say_why() -> None:
    """R2.1, R4.4: a pass of cards not held, a moon choice nobody asked for, a pass of the wrong
    count: a message each, and the game is unchanged."""

    async def go() -> None:
        app = make_app(seed=4)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            history = app.session.game.history
            not_held = CardSet([c for c in CardSet.full() if c not in app.session.view.hand][:3])
            assert not app.human_act(Pass(HUMAN, not_held))
            shown = Style().cards(not_held)  # as the engine lists them
            assert app.message == f"You don't hold {shown} (R2.1)."  # as the line-mode table says it
            assert not app.human_act(Moon(HUMAN, "add"))
            assert app.message == "No moon decision is asked now (R4.4)."
            await pilot.press("space", "enter")  # one card marked, three are passed
            await pilot.pause()
            assert "Mark 3 cards with Space first (1 marked)" in app.message
            assert app.session.game.history == history and app.session.view.must_pass

    run(go)


def test_new_game_form_is_made_from_the_option_specs() -> None:
    """R6 and every option of R1-R5: the form has a field per Rules.options() entry with its
    label and rule; a preset fills them; a bad value is refused with the rule's message."""

    async def go() -> None:
        app = make_app(seed=3)
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot, app)
            first = app.session
            await pilot.press("n")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, NewGameScreen)
            labels = [str(label.render()) for label in form.query("#new-game-grid Label")]
            for spec in Rules.options():
                assert f"{spec.label} ({spec.rule})" in labels
                form.query_one(f"#opt-{spec.name}")
            assert form.rules() == first.rules
            form.query_one("#preset").value = "strict_queen"  # type: ignore[attr-defined]
            await pilot.pause()
            assert form.query_one("#opt-queen_lead").value == "after_break"  # type: ignore[attr-defined]
            assert form.rules() == Rules.preset("strict_queen", target=100)
            form.query_one("#opt-jack_of_diamonds").value = "-40"  # type: ignore[attr-defined]
            form.query_one("#opt-pass_cycle").value = "left,hold"  # type: ignore[attr-defined]
            form.query_one("#opt-ties").value = "share"  # type: ignore[attr-defined]
            form.query_one("#opt-points_on_first_trick").value = True  # type: ignore[attr-defined]
            await pilot.click("#start")
            await pilot.pause()
            assert app.screen is form and app.session is first
            error = str(form.query_one("#new-game-error").render())
            assert error == "Option 'jack_of_diamonds' is -40; allowed: -26..26 (rule R4.2)"
            form.query_one("#opt-jack_of_diamonds").value = "-10"  # type: ignore[attr-defined]
            await pilot.pause(0.3)  # a button ignores clicks while it shows the last one
            await pilot.click("#start")
            await settle(pilot, app)
            rules = app.session.rules
            assert rules == Rules.preset(
                "strict_queen",
                jack_of_diamonds=-10,
                pass_cycle=["left", "hold"],
                ties="share",
                points_on_first_trick=True,
            )
            assert app.session.specs == ["easy"] * 3  # the level of the game before

    run(go)


def test_a_saved_game_records_the_seats_and_the_seed(tmp_path: Path) -> None:
    """ctrl+s / Session.save: a version 2 record with each seat's name and bot spec (the person
    has none) and the game's seed, read back by record.load."""
    session = Session.new(Rules(), seed=8, specs=["easy", "search:iterations=30", "random"], delay=0)
    drive(session, stop=lambda s: len(s.game.history) > 10)
    path = tmp_path / "seats.json"
    session.save(path)
    loaded = record.load(path)
    assert isinstance(loaded, GameRecord)
    assert list(loaded.seats) == [
        Seat("You"),
        Seat("West", bot="easy"),
        Seat("North", bot="search:iterations=30"),
        Seat("East", bot="random"),
    ]
    assert loaded.game.seed == 8 and loaded.game.history == session.game.history
    assert loaded.game.rounds[0].dealt == Game(Rules(), seed=8).rounds[0].dealt


def test_the_table_opens_with_the_sessions_notices() -> None:
    """What a resumed record lacked (a bot for a seat) is said when the table opens."""

    async def go() -> None:
        session = Session.new(Rules(), seed=5, specs=["easy"], delay=0)
        session.notices = ("The record names no bot for East: it plays at the default level, medium.",)
        app = HeartsApp(session)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            assert app.message == session.notices[0]

    run(go)


# --- tables the session refuses, bots that fail ----------------------------------------------------


class FourOnly(RandomBot):
    """A bot that plays four players only (``supports`` says why not otherwise)."""

    @classmethod
    def supports(cls, rules: Rules) -> str | None:
        return None if rules.players == 4 else f"four players only, not {rules.players}"


def test_a_table_with_a_bot_that_cannot_play_the_rules_is_refused_new_or_resumed(tmp_path: Path) -> None:
    """hearts.bots.check_table when the session is set: a new game and a resumed one (whose
    record names the bot) are refused with the seat and the reason, before any card is played."""
    register("fouronly", FourOnly)
    try:
        assert Session.new(Rules(), seed=1, specs=["fouronly"], delay=0).specs == ["fouronly"] * 3
        with pytest.raises(TableRefused) as info:
            Session.new(Rules(players=5), seed=1, specs=["easy", "fouronly", "easy", "easy"], delay=0)
        assert (
            str(info.value)
            == "seat 2 (Northwest): bot 'fouronly' cannot play these rules: four players only, not 5"
        )
        assert isinstance(info.value, HeartsError)
        game = Game(Rules(players=3), seed=2)
        path = tmp_path / "three.json"
        record.save(
            GameRecord(game, (Seat("You"), Seat("Ann", bot="easy"), Seat("Ben", bot="fouronly"))), path
        )
        with pytest.raises(
            TableRefused,
            match=r"^seat 2 \(Ben\): bot 'fouronly' cannot play these rules: four players only, not 3$",
        ):
            Session.resume(path, delay=0)
        assert Session.resume(path, specs=["easy"], delay=0).specs == ["easy", "easy"]  # other bots: set
    finally:
        unregister("fouronly")


class Crasher(RandomBot):
    """A bot of one's own that fails at every move."""

    def act(self, view: View) -> Action:
        raise RuntimeError("out of ideas")


class Cheater(RandomBot):
    """A bot that answers a move the rules refuse: cards it does not hold."""

    def act(self, view: View) -> Action:
        others = [c for c in CardSet.full() if c not in view.hand]
        return Pass(view.seat, others[:3]) if view.must_pass else Play(view.seat, others[0])


@pytest.mark.parametrize(
    ("bot", "why"),
    [(Crasher, "RuntimeError: out of ideas"), (Cheater, "an illegal move (")],
    ids=["raises", "illegal"],
)
def test_a_bot_that_fails_mid_game_is_shown_and_stood_in_for(bot: type[Bot], why: str) -> None:
    """A bot that raises, or answers an illegal move, does not hang the table: the player is
    told which bot failed and why, a random legal move (Game.legal_actions) is made for it, and
    the game goes on to the end of the round."""
    register("failing", bot)

    async def go() -> None:
        session = Session.new(Rules(), seed=6, specs=["easy", "failing", "easy"], delay=0)
        app = HeartsApp(session, hint_spec="search:iterations=40")
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            assert session.round.passed(2) is not None  # North passed: a random legal pass
            assert app.message.startswith(f"the bot 'failing' at seat 2 (North) failed: {why}")  # as hearts play says
            assert app.message.endswith(" · a random legal move was made for it")
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            while not session.game.score_history:
                await play_by_keys(pilot, app, by_name=False)
                await settle(pilot, app)
            assert app.screen.id == "round-summary" and len(session.game.rounds[0].tricks) == 13

    try:
        run(go)
    finally:
        unregister("failing")


def test_a_failing_bot_under_stop_ends_the_table_with_one_line_and_the_record_saved(tmp_path: Path) -> None:
    """--on-bot-error stop (issue 39): the table closes at the bot's failure with exit code 1
    and one line naming the bot, its seat and the error; the record is saved."""
    register("failing", Crasher)
    path = tmp_path / "game.json"

    async def go() -> None:
        session = Session.new(Rules(), seed=6, specs=["easy", "failing", "easy"], delay=0)
        session.on_bot_error = "stop"
        app = HeartsApp(session, record_path=path)
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(100):
                await pilot.pause(0.02)
                if app.return_code is not None:
                    break
        assert app.return_code == 1
        assert app.failure == (
            "hearts tui: error: the bot 'failing' at seat 2 (North) failed: RuntimeError: out of ideas; the game "
            f"stops here, unfinished; saved to {path} (go on: hearts tui --resume {path})"
        )
        loaded = record.load(path)
        assert isinstance(loaded, GameRecord) and loaded.seats[2].bot == "failing"
        assert loaded.game.round.passed(2) is None and loaded.game.round.passed(1) is not None

    try:
        run(go)
    finally:
        unregister("failing")


class Held(RandomBot):
    """A random bot that, while ``held`` is clear, waits before answering (to undo meanwhile);
    ``answered`` counts its answers."""

    held = threading.Event()
    answered = 0

    def act(self, view: View) -> Action:
        Held.held.wait(10)
        action = super().act(view)
        Held.answered += 1
        return action


def test_a_bot_move_worked_out_for_a_position_taken_back_is_never_applied() -> None:
    """Undo while a bot thinks: its worker is cancelled, and the move it still finds afterwards
    (for the position before the undo) is dropped; the game goes on from the undone position."""
    register("held", Held)
    Held.held.set()

    async def go() -> None:
        session = Session.new(Rules(), seed=3, specs=["held"], delay=0)
        app = HeartsApp(session, hint_spec="search:iterations=40")
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            while True:  # a play of yours after which a bot is to move (and is held)
                before = session.game.history
                Held.held.clear()
                await play_by_keys(pilot, app, by_name=False)
                await pilot.pause()
                if app.thinking:
                    break
                Held.held.set()
                await settle(pilot, app)
            assert session.can_undo
            answered = Held.answered
            await pilot.press("u")
            await pilot.pause()
            assert not app.thinking and session.game.history == before and session.view.to_move == HUMAN
            Held.held.set()  # the cancelled worker's bot answers now, for the position taken back
            end = time.monotonic() + 10
            while Held.answered == answered:
                assert time.monotonic() < end
                await pilot.pause(0.01)
            await pilot.pause(0.1)
            assert session.game.history == before and "Undone" in app.message
            await play_by_keys(pilot, app, by_name=True)
            await settle(pilot, app)
            assert len(session.game.history) > len(before) + 1  # the bots answered the new play

    try:
        run(go)
    finally:
        unregister("held")


def test_a_change_redraws_only_the_parts_it_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's state is a reactive its widgets are bound to, each redrawn only when its own
    part changes: moving the cursor redraws two cards and nothing else; marking a card redraws
    it, your line (1/3 marked) and the message line; no seat panel, no status line; the same
    position given again redraws nothing."""
    renders: dict[str, int] = {}

    def counting(cls: type[Widget]) -> None:
        render = cls.render

        def counted(self: Widget) -> Any:
            key = f"{type(self).__name__}#{self.id or getattr(self, 'index', '')}"
            renders[key] = renders.get(key, 0) + 1
            return render(self)

        monkeypatch.setattr(cls, "render", counted)

    for cls in (CardWidget, SeatPanel, StatusLine, TextLine):
        counting(cls)

    async def go() -> None:
        app = make_app(seed=11)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await pilot.pause(0.1)
            renders.clear()
            await pilot.press("right")
            await pilot.pause(0.1)
            assert sorted(renders) == ["CardWidget#0", "CardWidget#1"], renders
            renders.clear()
            await pilot.press("space")
            await pilot.pause(0.1)
            assert sorted(renders) == ["CardWidget#1", "TextLine#message", "YouLine#you"], renders
            renders.clear()
            app.moved()  # the game "changed" to where it is
            await pilot.pause(0.1)
            assert renders == {}

    run(go)


def test_a_hint_that_fails_says_so_and_h_works_again() -> None:
    """The hint's worker failing (here: a hint bot that does not exist) is said, and does not
    leave the table waiting for it: h asks again."""

    async def go() -> None:
        session = Session.new(Rules(), seed=8, specs=["easy"], delay=0)
        app = HeartsApp(session, hint_spec="nobody")
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            for _ in range(2):
                await pilot.press("h")
                await settle(pilot, app)
                assert app.message.startswith("No hint: the search failed (unknown bot 'nobody'")
            app.hint_spec = "search:iterations=40"
            await pilot.press("h")
            await settle(pilot, app)
            assert app.message.startswith("Hint: Pass ")

    run(go)
