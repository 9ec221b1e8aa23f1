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
from test_server_store_support import empty_database, fresh_database, never_opened_database, with_store
from test_server_support import Client, ServerProcess, auth, db_rows, http, new_profile, server_pair

from hearts.actions import Play
from hearts.server.storage import Storage


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    with fresh_database("company") as url:
        yield url


db_url = pytest.fixture(params=["sqlite", "postgresql"])(never_opened_database)


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


def test_a_new_profiles_id_is_letters_and_digits_so_no_command_line_reads_it_as_an_option(tmp_path: Path) -> None:
    """``hearts admin ban PLAYER_ID`` takes the id a profile was given: one that began with
    ``-`` was read as an unknown option (one id in 64 did; a CI run met one), so a new id is
    letters and digits only, as a table's is."""
    from hearts.server.players import create_player

    async def body(store: Storage) -> list[str]:
        return [(await create_player(store, "P"))[0].id for _ in range(300)]

    ids = with_store(f"sqlite:///{tmp_path / 'tables.db'}", body)
    assert len(set(ids)) == 300
    assert [i for i in ids if not i.isascii() or not i.isalnum()] == []


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
    long = admin(db_url, "ban", "cy", "--reason", "x" * 501)
    assert long.returncode == 2 and "at most 500" in long.stderr
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
    # an id of an earlier version may begin with "-": it goes last, after "--", as the help says
    with_store(db_url, lambda store: store.players.create_player("-dee", "Dee", "key-dee", 25.0, 8.0))
    dashed = subprocess.run([sys.executable, "-m", "hearts", "admin", "ban", "--db", db_url, "--", "-dee"],
                            capture_output=True, text=True, timeout=60)
    assert dashed.returncode == 0 and "banned -dee (Dee)" in dashed.stdout, dashed.stderr
    bad = admin("nosuch://x", "reports")
    assert bad.returncode == 2 and "hearts admin: error" in bad.stderr


# --- the service ---------------------------------------------------------------------------

pair = pytest.fixture(server_pair)


@pytest.fixture
def url(pg_database: str) -> str:
    return empty_database(pg_database)


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
    bans Bob: his open connections on both processes are told and closed at once, his hello
    is refused and closed on both, his profile can neither make nor join a table; unbanned,
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
        bob_there = await Client(a, table["id"], bob_seat["token"]).connect()  # his second tab, on the other process
        done = admin(url, "ban", bob["id"], "--reason", "abuse")
        assert done.returncode == 0, done.stderr
        for c in (bob_c, bob_there):  # told at once (NOTIFY), on both processes, and closed
            told = await c.wait(lambda m: m["type"] == "error")
            assert told["code"] == "banned" and "banned" in told["message"]
            assert (await c.closed())[0] == 1008
        for server in (a, b):
            again = Client(server, table["id"], bob_seat["token"])
            await again.connect(hello=False)
            error = await again.request({"type": "hello", "token": bob_seat["token"]}, lambda m: m["type"] == "error")
            assert error["code"] == "banned"
            assert (await again.closed())[0] == 1008
        await ann_c.send({"type": "chat", "text": "still here"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "still here" for x in m["lines"]))
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


def mark(client: Client, seat: int, kind: str, on: bool = True) -> Any:
    return client.request({"type": "mark", "seat": seat, "kind": kind, "on": on},
                          lambda m: m["type"] in ("company", "error"))


def test_a_muted_players_chat_never_reaches_the_muter_on_any_process(url: str, pair: list[ServerProcess]) -> None:
    """Ann (on one process) mutes Bob (on the other): none of his lines reach her — new ones,
    nor the history on reconnecting to either process — while Cy still reads him; the mute is
    her profile's, so it holds at her next table; unmuted, he reaches her again. Marking
    oneself, an empty seat or an unknown one is refused and changes nothing; the marks count
    against the seat's chat rate."""
    a, b = pair
    ann, bob, cy = new_profile(a, "Ann"), new_profile(b, "Bob"), new_profile(b, "Cy")
    table = open_table(a, ann["key"])
    bob_seat = join(b, table["id"], bob["key"])[1]
    cy_seat = join(b, table["id"], cy["key"])[1]

    async def body() -> None:
        ann_c = await Client(a, table["id"], table["seats"][0]["token"]).connect()
        bob_c = await Client(b, table["id"], bob_seat["token"]).connect()
        cy_c = await Client(b, table["id"], cy_seat["token"]).connect()
        await ann_c.wait(lambda m: m["type"] == "company")
        await bob_c.send({"type": "chat", "text": "hi one"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "hi one" for x in m["lines"]))
        for seat, kind, words in ((0, "mute", "yourself"), (3, "mute", "no player"), (9, "block", "no seat"),
                                  (1, "shout", "kind")):
            error = await ann_c.request({"type": "mark", "seat": seat, "kind": kind},
                                        lambda m: m["type"] == "error")
            assert words in error["message"], error
        company = await mark(ann_c, 1, "mute")
        assert company == {"type": "company", "muted": [1], "blocked": [], "chat": True}
        await bob_c.send({"type": "chat", "text": "hi two"})
        await cy_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "hi two" for x in m["lines"]))
        await cy_c.send({"type": "chat", "text": "cy here"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "cy here" for x in m["lines"]))
        assert chats(ann_c) == ["hi one", "cy here"]
        for server in (a, b):  # the history, on either process: none of Bob's lines
            again = await Client(server, table["id"], table["seats"][0]["token"]).connect()
            assert chats(again) == ["cy here"]
            await again.close()
        assert (await mark(ann_c, 1, "mute"))["muted"] == [1]  # (again: the same)
        limited = await mark(ann_c, 1, "mute", on=False)  # the sixth in 10 s: the chat's rate applies
        assert limited["type"] == "error" and limited["code"] == "rate_limited"
        for c in (ann_c, bob_c, cy_c):
            await c.close()

    asyncio.run(body())
    assert db_rows(url, "SELECT player_id, other_id, kind FROM player_marks") == [(ann["id"], bob["id"], "mute")]
    # The mute is Ann's profile's: at another table too.
    other = open_table(b, bob["key"])
    ann_seat = join(a, other["id"], ann["key"])[1]

    async def elsewhere() -> None:
        bob_c = await Client(b, other["id"], other["seats"][0]["token"]).connect()
        ann_c = await Client(a, other["id"], ann_seat["token"]).connect()
        company = await ann_c.wait(lambda m: m["type"] == "company")
        assert company["muted"] == [0]
        await bob_c.send({"type": "chat", "text": "hello again"})
        await bob_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "hello again" for x in m["lines"]))
        await ann_c.send({"type": "chat", "text": "ann speaks"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "ann speaks" for x in m["lines"]))
        assert chats(ann_c) == ["ann speaks"]
        await bob_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "ann speaks" for x in m["lines"]))
        assert (await mark(ann_c, 0, "mute", on=False))["muted"] == []  # unmuted: he reaches her again
        await bob_c.send({"type": "chat", "text": "heard now"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "heard now" for x in m["lines"]))
        assert chats(ann_c) == ["ann speaks", "heard now"]
        await bob_c.close()
        await ann_c.close()

    asyncio.run(elsewhere())
    assert db_rows(url, "SELECT count(*) FROM player_marks") == [(0,)]


def test_a_spectator_with_a_profile_reads_no_line_of_those_it_muted_or_blocked(
        url: str, pair: list[ServerProcess]) -> None:
    """A spectator who watches with their profile's key (``watch`` with ``key``) is spared the
    lines of the people they muted or blocked, or who blocked them, new ones and the history,
    on either process; a spectator without a key reads every line; a wrong key is refused and
    the connection watches nothing."""
    a, b = pair
    ann, bob, cy, dee = (new_profile(a, "Ann"), new_profile(b, "Bob"), new_profile(b, "Cy"), new_profile(a, "Dee"))
    table = open_table(b, bob["key"])
    cy_seat = join(a, table["id"], cy["key"])[1]
    dee_seat = join(a, table["id"], dee["key"])[1]

    async def marks(store: Storage) -> None:  # Ann muted Bob; Dee blocked Ann
        await store.players.mark(ann["id"], bob["id"], "mute", True)
        await store.players.mark(dee["id"], ann["id"], "block", True)

    with_store(url, marks)

    async def body() -> None:
        bob_c = await Client(b, table["id"], table["seats"][0]["token"]).connect()
        cy_c = await Client(a, table["id"], cy_seat["token"]).connect()
        dee_c = await Client(a, table["id"], dee_seat["token"]).connect()
        await bob_c.send({"type": "chat", "text": "bob before"})
        await cy_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "bob before" for x in m["lines"]))
        wrong = await Client(a, table["id"], None).connect(hello=False)
        error = await wrong.request({"type": "watch", "key": "nope"}, lambda m: m["type"] == "error")
        assert error["code"] == "bad_key" and not any(m["type"] == "state" for m in wrong.messages)
        watchers = {}
        for name, server, key in (("ann", a, ann["key"]), ("ann2", b, ann["key"]), ("anyone", b, None)):
            w = await Client(server, table["id"], None).connect(hello=False)
            await w.request({"type": "watch", **({"key": key} if key else {})},
                            lambda m: m["type"] == "chat" and m.get("history"))
            watchers[name] = w
        for c, words in ((bob_c, "bob after"), (dee_c, "dee after"), (cy_c, "cy after")):
            await c.send({"type": "chat", "text": words})
        for words in ("bob after", "dee after", "cy after"):  # (from two processes: in any order)
            await watchers["anyone"].wait(lambda m, w=words: m["type"] == "chat" and any(x["text"] == w for x in m["lines"]))
        for w in (watchers["ann"], watchers["ann2"]):
            await w.wait(lambda m: m["type"] == "chat" and any(x["text"] == "cy after" for x in m["lines"]))
        await asyncio.sleep(0.5)  # (a line that was to be hidden has had the time to come)
        assert chats(watchers["ann"]) == chats(watchers["ann2"]) == ["cy after"]
        assert sorted(chats(watchers["anyone"])) == ["bob after", "bob before", "cy after", "dee after"]
        for c in (bob_c, cy_c, dee_c, wrong, *watchers.values()):
            await c.close()

    asyncio.run(body())


def test_a_blocked_pair_is_never_seated_together(url: str, pair: list[ServerProcess]) -> None:
    """Ann blocks Bob: their chat is hidden both ways; neither can take an open seat of a
    listed table where the other sits, on either process, nor claim an invited seat there with
    a profile; the store's ``blocked_pairs`` (the matchmaker's) has them; the others still
    sit. A report keeps its reason and the table's chat; a bad one is refused, nothing stored."""
    a, b = pair
    ann, bob, cy = new_profile(a, "Ann"), new_profile(b, "Bob"), new_profile(a, "Cy")
    table = open_table(a, ann["key"])
    bob_seat = join(b, table["id"], bob["key"])[1]

    async def body() -> None:
        ann_c = await Client(a, table["id"], table["seats"][0]["token"]).connect()
        bob_c = await Client(b, table["id"], bob_seat["token"]).connect()
        await bob_c.send({"type": "chat", "text": "you again"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "you again" for x in m["lines"]))
        assert (await mark(ann_c, 1, "block"))["blocked"] == [1]
        await ann_c.send({"type": "chat", "text": "blocked you"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "blocked you" for x in m["lines"]))
        await bob_c.send({"type": "chat", "text": "can you hear me"})
        await bob_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "can you hear me" for x in m["lines"]))
        too_long = await ann_c.request({"type": "report", "seat": 1, "reason": "x" * 501},
                                       lambda m: m["type"] == "error")
        assert too_long["code"] == "bad_message" and "500" in too_long["message"]
        reported = await ann_c.request({"type": "report", "seat": 1, "reason": "insults"},
                                       lambda m: m["type"] in ("reported", "error"))
        assert reported["type"] == "reported" and reported["seat"] == 1, reported
        assert "can you hear me" not in chats(ann_c) and "blocked you" not in chats(bob_c)
        for c in (ann_c, bob_c):
            await c.close()

    asyncio.run(body())
    lines = admin(url, "reports").stdout
    assert f"{ann['id']} (Ann) reported {bob['id']} (Bob) at table {table['id']}: insults" in lines
    assert "you again" in lines and db_rows(url, "SELECT count(*) FROM player_reports") == [(1,)]

    mine, theirs = open_table(a, ann["key"]), open_table(b, bob["key"])
    for server in (a, b):
        for t, key in ((mine, bob["key"]), (theirs, ann["key"])):
            status, data = join(server, t["id"], key)
            assert status == 403 and "blocked" in data["error"], data
    invited = http("POST", a.url + "/api/tables", {"seats": [{"kind": "human"}, {"kind": "human", "name": "B"},
                                                             {"kind": "open"}, {"kind": "open"}]},
                   headers=auth(ann["key"]))[1]
    status, data = http("POST", f"{b.url}/api/tables/{invited['id']}/claim", {"token": invited["seats"][1]["token"]},
                        headers=auth(bob["key"]))
    assert status == 403 and "blocked" in data["error"], data
    assert join(b, mine["id"], cy["key"])[0] == 200 and join(a, theirs["id"], cy["key"])[0] == 200
    for t in (mine, theirs, invited):
        people = {p for (p,) in db_rows(url, "SELECT player_id FROM seats WHERE table_id = %s AND player_id IS NOT NULL",
                                        (t["id"],))}
        assert not {ann["id"], bob["id"]} <= people

    async def pairs(store: Storage) -> set[frozenset[str]]:
        return await store.players.blocked_pairs([ann["id"], bob["id"], cy["id"]])

    assert with_store(url, pairs) == {frozenset({ann["id"], bob["id"]})}


def test_chat_off_per_table_and_per_profile(url: str, pair: list[ServerProcess]) -> None:
    """A table made with ``"chat": false`` refuses every line (``chat_off``); a profile whose
    chat is off (``PATCH /api/me``) reads no line and writes none, until it is on again."""
    a, b = pair
    ann, bob = new_profile(a, "Ann"), new_profile(b, "Bob")
    quiet = open_table(a, ann["key"], chat=False)
    table = open_table(a, ann["key"])
    assert http("GET", b.url + f"/api/tables/{quiet['id']}")[1]["chat"] is False  # shown to every client
    assert http("GET", a.url + f"/api/tables/{table['id']}")[1]["chat"] is True
    bob_seat = join(b, table["id"], bob["key"])[1]
    status, data = http("PATCH", a.url + "/api/me", {"chat": "no"}, headers=auth(ann["key"]))
    assert status == 400 and "'chat'" in data["error"]
    status, data = http("PATCH", a.url + "/api/me", {"chat": False}, headers=auth(ann["key"]))
    assert status == 200 and data["chat"] is False and data["name"] == "Ann"

    async def body() -> None:
        q = await Client(a, quiet["id"], quiet["seats"][0]["token"]).connect()
        error = await q.request({"type": "chat", "text": "hello"}, lambda m: m["type"] == "error")
        assert error["code"] == "chat_off"
        ann_c = await Client(a, table["id"], table["seats"][0]["token"]).connect()
        bob_c = await Client(b, table["id"], bob_seat["token"]).connect()
        error = await ann_c.request({"type": "chat", "text": "hello"}, lambda m: m["type"] == "error")
        assert error["code"] == "chat_off"
        await bob_c.send({"type": "chat", "text": "anyone"})
        await bob_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "anyone" for x in m["lines"]))
        assert http("PATCH", b.url + "/api/me", {"chat": True}, headers=auth(ann["key"]))[1]["chat"] is True
        await bob_c.send({"type": "chat", "text": "now"})
        await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "now" for x in m["lines"]))
        assert chats(ann_c) == ["now"]
        for c in (q, ann_c, bob_c):
            await c.close()

    asyncio.run(body())
    assert db_rows(url, "SELECT text FROM table_talk ORDER BY id") == [("anyone",), ("now",)]


def test_a_profile_lists_and_undoes_its_marks_over_http(tmp_path: Path) -> None:
    """``GET /api/me/marks`` lists whom the profile muted and blocked (with their names) and
    its chat setting; ``DELETE /api/me/marks/KIND/ID`` undoes one — a block too, though the
    pair never meets at a table again; a bad kind or no key is refused, nothing changed."""
    server = ServerProcess(tmp_path / "tables.db", logs=tmp_path).start()
    try:
        ann, bob, cy = (new_profile(server, n) for n in ("Ann", "Bob", "Cy"))

        async def marks(store: Storage) -> None:
            await store.players.mark(ann["id"], bob["id"], "block", True)
            await store.players.mark(ann["id"], cy["id"], "mute", True)

        with_store(f"sqlite:///{tmp_path / 'tables.db'}", marks)
        status, listed = http("GET", server.url + "/api/me/marks", headers=auth(ann["key"]))
        assert status == 200, listed
        assert listed == {"muted": [{"id": cy["id"], "name": "Cy"}], "blocked": [{"id": bob["id"], "name": "Bob"}],
                          "chat": True}
        for path, headers, code in ((f"/api/me/marks/kick/{bob['id']}", auth(ann["key"]), 400),
                                    (f"/api/me/marks/block/{bob['id']}", {}, 401)):
            status, data = http("DELETE", server.url + path, headers=headers)
            assert status == code, data
        assert http("GET", server.url + "/api/me/marks", headers=auth(ann["key"]))[1] == listed
        status, after = http("DELETE", f"{server.url}/api/me/marks/block/{bob['id']}", headers=auth(ann["key"]))
        assert status == 200 and after["blocked"] == [] and after["muted"] == listed["muted"], after
        assert http("GET", server.url + "/api/me/marks", headers=auth(bob["key"]))[1]["blocked"] == []
    finally:
        server.stop()


def test_a_ban_refuses_an_open_connections_chat_on_sqlite(tmp_path: Path) -> None:
    """On SQLite ``hearts admin ban`` is another process than the server's, which hears no
    notice of it: the banned profile's open connection is refused its next chat line (the
    database is read), and closed; the line reaches nobody."""
    server = ServerProcess(tmp_path / "tables.db", logs=tmp_path).start()
    try:
        ann, bob = new_profile(server, "Ann"), new_profile(server, "Bob")
        table = open_table(server, ann["key"])
        bob_seat = join(server, table["id"], bob["key"])[1]

        async def body() -> None:
            ann_c = await Client(server, table["id"], table["seats"][0]["token"]).connect()
            bob_c = await Client(server, table["id"], bob_seat["token"]).connect()
            assert admin(f"sqlite:///{tmp_path / 'tables.db'}", "ban", bob["id"]).returncode == 0
            refused = await bob_c.request({"type": "chat", "text": "after the ban"}, lambda m: m["type"] == "error")
            assert refused["code"] == "banned"
            assert (await bob_c.closed())[0] == 1008
            await ann_c.send({"type": "chat", "text": "quiet now"})
            await ann_c.wait(lambda m: m["type"] == "chat" and any(x["text"] == "quiet now" for x in m["lines"]))
            assert "after the ban" not in chats(ann_c)
            await ann_c.close()

        asyncio.run(body())
    finally:
        server.stop()


def test_a_rematch_never_seats_a_blocked_pair_again(db_url: str) -> None:
    """A rematch would seat the same profiles again: refused (``blocked``) once one of them
    blocked another, allowed otherwise."""
    from hearts.server.company import Blocked, check_rematch

    async def body(store: Storage) -> None:
        await three_players(store)
        await store.log.create_table("t1", {"rules": {}}, 7, [("human", n, None, f"h{n}") for n in "ABCD"])
        for seat, player in enumerate(("ann", "bob", "cy")):
            await store.players.link_seat("t1", seat, player)
        await check_rematch(store, "t1")
        await store.players.mark("cy", "ann", "mute", True)
        await check_rematch(store, "t1")  # (a mute is no block)
        await store.players.mark("cy", "bob", "block", True)
        with pytest.raises(Blocked):
            await check_rematch(store, "t1")

    with_store(db_url, body)
