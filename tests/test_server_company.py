"""Safe company (issue 40, item 5): mutes, blocks, reports and bans of player profiles.

The storage's part on both databases (``store.players``: ``blocked_pairs``, ``is_banned``, the
marks, reports and bans); ``hearts admin`` as a subprocess on each; the service's refusals
through real server processes and WebSocket clients — a banned profile cannot sit or chat on
any of two processes sharing PostgreSQL, a blocked pair is never seated together, a muted
player's chat never reaches the muter.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_server_store_support import empty_database, fresh_database, with_store
from test_server_support import Client, ServerProcess, db_rows, http, server_pair

from hearts.actions import Play
from hearts.server.storage import Storage


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    with fresh_database("company") as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database never opened: a new SQLite file, or the module's PostgreSQL database emptied."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'tables.db'}"
    return empty_database(request.getfixturevalue("pg_database"))


async def three_players(store: Storage) -> None:
    for p in ("ann", "bob", "cy"):
        await store.players.create_player(p, p.title(), f"key-{p}", 25.0, 8.0)


# --- the storage ---------------------------------------------------------------------------


def test_blocked_pairs_and_marks_of_each_backend(db_url: str) -> None:
    """``blocked_pairs`` gives every pair among the ids where one blocked the other, whoever
    blocked; a mute is no block; marks are undone; a mark on oneself or nobody is refused."""

    async def body(store: Storage) -> None:
        await three_players(store)
        players = store.players
        assert await players.blocked_pairs(["ann", "bob", "cy"]) == set()
        assert await players.mark("ann", "bob", "block", True) is True
        assert await players.mark("ann", "bob", "block", True) is False  # (already)
        assert await players.mark("cy", "ann", "mute", True) is True
        assert await players.blocked_pairs(["ann", "bob", "cy"]) == {frozenset({"ann", "bob"})}
        assert await players.blocked_pairs(["bob", "ann"]) == {frozenset({"ann", "bob"})}
        assert await players.blocked_pairs(["bob", "cy"]) == set()
        assert await players.blocked_pairs([]) == set()
        assert await players.mark("cy", "bob", "block", True)
        assert await players.blocked_pairs(["ann", "bob", "cy", "nobody"]) == {
            frozenset({"ann", "bob"}), frozenset({"bob", "cy"})}
        marks = await players.marks("cy")
        assert (marks.muted, marks.blocked) == ({"ann"}, {"bob"})
        # who hides a speaker's chat among listeners: muted it, blocked it, or were blocked by it
        assert await players.hiding("ann", ["bob", "cy"]) == {"bob", "cy"}
        assert await players.hiding("cy", ["ann", "bob"]) == {"bob"}
        assert await players.mark("ann", "bob", "block", False) is True
        assert await players.blocked_pairs(["ann", "bob", "cy"]) == {frozenset({"bob", "cy"})}
        for bad in (("ann", "ann", "mute"), ("ann", "nobody", "block"), ("ann", "bob", "kick")):
            with pytest.raises(ValueError):
                await players.mark(*bad, True)  # type: ignore[arg-type]
        assert await players.blocked_pairs(["ann", "bob", "cy"]) == {frozenset({"bob", "cy"})}

    with_store(db_url, body)


def test_bans_and_reports_of_each_backend(db_url: str) -> None:
    """A ban holds until undone and says why; a report keeps its reason and a copy of the
    table's chat and record as they were when it was made, unchanged by what comes after."""

    async def body(store: Storage) -> None:
        await three_players(store)
        players = store.players
        assert await players.is_banned("ann") is False and await players.is_banned("nobody") is False
        assert await players.ban("ann", "spam") is True
        assert await players.ban("ann", "spam again") is False  # (already)
        assert await players.is_banned("ann") is True and await players.is_banned("bob") is False
        assert [(b.player_id, b.name, b.reason) for b in await players.bans()] == [("ann", "Ann", "spam")]
        with pytest.raises(ValueError, match="no player profile"):
            await players.ban("nobody", "x")
        assert await players.unban("ann") is True and await players.unban("ann") is False
        assert await players.is_banned("ann") is False

        seats = [("human", n, None, f"h{n}") for n in ("Ann", "Bob", "Cy", "Di")]
        await store.log.create_table("t1", {"rules": {}}, 7, seats)
        await store.log.append("t1", 1, Play(0, "2C"))
        await store.talk.add_chat("t1", 1, "hello you")
        report = await players.report("ann", "bob", "rude words", "t1")
        await store.talk.add_chat("t1", 1, "said later")
        await store.log.append("t1", 2, Play(1, "3C"))
        with pytest.raises(ValueError):
            await players.report("ann", "bob", "x" * 501, "t1")
        with pytest.raises(ValueError):
            await players.report("ann", "bob", "   ", "t1")
        with pytest.raises(ValueError):
            await players.report("ann", "ann", "me", "t1")
        [found] = await players.reports()
        assert found.id == report and (found.reporter, found.reported, found.reason) == ("ann", "bob", "rude words")
        assert found.table_id == "t1"
        assert [line["text"] for line in found.chat] == ["hello you"]
        assert found.record is not None and found.record["actions"] == [{"type": "play", "seat": 0, "card": "2C"}]
        assert [s["name"] for s in found.record["seats"]] == ["Ann", "Bob", "Cy", "Di"]

    with_store(db_url, body)


# --- hearts admin --------------------------------------------------------------------------


def admin(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``hearts admin ARGS --db URL`` in a subprocess."""
    return subprocess.run([sys.executable, "-m", "hearts", "admin", *args, "--db", db_url],
                          capture_output=True, text=True, timeout=60)


def test_hearts_admin_bans_unbans_and_lists_reports_on_each_backend(db_url: str) -> None:
    """``hearts admin ban/unban/reports`` on the database ``hearts serve`` uses: a ban holds in
    the store, an unknown profile is one line and exit 1 with nothing changed, the reports
    come with their chat."""

    async def setup(store: Storage) -> None:
        await three_players(store)
        await store.log.create_table("t1", {"rules": {}}, 7, [("human", "Ann", None, "h0"), ("human", "Bob", None, "h1")])
        await store.talk.add_chat("t1", 1, "you play like a bot")
        await store.players.report("ann", "bob", "insults", "t1")

    with_store(db_url, setup)
    done = admin(db_url, "ban", "bob", "--reason", "insults, twice")
    assert done.returncode == 0, done.stderr
    assert "banned bob (Bob)" in done.stdout
    again = admin(db_url, "ban", "bob")
    assert again.returncode == 0 and "already banned" in again.stdout
    unknown = admin(db_url, "ban", "nobody")
    assert unknown.returncode == 1 and unknown.stderr.strip() == "hearts admin: error: no player profile 'nobody'"
    listed = admin(db_url, "reports")
    assert listed.returncode == 0, listed.stderr
    assert "ann (Ann) reported bob (Bob) [banned] at table t1: insults" in listed.stdout
    assert "Seat 2 (Bob): you play like a bot" in listed.stdout
    as_json = json.loads(admin(db_url, "reports", "--json").stdout)
    assert as_json["reports"][0]["reason"] == "insults" and as_json["bans"][0]["player_id"] == "bob"

    async def banned(store: Storage) -> list[bool]:
        return [await store.players.is_banned(p) for p in ("ann", "bob", "cy")]

    assert with_store(db_url, banned) == [False, True, False]
    assert admin(db_url, "unban", "bob").returncode == 0
    assert admin(db_url, "unban", "bob").stdout.strip() == "bob was not banned"
    assert with_store(db_url, banned) == [False, False, False]
    bad = admin("nosuch://x", "reports")
    assert bad.returncode == 2 and "hearts admin: error" in bad.stderr


# --- the service ---------------------------------------------------------------------------

pair = pytest.fixture(server_pair)


@pytest.fixture
def url(pg_database: str) -> str:
    return empty_database(pg_database)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def new_profile(server: ServerProcess, name: str) -> dict[str, Any]:
    status, data = http("POST", server.url + "/api/players", {"name": name})
    assert status == 201, data
    return data  # type: ignore[no-any-return]


def open_table(server: ServerProcess, key: str, **extra: Any) -> dict[str, Any]:
    """A listed table made by the profile of ``key`` (seat 0), three open seats."""
    seats = [{"kind": "human"}, *[{"kind": "open"}] * 3]
    status, table = http("POST", server.url + "/api/tables", {"seats": seats, "listed": True, **extra},
                         headers=auth(key))
    assert status == 201, table
    return table  # type: ignore[no-any-return]


def join(server: ServerProcess, table_id: str, key: str) -> tuple[int, Any]:
    return http("POST", f"{server.url}/api/tables/{table_id}/join", {}, headers=auth(key))


def chats(client: Client) -> list[str]:
    return [line["text"] for m in client.messages if m["type"] == "chat" for line in m["lines"]]


def test_a_banned_profile_cannot_sit_or_chat_on_every_process(url: str, pair: list[ServerProcess]) -> None:
    """Two server processes on one PostgreSQL database; ``hearts admin ban`` (a third process)
    bans Bob: on both processes his hello is refused and closed, his open connection's chat
    is refused and reaches nobody, his profile can neither make nor join a table; unbanned,
    he sits again."""
    a, b = pair
    ann, bob = new_profile(a, "Ann"), new_profile(b, "Bob")
    table = open_table(a, ann["key"])
    status, bob_seat = join(b, table["id"], bob["key"])
    assert status == 200, bob_seat

    async def body() -> None:
        ann_c = await Client(a, table["id"], table["seats"][0]["token"]).connect()
        bob_c = await Client(b, table["id"], bob_seat["token"]).connect()
        await bob_c.send({"type": "chat", "text": "before"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "before" for x in m["lines"]))
        done = admin(url, "ban", bob["id"], "--reason", "abuse")
        assert done.returncode == 0, done.stderr
        refused = await bob_c.request({"type": "chat", "text": "after the ban"},
                                      lambda m: m["type"] == "error")
        assert refused["code"] == "banned" and "banned" in refused["message"]
        assert (await bob_c.closed())[0] == 1008
        for server in (a, b):
            again = Client(server, table["id"], bob_seat["token"])
            await again.connect(hello=False)
            error = await again.request({"type": "hello", "token": bob_seat["token"]}, lambda m: m["type"] == "error")
            assert error["code"] == "banned"
            assert (await again.closed())[0] == 1008
        await ann_c.send({"type": "chat", "text": "still here"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "still here" for x in m["lines"]))
        assert "after the ban" not in chats(ann_c)
        await ann_c.close()

    asyncio.run(body())
    assert db_rows(url, "SELECT text FROM table_talk ORDER BY id") == [("before",), ("still here",)]
    other = open_table(a, ann["key"])
    for server in (a, b):
        status, data = join(server, other["id"], bob["key"])
        assert status == 403 and "banned" in data["error"], data
        status, data = http("POST", server.url + "/api/tables", {"seats": [{"kind": "human"}, *[{"kind": "open"}] * 3]},
                            headers=auth(bob["key"]))
        assert status == 403 and "banned" in data["error"], data
    assert db_rows(url, "SELECT count(*) FROM seats WHERE player_id = %s", (bob["id"],)) == [(1,)]
    assert admin(url, "unban", bob["id"]).returncode == 0
    status, data = join(a, other["id"], bob["key"])
    assert status == 200, data
