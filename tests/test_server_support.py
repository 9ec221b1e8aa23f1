"""Helpers for the web table's tests: a real server in a subprocess, real WebSocket clients.

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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hearts.actions import from_json
from hearts.game import Game
from hearts.record import replay
from hearts.rules import Rules

websockets = pytest.importorskip("websockets")

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


class ServerProcess:
    """The web server in a subprocess (:func:`hearts.server.app.serve`) on a free loopback port,
    with ``options`` for ``serve`` (``limits``: changes to :data:`TEST_LIMITS`). Its JSON log
    lines go to ``log`` (a file: a pipe nobody reads would fill and stop the server)."""

    def __init__(self, db: Path, bot_delay: float = 0.0, port: int | None = None, **options: Any) -> None:
        self.db = db
        self.bot_delay = bot_delay
        self.port = port or free_port()
        self.options = options
        self.log = db.parent / f"server-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        options = {"port": self.port, "db": f"sqlite:///{self.db}", "bot_delay": self.bot_delay, **self.options}
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
        raise RuntimeError("server did not start")

    def logs(self) -> list[dict[str, Any]]:
        """The server's log so far, one JSON object per line."""
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


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


def create_table(server: ServerProcess, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    status, data = http("POST", server.url + "/api/tables", {"seats": seats, **extra})
    assert status == 201, data
    return data  # type: ignore[no-any-return]


class Client:
    """A WebSocket client that records every message it receives."""

    def __init__(self, server: ServerProcess, table_id: str, token: str | None) -> None:
        self.server = server
        self.table_id = table_id
        self.token = token
        self.ws: Any = None
        self.close_code: int | None = None
        self.close_reason = ""
        self.messages: list[dict[str, Any]] = []
        self.arrived: list[float] = []
        """When each message arrived (time.monotonic())."""
        self.state: dict[str, Any] | None = None
        self._new = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def connect(self, hello: bool = True, headers: dict[str, str] | None = None) -> Client:
        self.ws = await websockets.connect(
            f"{self.server.ws_url}/ws/{self.table_id}", max_size=2**22, additional_headers=headers
        )
        self._reader = asyncio.get_running_loop().create_task(self._read())
        if hello:
            await self.send({"type": "hello", "token": self.token})
            await self.wait(lambda m: m["type"] == "state")
        return self

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                self.arrived.append(time.monotonic())
                self.messages.append(msg)
                if msg["type"] == "state" and (self.state is None or msg["seq"] >= self.state["seq"]):
                    self.state = msg
                self._new.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code, self.close_reason = self.ws.close_code, self.ws.close_reason or ""
            self._new.set()

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
    """Each client acts on its latest state until ``stop()`` is true."""

    async def run(c: Client) -> None:
        acted_on = -1
        while not stop():
            st = c.state
            assert st is not None
            if st["view"]["game_over"]:
                return
            if st["seq"] != acted_on:
                action = my_action(st, rng)
                if action is not None:
                    acted_on = st["seq"]
                    await c.send(action)
                    continue
            c._new.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(c._new.wait(), 0.5)
            if c._reader is not None and c._reader.done():
                return

    await asyncio.wait_for(asyncio.gather(*(run(c) for c in clients)), timeout)


def db_actions(db: Path, table_id: str) -> list[tuple[int, str]]:
    """A table's log as stored: (seq, the action's codec text) rows in order."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT seq, data FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()
    finally:
        con.close()
    return [(int(seq), str(data)) for seq, data in rows]


def db_new_game(db: Path, table_id: str) -> Game:
    """The game a table starts from: its stored rules and seed (and a migrated table's deals)."""
    con = sqlite3.connect(db)
    try:
        config, seed, deals = con.execute(
            "SELECT config, seed, deals FROM tables WHERE id = ?", (table_id,)
        ).fetchone()
    finally:
        con.close()
    rules = Rules.from_dict(json.loads(config)["rules"])
    return Game(rules, seed, deals=None if deals is None else json.loads(deals))


def db_game(db: Path, table_id: str, upto: int | None = None) -> Game:
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


def positions_at(
    db: Path, table_id: str, messages: list[dict[str, Any]]
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

