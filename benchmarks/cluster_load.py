"""Load benchmark of the web table as one service of several server processes on PostgreSQL.

    .venv/bin/python benchmarks/cluster_load.py [--processes P] [--tables N] [--drivers K]
        [--client node|python] [--spread seats|tables] [--proxy nginx|none] [--floor|--no-floor] [--target T]
        [--think-ms MS] [--db URL] [--timeout S]

Makes a fresh database on the PostgreSQL server ``--db`` (default ``$PYHEARTS_TEST_PG``, else
``postgresql://postgres@127.0.0.1:5432/postgres``; dropped at the end), starts P server
processes on it (:func:`hearts.server.app.serve` on P loopback ports, as on P machines: bots
off, the per-address limits raised — every client here is 127.0.0.1 — warnings-only logs),
creates N tables of four human seats through the HTTP API (table i on process i mod P) and
connects four WebSocket clients to each: by default (``--spread tables``) all four to process
i mod P, as the recommended deployment's proxy does, routing ``/ws/{id}`` by table id (the
other processes have nothing to do for it);
``--spread seats``: seat s of table i to process (i + s) mod P, as connections spread at
random (``hearts serve --workers N``) come: a client that reaches a process other than its
table's owner is relayed to the owner over a link between the two (:mod:`hearts.server.relay`). The clients run in K driver processes, a table's four in the same one: by default
Node.js ones (``load_client.mjs``, the ``ws`` package: ``npm install --prefix .venv/npm
--no-save ws@8``), which cost a fraction of the CPU of the Python ones (``--client python``:
those of :mod:`server_load`, on uvloop) — the clients share the machine with what is measured.
Each plays a random legal move (or pass, or moon choice) when it is its turn, after a pause
uniform in 0..2×``--think-ms`` (0–1 s by default); an action refused ``unavailable`` ("try
again") is made again after another pause, as a person does, and timed from its first sending.

The latency of a play is the time from sending it to the moment its broadcast has reached
every other seat of its table (one driver process: one clock). Afterwards every table's log
(read from PostgreSQL) must replay through the engine to a finished game; ``lost`` counts the
logged actions that a seat never saw, and the actions a seat saw that the log does not hold.
Only loopback; the run is bounded by ``--timeout``.

By default (``--proxy nginx``) every client connects to Debian's nginx, run with
``deploy/nginx.conf`` in front of the processes (the deployment docs/deployment.md describes), which
routes ``/ws/{id}`` by a consistent hash of the table id: a table's four seats reach one process.
``--proxy none`` connects the clients to the processes themselves (``--spread tables``: table i's
to process i mod P; ``--spread seats``, which implies it: seat by seat).

**The floor** (``--floor``, the default with ``--spread tables``): then, in the same run, the
same drivers' clients play N tables against P processes of ``floor_server.py`` behind the same
proxy (the same ``deploy/nginx.conf``) on the same database: the least any server must do per
play — read the WebSocket message, append the action's row through the project's own batched
log (``hearts.server.storage.postgres.ActionLog``: the same psycopg statement and batches),
broadcast one small JSON event to the table's four sockets — with no rules and no views (each
seat's pass first, as in our rounds, then a fixed turn order, one legal card, 52 plays a round;
each floor table plays as many rounds as one of ours did; the clients are unchanged). The
floor's latency and its processes' CPU per action are measured as ours are, its logs checked
for gaps and lost actions, and ours are divided by them: how far the real server is above the
floor on this machine today.

The last line is exactly
``backend=postgresql proxy=nginx|none processes=P tables=N moves_per_s=X p99_ms=Y lost=L``,
followed with the floor by `` cpu_ms=C floor_p99_ms=F floor_cpu_ms=G p99_vs_floor=R
cpu_vs_floor=S``: ``C`` and ``G`` the server processes' CPU milliseconds per action (ours, the
floor's), ``R = Y / F`` and ``S = C / G``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import multiprocessing
import os
import random
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
from floor_server import PASSES as FLOOR_PASSES
from floor_server import PLAYS as FLOOR_PLAYS
from psycopg import sql
from server_load import LIMITS, Stats, TableTiming, client, free_port, post, run_loop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # deploy/: the proxy's configuration
from deploy import nginx_conf
from hearts.actions import from_dict
from hearts.errors import RecordError
from hearts.game import Game
from hearts.record import replay
from hearts.rules import Rules
from hearts.server.storage.postgres import PostgresStorage
from hearts.server.tables import public_event

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres"
HERE = Path(__file__).resolve().parent

NODE_CLIENT = HERE / "load_client.mjs"
FLOOR_SERVER = HERE / "floor_server.py"
NODE_MODULES = HERE.parent / ".venv" / "npm" / "node_modules"
"""Where the Node.js clients find the ``ws`` package."""

SERVE = (
    "import sys\n"
    "from hearts.server.app import serve\n"
    "from hearts.server.limits import Limits\n"
    "serve(port=int(sys.argv[1]), db=sys.argv[2], bot_delay=0, log_level='warning', bot_jobs=0,"
    " forwarded_allow_ips='127.0.0.1', limits=Limits.from_strings(sys.argv[3:]))\n"
)


@dataclass(frozen=True)
class TableSpec:
    """A table for a driver: its id and, for each seat, the port of its process and its token."""

    id: str
    seats: tuple[tuple[int, str], ...]


def driver(tables: Sequence[TableSpec], think: float, seed: int, go: Event, out: Connection) -> None:
    """A driver process: the clients of ``tables``; says ``ready`` once all are seated, plays
    from ``go``, then sends what it saw (:class:`Stats`'s parts)."""
    gc.freeze()
    gc.disable()  # no collection pauses in the driver (a bounded run: its cycles can wait)

    async def main() -> None:
        stats = Stats()
        rng = random.Random(seed)
        ready = asyncio.Semaphore(0)
        start = asyncio.Event()
        tasks = []
        for t in tables:
            timing = TableTiming(stats, len(t.seats))
            for port, token in t.seats:
                coro = client(f"ws://127.0.0.1:{port}", t.id, token, random.Random(rng.random()), think, stats,
                              ready, start, timing)
                tasks.append(asyncio.ensure_future(coro))
        for _ in tasks:
            await ready.acquire()
        out.send("ready")
        await asyncio.to_thread(go.wait)
        cpu = cpu_used()
        start.set()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        failures = [repr(r) for r in results if isinstance(r, BaseException)]
        out.send({
            "cpu": cpu_used() - cpu, "spread": stats.spread, "moves": stats.moves, "errors": stats.errors, "retries": stats.retries,
            "resyncs": stats.resyncs,
            "finished": stats.finished, "events": stats.events, "failures": failures,
        })

    run_loop(main())


def cpu_used() -> float:
    """The CPU seconds this process has used (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class PythonDriver:
    """A driver process of Python clients (:func:`driver`)."""

    def __init__(self, tables: Sequence[TableSpec], think: float, seed: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._go = context.Event()
        self._pipe, theirs = context.Pipe(duplex=False)
        self.process = context.Process(target=driver, args=(tables, think, seed, self._go, theirs))
        self.process.start()

    def wait_ready(self, timeout: float) -> None:
        if not self._pipe.poll(timeout) or self._pipe.recv() != "ready":
            raise RuntimeError("a driver did not get its clients seated")

    def go(self) -> None:
        self._go.set()

    def result(self, timeout: float) -> dict[str, Any]:
        if not self._pipe.poll(timeout):
            raise RuntimeError("the games did not end in time")
        got: dict[str, Any] = self._pipe.recv()
        self.process.join(30)
        return got


class NodeDriver:
    """A driver process of Node.js clients (``load_client.mjs``)."""

    def __init__(self, tables: Sequence[TableSpec], think: float, seed: int) -> None:
        self._dir = tempfile.TemporaryDirectory()
        spec, self._out = Path(self._dir.name) / "spec.json", Path(self._dir.name) / "result.json"
        spec.write_text(json.dumps({"tables": [dataclasses.asdict(t) for t in tables], "think": think, "seed": seed}))
        env = {**os.environ, "NODE_PATH": str(NODE_MODULES)}
        self.process = subprocess.Popen(["node", str(NODE_CLIENT), str(spec), str(self._out)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def wait_ready(self, timeout: float) -> None:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # (bounded: the driver exits on a failure)
        if line.strip() != "ready":
            raise RuntimeError(f"a Node.js driver did not get its clients seated: {line!r}")

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def result(self, timeout: float) -> dict[str, Any]:
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise RuntimeError("the games did not end in time") from None
        got: dict[str, Any] = json.loads(self._out.read_text())
        got["events"] = {tid: {int(seq): seen for seq, seen in by_seq.items()} for tid, by_seq in got["events"].items()}
        self._dir.cleanup()
        return got


def node_available() -> bool:
    """Whether Node.js and its ``ws`` package are installed (``.venv/npm``)."""
    return shutil.which("node") is not None and (NODE_MODULES / "ws").is_dir()


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system; 0 where /proc is missing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_seconds() -> dict[int, float]:
    """The CPU time each ``postgres`` process of this machine has used so far, by process id
    (:func:`postgres_since` tells what they used between two such readings)."""
    used: dict[int, float] = {}
    for pid in filter(str.isdigit, os.listdir("/proc") if os.path.isdir("/proc") else []):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "postgres":
                    continue
        except OSError:
            continue
        used[int(pid)] = cpu_seconds(int(pid))
    return used


def postgres_since(before: dict[int, float]) -> float:
    """The CPU seconds the ``postgres`` processes used since the reading ``before``, counted
    for those that still run (one that exited meanwhile, such as another client's backend, is
    left out rather than counted as negative)."""
    return sum(max(0.0, now - before.get(pid, 0.0)) for pid, now in postgres_seconds().items())


def machine_seconds() -> float:
    """The CPU time the whole machine has been busy (all cores; 0 where /proc is missing)."""
    try:
        with open("/proc/stat") as f:
            user, nice, system, _idle, _iowait, irq, softirq, *_ = map(int, f.readline().split()[1:])
    except OSError:
        return 0.0
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def check_logs(url: str, tables: list[str], events: dict[str, dict[int, list[Any]]]) -> tuple[list[int], int, list[str]]:
    """Replay every table's log from the database: the plays logged at each table, the actions
    lost (logged but not seen by every seat, or seen but not logged) and the problems found."""
    plays: list[int] = []
    lost = 0
    problems: list[str] = []
    with psycopg.connect(url) as pg:
        for tid in tables:
            row = pg.execute("SELECT config, seed, deals FROM tables WHERE id = %s", (tid,)).fetchone()
            assert row is not None
            config, seed, deals = row
            logged = pg.execute("SELECT seq, data FROM actions WHERE table_id = %s ORDER BY seq", (tid,)).fetchall()
            if [seq for seq, _ in logged] != list(range(1, len(logged) + 1)):
                problems.append(f"{tid}: the log has gaps")
            try:
                game = replay(Game(Rules.from_dict(config["rules"]), seed, deals=deals), [d for _, d in logged])
            except RecordError as e:
                problems.append(f"{tid}: the log does not replay: {e}")
                continue
            if not game.is_over:
                problems.append(f"{tid}: the log does not replay to a finished game")
            plays.append(sum(d["type"] == "play" for _, d in logged))
            lost += lost_actions(logged, events.get(tid, {}))
    return plays, lost, problems


def lost_actions(logged: list[tuple[int, Any]], seen: dict[int, list[Any]]) -> int:
    """The actions of a table's log (``(seq, data)`` rows) that not every seat saw, and those
    seen (``seen``: by ``seq``, what each seat saw) that the log does not hold."""
    lost = sum(seen.get(seq, []) != [public_event(from_dict(data), seq)] * 4 for seq, data in logged)
    return lost + len(set(seen) - {seq for seq, _ in logged})


def check_floor_logs(url: str, tables: list[str], rounds: list[int],
                     events: dict[str, dict[int, list[Any]]]) -> tuple[int, list[str]]:
    """The floor's logs (``floor_server.py``; each table's ``rounds``): the actions lost
    (:func:`lost_actions`), and the problems found (a gap, a game not played to its end, a round
    not begun with the passes)."""
    lost = 0
    problems: list[str] = []
    with psycopg.connect(url) as pg:
        size = FLOOR_PASSES + FLOOR_PLAYS
        for tid, k in zip(tables, rounds, strict=True):
            logged = pg.execute("SELECT seq, data FROM actions WHERE table_id = %s ORDER BY seq", (tid,)).fetchall()
            if [seq for seq, _ in logged] != list(range(1, k * size + 1)):
                problems.append(f"{tid}: the floor's log has gaps or does not end")
            for start in range(0, len(logged), size):
                if sorted(d["seat"] for _, d in logged[start:start + FLOOR_PASSES] if d["type"] == "pass") != [0, 1, 2, 3]:
                    problems.append(f"{tid}: the floor's round at seq {start + 1} does not start with each seat's pass")
            lost += lost_actions(logged, events.get(tid, {}))
    return lost, problems


def fresh_database(server: str) -> str:
    """A new database on the PostgreSQL server ``server``: its URL."""
    name = f"pyhearts_bench_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return urlsplit(server)._replace(path=f"/{name}").geturl()


def drop_database(server: str, url: str) -> None:
    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def wait_until_up(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).read()
            return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"the server on port {port} did not start") from None
            time.sleep(0.1)


def start_proxy(ports: list[int], folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Debian's nginx with deploy/nginx.conf in front of the processes on ``ports`` (one
    address's 4N clients allowed): the process and the port it listens on."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    port = free_port()
    config = nginx_conf.render(f"127.0.0.1:{port}", [f"127.0.0.1:{p}" for p in ports], per_address=65_535)
    return nginx_conf.start(binary, folder, config, f"http://127.0.0.1:{port}/healthz"), port


def server_latency(ports: list[int], name: str = "hearts_move_broadcast_seconds") -> str:
    """A histogram of the servers' ``/metrics`` (by default ``hearts_move_broadcast_seconds``, an
    action's arrival to its broadcast queued), summed over the processes: the bucket bounds of
    its median and 99th percentile."""
    buckets: dict[float, float] = {}
    for port in ports:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
        for line in text.splitlines():
            if line.startswith(name + "_bucket"):
                text_le = line.split('le="', 1)[1].split('"', 1)[0]
                le = float("inf") if text_le == "+Inf" else float(text_le)
                buckets[le] = buckets.get(le, 0.0) + float(line.rsplit(" ", 1)[1])
    if not buckets or not buckets[float("inf")]:
        return "none"
    total = buckets[float("inf")]

    def bound(q: float) -> str:
        le = min(b for b, n in buckets.items() if n >= q * total)
        return f"≤ {le * 1000:g} ms"
    return f"p50 {bound(0.5)}, p99 {bound(0.99)} ({total:.0f} actions)"


def seat_ports(args: argparse.Namespace, i: int, ports: list[int], proxy: int | None) -> list[int]:
    """The port each seat of table ``i`` connects to: the proxy's, or a process's."""
    if proxy is not None:
        return [proxy] * 4
    return [ports[(i + (s if args.spread == "seats" else 0)) % len(ports)] for s in range(4)]


@dataclass
class Phase:
    """What one set of server processes did while the clients played their tables."""

    specs: list[TableSpec]
    results: list[dict[str, Any]]
    """The drivers' results."""
    elapsed: float
    cpu: dict[str, float]
    """CPU seconds while playing: ``servers``, ``clients``, ``postgres``, ``machine``."""
    inside: tuple[str, str] | None
    """The servers' own latency histograms (:func:`server_latency`); ``None`` for the floor."""

    @property
    def spread(self) -> list[float]:
        """Each play's latency (s, sorted): from its sending to its broadcast on every other seat."""
        return sorted(x for r in self.results for x in r["spread"])

    @property
    def p99_ms(self) -> float:
        spread = self.spread
        return spread[min(len(spread) - 1, int(len(spread) * 0.99))] * 1000 if spread else float("nan")

    @property
    def actions(self) -> int:
        """The actions the clients saw (each numbered position of each table once)."""
        return sum(len(seen) for r in self.results for seen in r["events"].values())

    def cpu_ms(self, part: str = "servers") -> float:
        """A part's CPU milliseconds per action."""
        return self.cpu[part] / self.actions * 1000 if self.actions else float("nan")

    @property
    def events(self) -> dict[str, dict[int, list[Any]]]:
        return {tid: seen for r in self.results for tid, seen in r["events"].items()}


def play_phase(args: argparse.Namespace, command: list[str], tables: Callable[[list[int], int | None], list[TableSpec]],
               metrics: bool) -> Phase:
    """Start ``args.processes`` servers (``command``, each given its port as ``{port}``) behind
    the proxy ``args.proxy``, have ``tables(ports, proxy_port)`` make the tables, play them with
    the drivers' clients, and stop everything: what was measured (``metrics``: the servers'
    ``/metrics`` histograms too)."""
    ports = [free_port() for _ in range(args.processes)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    servers = []
    nginx: subprocess.Popen[bytes] | None = None
    folder = tempfile.TemporaryDirectory(prefix="pyhearts-nginx-")
    try:
        for port in ports:
            servers.append(subprocess.Popen([a.format(port=port) for a in command], stdout=subprocess.DEVNULL, env=env))
        for port, proc in zip(ports, servers, strict=True):
            wait_until_up(port, proc)
        proxy = None
        if args.proxy == "nginx":
            nginx, proxy = start_proxy(ports, Path(folder.name))
        specs = tables(ports, proxy)
        kind = NodeDriver if args.client == "node" else PythonDriver
        drivers = [kind(specs[k :: args.drivers], args.think_ms / 1000, args.seed + k) for k in range(args.drivers)]
        for d in drivers:
            d.wait_ready(300)
        cpu_before = [cpu_seconds(proc.pid) for proc in servers], postgres_seconds(), machine_seconds()
        start = time.perf_counter()
        for d in drivers:
            d.go()
        results = [d.result(max(1.0, args.timeout - (time.perf_counter() - start))) for d in drivers]
        elapsed = time.perf_counter() - start
        cpu = {"servers": sum(cpu_seconds(proc.pid) for proc in servers) - sum(cpu_before[0]),
               "clients": sum(r["cpu"] for r in results), "postgres": postgres_since(cpu_before[1]),
               "machine": machine_seconds() - cpu_before[2]}
        inside = (server_latency(ports), server_latency(ports, "hearts_log_append_seconds")) if metrics else None
    finally:
        for proc in [*servers, *([nginx] if nginx is not None else [])]:
            proc.terminate()
        for proc in [*servers, *([nginx] if nginx is not None else [])]:
            proc.wait(30)
        folder.cleanup()
    return Phase(specs, results, elapsed, cpu, inside)


def service_tables(args: argparse.Namespace) -> Callable[[list[int], int | None], list[TableSpec]]:
    """The tables of the service: made through its HTTP API (table i on process i mod P, or
    through the proxy), four human seats each."""

    def make(ports: list[int], proxy: int | None) -> list[TableSpec]:
        seats = [{"kind": "human", "name": f"P{i}"} for i in range(4)]
        specs = []
        for i in range(args.tables):
            made = post(f"http://127.0.0.1:{proxy or ports[i % len(ports)]}/api/tables",
                        {"seats": seats, "target": args.target})
            specs.append(TableSpec(made["id"], tuple(
                zip(seat_ports(args, i, ports, proxy), (seat["token"] for seat in made["seats"]), strict=True)
            )))
        return specs
    return make


def floor_tables(args: argparse.Namespace, url: str, rounds: list[int]) -> Callable[[list[int], int | None], list[TableSpec]]:
    """The floor's tables, one for each of ours, each to play the ``rounds`` it played (in its
    id, ``floor_server.py``): their rows made in the database beforehand (the log's rows refer
    to them), the seat numbers as tokens."""
    ids = [f"floor-{secrets.token_hex(6)}-{k}" for k in rounds]

    async def create() -> None:
        store = await PostgresStorage.open(url)
        try:
            for tid in ids:
                await store.log.create_table(tid, {"rules": {}}, 0, [("human", f"P{s}", None, None) for s in range(4)])
        finally:
            await store.close()

    def make(ports: list[int], proxy: int | None) -> list[TableSpec]:
        asyncio.run(create())
        return [TableSpec(tid, tuple(zip(seat_ports(args, i, ports, proxy), map(str, range(4)), strict=True)))
                for i, tid in enumerate(ids)]
    return make


def report_service(args: argparse.Namespace, ours: Phase, plays: int, lost: int, problems: list[str]) -> bool:
    """Print what the service did (:func:`run`); whether it played every game with nothing lost."""
    results, spread, elapsed, cpu = ours.results, ours.spread, ours.elapsed, ours.cpu
    errors = [e for r in results for e in r["errors"]]
    failures = [f for r in results for f in r["failures"]]
    resyncs = sum(r["resyncs"] for r in results)
    finished = sum(r["finished"] for r in results)
    p50 = statistics.median(spread) * 1000 if spread else float("nan")
    print(f"processes: {args.processes}, tables: {args.tables} (spread by {args.spread}, proxy: {args.proxy}), "
          f"clients: {4 * args.tables} "
          f"in {args.drivers} {args.client} drivers, target: {args.target}, think: {args.think_ms} ms")
    print(f"elapsed: {elapsed:.1f} s, plays: {plays} in the logs, {len(spread)} measured on every other seat")
    timed = sorted((t, x) for r in results for t, x in zip(r.get("sent", []), r["spread"], strict=False))
    if timed:  # the tail over the run (the Node.js clients say when each play was sent)
        step = max(1, len(timed) // 10)
        parts = [sorted(x for _, x in timed[i:i + step]) for i in range(0, len(timed), step)]
        print("p99 by tenth of the plays, in the order sent (ms): "
              + " ".join(f"{p[int(len(p) * 0.99)] * 1000:.0f}" for p in parts if p))
    lag = sorted(x for r in results for x in r.get("lag", []))
    if lag:
        print(f"client drivers' event-loop lag: p50 {statistics.median(lag) * 1000:.1f} ms, "
              f"p99 {lag[int(len(lag) * 0.99)] * 1000:.1f} ms, max {lag[-1] * 1000:.1f} ms")
    print(f"latency play→broadcast on every other seat: p50 {p50:.1f} ms, p99 {ours.p99_ms:.1f} ms, "
          f"max {spread[-1] * 1000 if spread else 0:.1f} ms")
    if ours.inside is not None:
        print(f"inside the servers, arrival→broadcast queued (/metrics buckets): {ours.inside[0]}; "
              f"of which the log's commit: {ours.inside[1]}")
    retries = sum(r["retries"] for r in results)
    print(f"finished games: {finished}/{args.tables}; errors: {len(errors)} ({retries} 'unavailable', made again); "
          f"resyncs: {resyncs}; client failures: {len(failures)}; log problems: {len(problems)}")
    print(f"CPU seconds while playing: servers {cpu['servers']:.1f}, client drivers {cpu['clients']:.1f}, "
          f"postgres {cpu['postgres']:.1f}; the whole machine {cpu['machine']:.1f} of {elapsed * (os.cpu_count() or 1):.1f}")
    if ours.actions:
        print(f"CPU ms per action ({ours.actions} actions): " + ", ".join(f"{k} {ours.cpu_ms(k):.2f}" for k in cpu))
    for problem in errors[:5] + failures[:5] + problems[:5]:
        print("  problem:", problem)
    return not errors and not failures and not problems and lost == 0 and finished == args.tables


def report_floor(args: argparse.Namespace, floor: Phase, lost: int, problems: list[str]) -> bool:
    """Print what the floor servers did; whether they played every game with nothing lost."""
    spread, results = floor.spread, floor.results
    errors = [e for r in results for e in r["errors"]] + [f for r in results for f in r["failures"]]
    finished = sum(r["finished"] for r in results)
    p50 = statistics.median(spread) * 1000 if spread else float("nan")
    print(f"floor (benchmarks/floor_server.py, {args.processes} processes, proxy: {args.proxy}, the same clients; "
          f"{FLOOR_PASSES} passes and {FLOOR_PLAYS} plays a round, as many rounds as ours): elapsed {floor.elapsed:.1f} s, "
          f"latency p50 {p50:.1f} ms, "
          f"p99 {floor.p99_ms:.1f} ms, max {spread[-1] * 1000 if spread else 0:.1f} ms; finished games: "
          f"{finished}/{args.tables}; errors: {len(errors)}; lost: {lost}; log problems: {len(problems)}")
    print(f"floor CPU ms per action ({floor.actions} actions): "
          + ", ".join(f"{k} {floor.cpu_ms(k):.2f}" for k in floor.cpu))
    for problem in errors[:5] + problems[:5]:
        print("  floor problem:", problem)
    return not errors and not problems and lost == 0 and finished == args.tables


def run(args: argparse.Namespace, url: str) -> int:
    serve = [sys.executable, "-c", SERVE, "{port}", url, *LIMITS]
    ours = play_phase(args, serve, service_tables(args), metrics=True)
    played, lost, problems = check_logs(url, [s.id for s in ours.specs], ours.events)
    plays = sum(played)
    ok = report_service(args, ours, plays, lost, problems)
    line = (f"backend=postgresql proxy={args.proxy} processes={args.processes} tables={args.tables} "
            f"moves_per_s={plays / ours.elapsed:.0f} p99_ms={ours.p99_ms:.1f} lost={lost}")
    if args.floor:
        rounds = [max(1, n // FLOOR_PLAYS) for n in played]
        floor = play_phase(args, [sys.executable, str(FLOOR_SERVER), "{port}", url], floor_tables(args, url, rounds),
                           metrics=False)
        ok = report_floor(args, floor, *check_floor_logs(url, [s.id for s in floor.specs], rounds, floor.events)) and ok
        line += (f" cpu_ms={ours.cpu_ms():.2f} floor_p99_ms={floor.p99_ms:.1f} floor_cpu_ms={floor.cpu_ms():.2f}"
                 f" p99_vs_floor={ours.p99_ms / floor.p99_ms:.2f} cpu_vs_floor={ours.cpu_ms() / floor.cpu_ms():.2f}")
    print(line)
    return 0 if ok else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--processes", type=int, default=2, help="server processes (default 2)")
    p.add_argument("--tables", type=int, default=1000)
    p.add_argument("--drivers", type=int, default=2, help="client driver processes (default 2)")
    p.add_argument("--spread", choices=["seats", "tables"], default="tables",
                   help="tables (default): all of table i on process i mod P (a proxy routing by table id); "
                        "seats: seat s of table i on process (i + s) mod P, every table served by two processes")
    p.add_argument("--proxy", choices=["nginx", "none"], default=None,
                   help="nginx (the default with --spread tables): every client connects to Debian's nginx with "
                        "deploy/nginx.conf, which routes /ws/{id} by table id; none: each client to its process")
    p.add_argument("--client", choices=["node", "python"], default="node" if node_available() else "python",
                   help="the clients: Node.js (default, when node and .venv/npm's ws are installed) or Python")
    p.add_argument("--target", type=int, default=10, help="game target score (default 10: one or two rounds a game)")
    p.add_argument("--think-ms", type=float, default=500.0, help="mean pause before a client acts (ms; default 500)")
    p.add_argument("--floor", action=argparse.BooleanOptionalAction, default=None,
                   help="then play as many tables against the floor (floor_server.py) on as many processes behind "
                        "the same proxy, and compare (default: on, but with --spread seats, which it cannot serve)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--db", default=os.environ.get("PYHEARTS_TEST_PG") or DEFAULT_PG,
                   help="the PostgreSQL server to make the benchmark's database on")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds the games may take at most (default 900)")
    args = p.parse_args()
    if min(args.processes, args.tables, args.drivers) < 1:
        p.error("--processes, --tables and --drivers must be 1 or more")
    if args.proxy is None:
        args.proxy = "none" if args.spread == "seats" else "nginx"
    if args.proxy == "nginx" and args.spread == "seats":
        p.error("--spread seats places each connection on a process itself: it needs --proxy none")
    if args.floor is None:
        args.floor = args.spread == "tables"
    if args.floor and args.spread == "seats":
        p.error("the floor server serves a table's four seats on one process: --floor needs --spread tables")
    if args.proxy == "nginx" and not (shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK)):
        p.error("--proxy nginx needs Debian's nginx (apt-get install nginx), or --proxy none")
    url = fresh_database(args.db)
    try:
        return run(args, url)
    finally:
        drop_database(args.db, url)


if __name__ == "__main__":
    raise SystemExit(main())
