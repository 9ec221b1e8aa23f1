"""The PostgreSQL storage past one process (issue 14): notices heard by other processes, the
database deciding which of several processes' appends of one seq is accepted, bot jobs claimed
by concurrent workers (SKIP LOCKED, fairly across tables, a lease another worker takes over),
one owner per table (leases with a fencing epoch: an old owner's appends are refused),
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
from hearts.server.notices import (
    AliveNotice,
    JobNotice,
    PresenceNotice,
    SeatNotice,
    notice_payload,
)
from hearts.server.storage import (
    BotJob,
    Lease,
    NotOwner,
    SeqConflict,
    StoreUnavailable,
    open_storage,
)

psycopg = pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

from hearts.server.storage.postgres import (  # noqa: E402
    PostgresStorage,
    pack_payloads,
)

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
    """The bot job an action appended by another process queues is announced (ids only) once
    committed; a listener reads the row itself."""

    async def body(store: PostgresStorage) -> None:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        listener = await store.listen()
        process = spawn(one_append, url, "t", 1, [2])
        notice = await asyncio.wait_for(anext(listener), 60)
        assert notice == JobNotice("t", 2, 1)
        assert await store.log.actions("t", after=0) == [{"type": "play", "seat": 0, "card": "2C"}]
        await asyncio.to_thread(process.join, 30)
        assert process.exitcode == 0
        await listener.close()

    run(url, body)


def test_notices_sent_together_go_packed_and_are_heard_each_in_order(url: str) -> None:
    """Notices announced together travel packed in as few payloads as fit PostgreSQL's 8000
    bytes (a JSON array each); a listener hears every one of them, in order, as itself."""
    notices = [PresenceNotice(f"t{i}" + "x" * (i % 50), f"p{i % 3}", [i % 4], i) for i in range(300)]
    packed = pack_payloads([notice_payload(n) for n in notices])
    assert 1 < len(packed) < 300 and all(len(p.encode()) <= 8000 for p in packed)

    async def body(store: PostgresStorage) -> list[Any]:
        other = await PostgresStorage.open(url)
        try:
            listener = await store.listen()
            assert all(await asyncio.gather(*(other.notify(n) for n in notices)))  # (queued together)
            heard = [await asyncio.wait_for(anext(listener), 10) for _ in notices]
            await listener.close()
            return heard
        finally:
            await other.close()

    assert run(url, body) == notices


def test_notices_sent_after_the_announcers_connection_was_cut_are_heard(url: str) -> None:
    """The connection the notices go out on, cut while idle (the database restarted, say), is
    replaced: the next notices are sent again on a new one and heard, none twice."""
    first, second = SeatNotice("t", 1), SeatNotice("t", 2)

    async def body(store: PostgresStorage) -> list[Any]:
        other = await PostgresStorage.open(url)
        try:
            listener = await store.listen()
            assert await other.notify(first)
            heard = [await asyncio.wait_for(anext(listener), 10)]
            killed = sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                              " WHERE datname = current_database() AND query LIKE 'SELECT pg_notify(%%'")
            assert killed == [(True,)]
            assert await other.notify(second)
            heard.append(await asyncio.wait_for(anext(listener), 10))
            await listener.close()
            return heard + [n async for n in listener]
        finally:
            await other.close()

    assert run(url, body) == [first, second]


def test_a_refused_append_is_not_announced_and_each_service_hears_its_own_channel(url: str) -> None:
    async def body(store: PostgresStorage) -> list[Any]:
        other_service = await PostgresStorage.open(url, channel="other-service")
        try:
            listener = await store.listen()
            elsewhere = await other_service.listen()
            await store.log.create_table("t", {"rules": {}}, 1, SEATS)
            await store.log.append("t", 1, Play(0, "2C"), bots=[2])
            with pytest.raises(SeqConflict):
                await other_service.log.append("t", 1, Play(0, "3C"), bots=[1])
            await other_service.log.append("t", 2, Play(1, "3C"), bots=[2])
            heard = [await asyncio.wait_for(anext(listener), 10)]
            assert await asyncio.wait_for(anext(elsewhere), 10) == JobNotice("t", 2, 2)
            await listener.close()
            return heard + [n async for n in listener]
        finally:
            await other_service.close()

    assert run(url, body) == [JobNotice("t", 2, 1)]


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
    """Forty tables' actions appended at once (they share statements): each is logged and its
    bot job announced once; a second action at a ``seq`` already taken is refused alone
    (SeqConflict, its job neither queued nor announced); an action the database cannot take
    (no such table) fails alone."""

    async def body(store: PostgresStorage) -> None:
        tables = [f"t{i}" for i in range(40)]
        for table_id in tables:
            await store.log.create_table(table_id, {"rules": {}}, 1, SEATS)
        await store.log.append("t0", 1, Play(0, "2C"))
        listener = await store.listen()
        attempts = [store.log.append(t, 2 if t == "t0" else 1, Play(1, "3C"), bots=[2]) for t in tables]
        attempts += [store.log.append("t5", 1, Play(2, "4C"), bots=[3]),
                     store.log.append("no-such-table", 1, Play(0, "2C"), bots=[3])]
        outcomes = await asyncio.gather(*attempts, return_exceptions=True)
        assert outcomes[:40] == [None] * 40
        assert isinstance(outcomes[40], SeqConflict)
        assert isinstance(outcomes[41], psycopg.errors.ForeignKeyViolation)
        heard = [await asyncio.wait_for(anext(listener), 10) for _ in tables]
        assert sorted(heard, key=repr) == sorted((JobNotice(t, 2, 2 if t == "t0" else 1) for t in tables), key=repr)
        assert [(await store.log.actions(t))[-1] for t in tables] == [to_dict(Play(1, "3C"))] * 40
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
    context = multiprocessing.get_context("spawn")
    results, barrier = context.Queue(), context.Barrier(2)
    workers = [spawn(bot_worker, url, name, results, barrier) for name in ("w1", "w2")]
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


# ---------------------------------------------------------------- one owner per table


def test_a_table_has_one_lease_holder_at_a_time(url: str) -> None:
    """A claims the table (epoch 1; claiming again keeps it), B is refused while A's lease
    lives; A renews it, B cannot; once A releases it B claims it at the next epoch, and A can
    neither renew it nor hand it over; B hands it to A (the next epoch again)."""

    async def body(store: PostgresStorage) -> None:
        leases = store.leases
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        assert await leases.holder("t") is None
        a = await leases.claim("t", "A")
        assert a == Lease("t", "A", 1) and await leases.claim("t", "A") == a
        assert await leases.claim("t", "B") is None
        assert await leases.holder("t") == a
        assert await leases.renew("A", [a]) == {"t"} and await leases.renew("B", [a]) == set()
        await leases.release("B", ["t"])  # not B's: nothing changes
        assert await leases.holder("t") == a
        await leases.release("A", ["t"])
        assert await leases.holder("t") is None
        b = await leases.claim("t", "B")
        assert b == Lease("t", "B", 2)
        assert await leases.renew("A", [a]) == set() and await leases.claim("t", "A") is None
        assert await leases.hand_over(a, "C") is None
        handed = await leases.hand_over(b, "A")
        assert handed == Lease("t", "A", 3) == await leases.holder("t")
        assert await leases.renew("B", [b]) == set() and await leases.renew("A", [handed]) == {"t"}
        assert await leases.renew("A", []) == set()
        await leases.release("A", [])

    run(url, body)


def test_a_lease_not_renewed_runs_out(url: str) -> None:
    """A lease lasts its length from the last claim or renewal, by the database's clock; run
    out, nobody holds it (holder() says none) until its holder renews it — possible while
    nobody took it (the same epoch: nobody else appended) — or anyone claims it, at a new
    epoch; once another process took it, the old holder's renewal fails."""

    def left() -> float:
        """Seconds the lease of table t has to run, by the database's clock."""
        return float(sql(url, "SELECT extract(epoch FROM until - now()) FROM table_leases")[0][0])

    async def body(store: PostgresStorage) -> None:
        leases = store.leases
        leases.lease = 0.8
        first = await leases.claim("t", "A")  # (no table row is needed: claimed while being made)
        assert first == Lease("t", "A", 1)
        await asyncio.sleep(0.4)
        assert left() <= 0.4 and await leases.renew("A", [first]) == {"t"}
        assert left() > 0.5 and await leases.holder("t") == first
        await asyncio.sleep(0.9)
        assert await leases.holder("t") is None and await leases.renew("A", [first]) == {"t"}
        assert await leases.holder("t") == first
        await asyncio.sleep(0.9)
        again = await leases.claim("t", "A")
        assert again == Lease("t", "A", 2)
        assert await leases.claim("t", "B") is None
        await asyncio.sleep(0.9)
        assert await leases.claim("t", "B") == Lease("t", "B", 3)
        assert await leases.renew("A", [again]) == set()

    run(url, body)


def test_the_orphans_are_the_unfinished_tables_in_play_whose_lease_ran_out(url: str) -> None:
    """Orphans: unfinished tables in play (among those named live, or whose bots wait) whose
    lease has run out (released here), the longest run out first, then those never claimed
    whose bots wait for a move; not a table held, nor a finished one, nor an idle one (not
    named: taken when opened, issue 41), nor one of people never claimed (the first process
    its clients reach claims it)."""

    async def body(store: PostgresStorage) -> None:
        for table_id in ("held", "released", "over", "never", "later", "idle"):
            await store.log.create_table(table_id, {"rules": {}}, 1, SEATS)
        for table_id in ("held", "released", "over", "later", "idle"):
            assert await store.leases.claim(table_id, "A") is not None
        await store.leases.release("A", ["released"])
        await asyncio.sleep(0.05)
        await store.leases.release("A", ["later", "idle"])
        await store.log.append("over", 1, Play(0, "2C"), finished=True)
        live = ["held", "released", "over", "later", "never", "unknown"]
        assert await store.leases.orphans(10, live) == ["released", "later"]
        assert await store.leases.orphans(1, live) == ["released"]
        assert await store.leases.orphans(10, []) == []
        assert await store.leases.claim("released", "B") is not None
        assert await store.leases.orphans(10, live) == ["later"]
        await store.jobs.enqueue_bot_job("never", 1, 0)  # its bot waits: it needs an owner
        await store.jobs.enqueue_bot_job("idle", 1, 0)  # (in play, named or not)
        assert await store.leases.orphans(10, live) == ["idle", "later", "never"]
        assert await store.leases.orphans(10, []) == ["idle", "never"]

    run(url, body)


def test_one_process_owns_a_table_and_an_old_epoch_cannot_append(url: str) -> None:
    """A owns the table and appends with its epoch (logged); frozen past its lease,
    it loses the table to B (the next epoch). A's appends with its old epoch are then refused
    — a plain action (the batches) and ones that queue a bot job or end the game (a
    transaction) alike — and leave no row, job or notice; B appends at the next seq."""

    async def body(store: PostgresStorage) -> None:
        other = await PostgresStorage.open(url)  # process B
        try:
            await store.log.create_table("t", {"rules": {}}, 1, SEATS)
            listener = await store.listen()
            store.leases.lease = 0.3
            a = await store.leases.claim("t", "A")
            assert a is not None
            await store.log.append("t", 1, Play(0, "2C"), epoch=a.epoch)
            await asyncio.sleep(0.4)  # A is frozen; its lease runs out
            b = await other.leases.claim("t", "B")
            assert b == Lease("t", "B", a.epoch + 1)
            for late in ({}, {"bots": [1]}, {"finished": True}, {"bots": [2], "finished": True}):
                with pytest.raises(NotOwner) as refused:
                    await store.log.append("t", 2, Play(1, "3C"), epoch=a.epoch, **late)
                assert (refused.value.table_id, refused.value.epoch) == ("t", a.epoch)
            await other.log.append("t", 2, Play(1, "4C"), bots=[2], epoch=b.epoch)
            await other.log.append("t", 3, Play(2, "5C"), epoch=b.epoch)
            with pytest.raises(NotOwner):
                await store.log.append("t", 4, Play(0, "6C"), epoch=a.epoch)
            await store.notify(AliveNotice("A"))  # after A's refused appends, in its order
            heard = [await asyncio.wait_for(anext(listener), 10) for _ in range(2)]
            await asyncio.sleep(0.2)
            await listener.close()
            heard += [n async for n in listener]
        finally:
            await other.close()
        assert heard == [JobNotice("t", 2, 2), AliveNotice("A")]
        assert await store.log.actions("t") == [to_dict(Play(0, "2C")), to_dict(Play(1, "4C")), to_dict(Play(2, "5C"))]
        assert sql(url, "SELECT seat, seq FROM bot_jobs WHERE table_id = 't'") == [(2, 2)]
        row = await store.log.table("t")
        assert row is not None and not row.finished

    run(url, body)


def test_a_batch_mixes_fenced_and_unfenced_actions_each_with_its_own_outcome(url: str) -> None:
    """Actions appended at once (one statement): with an old epoch (refused: NotOwner), with
    the owner's (logged), with none (logged, unchecked), at a seq taken (SeqConflict), on a
    table with no lease at all (NotOwner); of two actions of one seq in the batch, the old
    epoch's refused and the owner's logged and its bot job announced."""

    async def body(store: PostgresStorage) -> None:
        for table_id in ("t", "u", "free"):
            await store.log.create_table(table_id, {"rules": {}}, 1, SEATS)
        await store.leases.claim("t", "A")
        await store.leases.release("A", ["t"])
        b = await store.leases.claim("t", "B")
        assert b is not None and b.epoch == 2
        await store.log.append("t", 1, Play(0, "2C"), epoch=b.epoch)
        listener = await store.listen()
        outcomes = await asyncio.gather(
            store.log.append("t", 2, Play(1, "3C"), bots=[2], epoch=1),
            store.log.append("t", 2, Play(1, "4C"), bots=[3], epoch=b.epoch),
            store.log.append("u", 1, Play(0, "2C"), bots=[1]),
            store.log.append("t", 1, Play(0, "3C"), bots=[2], epoch=b.epoch),
            store.log.append("free", 1, Play(0, "2C"), bots=[2], epoch=1),
            return_exceptions=True,
        )
        assert [type(o) for o in outcomes] == [NotOwner, type(None), type(None), SeqConflict, NotOwner]
        heard = [await asyncio.wait_for(anext(listener), 10) for _ in range(2)]
        assert sorted(heard, key=repr) == [JobNotice("t", 3, 2), JobNotice("u", 1, 1)]
        assert await store.log.actions("t") == [to_dict(Play(0, "2C")), to_dict(Play(1, "4C"))]
        assert await store.log.actions("free") == []
        await listener.close()
        assert [n async for n in listener] == []

    run(url, body)


def test_a_games_last_action_in_a_batch_marks_its_table_finished_only_if_logged(url: str) -> None:
    """A game's last action goes with the others in a batch (one statement): logged, its table
    is finished; refused (an old epoch, or its seq taken), its table is not; an action that
    does not end the game finishes nothing."""

    async def body(store: PostgresStorage) -> None:
        for table_id in ("ends", "fenced", "taken", "plays_on"):
            await store.log.create_table(table_id, {"rules": {}}, 1, SEATS)
        owner = await store.leases.claim("fenced", "A")
        assert owner is not None
        await store.log.append("taken", 1, Play(0, "2C"))
        outcomes = await asyncio.gather(
            store.log.append("ends", 1, Play(0, "2C"), finished=True),
            store.log.append("fenced", 1, Play(0, "2C"), finished=True, epoch=owner.epoch + 1),
            store.log.append("taken", 1, Play(0, "3C"), finished=True),
            store.log.append("plays_on", 1, Play(0, "2C")),
            return_exceptions=True,
        )
        assert [type(o) for o in outcomes] == [type(None), NotOwner, SeqConflict, type(None)]
        finished = {t: (await store.log.table(t)).finished for t in ("ends", "fenced", "taken", "plays_on")}
        assert finished == {"ends": True, "fenced": False, "taken": False, "plays_on": False}

    run(url, body)


def test_an_append_and_its_bot_jobs_racing_a_take_over_are_logged_once(url: str) -> None:
    """Every append is one statement that reads the lease as it begins, and queues the bot jobs
    of the action with its row: after a take-over has committed, the old owner's appends are
    refused (NotOwner) and queue no job; an action it logged meanwhile is found by the new owner
    as a taken ``seq`` (SeqConflict: it catches up), and no row or job is there twice."""

    async def body(store: PostgresStorage) -> None:
        await store.log.create_table("t", {"rules": {}}, 1, SEATS)
        a = await store.leases.claim("t", "A")
        assert a is not None
        other = await PostgresStorage.open(url)
        try:
            await store.log.append("t", 1, Play(0, "2C"), epoch=a.epoch, bots=[1])  # logged as A's
            b = await other.leases.hand_over(a, "B")
            assert b == Lease("t", "B", a.epoch + 1)
            with pytest.raises(NotOwner):
                await store.log.append("t", 2, Play(1, "3C"), epoch=a.epoch, bots=[2])
            racing = [store.log.append("t", 2, Play(1, "3C"), bots=[2]),  # (as if its lease had been read first)
                      other.log.append("t", 2, Play(1, "4C"), epoch=b.epoch, bots=[3])]
            outcomes = await asyncio.gather(*racing, return_exceptions=True)
            assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "SeqConflict"]
        finally:
            await other.close()
        logged = await store.log.actions("t")
        assert logged[0] == to_dict(Play(0, "2C")) and len(logged) == 2
        winner = 2 if logged[1] == to_dict(Play(1, "3C")) else 3
        assert sql(url, "SELECT seat, seq FROM bot_jobs ORDER BY seq") == [(1, 1), (winner, 2)]

    run(url, body)


# ---------------------------------------------------------------- schema


def test_processes_starting_together_migrate_once(url: str) -> None:
    async def body() -> None:
        stores = await asyncio.gather(*(open_storage(url) for _ in range(4)))
        for s in stores:
            await s.close()

    asyncio.run(body())
    assert sql(url, "SELECT version_num FROM alembic_version") == [("0013",)]
    assert sql(url, "SELECT count(*) FROM pg_tables WHERE tablename = 'table_leases'") == [(1,)]
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
                for _ in range(1000):  # (at most 10 s, whatever the machine's speed)
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
