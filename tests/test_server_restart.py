"""Restarts no player notices (issue 41, item 3): real server processes on one PostgreSQL
database behind Debian's nginx (``deploy/nginx.conf``), real WebSocket clients.

- A starting process refuses connections until it can answer them: nginx (or a client) is
  never left waiting on a port whose process is not ready.
- nginx never marks a process dead for WebSockets: with ``max_fails`` set, a process that was
  down stays marked until one of its requests *ends*, which a WebSocket does not, so with the
  other process down too every new WebSocket got a 502 "no live upstreams".
- SIGTERM drains a process: each table it owns is handed to a live peer (which loads it before
  the lease moves), its clients are told to reconnect at once and find the table served there,
  then it exits.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import socket
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
websockets = pytest.importorskip("websockets")

from test_server_edge import FOUR, Nginx, proxied_pair, wait_connections  # noqa: E402
from test_server_support import (  # noqa: E402
    SERVE,
    TEST_LIMITS,
    Client,
    ServerProcess,
    WorkerProcess,
    db_actions,
    db_game,
    db_url,
    emptied_pg_url,
    free_port,
    http,
    module_pg_database,
    play_until,
)

pg_database = pytest.fixture(scope="module")(module_pg_database)
proxied = pytest.fixture(proxied_pair)


def restarted(server: ServerProcess) -> ServerProcess:
    """``server`` started again on its port, its database and options."""
    return ServerProcess(server.db, server.bot_delay, port=server.port, logs=server.log.parent, **server.options).start()


async def routed(proxy: Nginx, servers: list[ServerProcess], count: int, to: int) -> list[dict[str, Any]]:
    """``count`` new tables of four people whose WebSockets nginx sends to ``servers[to]``."""
    found: list[dict[str, Any]] = []
    while len(found) < count:
        status, table = http("POST", proxy.url + "/api/tables", {"seats": FOUR})
        assert status == 201, table
        client = await Client(proxy, table["id"], table["seats"][0]["token"]).connect()  # type: ignore[arg-type]
        counts = await wait_connections(servers, lambda c: sum(c) == 1)
        await client.close()
        await wait_connections(servers, lambda c: sum(c) == 0)
        if counts[to] == 1:
            found.append(table)
    return found


def test_a_starting_process_refuses_connections_until_it_can_answer(pg_database: str, tmp_path: Path) -> None:
    """From its start to its first answer, ``hearts serve`` refuses connections instead of
    holding them in the kernel's backlog: the first connection it accepts is made after its
    log says it has started (its store open)."""
    port = free_port()
    log = tmp_path / "server.log"
    options = {"port": port, "db": db_url(emptied_pg_url(pg_database)), "bot_delay": 0.0, "bot_jobs": 0,
               "limits": TEST_LIMITS}
    with open(log, "ab") as err:
        proc = subprocess.Popen([sys.executable, "-c", SERVE, json.dumps(options)], stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.01)
        started = [line for line in log.read_text().splitlines() if '"started"' in line]
        assert started, "a connection was accepted before the server had started:\n" + log.read_text()[-2000:]
    finally:
        proc.terminate()
        proc.wait(20)


def test_a_process_on_postgresql_listens_without_preparing_bots_it_does_not_run(pg_database: str, tmp_path: Path) -> None:
    """A server process on PostgreSQL runs no bot (bot workers do), so it does not load or
    compile the bots' kernel before it listens: after an upgrade (its compiled cache stale)
    that took it 15 to 40 s, and a rolling restart waited for it. The bot worker prepares the
    kernel before it takes a job."""
    url = emptied_pg_url(pg_database)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hearts", "serve", "--port", "0", "--db", url, "--bot-jobs", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("pyhearts web table on http://127.0.0.1:"), first
    finally:
        proc.terminate()
        proc.wait(20)
    worker = WorkerProcess(url, tmp_path / "worker.log").start()
    try:
        events = [line["event"] for line in worker.logs()]
        assert any(e.startswith("Bots ready") for e in events[:events.index("bot worker started")]), events
    finally:
        worker.stop()


def test_behind_nginx_a_restarted_process_takes_websockets_while_its_peer_restarts(
    proxied: tuple[Nginx, list[ServerProcess]],
) -> None:
    """Process A restarts (its WebSockets meanwhile go to B), a WebSocket is held open at A
    again, then B restarts: a new WebSocket of A's tables reaches A, not a 502."""
    proxy, servers = proxied

    async def main() -> None:
        first, held, later = await routed(proxy, servers, 3, to=0)
        servers[0].stop()
        moved = await Client(proxy, first["id"], first["seats"][0]["token"]).connect()  # type: ignore[arg-type]
        servers[0] = restarted(servers[0])
        await asyncio.sleep(5.5)  # nginx's fail_timeout: its next request to A may be a probe
        kept = await Client(proxy, held["id"], held["seats"][0]["token"]).connect()  # type: ignore[arg-type]
        servers[1].stop()
        try:
            client = await Client(proxy, later["id"], later["seats"][0]["token"]).connect()  # type: ignore[arg-type]
        except websockets.InvalidStatus as e:
            pytest.fail(f"nginx refused the WebSocket with A up: {e}; {(proxy.prefix / 'error.log').read_text()[-1500:]}")
        assert client.state is not None and client.state["view"]["seat"] == 0
        for c in (client, kept, moved):
            await c.close()

    asyncio.run(main())


def log_time(line: dict[str, Any]) -> float:
    """A log line's time (seconds since the epoch)."""
    return datetime.fromisoformat(line["time"]).timestamp()


def test_a_rolling_restart_hands_every_table_on_and_pauses_none(proxied: tuple[Nginx, list[ServerProcess]]) -> None:
    """Four tables whose WebSockets nginx sends to A are played through nginx while A is sent
    SIGTERM, started again and waited for, then B the same (a rolling restart). Before each
    process shuts down, the other owns each of the four tables (handed over: the next epoch,
    logged before its "Shutting down"; a table whose game ended meanwhile has no owner); its clients are closed with 1012 ("service restart")
    and reconnect through nginx at once; no table waits more than 2 s between two positions (a
    lease left to run out would take 3 s and more), no client gets an error, nothing is lost
    (each log replays and holds what the clients saw)."""
    proxy, servers = proxied
    rng = random.Random(41)
    stop = False

    async def main() -> tuple[list[list[Client]], list[list[int | None]], list[int], float, float]:
        nonlocal stop
        tables = await routed(proxy, servers, 4, to=0)
        seated = [[await Client(proxy, t["id"], s["token"], others=[proxy]).connect() for s in t["seats"]]  # type: ignore[arg-type]
                  for t in tables]
        play = asyncio.gather(*(play_until(cs, rng, lambda: stop, timeout=180) for cs in seated))
        for cs in seated:
            await cs[0].wait(lambda m: m["type"] == "state" and m["seq"] >= 8, timeout=30)
        marks = [len(c.messages) for cs in seated for c in cs]
        start = time.monotonic()
        for k in (0, 1):
            proc = servers[k].proc
            assert proc is not None
            proc.terminate()
            await asyncio.to_thread(proc.wait, 20)
            servers[k] = await asyncio.to_thread(restarted, servers[k])
        end = time.monotonic() + 3
        await asyncio.sleep(3)
        stop = True
        await play
        codes = [[c.close_code for c in cs] for cs in seated]
        for cs in seated:
            for c in cs:
                await c.close()
        return seated, codes, marks, start, end

    seated, codes, marks, start, end = asyncio.run(main())
    a_log, b_log = servers[0].logs(), servers[1].logs()  # (A's log holds both its runs)
    a_shutting, b_shutting = (next(log_time(line) for line in log if line["event"] == "Shutting down")
                              for log in (a_log, b_log))
    a_drained, b_drained = (next(line for line in log if line["event"] == "drained") for log in (a_log, b_log))
    assert a_drained["tables_handed"] == 4 and b_drained["tables_handed"] >= 4, (a_drained, b_drained)
    errors = [m for c, mark in zip([c for cs in seated for c in cs], marks, strict=True) for m in c.messages[mark:]
              if m["type"] == "error"]
    assert errors == []
    for cs, closed in zip(seated, codes, strict=True):
        table_id = cs[0].table_id
        owned = [(line["epoch"], log_time(line)) for log in (a_log, b_log) for line in log
                 if line["event"] == "table owned" and line["table"] == table_id]
        by_b = next(t for e, t in owned if e == 2)
        assert by_b < a_shutting, (table_id, owned, a_shutting)
        ended = [log_time(line) for log in (a_log, b_log) for line in log
                 if line["event"] == "table finished; its lease let go" and line["table"] == table_id]
        if not ended or ended[0] > b_shutting:  # (a game over has no owner: nothing to hand on)
            by_a_again = next(t for e, t in owned if e == 3)
            assert a_shutting < by_a_again < b_shutting, (table_id, owned, a_shutting, b_shutting)
        assert closed == [1012] * 4 and all(c.reconnects >= 2 for c in cs), (closed, [c.reconnects for c in cs])
        states = [(m, t) for c in cs for m, t in zip(c.messages, c.arrived, strict=True) if m["type"] == "state"]
        over = min((t for m, t in states if m["view"]["game_over"]), default=end)  # (then nothing moves on)
        arrived = sorted(t for _, t in states if start <= t <= min(end, over))
        longest = max(later - earlier for earlier, later in itertools.pairwise([start, *arrived, min(end, over)]))
        assert longest <= 2.0, (table_id, longest)
        seen = max(c.state["seq"] for c in cs if c.state is not None)
        db_game(servers[0].db, table_id)  # (raises if the log does not replay)
        assert len(db_actions(servers[0].db, table_id)) >= seen
