"""Quick match across processes (issue 40, item 2): on PostgreSQL the queue is the database's,
so people who reach different server processes meet — two processes behind Debian's nginx
(deploy/nginx.conf), real WebSocket clients; a process that dies with people queued loses none
of them."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_server_edge import Nginx, nginx_binary
from test_server_quick import new_profile, of_type, queue, queue_emptied, run
from test_server_support import (
    Client,
    ServerProcess,
    create_table,
    db_rows,
    emptied_pg_url,
    http,
    module_pg_database,
)

pg_database = pytest.fixture(scope="module")(module_pg_database)

QUICK = "lobby/quick"


@pytest.fixture
def pair(pg_database: str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two server processes on one emptied PostgreSQL database (each its own bot worker)."""
    url = emptied_pg_url(pg_database)
    servers = [ServerProcess(url, logs=tmp_path, forwarded_allow_ips="127.0.0.1", bot_jobs=2).start()
               for _ in range(2)]
    yield servers
    for s in servers:
        s.stop()


@pytest.fixture
def proxy(pair: list[ServerProcess], tmp_path: Path) -> Iterator[Nginx]:
    binary = nginx_binary()
    nginx = Nginx(tmp_path / "nginx", pair)
    try:
        yield nginx.start(binary)
    finally:
        nginx.stop()


@run
async def test_eight_clients_at_random_times_make_two_full_tables(proxy: Nginx, pair: list[ServerProcess]) -> None:
    """Eight people ask for a quick match through nginx at random times (their connections
    spread over both processes): exactly two full tables are made, each person at one."""
    rng = random.Random(40)
    people = [new_profile(pair[i % 2], f"P{i}") for i in range(8)]
    clients: list[Client] = []

    async def one(person: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(rng.uniform(0, 3))
        client = await Client(proxy, QUICK, None).connect(hello=False)  # type: ignore[arg-type]
        clients.append(client)
        answer = await queue(client, person["key"], preset="standard")
        assert answer["type"] in ("queued", "seated"), answer
        return await client.wait(of_type("seated"), timeout=30)

    seated = await asyncio.gather(*(one(p) for p in people))
    tables: dict[str, list[int]] = {}
    for s in seated:
        tables.setdefault(s["table"], []).append(s["seat"])
        assert s["bots"] == 0
    assert sorted(sorted(seats) for seats in tables.values()) == [[0, 1, 2, 3]] * 2
    for table_id in tables:
        rows = db_rows(pair[0].db, "SELECT kind, player_id FROM seats WHERE table_id = ?", (table_id,))
        assert [k for k, _ in rows] == ["human"] * 4
    seated_ids = [p for t in tables for _, p in db_rows(pair[0].db, "SELECT kind, player_id FROM seats "
                                                        "WHERE table_id = ?", (t,))]
    assert sorted(seated_ids) == sorted(p["id"] for p in people)
    await queue_emptied(pair[0])
    await asyncio.sleep(1.5)  # nothing more is made
    assert db_rows(pair[0].db, "SELECT count(*) FROM tables") == [(2,)]
    for c in clients:
        await c.close()


@run
async def test_people_on_different_processes_meet(pair: list[ServerProcess]) -> None:
    """Two people on each process, straight to it: one table of the four."""
    people = [new_profile(pair[0], f"P{i}") for i in range(4)]
    clients = [await Client(pair[i % 2], QUICK, None).connect(hello=False) for i in range(4)]
    for c, p in zip(clients, people, strict=True):
        await queue(c, p["key"], preset="omnibus")
    seated = [await c.wait(of_type("seated"), timeout=15) for c in clients]
    assert len({s["table"] for s in seated}) == 1 and sorted(s["seat"] for s in seated) == [0, 1, 2, 3]
    for c in clients:
        await c.close()


@run
async def test_lone_client_gets_three_bots_and_a_leaver_is_never_seated(pair: list[ServerProcess]) -> None:
    """Alone in the queue, a person gets three bots after the wait; one who left is not seated."""
    leaver, alone = new_profile(pair[0], "Leaver"), new_profile(pair[1], "Alone")
    gone = await Client(pair[0], QUICK, None).connect(hello=False)
    await queue(gone, leaver["key"], preset="standard", fill_after=3)
    assert (await gone.request({"type": "leave"}, of_type("left")))["reason"] == "asked"
    client = await Client(pair[1], QUICK, None).connect(hello=False)
    await queue(client, alone["key"], preset="standard", fill_after=3)
    seated = await client.wait(of_type("seated"), timeout=15)
    assert seated["bots"] == 3
    status, facts = http("GET", f"{pair[0].url}/api/tables/{seated['table']}")
    assert status == 200 and sorted(facts["kinds"]) == ["bot", "bot", "bot", "human"]
    await asyncio.sleep(1)
    assert not [m for m in gone.messages if m["type"] == "seated"]
    assert db_rows(pair[0].db, "SELECT count(*) FROM seats WHERE player_id = ?", (leaver["id"],)) == [(0,)]
    for c in (gone, client):
        await c.close()


@run
async def test_a_process_that_dies_loses_nobody_queued(pair: list[ServerProcess]) -> None:
    """A person queued on a process that is killed asks again on the other one: their place
    (its time) is kept, and they are seated with the three who came meanwhile."""
    first = new_profile(pair[0], "First")
    client = await Client(pair[0], QUICK, None).connect(hello=False)
    queued = await queue(client, first["key"], preset="standard")
    assert queued["type"] == "queued"
    await asyncio.sleep(1.5)
    pair[0].kill9()
    await client.closed()
    again = await Client(pair[1], QUICK, None).connect(hello=False)
    requeued = await queue(again, first["key"], preset="standard")
    assert requeued["type"] == "queued" and requeued["waited"] >= 1.0
    others = [new_profile(pair[1], f"P{i}") for i in range(3)]
    clients = [await Client(pair[1], QUICK, None).connect(hello=False) for _ in others]
    for c, p in zip(clients, others, strict=True):
        await queue(c, p["key"], preset="standard")
    seated = [await c.wait(of_type("seated"), timeout=15) for c in [again, *clients]]
    assert len({s["table"] for s in seated}) == 1 and all(s["bots"] == 0 for s in seated)
    for c in [again, *clients]:
        await c.close()


@run
async def test_the_live_lobby_of_one_process_shows_what_another_made(pair: list[ServerProcess]) -> None:
    """A lobby page on one process is pushed the table made through the other (its free seat,
    its spectators' link), then the person queued there, then their leaving."""
    lobby = await Client(pair[1], "lobby/live", None).connect(hello=False)
    first = await lobby.wait(of_type("lobby"))
    table = create_table(pair[0], [{"kind": "human", "name": "Ann"}, {"kind": "open"},
                                   {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}], listed=True)
    shown = await lobby.wait(lambda m: m["type"] == "lobby" and any(t["id"] == table["id"] for t in m["tables"]))
    entry = next(t for t in shown["tables"] if t["id"] == table["id"])
    assert entry["free"] == [1] and not entry["quick"] and entry["watch"].endswith(f"/t/{table['id']}#watch")
    assert shown["playing"] == first["playing"] + 1
    person = new_profile(pair[0], "Wren")
    client = await Client(pair[0], QUICK, None).connect(hello=False)
    await queue(client, person["key"], preset="omnibus", fill_after=60)
    await lobby.wait(lambda m: m["type"] == "lobby" and m["waiting"]["omnibus"] == 1, timeout=5)
    await client.request({"type": "leave"}, of_type("left"))
    await lobby.wait(lambda m: m["type"] == "lobby" and m["waiting"]["omnibus"] == 0, timeout=5)
    for c in (client, lobby):
        await c.close()


@run
async def test_a_bots_seat_is_taken_through_the_other_process(pair: list[ServerProcess]) -> None:
    """A person alone on one process gets bots; a newcomer on the other takes a bot's seat
    before the first card, and both processes show the seat as the newcomer's."""
    alone, second = new_profile(pair[0], "Alone"), new_profile(pair[1], "Second")
    first = await Client(pair[0], QUICK, None).connect(hello=False)
    await queue(first, alone["key"], preset="standard", fill_after=3)
    made = await first.wait(of_type("seated"), timeout=15)
    player = await Client(pair[0], made["table"], made["token"]).connect()  # does not pass: round 1 waits
    newcomer = await Client(pair[1], QUICK, None).connect(hello=False)
    await queue(newcomer, second["key"], preset="standard", fill_after=60)
    took = await newcomer.wait(of_type("seated"), timeout=10)
    assert took["table"] == made["table"] and took["bots"] == 2
    seat = await Client(pair[1], took["table"], took["token"]).connect()
    assert seat.state is not None and seat.state["you"] == took["seat"]
    await player.wait(lambda m: m["type"] == "state" and m["table"]["kinds"][took["seat"]] == "human", timeout=10)
    for s in pair:
        status, facts = http("GET", f"{s.url}/api/tables/{made['table']}")
        assert status == 200 and facts["kinds"].count("bot") == 2, facts["kinds"]
    for c in (first, player, newcomer, seat):
        await c.close()
