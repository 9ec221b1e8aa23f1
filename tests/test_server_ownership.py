"""One owner per table (issue 25 item 1): of the server processes of a service on PostgreSQL,
one at a time owns a table — holds its lease, with a fencing epoch — and only it logs the
table's actions; the others forward their clients' actions to it and show what it logs. A
killed owner's table is taken over within seconds; a frozen one that wakes up logs nothing
(the database refuses its old epoch). Real PostgreSQL, real server processes, real clients,
real signals.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

from test_server_store_support import sql
from test_server_support import (
    Client,
    ServerProcess,
    WorkerProcess,
    create_table,
    db_actions,
    db_game,
    emptied_pg_url,
    four_humans,
    metrics,
    module_pg_database,
    my_action,
    play_until,
    seat_spread,
    server_pair,
)

from hearts.actions import to_dict
from hearts.cards import CARDS
from hearts.server.links import OwnerLinks, encode_parts
from hearts.server.notices import AliveNotice, notice_payload, notices_from_payload

pg_database = pytest.fixture(scope="module")(module_pg_database)

url = pytest.fixture(emptied_pg_url)

pair = pytest.fixture(server_pair)


@pytest.fixture
def trio(url: str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Three server processes of one service (one database, three ports)."""
    servers = [ServerProcess(url, logs=tmp_path).start() for _ in range(3)]
    yield servers
    for s in servers:
        s.stop()


def accepted(server: ServerProcess, table_id: str) -> list[dict[str, Any]]:
    """The actions a server process logged at a table (its log's ``action`` lines)."""
    return [line for line in server.logs() if line["event"] == "action" and line.get("table") == table_id]


def process_of(server: ServerProcess) -> str:
    """A server process's id (the one its leases carry), from its log."""
    return next(line["process"] for line in server.logs() if line["event"] == "table owned")


def lease(url: str, table_id: str) -> tuple[str, int]:
    """The table's lease: owner and epoch."""
    [(owner, epoch)] = sql(url, "SELECT owner, epoch FROM table_leases WHERE table_id = %s", (table_id,))
    return owner, int(epoch)


async def one_each(pair: list[ServerProcess], table: dict[str, Any]) -> list[Client]:
    """Seat 0 on the first process, seats 1-3 on the second (the owner keeps a client of its own)."""
    seats = table["seats"]
    return [await Client(pair[0], table["id"], seats[0]["token"]).connect()] + [
        await Client(pair[1], table["id"], s["token"]).connect() for s in seats[1:]
    ]


async def pass_of(client: Client, rng: random.Random) -> dict[str, Any]:
    """Send the client's pass (it must be to pass)."""
    assert client.state is not None
    action = my_action(client.state, rng)
    assert action is not None and action["type"] == "pass"
    await client.send(action)
    return action


def test_only_the_owner_logs_and_every_process_shows_every_action(url: str, pair: list[ServerProcess]) -> None:
    """Four clients on two processes (seats 0 and 2 on the creator, 1 and 3 on the other):
    the creator, which seat 0's client reached first, owns the table and logs every action;
    the other process relays its two clients to it over a link (the owner's connections count
    four, the other's none; the other keeps no copy of the table); every client sees every
    action in order, once (R7 views); the log replays to the end."""
    table = four_humans(pair[0], target=30)

    async def main() -> list[Client]:
        clients = await seat_spread(pair, table)
        assert [metrics(s)[("hearts_connections", ())] for s in pair] == [4, 0]
        await play_until(clients, random.Random(5), lambda: False, timeout=120)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=30)
            await c.close()
        return clients

    clients = asyncio.run(main())
    rows = db_actions(url, table["id"])
    assert db_game(url, table["id"]).is_over
    assert [len(accepted(s, table["id"])) for s in pair] == [len(rows), 0]
    assert lease(url, table["id"]) == (process_of(pair[0]), 1)
    assert not any(line["event"] == "table owned" for line in pair[1].logs())
    assert any(line["event"].startswith("a link to another process opened") for line in pair[1].logs())
    for c in clients:
        seen = [m["seq"] for m in c.messages if m["type"] == "state" and m["reason"] == "event"]
        assert seen == list(range(1, len(rows) + 1))


def test_a_link_that_does_not_show_the_owners_key_is_closed_and_serves_nothing(
    url: str, pair: list[ServerProcess]
) -> None:
    """A process's link port, as its alive notice tells it, refuses a link whose handshake does
    not show that process's key — no WebSocket handshake at all, or a wrong key (403) — and no
    client is opened by what follows."""
    import psycopg
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    table = four_humans(pair[0])

    async def main() -> list[object]:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await conn.execute("LISTEN pyhearts")
            link = ""
            async for notify in conn.notifies(timeout=25):
                alive = [n for n in notices_from_payload(notify.payload) if getattr(n, "link", "")]
                if alive:
                    link = alive[0].link
                    break
        assert link, "no alive notice told a link"
        address, _, key = link.rpartition("/")
        host, _, port = address.rpartition(":")
        opening = encode_parts("open", 1, table["id"], "192.0.2.1")
        answers: list[object] = []
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(opening)  # (no handshake: the message as it would come over a link)
        try:
            answers.append(await asyncio.wait_for(reader.read(), 5))
        except ConnectionError:
            answers.append(b"")
        writer.close()
        try:
            async with connect(f"ws://{address}/", proxy=None,
                               additional_headers={"Authorization": "Bearer " + "0" * len(key)}) as ws:
                await ws.send(opening)
                answers.append(101)
        except InvalidStatus as e:
            answers.append(e.response.status_code)
        return answers

    answers = asyncio.run(main())
    assert answers[1] == 403 and b"101" not in answers[0], answers  # (no switch to a WebSocket)
    assert [metrics(s)[("hearts_connections", ())] for s in pair] == [0, 0]


def test_a_tables_clients_that_all_reach_another_process_are_served_by_its_owner(
    url: str, pair: list[ServerProcess]
) -> None:
    """One path (issue 41): a table whose first client came through one process (which claimed
    it), then left, and whose four clients then all reach the other (as nginx may route them):
    they are relayed to the owner, which logs every action; the lease stays where it was (the
    old code handed it to the process the first forwarded action came through, epoch 2)."""
    table = four_humans(pair[0])
    rng = random.Random(6)

    async def main() -> None:
        first = await Client(pair[0], table["id"], table["seats"][0]["token"]).connect()
        await first.close()
        await asyncio.sleep(0.5)  # (its process has let the connection go)
        clients = [await Client(pair[1], table["id"], s["token"]).connect() for s in table["seats"]]
        for c in clients:
            await pass_of(c, rng)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["seq"] >= 4)
            await c.close()

    asyncio.run(main())
    assert len(db_actions(url, table["id"])) == 4
    assert lease(url, table["id"]) == (process_of(pair[0]), 1)
    assert [len(accepted(s, table["id"])) for s in pair] == [4, 0]
    assert not any(line["event"] == "table handed over" for line in pair[0].logs())


def test_a_table_with_bots_whose_person_reaches_another_process_before_its_hello_plays_on(
    url: str, pair: list[ServerProcess], tmp_path: Path
) -> None:
    """A table of one person and three bots made through the first process (which owns it:
    a table with bots is claimed by its maker), whose person's connection reaches the other
    process and waits there before its hello while the bots pass (a bot worker started then):
    the person is relayed to the owner, the bots play on (the first trick is over within 10 s)
    and the lease never moves."""
    table = create_table(pair[0], [{"kind": "human", "name": "Me"}] + [{"kind": "bot", "level": "easy"}] * 3)
    rng = random.Random(9)
    worker = WorkerProcess(url, tmp_path / "worker.log")

    async def main() -> None:
        person = await Client(pair[1], table["id"], table["seats"][0]["token"]).connect(hello=False)
        try:
            worker.start()  # the bots pass while the person's connection says nothing yet
            deadline = time.monotonic() + 10
            while len(db_actions(url, table["id"])) < 3:
                assert time.monotonic() < deadline, "the bots did not pass"
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # (their notices have reached the second process)
            await person.send({"type": "hello", "token": person.token})
            await person.wait(lambda m: m["type"] == "state")
            started = time.monotonic()
            while (state := person.state) is not None and state["seq"] < 8:  # the four passes, a trick
                assert time.monotonic() - started < 10, f"the bots stopped at seq {state['seq']}"
                action = my_action(state, rng)
                if action is not None:
                    await person.send(action)
                    await person.wait(lambda m, seq=state["seq"]: m["type"] == "state" and m["seq"] > seq)
                else:
                    with contextlib.suppress(TimeoutError):
                        await person.wait(lambda m, seq=state["seq"]: m["type"] == "state" and m["seq"] > seq,
                                          timeout=1)
        finally:
            await person.close()
            worker.stop()

    asyncio.run(main())
    assert lease(url, table["id"]) == (process_of(pair[0]), 1)
    assert not any(line["event"] == "table handed over" for line in pair[0].logs())


def test_a_client_whose_owner_holds_its_lease_but_cannot_be_reached_is_told_to_try_again(
    url: str, pair: list[ServerProcess]
) -> None:
    """One path (issue 41): a client is served only by its table's owner. The table's lease is
    held and renewed by a process that told nobody where its link is (as one whose link port is
    firewalled): the process the client reached waits for the lease to run out (it does not),
    closes the client with 1013 "try again later" and serves it nothing — the old code served it
    a following copy of the table and forwarded its actions through ``NOTIFY``. Once the lease
    is let go, the same process takes the table and serves the next connection itself."""
    import websockets

    from hearts.server.storage.postgres import PostgresStorage

    table = four_humans(pair[0])
    hello = json.dumps({"type": "hello", "token": table["seats"][1]["token"]})

    async def visit() -> tuple[int | None, list[str], float]:
        started = time.monotonic()
        heard: list[str] = []
        async with websockets.connect(f"{pair[1].ws_url}/ws/{table['id']}", open_timeout=15) as ws:
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send(hello)
                while "state" not in heard:
                    heard.append(json.loads(await asyncio.wait_for(ws.recv(), 15))["type"])
            return ws.close_code, heard, time.monotonic() - started

    async def main() -> tuple[tuple[int | None, list[str], float], tuple[int | None, list[str], float]]:
        store = await PostgresStorage.open(url)
        try:
            held = await store.leases.claim(table["id"], "ghost")
            assert held is not None

            async def renew() -> None:
                while True:
                    await asyncio.sleep(0.5)
                    await store.leases.renew("ghost", [held])

            renewing = asyncio.get_running_loop().create_task(renew())
            try:
                refused = await visit()
            finally:
                renewing.cancel()
            await store.leases.release("ghost", [table["id"]])
            return refused, await visit()
        finally:
            await store.close()

    refused, served = asyncio.run(main())
    assert refused[0] == 1013 and "state" not in refused[1] and refused[2] < 10, refused
    assert served[0] is None and "state" in served[1], served
    assert lease(url, table["id"]) == (process_of(pair[1]), 2)


def test_a_killed_owners_table_is_taken_over_within_5_s(url: str, pair: list[ServerProcess]) -> None:
    """SIGKILL the owner; an action sent through the other process right after is accepted
    and shown to the other's clients within 5 s (the owner does not answer; its lease runs
    out and the other process takes the table over at a higher epoch)."""
    table = four_humans(pair[0])
    rng = random.Random(7)

    async def main() -> float:
        clients = await one_each(pair, table)
        pair[0].kill9()
        started = time.monotonic()
        await pass_of(clients[1], rng)
        for c in clients[1:]:
            await c.wait(lambda m: m["type"] == "state" and m["seq"] == 1, timeout=10)
        took = time.monotonic() - started
        for c in clients[1:]:
            await c.close()
        return took

    took = asyncio.run(main())
    assert took <= 5.0, took
    assert lease(url, table["id"])[0] == process_of(pair[1]) and lease(url, table["id"])[1] >= 2
    assert len(db_actions(url, table["id"])) == 1


def test_an_owner_that_stops_leaves_its_relayed_clients_served_where_they_connected(
    url: str, pair: list[ServerProcess]
) -> None:
    """Seat 0 on the owner, seats 1-3 relayed to it through the other process; the owner is
    stopped (SIGTERM, as a deployment restarts it). The relayed clients are not disconnected:
    the process they reached serves them itself from then on, on the same WebSockets (a
    whole state first), takes the table over, and their passes are logged (R2.1)."""
    table = four_humans(pair[0])
    rng = random.Random(12)

    async def main() -> list[Client]:
        clients = await one_each(pair, table)
        assert metrics(pair[1])[("hearts_relayed_connections", ())] == 3
        before = [len(c.messages) for c in clients]
        pair[0].stop()
        for c, start in zip(clients[1:], before[1:], strict=True):
            await c.wait(lambda m: m["type"] == "state" and m["reason"] == "welcome", start=start, timeout=10)
        for c in clients[1:]:
            await pass_of(c, rng)
        for c in clients[1:]:
            await c.wait(lambda m: m["type"] == "state" and m["seq"] == 3, timeout=15)
        assert [c.close_code for c in clients[1:]] == [None, None, None]  # (never disconnected)
        for c in clients[1:]:
            await c.close()
        return clients

    asyncio.run(main())
    assert sorted(json.loads(data)["seat"] for _, data in db_actions(url, table["id"])) == [1, 2, 3]
    assert lease(url, table["id"])[0] == process_of(pair[1])


async def pass_into_a_frozen_owner(owner: ServerProcess, clients: list[Client], rng: random.Random) -> None:
    """SIGSTOP the table's ``owner``; seat 1's client (at the other process) passes, which that
    process serves once it takes the table over (the frozen owner's lease runs out); seat 0's
    client passes into the frozen owner's socket; then SIGCONT."""
    assert owner.proc is not None
    owner.proc.send_signal(signal.SIGSTOP)
    try:
        await pass_of(clients[1], rng)
        await clients[1].wait(lambda m: m["type"] == "state" and m["seq"] == 1, timeout=10)
        await pass_of(clients[0], rng)  # into the frozen process's socket
    finally:
        owner.proc.send_signal(signal.SIGCONT)


def test_a_frozen_owner_that_wakes_up_logs_nothing_its_clients_action_goes_to_the_new_owner(
    url: str, pair: list[ServerProcess]
) -> None:
    """SIGSTOP the owner; the other process takes the table over when one of its clients acts.
    A pass sent to the frozen owner meanwhile is refused once it wakes (SIGCONT): its old epoch
    cannot append, and it no longer owns the table, so it sends the client to the new owner
    (closed as a service restart: the client reconnects, to the other process, and passes
    again there). The woken process logs no action; the log holds each pass once."""
    table = four_humans(pair[0])
    rng = random.Random(8)

    async def main() -> list[Client]:
        seats = table["seats"]
        clients = [await Client(pair[0], table["id"], seats[0]["token"], others=[pair[1]]).connect()]
        clients += [await Client(pair[1], table["id"], s["token"]).connect() for s in seats[1:]]
        await pass_into_a_frozen_owner(pair[0], clients, rng)
        await clients[0].wait(lambda m: m["type"] == "state" and m["reason"] == "welcome", start=1, timeout=10)
        assert clients[0].close_code == 1012 and clients[0].reconnects == 1, clients[0].close_code
        await pass_of(clients[0], rng)  # (again, at the table's owner now)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["seq"] == 2, timeout=10)
        for c in clients:
            await c.close()
        return clients

    asyncio.run(main())
    rows = db_actions(url, table["id"])
    assert sorted(json.loads(data)["seat"] for _, data in rows) == [0, 1]
    assert accepted(pair[0], table["id"]) == []
    assert len(accepted(pair[1], table["id"])) == 2
    assert lease(url, table["id"])[0] == process_of(pair[1])


def test_an_owner_that_finds_its_lease_lost_on_an_actions_way_sends_every_client_of_the_table_on(
    url: str, pair: list[ServerProcess]
) -> None:
    """As above, with two of the frozen owner's clients: the one that acts finds the lease lost
    when the woken owner cannot append, and the other, which sent nothing, is sent to the new
    owner too (closed as a service restart) rather than left on a copy that no event reaches
    (a table of a rolling restart after a frozen database waited 9.9 s for it)."""
    table = four_humans(pair[0])
    rng = random.Random(8)

    async def main() -> list[Client]:
        seats = table["seats"]
        clients = [await Client(pair[k % 2], table["id"], s["token"], others=[pair[1 - k % 2]]).connect()
                   for k, s in enumerate(seats)]
        await pass_into_a_frozen_owner(pair[0], clients, rng)
        for c in (clients[0], clients[2]):
            await c.wait(lambda m: m["type"] == "state" and m["reason"] == "welcome", start=1, timeout=10)
            assert c.close_code == 1012 and c.reconnects == 1, c.close_code
        await pass_of(clients[0], rng)  # (again, at the table's owner now)
        await pass_of(clients[2], rng)  # (it saw the position: it plays on)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["seq"] == 3, timeout=10)
        for c in clients:
            await c.close()
        return clients

    asyncio.run(main())
    assert sorted(json.loads(data)["seat"] for _, data in db_actions(url, table["id"])) == [0, 1, 2]
    assert accepted(pair[0], table["id"]) == []


def test_an_illegal_forwarded_action_is_refused_and_changes_nothing(url: str, pair: list[ServerProcess]) -> None:
    """Through the process that does not own the table: a pass of cards the seat does not hold
    and a play during the passing (R2.1, R1) are refused by the owner with an ``illegal``
    error that says why; the position, the log and the hand are as before, and a legal pass
    is accepted after them."""
    table = four_humans(pair[0])

    async def main() -> None:
        clients = await one_each(pair, table)
        me = clients[1]
        assert me.state is not None
        before = me.state
        not_held = [str(c) for c in CARDS if str(c) not in before["view"]["hand"]][:3]
        for bad in ({"type": "pass", "seq": 0, "cards": not_held},
                    {"type": "play", "seq": 0, "card": before["view"]["hand"][0]}):
            error = await me.request(bad, lambda m: m["type"] == "error")
            assert error["code"] == "illegal" and error["seq"] == 0 and error["message"]
        synced = await me.request({"type": "sync"}, lambda m: m["type"] == "state" and m["reason"] == "resync")
        assert synced["seq"] == 0 and synced["view"]["hand"] == before["view"]["hand"]
        await pass_of(me, random.Random(9))
        await me.wait(lambda m: m["type"] == "state" and m["seq"] == 1)
        for c in clients:
            await c.close()

    asyncio.run(main())
    assert [json.loads(data)["seat"] for _, data in db_actions(url, table["id"])] == [1]


async def owner_links(url: str, owner: str) -> OwnerLinks:
    """A bot worker's links (:class:`OwnerLinks`), knowing where ``owner`` takes them (its alive notices)."""
    import psycopg

    links = OwnerLinks()
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("LISTEN pyhearts")
        await conn.execute("SELECT pg_notify('pyhearts', %s)", (notice_payload(AliveNotice("tester", ask=True, worker=True)),))
        async for notify in conn.notifies(timeout=25):
            for n in notices_from_payload(notify.payload):
                if isinstance(n, AliveNotice) and n.process == owner and n.link:
                    links.heard(n.process, n.link, n.gone)
            if links.where:
                return links
    raise AssertionError("no alive notice of the owner told its link")


def test_a_bots_move_sent_over_a_link_is_handled_by_the_owner(url: str, pair: list[ServerProcess]) -> None:
    """A table of one person and three bots, owned by the process that made it, no bot worker:
    the test makes the bots' passes as a worker does (R2.1), each sent over a link to the owner
    (``["act", …]``, no ``NOTIFY`` on its way) and answered ``done`` with the position after it;
    the same move sent again is ``stale``; the log holds each once."""
    table = create_table(pair[0], [{"kind": "human", "name": "Me"}] + [{"kind": "bot", "level": "easy"}] * 3)

    async def main() -> list[tuple[str, int, str] | None]:
        owner = process_of(pair[0])
        links = await owner_links(url, owner)
        game = db_game(url, table["id"])
        answers = []
        for seq, seat in enumerate((1, 2, 3)):
            move = to_dict(next(iter(game.legal_actions(seat))))
            answers.append(await links.send(owner, table["id"], seat, seq, move, "bot"))
        answers.append(await links.send(owner, table["id"], 3, 2, move, "bot"))
        await links.close()
        return answers

    answers = asyncio.run(main())
    assert answers == [("done", 1, ""), ("done", 2, ""), ("done", 3, ""), ("stale", 3, "")], answers
    assert [json.loads(data)["seat"] for _, data in db_actions(url, table["id"])] == [1, 2, 3]
    assert [line["by"] for line in accepted(pair[0], table["id"])] == ["bot"] * 3


def test_malformed_and_misaddressed_bot_moves_are_answered_and_change_nothing(
    url: str, pair: list[ServerProcess]
) -> None:
    """Bots' moves over a link that are no action (an unknown type, a seat that is not the
    action's, an unknown actor, a person's move) are answered ``illegal``, one for a table the
    process does not own ``not_owner``; a link message that is no move closes that link only;
    nothing is logged, and the table plays on."""
    table = four_humans(pair[0])
    rng = random.Random(10)

    async def main() -> list[tuple[str, int, str] | None]:
        clients = await one_each(pair, table)
        owner = process_of(pair[0])
        links = await owner_links(url, owner)
        bad = [
            (table["id"], {"type": "bogus", "seat": 1}, "bot"),
            (table["id"], {"type": "play", "seat": 2, "card": "2C"}, "bot"),
            (table["id"], {"type": "play", "seat": 1, "card": "2C"}, "wizard"),
            (table["id"], {"type": "play", "seat": 1, "card": "2C"}, "person"),
            ("nosuchtable", {"type": "play", "seat": 1, "card": "2C"}, "bot"),
        ]
        replies = [await links.send(owner, table_id, 1, 0, action, by) for table_id, action, by in bad]
        link = await links._link(owner)
        assert link is not None
        await link.send(encode_parts("act", "r9", table["id"], "one"))  # (no move: the link is closed)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(link.wait_closed(), 5)
        replies.append(None if link.close_code is None else ("closed", link.close_code, ""))
        await pass_of(clients[1], rng)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["seq"] == 1)
            await c.close()
        return replies

    replies = asyncio.run(main())
    assert [r and r[0] for r in replies] == ["illegal"] * 4 + ["not_owner", "closed"], replies
    assert all(r and r[2] for r in replies[:4])
    assert [json.loads(data)["seat"] for _, data in db_actions(url, table["id"])] == [1]


def test_a_stopping_owners_relayed_clients_go_to_the_process_it_hands_their_table_to(
    url: str, trio: list[ServerProcess]
) -> None:
    """One path to the owner (issue 41, item 1), with three processes: seat 0 on A, which owns
    the table; seats 1 and 2 on B and seat 3 on C, relayed to A. A is stopped (SIGTERM, a rolling
    restart) and hands the table to B or C: the clients on the other one are relayed to the new
    owner at once, on the same WebSockets (that process's relayed connections count them; they
    were served by a following copy forwarding through ``NOTIFY`` before). Then the new owner is
    stopped too and hands the table to the last process. Play goes on throughout (R2.1, R3):
    no client is sent an error, each action is logged once, in order."""
    a, b, c = trio
    table = four_humans(a)
    seats = table["seats"]
    rng = random.Random(41)
    stopped = False

    def owned_by(server: ServerProcess) -> bool:
        return any(line["event"] == "table owned" and line.get("table") == table["id"] for line in server.logs())

    async def relayed_on(server: ServerProcess, count: int) -> float:
        """The server's relayed connections, once there are ``count`` (or after 5 s)."""
        deadline = time.monotonic() + 5
        while True:
            now = (await asyncio.to_thread(metrics, server))[("hearts_relayed_connections", ())]
            if now >= count or time.monotonic() > deadline:
                return now
            await asyncio.sleep(0.1)

    async def main() -> list[Client]:
        nonlocal stopped
        clients = [await Client(a, table["id"], seats[0]["token"], others=[b, c]).connect()]
        clients += [await Client(b, table["id"], s["token"], others=[c, a]).connect() for s in seats[1:3]]
        clients.append(await Client(c, table["id"], seats[3]["token"], others=[a, b]).connect())
        assert await relayed_on(b, 2) == 2 and await relayed_on(c, 1) == 1
        play = asyncio.create_task(play_until(clients, rng, lambda: stopped, timeout=120))
        await clients[0].wait(lambda m: m["type"] == "state" and m["seq"] >= 2, timeout=15)
        await asyncio.to_thread(a.stop)
        owner = next(s for s in (b, c) if owned_by(s))
        other = c if owner is b else b
        # (seat 0, closed by A with 1012, connects again: to B, which relays it if C owns)
        assert await relayed_on(other, 2 if other is b else 1) >= (2 if other is b else 1)
        seq = max(cl.state["seq"] for cl in clients if cl.state is not None)
        await clients[3].wait(lambda m: m["type"] == "state" and m["seq"] >= seq + 2, timeout=15)
        await asyncio.to_thread(owner.stop)
        seq = max(cl.state["seq"] for cl in clients if cl.state is not None)
        for cl in clients:
            await cl.wait(lambda m: m["type"] == "state" and m["seq"] >= seq + 4, timeout=20)
        stopped = True
        await play
        for cl in clients:
            await cl.close()
        return clients

    clients = asyncio.run(main())
    assert [m for cl in clients for m in cl.messages if m["type"] == "error"] == []
    logged = [s for s, _ in db_actions(url, table["id"])]
    assert logged == list(range(1, len(logged) + 1)) and len(logged) >= max(cl.state["seq"] for cl in clients)
    db_game(url, table["id"])  # (raises if the log does not replay)


def test_a_dead_owners_table_served_by_two_processes_answers_every_action(url: str, trio: list[ServerProcess]) -> None:
    """Three processes; A owns the table, where seat 0 opened it; seat 1 is on B, seats 2 and 3
    on C (relayed to A). A is killed (SIGKILL): the links break, B and C serve their clients
    themselves (seat 0 connects again, to B), and every seat passes at once (R2.1). One of B
    and C takes the table once A's lease runs out; the other forwards its clients' passes to
    it. Every pass is accepted within 5 s of the kill and no client is sent an error (the other
    one waited for A's lease its whole 4 s, and then told its client "the table's server does
    not answer")."""
    a, b, c = trio
    table = four_humans(a)
    seats = table["seats"]
    rng = random.Random(7)

    async def main() -> tuple[list[Client], float]:
        clients = [await Client(a, table["id"], seats[0]["token"], others=[b]).connect(),
                   await Client(b, table["id"], seats[1]["token"]).connect()]
        clients += [await Client(c, table["id"], s["token"]).connect() for s in seats[2:]]
        assert [metrics(s)[("hearts_relayed_connections", ())] for s in (b, c)] == [1, 2]
        await asyncio.to_thread(a.kill9)
        killed = time.monotonic()
        for cl in clients:
            await cl.wait(lambda m: m["type"] == "state" and m["reason"] == "welcome", start=1, timeout=10)
        for cl in clients:
            await pass_of(cl, rng)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not any(m["type"] == "error" for cl in clients for m in cl.messages):
            if all(cl.state is not None and cl.state["seq"] == 4 for cl in clients):
                break
            await asyncio.sleep(0.05)
        took = time.monotonic() - killed
        for cl in clients:
            await cl.close()
        return clients, took

    clients, took = asyncio.run(main())
    assert [m for cl in clients for m in cl.messages if m["type"] == "error"] == []
    assert [cl.state["seq"] for cl in clients if cl.state is not None] == [4, 4, 4, 4]
    assert took <= 5.0, took
    assert [s for s, _ in db_actions(url, table["id"])] == [1, 2, 3, 4]
