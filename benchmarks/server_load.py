"""Load benchmark of the web table: N tables of four WebSocket clients on loopback.

    .venv/bin/python benchmarks/server_load.py [--tables N] [--target T] [--think-ms MS] [--port P]

Starts the server in a subprocess (:func:`hearts.server.app.serve`: a fresh SQLite file, bots
off, the per-address limits raised — every client here is 127.0.0.1 — and warnings-only
logs), creates N tables of four human seats through the HTTP API, and connects four WebSocket
clients to each. Every client
plays a random legal move (or pass, or moon choice) when it is its turn, after a random "think"
pause (uniform in 0..2×``--think-ms``; people do not answer in zero time, and it keeps the
offered load fixed). The latency of a play is the time from sending it to receiving the state
that broadcasts it (the client's own copy). At the end it checks: zero error messages and zero
resyncs, and every table's action log in the database replays (through the engine) to a
finished game with as many plays as the clients saw accepted.

The last line is exactly ``tables=N moves_per_s=X p99_ms=Y``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets

from hearts.game import Game
from hearts.record import replay
from hearts.rules import Rules
from hearts.server.wire import apply_event

LIMITS = (
    "tables_rate=1000000/minute",
    "connect_rate=1000000/minute",
    "messages_rate=1000000/second",
    "connections_per_address=1000000",
    "tcp_connections_per_address=1000000",
)
"""Per-address limits raised for one address's 4N clients (``hearts serve --limit`` items)."""

SERVE = (
    "import sys\n"
    "from hearts.server.app import serve\n"
    "from hearts.server.limits import Limits\n"
    "serve(port=int(sys.argv[1]), db=sys.argv[2], bot_delay=0, log_level='warning',"
    " limits=Limits.from_strings(sys.argv[3:]))\n"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(url: str, body: Any) -> Any:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


class Stats:
    """What the clients of one driver saw."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        """Seconds from sending a play to receiving its broadcast (the client's own copy)."""
        self.spread: list[float] = []
        """Seconds from sending a play to its broadcast having reached every other seat."""
        self.moves = 0
        self.errors: list[str] = []
        self.retries = 0
        """Actions and hellos made again after an ``unavailable`` error ("try again")."""
        self.resyncs = 0
        self.finished = 0
        self.events: dict[str, dict[int, list[Any]]] = {}
        """Each table's accepted actions as the clients saw them: seq → the events received."""


class TableTiming:
    """The plays of one table in flight (its four clients share it): a play's spread latency
    is the time until its broadcast has reached every other seat."""

    def __init__(self, stats: Stats, seats: int = 4) -> None:
        self.stats = stats
        self.seats = seats
        self.plays: dict[int, tuple[float, set[int]]] = {}
        """The seq a play brings the table to → (when it was sent, the seats yet to get it)."""

    def sent(self, seq: int, seat: int) -> None:
        self.plays[seq] = (time.perf_counter(), set(range(self.seats)) - {seat})

    def received(self, seq: int, seat: int) -> None:
        play = self.plays.get(seq)
        if play is None:
            return
        sent, waiting = play
        waiting.discard(seat)
        if not waiting:
            self.stats.spread.append(time.perf_counter() - sent)
            del self.plays[seq]


async def client(
    ws_url: str,
    table_id: str,
    token: str,
    rng: random.Random,
    think: float,
    stats: Stats,
    ready: asyncio.Semaphore,
    go: asyncio.Event,
    timing: TableTiming | None = None,
) -> None:
    """One seat's client: take the seat, say it is ready, wait for ``go``, then play until the
    game is over, recording what it sees in ``stats`` (and the table's ``timing``)."""
    async with websockets.connect(f"{ws_url}/ws/{table_id}", max_size=2**22, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        # Every client connects and takes its seat before anyone plays: the latencies are
        # those of play, not of 4N simultaneous handshakes.
        while True:
            first = json.loads(await ws.recv())
            if first["type"] == "state":
                break
            if first["type"] == "error" and first["code"] == "unavailable":  # "try again"
                stats.retries += 1
                await asyncio.sleep(rng.uniform(0.1, 0.5))
                await ws.send(json.dumps({"type": "hello", "token": token}))
        ready.release()
        await go.wait()
        pending: dict[int, float] = {}  # seq a play was sent at → send time
        latest: dict[str, Any] = {}
        done_keys: set[tuple[str, int]] = set()
        act_task: asyncio.Task[None] | None = None

        def decision(st: dict[str, Any]) -> tuple[str, int] | None:
            v = st["view"]
            if v["game_over"]:
                return None
            if v["must_pass"]:
                return ("pass", v["round_number"])
            if v["moon_choice_pending"]:
                return ("moon", v["round_number"])
            if v["to_move"] == v["seat"] and v["legal"]:
                return ("play", st["seq"])
            return None

        async def act() -> None:
            # Acts on the latest state, after a think pause, until there is nothing to do.
            while True:
                key = decision(latest["st"])
                if key is None or key in done_keys:
                    return
                await asyncio.sleep(rng.uniform(0, 2 * think))
                st = latest["st"]
                key = decision(st)
                if key is None or key in done_keys:
                    continue
                done_keys.add(key)
                v, seq = st["view"], st["seq"]
                if key[0] == "pass":
                    msg = {"type": "pass", "seq": seq, "cards": rng.sample(v["hand"], v["pass_count"])}
                elif key[0] == "moon":
                    msg = {"type": "moon", "seq": seq, "choice": rng.choice(["add", "subtract"])}
                else:
                    msg = {"type": "play", "seq": seq, "card": rng.choice(v["legal"])}
                    if seq not in pending:  # (a play made again is timed from its first sending)
                        pending[seq] = time.perf_counter()
                        if timing is not None:
                            timing.sent(seq + 1, v["seat"])
                await ws.send(json.dumps(msg))

        async def messages() -> Any:
            yield json.dumps(first)
            async for raw in ws:
                yield raw

        last: dict[str, Any] | None = None
        async for raw in messages():
            m = json.loads(raw)
            kind = m["type"]
            if kind == "error":
                stats.errors.append(m["message"])
                if m["code"] == "unavailable" and latest:  # "try again", as a person does
                    stats.retries += 1
                    done_keys.discard(decision(latest["st"]))  # (refused: the state is still the one acted on)
                    if act_task is None or act_task.done():
                        act_task = asyncio.get_running_loop().create_task(act())
                continue
            if kind == "event":  # applied to the last state, as the browser does
                composed = None if last is None else apply_event(last, m)
                if composed is None:
                    stats.errors.append(f"an event that does not follow: {m['n']}")
                    await ws.send(json.dumps({"type": "sync"}))
                    continue
                m = composed
            elif kind != "state":
                continue
            last = m
            if m["reason"] == "resync":
                stats.resyncs += 1
            ev = m.get("event")
            if ev and m["reason"] == "event":
                stats.events.setdefault(table_id, {}).setdefault(ev["seq"], []).append(ev)
                if ev["type"] == "play" and timing is not None:
                    timing.received(ev["seq"], m["you"])
            if ev and ev["type"] == "play" and ev["seat"] == m["you"] and m["reason"] == "event":
                sent = pending.pop(ev["seq"] - 1, None)
                if sent is not None:
                    stats.latencies.append(time.perf_counter() - sent)
                    stats.moves += 1
            latest["st"] = m
            if m["view"]["game_over"]:
                if m["you"] == 0:
                    stats.finished += 1
                break
            if (act_task is None or act_task.done()) and decision(m) not in (None, *done_keys):
                act_task = asyncio.get_running_loop().create_task(act())
        if act_task is not None:
            act_task.cancel()


def check_db(db: Path, table_ids: list[str]) -> tuple[int, list[str]]:
    """Replay every table's log; returns the number of plays and the problems found."""
    con = sqlite3.connect(db)
    problems: list[str] = []
    plays = 0
    try:
        for tid in table_ids:
            config, seed = con.execute("SELECT config, seed FROM tables WHERE id = ?", (tid,)).fetchone()
            rows = con.execute("SELECT seq, data FROM actions WHERE table_id = ? ORDER BY seq", (tid,)).fetchall()
            if [seq for seq, _ in rows] != list(range(1, len(rows) + 1)):
                problems.append(f"{tid}: the log has gaps")
            actions = [json.loads(data) for _, data in rows]
            game = replay(Game(Rules.from_dict(json.loads(config)["rules"]), seed), actions)
            plays += sum(a["type"] == "play" for a in actions)
            if not game.is_over:
                problems.append(f"{tid}: the log does not replay to a finished game")
    finally:
        con.close()
    return plays, problems


async def drive(args: argparse.Namespace, port: int, db: Path) -> int:
    base = f"http://127.0.0.1:{port}"
    ws_url = f"ws://127.0.0.1:{port}"
    seats = [{"kind": "human", "name": f"P{i}"} for i in range(4)]
    tables = [post(base + "/api/tables", {"seats": seats, "target": args.target}) for _ in range(args.tables)]
    stats = Stats()
    rng = random.Random(args.seed)
    ready = asyncio.Semaphore(0)
    go = asyncio.Event()
    tasks = []
    for t in tables:
        for s in t["seats"]:
            rng_s = random.Random(rng.random())
            coro = client(ws_url, t["id"], s["token"], rng_s, args.think_ms / 1000, stats, ready, go)
            tasks.append(asyncio.ensure_future(coro))
    for _ in tasks:
        await ready.acquire()
    start = time.perf_counter()
    go.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.perf_counter() - start
    failures = [r for r in results if isinstance(r, BaseException)]
    plays, problems = check_db(db, [t["id"] for t in tables])
    lat = sorted(stats.latencies)
    p50 = statistics.median(lat) * 1000 if lat else float("nan")
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else float("nan")
    print(f"tables: {args.tables}, clients: {4 * args.tables}, target: {args.target}, think: {args.think_ms} ms")
    print(f"elapsed: {elapsed:.1f} s, plays: {stats.moves} measured, {plays} in the logs")
    print(f"latency play→broadcast: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {lat[-1] * 1000 if lat else 0:.1f} ms")
    print(f"finished games: {stats.finished}/{args.tables}; errors: {len(stats.errors)} "
          f"({stats.retries} 'unavailable', made again); resyncs: {stats.resyncs}; "
          f"client failures: {len(failures)}; log problems: {len(problems)}")
    for p in (stats.errors[:5] + [repr(f) for f in failures[:5]] + problems[:5]):
        print("  problem:", p)
    lost = plays - stats.moves
    print(f"lost moves: {max(0, lost)}")
    print(f"tables={args.tables} moves_per_s={plays / elapsed:.0f} p99_ms={p99:.1f}")
    ok = not stats.errors and not failures and not problems and stats.resyncs == 0 and lost == 0
    ok = ok and stats.finished == args.tables
    return 0 if ok else 1


def run_loop(main: Any) -> int:
    """Run the driver on uvloop when it is installed (as the server does, through uvicorn):
    the 4N clients share one process, and their own overhead is part of each latency."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)  # type: ignore[no-any-return]
    return uvloop.run(main)  # type: ignore[no-any-return]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--target", type=int, default=10, help="game target score (default 10: one or two rounds a game)")
    p.add_argument("--think-ms", type=float, default=500.0, help="mean pause before a client acts (ms; default 500)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args()
    port = args.port or free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.db"
        server = subprocess.Popen(
            [sys.executable, "-c", SERVE, str(port), f"sqlite:///{db}", *LIMITS],
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=1).read()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        print("the server did not start", file=sys.stderr)
                        return 2
                    time.sleep(0.1)
            gc.freeze()
            gc.disable()  # no collection pauses in the 4N-client driver (a short run: its cycles can wait)
            return run_loop(drive(args, port, db))
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    raise SystemExit(main())
