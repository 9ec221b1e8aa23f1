"""What a new user tripped on at the web table (issue 27), on the server (a real server process
and real WebSocket clients): "You" is nobody's stored name; a seat given a new invite link by
the table's creator shuts its old token out; the chat rate counts a seat's connections together;
only the tables created count against the creation rate, and its words are grammatical.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

from test_server_support import (
    BACKENDS,
    Client,
    Database,
    ServerProcess,
    backend_database,
    create_table,
    db_rows,
    http,
    is_pg,
    module_pg_database,
    request,
)

from hearts.server.storage import hash_token

pg_database = pytest.fixture(scope="module")(module_pg_database)
database = pytest.fixture(params=BACKENDS)(backend_database)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(tmp_path_factory.mktemp("newcomer") / "tables.db").start()
    yield s
    s.stop()


def table_count(db: Path) -> int:
    return int(db_rows(db, "SELECT count(*) FROM tables")[0][0])


# ---------------------------------------------------------------- item 2: nobody is "You"


def test_you_is_nobodys_name(server: ServerProcess) -> None:
    """A table, a join, a name chosen at the table or a profile named "You" (any case) is
    refused with a clear error, and nothing changes; a seat without a name is asked for one."""
    before = table_count(server.db)
    for name in ("You", " you ", "YOU"):
        status, data = http("POST", server.url + "/api/tables",
                            {"seats": [{"kind": "human", "name": name}] + [{"kind": "bot", "level": "easy"}] * 3})
        assert status == 400 and "“you” is what the page calls each player" in data["error"], data
        status, data = http("POST", server.url + "/api/players", {"name": name})
        assert status == 400 and "choose a name the others can call you" in data["error"], data
    assert table_count(server.db) == before
    table = create_table(server, [{"kind": "human"}, {"kind": "open"}] + [{"kind": "bot", "level": "easy"}] * 2)
    assert table["seats"][0]["name"] is None
    status, data = http("POST", f"{server.url}/api/tables/{table['id']}/join", {"name": "you"})
    assert status == 400 and "“you” cannot be a name" in data["error"], data

    async def main() -> None:
        person = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        assert person.state is not None and person.state["table"]["unnamed"] == [0]
        error = await person.request({"type": "name", "name": "You"}, lambda m: m["type"] == "error")
        assert error["code"] == "bad_name" and "“You” cannot be a name" in error["message"]
        named = await person.request({"type": "name", "name": "Kim"},
                                     lambda m: m["type"] == "state" and m["table"]["names"][0] == "Kim")
        assert named["table"]["unnamed"] == []
        await person.close()

    asyncio.run(main())
    names = db_rows(server.db, "SELECT name FROM seats WHERE table_id = ? ORDER BY seat", (table["id"],))
    assert [n for (n,) in names][:2] == ["Kim", ""]
    assert not db_rows(server.db, "SELECT 1 FROM seats WHERE lower(name) = 'you'")


# ---------------------------------------------------------------- item 4: the creator frees a seat


def invite(server: ServerProcess, table_id: str, seat: int, body: object) -> tuple[int, dict[str, object]]:
    status, data = http("POST", f"{server.url}/api/tables/{table_id}/seats/{seat}/invite", body)
    return status, data


def test_the_creator_gives_a_seat_a_new_invite_link_and_the_old_one_stops_working(
    database: Database, tmp_path: Path
) -> None:
    """The creator key (answered at creation, only its hash stored) gives Bob's seat a new
    invite link: Bob's two tabs — on another server process, on PostgreSQL — are closed saying
    why, his token opens nothing (through either process), the new one opens the seat, unnamed
    (its person is asked for a name), and Ann plays on. A wrong or missing key, a bot's seat,
    a seat that does not exist are refused, and nothing changes."""
    servers = [ServerProcess(database, logs=tmp_path).start() for _ in range(2 if is_pg(database) else 1)]
    try:
        here, there = servers[0], servers[-1]
        table = create_table(here, [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"},
                                    {"kind": "human"}, {"kind": "bot", "level": "easy"}])
        tid, key = table["id"], table["creator_key"]
        ann_token, bob_token = table["seats"][0]["token"], table["seats"][1]["token"]
        (config,) = db_rows(database, "SELECT config FROM tables WHERE id = ?", (tid,))[0]
        assert key not in str(config) and hash_token(key) in str(config)

        async def main() -> None:
            ann = await Client(here, tid, ann_token).connect()
            bobs = [await Client(there, tid, bob_token).connect() for _ in range(2)]
            for body, seat, status, words in [
                ({"key": "not the key"}, 1, 403, "only the table's creator"),
                ({"key": ann_token}, 1, 403, "only the table's creator"),
                ({}, 1, 400, "'key' is needed"),
                ({"key": key}, 3, 409, "not a person's"),
                ({"key": key}, 4, 400, "does not exist"),
            ]:
                got, data = invite(here, tid, seat, body)
                assert got == status and words in str(data["error"]), (body, seat, data)
            for bob in bobs:  # nothing changed: Bob still plays
                await bob.request({"type": "ping"}, lambda m: m["type"] == "pong")
            got, data = invite(here, tid, 1, {"key": key})
            assert got == 200 and data["seat"] == 1 and str(data["link"]).endswith(f"#seat=1&token={data['token']}")
            new_token = str(data["token"])
            for bob in bobs:
                code, reason = await bob.closed()
                assert code == 1008 and "new invite link" in reason, (code, reason)
                assert any(m["type"] == "error" and m["code"] == "seat_freed" for m in bob.messages)
            await ann.wait(lambda m: m["type"] == "state" and m["table"]["unnamed"] == [1, 2])
            await ann.request({"type": "ping"}, lambda m: m["type"] == "pong")
            for server in servers:
                old = Client(server, tid, bob_token)
                await old.connect(hello=False)
                error = await old.request({"type": "hello", "token": bob_token}, lambda m: m["type"] == "error")
                assert error["code"] == "bad_token"
                await old.close()
            newcomer = await Client(there, tid, new_token).connect()
            assert newcomer.state is not None and newcomer.state["you"] == 1
            assert newcomer.state["table"]["names"][1] == "Player 2"
            for c in (ann, newcomer):
                await c.close()

        asyncio.run(main())
        rows = db_rows(database, "SELECT seat, kind, name, token_hash FROM seats WHERE table_id = ? ORDER BY seat", (tid,))
        assert [r[:3] for r in rows] == [(0, "human", "Ann"), (1, "human", None), (2, "human", None), (3, "bot", rows[3][2])]
        assert rows[1][3] not in (None, hash_token(bob_token))
    finally:
        for s in servers:
            s.stop()


# ---------------------------------------------------------------- item 5: the chat rate is a seat's


def test_the_chat_rate_counts_a_seats_connections_together(server: ServerProcess) -> None:
    """Three tabs of one seat send 15 chat messages at once: 5 are sent (the rate, 5 per 10
    seconds, is the seat's), the others refused in words; another seat still chats."""
    table = create_table(server, [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
                         + [{"kind": "bot", "level": "easy"}] * 2)
    tid = table["id"]

    async def main() -> None:
        tabs = [await Client(server, tid, table["seats"][0]["token"]).connect() for _ in range(3)]
        bob = await Client(server, tid, table["seats"][1]["token"]).connect()
        marks = [len(t.messages) for t in tabs]
        for i in range(15):
            await tabs[i % 3].send({"type": "chat", "text": f"spam {i}"})
        for tab in tabs:
            await tab.request({"type": "ping"}, lambda m: m["type"] == "pong")
        refused = [m for t, mark in zip(tabs, marks, strict=True) for m in t.messages[mark:] if m["type"] == "error"]
        assert len(refused) == 10 and all(m["code"] == "rate_limited" for m in refused)
        assert "at most 5 per 10 seconds" in refused[0]["message"], refused[0]
        await bob.request({"type": "chat", "text": "hi"}, lambda m: m["type"] == "chat" and not m["history"])
        for c in (*tabs, bob):
            await c.close()

    asyncio.run(main())
    texts = [t for (t,) in db_rows(server.db, "SELECT text FROM table_talk WHERE table_id = ? ORDER BY id", (tid,))]
    assert len(texts) == 6 and texts[-1] == "hi"


# ---------------------------------------------------------------- item 6: only tables made count


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(tmp_path_factory.mktemp("strict") / "tables.db", limits={"tables_rate": "3/minute"}).start()
    yield s
    s.stop()


def test_refused_requests_use_up_none_of_the_table_creation_rate(strict: ServerProcess) -> None:
    """Five refused creations (too large, malformed, no seats, "You") count nothing: three
    tables are then made, and the fourth is refused in words ("at most 3 per minute")."""
    seats = [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "level": "easy"}] * 3
    for body, status in [
        ({"seats": seats, "pad": "x" * 20_000}, 413),
        ({"seats": seats, "target": "high"}, 400),
        ({"seats": []}, 400),
        ({"seats": [{"kind": "human", "name": "You"}, *seats[1:]]}, 400),
        ({"seats": seats, "colour": "red"}, 400),
    ]:
        got, data = http("POST", strict.url + "/api/tables", body)
        assert got == status, (body, data)
    for _ in range(3):
        create_table(strict, seats)
    got, headers, data = request("POST", strict.url + "/api/tables", {"seats": seats})
    assert got == 429 and "at most 3 per minute" in data["error"] and int(headers["Retry-After"]) > 0, data
