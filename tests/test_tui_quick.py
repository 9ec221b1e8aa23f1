"""``hearts tui --quick``: the terminal plays the service's quick match (issue 40, item 6).

Against a real ``hearts serve --port 0`` process (its own SQLite file, bots at once): the app
queues, three bots fill the table after the wait, and the game is played to its end at the
same table screen as a local game, by pressing keys; the end shown is the server's record.
Leaving the queue with Escape sends ``leave`` (the service's live lobby counts nobody
waiting); a refused key ends ``hearts tui`` with one line and exit code 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import stat
import subprocess
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")
websockets = pytest.importorskip("websockets")

from test_cli_edges import _console_script  # noqa: E402
from test_server_support import http  # noqa: E402

from hearts.round import Phase  # noqa: E402
from hearts.tui.quick import QuickApp, QuickRequest  # noqa: E402
from hearts.tui.screens import GameOverScreen, MoonScreen, QueueScreen, TableScreen  # noqa: E402
from hearts.tui.service import QUICK_PRESETS, Service, profile_key, profiles_path  # noqa: E402


def serve(db: Path, port: int = 0) -> tuple[subprocess.Popen[str], Service]:
    """``hearts serve`` on ``port`` (0: any) and the SQLite file ``db``, bots moving at once:
    the process, and the address it prints once it serves."""
    command = [*_console_script(), "serve", "--port", str(port), "--db", f"sqlite:///{db}",
               "--bot-delay", "0", "--bot-workers", "0", "--log-level", "warning"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.match(r"pyhearts web table on (http://\S+)", line)
        if found:
            return proc, Service.parse(found.group(1))
    pytest.fail(f"hearts serve exited ({proc.wait()}) before it served")


def stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    """``hearts serve --port 0`` on a new SQLite file, bots moving at once; the address it prints."""
    proc, found = serve(tmp_path / "tables.db")
    try:
        yield found
    finally:
        stop(proc)


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The profiles' keys are kept in a config folder of the test's own."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def test_the_quick_presets_are_the_protocols() -> None:
    """Every rule set the service's quick match is asked for by, ``--preset`` takes (and
    ``three``, which the service reads as ``black_maria``)."""
    pytest.importorskip("msgspec")
    from hearts.server.wire import QUICK_PRESETS as WIRE

    assert set(WIRE) <= set(QUICK_PRESETS) <= {*WIRE, "three"}


def test_a_profile_is_made_once_and_its_key_kept_for_its_owner_only(service: Service) -> None:
    key = profile_key(service, "Ann")
    path = profiles_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())[service.base]["key"] == key
    assert profile_key(service, "Someone else") == key  # the next run: the same profile
    assert service.profile(key) == "Ann"


async def press_until_over(app: QuickApp, pilot: Any, timeout: float = 240.0) -> None:
    """Play the person's seat by keys until the game is over: Space and → mark the first
    cards to pass, Enter plays the card the cursor starts a turn on (a legal one), a for the moon."""
    passed: set[int] = set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not app.final:
        assert app.failure is None, app.failure
        assert loop.time() < deadline, "the game did not end in time"
        table = app.table
        screen = app.screen
        if isinstance(screen, MoonScreen):
            await pilot.press("a")
        elif table is not None and screen is table and table.state is not None:
            view = table.state.view
            if view.must_pass and view.round_number not in passed:
                passed.add(view.round_number)
                for _ in range(view.rules.pass_count):
                    await pilot.press("space", "right")
                await pilot.press("enter")
            elif view.phase is Phase.PLAYING and view.to_move == view.seat and table.view.legal:
                await pilot.press("enter")
        await pilot.pause(0.05)


@pytest.mark.parametrize(("preset", "bots"), [("black_maria", 2)])
def test_the_terminal_plays_a_quick_match_to_the_end_and_shows_the_servers_totals(
    service: Service, preset: str, bots: int
) -> None:
    """Bots fill the table after the wait (R1.4 seats; the game to its end, R5; Black Maria for
    three, R1.2 and R4.5): the final totals the table shows are the service's record of the table.
    (A four-player quick match is played to its end by the next-time test below.)"""
    key = profile_key(service, "Tui")

    async def run() -> QuickApp:
        app = QuickApp(service, QuickRequest(key, preset, fill_after=3))
        async with app.run_test(size=(110, 36)) as pilot:
            while app.table is None:
                assert app.failure is None, app.failure
                assert isinstance(app.screen, QueueScreen)
                await pilot.pause(0.1)
            assert app.seated is not None and app.seated["bots"] == bots
            await press_until_over(app, pilot)
            await pilot.pause(0.2)
            assert isinstance(app.screen, GameOverScreen)
            await pilot.press("escape")
        return app

    app = asyncio.run(run())
    assert app.seated is not None
    status, table = http("GET", f"{service.base}/api/tables/{app.seated['table']}")
    assert status == 200, table
    assert table["finished"]
    head, _, *rows = app.final
    shown = [int(v) for v in rows[-1].split()[-len(table["totals"]):]]
    assert rows[-1].split()[:2] == ["Round", str(len(table["score_history"]))]
    assert shown == table["totals"], (app.final, table["totals"])
    names = table["names"]
    assert head.startswith(" and ".join(names[s] for s in table["winners"]))


def test_the_terminal_rides_out_a_restart_of_the_service(tmp_path: Path) -> None:
    """The service restarts (SIGTERM, then started again on the same port and database, as a
    deployment does) while the terminal is at its table: the app connects again, takes its
    seat with its token and plays on (R2, R3) — no failure line, the game's position kept."""
    proc, service = serve(tmp_path / "tables.db")
    key = profile_key(service, "Steady")

    async def run() -> QuickApp:
        nonlocal proc
        app = QuickApp(service, QuickRequest(key, "standard", fill_after=3))
        async with app.run_test(size=(110, 36)) as pilot:
            while app.table is None or app.table.state is None:
                assert app.failure is None, app.failure
                await pilot.pause(0.1)
            await asyncio.to_thread(stop, proc)
            port = urllib.parse.urlsplit(service.base).port or 0
            proc, _ = await asyncio.to_thread(serve, tmp_path / "tables.db", port)
            before = app.remote.seq
            with contextlib.suppress(AssertionError):  # (the game may not end in the time given)
                await press_until_over(app, pilot, timeout=8)
            assert app.failure is None, app.failure
            assert app.remote.seq >= before + 8, (before, app.remote.seq)  # played on: a pass and tricks
            await pilot.press("ctrl+q")
        return app

    try:
        asyncio.run(run())
    finally:
        stop(proc)


async def lobby_waiting(service: Service, preset: str, count: int, timeout: float = 10.0) -> int:
    """The people waiting for ``preset``, as the service's live lobby pushes it: once it says
    ``count`` (or what it said last, after ``timeout`` seconds)."""
    said = -1
    async with websockets.connect(service.websocket("/ws/lobby/live")) as ws:
        try:
            async with asyncio.timeout(timeout):
                while said != count:
                    lobby = json.loads(await ws.recv())
                    if lobby["type"] == "lobby":
                        said = lobby["waiting"].get(preset, 0)
        except TimeoutError:
            pass
    return said


def test_escape_leaves_the_queue_at_once(service: Service) -> None:
    """Escape sends ``leave``: the service says ``left``, the app ends (exit code 0) and the
    live lobby counts nobody waiting."""
    key = profile_key(service, "Leaver")

    async def run() -> QuickApp:
        app = QuickApp(service, QuickRequest(key, "omnibus", fill_after=300))
        async with app.run_test(size=(100, 30)) as pilot:
            while app.queue.waiting is None:
                assert app.failure is None, app.failure
                await pilot.pause(0.1)
            assert await lobby_waiting(service, "omnibus", 1) == 1
            await pilot.press("escape")
            for _ in range(50):
                if app.left:
                    break
                await pilot.pause(0.1)
        return app

    app = asyncio.run(run())
    assert app.left and app.return_code == 0 and app.seated is None and app.failure is None
    assert asyncio.run(lobby_waiting(service, "omnibus", 0)) == 0


def test_a_refused_key_is_one_line_and_exit_code_1(service: Service, config_home: Path) -> None:
    done = subprocess.run(
        [*_console_script(), "tui", "--quick", "--server", service.base, "--key", "not-a-key"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "XDG_CONFIG_HOME": str(config_home)},
        stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"hearts tui: error: the service at {service.base} knows no player profile")
    assert not profiles_path().exists()  # nothing kept


@pytest.mark.parametrize(
    ("args", "words", "code"),
    [
        (["--server", "localhost:8000"], "is not a service's address", 2),
        (["--server", "http://127.0.0.1:1"], "no service answers at http://127.0.0.1:1", 1),
        (["--preset", "openspiel"], "--quick --preset is one of standard, omnibus, black_maria, three, any", 2),
        (["--seed", "3"], "--quick plays the service's rules and seats: drop --seed", 2),
        (["--fill-after", "2"], "bots fill the seats after 3 to 300 seconds, not 2", 2),
    ],
)
def test_bad_quick_flags_are_one_line(args: list[str], words: str, code: int, config_home: Path) -> None:
    from test_cli_edges import run

    status, _, err = run(["tui", "--quick", *args])
    assert status == code, err
    last = err.splitlines()[-1]  # argparse's own refusals come after the usage, as for every flag
    assert last.startswith("hearts tui: error: ") and words in last and "Traceback" not in err
    assert err.count("\n") == 1 or err.startswith("usage: ")
    assert not profiles_path().exists()




def test_the_person_sits_at_the_bottom_whatever_their_seat() -> None:
    """R1.4: at a table of the service the person may hold any seat; the table screen shows
    them at the bottom and the others clockwise from their left (seat 2 of four: West is seat
    3, across is seat 0, East is seat 1), their hand and their legal cards."""
    from textual.app import App

    from hearts import Game, Rules
    from hearts.tui.remote import RemoteTable
    from hearts.tui.state import TableState
    from hearts.tui.widgets import SeatPanel
    from hearts.view import View

    game = Game(Rules(), seed=5)
    facts = {"names": ["Ann", "Bob", "Cy", "Di"], "kinds": ["human", "bot", "human", "bot"],
             "bots": [None, "easy", None, "hard"], "away": [0], "totals": [0, 0, 0, 0], "pass_offset": 1,
             "time_left": [None, None, 41.2, None], "score_history": [], "winners": None}
    remote = RemoteTable()
    assert remote.take({"type": "state", "n": 0, "seq": 0, "view": View.of(game, 2).to_dict(), "table": facts})
    state = TableState.of(remote)

    class Table(App[None]):
        def on_mount(self) -> None:
            self.push_screen(TableScreen(state))

        def on_table_screen_acted(self, message: TableScreen.Acted) -> None:
            remote.apply(message.action)  # as QuickApp does, before sending the outbox

    async def run() -> None:
        app = Table()
        async with app.run_test(size=(110, 36)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, TableScreen)
            where = {p.parent.id: p.seat for p in screen.query(SeatPanel) if p.parent is not None}
            assert where == {"left": 3, "top": 0, "right": 1}
            infos = {p.seat: p.info for p in screen.query(SeatPanel)}
            assert infos[0] is not None and (infos[0].name, infos[0].level) == ("Ann", "away")
            assert infos[3] is not None and infos[3].level == "hard"
            assert "Cy" in str(screen.query_one("#you").render())
            assert "⏱ 41 s" in " · ".join(screen.query_one("#status").parts)  # type: ignore[attr-defined]
            await pilot.press("space", "right", "space", "right", "space", "enter")
            await pilot.pause()

    asyncio.run(run())
    sent = remote.outbox[-1]
    assert sent["type"] == "pass" and sent["seat"] == 2 and sent["seq"] == 0 and len(sent["cards"]) == 3


def test_the_quick_matchs_own_presets_are_refused_for_a_local_game() -> None:
    from test_cli_edges import run

    status, _, err = run(["tui", "--preset", "three"])
    assert status == 2 and err == "hearts tui: error: --preset three is a quick match's (--quick)\n"


def test_a_banned_profile_is_one_line_and_exit_code_1(service: Service, tmp_path: Path, config_home: Path) -> None:
    """The operator bans the kept profile (``hearts admin ban``): the next ``hearts tui --quick``
    says so in one line, exit code 1, before any screen."""
    key = profile_key(service, "Spammer")
    me = service.call("GET", "/api/me", key=key)
    admin = subprocess.run([*_console_script(), "admin", "ban", me["id"], "--reason", "spam",
                            "--db", f"sqlite:///{tmp_path / 'tables.db'}"], capture_output=True, text=True, timeout=60,
                           check=False)
    assert admin.returncode == 0, admin.stderr
    done = subprocess.run(
        [*_console_script(), "tui", "--quick", "--server", service.base], capture_output=True, text=True, timeout=60,
        env={**os.environ, "XDG_CONFIG_HOME": str(config_home)}, stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"hearts tui: error: the service at {service.base} refused (403): "), done.stderr
    assert "banned" in done.stderr, done.stderr


def test_the_command_queues_in_a_terminal_and_escape_leaves(service: Service, config_home: Path) -> None:
    """The real command in a 110×36 pseudo-terminal: ``hearts tui --quick`` makes the profile,
    draws the wait (the rules asked for, the countdown) and Escape leaves: exit code 0, and the
    profile's key is kept."""
    import pty

    from test_fresh_installs import read_screen

    command = [*_console_script(), "tui", "--quick", "--server", service.base, "--preset", "omnibus",
               "--fill-after", "300", "--name", "Pty"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: the terminal program
        env = {**os.environ, "XDG_CONFIG_HOME": str(config_home), "TERM": "xterm-256color", "COLUMNS": "110",
               "LINES": "36"}
        os.execvpe(command[0], command, env)
    try:
        import fcntl
        import struct
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 110, 0, 0))
        screen = read_screen(fd, lambda s: "Bots fill the empty seats in" in s, timeout=120)
        assert "Quick match · omnibus · unrated" in screen, screen
        os.write(fd, b"\x1b")  # Escape
        read_screen(fd, lambda s: False, timeout=10)  # until it ends
        _, status = os.waitpid(pid, 0)
        pid = 0
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert json.loads(profiles_path().read_text())[service.base]["name"] == "Pty"


def test_a_terminal_closed_mid_game_goes_back_to_its_table_next_time(service: Service) -> None:
    """ctrl+q at the table ends the app with the seat kept beside the profile's key; the next
    run goes back to that table (``hello``, ``back``) instead of queueing (the service would
    refuse: ``at_table``), plays it to the end, and forgets the seat."""
    from hearts.tui.service import keep_seat, kept_seat

    key = profile_key(service, "Comeback")

    def keep(seated: dict[str, Any] | None) -> None:
        keep_seat(service, key, seated)

    async def first() -> QuickApp:
        app = QuickApp(service, QuickRequest(key, "standard", fill_after=3), keep=keep)
        async with app.run_test(size=(110, 36)) as pilot:
            while app.table is None or app.table.state is None or not app.table.state.view.must_pass:
                assert app.failure is None, app.failure
                await pilot.pause(0.1)
            await pilot.press("space", "right", "space", "right", "space", "enter")
            await pilot.pause(0.3)
            await pilot.press("ctrl+q")
        return app

    app = asyncio.run(first())
    assert app.seated is not None and app.return_code == 0 and not app.final
    assert app.seated["bots"] == 3  # (R1.4: bots filled the three empty seats after the wait)
    kept = kept_seat(service, key)
    assert kept is not None and kept["table"] == app.seated["table"] and kept["token"] == app.seated["token"]

    async def second() -> QuickApp:
        again = QuickApp(service, QuickRequest(key, "standard", fill_after=3), resume=kept, keep=keep)
        async with again.run_test(size=(110, 36)) as pilot:
            await press_until_over(again, pilot)
        return again

    again = asyncio.run(second())
    assert again.seated is not None and again.seated["table"] == app.seated["table"]
    status, table = http("GET", f"{service.base}/api/tables/{app.seated['table']}")
    assert status == 200 and table["finished"]
    assert kept_seat(service, key) is None and "seat" not in json.loads(profiles_path().read_text())[service.base]


def test_the_moon_is_asked_at_a_table_of_the_service() -> None:
    """R4.4 ``shooter_chooses``: the person who shot the moon at a table of the service is
    asked (the local game's dialog), and the choice goes out as the protocol's ``moon``."""
    from helpers import moon_deal, play_moon_round

    from hearts import Game, Rules
    from hearts.view import View

    game = Game(Rules(moon="shooter_chooses", pass_count=0), seed=1, deals=[moon_deal(4, 2)])
    play_moon_round(game, 2)
    view = View.of(game, 2).to_dict()
    assert view["moon_choice_pending"]
    facts = {"names": ["Ann", "Bob", "Cy", "Di"], "kinds": ["bot", "bot", "human", "bot"],
             "bots": ["easy", "easy", None, "easy"], "away": [], "totals": [0, 0, 0, 0], "pass_offset": 0,
             "time_left": [None, None, 28.0, None], "score_history": [], "winners": None}

    class Offline(QuickApp):
        def connect(self) -> None:  # type: ignore[override]
            """No service: the test gives the table's messages itself."""

    async def run() -> Offline:
        app = Offline(Service.parse("http://127.0.0.1:1"), QuickRequest("key"))
        async with app.run_test(size=(110, 36)) as pilot:
            assert app.remote.take({"type": "state", "n": 0, "seq": 52, "view": view, "table": facts})
            app._show({"table": "t1", "token": "x", "seat": 2, "message": "Seated."})
            await pilot.pause()
            assert isinstance(app.screen, MoonScreen)
            await pilot.press("s")
            await pilot.pause()
        return app

    app = asyncio.run(run())
    assert app.remote.outbox == [{"type": "moon", "seat": 2, "choice": "subtract", "seq": 52}]
