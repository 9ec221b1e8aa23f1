"""Fault benchmark of the online service: kills and an outage under play, measured as a client sees them.

    .venv/bin/python benchmarks/faults.py [--processes P] [--tables N] [--bot-tables B] [--outage S] [--freeze S]
                                          [--idle I] [--seed S]
                                          [--stages owner,worker,outage,freeze,restart,idle] [--logs DIR]

On a private PostgreSQL cluster of its own (``tests/private_pg.py``: initdb in a temporary
folder) it starts ``P`` server processes (three by default) behind Debian's nginx (``deploy/nginx.conf``, routing
``/ws/{id}`` by table id), two bot workers (``hearts bot-worker``), ``N`` tables of four people
and ``B`` tables of one person and three bots, every client connected through nginx (a client
whose connection is lost reconnects through nginx and takes its seat again, as the browser
does). The people act at random after a short pause. Then, one after another:

1. **a server is killed** (SIGKILL): ``owner_failover_s`` is the longest time, over the people's
   tables, from the kill to the table's next accepted action (its clients reconnect and nginx
   sends them to another process); the server is started again;
2. **a bot worker is killed** (SIGKILL): ``worker_failover_s`` is the longest time, over the bot
   tables whose person's view had a bot to play at the kill, from the kill to that table's next
   position (the other worker takes the killed one's jobs when their short leases, the
   workers' default, run out);
3. **the database is stopped** for ``--outage`` seconds (15 by default), then started again:
   ``outage_answer_s`` is the longest time an action sent during the outage waited for its
   answer (an ``unavailable`` error, or its state);
4. **the database is frozen** for ``--freeze`` seconds (15 by default: every process of the
   cluster SIGSTOPped, so connections are accepted and nothing answers), then let go on
   (SIGCONT): ``freeze_answer_s`` is the longest time an action sent during the freeze waited
   for its answer, or a request (``/healthz``, ``GET /api/tables``, asked of each server
   process directly every half second meanwhile) for its status;
5. **a rolling restart**, as an upgrade makes it: each server process in turn is stopped
   (SIGTERM), started again and waited for (``/healthz``): ``restart_pause_s`` is the longest
   time, over the people's tables, in which no client saw a new position, from the first SIGTERM
   until three seconds after the last process is healthy (the handshakes nginx refused are
   printed);
6. **a server holding idle tables is killed** (SIGKILL): ``I`` idle tables (1,000 by default:
   four people each, made in the database, never played, nobody connected) are opened
   (``GET /api/tables/{id}``) at the process that owns the most of the people's tables, which
   claims each; then the process is killed: ``idle_failover_s`` is the longest time, over the people's tables it
   owned, from the kill to the table's next accepted action (the other processes take the
   tables in play first; the idle ones are left to be taken when opened).

Then the play stops and, after two seconds, every table's log (read from the database) is
replayed: ``stale_tables`` counts tables where a client's last state is behind the log,
``lost`` the actions a client saw accepted that the log does not hold, ``duplicated`` the
positions where two clients saw different actions (or a log that does not replay).

The last line is exactly ``owner_failover_s=A worker_failover_s=B outage_answer_s=C
freeze_answer_s=D restart_pause_s=E idle_failover_s=F stale_tables=G lost=H duplicated=I``.
Only loopback; every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the tests' private cluster and server processes
sys.path.insert(0, str(ROOT))  # deploy/: the proxy's configuration and runner

from private_pg import PrivateCluster  # noqa: E402
from test_server_outage import timed  # noqa: E402
from test_server_support import ServerProcess, WorkerProcess, free_port, http  # noqa: E402

from deploy import nginx_conf  # noqa: E402
from hearts.actions import from_dict  # noqa: E402
from hearts.errors import RecordError  # noqa: E402
from hearts.game import Game  # noqa: E402
from hearts.record import replay  # noqa: E402
from hearts.rules import Rules  # noqa: E402
from hearts.server.botworker import DEFAULT_LEASE  # noqa: E402
from hearts.server.storage import hash_token  # noqa: E402
from hearts.server.storage.postgres import PostgresStorage  # noqa: E402
from hearts.server.tables import public_event  # noqa: E402
from hearts.server.wire import apply_event  # noqa: E402

THINK = (0.02, 0.15)
"""Seconds a person pauses before acting (uniform)."""
BOT_DELAY = 0.5
"""Seconds each bot move waits (the tables' setting): a bot table mostly waits for a bot, whose
job a worker holds meanwhile, so killing a worker catches jobs it holds."""
STAGES = ("owner", "worker", "outage", "freeze", "restart", "idle")
"""The faults, in the order they are made (``--stages`` picks some; their figures only are printed)."""
SETTLE = 4.0
"""Seconds the people stop acting before the logs are compared (the bots finish their turns)."""


@dataclass
class Seat:
    """One seat's client through the proxy: what it saw, and the answers it waited for."""

    ws_url: str
    table_id: str
    token: str
    rng: random.Random
    state: dict[str, Any] | None = None
    last: dict[str, Any] | None = None
    """The last state received or made by an event: the next event applies to it."""
    events: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The actions it saw accepted, by ``seq``."""
    answers: list[tuple[float, float]] = field(default_factory=list)
    """(sent, answered) times (time.monotonic) of each action it sent."""
    seen_at: dict[int, float] = field(default_factory=dict)
    """When it first saw each position (time.monotonic), by ``seq``."""
    refused: int = 0
    """Handshakes the proxy refused (a 502 "no live upstreams" among them)."""
    quiet: bool = False
    """No more actions (it still reads)."""
    history: list[tuple[float, str]] = field(default_factory=list)
    """(time.monotonic, what) of each connection lost or refused, and each error answered: what a
    pause is made of."""
    stop: bool = False

    async def run(self) -> None:
        """Connect (again after a lost connection), take the seat, act when it is this seat's
        turn, until :attr:`stop`."""
        while not self.stop:
            try:
                async with websockets.connect(f"{self.ws_url}/ws/{self.table_id}", max_size=2**22) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    await self._play(ws)
            except websockets.InvalidStatus as e:
                self.refused += 1
                self.history.append((time.monotonic(), f"refused {e.response.status_code}"))
                await asyncio.sleep(0.1)
            except websockets.ConnectionClosed as e:
                self.history.append((time.monotonic(), f"closed {e.rcvd.code if e.rcvd else '-'} {e.rcvd.reason if e.rcvd else ''}"))
                await asyncio.sleep(0.1)
            except (OSError, websockets.InvalidHandshake) as e:
                self.history.append((time.monotonic(), f"failed {type(e).__name__}"))
                await asyncio.sleep(0.1)

    async def _play(self, ws: Any) -> None:
        sent: float | None = None
        while not self.stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.2)
            except asyncio.TimeoutError:
                raw = None
            if raw is not None:
                msg = json.loads(raw)
                if msg["type"] == "event":  # applied to the last state, as the browser does
                    composed = None if self.last is None else apply_event(self.last, msg)
                    if composed is None:
                        await ws.send(json.dumps({"type": "sync"}))
                        continue
                    msg = composed
                if msg["type"] == "error":
                    self.history.append((time.monotonic(), f"error {msg.get('code')}"))
                if msg["type"] in ("state", "error") and sent is not None:
                    self.answers.append((sent, time.monotonic()))
                    sent = None
                if msg["type"] == "state":
                    self.last = msg
                    if msg.get("event") is not None:
                        self.events[msg["seq"]] = msg["event"]
                    self.seen_at.setdefault(msg["seq"], time.monotonic())
                    if self.state is None or msg["seq"] >= self.state["seq"]:
                        self.state = msg
            if not self.quiet and sent is None and self.state is not None and (action := self._action()) is not None:
                await asyncio.sleep(self.rng.uniform(*THINK))
                sent = time.monotonic()
                await ws.send(json.dumps(action))

    def _action(self) -> dict[str, Any] | None:
        assert self.state is not None
        v, seq = self.state["view"], self.state["seq"]
        if v["game_over"]:
            return None
        if v["must_pass"]:
            return {"type": "pass", "seq": seq, "cards": self.rng.sample(v["hand"], v["pass_count"])}
        if v["moon_choice_pending"]:
            return {"type": "moon", "seq": seq, "choice": self.rng.choice(["add", "subtract"])}
        if v["to_move"] == v["seat"] and v["legal"]:
            return {"type": "play", "seq": seq, "card": self.rng.choice(v["legal"])}
        return None


@dataclass
class Table:
    id: str
    seats: list[Seat]
    bots: bool

    def waits_for_a_bot(self) -> bool:
        """Whether its person's latest state has a bot to act (a bot job is queued or held)."""
        st = self.seats[0].state
        if st is None or st["view"]["game_over"]:
            return False
        v = st["view"]
        return not v["must_pass"] and not v["moon_choice_pending"] and v["to_move"] not in (None, v["seat"])

    def over(self) -> bool:
        """Whether its game is over (as its first client last saw it)."""
        st = self.seats[0].state
        return st is not None and bool(st["view"]["game_over"])

    @property
    def seq(self) -> int:
        """The latest position any of its clients saw."""
        return max((s.state["seq"] for s in self.seats if s.state is not None), default=0)


async def wait_progress(tables: list[Table], since: float, timeout: float) -> float:
    """The longest time, over ``tables``, from ``since`` to a position past the one each had
    then (seconds; ``timeout`` where one did not move on)."""
    start_seq = {t.id: t.seq for t in tables}
    moved: dict[str, float] = {}
    deadline = since + timeout
    while time.monotonic() < deadline and len(moved) < len(tables):
        for t in tables:
            if t.id not in moved and (t.seq > start_seq[t.id] or t.seats[0].state is None
                                      or t.seats[0].state["view"]["game_over"]):
                moved[t.id] = time.monotonic()
        await asyncio.sleep(0.05)
    return max((moved.get(t.id, deadline) - since for t in tables), default=0.0)


def check_logs(url: str, tables: list[Table]) -> tuple[int, int, int]:
    """Stale tables, lost actions and duplicated ones (see the module), from the database."""
    stale = lost = duplicated = 0
    with psycopg.connect(url) as pg:
        for t in tables:
            config, seed, deals = pg.execute("SELECT config, seed, deals FROM tables WHERE id = %s", (t.id,)).fetchone()
            logged = dict(pg.execute("SELECT seq, data FROM actions WHERE table_id = %s ORDER BY seq", (t.id,)).fetchall())
            try:
                replay(Game(Rules.from_dict(config["rules"]), seed, deals=deals), [logged[s] for s in sorted(logged)])
            except RecordError:
                duplicated += 1
            if any(s.state is None or s.state["seq"] < max(logged, default=0) for s in t.seats):
                stale += 1
                seen = [None if s.state is None else s.state["seq"] for s in t.seats]
                print(f"  stale: table {t.id} ({'bots' if t.bots else 'people'}): its log at {max(logged, default=0)}, "
                      f"its clients at {seen}", flush=True)
            for seq in {q for s in t.seats for q in s.events}:
                seen = [s.events[seq] for s in t.seats if seq in s.events]
                if any(e != seen[0] for e in seen):
                    duplicated += 1
                if seq not in logged or public_event(from_dict(logged[seq]), seq) != seen[0]:
                    lost += 1
    return stale, lost, duplicated


async def scenario(args: argparse.Namespace, cluster: PrivateCluster, folder: Path) -> tuple[dict[str, float], list[Table]]:
    """Start the service, play, make the three faults; the figures and the tables played."""
    servers = [ServerProcess(cluster.url, BOT_DELAY, logs=folder, forwarded_allow_ips="127.0.0.1").start()
               for _ in range(args.processes)]
    workers = [WorkerProcess(cluster.url, folder / f"worker{k}.log", lease=DEFAULT_LEASE).start() for k in range(2)]
    port = free_port()
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    config = nginx_conf.render(f"127.0.0.1:{port}", [f"127.0.0.1:{s.port}" for s in servers], per_address=65_535)
    proxy = nginx_conf.start(binary, folder / "nginx", config, f"http://127.0.0.1:{port}/healthz")
    rng = random.Random(args.seed)
    tables: list[Table] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        for k in range(args.tables + args.bot_tables):
            tables.append(make_table(f"127.0.0.1:{port}", k >= args.tables, rng))
        tasks = [asyncio.get_running_loop().create_task(s.run()) for t in tables for s in t.seats]
        await asyncio.sleep(5)  # steady play
        people, bot_tables = [t for t in tables if not t.bots], [t for t in tables if t.bots]
        figures: dict[str, float] = {}
        if "owner" in args.stages:
            print("killing a server process (SIGKILL)", flush=True)
            killed = time.monotonic()
            servers[0].kill9()
            figures["owner"] = await wait_progress(people, killed, 60)
            servers[0] = ServerProcess(cluster.url, BOT_DELAY, port=servers[0].port, logs=folder,
                                       forwarded_allow_ips="127.0.0.1").start()
            await asyncio.sleep(3)
        if "worker" in args.stages:
            print("killing a bot worker (SIGKILL)", flush=True)
            killed = time.monotonic()
            workers[0].kill9()
            waiting = [t for t in bot_tables if t.waits_for_a_bot()]
            figures["worker"] = await wait_progress(waiting, killed, 60)
            print(f"  {len(waiting)} of {len(bot_tables)} bot tables had a bot to play at the kill", flush=True)
            await asyncio.sleep(3)
        if "outage" in args.stages:
            print(f"stopping the database for {args.outage:.0f} s", flush=True)
            down = time.monotonic()
            cluster.stop()
            await asyncio.sleep(args.outage)
            cluster.start()
            back = time.monotonic()
            await wait_progress(tables, back, 30)
            figures["outage"] = longest_answer(tables, down, back)
            await asyncio.sleep(3)
        if "freeze" in args.stages:
            figures["freeze"] = await frozen(args.freeze, cluster, servers, tables)
            await asyncio.sleep(3)
        if "restart" in args.stages:
            figures["restart"] = await rolling_restart(cluster.url, servers, folder, people)
            await asyncio.sleep(3)
        if "idle" in args.stages:
            figures["idle"] = await idle_failover(args.idle, cluster.url, servers, people, rng)
        for t in tables:
            for s in t.seats:
                s.quiet = True
        await asyncio.sleep(SETTLE)
        return figures, tables
    finally:
        for t in tables:
            for s in t.seats:
                s.stop = True
        await asyncio.gather(*tasks, return_exceptions=True)
        proxy.terminate()
        proxy.wait(10)
        for w in workers:
            w.stop()
        for s in servers:
            s.stop()


async def rolling_restart(url: str, servers: list[ServerProcess], folder: Path, people: list[Table]) -> float:
    """Restart every server process in turn, as an upgrade does: SIGTERM it, wait for it to exit,
    start it again and wait for its ``/healthz``. The longest pause, over the people's tables,
    between two positions from the first SIGTERM until three seconds after the last process is
    healthy (the handshakes the proxy refused meanwhile, and each restart's times, printed)."""
    print("rolling restart: each server process in turn stopped (SIGTERM) and started again", flush=True)
    refused = sum(s.refused for t in people for s in t.seats)
    start = time.monotonic()
    for k, server in enumerate(servers):
        stopping = time.monotonic()
        await asyncio.to_thread(server.stop)
        stopped = time.monotonic()
        again = ServerProcess(url, BOT_DELAY, port=server.port, logs=folder, forwarded_allow_ips="127.0.0.1")
        servers[k] = await asyncio.to_thread(again.start)
        print(f"  process {k}: exited {stopped - stopping:.1f} s after SIGTERM, healthy "
              f"{time.monotonic() - stopped:.1f} s after its start", flush=True)
    end = time.monotonic() + 3
    await asyncio.sleep(3)
    pauses = {t.id: longest_pause(t, start, end) for t in people if not t.over()}
    slow = sum(b - a > 1.5 for a, b in pauses.values())
    print(f"  {slow} of {len(pauses)} tables paused more than 1.5 s (the longest pauses: "
          f"{', '.join(f'{b - a:.1f}' for a, b in sorted(pauses.values(), key=lambda p: p[1] - p[0])[-5:])} s); "
          f"{sum(s.refused for t in people for s in t.seats) - refused} handshakes refused by the proxy", flush=True)
    for t in people:
        if t.id in pauses and (pause := pauses[t.id])[1] - pause[0] > 1.5:
            said = sorted((at, k, what) for k, s in enumerate(t.seats) for at, what in s.history if pause[0] - 1 <= at <= pause[1])
            print(f"  table {t.id} paused from {pause[0] - start:.1f} to {pause[1] - start:.1f} s: "
                  + ("; ".join(f"{at - start:.1f} s seat {k} {what}" for at, k, what in said) or "its clients saw nothing"),
                  flush=True)
    return max((b - a for a, b in pauses.values()), default=0.0)


def longest_pause(table: Table, start: float, end: float) -> tuple[float, float]:
    """The longest span between ``start`` and ``end`` in which no client of ``table`` saw a new position."""
    first: dict[int, float] = {}
    for s in table.seats:
        for seq, at in s.seen_at.items():
            first[seq] = min(at, first.get(seq, at))
    times = [start, *sorted(at for at in first.values() if start < at < end), end]
    return max(itertools.pairwise(times), key=lambda span: span[1] - span[0])


def longest_answer(tables: list[Table], since: float, until: float) -> float:
    """The longest time an action sent between ``since`` and ``until`` waited for its answer."""
    return max((answered - sent for t in tables for s in t.seats for sent, answered in s.answers
                if since <= sent <= until), default=0.0)


async def frozen(seconds: float, cluster: PrivateCluster, servers: list[ServerProcess], tables: list[Table]) -> float:
    """Freeze the database for ``seconds`` (SIGSTOP) while the people play and the server
    processes are asked for ``/healthz`` and the tables' listing every half second: the
    longest wait for an answer, actions' and requests' (printed apart)."""
    print(f"freezing the database for {seconds:.0f} s (SIGSTOP)", flush=True)
    requests: list[tuple[str, int, float]] = []
    down = time.monotonic()
    cluster.freeze()
    try:
        while time.monotonic() - down < seconds:
            for s in servers:
                for path in ("/healthz", "/api/tables"):
                    status, _, took = await asyncio.to_thread(timed, "GET", s.url + path)
                    requests.append((path, status, took))
            await asyncio.sleep(0.5)
    finally:
        cluster.thaw()
    back = time.monotonic()
    await wait_progress(tables, back, 30)
    actions = longest_answer(tables, down, back)
    answered = sum(1 for t in tables for s in t.seats for sent, _ in s.answers if down <= sent <= back)
    slowest = max(requests, key=lambda r: r[2], default=("-", 0, 0.0))
    statuses = sorted({status for _, status, _ in requests})
    print(f"  {answered} actions sent while frozen, the longest answered in {actions:.2f} s; {len(requests)} "
          f"requests (statuses {statuses}), the longest {slowest[0]} in {slowest[2]:.2f} s", flush=True)
    return max(actions, slowest[2])


async def idle_failover(count: int, url: str, servers: list[ServerProcess], people: list[Table],
                        rng: random.Random) -> float:
    """Make ``count`` idle tables, have the process owning the most of ``people`` open (and
    claim) them, kill it: the longest time, over the people's tables it owned, from the kill
    to the table's next position."""
    print(f"making {count} idle tables in the database", flush=True)
    store = await PostgresStorage.open(url)
    try:
        ids = [f"idle{k:05d}" for k in range(count)]
        for table_id in ids:
            seats = [("human", f"P{s}", None, hash_token(secrets.token_urlsafe(12))) for s in range(4)]
            await store.log.create_table(table_id, {"rules": Rules().to_dict()}, rng.randrange(2**48), seats)
    finally:
        await store.close()
    with psycopg.connect(url) as pg:
        owners = dict(pg.execute("SELECT table_id, owner FROM table_leases WHERE until > now()").fetchall())
    processes = [current_process(s) for s in servers]
    victim = max(range(len(servers)), key=lambda k: sum(owners.get(t.id) == processes[k] for t in people))
    held = [t for t in people if owners.get(t.id) == processes[victim]]
    started = time.monotonic()

    def open_all(part: list[str]) -> None:
        for table_id in part:
            http("GET", f"{servers[victim].url}/api/tables/{table_id}")

    await asyncio.gather(*(asyncio.to_thread(open_all, ids[k::4]) for k in range(4)))
    with psycopg.connect(url) as pg:
        idle_held = pg.execute("SELECT count(*) FROM table_leases WHERE owner = %s AND until > now() "
                               "AND table_id LIKE 'idle%%'", (processes[victim],)).fetchall()[0][0]
    print(f"  process {victim} opened them in {time.monotonic() - started:.1f} s and holds {idle_held} idle tables "
          f"and {len(held)} of the people's; killing it (SIGKILL)", flush=True)
    await asyncio.sleep(5)  # (idle: nothing happens at them for a while)
    killed = time.monotonic()
    servers[victim].kill9()
    took = await wait_progress(held, killed, 60)
    with psycopg.connect(url) as pg:
        taken = pg.execute("SELECT count(*) FROM table_leases WHERE until > now() AND table_id LIKE 'idle%%'").fetchall()[0][0]
    print(f"  its tables in play moved on within {took:.2f} s; {taken} idle tables taken over since", flush=True)
    return took


def current_process(server: ServerProcess) -> str:
    """The id the server process's leases carry, from its log since its last start (a process
    started again on the same port appends to the same log)."""
    lines = server.logs()
    last_start = max((k for k, line in enumerate(lines) if line["event"] == "started"), default=0)
    return next((line["process"] for line in lines[last_start:] if line["event"] == "table owned"), "")


def make_table(address: str, bots: bool, rng: random.Random) -> Table:
    """A table made through the proxy: four people, or one person and three ``easy`` bots."""
    seats = [{"kind": "human", "name": f"P{i}"} for i in range(1 if bots else 4)]
    seats += [{"kind": "bot", "level": "easy"}] * (3 if bots else 0)
    status, made = http("POST", f"http://{address}/api/tables", {"seats": seats, "target": 200})
    assert status == 201, made
    people = [Seat(f"ws://{address}", made["id"], s["token"], random.Random(rng.random()))
              for s in made["seats"] if s.get("token")]
    return Table(made["id"], people, bots)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--processes", type=int, default=3, help="server processes behind nginx (default 3)")
    p.add_argument("--tables", type=int, default=24, help="tables of four people (default 24)")
    p.add_argument("--bot-tables", type=int, default=8, help="tables of a person and three bots (default 8)")
    p.add_argument("--outage", type=float, default=15.0, help="seconds the database is stopped (default 15)")
    p.add_argument("--freeze", type=float, default=15.0, help="seconds the database is frozen (default 15)")
    p.add_argument("--idle", type=int, default=1000, help="idle tables the last killed server holds (default 1000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stages", type=lambda text: text.split(","), default=list(STAGES),
                   help=f"the stages to make, in their order (default {','.join(STAGES)})")
    p.add_argument("--logs", help="a folder to keep the processes' logs in (default: a temporary one, removed)")
    args = p.parse_args()
    if not (shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK)):
        p.error("needs Debian's nginx (apt-get install nginx)")
    with tempfile.TemporaryDirectory(prefix="pyhearts-faults-") as name, PrivateCluster(Path(name)) as cluster:
        folder = Path(args.logs or name)
        folder.mkdir(parents=True, exist_ok=True)
        figures, tables = asyncio.run(scenario(args, cluster, folder))
        stale, lost, duplicated = check_logs(cluster.url, tables)
    names = {"owner": "owner_failover_s", "worker": "worker_failover_s", "outage": "outage_answer_s",
             "freeze": "freeze_answer_s", "restart": "restart_pause_s", "idle": "idle_failover_s"}
    print(*(f"{names[k]}={v:.1f}" for k, v in figures.items()), f"stale_tables={stale} lost={lost} duplicated={duplicated}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
