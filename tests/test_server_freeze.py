"""Issue 41, item 4: a frozen database is answered within 2 s, not waited out.

A server process on a private PostgreSQL cluster (tests/private_pg.py), a table in play with
four WebSocket clients, then every process of the cluster SIGSTOPped (``PrivateCluster.freeze``) (a frozen database: TCP
connections are accepted and nothing answers — unlike a stopped one, which refuses them at
once, tests/test_server_outage.py). Within :data:`ANSWER_WITHIN` each action gets an
``unavailable`` error (nothing changed: R2.1's refusal), each HTTP request that needs the
database 503 with ``Retry-After``, ``/healthz`` 503; ``/metrics`` counts the database errors;
the server's log holds no traceback per request. Then SIGCONT: the same connections play on,
and the log holds every action a client saw accepted (nothing lost, nothing twice).

The issue's bound is 2 s on a slower machine; here the test asks for :data:`ANSWER_WITHIN`.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

from private_pg import PrivateCluster
from test_server_outage import metric, timed
from test_server_support import Client, ServerProcess, db_actions, four_humans, my_action, seat_all

ANSWER_WITHIN = 1.2
"""Seconds within which an action, a request or /healthz is answered while the database is
frozen (the issue's 2 s, with a margin for a slower machine)."""
FROZEN = 6.0
"""Seconds the database stays frozen (at least)."""
NEW_TABLE = json.dumps({"seats": [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 3}).encode()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[PrivateCluster]:
    with PrivateCluster(tmp_path) as running:
        yield running


def tracebacks(server: ServerProcess) -> list[str]:
    """The server's log lines that carry a traceback."""
    return [line for line in server.log.read_text().splitlines() if "Traceback" in line]


def warnings(server: ServerProcess) -> list[str]:
    """The server's log lines of level warning or above."""
    return [line for line in server.log.read_text().splitlines() if '"level":"warning"' in line or '"level":"error"' in line]


async def refused_within(clients: list[Client], rng: random.Random) -> list[float]:
    """Each seat to act sends its action: each gets ``unavailable`` (nothing changed); the
    seconds each took."""
    took = []
    for c in clients:
        assert c.state is not None
        action = my_action(c.state, rng)
        if action is None:
            continue
        seq = c.state["seq"]
        start = time.monotonic()
        reply = await c.request(action, lambda m: m["type"] in ("error", "state"), timeout=15)
        took.append(time.monotonic() - start)
        assert reply["type"] == "error" and reply["code"] == "unavailable", reply
        assert c.state["seq"] == seq  # nothing changed
    return took


def test_a_frozen_database_is_answered_within_2_s(cluster: PrivateCluster, tmp_path: Path) -> None:
    server = ServerProcess(cluster.url, logs=tmp_path).start()
    try:
        table = four_humans(server)
        listing, one = server.url + "/api/tables", server.url + f"/api/tables/{table['id']}"

        async def main() -> None:
            clients = await seat_all(server, table)
            rng = random.Random(4)
            for c in clients[:2]:  # the table in play: two passes logged
                assert c.state is not None
                action = my_action(c.state, rng)
                reply = await c.request(action, lambda m: m["type"] in ("error", "state") and m.get("seq", 1) >= 1)
                assert reply["type"] == "state", reply
            for c in clients:  # every seat has seen both passes before the database freezes
                await c.wait(lambda m: m["type"] == "state" and m.get("seq", 0) >= 2)
            errors_before = await asyncio.to_thread(metric, server, "hearts_database_errors_total")
            before = len(tracebacks(server))
            cluster.freeze()
            frozen = time.monotonic()
            took = await refused_within(clients, rng)
            took += await refused_within(clients, rng)  # and again, one after another
            print("actions answered in", [round(t, 3) for t in took])
            assert len(took) >= 4 and max(took) < ANSWER_WITHIN, took
            for method, url, body in [("GET", listing, None), ("POST", listing, NEW_TABLE)]:
                status, headers, seconds = await asyncio.to_thread(timed, method, url, body)
                assert status == 503 and int(headers.get("retry-after", 0)) >= 1, (url, status, headers)
                assert seconds < ANSWER_WITHIN, (url, seconds)
            status, _, seconds = await asyncio.to_thread(timed, "GET", server.url + "/healthz")
            assert status == 503 and seconds < ANSWER_WITHIN, (status, seconds)
            # A table held in memory answers its public facts (200), or 503: never a wait.
            status, _, seconds = await asyncio.to_thread(timed, "GET", one)
            assert status in (200, 503) and seconds < ANSWER_WITHIN, (status, seconds)
            errors = await asyncio.to_thread(metric, server, "hearts_database_errors_total")
            assert errors >= errors_before + len(took) + 2, (errors_before, errors)  # the actions, the requests
            assert await asyncio.to_thread(metric, server, "hearts_database_pool_deadlines_total") >= 1
            await asyncio.sleep(max(0.0, FROZEN - (time.monotonic() - frozen)))
            said = len(warnings(server))  # (each task that needs the database has said it once by now)
            took = await refused_within(clients, rng)  # still answered after seconds frozen
            assert max(took) < ANSWER_WITHIN, took
            status, _, _ = await asyncio.to_thread(timed, "GET", server.url + "/healthz")
            assert status == 503
            # Counted, answered, and no line a request in the log, over WebSocket as over HTTP.
            assert warnings(server)[said:] == [], warnings(server)[said:]
            assert len(tracebacks(server)) - before <= 1, tracebacks(server)[before:]  # none per request
            cluster.thaw()
            # The same connections play on: every seat's pass is accepted (within a few retries
            # while the pool reconnects).
            for c in clients:
                assert c.state is not None
                action = my_action(c.state, rng)
                if action is None:
                    continue
                for _ in range(20):
                    reply = await c.request(action, lambda m: m["type"] in ("error", "state") and m.get("seq", 0) >= 0,
                                            timeout=10)
                    if reply["type"] == "state":
                        break
                    assert reply["code"] == "unavailable", reply
                    await asyncio.sleep(0.25)
                assert reply["type"] == "state", reply
            await asyncio.sleep(0.5)
            seen = max(c.state["seq"] for c in clients if c.state is not None)
            assert seen == 4
            logged = db_actions(cluster.url, table["id"])
            assert [seq for seq, _ in logged] == [1, 2, 3, 4], logged  # nothing lost, nothing twice
            for c in clients:
                await c.close()

        asyncio.run(main())
    finally:
        cluster.thaw()
        server.stop()


def test_a_connection_cut_on_a_frozen_database_is_dropped_not_pooled(cluster: PrivateCluster) -> None:
    """The store itself: a statement on a pooled connection and a batch of the action log,
    both frozen, fail as unavailable within the bound; the pooled connection is dropped, not
    given back to the pool hung (once the database goes on, the next statement connects anew),
    and the refused action was not logged."""
    import sqlalchemy as sa

    from hearts.actions import Pass
    from hearts.server.storage import StoreUnavailable, open_storage

    async def main() -> None:
        store = await open_storage(cluster.url)
        try:
            await store.log.create_table("t", {"rules": {}}, 7, [("human", f"P{i}", None, f"h{i}") for i in range(4)])
            await store.log.append("t", 1, Pass(0, ("2C", "3C", "4C")))  # the pool and the log warm
            connects: list[object] = []
            sa.event.listen(store.db.engine.sync_engine, "connect", lambda conn, _: connects.append(conn))  # type: ignore[attr-defined]
            cluster.freeze()
            try:
                for attempt in (store.log.unfinished(), store.log.append("t", 2, Pass(1, ("2D", "3D", "4D")))):
                    start = time.monotonic()
                    with pytest.raises(StoreUnavailable):
                        await attempt
                    assert time.monotonic() - start < ANSWER_WITHIN
            finally:
                cluster.thaw()
            for _ in range(40):  # the probe hears the database within a quarter of a second or so
                try:
                    assert await store.log.unfinished() == ["t"]
                    break
                except StoreUnavailable:
                    await asyncio.sleep(0.05)
            assert len(connects) == 1  # the cut connection was dropped: a new one was made
            await store.log.append("t", 2, Pass(1, ("2D", "3D", "4D")))
            assert len(await store.log.actions("t")) == 2  # nothing twice: the refused one was not logged
        finally:
            await store.close()

    asyncio.run(main())


def test_an_action_relayed_to_the_owner_on_a_frozen_database_is_answered_within_2_s(
    cluster: PrivateCluster, tmp_path: Path
) -> None:
    """Two processes: A owns the table (seat 0 opened it there), seats 1-3 reach B, which
    relays them to A; one action is accepted. With the database frozen, B's clients' actions
    are answered ``unavailable`` within :data:`ANSWER_WITHIN` like A's own clients' (the owner
    serves them all; a link does not wait for the database)."""
    servers = [ServerProcess(cluster.url, logs=tmp_path).start() for _ in range(2)]
    try:
        a, b = servers
        table = four_humans(a)
        seats = table["seats"]

        async def main() -> list[float]:
            clients = [await Client(a, table["id"], seats[0]["token"]).connect()]
            clients += [await Client(b, table["id"], s["token"]).connect() for s in seats[1:]]
            rng = random.Random(9)
            assert clients[1].state is not None
            first = my_action(clients[1].state, rng)  # (accepted: relayed to the owner)
            reply = await clients[1].request(first, lambda m: m["type"] in ("error", "state") and m.get("seq", 0) >= 1)
            assert reply["type"] == "state", reply
            for c in clients:
                await c.wait(lambda m: m["type"] == "state" and m.get("seq", 0) >= 1)
            cluster.freeze()
            try:
                took = await refused_within(clients[2:], rng)
            finally:
                cluster.thaw()
            for c in clients:
                await c.close()
            return took

        took = asyncio.run(main())
        print("forwarded actions answered in", [round(t, 3) for t in took])
        assert len(took) == 2 and max(took) < ANSWER_WITHIN, took
    finally:
        for s in servers:
            s.stop()
