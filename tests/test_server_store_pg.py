"""The PostgreSQL storage past one process (issue 14): notices heard by other processes, the
database deciding which of several processes' appends of one seq is accepted, bot jobs claimed
by concurrent workers (SKIP LOCKED, fairly across tables, a lease another worker takes over),
migrations run once when processes start together.

Real PostgreSQL: a database made for this module and emptied before each test (see
test_server_store_support for where the server comes from).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import queue
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from test_server_store_support import (
    append_racer,
    bot_worker,
    empty_database,
    fresh_database,
    one_append,
    spawn,
    sql,
)

from hearts.actions import Play, to_dict, to_json
from hearts.server.storage import (
    ActionNotice,
    BotJob,
    JobNotice,
    SeqConflict,
    StoreUnavailable,
    open_storage,
)

psycopg = pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

from hearts.server.storage.postgres import PostgresStorage  # noqa: E402

SEATS = [("human", "Ann", None, None), ("bot", "Bot", "hard", None), ("bot", "Bot", "hard", None)]


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    with fresh_database("store_pg") as url:
        yield url


@pytest.fixture
def url(pg_database: str) -> str:
    """The module's database, emptied (never migrated)."""
    return empty_database(pg_database)


def run(url: str, body: Any) -> Any:
    """Open a PostgreSQL store at ``url``, await ``body(store)``, close it."""

    async def main() -> Any:
        store = await PostgresStorage.open(url)
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(main())


def drain(results: Any, count: int) -> list[Any]:
    """``count`` items from a multiprocessing queue (failing after a minute without one)."""
    out = []
    for _ in range(count):
        try:
            out.append(results.get(timeout=60))
        except queue.Empty:
            raise AssertionError(f"only {len(out)} of {count} results came") from None
    return out


# ---------------------------------------------------------------- notices


def test_notify_is_heard_by_another_process(url: str) -> None:
    """An action appended by another process is announced (table id and seq: ids only) once
    committed; a listener reads the row itself."""

    async def body(store: PostgresStorage) -> None:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        listener = await store.listen()
        process = spawn(one_append, url, "t", 1)
        notice = await asyncio.wait_for(anext(listener), 60)
        assert notice == ActionNotice("t", 1, to_dict(Play(0, "2C")))
        assert await store.log.actions("t", after=0) == [{"type": "play", "seat": 0, "card": "2C"}]
        await asyncio.to_thread(process.join, 30)
        assert process.exitcode == 0
        await listener.close()

    run(url, body)


def test_a_refused_append_is_not_announced_and_each_service_hears_its_own_channel(url: str) -> None:
    async def body(store: PostgresStorage) -> list[Any]:
        other_service = await PostgresStorage.open(url, channel="other-service")
        try:
            listener = await store.listen()
            elsewhere = await other_service.listen()
            await store.log.create_table("t", {"rules": {}}, 1, SEATS)
            await store.log.append("t", 1, Play(0, "2C"))
            with pytest.raises(SeqConflict):
                await other_service.log.append("t", 1, Play(0, "3C"))
            await other_service.log.append("t", 2, Play(1, "3C"))
            heard = [await asyncio.wait_for(anext(listener), 10)]
            assert await asyncio.wait_for(anext(elsewhere), 10) == ActionNotice("t", 2, to_dict(Play(1, "3C")))
            await listener.close()
            return heard + [n async for n in listener]
        finally:
            await other_service.close()

    assert run(url, body) == [ActionNotice("t", 1, to_dict(Play(0, "2C")))]


def test_a_listener_whose_connection_is_lost_says_so(url: str) -> None:
    """Notices may have been missed: iteration raises StoreUnavailable (the server then opens a
    new listener and resyncs its tables)."""

    async def body(store: PostgresStorage) -> None:
        listener = await store.listen()
        killed = sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                          " WHERE datname = current_database() AND query LIKE 'LISTEN %%'")
        assert killed == [(True,)]
        with pytest.raises(StoreUnavailable, match="the listener lost its connection"):
            await asyncio.wait_for(anext(listener), 10)
        await listener.close()

    run(url, body)


# ---------------------------------------------------------------- the database decides the order


def test_of_processes_appending_the_same_seq_exactly_one_wins(url: str) -> None:
    """Four processes append rows 1..25 of one log, meeting before each row: each row is
    accepted once, from one of them, and holds that one's action."""
    racers, seqs = 4, 25
    run(url, lambda store: store.log.create_table("race", {"rules": {}}, 1, SEATS))
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(racers), ctx.Queue()
    processes = [spawn(append_racer, url, name, seqs, barrier, results) for name in range(racers)]
    outcomes = drain(results, racers * seqs)
    for p in processes:
        p.join(30)
        assert p.exitcode == 0
    winners = {seq: name for name, seq, won in outcomes if won}
    assert sorted(winners) == list(range(1, seqs + 1))
    assert Counter(won for _, _, won in outcomes) == Counter({True: seqs, False: seqs * (racers - 1)})
    rows = sql(url, "SELECT seq, data::text FROM actions WHERE table_id = 'race' ORDER BY seq")
    assert rows == [(seq, to_json(Play(winners[seq], "2C"))) for seq in range(1, seqs + 1)]


def test_actions_appended_together_are_logged_and_announced_each_with_its_own_outcome(url: str) -> None:
    """Forty tables' actions appended at once (they share statements): each is logged and
    announced once; a second action at a ``seq`` already taken is refused alone (SeqConflict,
    not announced); an action the database cannot take (no such table) fails alone."""

    async def body(store: PostgresStorage) -> None:
        tables = [f"t{i}" for i in range(40)]
        for table_id in tables:
            await store.log.create_table(table_id, {"rules": {}}, 1, SEATS)
        await store.log.append("t0", 1, Play(0, "2C"))
        listener = await store.listen()
        attempts = [store.log.append(t, 2 if t == "t0" else 1, Play(1, "3C")) for t in tables]
        attempts += [store.log.append("t5", 1, Play(2, "4C")), store.log.append("no-such-table", 1, Play(0, "2C"))]
        outcomes = await asyncio.gather(*attempts, return_exceptions=True)
        assert outcomes[:40] == [None] * 40
        assert isinstance(outcomes[40], SeqConflict)
        assert isinstance(outcomes[41], psycopg.errors.ForeignKeyViolation)
        heard = [await asyncio.wait_for(anext(listener), 10) for _ in tables]
        assert sorted((n.table_id, n.seq) for n in heard) == sorted((t, 2 if t == "t0" else 1) for t in tables)
        assert all(n.action == to_dict(Play(1, "3C")) for n in heard)
        assert await store.log.actions("t5") == [to_dict(Play(1, "3C"))]
        await listener.close()
        assert [n async for n in listener] == []

    run(url, body)


# ---------------------------------------------------------------- bot jobs


def test_a_job_is_queued_once_and_announced(url: str) -> None:
    async def body(store: PostgresStorage) -> None:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        listener = await store.listen()
        assert await store.jobs.enqueue_bot_job("t", 1, 0)
        assert not await store.jobs.enqueue_bot_job("t", 1, 0)  # another process queued it too
        assert await store.jobs.enqueue_bot_job("t", 2, 0)
        heard = [await asyncio.wait_for(anext(listener), 10) for _ in range(2)]
        assert heard == [JobNotice("t", 1, 0), JobNotice("t", 2, 0)]
        await listener.close()

    run(url, body)


def test_two_workers_never_claim_the_same_job(url: str) -> None:
    """Two worker processes claim and complete 60 jobs of 12 tables until none is left: every
    job is claimed exactly once."""
    tables = 12

    async def queue_jobs(store: PostgresStorage) -> None:
        for t in range(tables):
            await store.log.create_table(f"t{t}", {"rules": {}}, t, SEATS)
        for seq in range(5):
            for t in range(tables):
                await store.jobs.enqueue_bot_job(f"t{t}", 1 + seq % 2, seq)

    run(url, queue_jobs)
    results = multiprocessing.get_context("spawn").Queue()
    workers = [spawn(bot_worker, url, name, results) for name in ("w1", "w2")]
    claims: list[tuple[str, int, str]] = []
    done = 0
    while done < len(workers):
        name, job_id, table_id = drain(results, 1)[0]
        if job_id is None:
            done += 1
        else:
            claims.append((name, job_id, table_id))
    for w in workers:
        w.join(30)
        assert w.exitcode == 0
    assert len(claims) == 5 * tables and len({job_id for _, job_id, _ in claims}) == 5 * tables
    assert {name for name, _, _ in claims} == {"w1", "w2"}  # both took part
    assert sql(url, "SELECT count(*) FROM bot_jobs") == [(0,)]


def test_claims_are_fair_across_tables(url: str) -> None:
    """Oldest first, but at most one claimed job per table: a table with many jobs queued
    (its bots all expert) holds one worker, and the other tables' jobs go to the others."""

    async def body(store: PostgresStorage) -> None:
        for t in ("busy", "a", "b"):
            await store.log.create_table(t, {"rules": {}}, 1, SEATS)
        for seq in range(4):
            await store.jobs.enqueue_bot_job("busy", 1, seq)
        await store.jobs.enqueue_bot_job("a", 1, 0)
        await store.jobs.enqueue_bot_job("b", 2, 0)
        first = await store.jobs.claim_bot_job("w1")
        assert first is not None and (first.table_id, first.seq) == ("busy", 0)
        others = [await store.jobs.claim_bot_job(w) for w in ("w2", "w3", "w4")]
        assert [(j.table_id, j.seq) if j else None for j in others] == [("a", 0), ("b", 0), None]
        assert await store.jobs.complete_bot_job(first)
        following = await store.jobs.claim_bot_job("w1")
        assert following is not None and (following.table_id, following.seq) == ("busy", 1)

    run(url, body)


def test_concurrent_claims_on_one_table_give_one_job(url: str) -> None:
    """Claims at the same moment from several connections, one table with jobs queued: one
    claim gets a job, the others none (the database keeps one claimed job per table)."""

    async def body(store: PostgresStorage) -> None:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        for seq in range(6):
            await store.jobs.enqueue_bot_job("t", 1, seq)
        others = [await PostgresStorage.open(url, max_size=1) for _ in range(5)]
        try:
            for _ in range(3):
                got = await asyncio.gather(*(s.jobs.claim_bot_job(f"w{i}") for i, s in enumerate([store, *others])))
                jobs = [j for j in got if j is not None]
                assert len(jobs) == 1
                assert await store.jobs.complete_bot_job(jobs[0])
        finally:
            for s in others:
                await s.close()

    run(url, body)


def test_a_job_whose_lease_expired_is_taken_over_by_another_worker(url: str) -> None:
    """A worker that died (never completes) holds its job until the lease expires; then another
    worker claims it (attempt 2), and the first one's late completion is refused."""

    async def body(store: PostgresStorage) -> tuple[BotJob, BotJob]:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        await store.jobs.enqueue_bot_job("t", 1, 0)
        lost = await store.jobs.claim_bot_job("dies", lease=0.5)
        assert lost is not None and lost.attempt == 1
        assert await store.jobs.claim_bot_job("w2") is None  # leased
        await asyncio.sleep(0.6)
        taken = await store.jobs.claim_bot_job("w2")
        assert taken is not None
        assert not await store.jobs.complete_bot_job(lost)
        assert await store.jobs.complete_bot_job(taken)
        return lost, taken

    lost, taken = run(url, body)
    assert (taken.id, taken.worker, taken.attempt) == (lost.id, "w2", 2) and taken.lease_until > lost.lease_until


# ---------------------------------------------------------------- schema


def test_processes_starting_together_migrate_once(url: str) -> None:
    async def body() -> None:
        stores = await asyncio.gather(*(open_storage(url) for _ in range(4)))
        for s in stores:
            await s.close()

    asyncio.run(body())
    assert sql(url, "SELECT version_num FROM alembic_version") == [("0007",)]
    assert sql(url, "SELECT count(*) FROM pg_tables WHERE tablename = 'schema_version'") == [(0,)]


def test_an_unreachable_server_is_a_clear_error() -> None:
    with pytest.raises(StoreUnavailable, match=r"cannot connect to postgresql://nobody@127.0.0.1:1/none"):
        asyncio.run(open_storage("postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=2"))


def test_the_waits_for_a_connection_are_counted_for_the_metrics(url: str) -> None:
    """A pool of one connection, held: a second statement waits for it, seen as one waiting,
    then counted as a wait with its time once it ran (``/metrics``: ``hearts_database_pool_*``)."""

    async def main() -> None:
        store = await PostgresStorage.open(url, max_size=1)
        try:
            assert store.pool_stats()["requests_queued"] == 0
            async with store.db.begin():  # the pool's one connection
                waiting = asyncio.get_running_loop().create_task(store.log.table("none"))
                for _ in range(100):
                    await asyncio.sleep(0.01)
                    if store.pool_stats()["requests_waiting"] == 1:
                        break
                figures = store.pool_stats()
                assert (figures["requests_waiting"], figures["pool_available"]) == (1, 0), figures
                await asyncio.sleep(0.05)
            assert await waiting is None
            figures = store.pool_stats()
            assert (figures["requests_waiting"], figures["requests_queued"]) == (0, 1), figures
            assert figures["requests_wait_ms"] >= 40 and figures["requests_errors"] == 0
            await store.log.table("none")  # a connection free: no wait
            assert store.pool_stats()["requests_queued"] == 1
        finally:
            await store.close()

    asyncio.run(main())
