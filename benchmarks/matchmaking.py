"""Matchmaking benchmark of the quick match (issue 40): N simulated players arrive at random
and ask for quick matches; each plays its game to the end.

    .venv/bin/python benchmarks/matchmaking.py [--backend postgresql|sqlite] [--processes P]
        [--players N] [--seconds S] [--fill-wait W] [--target T] [--seed SEED] [--db URL]

The service: on PostgreSQL (``--backend postgresql``, the default) a fresh database on the
server ``--db`` (default ``$PYHEARTS_TEST_PG``; dropped at the end) and P server processes
(default 2, each with its own bot worker) behind Debian's nginx with ``deploy/nginx.conf``, as
``cluster_load.py`` starts them; on SQLite one process, reached directly. Bots move at once
(``bot_delay=0``); the per-address limits are raised (every client here is 127.0.0.1).

The games: the quick presets fix the target at 100 (a game of ten rounds or so). The
benchmark measures the matchmaking, so its server processes replace the presets' target by
``--target`` (default 30: two to four rounds; nothing else of the rules changes) before they
serve; ``--target 100`` plays the presets' own games.

The players (a seeded arrival log, made before the run): arrivals are a Poisson process of rate
N/S over S seconds; each asks for ``standard`` (40 %), ``omnibus`` (20 %), ``black_maria`` (15 %) or
``any`` (25 %), rated one time in four, with the fill wait ``--fill-wait`` W (``fill_after``);
one in ten leaves the queue after a wait uniform in 1..W−2 s (unless seated before), and one in
twenty blocks another player who arrives within W seconds of them. Each has a profile
(``POST /api/players``); the ratings are mixed by writing each profile's ``mu`` (uniform in
15..35, ``sigma`` 4) in the database before the run, since ratings otherwise come only from
rated games; the blocks are written in the database too (``player_marks``, as the quick-match
tests do), since the API makes a block only from a seat at a table shared with the other
(``mark``). A player connects to ``/ws/lobby/quick`` at its arrival, sends ``quick`` and
waits for ``seated`` (or, a leaver, sends ``leave`` at its time and expects ``left``); once
seated it opens its table (``/ws/{table}``, ``hello``) and plays a legal card, pass or moon
choice at once whenever it is to act, until the game is over. All clients are asyncio
coroutines with the ``websockets`` client in this process.

Measured: the wait of each seated player (from sending ``quick`` to receiving ``seated``), its
median and 95th percentile; ``tables`` made; ``bot_seats`` C, the seats bots hold in the quick
tables when their games end (a person may take a bot's seat before a round's first card in a
table's first two rounds); ``double_seated`` D, players seated twice or at two tables (told
twice, or two seats in the database); ``lost`` E, players who asked and were neither seated nor
told they left, or were seated at a table whose game did not end (or whose end they did not see).

``min_bot_seats`` M is computed offline from the same arrival log (``matchbound.py``): the
fewest bot seats of any matchmaker that follows the quick match's rules, even one that knows
every arrival to come — a table of a preset each of its people accepts, rated or not alike, at
most its players (four; three for ``black_maria``), never a blocked pair; a table starts as
soon as enough people who may share it are waiting, else a newcomer takes a bot's seat that
awaits them, at a table made at most J seconds before (J the longest this run's tables with
bots took to reach their second round's first card, measured by their clients: at least the
real time; the server lets a seat be taken only before a round's first card, so the bound's J
is the more generous); bots only for a person who waited the fill wait (W + 1 s allowed: the
matchmaker's half-second rounds), with as many of those waiting as may sit with them; a leaver
not seated by their leaving is gone. The ratings are left out (the bound may seat anyone
together). A search over every choice those rules leave (which table starts when several may,
which preset an ``any`` player takes, which bot's seat is taken) gives the exact minimum; if it
grew too large, the line would say so and M would be 0, the bound that always holds.

No matchmaker that cannot see the future can be held to M: where the rules leave a choice, the
bound takes the one that suits the arrivals that follow (tests/test_benchmarks.py shows two
logs alike until an ``any`` player completes two tables at once, where any choice made without
knowing the next arrival costs three or four bots on one of them and the bound none), and at
the end of the arrivals (the last W seconds: whoever is left waits for bots) it has arranged
the last groups to come out even. A line says, of each table made with bots, who else waited
for its rules when it was made (nobody, only blocked people, only people outside its oldest
person's rating window, or others seated in that round) and how many were made after the last
arrival.

The line before the last is ``fill_wait_s=W min_bot_seats=M``; the last is exactly
``backend=postgresql|sqlite processes=P players=N tables=T wait_p50_s=A wait_p95_s=B bot_seats=C double_seated=D lost=E``.
A progress bar (one step a player done) goes to standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets
from cluster_load import DEFAULT_PG, drop_database, fresh_database, start_proxy, wait_until_up
from matchbound import min_bot_seats
from server_load import LIMITS, free_port, post, run_loop

from hearts.arena import Progress
from hearts.server.wire import apply_event

PRESET_WEIGHTS = {"standard": 0.40, "omnibus": 0.20, "black_maria": 0.15, "any": 0.25}
SIZES = {"standard": 4, "omnibus": 4, "black_maria": 3}
RATED = 0.25
LEAVERS = 0.10
BLOCKERS = 0.05
QUICK_LIMITS = (*LIMITS, "joins_rate=1000000/minute")
"""``server_load``'s raised limits, and the profiles' (``POST /api/players`` counts as a join)."""
SLACK = 1.0
"""Seconds past the fill wait a person may be seated (the matchmaker's rounds are 0.5 s apart)."""

SERVE = (
    "import dataclasses, sys\n"
    "from hearts.server import quick\n"
    "from hearts.server.app import serve\n"
    "from hearts.server.limits import Limits\n"
    "target = int(sys.argv[3])\n"
    "for name, p in list(quick.PRESETS.items()):\n"
    "    quick.PRESETS[name] = quick.Preset(p.label, dataclasses.replace(p.rules, target=target))\n"
    "serve(port=int(sys.argv[1]), db=sys.argv[2], bot_delay=0, log_level='warning', bot_jobs=2,"
    " forwarded_allow_ips='127.0.0.1', limits=Limits.from_strings(sys.argv[4:]))\n"
)


@dataclass(frozen=True)
class Arrival:
    """One player of the arrival log."""

    index: int
    at: float
    """Seconds from the start."""
    preset: str
    rated: bool
    mu: float
    leave: float | None
    """Seconds from the start when a leaver sends ``leave`` (``None``: stays)."""


def arrival_log(players: int, seconds: float, fill_wait: int, seed: int) -> tuple[list[Arrival], list[tuple[int, int]]]:
    """The players in order of arrival (a Poisson process of rate players/seconds, conditioned
    on the window: uniform arrival times) and the blocks (blocker, blocked)."""
    rng = random.Random(seed)
    times = sorted(rng.uniform(0, seconds) for _ in range(players))
    out = []
    for i, at in enumerate(times):
        preset = rng.choices(list(PRESET_WEIGHTS), weights=list(PRESET_WEIGHTS.values()))[0]
        leave = at + rng.uniform(1, max(1.0, fill_wait - 2)) if rng.random() < LEAVERS else None
        out.append(Arrival(i, at, preset, rng.random() < RATED, rng.uniform(15, 35), leave))
    blocks = []
    for a in out:
        near = [b.index for b in out if b.index != a.index and abs(b.at - a.at) <= fill_wait]
        if near and rng.random() < BLOCKERS:
            blocks.append((a.index, rng.choice(near)))
    return out, blocks


@dataclass
class Record:
    """What one player's client saw."""

    asked: float | None = None
    seated: list[dict[str, Any]] = field(default_factory=list)
    seated_at: float | None = None
    left: bool = False
    left_at: float | None = None
    errors: list[str] = field(default_factory=list)
    retries: int = 0
    """``unavailable`` answers to the request, each asked again half a second later."""
    finished: bool = False
    second_round_card: float | None = None
    """When the client first saw a card of the table's second round (or the game's end)."""


def decide(state: dict[str, Any]) -> tuple[tuple[str, int], dict[str, Any]] | None:
    """The seat's action now, at once: the first legal card, the first cards to pass, or a moon
    choice (with a key: one sending per position)."""
    v, seq = state["view"], state["seq"]
    if v["game_over"]:
        return None
    if v["must_pass"]:
        return ("pass", v["round_number"]), {"type": "pass", "seq": seq, "cards": v["hand"][: v["pass_count"]]}
    if v["moon_choice_pending"]:
        return ("moon", v["round_number"]), {"type": "moon", "seq": seq, "choice": "add"}
    if v["to_move"] == v["seat"] and v["legal"]:
        return ("play", seq), {"type": "play", "seq": seq, "card": v["legal"][0]}
    return None


def past_second_rounds_first_card(view: dict[str, Any]) -> bool:
    full = 52 if len(view["hand_sizes"]) == 4 else 51
    return bool(view["game_over"]) or view["round_number"] >= 2 or (
        view["round_number"] == 1 and sum(view["hand_sizes"]) < full)


async def play(ws_base: str, table: str, token: str, rec: Record) -> None:
    """Play the seat to the game's end, each action at once."""
    async with websockets.connect(f"{ws_base}/ws/{table}", max_size=2**22, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        last: dict[str, Any] | None = None
        done: set[tuple[str, int]] = set()
        async for raw in ws:
            m = json.loads(raw)
            if m["type"] == "event":
                composed = None if last is None else apply_event(last, m)
                if composed is None:
                    await ws.send(json.dumps({"type": "sync"}))
                    continue
                m = composed
            elif m["type"] == "error":
                if m["code"] == "unavailable" and last is not None:  # try again, after a pause
                    await asyncio.sleep(0.2)
                    done.clear()
                    m = last
                elif m["code"] == "unavailable":
                    await asyncio.sleep(0.2)
                    await ws.send(json.dumps({"type": "hello", "token": token}))
                    continue
                else:
                    rec.errors.append(f"{m['code']}: {m['message']}")
                    continue
            elif m["type"] != "state":
                continue
            last = m
            if rec.second_round_card is None and past_second_rounds_first_card(m["view"]):
                rec.second_round_card = time.time()
            if m["view"]["game_over"]:
                rec.finished = True
                return
            action = decide(m)
            if action is not None and action[0] not in done:
                done.add(action[0])
                await ws.send(json.dumps(action[1]))


async def player(arrival: Arrival, key: str, fill_wait: int, ws_base: str, start: float, rec: Record,
                 progress: Progress, timeout: float) -> None:
    """One player: arrive, ask, wait (a leaver leaves), play the game if seated."""
    await asyncio.sleep(max(0.0, start + arrival.at - time.time()))
    try:
        async with websockets.connect(f"{ws_base}/ws/lobby/quick", compression=None) as ws:
            rec.asked = time.time()
            ask = json.dumps({"type": "quick", "key": key, "preset": arrival.preset, "rated": arrival.rated,
                              "fill_after": fill_wait})
            await ws.send(ask)

            async def leave_later(at: float) -> None:
                await asyncio.sleep(max(0.0, start + at - time.time()))
                await ws.send(json.dumps({"type": "leave"}))

            leaving = asyncio.ensure_future(leave_later(arrival.leave)) if arrival.leave is not None else None
            try:
                async with asyncio.timeout(fill_wait + timeout):
                    async for raw in ws:
                        m = json.loads(raw)
                        if m["type"] == "seated":
                            rec.seated.append(m)
                            rec.seated_at = time.time()
                            break
                        if m["type"] == "left":
                            rec.left = True
                            rec.left_at = time.time()
                            break
                        if m["type"] == "error" and m["code"] == "unavailable":  # (as the protocol says: again)
                            rec.retries += 1
                            await asyncio.sleep(0.5)
                            await ws.send(ask)
                        elif m["type"] == "error":
                            rec.errors.append(f"{m['code']}: {m['message']}")
                            break
            finally:
                if leaving is not None:
                    leaving.cancel()
            if rec.seated:  # anything more said on this socket (a second seat) is counted too
                try:
                    async with asyncio.timeout(0.2):
                        async for raw in ws:
                            if json.loads(raw)["type"] == "seated":
                                rec.seated.append(json.loads(raw))
                except TimeoutError:
                    pass
        if rec.seated:
            s = rec.seated[0]
            async with asyncio.timeout(timeout):
                await play(ws_base, s["table"], s["token"], rec)
    except Exception as e:  # counted as lost below
        rec.errors.append(repr(e))
    finally:
        progress.advance(1)


@dataclass
class Db:
    """Reads and writes of the benchmark on the service's database."""

    backend: str
    url: str
    path: Path | None = None

    def run(self, query: str, rows: Sequence[tuple[Any, ...]] = ()) -> list[tuple[Any, ...]]:
        if self.backend == "sqlite":
            assert self.path is not None
            con = sqlite3.connect(self.path)
            try:
                if rows:
                    con.executemany(query, rows)
                    con.commit()
                    return []
                return con.execute(query).fetchall()
            finally:
                con.close()
        import psycopg

        with psycopg.connect(self.url) as pg:
            query = query.replace("?", "%s")
            if rows:
                with pg.cursor() as cur:
                    cur.executemany(query, rows)
                return []
            return pg.execute(query).fetchall()

    def epoch(self, column: str) -> str:
        return f"extract(epoch from {column})" if self.backend == "postgresql" else f"(({column}) - 2440587.5) * 86400.0"

    def now(self) -> str:
        return "now()" if self.backend == "postgresql" else "julianday('now')"


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] if ordered else float("nan")


def why_bots(log: Sequence[Arrival], blocks: Sequence[tuple[int, int]], records: Sequence[Record],
             created: dict[str, float], made_with_bots: Counter[str]) -> str:
    """Why each table made with bots had them: who else waited, at its making, for rules it
    could share (rated alike, the table's preset or ``any``) — nobody, only people blocked with
    someone at the table, only people outside its oldest person's rating window (2 + 0.5 per
    second waited), or someone else (a round's timing: they were seated in that round too)."""
    from hearts.server.quick import match_window

    blocked = {frozenset(b) for b in blocks}
    people: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        if r.seated and "just started" not in r.seated[0]["message"]:
            people.setdefault(r.seated[0]["table"], []).append(i)

    def until(i: int) -> float:  # when player i stopped waiting
        r = records[i]
        if r.seated:
            t = r.seated[0]["table"]
            return created.get(t, math.inf) if "just started" not in r.seated[0]["message"] else (r.seated_at or 0) - 1
        return r.left_at if r.left_at is not None else math.inf

    why: Counter[str] = Counter()
    last = max((r.asked for r in records if r.asked is not None), default=math.inf)
    for table, bots in made_with_bots.items():
        if not bots or table not in created or table not in people:
            continue
        made, here = created[table], people[table]
        preset = records[here[0]].seated[0]["preset"]
        oldest = min(here, key=lambda i: records[i].asked or 0)
        others = [i for i, a in enumerate(log) if i not in here and a.rated == log[oldest].rated
                  and a.preset in (preset, "any") and (records[i].asked or math.inf) <= made < until(i)]
        free = [i for i in others if not any(frozenset((i, h)) in blocked for h in here)]
        window = match_window(made - (records[oldest].asked or made))
        near = [i for i in free if abs(log[i].mu - log[oldest].mu) <= window]
        why["nobody else waited for those rules" if not others else "only blocked ones" if not free
            else "only outside the rating window" if not near else "others in the same round"] += 1
        why["(made after the last arrival)"] += made > last
    return "tables made with bots, by who else waited then: " + (", ".join(f"{k} {v}" for k, v in why.items()) or "none")


def start_service(args: argparse.Namespace, url: str, folder: Path) -> tuple[list[subprocess.Popen[bytes]], int]:
    """The server processes (and nginx in front on PostgreSQL): the processes and the port the
    players reach."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    procs: list[subprocess.Popen[bytes]] = []
    ports = [free_port() for _ in range(args.processes)]
    for port in ports:
        procs.append(subprocess.Popen([sys.executable, "-c", SERVE, str(port), url, str(args.target), *QUICK_LIMITS],
                                      stdout=subprocess.DEVNULL, env=env))
    try:
        for port, proc in zip(ports, procs, strict=True):
            wait_until_up(port, proc)
        if args.backend == "postgresql":
            nginx, port = start_proxy(ports, folder)
            procs.append(nginx)
            return procs, port
    except BaseException:
        stop(procs)
        raise
    return procs, ports[0]


def stop(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def run(args: argparse.Namespace, db: Db, folder: Path) -> int:
    log, blocks = arrival_log(args.players, args.seconds, args.fill_wait, args.seed)
    procs, port = start_service(args, db.url, folder)
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    records = [Record() for _ in log]
    try:
        profiles = [post(base + "/api/players", {"name": f"P{a.index}"}) for a in log]
        db.run("UPDATE players SET mu = ?, sigma = 4.0 WHERE id = ?",
               [(a.mu, p["id"]) for a, p in zip(log, profiles, strict=True)])
        db.run(f"INSERT INTO player_marks (player_id, other_id, kind, created) VALUES (?, ?, 'block', {db.now()})",
               [(profiles[a]["id"], profiles[b]["id"]) for a, b in blocks])
        progress = Progress(len(log), "player", "bar" if sys.stderr.isatty() else "lines", name="matchmaking")
        progress.begin(f"{len(log)} players over {args.seconds:g} s, fill wait {args.fill_wait} s")

        async def everyone() -> None:
            start = time.time() + 1.0
            await asyncio.gather(*(player(a, p["key"], args.fill_wait, ws_base, start, r, progress, args.timeout)
                                   for a, p, r in zip(log, profiles, records, strict=True)))

        began = time.perf_counter()
        run_loop(everyone())
        elapsed = time.perf_counter() - began
        progress.end()
        quick_tables = db.run(f"SELECT id, {db.epoch('created')}, finished FROM tables")
        seat_rows = db.run("SELECT table_id, seat, kind, player_id FROM seats")
    finally:
        stop(procs)
    by_id = {p["id"]: i for i, p in enumerate(profiles)}
    created = {str(t): float(c) for t, c, _ in quick_tables}
    finished = {str(t) for t, _, f in quick_tables if f}
    bot_seats = sum(kind == "bot" for _, _, kind, _ in seat_rows)
    seats_of = Counter(by_id[p] for _, _, _, p in seat_rows if p in by_id)
    double = {i for i, r in enumerate(records) if len(r.seated) > 1 or seats_of[i] > 1}
    lost = {i for i, r in enumerate(records)
            if not (r.left and not r.seated) and not (r.seated and r.finished and r.seated[0]["table"] in finished)}
    made_with_bots: Counter[str] = Counter()  # bots at each table when it was made (a seat taken later aside)
    for r in records:
        for s in r.seated:
            if "just started" not in s["message"]:
                made_with_bots[s["table"]] = s["bots"]
    joined = sum("just started" in s["message"] for r in records for s in r.seated)
    reach = [r.second_round_card - created[r.seated[0]["table"]] for r in records
             if r.seated and r.second_round_card is not None and made_with_bots.get(r.seated[0]["table"], 1) > 0
             and r.seated[0]["table"] in created]
    j = max(reach, default=0.0)
    try:
        minimum: int | None = min_bot_seats(log, blocks, args.fill_wait + SLACK, j, SIZES)
    except RuntimeError as e:
        print(f"the bound's search was too large ({e}): M is 0, the bound that always holds")
        minimum = None
    waits = [r.seated_at - r.asked for r in records if r.seated and r.seated_at is not None and r.asked is not None]
    leavers = sum(a.leave is not None for a in log)
    print(f"backend: {args.backend}, processes: {args.processes}, players: {len(log)} over {args.seconds:g} s "
          f"(seed {args.seed}), fill wait: {args.fill_wait} s, target: {args.target}; elapsed {elapsed:.1f} s")
    print(f"asked for: {dict(Counter(a.preset for a in log))}, rated: {sum(a.rated for a in log)}, "
          f"leavers: {leavers} ({sum(r.left and not r.seated for r in records)} told they left, "
          f"the others seated first), blocks: {len(blocks)}")
    print(f"tables: {len(quick_tables)} ({len(finished)} finished), bot seats at the tables' making: "
          f"{sum(made_with_bots.values())}, taken by people later: {joined}, at the end: {bot_seats}")
    print(why_bots(log, blocks, records, created, made_with_bots))
    print(f"waits (s): max {max(waits, default=0):.1f}, seated: {len(waits)}; J (made → second round's first "
          f"card, longest with bots): {j:.1f} s, the bound's time to take a bot's seat")
    print(f"requests answered unavailable (asked again): {sum(r.retries for r in records)}")
    problems = [f"P{i}: {e}" for i, r in enumerate(records) for e in r.errors]
    for p in problems[:10]:
        print("  problem:", p)
    print(f"fill_wait_s={args.fill_wait} min_bot_seats={minimum or 0}")
    print(f"backend={args.backend} processes={args.processes} players={len(log)} tables={len(quick_tables)} "
          f"wait_p50_s={percentile(waits, 0.5):.1f} wait_p95_s={percentile(waits, 0.95):.1f} "
          f"bot_seats={bot_seats} double_seated={len(double)} lost={len(lost)}")
    return 0 if not double and not lost else 1


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    p.add_argument("--processes", type=int, default=None, help="server processes (default 2; SQLite: 1)")
    p.add_argument("--players", type=int, default=400)
    p.add_argument("--seconds", type=float, default=120.0, help="the arrival window (default 120)")
    p.add_argument("--fill-wait", type=int, default=20, help="the players' fill_after (3 to 300; default 20)")
    p.add_argument("--target", type=int, default=30, help="the quick games' target (default 30; the presets': 100)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--db", default=os.environ.get("PYHEARTS_TEST_PG") or DEFAULT_PG,
                   help="the PostgreSQL server to make the benchmark's database on")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds a player's game may take at most")
    args = p.parse_args(argv)
    if args.processes is None:
        args.processes = 2 if args.backend == "postgresql" else 1
    if args.backend == "sqlite" and args.processes != 1:
        p.error("SQLite is served by one process")
    if not 3 <= args.fill_wait <= 300 or args.players < 1 or args.seconds <= 0:
        p.error("--fill-wait is 3 to 300, --players and --seconds positive")
    if args.backend == "postgresql" and not (shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK)):
        p.error("PostgreSQL runs behind Debian's nginx (apt-get install nginx)")
    with tempfile.TemporaryDirectory(prefix="pyhearts-matchmaking-") as tmp:
        if args.backend == "sqlite":
            path = Path(tmp) / "quick.db"
            return run(args, Db("sqlite", f"sqlite:///{path}", path), Path(tmp))
        url = fresh_database(args.db)
        try:
            return run(args, Db("postgresql", url), Path(tmp))
        finally:
            drop_database(args.db, url)


if __name__ == "__main__":
    raise SystemExit(main())
