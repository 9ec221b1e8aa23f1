"""Quick match (issue 40): the queue in the database, the matchmaker and the quick-match
protocol (``/ws/lobby/quick``), against a real server process on SQLite with real WebSocket
clients. The same on PostgreSQL with two processes behind nginx: test_server_quick_cluster.py."""

from __future__ import annotations

import asyncio
import functools
import random
import sqlite3
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from test_server_support import Client, ServerProcess, db_rows, http, new_profile, play_until

QUICK = "lobby/quick"


def run(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """A test written as a coroutine, run in its own event loop."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return wrapper


async def quick_client(server: ServerProcess) -> Client:
    return await Client(server, QUICK, None).connect(hello=False)


def of_type(kind: str) -> Any:
    return lambda m: m["type"] == kind


async def queue(client: Client, key: str, **extra: Any) -> dict[str, Any]:
    """Ask for a quick match; the ``queued`` answer (or an error)."""
    return await client.request(
        {"type": "quick", "key": key, **extra}, lambda m: m["type"] in ("queued", "error", "seated")
    )


async def queue_emptied(server: ServerProcess, timeout: float = 5.0) -> None:
    """Wait until the queue holds no row."""
    for _ in range(int(timeout / 0.1)):
        if db_rows(server.db, "SELECT count(*) FROM quick_queue") == [(0,)]:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the queue holds {db_rows(server.db, 'SELECT * FROM quick_queue')}")


def db_write(db: Any, query: str, params: tuple[Any, ...]) -> None:
    """One statement on a test's SQLite database, committed."""
    con = sqlite3.connect(db)
    try:
        con.execute(query, params)
        con.commit()
    finally:
        con.close()


@pytest.fixture
def server(tmp_path: Path) -> Any:
    s = ServerProcess(tmp_path / "tables.db").start()
    yield s
    s.stop()


@run
async def test_four_players_meet_at_one_table(server: ServerProcess) -> None:
    """Four people asking for the standard game are seated together at once, each at their own
    seat of one new quick table, and each seat opens with the token it was given."""
    people = [new_profile(server, f"P{i}") for i in range(4)]
    clients = [await quick_client(server) for _ in people]
    for c, p in zip(clients, people, strict=True):
        answer = await queue(c, p["key"], preset="standard")
        assert answer["type"] in ("queued", "seated"), answer
    seated = [await c.wait(of_type("seated"), timeout=15) for c in clients]
    assert len({s["table"] for s in seated}) == 1
    assert sorted(s["seat"] for s in seated) == [0, 1, 2, 3]
    assert all(s["bots"] == 0 and s["preset"] == "standard" for s in seated)
    table_id = seated[0]["table"]
    status, facts = http("GET", f"{server.url}/api/tables/{table_id}")
    assert status == 200 and facts["kinds"] == ["human"] * 4
    rows = db_rows(server.db, "SELECT player_id FROM seats WHERE table_id = ?", (table_id,))
    assert sorted(r[0] for r in rows) == sorted(p["id"] for p in people)
    await queue_emptied(server)  # (each place goes once its player was told)
    config = db_rows(server.db, "SELECT config FROM tables WHERE id = ?", (table_id,))[0][0]
    assert '"quick": true' in config.replace('"quick":true', '"quick": true')
    player = Client(server, table_id, seated[0]["token"])
    await player.connect()
    assert player.state is not None and player.state["you"] == seated[0]["seat"]
    for c in [*clients, player]:
        await c.close()


@run
async def test_lone_player_gets_bots_after_the_wait(server: ServerProcess) -> None:
    """One person alone waits the time they set, then plays with three bots, and is told so."""
    person = new_profile(server, "Solo")
    client = await quick_client(server)
    queued = await queue(client, person["key"], preset="omnibus", fill_after=3)
    assert queued["type"] == "queued" and queued["fill_after"] == 3 and queued["preset"] == "omnibus"
    loop = asyncio.get_running_loop()
    began = loop.time()
    seated = await client.wait(of_type("seated"), timeout=15)
    assert loop.time() - began >= 2.5
    assert seated["bots"] == 3 and "bot" in seated["message"]
    status, facts = http("GET", f"{server.url}/api/tables/{seated['table']}")
    assert status == 200 and sorted(facts["kinds"]) == ["bot", "bot", "bot", "human"]
    assert len({b for b in facts["bots"] if b}) == 1  # one level: the queue's
    await client.close()


@run
async def test_a_player_who_leaves_is_never_seated(server: ServerProcess) -> None:
    """A person who leaves the queue is told at once, and is not seated when others come."""
    leaver = new_profile(server, "Leaver")
    client = await quick_client(server)
    await queue(client, leaver["key"], preset="standard", fill_after=3)
    left = await client.request({"type": "leave"}, of_type("left"))
    assert left["reason"] == "asked"
    assert db_rows(server.db, "SELECT count(*) FROM quick_queue") == [(0,)]
    people = [new_profile(server, f"P{i}") for i in range(4)]
    others = [await quick_client(server) for _ in people]
    for c, p in zip(others, people, strict=True):
        await queue(c, p["key"], preset="standard")
    for c in others:
        await c.wait(of_type("seated"), timeout=15)
    await asyncio.sleep(4)  # past the leaver's wait
    assert not [m for m in client.messages if m["type"] == "seated"]
    assert db_rows(server.db, "SELECT count(*) FROM seats WHERE player_id = ?", (leaver["id"],)) == [(0,)]
    for c in [client, *others]:
        await c.close()


@run
async def test_bad_requests_change_nothing(server: ServerProcess) -> None:
    """An unknown preset, a malformed message, an unknown key and a second request are refused
    with a clear error; the queue stays as it was."""
    person = new_profile(server, "Ann")
    client = await quick_client(server)
    bad = await queue(client, person["key"], preset="chess")
    assert bad["type"] == "error" and bad["code"] == "bad_message" and "standard" in bad["message"]
    bad = await queue(client, "not-a-key", preset="standard")
    assert bad["type"] == "error" and bad["code"] == "bad_key"
    bad = await client.request("{not json", of_type("error"))
    assert bad["code"] == "bad_json"
    bad = await queue(client, person["key"], preset="standard", colour="red")
    assert bad["type"] == "error" and bad["code"] == "bad_message"
    assert db_rows(server.db, "SELECT count(*) FROM quick_queue") == [(0,)]
    assert (await queue(client, person["key"], preset="any"))["type"] == "queued"
    again = await queue(client, person["key"], preset="standard")
    assert again["type"] == "error" and again["code"] == "in_queue"
    assert db_rows(server.db, "SELECT preset FROM quick_queue") == [("any",)]
    nothing = await client.request({"type": "leave", "now": 1}, of_type("error"))
    assert nothing["code"] == "bad_message"
    assert db_rows(server.db, "SELECT count(*) FROM quick_queue") == [(1,)]
    await client.close()


@run
async def test_a_seat_never_told_is_told_when_the_player_asks_again(server: ServerProcess) -> None:
    """A player seated while their connection was gone (its process died, say) asks again: they
    are told the seat they have, not refused for sitting at a quick table."""
    people = [new_profile(server, f"P{i}") for i in range(4)]
    clients = [await quick_client(server) for _ in people]
    for c, p in zip(clients, people, strict=True):
        await queue(c, p["key"], preset="standard")
    seated = [await c.wait(of_type("seated"), timeout=15) for c in clients]
    await queue_emptied(server)
    first = seated[0]
    db_write(server.db, "INSERT INTO quick_queue (player_id, name, preset, rated, mu, fill_after, queued, seen, conn, "
            "table_id, seat, token, bots, seated_preset) VALUES (?, 'P0', 'standard', 0, 25.0, 20, ?, ?, 'gone', ?, ?, "
            "?, 0, 'standard')", (people[0]["id"], time.time(), time.time(), first["table"], first["seat"], first["token"]))
    again = await quick_client(server)
    told = await queue(again, people[0]["key"], preset="standard")
    assert told["type"] == "seated" and told["table"] == first["table"] and told["token"] == first["token"]
    refused = await queue(again, people[0]["key"], preset="standard")
    assert refused["type"] == "error" and refused["code"] == "at_table" and first["table"] in refused["message"]
    for c in [*clients, again]:
        await c.close()


@run
async def test_a_table_made_but_not_marked_is_the_players_only_table(server: ServerProcess) -> None:
    """A process that made a quick table and died before marking its people's places seated
    leaves each of them a place still waiting and a seat at that table. The matchmaker never
    makes them a second table: it tells them the seat they have (a new token, the old one
    given up), at once if their connection keeps the place fresh, or when they ask again."""
    alone, other = new_profile(server, "Alone"), new_profile(server, "Other")
    client = await quick_client(server)
    await queue(client, alone["key"], preset="standard", fill_after=3)
    first = await client.wait(of_type("seated"), timeout=15)
    await client.close()
    await queue_emptied(server)

    def waiting_row(player: dict[str, Any], fresh: bool) -> None:  # (as the died process left it)
        now = time.time()
        db_write(server.db, "INSERT INTO quick_queue (player_id, name, preset, rated, mu, fill_after, queued, seen, "
                 "conn) VALUES (?, ?, 'standard', 0, 25.0, 3, ?, ?, 'gone')",
                 (player["id"], player["name"], now - 10, now if fresh else now - 60))

    def tables_of(player: dict[str, Any]) -> set[str]:
        return {r[0] for r in db_rows(server.db, "SELECT table_id FROM seats WHERE player_id = ?", (player["id"],))}

    waiting_row(alone, fresh=True)  # kept fresh by a connection: the next round tells it
    for _ in range(50):
        marked = db_rows(server.db, "SELECT table_id, seat, token FROM quick_queue WHERE player_id = ?", (alone["id"],))
        if marked and marked[0][0] is not None:
            break
        await asyncio.sleep(0.1)
    assert marked[0][:2] == (first["table"], first["seat"]), marked
    assert tables_of(alone) == {first["table"]}
    again = await quick_client(server)
    told = await queue(again, alone["key"], preset="standard")
    assert told["type"] == "seated" and told["table"] == first["table"] and told["token"] != first["token"]
    player = await Client(server, first["table"], told["token"]).connect()
    assert player.state is not None and player.state["you"] == first["seat"]
    await player.close()
    await again.close()

    await queue(await quick_client(server), other["key"], preset="standard", fill_after=3)
    await queue_emptied(server, timeout=15)
    (second,) = tables_of(other)
    seat = db_rows(server.db, "SELECT seat FROM seats WHERE player_id = ?", (other["id"],))[0][0]
    waiting_row(other, fresh=False)  # its connection went with the process: told when they ask
    back = await quick_client(server)
    await queue(back, other["key"], preset="omnibus")  # (its place waits again: the next round tells it)
    told = await back.wait(of_type("seated"), timeout=5)
    assert (told["table"], told["seat"]) == (second, seat), told
    assert tables_of(other) == {second}
    await back.close()


@run
async def test_a_newcomer_takes_a_bots_seat_before_the_rounds_first_card(server: ServerProcess) -> None:
    """A person alone gets bots; before the first card of the round is played, a person who
    asks for the same rules takes one of the bots' seats (the seat's score stays its own) and
    is told so; once cards are on the table, the next one waits for a table of their own."""
    alone, second, third = (new_profile(server, n) for n in ("Alone", "Second", "Third"))
    first = await quick_client(server)
    await queue(first, alone["key"], preset="standard", fill_after=3)
    made = await first.wait(of_type("seated"), timeout=15)
    assert made["bots"] == 3
    player = await Client(server, made["table"], made["token"]).connect()  # does not pass: round 1 waits
    newcomer = await quick_client(server)
    await queue(newcomer, second["key"], preset="standard", fill_after=60)
    took = await newcomer.wait(of_type("seated"), timeout=10)
    assert took["table"] == made["table"] and took["seat"] != made["seat"] and took["bots"] == 2
    assert "bot" in took["message"] and "score" in took["message"]
    status, facts = http("GET", f"{server.url}/api/tables/{made['table']}")
    assert status == 200 and facts["kinds"][took["seat"]] == "human" and facts["kinds"].count("bot") == 2
    assert facts["totals"][took["seat"]] == 0
    rows = db_rows(server.db, "SELECT player_id FROM seats WHERE table_id = ? AND seat = ?", (made["table"], took["seat"]))
    assert rows == [(second["id"],)]
    seat = Client(server, took["table"], took["token"])
    await seat.connect()
    assert seat.state is not None and seat.state["you"] == took["seat"]
    # the round starts: everyone passes, a first card is played (the bots, the two people)
    await play_until([player, seat], random.Random(5), lambda: any(
        c.state is not None and sum(c.state["view"]["hand_sizes"]) < 52 for c in (player, seat)),
        timeout=30)
    late = await quick_client(server)
    await queue(late, third["key"], preset="standard", fill_after=3)
    own = await late.wait(of_type("seated"), timeout=15)
    assert own["table"] != made["table"]
    for c in (first, player, newcomer, seat, late):
        await c.close()


@run
async def test_a_bots_seat_is_taken_between_rounds_with_its_score(server: ServerProcess) -> None:
    """After the first round, before the second round's first card, a newcomer takes a bot's
    seat: the seat keeps the points the bot scored."""
    alone, second = new_profile(server, "Alone"), new_profile(server, "Second")
    first = await quick_client(server)
    await queue(first, alone["key"], preset="standard", fill_after=3)
    made = await first.wait(of_type("seated"), timeout=15)
    player = await Client(server, made["table"], made["token"]).connect()
    await play_until([player], random.Random(7), lambda: player.state is not None
                     and player.state["view"]["round_number"] == 1, timeout=60)  # (counted from 0)
    status, before = http("GET", f"{server.url}/api/tables/{made['table']}")
    assert status == 200 and len(before["results"]) == 1
    newcomer = await quick_client(server)
    await queue(newcomer, second["key"], preset="standard", fill_after=60)
    took = await newcomer.wait(of_type("seated"), timeout=10)
    assert took["table"] == made["table"] and took["bots"] == 2
    status, after = http("GET", f"{server.url}/api/tables/{made['table']}")
    assert after["kinds"][took["seat"]] == "human" and after["totals"] == before["totals"]
    seat = Client(server, took["table"], took["token"])
    await seat.connect()
    assert seat.state is not None and seat.state["view"]["round_number"] == 1
    assert seat.state["view"]["scores"][took["seat"]] == before["totals"][took["seat"]]
    for c in (first, player, newcomer, seat):
        await c.close()


@run
async def test_a_blocked_pair_is_never_seated_together_and_a_banned_profile_is_refused(server: ServerProcess) -> None:
    """Five people queue, one of whom blocked another: the table of four leaves one of the two
    out (they get bots later, apart); a banned profile is refused and not queued."""
    people = [new_profile(server, f"P{i}") for i in range(5)]
    db_write(server.db, "INSERT INTO player_marks (player_id, other_id, kind, created) VALUES (?, ?, 'block', 0)",
             (people[0]["id"], people[1]["id"]))
    clients = [await quick_client(server) for _ in people]
    for c, p in zip(clients, people, strict=True):
        await queue(c, p["key"], preset="standard", fill_after=4)
    seated = [await c.wait(of_type("seated"), timeout=20) for c in clients]
    assert seated[0]["table"] != seated[1]["table"]
    assert sorted(s["bots"] for s in seated).count(0) == 4
    banned = new_profile(server, "Banned")
    db_write(server.db, "INSERT INTO player_bans (player_id, reason, created) VALUES (?, 'spam', 0)", (banned["id"],))
    client = await quick_client(server)
    refused = await queue(client, banned["key"], preset="standard")
    assert refused["type"] == "error" and refused["code"] == "banned"
    assert db_rows(server.db, "SELECT count(*) FROM quick_queue WHERE player_id = ?", (banned["id"],)) == [(0,)]
    for c in [*clients, client]:
        await c.close()


@run
async def test_one_queue_per_player_across_connections(server: ServerProcess) -> None:
    """The same profile asking on a second connection takes the place over (its time kept, its
    new rules); the first connection is told it left, replaced; one row."""
    person = new_profile(server, "Twice")
    one, two = await quick_client(server), await quick_client(server)
    await queue(one, person["key"], preset="standard", fill_after=60)
    await asyncio.sleep(1.2)
    moved = await queue(two, person["key"], preset="black_maria", fill_after=60)
    assert moved["type"] == "queued" and moved["preset"] == "black_maria" and moved["waited"] >= 1.0
    assert (await one.wait(of_type("left"), timeout=5))["reason"] == "replaced"
    assert db_rows(server.db, "SELECT preset FROM quick_queue WHERE player_id = ?", (person["id"],)) == [("black_maria",)]
    left = await one.request({"type": "leave"}, of_type("left"))
    assert left["reason"] == "asked"
    assert db_rows(server.db, "SELECT count(*) FROM quick_queue") == [(1,)]  # the other's place stays
    for c in (one, two):
        await c.close()


@run
async def test_black_maria_and_the_old_name_three(server: ServerProcess) -> None:
    """Issue 40, R6: the quick match's preset for three is Black Maria. A queue row stored under
    the old name ``three`` (by an earlier version) and requests that still send it are read as
    ``black_maria``: the three are seated together at a Black Maria table, each told so."""
    people = [new_profile(server, f"M{i}") for i in range(3)]
    clients = [await quick_client(server) for _ in people]
    first = await queue(clients[0], people[0]["key"], preset="black_maria", fill_after=60)
    assert first["type"] == "queued" and first["preset"] == "black_maria"
    db_write(server.db, "UPDATE quick_queue SET preset = 'three' WHERE player_id = ?", (people[0]["id"],))
    old = await queue(clients[1], people[1]["key"], preset="three", fill_after=60)  # an old client's request
    assert old["type"] == "queued" and old["preset"] == "black_maria"
    await queue(clients[2], people[2]["key"], preset="black_maria", fill_after=60)
    seated = [await c.wait(of_type("seated"), timeout=15) for c in clients]
    assert len({s["table"] for s in seated}) == 1 and {s["preset"] for s in seated} == {"black_maria"}
    assert all(s["bots"] == 0 and "Black Maria (three players)" in s["message"] for s in seated)
    status, facts = http("GET", f"{server.url}/api/tables/{seated[0]['table']}")
    assert status == 200 and facts["kinds"] == ["human"] * 3
    await queue_emptied(server)
    for c in clients:
        await c.close()
