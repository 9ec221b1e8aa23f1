"""Issue 25: a web server whose database goes away answers at once instead of waiting it out.

A server process on a private PostgreSQL cluster (tests/private_pg.py), the cluster stopped
under it: every HTTP request that needs the database gets 503 with ``Retry-After`` within 2 s,
``/healthz`` turns to 503 within 2 s and back to 200 within 2.5 s of the database's return
(after 10 s away), every action at a table gets an ``unavailable`` error (nothing changed) within 2 s,
one after another, and the connection stays open; ``/metrics`` counts the database errors.
Once the database is back the same connection plays on.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

from private_pg import PrivateCluster
from test_server_support import Client, ServerProcess, four_humans, my_action, seat_all

NEW_TABLE = json.dumps({"seats": [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 3}).encode()
ANSWER_WITHIN = 2.0
"""Seconds within which a request, an action or /healthz must answer during an outage."""
OUTAGE = 10.0
"""Seconds the database is away."""
BACK_WITHIN = 2.5
"""Seconds within which /healthz says 200 again once the database is back (its restart done)."""


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[PrivateCluster]:
    with PrivateCluster(tmp_path) as running:
        yield running


def timed(method: str, url: str, body: bytes | None = None) -> tuple[int, dict[str, str], float]:
    """An HTTP request: its status, headers and seconds taken (a hang past 10 s fails)."""
    req = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": "application/json"})
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, headers = r.status, {k.lower(): v for k, v in r.headers.items()}
            r.read()
    except urllib.error.HTTPError as e:
        status, headers = e.code, {k.lower(): v for k, v in e.headers.items()}
        e.read()
    return status, headers, time.monotonic() - start


def wait_health(server: ServerProcess, status: int, within: float) -> float:
    """Seconds until ``/healthz`` answers ``status`` (fails past ``within``)."""
    start = time.monotonic()
    while time.monotonic() - start < within:
        got, _, _ = timed("GET", server.url + "/healthz")
        if got == status:
            return time.monotonic() - start
        time.sleep(0.1)
    raise AssertionError(f"/healthz did not answer {status} within {within} s")


def metric(server: ServerProcess, name: str) -> float:
    """The sum of a metric's samples in ``/metrics``."""
    with urllib.request.urlopen(server.url + "/metrics", timeout=10) as r:
        text = r.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name) and not line.startswith("#"))


def test_during_an_outage_every_request_and_action_is_answered_within_2_s(cluster: PrivateCluster, tmp_path: Path) -> None:
    server = ServerProcess(cluster.url, logs=tmp_path).start()
    try:
        table = four_humans(server)
        listing = server.url + "/api/tables"

        async def main() -> None:
            clients = await seat_all(server, table)
            rng = random.Random(2)
            states = [c.state for c in clients]
            assert all(states)
            cluster.stop()
            down = time.monotonic()
            for _ in range(2):  # one refusal after another, none waits for the database
                for c in clients:
                    assert c.state is not None
                    action = my_action(c.state, rng)
                    assert action is not None
                    start = time.monotonic()
                    reply = await c.request(action, lambda m: m["type"] in ("error", "state"), timeout=5)
                    took = time.monotonic() - start
                    assert reply["type"] == "error" and reply["code"] == "unavailable", reply
                    assert "try again" in reply["message"] and took < ANSWER_WITHIN, (reply, took)
                    assert c.state["seq"] == 0  # nothing changed
            # A new tab of a seat is welcomed and stays open (the chat history waits for the database).
            tab = await Client(server, table["id"], table["seats"][0]["token"]).connect(history=False)
            synced = await tab.request({"type": "sync"}, lambda m: m["type"] == "state", timeout=5)
            assert synced["seq"] == 0
            await tab.close()
            await asyncio.to_thread(wait_health, server, 503, ANSWER_WITHIN)
            # (A table held in memory still answers its public facts, GET /api/tables/ID.)
            for method, url, body in [("GET", listing, None), ("POST", listing, NEW_TABLE)]:
                status, headers, took = await asyncio.to_thread(timed, method, url, body)
                assert status == 503 and int(headers.get("retry-after", 0)) >= 1 and took < ANSWER_WITHIN, (url, status, headers, took)
            assert metric(server, "hearts_database_errors_total") >= 1
            await asyncio.sleep(max(0.0, OUTAGE - (time.monotonic() - down)))  # backoffs grow meanwhile
            cluster.start()
            await asyncio.to_thread(wait_health, server, 200, BACK_WITHIN)
            # The same connections play on: every seat's pass is accepted now.
            for c in clients:
                assert c.state is not None
                action = my_action(c.state, rng)
                reply = await c.request(action, lambda m: m["type"] in ("error", "state") and m.get("seq", 0) >= 0,
                                        timeout=10)
                assert reply["type"] == "state", reply
            for c in clients:
                await c.close()

        asyncio.run(main())
        # The log says the outage once for each task that needs the database, whatever its
        # retries (a line each retry filled the log of a long outage).
        said = Counter((line["event"], line.get("task")) for line in server.logs() if line["level"] == "warning")
        assert [seen for seen, times in said.items() if times > 1] == [], said
    finally:
        server.stop()


def test_the_actions_refused_during_an_outage_leave_one_waiter_for_the_database(
    cluster: PrivateCluster, tmp_path: Path
) -> None:
    """Each action refused "unavailable" (nothing changed, R2.1's refusal) leaves its table
    to catch up with the log once the database is back — one waiter a table, polling with
    backoff, not one per refused action: the attempts to connect per second stay the same
    however many actions were refused (a waiter per action made them grow with every one, and
    their churn froze the process for 2 s in ``benchmarks/faults.py``)."""
    server = ServerProcess(cluster.url, logs=tmp_path).start()
    errors = "hearts_database_pool_connection_errors"
    try:
        table = four_humans(server)

        async def main() -> tuple[float, float]:
            clients = await seat_all(server, table)
            rng = random.Random(3)
            cluster.stop()
            for _ in range(20):  # 80 refusals within a few seconds
                for c in clients:
                    assert c.state is not None
                    action = my_action(c.state, rng)
                    assert action is not None
                    reply = await c.request(action, lambda m: m["type"] in ("error", "state"), timeout=5)
                    assert reply["type"] == "error" and reply["code"] == "unavailable", reply
            await asyncio.sleep(3)  # the waiters' backoff reaches its longest pause
            before = await asyncio.to_thread(metric, server, errors)
            await asyncio.sleep(6)
            after = await asyncio.to_thread(metric, server, errors)
            assert all(c.state is not None and c.state["seq"] == 0 for c in clients)  # nothing changed
            for c in clients:
                await c.close()
            return before, after

        before, after = asyncio.run(main())
        # One waiter's pings (every 2 s) and the process's own periodic reads (the log heads,
        # each second): about 10 in 6 s; a waiter per refused action made it some 240.
        assert after - before <= 20, (before, after)
    finally:
        server.stop()
