"""Safe company (issue 40, item 5): mutes, blocks, reports and bans of player profiles.

The storage's part on both databases (``store.players``: ``blocked_pairs``, ``is_banned``, the
marks, reports and bans); ``hearts admin`` as a subprocess on each; the service's refusals
through real server processes and WebSocket clients — a banned profile cannot sit or chat on
any of two processes sharing PostgreSQL, a blocked pair is never seated together, a muted
player's chat never reaches the muter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_server_store_support import empty_database, fresh_database, with_store

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
