"""The storage API (issue 14), the same suite on both backends: SQLite (a file per test) and
PostgreSQL (a database made for this module, emptied before each test; see
test_server_store_support for where the server comes from).

Create, read, append, the seq conflict, finished tables, listing, seat changes, notices within
a process, and the schema: a new database is created at the newest version, an old one is
migrated, a newer one is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from test_server_store_support import fresh_database, never_opened_database, sql, with_store

from hearts.actions import Moon, Pass, Play, to_dict, to_json
from hearts.game import Game
from hearts.record import replay
from hearts.rules import Rules
from hearts.server.notices import SeatNotice
from hearts.server.storage import (
    NotOwner,
    QueueListener,
    SchemaError,
    SeatConflict,
    SeatRow,
    SeqConflict,
    Storage,
    TableRow,
    migrate,
    open_storage,
)
from hearts.server.storage.sqlite import db_path_from_url

SEATS = [("human", "Ann", None, "hash-0"), ("open", None, None, None), ("bot", "Bot (easy)", "easy", None)]


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    with fresh_database("store") as url:
        yield url


db_url = pytest.fixture(params=["sqlite", "postgresql"])(never_opened_database)


FIXTURES = Path(__file__).parent / "fixtures"
"""Today's schemas as pyhearts made them before Alembic: SQLite's (``legacy_sqlite_v6.sql``) and
PostgreSQL's numbered migrations (``legacy_postgresql/000N_*.sql``), kept as they were."""


def engine(url: str) -> sa.Engine:
    """A synchronous engine on a test database (to look at it from outside the store)."""
    if url.startswith("sqlite:"):
        return sa.create_engine(f"sqlite:///{db_path_from_url(url)}")
    return sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def schema_version(url: str) -> int:
    """The schema version a database is at: its Alembic revision, or (made before Alembic)
    SQLite's ``user_version`` or PostgreSQL's newest ``schema_version`` row."""
    e = engine(url)
    try:
        with e.connect() as conn:
            return migrate.version(conn) or 0
    finally:
        e.dispose()


def newest_version(url: str) -> int:
    return migrate.SCHEMA_VERSION


def write_legacy_schema(url: str, version: int) -> None:
    """A database at schema ``version`` as pyhearts wrote it before Alembic: SQLite's version 6
    (the fixture) or first version (:data:`V1_SCHEMA`, ``version`` 0); PostgreSQL's migrations
    1..``version`` (the fixtures) with their ``schema_version`` rows, as its ``migrate`` did."""
    if url.startswith("sqlite:"):
        con = sqlite3.connect(db_path_from_url(url))
        try:
            con.executescript({0: V1_SCHEMA, 6: (FIXTURES / "legacy_sqlite_v6.sql").read_text()}[version])
        finally:
            con.close()
        return
    sql(url, "CREATE TABLE schema_version"
             " (version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())")
    for step in sorted((FIXTURES / "legacy_postgresql").glob("*.sql"))[:version]:
        number, name = step.stem.split("_", 1)
        sql(url, step.read_text())
        sql(url, "INSERT INTO schema_version (version, name) VALUES (%s, %s)", (int(number), name))


# ---------------------------------------------------------------- tables, seats, actions


def played_game(rules: Rules, seed: int) -> Game:
    """A game played to its end by random legal actions."""
    game = Game(rules, seed)
    rng = random.Random(seed)
    while not game.is_over:
        legal = list(game.legal_actions(game.actors()[0]))
        game.apply(legal[rng.randrange(len(legal))])
    return game


def test_a_table_is_created_read_and_logged_to_its_end(db_url: str) -> None:
    """A table's row, seats and log read back as written, by this store and a new one; the
    last action marks it finished in the same transaction; the log replays to the game."""
    history = played_game(Rules(target=30), 11).history
    rules = Rules(target=30)
    config = {"rules": rules.to_dict(), "spectators": False}
    deals = [[str(h) for h in Game(rules, 11).round.dealt]]
    seed = 2**47 + 5  # (the server's seeds have 48 bits)

    async def start(store: Storage) -> None:
        assert await store.log.table("t1") is None and await store.log.actions("t1") == []
        await store.log.create_table("t1", config, seed, SEATS, deals=deals)
        await store.log.create_table("t2", {"rules": {}}, 3, SEATS)
        assert await store.log.table("t1") == TableRow(config, seed, False, deals)
        assert await store.log.table("t2") == TableRow({"rules": {}}, 3, False, None)
        assert await store.log.seats("t1") == [SeatRow(i, *seat) for i, seat in enumerate(SEATS)]
        assert await store.log.unfinished() == ["t1", "t2"]
        for seq, action in enumerate(history[:40], 1):
            await store.log.append("t1", seq, action)

    async def finish(store: Storage) -> Game:
        assert await store.log.actions("t1") == [to_dict(a) for a in history[:40]]
        for seq in range(41, len(history) + 1):
            await store.log.append("t1", seq, history[seq - 1], finished=seq == len(history))
        assert await store.log.actions("t1", after=len(history) - 2) == [to_dict(a) for a in history[-2:]]
        assert await store.log.unfinished() == ["t2"]
        row = await store.log.table("t1")
        assert row is not None and row.finished
        return replay(Game(Rules.from_dict(row.config["rules"]), 11, deals=row.deals), await store.log.actions("t1"))

    with_store(db_url, start)
    restored = with_store(db_url, finish)
    assert restored.history == history and restored.is_over


def test_an_action_is_accepted_once_whichever_store_appends_it(db_url: str) -> None:
    """Row seq of a log is written once: a second append of it (another action, from this store
    or another on the same database, at the same moment) raises SeqConflict and changes nothing."""

    async def body(store: Storage) -> None:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        await store.log.append("t", 1, Play(0, "2C"))
        with pytest.raises(SeqConflict, match="table t: action 1 is already logged") as caught:
            await store.log.append("t", 1, Play(1, "3C"))
        assert (caught.value.table_id, caught.value.seq) == ("t", 1)
        other = await open_storage(db_url)
        try:
            for seq in range(2, 12):
                results = await asyncio.gather(
                    store.log.append("t", seq, Play(0, "4C")), other.log.append("t", seq, Play(1, "5C")),
                    return_exceptions=True,
                )
                assert sorted(type(r).__name__ for r in results) == ["NoneType", "SeqConflict"]
        finally:
            await other.close()
        log = await store.log.actions("t")
        assert len(log) == 11 and log[0] == to_dict(Play(0, "2C"))

    with_store(db_url, body)


def test_a_free_seat_is_taken_once(db_url: str) -> None:
    """update_seat with ``was``: of two requests for one open seat, exactly one takes it."""

    async def body(store: Storage) -> None:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        await store.log.update_seat("t", 1, "human", "Bob", "hash-1", was="open")
        with pytest.raises(SeatConflict, match="seat 1 is not 'open'"):
            await store.log.update_seat("t", 1, "human", "Cy", "hash-2", was="open")
        with pytest.raises(SeatConflict):
            await store.log.update_seat("t", 7, "human", "Cy", "hash-2", was="open")
        assert (await store.log.seats("t"))[1] == SeatRow(1, "human", "Bob", None, "hash-1")
        await store.log.update_seat("t", 1, "open", None, None)  # unconditional
        assert (await store.log.seats("t"))[1] == SeatRow(1, "open", None, None, None, away=False)

    with_store(db_url, body)


def test_the_listing_has_the_listed_tables_with_a_free_seat_first_then_the_newest(db_url: str) -> None:
    """Unfinished tables whose config says ``listed`` (or, saying nothing, that have an open
    seat); a finished one is not listed."""
    full = [("human", "Ann", None, "h")] * 4
    tables = [
        ("old-free", {}, SEATS),  # no "listed" (before the option): listed for its open seat
        ("old-invited", {}, full),
        ("full-listed", {"listed": True}, full),
        ("free-unlisted", {"listed": False}, SEATS),
        ("new-free", {"listed": True}, SEATS),
        ("done", {"listed": True}, SEATS),
    ]

    async def body(store: Storage) -> None:
        assert await store.log.listing() == []
        for table_id, config, seats in tables:
            await store.log.create_table(table_id, {"rules": {"target": 50}, **config}, 1, seats)
            await asyncio.sleep(0.01)
        await store.log.append("done", 1, Play(0, "2C"), finished=True)
        await store.log.append("full-listed", 1, Pass(0, "2C 3C 4C"))
        await store.log.append("full-listed", 2, Pass(1, "5C 6C 7C"))
        listing = await store.log.listing()
        assert [t.id for t in listing] == ["new-free", "old-free", "full-listed"]
        assert [t.seq for t in listing] == [0, 0, 2]
        assert [t.free for t in listing] == [[1], [1], []]
        assert listing[1].config == {"rules": {"target": 50}}
        assert listing[1].seats == tuple(SeatRow(i, *s) for i, s in enumerate(SEATS))
        assert [t.id for t in await store.log.listing(limit=1)] == ["new-free"]

    with_store(db_url, body)


def test_a_listener_hears_each_seat_change_and_no_action(db_url: str) -> None:
    """Within one process (both backends): every seat change, in order, and no action (only a
    table's owner appends, and it needs no notice of it); iteration ends once the listener is
    closed."""

    async def body(store: Storage) -> list[Any]:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        listener = await store.listen()
        await store.log.append("t", 1, Moon(0, "add"))
        with pytest.raises(SeqConflict):
            await store.log.append("t", 1, Moon(0, "subtract"))
        await store.log.update_seat("t", 1, "human", "Bob", "h", was="open")
        assert await store.log.set_away("t", 0, True) and not await store.log.set_away("t", 0, True)
        await store.log.append("t", 2, Play(0, "2C"))
        heard = [await asyncio.wait_for(anext(listener), 5) for _ in range(2)]
        await store.log.update_seat("t", 1, "human", "Cy", "h2", was="human")  # (after the appends: heard next)
        heard.append(await asyncio.wait_for(anext(listener), 5))
        await listener.close()
        return heard + [notice async for notice in listener]

    assert with_store(db_url, body) == [SeatNotice("t", 1), SeatNotice("t", 0), SeatNotice("t", 1)]


def committed_rows(db_url: str, query: str) -> list[tuple[Any, ...]]:
    """``query``'s rows as another connection sees them: what is committed, no more."""
    if db_url.startswith("sqlite"):
        with contextlib.closing(sqlite3.connect(db_path_from_url(db_url))) as conn:
            return conn.execute(query).fetchall()
    return sql(db_url, query)


def test_a_notice_is_heard_only_once_what_it_announces_is_committed(db_url: str) -> None:
    """A chat line and a seat change are announced after their transaction
    commits, never before (both backends): reading the database from another connection as
    soon as a notice is heard finds its row, and SQLite's store hands the listener each notice
    after the commit (the web table shows a chat line to everyone only once it is stored)."""

    async def body(store: Storage) -> list[Any]:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        listener = await store.listen()
        events: list[Any] = []
        if not store.db.postgres:  # (PostgreSQL delivers a NOTIFY at its commit; its batched log has its own driver)
            sa.event.listen(store.db.engine.sync_engine, "commit", lambda conn: events.append("commit"))
        assert isinstance(listener, QueueListener)  # (each backend's, fed by the store or by LISTEN)
        put = listener.put
        listener.put = lambda notice: (events.append("handed"), put(notice))  # type: ignore[method-assign]
        for write, query in [
            (store.talk.add_chat("t", 0, "good luck, all"), "SELECT seat, text FROM table_talk"),
            (store.log.update_seat("t", 1, "human", "Bob", "h", was="open"), "SELECT name FROM seats WHERE seat = 1"),
        ]:
            task = asyncio.ensure_future(write)
            await asyncio.wait_for(anext(listener), 5)
            events.append(committed_rows(db_url, query))  # at once: nothing else runs meanwhile
            await task
        await listener.close()
        return events

    commit = ["commit"] if db_url.startswith("sqlite") else []
    assert with_store(db_url, body) == [
        *commit, "handed", [(0, "good luck, all")], *commit, "handed", [("Bob",)],
    ]


def test_a_seat_is_marked_away_and_back_once(db_url: str) -> None:
    """The away flag (the turn timer ran out; the stand-in plays) is shared by every process:
    of two marks, one changes it; it reads back with the seat and in the listing."""

    async def body(store: Storage) -> None:
        await store.log.create_table("t", {"rules": {}, "listed": True}, 1, SEATS)
        assert not (await store.log.seats("t"))[0].away
        assert await store.log.set_away("t", 0, True)
        assert not await store.log.set_away("t", 0, True)
        assert (await store.log.seats("t"))[0] == SeatRow(0, "human", "Ann", None, "hash-0", away=True)
        assert (await store.log.listing())[0].seats[0].away
        assert await store.log.set_away("t", 0, False) and not await store.log.set_away("t", 0, False)
        assert not (await store.log.seats("t"))[0].away
        assert not await store.log.set_away("t", 9, True)  # no such seat

    with_store(db_url, body)


def test_ping_and_the_job_queue_of_each_backend(db_url: str) -> None:
    """Both answer a ping; PostgreSQL holds the bot jobs (append queues them in its
    transaction), SQLite has no queue and refuses jobs."""

    async def body(store: Storage) -> None:
        await store.ping()
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        if store.jobs is None:
            with pytest.raises(ValueError, match="no bot jobs"):
                await store.log.append("t", 1, Play(0, "2C"), bots=[2])
            assert await store.log.actions("t") == []
            return
        await store.log.append("t", 1, Play(0, "2C"), bots=[2])
        job = await store.jobs.claim_bot_job("w")
        assert job is not None and (job.table_id, job.seat, job.seq, job.attempt) == ("t", 2, 1, 1)
        assert 0 <= job.waited < 5
        assert await store.jobs.complete_bot_job(job)

    with_store(db_url, body)


def test_the_leases_of_each_backend(db_url: str) -> None:
    """Both schemas have the tables' leases, and both stores claim them the same way (the first
    claim at epoch 1, another process refused while it is held, the holder's again the same
    lease); PostgreSQL's processes fence their appends with them (an append with an epoch no
    lease has is refused), SQLite's one process is a cluster of one: its leases are in its
    memory, and an append's epoch is not checked (no other process writes)."""

    async def body(store: Storage) -> None:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        lease = await store.leases.claim("t", "p1")
        assert lease is not None and lease.epoch == 1
        assert await store.leases.claim("t", "p2") is None and await store.leases.claim("t", "p1") == lease
        assert await store.leases.holder("t") == lease
        if store.one_process:
            await store.log.append("t", 1, Play(0, "2C"), epoch=7)
            await store.log.append("t", 2, Play(1, "3C"), finished=True, epoch=0)
            assert len(await store.log.actions("t")) == 2
            return
        with pytest.raises(NotOwner):
            await store.log.append("t", 1, Play(0, "2C"), epoch=7)
        await store.log.append("t", 1, Play(0, "2C"), epoch=lease.epoch)
        assert len(await store.log.actions("t")) == 1

    with_store(db_url, body)
    e = engine(db_url)
    try:
        assert "table_leases" in sa.inspect(e).get_table_names()
    finally:
        e.dispose()


# ---------------------------------------------------------------- schema versions


def test_a_new_database_is_created_at_the_newest_version(db_url: str) -> None:
    with_store(db_url, lambda store: store.log.unfinished())
    assert schema_version(db_url) == newest_version(db_url) >= 2
    with_store(db_url, lambda store: store.log.unfinished())  # opening it again changes nothing
    assert schema_version(db_url) == newest_version(db_url)


def test_a_database_newer_than_this_code_is_refused_and_left_as_it_was(db_url: str) -> None:
    with_store(db_url, lambda store: store.log.create_table("t", {"rules": {}}, 1, SEATS))
    newer = newest_version(db_url) + 1
    e = engine(db_url)
    with e.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = :v"), {"v": f"{newer:04d}"})
    e.dispose()
    with pytest.raises(SchemaError, match=f"schema version {newer}; this server knows versions up to {newer - 1}"):
        with_store(db_url, lambda store: store.log.unfinished())
    assert schema_version(db_url) == newer


V1_SCHEMA = """
CREATE TABLE tables (id TEXT PRIMARY KEY, created REAL NOT NULL DEFAULT (julianday('now')), config TEXT NOT NULL,
                     seed INTEGER NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
CREATE TABLE seats (table_id TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT, bot TEXT,
                    token_hash TEXT, PRIMARY KEY (table_id, seat));
CREATE TABLE events (table_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, seat INTEGER,
                     data TEXT NOT NULL, PRIMARY KEY (table_id, seq));
"""
"""SQLite's first schema (``user_version`` 0: a log of deal, pass, play and moon events); the
web server's tests migrate whole games from it (test_server.py)."""


def write_old_database(url: str, game: Game, seed: int) -> None:
    """A database at the oldest schema version of its backend holding table ``old`` (with
    ``game``'s first round dealt explicitly, and its actions): SQLite's first version (events),
    PostgreSQL's version 1 (before the bot jobs), as pyhearts wrote them before Alembic."""
    config = json.dumps({"rules": game.rules.to_dict()})
    hands = [str(h) for h in game.round.dealt]
    if url.startswith("sqlite:"):
        write_legacy_schema(url, 0)
        con = sqlite3.connect(db_path_from_url(url))
        con.execute("INSERT INTO tables (id, config, seed) VALUES ('old', ?, ?)", (config, seed))
        con.executemany("INSERT INTO seats VALUES ('old', ?, ?, ?, ?, ?)", [(i, *s) for i, s in enumerate(SEATS)])
        events = [("deal", None, {"round": 0, "hands": hands})]
        events += [("pass", a.seat, {"cards": str(a.cards)}) for a in game.history if isinstance(a, Pass)]
        con.executemany("INSERT INTO events VALUES ('old', ?, ?, ?, ?)",
                        [(seq, kind, seat, json.dumps(data)) for seq, (kind, seat, data) in enumerate(events, 1)])
        con.commit()
        con.close()
        return
    write_legacy_schema(url, 1)
    sql(url, "INSERT INTO tables (id, config, seed, deals) VALUES ('old', %s, %s, %s)",
        (config, seed, json.dumps([hands])))
    for i, seat in enumerate(SEATS):
        sql(url, "INSERT INTO seats VALUES ('old', %s, %s, %s, %s, %s)", (i, *seat))
    for seq, action in enumerate(game.history, 1):
        sql(url, "INSERT INTO actions VALUES ('old', %s, %s)", (seq, to_json(action)))


def test_an_old_database_is_migrated_and_its_tables_go_on(db_url: str) -> None:
    """Opened, a database of an older version is brought to the newest, its tables intact:
    restored from the row and the log, and appended to."""
    dealt = Game(Rules(), seed=99)  # the deal the old table logged: not its seed's
    game = Game(Rules(), seed=7, deals=[dealt.round.dealt])
    for seat in range(4):
        game.apply(next(iter(game.legal_actions(seat))))
    write_old_database(db_url, game, 7)
    assert schema_version(db_url) < newest_version(db_url)

    async def body(store: Storage) -> Game:
        row = await store.log.table("old")
        assert row is not None and row.deals == [[str(h) for h in dealt.round.dealt]]
        restored = replay(Game(Rules.from_dict(row.config["rules"]), row.seed, deals=row.deals),
                          await store.log.actions("old"))
        action = next(iter(restored.legal_actions(restored.actors()[0])))
        await store.log.append("old", len(restored.history) + 1, action)
        restored.apply(action)
        return restored

    restored = with_store(db_url, body)
    assert schema_version(db_url) == newest_version(db_url)
    assert restored.history[:4] == game.history and restored.round.dealt == dealt.round.dealt


def write_todays_database(url: str, game: Game) -> None:
    """A database of today's schema (version 6, made before Alembic) holding a table with its
    seats and log, a player linked to a seat, a rated game, a chat line, a finished review and
    (PostgreSQL) a bot job waiting."""
    write_legacy_schema(url, 6)
    pg = not url.startswith("sqlite:")
    mark = "%s" if pg else "?"

    def run(query: str, params: tuple[Any, ...] = ()) -> None:
        query = query.replace("?", mark)
        if pg:
            sql(url, query, params)
        else:
            con = sqlite3.connect(db_path_from_url(url))
            with con:
                con.execute(query, params)
            con.close()

    run("INSERT INTO tables (id, config, seed, finished) VALUES ('today', ?, 2251799813685248, ?)",
        (json.dumps({"rules": game.rules.to_dict(), "rated": True}), True if pg else 1))
    for i, (kind, name, bot, token) in enumerate(SEATS):
        run("INSERT INTO seats (table_id, seat, kind, name, bot, token_hash) VALUES ('today', ?, ?, ?, ?, ?)",
            (i, kind, name, bot, token))
    for seq, action in enumerate(game.history, 1):
        run("INSERT INTO actions (table_id, seq, data) VALUES ('today', ?, ?)", (seq, to_json(action)))
    run("INSERT INTO players (id, name, key_hash, mu, sigma, games) VALUES ('p1', 'Ann', 'key-1', 27.5, 7.25, 1)")
    run("UPDATE seats SET player_id = 'p1', away = ? WHERE table_id = 'today' AND seat = 0", (True if pg else 1,))
    run("INSERT INTO rated_games (table_id, changes) VALUES ('today', ?)", (json.dumps({"p1": {"mu": [25, 27.5]}}),))
    run("INSERT INTO table_talk (table_id, seat, text) VALUES ('today', 0, 'well played')")
    run("INSERT INTO review_jobs (table_id, seat, budget, seed, status, done, total, review, attempt, tries)"
        " VALUES ('today', 0, 40, 5, 'done', 3, 3, ?, 1, 1)", ('{"seat":0,"decisions":[]}',))
    if pg:
        run("INSERT INTO bot_jobs (table_id, seat, seq) VALUES ('today', 2, 4)")


def test_todays_database_is_upgraded_in_place_and_reads_back_the_same(db_url: str) -> None:
    """A database created with the schema of before Alembic (the fixtures), holding data, is
    adopted at its version and upgraded to the newest in place: everything reads back the same
    through the storage layer, and the store goes on writing it."""
    game = played_game(Rules(target=26), 5)
    write_todays_database(db_url, game)
    assert schema_version(db_url) == 6

    async def body(store: Storage) -> None:
        row = await store.log.table("today")
        assert row == TableRow({"rules": game.rules.to_dict(), "rated": True}, 2**51, True, None)
        assert await store.log.actions("today") == [to_dict(a) for a in game.history]
        assert (await store.log.seats("today"))[0] == SeatRow(0, "human", "Ann", None, "hash-0", True, "p1")
        assert await store.log.unfinished() == []
        assert [line.text for line in await store.talk.chat("today")] == ["well played"]
        (played,) = await store.players.played_tables("p1")
        assert (played.id, played.finished, played.created.tzinfo is not None) == ("today", True, True)
        assert [(p.id, p.mu, p.sigma, p.games) for p in await store.players.leaderboard()] == [("p1", 27.5, 7.25, 1)]
        assert await store.players.unrated() == []  # rated already
        assert await store.players.guide("p1") is None  # (revision 0013) never offered: offered once
        await store.players.set_guide("p1", {"status": "on", "table": "today", "seen": ["pass"]})
        assert await store.players.guide("p1") == {"status": "on", "table": "today", "seen": ["pass"]}
        review = await store.reviews.review("today", 0)
        assert review is not None and (review.status, review.done, review.total) == ("done", 3, 3)
        assert review.review is not None and json.loads(review.review) == {"seat": 0, "decisions": []}
        if store.jobs is not None:
            job = await store.jobs.claim_bot_job("w")
            assert job is not None and (job.table_id, job.seat, job.seq) == ("today", 2, 4)
        # and it goes on: a new table, a new chat line after the old one
        await store.log.create_table("next", {"rules": {}}, 1, SEATS)
        await store.log.append("next", 1, Play(0, "2C"))
        line = await store.talk.add_chat("today", 1, "thanks")
        assert [c.text for c in await store.talk.chat("today")] == ["well played", "thanks"] and line.id > 1

    with_store(db_url, body)
    assert schema_version(db_url) == newest_version(db_url)


# ---------------------------------------------------------------- SQLite only


def test_the_sqlite_files_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    """The database and its -wal and -shm files hold the seats' token hashes: mode 0600 (the
    folder made for them 0700), whatever the umask lets through; an older, readable database
    is made private when opened."""
    db = tmp_path / "private" / "tables.db"

    async def write(store: Storage) -> dict[str, int]:
        await store.log.create_table(f"t{len(await store.log.unfinished())}", {"rules": {}}, 1, SEATS)
        files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
        return {f.name: stat.S_IMODE(f.stat().st_mode) for f in files}

    def modes() -> dict[str, int]:
        return with_store(f"sqlite:///{db}", write)

    old = os.umask(0o022)
    try:
        assert modes() == {"tables.db": 0o600, "tables.db-wal": 0o600, "tables.db-shm": 0o600}
        assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
        db.chmod(0o644)
        assert modes() == {"tables.db": 0o600, "tables.db-wal": 0o600, "tables.db-shm": 0o600}
    finally:
        os.umask(old)


def test_an_unknown_database_url_is_refused() -> None:
    with pytest.raises(ValueError, match="unsupported database URL 'mysql://x/y'; use sqlite:///PATH or postgresql://"):
        asyncio.run(open_storage("mysql://x/y"))
