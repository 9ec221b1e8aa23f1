"""The PostgreSQL backend: for many server processes and bot workers on any machines (the
``postgres`` extra: psycopg 3), with what only PostgreSQL has.

:class:`PostgresStorage` runs the queries of :mod:`hearts.server.storage.sql` through
``postgresql+psycopg`` (async) on SQLAlchemy's pool, and adds:

* **Order**: appending an action is an ``INSERT`` under the primary key ``(table_id, seq)``;
  of two processes appending the same ``seq``, one commits and the other gets
  :class:`~hearts.server.storage.SeqConflict`.
* **Batches**: the actions (with the bot jobs they queue; a game's last one marks its table
  finished in the same statement) are logged by :class:`ActionLog`: the actions
  appended while a statement is on its way go together in the next, one ``INSERT`` and one
  commit for all of them, on connections of its own. A statement each, through the pool, made
  the actions queue for the pool's connections under load (a second and more at 1,000 tables:
  docs/server.md).
* **Notices**: ``NOTIFY`` on the service's channel, with ids and the action's codec object (a
  payload is at most 8000 bytes; these take under 200): every process's
  :meth:`PostgresStorage.listen` listener hears it once the action is committed. A batch's
  notices are sent by the statement that logs it, so an action logged is always announced
  (sixteen to a ``NOTIFY``, in a JSON array: a listener wakes once for them). PostgreSQL holds
  one lock for every transaction that notifies from its commit to the end of its WAL flush, so
  such transactions commit one flush at a time; batches keep that from limiting the actions
  (the more wait, the more go in one). The other notices (:meth:`~PostgresStorage.notify`'s:
  presence, rematches, commands and replies between processes) go in transactions of their own that write nothing (so wait for
  no flush), in order, on one connection, packed in as few payloads as fit; a seat change's
  and a chat line's are sent by their transaction. The log's statement and the listener, the
  busiest, go through libpq itself (``psycopg.pq``) on connections of their own.
  A process that dies before those are sent leaves them unannounced: the others catch up at
  the table's next notice, and the bot workers look for jobs every few seconds anyway.
* **Jobs** (:class:`PgJobs`, ``store.jobs``): bot jobs, queued with the action that makes a bot
  seat one to act (``append``'s ``bots``, in the statement that logs it) or by
  :meth:`~PgJobs.enqueue_bot_job`, claimed with ``FOR UPDATE SKIP LOCKED`` (oldest first, at
  most one claimed job per table, under a lease that another worker takes over once it has
  expired); hint jobs alike. Review jobs are claimed the same way (``store.reviews``, shared
  with SQLite: SQLAlchemy adds ``SKIP LOCKED`` on PostgreSQL).
* **Leases** (:class:`PgLeases`, ``store.leases``): one owner per table. A server process
  claims a table's lease for :data:`LEASE` seconds (by the database's clock) and renews it;
  each new holder gets the next epoch, and an append carrying its owner's epoch
  (``append(…, epoch=…)``) is logged only if the lease is still at that epoch — checked in the
  statement that logs it, which reads the lease as it begins (a take-over committed while it
  runs is not seen: the new owner, which reads the log after its claim, finds that ``seq``
  taken and catches up) — else :class:`~hearts.server.storage.NotOwner`, nothing logged or announced: an old owner
  that wakes up cannot write.
* **Outages** (:class:`Reachability`): a statement waits :data:`BUSY_WAIT` for a connection of
  the pool while the database answers, :data:`CONNECTION_WAIT` once it did not.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import Any, Final, Literal

import psycopg
import psycopg.types.json
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from hearts.actions import Action, to_json
from hearts.server.logs import fields
from hearts.server.notices import (
    HintNotice,
    JobNotice,
    Notice,
    notice_payload,
    notices_from_payload,
)
from hearts.server.storage import (
    BotJob,
    HintJob,
    Lease,
    NotOwner,
    QueueListener,
    SeqConflict,
    StoreUnavailable,
)
from hearts.server.storage.batches import Batcher
from hearts.server.storage.deadline import Liveness, current, deadline
from hearts.server.storage.migrate import upgrade
from hearts.server.storage.schema import bot_jobs, hint_jobs, seconds, table_leases
from hearts.server.storage.sql import UNREACHABLE, Database, SqlStore, SqlTableLog, compact_json

log = logging.getLogger("hearts.server")

Connection = psycopg.AsyncConnection[Any]

BUSY_WAIT: Final = 10.0
"""Seconds a statement waits for a connection of the pool while the database answers: a burst
(a thousand games ending at once) queues rather than fails."""

CONNECTION_WAIT: Final = 1.5
"""Seconds a statement waits for a connection once the last attempt to connect failed (an
outage: the database stopped, restarted, unreachable), and the longest an attempt to connect
may take, so that every request is answered "unavailable" within two seconds instead of
waiting. See :class:`Reachability`."""

LEASE_CONNECTIONS: Final = 2
"""Connections of the tables' leases (:class:`PgLeases`), beside the pool's."""

PING_WAIT: Final = 1.0
"""Seconds :meth:`PostgresStorage.ping` (``/healthz``) waits for the database."""

LEASE: Final = 3.0
"""Seconds a table's lease lasts from its owner's last claim or renewal (:class:`PgLeases`)."""


class PgListener(QueueListener):
    """A :class:`~hearts.server.storage.Listener` on a connection of its own, listening to the
    channel: the event loop reads its socket whenever it can be read (libpq itself,
    ``psycopg.pq``: one callback for all the notices waiting, no task or timer a wait) and
    hands each notice over."""

    def __init__(self, conn: Connection) -> None:
        super().__init__()
        self._conn = conn
        self._loop = asyncio.get_running_loop()
        self._socket: int | None = conn.pgconn.socket
        self._loop.add_reader(self._socket, self._read)
        self._read()  # (any heard while LISTEN was on its way)

    @classmethod
    async def open(cls, url: str, channel: str, liveness: Liveness) -> PgListener:
        """A listener to ``channel`` (listening once this returns)."""
        conn = await _connect(url, liveness)
        try:
            async with deadline(liveness, conn):
                await conn.execute(psycopg.sql.SQL("LISTEN {}").format(psycopg.sql.Identifier(channel)))
        except BaseException:
            await conn.close()
            raise
        return cls(conn)

    def _read(self) -> None:
        pg = self._conn.pgconn
        try:
            pg.consume_input()
            if pg.status == psycopg.pq.ConnStatus.BAD:  # (the end of the stream)
                raise psycopg.OperationalError("the connection was closed")
        except psycopg.OperationalError as e:
            self._stop_reading()
            self.end(StoreUnavailable(f"the listener lost its connection ({e}); notices may have been missed"))
            return
        while (notify := pg.notifies()) is not None:
            payload = notify.extra.decode()
            try:
                for notice in notices_from_payload(payload):
                    self.put(notice)
            except ValueError:
                log.warning("channel %s: not a notice of this version: %r", notify.relname.decode(), payload)

    def _stop_reading(self) -> None:
        if self._socket is not None:
            self._loop.remove_reader(self._socket)
            self._socket = None

    async def close(self) -> None:
        await super().close()
        self._stop_reading()
        await self._conn.close()


# --- the plain actions, in batches ----------------------------------------------------------

LOG: Final = """
WITH new AS MATERIALIZED (
    SELECT e->>0 AS table_id, (e->>1)::integer AS seq, e->>2 AS data, NULLIF(e->>3, '') AS notice, (e->>4)::bigint AS epoch,
           (e->>5)::boolean AS ends, e->6 AS bots, i
    FROM json_array_elements($1::json) WITH ORDINALITY AS n (e, i)
), lease AS MATERIALIZED (
    SELECT table_id, epoch FROM table_leases
    WHERE table_id IN (SELECT table_id FROM new WHERE epoch IS NOT NULL)
), fenced AS (
    SELECT i FROM new WHERE epoch IS NOT NULL
        AND NOT EXISTS (SELECT FROM lease WHERE lease.table_id = new.table_id AND lease.epoch = new.epoch)
), owned AS (
    SELECT DISTINCT ON (table_id, seq) * FROM new WHERE i NOT IN (SELECT i FROM fenced) ORDER BY table_id, seq, i
), logged AS (
    INSERT INTO actions (table_id, seq, data) SELECT table_id, seq, data::json FROM owned
    ON CONFLICT DO NOTHING RETURNING table_id, seq
), ended AS (
    UPDATE tables SET finished = true
    WHERE id IN (SELECT table_id FROM logged JOIN owned USING (table_id, seq) WHERE owned.ends)
), jobs AS (
    INSERT INTO bot_jobs (table_id, seat, seq)
    SELECT table_id, b.seat::smallint, seq FROM logged JOIN owned USING (table_id, seq)
        CROSS JOIN json_array_elements_text(owned.bots) AS b (seat)
    ON CONFLICT DO NOTHING
), announced AS MATERIALIZED (
    SELECT pg_notify($2, part) FROM (
        SELECT (i - 1) / 16 AS n, '[' || string_agg(notice, ',' ORDER BY i) || ']' AS part
        FROM logged JOIN owned USING (table_id, seq) WHERE notice IS NOT NULL GROUP BY n ORDER BY n
    ) AS parts
)
SELECT owned.i, true FROM logged JOIN owned USING (table_id, seq) WHERE (SELECT count(*) FROM announced) >= 0
UNION ALL SELECT i, false FROM fenced
"""
"""Every action, any number at once (:class:`ActionLog`), with the jobs of the ``bots`` it
makes bot seats to act queued and announced if it is logged (its ``notice``: their payloads,
joined by commas; empty: nothing to announce; the notices of up to 16 actions in one
``NOTIFY``, a JSON array: a listener wakes once for them), and its table marked finished if it
``ends`` the game. An action with an epoch (its owner's lease's; ``NULL``: none to check) is fenced: logged only if the table's
lease row has that epoch as the statement begins (a take-over committed before it is seen; one
committed while it runs is not, and the new owner, which reads the log after its claim, finds
that row's ``seq`` taken and catches up: nothing is lost or logged twice). The lease rows are
read, not locked: locking them ``FOR SHARE`` in every batch made the renewals, which update
them, queue behind the batches at a thousand tables (leases lost). The rows returned are each
action's place in the batch (from 1) with ``true`` if it was logged, ``false``
if it was fenced out; an action not returned found its ``seq`` taken (by an earlier action, or
one before it in the same batch). Its parameters: the batch, a JSON array of ``[table_id, seq,
data, notice, epoch, ends, bots]`` (one text, made by :func:`json.dumps` in C: psycopg's dumping of six
arrays cost four times as much), and the channel."""

LOG_STATEMENT: Final = b"pyhearts_log"
"""The name :data:`LOG` is prepared under on each of :class:`ActionLog`'s connections."""

ANNOUNCE: Final = "SELECT pg_notify($1, notice) FROM json_array_elements_text($2::json) AS n (notice)"
"""Notices sent in order, in a transaction that writes nothing (so no WAL flush to wait for).
Its parameters: the channel, and the payloads as one JSON array of strings."""

ANNOUNCE_STATEMENT: Final = b"pyhearts_announce"
"""The name :data:`ANNOUNCE` is prepared under on the announcer's connection."""

PAYLOAD_LIMIT: Final = 7900
"""Bytes of a ``NOTIFY`` payload that :func:`pack_payloads` fills (PostgreSQL's limit: 8000)."""


def pack_payloads(payloads: list[str], limit: int = PAYLOAD_LIMIT) -> list[str]:
    """Notices' payloads packed in order into as few as fit: consecutive ones joined in a JSON
    array of at most ``limit`` bytes (a listener wakes once for them, :func:`notices_from_payload`);
    one that fits with no other, as it is (counted in UTF-8 bytes: a chat line may not be ASCII).

    >>> pack_payloads(['{"a":1}', '{"b":2}', '{"c":3}'], limit=17)
    ['[{"a":1},{"b":2}]', '{"c":3}']
    """
    packed: list[str] = []
    group: list[str] = []
    size = 1
    for payload in payloads:
        length = len(payload) if payload.isascii() else len(payload.encode())
        if group and size + length + 1 > limit:
            packed.append(group[0] if len(group) == 1 else "[" + ",".join(group) + "]")
            group, size = [], 1
        group.append(payload)
        size += length + 1
    if group:
        packed.append(group[0] if len(group) == 1 else "[" + ",".join(group) + "]")
    return packed


def describe_postgres_url(url: str) -> str:
    """A PostgreSQL URL without its password (for logs).

    >>> describe_postgres_url("postgresql://ann:secret@db.example:5433/hearts")
    'postgresql://ann@db.example:5433/hearts'
    """
    info = psycopg.conninfo.conninfo_to_dict(url)
    user = f"{info['user']}@" if "user" in info else ""
    return f"postgresql://{user}{info.get('host', '')}:{info.get('port', 5432)}/{info.get('dbname', '')}"


Logged = Literal["logged", "taken", "not_owner"]
"""What became of an action given to :class:`ActionLog`: logged; refused, its
``seq`` taken already; refused, its epoch no longer the table's lease's."""

_Row = tuple[str, int, str, str, int | None, bool, Sequence[int]]
"""An action for :class:`ActionLog`: table id, seq, codec text, notice payloads (empty: none), epoch (``None``:
not fenced), whether it ends the game, the bot seats it makes ones to act."""


class ActionLog:
    """Logs the plain actions (:data:`LOG`) in batches, on ``connections``
    connections of its own: an action waits at most for a statement on its way, and every
    action appended meanwhile goes with the next one — one round trip and one commit for many.
    :meth:`log` returns once its row is committed (``"logged"``), or says why it was refused
    (nothing is logged): ``"taken"`` when the database holds another action at
    that ``seq``, ``"not_owner"`` when the action's epoch is not its table's lease's.

    A batch the database refuses as a whole (a row it cannot take) is written again an action
    at a time, so that only that row's action fails; a lost connection fails the batch's
    actions with its error, and another is opened for the next batch."""

    def __init__(self, url: str, channel: str, liveness: Liveness, connections: int = 2) -> None:
        self._url = url
        self._channel = channel
        self._liveness = liveness
        self._batches: Batcher[_Row, Logged, Connection | None] = Batcher(self._write_batch, [None] * connections)
        """On ``connections`` connections of its own (``None``: to be opened when next needed)."""

    async def log(self, table_id: str, seq: int, data: str, notice: str, epoch: int | None = None,
                  ends: bool = False, bots: Sequence[int] = ()) -> Logged:
        """Log one action's row (its codec text ``data``) and announce ``notice`` (payloads,
        joined by commas; empty: nothing) with it, if its table's lease is at ``epoch`` (``None``: unchecked),
        marking the table finished if it ``ends`` the game and queueing the jobs of ``bots``;
        what became of it."""
        return await self._batches.add((table_id, seq, data, notice, epoch, ends, bots))

    async def _write_batch(
        self, conn: Connection | None, batch: list[_Row]
    ) -> tuple[Connection | None, list[Logged | BaseException]]:
        """Log one batch: the connection to go on with (``None``: lost) and each action's outcome."""
        try:
            conn = conn or await _prepared(self._url, LOG_STATEMENT, LOG, self._liveness)
            rows = json.dumps(batch, separators=(",", ":")).encode()
            outcomes = {int(r.get_value(i, 0) or 0): r.get_value(i, 1) == b"t"
                        for r in await _execute(conn, LOG_STATEMENT, [rows, self._channel.encode()], self._liveness)
                        for i in range(r.ntuples)}
        except (psycopg.Error, StoreUnavailable) as e:
            conn = await _unless_broken(conn)
            if conn is None or len(batch) == 1:
                return conn, [e] * len(batch)
            results: list[Logged | BaseException] = []
            for one in batch:  # (only the row the database cannot take fails)
                conn, result = await self._write_batch(conn, [one])
                results += result
            return conn, results
        return conn, ["taken" if i not in outcomes else "logged" if outcomes[i] else "not_owner"
                      for i in range(1, len(batch) + 1)]

    async def close(self) -> None:
        """Finish the batches on their way and close the connections."""
        for conn in await self._batches.close():
            if conn is not None:
                await conn.close()


async def _results(conn: Connection) -> list[psycopg.pq.abc.PGresult]:
    """The results of what was just sent on ``conn`` through libpq itself (``psycopg.pq``), on
    a connection of the store's own (:class:`ActionLog`'s, the announcer's): less than half the CPU of psycopg's ``execute``
    (no query conversion, no cursor, one reader callback a wait), which was a fifth of a
    server's CPU at a thousand tables. A database error is raised as psycopg's
    (:func:`psycopg.errors.error_from_result`); a lost connection as its ``OperationalError``."""
    pg = conn.pgconn
    loop = asyncio.get_running_loop()
    while pg.flush():
        await _ready(loop, pg.socket, write=True)
    results: list[psycopg.pq.abc.PGresult] = []
    while True:
        pg.consume_input()
        while not pg.is_busy():
            result = pg.get_result()
            if result is None:
                failed = next((r for r in results if r.status == psycopg.pq.ExecStatus.FATAL_ERROR), None)
                if failed is not None:
                    raise psycopg.errors.error_from_result(failed, encoding=conn.info.encoding)
                return results
            results.append(result)
        await _ready(loop, pg.socket)


async def _execute(
    conn: Connection, name: bytes, params: list[bytes], liveness: Liveness
) -> list[psycopg.pq.abc.PGresult]:
    """Run the statement prepared on ``conn`` under ``name`` (:func:`_prepared`): its results
    (a silent database cuts the connection: :mod:`~hearts.server.storage.deadline`)."""
    try:
        async with deadline(liveness, conn):
            conn.pgconn.send_query_prepared(name, params)
            results = await _results(conn)
    except TimeoutError:  # (silent: not sent)
        raise StoreUnavailable("the database does not answer") from None
    liveness.answered()
    return results


async def _prepared(url: str, name: bytes, statement: str, liveness: Liveness) -> Connection:
    """A new connection with ``statement`` prepared on it under ``name`` (run it with
    :func:`_execute`)."""
    conn = await _connect(url, liveness)
    try:
        async with deadline(liveness, conn):
            conn.pgconn.send_prepare(name, statement.encode())
            await _results(conn)
    except TimeoutError:  # (silent: not sent)
        await conn.close()
        raise StoreUnavailable("the database does not answer") from None
    except BaseException:
        await conn.close()
        raise
    return conn


async def _ready(loop: asyncio.AbstractEventLoop, socket: int, write: bool = False) -> None:
    """Wait until ``socket`` can be read (or written)."""
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    (loop.add_writer if write else loop.add_reader)(socket, wake)
    try:
        await ready
    finally:
        (loop.remove_writer if write else loop.remove_reader)(socket)


async def _unless_broken(conn: Connection | None) -> Connection | None:
    """A connection of the store's own after a failed statement: kept, or closed and ``None``
    (to be opened again when next needed) if it is lost."""
    if conn is not None and conn.broken:
        await conn.close()
        return None
    return conn


async def _connect(url: str, liveness: Liveness) -> Connection:
    """A connection of the store's own (autocommit), made within :data:`CONNECTION_WAIT` and
    the database's :class:`~hearts.server.storage.deadline.Liveness`."""
    try:
        async with deadline(liveness):
            conn = await asyncio.wait_for(psycopg.AsyncConnection.connect(url, autocommit=True), CONNECTION_WAIT)
    except (psycopg.OperationalError, TimeoutError) as e:
        raise StoreUnavailable(f"cannot connect to {describe_postgres_url(url)}: {str(e) or 'no answer in time'}") from None
    liveness.answered()
    return conn


def _heard(engine: AsyncEngine, liveness: Liveness) -> AsyncEngine:
    """``engine``, telling ``liveness`` of each statement the database answers, its pool's
    pings (``pool_pre_ping``) under the deadline of the call checking a connection out."""
    sa.event.listen(engine.sync_engine, "after_cursor_execute", lambda *_: liveness.answered())
    dialect: Any = engine.dialect
    ping = dialect.do_ping

    def do_ping(dbapi_connection: Any) -> bool:
        watch = current()
        if watch is None:
            return bool(ping(dbapi_connection))
        watch.attach(dbapi_connection.driver_connection)
        try:
            answered = bool(ping(dbapi_connection))
        finally:
            watch.attach(None)
        liveness.answered()
        return answered

    dialect.do_ping = do_ping
    return engine


class Reachability:
    """Whether the last attempt to connect reached the database, and the pool's wait for a
    connection set by it: :data:`BUSY_WAIT` while it did, :data:`CONNECTION_WAIT` once it did
    not. A stopped database breaks the pool's connections (SQLAlchemy drops them all at the
    first error that says so); the next statement connects again, is refused, and from then on
    every statement fails within the short wait, until a connection is made again.

    >>> reach = Reachability("postgresql://db/x")
    >>> reach.saw(False); reach.down, reach.errors
    (True, 1)
    >>> reach.saw(True); reach.down
    False
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine | None = None
        self.liveness = Liveness(probe=self._probe)
        """When the database last answered: every call's deadline (:mod:`~hearts.server.storage.deadline`)."""
        self.down = False
        self.errors = 0
        """Attempts to connect that failed, since the start."""

    def saw(self, reached: bool) -> None:
        """An attempt to connect reached the database, or did not."""
        self.down = not reached
        self.errors += not reached
        if self.engine is not None:
            # (SQLAlchemy's QueuePool reads its wait from this attribute at each checkout)
            self.engine.pool._timeout = CONNECTION_WAIT if self.down else BUSY_WAIT  # type: ignore[attr-defined]

    async def _probe(self) -> None:
        """Whether the database answers: a connection made (and closed); raises if not."""
        conn = await psycopg.AsyncConnection.connect(self.url)
        await conn.close()

    async def connect(self) -> Connection:
        """A new connection for the pool (at most :data:`CONNECTION_WAIT` to make it), writing
        JSON compact (an action's text as its codec writes it)."""
        try:
            conn = await asyncio.wait_for(psycopg.AsyncConnection.connect(self.url), CONNECTION_WAIT)
        except (psycopg.OperationalError, TimeoutError):
            self.saw(False)
            raise
        self.saw(True)
        self.liveness.answered()
        psycopg.types.json.set_json_dumps(compact_json, context=conn)
        return conn


def _lease_end(lease: float) -> sa.ColumnElement[Any]:
    return sa.func.now() + seconds(sa.literal(lease, sa.Float))


def _claimable(jobs: sa.FromClause) -> sa.ColumnElement[bool]:
    """A job waiting, or whose lease has expired (its worker died)."""
    return sa.or_(jobs.c.worker.is_(None), jobs.c.lease_until < sa.func.now())


class PgJobs:
    """``store.jobs``: the bot and hint jobs in the database, for bot workers on any machine,
    claimed with ``FOR UPDATE SKIP LOCKED``. A job is queued with the action that makes a bot
    seat one to act (:meth:`~hearts.server.storage.sql.SqlTableLog.append`'s ``bots``), or by
    :meth:`enqueue_bot_job`; a worker claims one (:meth:`claim_bot_job`), makes the bot's move,
    and deletes it (:meth:`complete_bot_job`)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def queue_bots(self, conn: AsyncConnection, table_id: str, seq: int, bots: Sequence[int]) -> list[int]:
        """Queue the jobs of ``bots`` at position ``seq`` (those not queued already) in ``conn``'s
        transaction; the seats queued."""
        if not bots:
            return []
        query = postgresql.insert(bot_jobs).values([{"table_id": table_id, "seat": s, "seq": seq} for s in bots])
        return list((await conn.execute(query.on_conflict_do_nothing().returning(bot_jobs.c.seat))).scalars())

    async def enqueue_bot_job(self, table_id: str, seat: int, seq: int) -> bool:
        """Queue the bot of ``seat`` to act from position ``seq`` and announce it
        (:class:`JobNotice`); ``False`` if that job is queued already (any process may queue
        it: it is queued once)."""
        async with self.db.begin() as conn:
            if not await self.queue_bots(conn, table_id, seq, [seat]):
                return False
            await self.db.notifier.send(conn, JobNotice(table_id, seat, seq))
        return True

    async def claim_bot_job(self, worker: str, lease: float = 30.0) -> BotJob | None:
        """Claim the oldest job of a table that has no job claimed (its own expired claim
        aside), for ``lease`` seconds; ``None`` if there is none. Two workers claiming at
        once never get the same job, nor two jobs of one table."""
        j, other = bot_jobs.alias("j"), bot_jobs.alias("r")
        busy = sa.exists().where(other.c.table_id == j.c.table_id, other.c.id != j.c.id, other.c.worker.isnot(None))
        oldest = sa.select(j.c.id).where(_claimable(j), ~busy).order_by(j.c.id).limit(1) \
            .with_for_update(skip_locked=True).scalar_subquery()
        c = bot_jobs.c
        query = bot_jobs.update().where(c.id == oldest).values(
            worker=worker, lease_until=_lease_end(lease), attempt=c.attempt + 1,
        ).returning(c.id, c.table_id, c.seat, c.seq, c.worker, c.attempt, c.lease_until,
                    sa.cast(sa.extract("epoch", sa.func.now() - c.queued), sa.Float))
        while True:
            try:
                async with self.db.begin() as conn:
                    row = (await conn.execute(query)).first()
            except sa.exc.IntegrityError:
                continue  # another worker claimed a job of that table meanwhile: look again
            return None if row is None else BotJob(*row)

    async def complete_bot_job(self, job: BotJob) -> bool:
        """Delete a job once done (its action appended, or found stale); ``False`` if this
        claim no longer held it (its lease expired and another worker claimed it)."""
        query = bot_jobs.delete().where(bot_jobs.c.id == job.id, bot_jobs.c.attempt == job.attempt)
        async with self.db.begin() as conn:
            return (await conn.execute(query)).rowcount == 1

    async def release_bot_job(self, job: BotJob) -> None:
        """Let go of a claimed job not done (a worker stopping): any worker may claim it now."""
        query = bot_jobs.update().where(bot_jobs.c.id == job.id, bot_jobs.c.attempt == job.attempt)
        async with self.db.begin() as conn:
            await conn.execute(query.values(worker=None, lease_until=None))

    async def renew_bot_jobs(self, jobs: Sequence[BotJob], lease: float) -> set[int]:
        """Extend claims to ``lease`` seconds from now (a worker's heartbeat for the jobs it
        holds while it waits out their bot delays and thinks); the ids of the jobs whose claim
        still held (the others' leases ran out and another worker claimed them)."""
        if not jobs:
            return set()
        c = bot_jobs.c
        query = bot_jobs.update().where(
            sa.tuple_(c.id, c.attempt).in_([(j.id, j.attempt) for j in jobs]), c.worker.isnot(None)
        ).values(lease_until=_lease_end(lease)).returning(c.id)
        async with self.db.begin() as conn:
            return set((await conn.execute(query)).scalars())

    def _hint(self, job: HintJob | tuple[str, int, int]) -> sa.ColumnElement[bool]:
        table_id, seat, seq = (job.table_id, job.seat, job.seq) if isinstance(job, HintJob) else job
        return sa.and_(hint_jobs.c.table_id == table_id, hint_jobs.c.seat == seat, hint_jobs.c.seq == seq)

    async def ask_hint(self, table_id: str, seat: int, seq: int) -> dict[str, Any] | None:
        """The hint of ``seat``'s decision begun at position ``seq`` if computed already (its
        action's codec object); else ``None``, and a hint job is queued (once, whoever asks) and
        announced: its result comes as a :class:`HintNotice`."""
        queue = postgresql.insert(hint_jobs).values(table_id=table_id, seat=seat, seq=seq) \
            .on_conflict_do_nothing().returning(hint_jobs.c.seat)
        async with self.db.begin() as conn:
            if (await conn.execute(queue)).first() is not None:
                await self.db.notifier.send(conn, JobNotice(table_id, seat, seq))
                return None
            result: dict[str, Any] | None = (await conn.execute(
                sa.select(hint_jobs.c.result).where(self._hint((table_id, seat, seq)))
            )).scalar_one_or_none()
        return result

    async def claim_hint_job(self, worker: str, lease: float = 30.0) -> HintJob | None:
        """Claim the oldest hint job not computed and not claimed (or whose lease expired)."""
        c = hint_jobs.c
        oldest = sa.select(c.table_id, c.seat, c.seq).where(c.result.is_(None), _claimable(hint_jobs)) \
            .order_by(c.queued).limit(1).with_for_update(skip_locked=True)
        query = hint_jobs.update().where(sa.tuple_(c.table_id, c.seat, c.seq).in_(oldest)).values(
            worker=worker, lease_until=_lease_end(lease), attempt=c.attempt + 1,
        ).returning(c.table_id, c.seat, c.seq, c.worker, c.attempt)
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else HintJob(*row)

    async def renew_hint_job(self, job: HintJob, lease: float) -> bool:
        """Extend a hint job's claim to ``lease`` seconds from now; ``False`` if the claim no
        longer holds it (or it is computed)."""
        query = hint_jobs.update().where(self._hint(job), hint_jobs.c.attempt == job.attempt,
                                         hint_jobs.c.result.is_(None))
        async with self.db.begin() as conn:
            return (await conn.execute(query.values(lease_until=_lease_end(lease)))).rowcount == 1

    async def complete_hint_job(self, job: HintJob, action: dict[str, Any] | None) -> None:
        """Keep a hint job's result (``None``: the position moved on; the job is dropped) and
        announce it (:class:`HintNotice`)."""
        async with self.db.begin() as conn:
            if action is None:
                await conn.execute(hint_jobs.delete().where(self._hint(job)))
            else:
                await conn.execute(hint_jobs.update().where(self._hint(job))
                                   .values(result=action, worker=None, lease_until=None))
            await self.db.notifier.send(conn, HintNotice(job.table_id, job.seat, job.seq, action))


RENEW: Final = sa.text("""
WITH mine AS (
    SELECT l.table_id FROM table_leases l
    JOIN json_array_elements(CAST(:leases AS json)) AS u (e)
        ON l.table_id = u.e->>0 AND l.epoch = (u.e->>1)::bigint
    WHERE l.owner = :owner ORDER BY l.table_id FOR NO KEY UPDATE OF l
)
UPDATE table_leases SET until = now() + make_interval(secs => :lease)
FROM mine WHERE table_leases.table_id = mine.table_id RETURNING table_leases.table_id
""")
"""A process's renewal of the leases it holds (the same epoch; run out too, if nobody took
them): one statement with the ids and epochs as one JSON text of ``[id, epoch]`` pairs, its
text the same whatever their number (an ``IN`` list of a thousand pairs cost the server some
50 ms of compiling a second; psycopg's dumping of two arrays of 500 six times the JSON's), the
rows locked in the order of their ids (two updates of many never deadlock)."""

CLAIM: Final = sa.text("""
INSERT INTO table_leases AS l (table_id, owner, epoch, until)
VALUES (:table_id, :owner, 1, now() + make_interval(secs => :lease))
ON CONFLICT (table_id) DO UPDATE SET owner = excluded.owner, until = excluded.until,
    epoch = CASE WHEN l.owner = excluded.owner AND l.until > now() THEN l.epoch ELSE l.epoch + 1 END
WHERE l.until <= now() OR l.owner = excluded.owner
RETURNING l.table_id, l.owner, l.epoch
""")
"""A process's claim of a table's lease (:meth:`PgLeases.claim`): taken if nobody holds it or
its lease ran out (the epoch one more), renewed if the claimant holds it (the same epoch).
Written once, as the renewal, so that a hello or a take-over builds no expressions (half the
CPU of a claim, and no objects left in reference cycles for the collector)."""

ORPHANS: Final = sa.text("""
SELECT t.id FROM tables t LEFT JOIN table_leases l ON l.table_id = t.id
WHERE t.id IN (SELECT json_array_elements_text(CAST(:live AS json)) UNION SELECT table_id FROM bot_jobs)
    AND NOT t.finished
    AND (l.until <= now() OR (l.table_id IS NULL AND EXISTS (SELECT FROM bot_jobs b WHERE b.table_id = t.id)))
ORDER BY l.until NULLS LAST, t.id LIMIT :limit
""")
"""The unfinished tables among the ``live`` ones (a JSON array of ids) and those with bot jobs
whose lease ran out, or that never had one and have bot jobs waiting, those whose lease ran
out longest ago first: only the candidates are looked up, by their keys, however many idle
tables there are (:meth:`PgLeases.orphans`)."""


class PgLeases:
    """``store.leases``: which server process owns each table
    (:class:`~hearts.server.storage.Leases`), a row of ``table_leases`` per table ever claimed;
    every moment is the database's (``now()``), never a process's. A lease lasts ``lease``
    seconds (:data:`LEASE`) from its last claim or renewal."""

    def __init__(self, db: Database, lease: float = LEASE, renewals: Database | None = None) -> None:
        self.db = db
        self.lease = lease
        self.renewals = renewals or db
        """Where :meth:`renew` runs: a connection of its own, so that a process's renewals never
        wait behind its claims and look-ups (a thousand tables changing hands at once)."""

    async def claim(self, table_id: str, owner: str) -> Lease | None:
        async with self.db.begin() as conn:
            row = (await conn.execute(CLAIM, {"table_id": table_id, "owner": owner, "lease": self.lease})).first()
        return None if row is None else Lease(*row)

    async def renew(self, owner: str, leases: Sequence[Lease]) -> set[str]:
        if not leases:
            return set()
        params = {"owner": owner, "lease": self.lease, "leases": json.dumps([[x.table_id, x.epoch] for x in leases])}
        async with self.renewals.begin() as conn:
            return set((await conn.execute(RENEW, params)).scalars())

    @staticmethod
    def _locked(*where: sa.ColumnElement[bool]) -> sa.Select[tuple[str]]:
        """The ids of the live leases that match, locked in the order of their ids (as
        :data:`RENEW` locks them: two updates of many never deadlock)."""
        c = table_leases.c
        return sa.select(c.table_id).where(c.until > sa.func.now(), *where).order_by(c.table_id) \
            .with_for_update(key_share=True)

    async def holder(self, table_id: str) -> Lease | None:
        c = table_leases.c
        query = sa.select(c.table_id, c.owner, c.epoch).where(c.table_id == table_id, c.until > sa.func.now())
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else Lease(*row)

    async def hand_over(self, lease: Lease, to: str) -> Lease | None:
        c = table_leases.c
        current = sa.and_(c.table_id == lease.table_id, c.owner == lease.owner, c.epoch == lease.epoch)
        query = table_leases.update().where(current) \
            .values(owner=to, epoch=c.epoch + 1, until=_lease_end(self.lease)).returning(c.table_id, c.owner, c.epoch)
        async with self.db.begin() as conn:
            # (FOR UPDATE, as a claim's ON CONFLICT locks: it waits for the appends under way,
            # which lock the row FOR KEY SHARE; a renewal does not)
            await conn.execute(sa.select(c.table_id).where(current).with_for_update())
            row = (await conn.execute(query)).first()
        return None if row is None else Lease(*row)

    async def orphans(self, limit: int, live: Sequence[str]) -> list[str]:
        async with self.db.connect() as conn:
            return list((await conn.execute(ORPHANS, {"live": json.dumps(list(live)), "limit": limit})).scalars())

    async def release(self, owner: str, table_ids: Sequence[str]) -> None:
        if not table_ids:
            return
        c = table_leases.c
        # (a lease's length in the past: run out even for a claim whose now() came a little earlier)
        ended = sa.func.now() - seconds(sa.literal(self.lease, sa.Float))
        mine = self._locked(c.owner == owner, c.table_id.in_(list(table_ids)))
        query = table_leases.update().where(c.table_id.in_(mine))
        async with self.db.begin() as conn:
            await conn.execute(query.values(until=ended))


class PgTableLog(SqlTableLog):
    """``store.log`` on PostgreSQL: the actions logged in batches with the bot jobs they queue
    (:class:`ActionLog`, one statement: :data:`LOG`), fenced by the appending owner's epoch, if
    given."""

    def __init__(self, db: Database, store: PostgresStorage) -> None:
        super().__init__(db)
        self.store = store

    async def append(
        self, table_id: str, seq: int, action: Action, finished: bool = False, bots: Sequence[int] = (),
        *, epoch: int | None = None,
    ) -> None:
        jobs = ",".join(notice_payload(JobNotice(table_id, s, seq)) for s in bots)
        logged = await self.store.action_log.log(table_id, seq, to_json(action), jobs, epoch, finished, bots)
        if logged != "logged":  # ("not_owner" only for an action with an epoch)
            raise SeqConflict(table_id, seq) if logged == "taken" or epoch is None else NotOwner(table_id, epoch)


class PostgresStorage(SqlStore):
    """The tables in a PostgreSQL database, through SQLAlchemy's pool; open it with
    :meth:`open` (or :func:`hearts.server.storage.open_storage`)."""

    def __init__(self, engine: AsyncEngine, url: str, channel: str, reach: Reachability) -> None:
        liveness = reach.liveness
        db = Database(_heard(engine, liveness), self, describe_postgres_url(url), liveness)
        super().__init__(db, one_process=False, log=PgTableLog(db, self))
        self.jobs = PgJobs(db)
        self._lease_engine = _heard(create_async_engine(  # (pinged when taken: the few statements on these
            "postgresql+psycopg://", async_creator=reach.connect, pool_size=LEASE_CONNECTIONS, max_overflow=0,
            pool_timeout=BUSY_WAIT, pool_pre_ping=True,  # connections may be the first since a restart)
        ), liveness)
        self._renewal_engine = _heard(create_async_engine(
            "postgresql+psycopg://", async_creator=reach.connect, pool_size=1, max_overflow=0, pool_timeout=BUSY_WAIT,
            pool_pre_ping=True,
        ), liveness)
        self.leases = PgLeases(Database(self._lease_engine, self, db.name, liveness),
                               renewals=Database(self._renewal_engine, self, db.name, liveness))
        """On connections of their own: a renewal never waits behind the actions' statements
        (a lease lasts a few seconds; a busy pool can make a statement wait longer)."""
        self._url = url
        self._reach = reach
        self.channel = channel
        """The ``NOTIFY`` channel: one per service sharing the database."""
        self._listeners: set[PgListener] = set()
        self._outbox: Batcher[str, bool, Connection | None] = Batcher(self._send_batch, [None], max_batch=10_000)
        """The notices sent in transactions of their own, in order, on a connection of their own
        (opened when first needed)."""
        self.action_log = ActionLog(url, channel, liveness)

    @classmethod
    async def open(cls, url: str, *, channel: str = "pyhearts", max_size: int = 10) -> PostgresStorage:
        """Connect, create or migrate the schema (:func:`hearts.server.storage.migrate.upgrade`,
        one transaction under an advisory lock: processes starting together migrate once), and
        make a pool of up to ``max_size`` connections (not checked when taken, which would
        cost a round trip each time: a connection found broken is dropped, and the statement
        that found it fails). Raises :class:`~hearts.server.storage.StoreUnavailable` if the
        database cannot be reached; ``ValueError`` for a channel name that is no PostgreSQL
        identifier (1 to 63 bytes)."""
        if not 0 < len(channel.encode("utf-8")) <= 63:
            raise ValueError(f"a NOTIFY channel's name has 1 to 63 bytes, not {channel!r}")
        plain = url.replace("postgres://", "postgresql://", 1)
        reach = Reachability(plain)
        engine = create_async_engine(
            "postgresql+psycopg://", async_creator=reach.connect, pool_size=max_size, max_overflow=0,
            pool_timeout=BUSY_WAIT,
        )
        reach.engine = engine
        try:
            async with engine.begin() as conn:
                await conn.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK)))
                await conn.run_sync(upgrade)
        except UNREACHABLE as e:
            await engine.dispose()
            raise StoreUnavailable(f"cannot connect to {describe_postgres_url(plain)}: {getattr(e, 'orig', None) or e}") from None
        except BaseException:
            await engine.dispose()
            raise
        return cls(engine, plain, channel, reach)

    async def ping(self) -> None:
        try:
            await asyncio.wait_for(super().ping(), PING_WAIT)
        except TimeoutError:
            raise StoreUnavailable(f"the database {self.name} does not answer: timed out") from None

    def pool_stats(self) -> dict[str, int]:
        """The connection pool's figures (``pool_size``, ``pool_available``, the waits for a
        connection, ``connections_errors``; ``deadlines``: the calls given up on a silent
        database, :mod:`~hearts.server.storage.deadline`), for ``/metrics``."""
        pool: Any = self.db.engine.pool
        waits = self.db.waits
        return {"pool_size": pool.checkedin() + pool.checkedout(), "pool_available": pool.checkedin(),
                "requests_waiting": waits.waiting, "requests_queued": waits.waits,
                "requests_wait_ms": round(waits.seconds * 1000), "requests_errors": waits.timeouts,
                "connections_errors": self._reach.errors, "deadlines": self._reach.liveness.cuts}

    async def send(self, conn: AsyncConnection, notice: Notice) -> None:
        """Announce a notice when ``conn``'s transaction commits (``pg_notify``)."""
        await conn.execute(sa.select(sa.func.pg_notify(self.channel, notice_payload(notice))))

    def ended(self, conn: AsyncConnection, committed: bool) -> None:
        """Nothing to do: PostgreSQL delivers a transaction's notices at its commit."""

    async def notify(self, notice: Notice) -> bool:
        """Queue the notice for the next batch :meth:`_send_batch` sends; once that batch was
        sent or failed to be (a warning is logged), whether it was."""
        try:
            sent = self._outbox.add(notice_payload(notice))
        except StoreUnavailable:  # (closed: nothing more is sent)
            return False
        return await sent

    async def _send_batch(self, conn: Connection | None, batch: list[str]) -> tuple[Connection | None, list[BaseException | bool]]:
        """Send notices in one transaction (which writes nothing: see the module), packed into
        as few ``NOTIFY`` payloads as fit (:func:`pack_payloads`), through libpq
        (:data:`ANNOUNCE`, :func:`_execute`); a connection found cut while it was idle (the
        database restarted meanwhile) is replaced, and the batch sent again, once. A batch
        that cannot be sent is logged: the other processes catch up at the next notices."""
        params = [self.channel.encode(), json.dumps(pack_payloads(batch), separators=(",", ":")).encode()]
        try:
            if conn is not None:
                try:
                    await _execute(conn, ANNOUNCE_STATEMENT, params, self._reach.liveness)
                    return conn, [True] * len(batch)
                except psycopg.OperationalError:
                    if not conn.broken:
                        raise
                    conn = await _unless_broken(conn)
            conn = await _prepared(self._url, ANNOUNCE_STATEMENT, ANNOUNCE, self._reach.liveness)
            await _execute(conn, ANNOUNCE_STATEMENT, params, self._reach.liveness)
        except (psycopg.Error, StoreUnavailable) as e:
            log.warning("notices could not be sent; the other processes catch up at the next ones",
                        extra=fields(error=str(e), notices=len(batch)))
            return await _unless_broken(conn), [False] * len(batch)
        return conn, [True] * len(batch)

    async def listen(self) -> PgListener:
        listener = await PgListener.open(self._url, self.channel, self._reach.liveness)
        self._listeners = {x for x in self._listeners if not x.closed}
        self._listeners.add(listener)
        return listener

    async def close(self) -> None:
        await self.action_log.close()
        for conn in await self._outbox.close():  # (the notices of the actions logged go first)
            if conn is not None:
                await conn.close()
        for listener in self._listeners:
            await listener.close()
        await super().close()
        await self._lease_engine.dispose()
        await self._renewal_engine.dispose()
        await self._reach.liveness.close()


MIGRATION_LOCK: Final = 0x7079_6865_6172_7473
"""The advisory lock that migrations hold (``pyhearts`` in ASCII): one process migrates at a time."""
