"""Helpers for the web table's tests: a real server in a subprocess (on SQLite or on
PostgreSQL), a bot worker in a subprocess, real WebSocket clients (which can reconnect to
another server process), and the action log read straight from either database.

(No tests here; the server test modules import it.)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from test_server_store_support import empty_database, fresh_database

from hearts import record
from hearts.actions import from_json
from hearts.cards import CardSet
from hearts.game import Game
from hearts.record import replay
from hearts.round import Phase
from hearts.rules import Rules

websockets = pytest.importorskip("websockets")
pytest.importorskip("msgspec")

from hearts.server.wire import apply_event  # noqa: E402

CARD_RE = re.compile(r"^(?:[2-9TJQKA]|10)[CDHS]$")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


TEST_LIMITS: dict[str, Any] = {
    "tables_rate": "10000/minute",
    "joins_rate": "10000/minute",
    "connect_rate": "10000/minute",
    "messages_rate": "10000/second",
    "connections_per_address": 10000,
    "bot_tables_per_address": 100,
    "max_bot_tables": 100,
}
"""Limits high enough for the tests that are not about limits (every client is 127.0.0.1)."""

SERVE = (
    "import json, sys\n"
    "from hearts.server.app import serve\n"
    "from hearts.server.limits import Limits\n"
    "options = json.loads(sys.argv[1])\n"
    "limits = Limits(**options.pop('limits'))\n"
    "serve(**options, limits=limits)\n"
)
"""A server process: hearts.server.app.serve(**options) (the options of ``hearts serve``)."""


Database = Path | str
"""A test's database: a SQLite file, or a PostgreSQL URL."""


BACKENDS = ("sqlite", "postgresql")


def module_pg_database(request: pytest.FixtureRequest) -> Iterator[str]:
    """A PostgreSQL database made for the test module (the test is skipped without a server).
    A test module makes it its fixture: ``pg_database = pytest.fixture(scope="module")(module_pg_database)``."""
    with fresh_database(request.module.__name__.removeprefix("test_")) as url:
        yield url


def emptied_pg_url(pg_database: str) -> str:
    """The module's PostgreSQL database, emptied (never migrated). A test module makes it its
    fixture: ``url = pytest.fixture(emptied_pg_url)``."""
    return empty_database(pg_database)


def server_pair(url: str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two server processes of one service (as on two machines: two ports, one database). A
    test module makes it its fixture: ``pair = pytest.fixture(server_pair)``."""
    servers = [ServerProcess(url, logs=tmp_path).start() for _ in range(2)]
    yield servers
    for s in servers:
        s.stop()


def metrics(server: ServerProcess) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a server's ``/metrics``, by name and labels."""
    from prometheus_client.parser import text_string_to_metric_families

    status, text = http("GET", server.url + "/metrics")
    assert status == 200
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def backend_database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    """A database never opened, on each backend: a new SQLite file, or the module's PostgreSQL
    database emptied. A test module makes it its fixture (with ``pg_database``):
    ``database = pytest.fixture(params=BACKENDS)(backend_database)``."""
    if request.param == "sqlite":
        return tmp_path / "tables.db"
    return empty_database(request.getfixturevalue("pg_database"))


def is_pg(db: Database) -> bool:
    return isinstance(db, str) and db.startswith("postgresql://")


def db_url(db: Database) -> str:
    """The ``--db`` of ``hearts serve`` for a test's database."""
    return db if isinstance(db, str) else f"sqlite:///{db}"


class ServerProcess:
    """The web server in a subprocess (:func:`hearts.server.app.serve`) on a free loopback port,
    with ``options`` for ``serve`` (``limits``: changes to :data:`TEST_LIMITS`). Its JSON log
    lines go to ``log`` in ``logs`` (default: the SQLite file's folder; a file: a pipe nobody
    reads would fill and stop the server). On PostgreSQL it starts no bot worker of its own
    unless ``bot_jobs`` says so (the tests start :class:`WorkerProcess` themselves)."""

    def __init__(
        self, db: Database, bot_delay: float = 0.0, port: int | None = None, logs: Path | None = None, **options: Any
    ) -> None:
        self.db = db
        self.bot_delay = bot_delay
        self.port = port or free_port()
        self.options = ({"bot_jobs": 0} if is_pg(db) else {}) | options
        folder = logs if logs is not None else Path(str(db)).parent
        self.log = folder / f"server-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        options = {"port": self.port, "db": db_url(self.db), "bot_delay": self.bot_delay, **self.options}
        options["limits"] = {**TEST_LIMITS, **options.get("limits", {})}
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", SERVE, json.dumps(options)], stdout=subprocess.DEVNULL, stderr=log, env=env
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                http("GET", self.url + "/healthz")
                return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.05)
        stop(self.proc)  # (not left running to answer, or hold its database, after the test)
        raise RuntimeError(f"server did not answer /healthz within 30 s: {self.log.read_text()[-2000:]}")

    def logs(self) -> list[dict[str, Any]]:
        """The server's log so far, one JSON object per line."""
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def kill9(self) -> None:
        kill9(self.proc)

    def stop(self) -> None:
        stop(self.proc)


def logged_soon(process: ServerProcess | WorkerProcess, event: str, timeout: float = 5.0) -> list[dict[str, Any]]:
    """The lines of ``event`` in ``process``'s log, waited for up to ``timeout`` s (then an
    assertion fails): a process says what it did once the store took it, so the store (or a
    client told through it) can show it a moment before the log does."""
    deadline = time.monotonic() + timeout
    while not (lines := [line for line in process.logs() if line.get("event") == event]):
        assert time.monotonic() < deadline, f"no {event!r} in the log within {timeout} s"
        time.sleep(0.05)
    return lines


def kill9(proc: subprocess.Popen[bytes] | None) -> None:
    """SIGKILL a process and wait for it."""
    assert proc is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM a process if it runs, and wait for it (SIGKILL after 10 s)."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


class WorkerProcess:
    """``hearts bot-worker`` in a subprocess on a PostgreSQL database (``--lease`` seconds:
    short in tests, so a killed worker's job is taken over soon), its log in ``log``."""

    def __init__(self, url: str, log: Path, lease: float = 2.0, jobs: int = 4, processes: int = 1) -> None:
        self.url = url
        self.log = log
        self.args = ["--lease", str(lease), "--jobs", str(jobs), "--processes", str(processes)]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, wait: float = 30.0) -> WorkerProcess:
        """Start the worker and wait up to ``wait`` s for it to say so (else it is stopped, and
        a ``RuntimeError`` raised)."""
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hearts", "bot-worker", "--db", self.url, *self.args],
                stdout=subprocess.DEVNULL, stderr=log, env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        deadline = time.monotonic() + wait
        while not any(line.get("event") == "bot worker started" for line in self.logs()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                stop(self.proc)  # (not left running against a database the test drops)
                raise RuntimeError(f"the bot worker did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.05)
        return self

    def logs(self) -> list[dict[str, Any]]:
        text = self.log.read_text() if self.log.exists() else ""
        return [json.loads(line) for line in text.splitlines() if line.startswith("{")]

    def kill9(self) -> None:
        kill9(self.proc)

    def stop(self) -> None:
        stop(self.proc)


def request(
    method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any, Any]:
    """An HTTP request (a JSON body unless ``body`` is bytes): the status, the response's
    headers and its body (parsed when it is JSON)."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            raw, status, got = r.read(), r.status, r.headers
    except urllib.error.HTTPError as e:
        raw, status, got = e.read(), e.code, e.headers
    return status, got, json.loads(raw) if "json" in got.get("Content-Type", "") else raw.decode()


def http(method: str, url: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """:func:`request` without the response's headers."""
    status, _, data = request(method, url, body, headers)
    return status, data


def auth(key: str) -> dict[str, str]:
    """The header that shows a player profile's secret key."""
    return {"Authorization": f"Bearer {key}"}


def new_profile(server: ServerProcess, name: str) -> dict[str, Any]:
    """A new player profile (``POST /api/players``): its id, name and secret key."""
    status, data = http("POST", server.url + "/api/players", {"name": name})
    assert status == 201, data
    return data  # type: ignore[no-any-return]


def create_table(server: ServerProcess, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    status, data = http("POST", server.url + "/api/tables", {"seats": seats, **extra})
    assert status == 201, data
    return data  # type: ignore[no-any-return]


class Client:
    """A WebSocket client that records every message it receives. Given ``others`` (server
    processes of the same service), it reconnects when its connection is lost — to the next
    of its servers that answers, as the browser client does — and takes its seat again."""

    def __init__(
        self, server: ServerProcess, table_id: str, token: str | None, others: Sequence[ServerProcess] = ()
    ) -> None:
        self.server = server
        self.servers = [server, *others]
        self.table_id = table_id
        self.token = token
        self.ws: Any = None
        self.close_code: int | None = None
        self.close_reason = ""
        self.messages: list[dict[str, Any]] = []
        """The messages received, each ``event`` as the ``state`` it makes of the last one."""
        self.received: list[dict[str, Any]] = []
        """The messages as they came, events as events."""
        self.last: dict[str, Any] | None = None
        """The last state (received, or made by an event): the next event applies to it."""
        self.gaps = 0
        """Events that did not follow the last state (each answered with a sync)."""
        self.arrived: list[float] = []
        """When each message arrived (time.monotonic())."""
        self.state: dict[str, Any] | None = None
        self.reconnects = 0
        """How many times the connection was lost and made again (to another server)."""
        self._closing = False
        self._new = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def _open(self, headers: dict[str, str] | None = None) -> None:
        self.ws = await websockets.connect(
            f"{self.server.ws_url}/ws/{self.table_id}", max_size=2**22, additional_headers=headers
        )

    async def connect(self, hello: bool = True, headers: dict[str, str] | None = None, history: bool = True) -> Client:
        """Connect, and with ``hello`` take the seat: return once the welcome has come and, with
        ``history``, the chat's history that follows it (read from the store)."""
        await self._open(headers)
        self._reader = asyncio.get_running_loop().create_task(self._read())
        if hello:
            await self.send({"type": "hello", "token": self.token})
            await self.wait(lambda m: m["type"] == "state")
            if history:
                await self.wait(lambda m: m["type"] == "chat" and m.get("history"))
        return self

    async def _read(self) -> None:
        while True:
            try:
                async for raw in self.ws:
                    msg = json.loads(raw)
                    self.received.append(msg)
                    if msg["type"] == "event":  # applied to the last state, as the browser does
                        composed = None if self.last is None else apply_event(self.last, msg)
                        if composed is None:  # a number was missed: the whole state again
                            self.gaps += 1
                            await self.ws.send(json.dumps({"type": "sync"}))
                            continue
                        msg = composed
                    self.arrived.append(time.monotonic())
                    self.messages.append(msg)
                    if msg["type"] == "state":
                        self.last = msg
                        if self.state is None or msg["seq"] >= self.state["seq"]:
                            self.state = msg
                    self._new.set()
            except websockets.ConnectionClosed:
                pass
            self.close_code, self.close_reason = self.ws.close_code, self.ws.close_reason or ""
            if self._closing or len(self.servers) < 2 or not await self._reconnect():
                break
        self._new.set()

    async def _reconnect(self, timeout: float = 30.0) -> bool:
        """Connect to the next server that answers and take the seat again (``False``: none did)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._closing:
            self.server = self.servers[(self.servers.index(self.server) + 1) % len(self.servers)]
            try:
                await self._open()
                if self._closing:  # closed meanwhile: keep no connection made on the way
                    await self.ws.close()
                    return False
                await self.send({"type": "hello", "token": self.token})
            except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed):
                await asyncio.sleep(0.1)
                continue
            self.reconnects += 1
            return True
        return False

    async def send(self, data: Any) -> None:
        await self.ws.send(data if isinstance(data, (str, bytes)) else json.dumps(data))

    async def wait(self, pred: Any, timeout: float = 10.0, start: int | None = None) -> dict[str, Any]:
        """The first message (from index ``start``, default: any) matching ``pred``."""
        i = 0 if start is None else start
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            while i < len(self.messages):
                if pred(self.messages[i]):
                    return self.messages[i]
                i += 1
            self._new.clear()
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0 or (self._reader is not None and self._reader.done()):
                raise TimeoutError(f"no matching message; last: {self.messages[-3:]}")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._new.wait(), left)

    async def request(self, data: Any, pred: Any, timeout: float = 10.0) -> dict[str, Any]:
        n = len(self.messages)
        await self.send(data)
        return await self.wait(pred, timeout, start=n)

    async def closed(self, timeout: float = 10.0) -> tuple[int | None, str]:
        """Wait until the server closes the connection: its close code and reason."""
        assert self._reader is not None
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        return self.close_code, self.close_reason

    async def close(self) -> None:
        self._closing = True
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader


def my_action(state: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A random legal action for the seat of ``state``, or ``None`` if it is not to act."""
    v = state["view"]
    if v["game_over"]:
        return None
    if v["must_pass"]:
        return {"type": "pass", "seq": state["seq"], "cards": rng.sample(v["hand"], v["pass_count"])}
    if v["moon_choice_pending"]:
        return {"type": "moon", "seq": state["seq"], "choice": rng.choice(["add", "subtract"])}
    if v["to_move"] == v["seat"] and v["legal"]:
        return {"type": "play", "seq": state["seq"], "card": rng.choice(v["legal"])}
    return None


async def play_until(clients: list[Client], rng: random.Random, stop: Any, timeout: float = 60.0) -> None:
    """Each client acts on its latest state until ``stop()`` is true (seen true once, by any
    client, every client stops: a condition may hold for a moment only)."""
    stopped = False

    async def run(c: Client) -> None:
        nonlocal stopped
        acted_on = (-1, 0)  # the seq acted at, on which connection (an action lost with one is sent again)
        while not stopped:
            if stop():
                stopped = True
                return
            st = c.state
            assert st is not None
            if st["view"]["game_over"]:
                return
            if (st["seq"], c.reconnects) != acted_on:
                action = my_action(st, rng)
                if action is not None:
                    acted_on = (st["seq"], c.reconnects)
                    with contextlib.suppress(websockets.ConnectionClosed):  # (it reconnects)
                        await c.send(action)
                    continue
            c._new.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(c._new.wait(), 0.5)
            if c._reader is not None and c._reader.done():
                return

    await asyncio.wait_for(asyncio.gather(*(run(c) for c in clients)), timeout)


def db_rows(db: Database, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of one query (``?`` placeholders) on a test's database, SQLite or PostgreSQL."""
    if is_pg(db):
        import psycopg

        with psycopg.connect(str(db), autocommit=True) as pg:
            return pg.execute(query.replace("?", "%s"), params).fetchall()  # type: ignore[arg-type]
    con = sqlite3.connect(db)
    try:
        return con.execute(query, params).fetchall()
    finally:
        con.close()


def db_actions(db: Database, table_id: str) -> list[tuple[int, str]]:
    """A table's log as stored: (seq, the action's codec text) rows in order."""
    rows = db_rows(db, "SELECT seq, CAST(data AS TEXT) FROM actions WHERE table_id = ? ORDER BY seq", (table_id,))
    return [(int(seq), str(data)) for seq, data in rows]


def db_seed(db: Database, table_id: str) -> int:
    """A table's stored seed."""
    ((seed,),) = db_rows(db, "SELECT seed FROM tables WHERE id = ?", (table_id,))
    return int(seed)


def db_new_game(db: Database, table_id: str) -> Game:
    """The game a table starts from: its stored rules and seed (and a migrated table's deals)."""
    ((config, seed, deals),) = db_rows(
        db, "SELECT CAST(config AS TEXT), seed, CAST(deals AS TEXT) FROM tables WHERE id = ?", (table_id,)
    )
    rules = Rules.from_dict(json.loads(config)["rules"])
    return Game(rules, seed, deals=None if deals is None else json.loads(deals))


def db_game(db: Database, table_id: str, upto: int | None = None) -> Game:
    """The game a table's log describes (its first ``upto`` actions), replayed from scratch."""
    actions = [json.loads(data) for _, data in db_actions(db, table_id)]
    return replay(db_new_game(db, table_id), actions[:upto])


def cards_in(obj: Any) -> set[str]:
    """Every card-like string anywhere in a JSON value."""
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD_RE.match(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            out |= cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= cards_in(v)
    return out


def four_humans(server: ServerProcess, **extra: Any) -> dict[str, Any]:
    """A table of four human seats (Ann, Bob, Cy, Di)."""
    return create_table(server, [{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cy", "Di")], **extra)


async def seat_all(server: ServerProcess, table: dict[str, Any]) -> list[Client]:
    """One connected client per seat of ``table``."""
    return [await Client(server, table["id"], s["token"]).connect() for s in table["seats"]]


async def seat_spread(servers: Sequence[ServerProcess], table: dict[str, Any]) -> list[Client]:
    """One connected client per seat of ``table``, seat i on server i (mod their number); each
    reconnects to the others when its server is lost."""
    clients = []
    for i, s in enumerate(table["seats"]):
        server = servers[i % len(servers)]
        clients.append(await Client(server, table["id"], s["token"], [x for x in servers if x is not server]).connect())
    return clients


def positions_at(
    db: Database, table_id: str, messages: list[dict[str, Any]]
) -> Iterator[tuple[dict[str, Any], Game, Rules]]:
    """Each ``state`` message with the game its table's log replays to at the message's seq
    (the number of actions applied)."""
    actions = [from_json(data) for _, data in db_actions(db, table_id)]
    game = db_new_game(db, table_id)
    for m in messages:
        if m["type"] != "state":
            continue
        seq = m["seq"]
        if len(game.history) > seq:
            game = db_new_game(db, table_id)
        for action in actions[len(game.history) : seq]:
            game.apply(action)
        assert len(game.history) == seq, f"the log has {len(actions)} actions; a state has seq {seq}"
        yield m, game, game.rules


def check_public_parts(m: dict[str, Any], game: Game) -> None:
    """R7 audit of the parts of a state message that are the same for everyone: the table facts
    hold no card but the last trick's, the last trick and the event hold only cards really
    played, by the seat named."""
    table = dict(m["table"])
    last = table.pop("last_trick")
    assert not cards_in(table)
    played = {(s, str(card)) for rr in game.rounds for t in rr.tricks for s, card in t.plays}
    played |= {(s, str(card)) for s, card in game.round.current_trick.plays}
    for p in (last or {"plays": []})["plays"]:
        assert (p["seat"], p["card"]) in played
    ev = m["event"]
    if ev is not None and ev["type"] == "play":
        assert (ev["seat"], ev["card"]) in played
    elif ev is not None:
        assert not cards_in(ev)


def audit_r7(db: Database, table_id: str, clients: list[Client]) -> int:
    """Check every state message against the true position at its seq (docs/rules.md R7)."""
    checked = 0
    for c in clients:
        assert any(m["type"] == "state" for m in c.messages)
        for m, game, rules in positions_at(db, table_id, c.messages):
            seq, seat = m["seq"], m["you"]
            r = game.round
            passed = r.passed(seat) or CardSet()
            forbidden = CardSet()
            for o in range(rules.players):
                if o != seat:
                    forbidden = forbidden | r.hand(o)
            forbidden = forbidden - passed
            bad = {str(c) for c in forbidden}
            view = m["view"]
            leaked = cards_in(view) & bad
            assert not leaked, f"seat {seat} at seq {seq} was sent others' cards {leaked}"
            own = r.hand(seat) - passed if r.phase is Phase.PASSING else r.hand(seat)
            assert view["hand"] == [str(x) for x in own.sorted_by_suit()]
            check_public_parts(m, game)  # only cards really played, by the seat named
            checked += 1
    return checked


def check_export(
    server: ServerProcess, table_id: str, names: list[str], bots: list[str | None]
) -> record.GameRecord:
    """The export of a finished table loads as a record with the seats' names, the bots' specs,
    the table's seed, and the totals the table shows."""
    status, data = http("GET", f"{server.url}/api/tables/{table_id}/record")
    assert status == 200, data
    assert data["format"] == "pyhearts.game" and data["version"] == 2
    loaded = record.loads(json.dumps(data))
    assert isinstance(loaded, record.GameRecord)
    assert [s.name for s in loaded.seats] == names and [s.bot for s in loaded.seats] == bots
    assert loaded.game.seed == data["seed"] == db_seed(server.db, table_id)
    assert loaded.game.is_over and loaded.game.totals == db_game(server.db, table_id).totals == data["totals"]
    status, shown = http("GET", f"{server.url}/api/tables/{table_id}")
    assert shown["totals"] == loaded.game.totals and shown["names"] == names
    return loaded
