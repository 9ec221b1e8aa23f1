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
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
websockets = pytest.importorskip("websockets")

from test_server_edge import FOUR, Nginx, nginx_binary, wait_connections  # noqa: E402
from test_server_support import (  # noqa: E402
    SERVE,
    TEST_LIMITS,
    Client,
    ServerProcess,
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


@pytest.fixture
def proxied(pg_database: str, tmp_path: Path) -> Iterator[tuple[Nginx, list[ServerProcess]]]:
    """nginx in front of two server processes on one emptied PostgreSQL database."""
    binary = nginx_binary()
    url = emptied_pg_url(pg_database)
    servers = [ServerProcess(url, logs=tmp_path, forwarded_allow_ips="127.0.0.1").start() for _ in range(2)]
    proxy = Nginx(tmp_path / "nginx", servers)
    try:
        yield proxy.start(binary), servers
    finally:
        proxy.stop()
        for s in servers:
            s.stop()


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
    log says it has started (its bots' kernel prepared, its store open)."""
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


def test_sigterm_hands_every_table_to_the_live_peer_before_the_process_stops(
    proxied: tuple[Nginx, list[ServerProcess]],
) -> None:
    """Four tables whose WebSockets nginx sends to A are played through nginx; A is sent
    SIGTERM. Before it shuts down, B owns each of the four (handed over: the next epoch, logged
    before A's "Shutting down"); A's clients are closed with 1012 ("service restart") and
    reconnect through nginx to B; no table waits more than 2 s between two positions (a lease
    left to run out would take 3 s and more), nothing is lost (each log replays and holds what
    the clients saw)."""
    proxy, servers = proxied
    a, b = servers
    rng = random.Random(41)
    stop = False

    async def main() -> tuple[list[list[Client]], list[list[int | None]], float, float]:
        nonlocal stop
        tables = await routed(proxy, servers, 4, to=0)
        seated = [[await Client(proxy, t["id"], s["token"], others=[proxy]).connect() for s in t["seats"]]  # type: ignore[arg-type]
                  for t in tables]
        play = asyncio.gather(*(play_until(cs, rng, lambda: stop, timeout=120) for cs in seated))
        for cs in seated:
            await cs[0].wait(lambda m: m["type"] == "state" and m["seq"] >= 8, timeout=30)
        assert a.proc is not None
        sigterm = time.monotonic()
        a.proc.terminate()
        await asyncio.to_thread(a.proc.wait, 20)
        exited = time.monotonic()
        await asyncio.sleep(3)
        stop = True
        await play
        codes = [[c.close_code for c in cs] for cs in seated]
        for cs in seated:
            for c in cs:
                await c.close()
        return seated, codes, sigterm, exited

    seated, codes, sigterm, exited = asyncio.run(main())
    a_log, b_log = a.logs(), b.logs()
    shutting = next(log_time(line) for line in a_log if line["event"] == "Shutting down")
    [drained] = [line for line in a_log if line["event"] == "drained"]
    assert drained["tables_handed"] == 4, drained
    for cs, closed in zip(seated, codes, strict=True):
        table_id = cs[0].table_id
        owned = [line for line in b_log if line["event"] == "table owned" and line["table"] == table_id]
        assert owned and owned[0]["epoch"] == 2 and log_time(owned[0]) < shutting, (table_id, owned, shutting)
        assert closed == [1012] * 4 and all(c.reconnects >= 1 for c in cs), (closed, [c.reconnects for c in cs])
        arrived = sorted(t for c in cs for m, t in zip(c.messages, c.arrived, strict=True)
                         if m["type"] == "state" and sigterm - 1 <= t <= exited + 3)
        longest = max(later - earlier for earlier, later in itertools.pairwise([sigterm, *arrived, exited + 3]))
        assert longest <= 2.0, (table_id, longest)
        seen = max(c.state["seq"] for c in cs if c.state is not None)
        db_game(a.db, table_id)  # (raises if the log does not replay)
        assert len(db_actions(a.db, table_id)) >= seen
