"""The bots a web service offers (issue 39): the four levels by default, and the bot specs the
operator allows with ``hearts serve --bots SPEC …`` (registered names, ``MODULE:CLASS``,
entry points) — at the tables of a SQLite server, whose bots think in its worker processes,
and of a service on PostgreSQL, whose bot worker process makes their moves. A spec that does
not load stops ``hearts serve`` before it starts, with one line. Real ``hearts`` and server
processes, the moves read from the database.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import test_server_support
from test_cli_edges import _console_script
from test_server_support import (
    SERVE,
    Database,
    ServerProcess,
    db_actions,
    db_new_game,
    emptied_pg_url,
    http,
    module_pg_database,
)

from hearts.actions import Play, from_json
from hearts.bots.registry import LEVELS
from hearts.server.protocol import ProtocolError, TableRequest

HIGHBOT = '''
from hearts.bots import Bot
from hearts.cards import CardSet


class HighBot(Bot):
    """Passes its highest cards and plays its highest legal card."""

    name = "high"

    def choose_pass(self, view):
        return CardSet(sorted(view.hand)[-view.rules.pass_count:])

    def choose_play(self, view):
        return max(view.legal)
'''

pg_database = pytest.fixture(scope="module")(module_pg_database)
url = pytest.fixture(emptied_pg_url)


@pytest.fixture
def highbot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A module ``highbot`` (class ``HighBot``) on the ``PYTHONPATH`` of the processes started."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "highbot.py").write_text(HIGHBOT)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")])))
    monkeypatch.syspath_prepend(str(folder))
    return folder


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path, highbot: Path) -> Iterator[ServerProcess]:
    """A SQLite server process with ``serve(**request.param)``."""
    s = ServerProcess(tmp_path / "tables.db", **getattr(request, "param", {})).start()
    yield s
    s.stop()


def bot_seats(*specs: str) -> list[dict[str, Any]]:
    return [{"kind": "bot", "level": spec} for spec in specs]


def plays_of(db: Database, table_id: str, count: int, timeout: float = 60.0) -> list[tuple[Play, list[int]]]:
    """The first ``count`` plays of a table's log (waiting for them), each with the cards its
    seat could legally play then."""
    deadline = time.monotonic() + timeout
    while len(rows := db_actions(db, table_id)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    game = db_new_game(db, table_id)
    out = []
    for _, text in rows:
        action = from_json(text)
        if isinstance(action, Play):
            out.append((action, sorted(int(a.card) for a in game.legal_actions(action.seat))))  # type: ignore[union-attr]
        game.apply(action)
    assert len(out) >= count // 2, f"only {len(rows)} actions logged"
    return out


def highest_everywhere(plays: list[tuple[Play, list[int]]], seats: set[int]) -> None:
    """Every play of ``seats`` was the highest legal card (what ``HighBot`` plays, R3)."""
    mine = [(p, legal) for p, legal in plays if p.seat in seats]
    assert mine, "the HighBot seats never played"
    assert all(int(p.card) == legal[-1] for p, legal in mine), mine


# --- the request ----------------------------------------------------------------------------------


def test_a_table_request_takes_the_levels_by_default_and_the_allowed_bots_when_given(highbot: Path) -> None:
    seats = bot_seats("random", "easy", "highbot:HighBot", "hard")
    with pytest.raises(ProtocolError, match=r"bot level 'random' is not one of easy, medium, hard, expert"):
        TableRequest.parse({"seats": seats})
    allowed = (*LEVELS, "random", "highbot:HighBot")
    request = TableRequest.parse({"seats": seats, "stand_in": "random"}, bots=allowed)
    assert [s.level for s in request.seats] == ["random", "easy", "highbot:HighBot", "hard"]
    assert request.stand_in == "random"
    with pytest.raises(ProtocolError, match=r"'stand_in': bot level 'search' is not one of easy, .*, random, highbot:HighBot"):
        TableRequest.parse({"seats": seats, "stand_in": "search"}, bots=allowed)


def test_a_rated_table_seats_only_levels() -> None:
    """A rated game's bots anchor the rating scale: only the levels have an anchor."""
    with pytest.raises(ProtocolError, match=r"2: a rated table's bots are levels \(easy, medium, hard, expert\)"):
        TableRequest.parse({"seats": [{"kind": "human"}, *bot_seats("random", "easy", "easy")], "rated": True},
                           bots=(*LEVELS, "random"))


def test_a_bot_that_cannot_play_the_rules_is_refused_at_the_request() -> None:
    """R1.1: OpenSpiel's ISMCTS plays four players only; the table is refused, not left without a move."""
    with pytest.raises(ProtocolError, match=r"bot 'openspiel_ismcts' cannot play these rules: players=3"):
        TableRequest.parse({"seats": bot_seats("openspiel_ismcts", "easy", "easy")}, bots=(*LEVELS, "openspiel_ismcts"))


# --- a real service -------------------------------------------------------------------------------


def test_by_default_the_service_offers_the_four_levels(server: ServerProcess) -> None:
    status, config = http("GET", server.url + "/api/config")
    assert status == 200 and config["levels"] == list(LEVELS)
    status, body = http("POST", server.url + "/api/tables", {"seats": bot_seats("random", "easy", "easy", "easy")})
    assert status == 400 and "bot level 'random' is not one of easy, medium, hard, expert" in body["error"]


@pytest.mark.parametrize("server", [{"bots": ["random", "highbot:HighBot"]}], indirect=True)
def test_the_bots_an_operator_allows_play_at_a_sqlite_service(server: ServerProcess) -> None:
    """``serve --bots``: the lobby offers the levels, then the allowed specs; a ``MODULE:CLASS``
    bot seat plays its own moves (thinking in the server's worker processes)."""
    status, config = http("GET", server.url + "/api/config")
    assert status == 200 and config["levels"] == [*LEVELS, "random", "highbot:HighBot"]
    status, table = http("POST", server.url + "/api/tables", {"seats": bot_seats("highbot:HighBot", "random", "easy", "random")})
    assert status == 201, table
    assert [s["bot"] for s in table["seats"]] == ["highbot:HighBot", "random", "easy", "random"]
    highest_everywhere(plays_of(server.db, table["id"], 60), {0})
    status, body = http("POST", server.url + "/api/tables", {"seats": bot_seats("search", "easy", "easy", "easy")})
    assert status == 400 and "'search' is not one of easy, medium, hard, expert, random, highbot:HighBot" in body["error"]


def test_the_bots_an_operator_allows_play_at_a_postgresql_service(
    url: str, tmp_path: Path, highbot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL the service's own bot worker (another process) makes the moves: a
    ``MODULE:CLASS`` spec and a name the serving program registered both play there."""
    monkeypatch.setattr(
        test_server_support, "SERVE", "import highbot\nfrom hearts.bots import register\n"
        "register('mine', highbot.HighBot)\n" + SERVE,
    )
    server = ServerProcess(url, logs=tmp_path, bot_jobs=4, bot_workers=1, bots=["highbot:HighBot", "mine"]).start()
    try:
        seats = bot_seats("highbot:HighBot", "mine", "medium", "easy")
        status, table = http("POST", server.url + "/api/tables", {"seats": seats})
        assert status == 201, table
        highest_everywhere(plays_of(url, table["id"], 60), {0, 1})
    finally:
        server.stop()


# --- `hearts serve --bots` --------------------------------------------------------------------------


def serve_briefly(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``hearts serve ARGS`` on a free port and a new SQLite file, expected to refuse its
    arguments and exit; one that starts serving instead is stopped after 30 seconds (a refusal
    takes a few seconds on a loaded machine: the imports)."""
    command = [*_console_script(), "serve", "--port", "0", "--db", f"sqlite:///{tmp_path / 'tables.db'}", *args]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(command, -1, str(e.stdout or ""), str(e.stderr or ""))


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("nobody", "--bots nobody: unknown bot 'nobody'; known bots: random, heuristic"),
        ("nomodule:Bot", "--bots nomodule:Bot: bot spec 'nomodule:Bot': no module 'nomodule' to import"),
        ("highbot:LowBot", "--bots highbot:LowBot: bot spec 'highbot:LowBot': module 'highbot' has no 'LowBot'"),
        ("search:colour=red", "--bots search:colour=red: search: unknown option 'colour'"),
    ],
)
def test_serve_refuses_a_bot_spec_that_does_not_load_with_one_line(
    tmp_path: Path, highbot: Path, spec: str, words: str
) -> None:
    proc = serve_briefly(tmp_path, "--bots", "random", spec)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"hearts serve: error: {words}")
    assert proc.stdout == "" and not (tmp_path / "tables.db").exists()


def test_serve_help_names_the_bots_flag() -> None:
    proc = subprocess.run([*_console_script(), "serve", "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0
    assert "--bots SPEC [SPEC ...]" in proc.stdout
    text = " ".join(proc.stdout.split())
    assert "bot specs the tables may seat besides the levels easy, medium, hard, expert" in text


def test_serve_bots_takes_the_specs_into_the_lobby(tmp_path: Path, highbot: Path) -> None:
    """The real command: ``hearts serve --bots random highbot:HighBot`` starts and offers them."""
    port = test_server_support.free_port()
    command = [*_console_script(), "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 't.db'}",
               "--bots", "random", "highbot:HighBot", "--bot-workers", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"}) as proc:
        try:
            deadline = time.monotonic() + 60
            config: Any = None
            while config is None and time.monotonic() < deadline and proc.poll() is None:
                try:
                    config = http("GET", f"http://127.0.0.1:{port}/api/config")[1]
                except OSError:
                    time.sleep(0.1)
            assert config is not None and config["levels"] == [*LEVELS, "random", "highbot:HighBot"]
        finally:
            proc.terminate()
            proc.wait(10)

