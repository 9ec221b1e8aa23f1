"""The PostgreSQL backend of :class:`~hearts.server.storage.Storage`: for many server processes
and bot workers on any machines (the ``postgres`` extra: psycopg 3 and its pool).

* **Order**: appending an action is an ``INSERT`` under the primary key ``(table_id, seq)``;
  of two processes appending the same ``seq``, one commits and the other gets
  :class:`~hearts.server.storage.SeqConflict`.
* **Batches**: most actions (those that neither end the game nor make a bot seat one to act)
  are logged by :class:`ActionLog`: the actions appended while a statement is on its way go
  together in the next, one ``INSERT`` and one commit for all of them, on connections of its
  own. A statement each, through the pool, made the actions queue for the pool's connections
  under load (a second and more at 1,000 tables: docs/server.md).
* **Notices**: ``NOTIFY`` on the service's channel, with ids and the action's codec object (a
  payload is at most 8000 bytes; these take under 200): every process's
  :meth:`PostgresStorage.listen` listener hears it once the action is committed. A batch's
  notices are sent by the statement that logs it, so an action logged is always announced.
  PostgreSQL holds one lock for every transaction that notifies from its commit to the end
  of its WAL flush, so such transactions commit one flush at a time (about 600 a second on a
  disk whose flush takes 1.7 ms); batches keep that from limiting the actions (the more
  wait, the more go in one). The other notices (the actions that end a game or queue bot
  jobs, presence, table talk) go in transactions of their own that write nothing (so wait
  for no flush), in order, on one connection: the notices queued while one such
  transaction is on its way go together in the next. A process that dies before those are
  sent leaves them unannounced: the others catch up at the table's next notice (a ``seq``
  further on), and the bot workers look for jobs every few seconds anyway.
* **Bot jobs**: queued with the action that makes a bot seat one to act (``append``'s
  ``bots``, in the same transaction) or by :meth:`~PostgresStorage.enqueue_bot_job`;
  :meth:`~PostgresStorage.claim_bot_job` (``FOR UPDATE SKIP LOCKED``, oldest first, at most
  one claimed job per table, under a lease that another worker takes over once it has
  expired), :meth:`~PostgresStorage.complete_bot_job`.
* **Review jobs** (:mod:`hearts.server.reviews`): ``review_jobs``, one per table and seat,
  claimed the same way (:meth:`~PostgresStorage.claim_review`) by the bot workers' review slots,
  their progress and result written under the claim's attempt number.
* **One statement** per away flag or job queued (its parts in data-modifying ``WITH``
  clauses), so one implicit transaction; per action, a share of one.
* **Schema**: the numbered SQL files of ``migrations/postgresql/`` (``0001_tables.sql``, …),
  applied by :func:`migrate` in one transaction under an advisory lock (processes starting
  together migrate once); the versions applied are the rows of ``schema_version``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from hearts.actions import Action, to_dict, to_json
from hearts.server.logs import fields
from hearts.server.storage import (
    ActionNotice,
    AliveNotice,
    BotJob,
    ChatLine,
    ChatNotice,
    HintJob,
    HintNotice,
    JobNotice,
    NewSeat,
    Notice,
    PlayedTable,
    PlayerRow,
    PresenceNotice,
    QueueListener,
    RematchNotice,
    ReviewClaim,
    ReviewRow,
    SchemaError,
    SeatConflict,
    SeatNotice,
    SeatRow,
    SeqConflict,
    StoreError,
    StoreUnavailable,
    TableExists,
    TableListing,
    TableRow,
    rating_changes,
)

log = logging.getLogger("hearts.server")

Connection = psycopg.AsyncConnection[Any]


# --- schema versions ------------------------------------------------------------------------


@dataclass(frozen=True)
class Migration:
    """One step of the schema: version ``version`` is what its SQL makes of version - 1."""

    version: int
    name: str
    sql: str


def _load_migrations() -> tuple[Migration, ...]:
    folder = resources.files("hearts.server.storage") / "migrations" / "postgresql"
    found = []
    for entry in folder.iterdir():
        match = re.fullmatch(r"(\d{4})_(\w+)\.sql", entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise SchemaError(f"the migrations in {folder} are not numbered 1, 2, …: {[m.version for m in found]}")
    return tuple(found)


BUSY_WAIT: Final = 10.0
"""Seconds a statement waits for a connection of the pool while the database answers: a burst
(a thousand games ending at once) queues rather than fails."""

CONNECTION_WAIT: Final = 1.5
"""Seconds a statement waits for a connection once the pool's last attempt to connect failed
(an outage: the database stopped, restarted, unreachable), so that every request is answered
"unavailable" within two seconds instead of waiting. It is also how long the pool retries a
lost connection (psycopg's backoff: 1 s, 2 s, …) before the next statement that waits starts
a new attempt: so the pool is back within about that time of the database's return, however
long the outage was. See :class:`Reachability`."""

PING_WAIT: Final = 1.0
"""Seconds :meth:`PostgresStorage.ping` (``/healthz``) waits for the database."""

MIGRATIONS: Final = _load_migrations()
SCHEMA_VERSION: Final = len(MIGRATIONS)
"""The newest schema version: a new database is created at it, an older one migrated to it."""

MIGRATION_LOCK: Final = 0x7079_6865_6172_7473
"""The advisory lock that migrations hold (``pyhearts`` in ASCII): one process migrates at a time."""


async def migrate(conn: Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the database to schema version ``target`` (an autocommit connection's database;
    one transaction, nothing changed on an error) and return its version. A database newer
    than this code raises :class:`~hearts.server.storage.SchemaError`."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version"
            " (version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())"
        )
        cur = await conn.execute("SELECT coalesce(max(version), 0) FROM schema_version")
        row = await cur.fetchone()
        version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"the database has schema version {version}; this server knows versions up to {SCHEMA_VERSION}"
            )
        for m in MIGRATIONS[version:target]:
            await conn.execute(m.sql.encode("utf-8"))  # several statements, read from a file: bytes
            await conn.execute("INSERT INTO schema_version (version, name) VALUES (%s, %s)", (m.version, m.name))
            log.info("database schema migrated to version %d (%s)", m.version, m.name)
    return max(version, target)


# --- notices --------------------------------------------------------------------------------

_NOTICE_TYPES: Final[dict[str, type[Notice]]] = {
    "action": ActionNotice, "seat": SeatNotice, "job": JobNotice,
    "chat": ChatNotice, "rematch": RematchNotice, "hint": HintNotice,
    "presence": PresenceNotice, "alive": AliveNotice,
}

_NOTICE_KINDS: Final[dict[type[Notice], str]] = {cls: kind for kind, cls in _NOTICE_TYPES.items()}


def notice_payload(notice: Notice) -> str:
    """A notice as a ``NOTIFY`` payload (far below the 8000-byte limit).

    >>> notice_payload(ActionNotice("t1", 9, {"type": "play", "seat": 1, "card": "QS"}))
    '{"type":"action","table_id":"t1","seq":9,"action":{"type":"play","seat":1,"card":"QS"},"by":"person"}'
    """
    kind = _NOTICE_KINDS[type(notice)]
    return json.dumps({"type": kind, **vars(notice)}, separators=(",", ":"))  # fields are JSON values already


def notice_from_payload(payload: str) -> Notice:
    """The notice a payload carries (``ValueError`` if none).

    >>> notice_from_payload('{"type":"seat","table_id":"t1","seat":2}')
    SeatNotice(table_id='t1', seat=2)
    """
    try:
        fields = json.loads(payload)
        return _NOTICE_TYPES[fields.pop("type")](**fields)
    except (AttributeError, KeyError, TypeError) as e:
        raise ValueError(f"not a notice: {payload!r:.100}") from e


class PgListener(QueueListener):
    """A :class:`~hearts.server.storage.Listener` on a connection of its own, listening to the
    channel; a reader task hands each notice over."""

    def __init__(self, conn: Connection) -> None:
        super().__init__()
        self._conn = conn
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str, channel: str) -> PgListener:
        """A listener to ``channel`` (listening once this returns)."""
        conn = await _connect(url)
        await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        return cls(conn)

    async def _read(self) -> None:
        try:
            async for notify in self._conn.notifies():
                try:
                    self.put(notice_from_payload(notify.payload))
                except ValueError:
                    log.warning("channel %s: not a notice of this version: %r", notify.channel, notify.payload)
        except psycopg.OperationalError as e:
            self.end(StoreUnavailable(f"the listener lost its connection ({e}); notices may have been missed"))

    async def close(self) -> None:
        await super().close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        await self._conn.close()


# --- bot jobs -------------------------------------------------------------------------------


CLAIM: Final = """
UPDATE bot_jobs
SET worker = %(worker)s, lease_until = now() + make_interval(secs => %(lease)s), attempt = attempt + 1
WHERE id = (
    SELECT j.id FROM bot_jobs j
    WHERE (j.worker IS NULL OR j.lease_until < now())
      AND NOT EXISTS (
          SELECT 1 FROM bot_jobs r WHERE r.table_id = j.table_id AND r.id <> j.id AND r.worker IS NOT NULL
      )
    ORDER BY j.id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
RETURNING id, table_id, seat, seq, worker, attempt, lease_until, extract(epoch FROM now() - queued)::float8
"""
"""The oldest job that is waiting or whose lease has expired, of a table with no other job
claimed; rows another worker is claiming are skipped, not waited for."""

RENEW_JOBS: Final = """
UPDATE bot_jobs j SET lease_until = now() + make_interval(secs => %(lease)s)
FROM unnest(%(ids)s::bigint[], %(attempts)s::integer[]) AS held (id, attempt)
WHERE j.id = held.id AND j.attempt = held.attempt AND j.worker IS NOT NULL
RETURNING j.id
"""
"""A worker's heartbeat: the claims it holds (id and claim number) extended; the ids returned
are those it still held."""

QUEUE_JOBS: Final = """
wanted AS (SELECT * FROM unnest(%(bots)s::smallint[], %(job_notices)s::text[]) AS w (seat, notice)),
queued AS (
    INSERT INTO bot_jobs (table_id, seat, seq) SELECT %(table_id)s, seat, %(seq)s FROM wanted
    ON CONFLICT DO NOTHING RETURNING seat
)
"""
"""``WITH`` clauses that queue a job for each seat of ``bots`` at position ``seq`` (those not
queued already); :data:`JOB_NOTICES` announces the ones queued."""

JOB_NOTICES: Final = "SELECT pg_notify(%(channel)s, wanted.notice) FROM wanted JOIN queued USING (seat)"

APPEND: Final = f"""
WITH logged AS (
    INSERT INTO actions (table_id, seq, data) VALUES (%(table_id)s, %(seq)s, %(data)s)
), ended AS (
    UPDATE tables SET finished = true WHERE %(finished)s AND id = %(table_id)s
), {QUEUE_JOBS}
SELECT wanted.notice FROM wanted JOIN queued USING (seat)
"""
"""An action logged (a second row ``seq`` violates the primary key: nothing is done), the game
marked over if ``finished``, the jobs of ``bots`` queued; the notices of the jobs queued are
returned, for :data:`ANNOUNCE`."""

LOG: Final = """
WITH new AS (
    SELECT * FROM unnest(%(tables)s::text[], %(seqs)s::integer[], %(data)s::text[], %(notices)s::text[])
        AS n (table_id, seq, data, notice)
), logged AS (
    INSERT INTO actions (table_id, seq, data) SELECT table_id, seq, data::json FROM new
    ON CONFLICT DO NOTHING RETURNING table_id, seq
)
SELECT table_id, seq, pg_notify(%(channel)s, new.notice) FROM logged JOIN new USING (table_id, seq)
"""
""":data:`APPEND` for the actions (most of them) that neither end the game nor queue a job, any
number at once (:class:`ActionLog`), each announced if logged: the rows returned are the ones
logged, a row whose ``seq`` was taken already is skipped."""

ANNOUNCE: Final = "SELECT pg_notify(%s, notice) FROM unnest(%s::text[]) AS n (notice)"
"""Notices sent in order, in a transaction that writes nothing (so no WAL flush to wait for)."""

ENQUEUE: Final = f"WITH {QUEUE_JOBS} {JOB_NOTICES}"

HEADS: Final = """
SELECT t.id, coalesce((SELECT max(a.seq) FROM actions a WHERE a.table_id = t.id), 0)
FROM unnest(%s::text[]) AS t (id)
"""
"""Each table's last logged ``seq``: one backward step of the primary key's index per table."""

SET_AWAY: Final = """
WITH changed AS (
    UPDATE seats SET away = %(away)s
    WHERE table_id = %(table_id)s AND seat = %(seat)s AND away <> %(away)s
    RETURNING seat
)
SELECT pg_notify(%(channel)s, %(notice)s) FROM changed
"""

# --- hint jobs ------------------------------------------------------------------------------

ASK_HINT: Final = """
WITH queued AS (
    INSERT INTO hint_jobs (table_id, seat, seq) VALUES (%(table_id)s, %(seat)s, %(seq)s)
    ON CONFLICT DO NOTHING RETURNING seat
), announced AS (
    SELECT pg_notify(%(channel)s, %(notice)s) FROM queued
)
SELECT (SELECT count(*) FROM announced), (
    SELECT result FROM hint_jobs WHERE table_id = %(table_id)s AND seat = %(seat)s AND seq = %(seq)s
)
"""
"""A hint job queued and announced unless one is there already; its result if it has one."""

CLAIM_HINT: Final = """
UPDATE hint_jobs
SET worker = %(worker)s, lease_until = now() + make_interval(secs => %(lease)s), attempt = attempt + 1
WHERE (table_id, seat, seq) = (
    SELECT table_id, seat, seq FROM hint_jobs
    WHERE result IS NULL AND (worker IS NULL OR lease_until < now())
    ORDER BY queued
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
RETURNING table_id, seat, seq, worker, attempt
"""
"""The oldest hint job not computed, waiting or whose lease has expired."""

SEAT_COLUMNS: Final = "seat, kind, name, bot, token_hash, away, player_id"
"""The columns of a :class:`~hearts.server.storage.SeatRow`, in order."""
PLAYER_COLUMNS: Final = "id, name, mu, sigma, games"
"""The columns of a :class:`~hearts.server.storage.PlayerRow`, in order."""

# --- review jobs ----------------------------------------------------------------------------

REVIEW_COLUMNS: Final = "table_id, seat, budget, seed, status, done, total, review::text, error"
"""The columns of a :class:`~hearts.server.storage.ReviewRow`, in order (the review as its text)."""

STALE_REVIEW: Final = "status = 'running' AND lease_until < now()"
"""A review job whose runner stopped renewing its lease (it died, or lost the database)."""

READ_REVIEW: Final = f"""
SELECT table_id, seat, budget, seed,
       CASE WHEN {STALE_REVIEW} THEN 'queued' ELSE status END,
       CASE WHEN {STALE_REVIEW} THEN 0 ELSE done END,
       total, review::text, error
FROM review_jobs WHERE table_id = %s AND seat = %s
"""
"""A review job as :class:`~hearts.server.storage.ReviewRow`: one whose runner's lease ran
out reads ``queued`` at 0 decisions done (the next runner starts it again), not ``running``."""

QUEUE_REVIEW: Final = f"""
INSERT INTO review_jobs AS r (table_id, seat, budget, seed) VALUES (%(table_id)s, %(seat)s, %(budget)s, %(seed)s)
ON CONFLICT (table_id, seat) DO UPDATE
SET status = 'queued', budget = excluded.budget, seed = excluded.seed, done = 0, total = 0, error = NULL,
    requested = now(), worker = NULL, lease_until = NULL, tries = 0
WHERE r.status = 'failed'
RETURNING {REVIEW_COLUMNS}
"""
"""A review queued, or a failed one queued again; a row only if either happened."""

CLAIM_REVIEW: Final = f"""
UPDATE review_jobs
SET status = 'running', worker = %(worker)s, lease_until = now() + make_interval(secs => %(lease)s),
    attempt = attempt + 1, tries = tries + 1, done = 0, total = 0
WHERE (table_id, seat) = (
    SELECT table_id, seat FROM review_jobs
    WHERE status = 'queued' OR ({STALE_REVIEW})
    ORDER BY requested, table_id, seat
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
RETURNING table_id, seat, budget, seed, worker, attempt, tries
"""
"""The oldest review job waiting, or running under a lease that has run out; rows another
runner is claiming are skipped, not waited for."""

CLAIMED_REVIEW: Final = " WHERE table_id = %s AND seat = %s AND attempt = %s AND status = 'running'"
"""The condition of every write of a claim: it still holds the job."""


# --- the storage ----------------------------------------------------------------------------


def describe_postgres_url(url: str) -> str:
    """A PostgreSQL URL without its password (for logs).

    >>> describe_postgres_url("postgresql://ann:secret@db.example:5433/hearts")
    'postgresql://ann@db.example:5433/hearts'
    """
    info = psycopg.conninfo.conninfo_to_dict(url)
    user = f"{info['user']}@" if "user" in info else ""
    return f"postgresql://{user}{info.get('host', '')}:{info.get('port', 5432)}/{info.get('dbname', '')}"


_Waiting = tuple[str, int, str, str, "asyncio.Future[bool]"]
"""An action waiting for :class:`ActionLog`: table id, seq, codec text, notice, its outcome."""


class ActionLog:
    """Logs and announces the plain actions (:data:`LOG`) in batches, on ``connections``
    connections of its own: an action waits at most for a statement on its way, and every
    action appended meanwhile goes with the next one — one round trip and one commit for many.
    :meth:`log` returns once its row is committed (``True``), or ``False`` when the database
    holds another action at that ``seq`` (nothing is logged or announced).

    A batch the database refuses as a whole (a row it cannot take) is written again an action
    at a time, so that only that row's action fails; a lost connection fails the batch's
    actions with its error, and another is opened for the next batch."""

    MAX_BATCH: Final = 500

    def __init__(self, url: str, channel: str, connections: int = 2) -> None:
        self._url = url
        self._channel = channel
        self._waiting: list[_Waiting] = []
        self._free: list[Connection | None] = [None] * connections
        """Connections not in use (``None``: to be opened when next needed)."""
        self._writing: set[asyncio.Task[None]] = set()
        self._closed = False

    async def log(self, table_id: str, seq: int, data: str, notice: str) -> bool:
        """Log one action's row (its codec text ``data``) and announce ``notice`` (a payload)
        with it; whether it was logged."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append((table_id, seq, data, notice, done))
        if self._free:
            task = asyncio.get_running_loop().create_task(self._write(self._free.pop()))
            self._writing.add(task)
            task.add_done_callback(self._writing.discard)
        return await done

    async def _write(self, conn: Connection | None) -> None:
        """Log the waiting actions, a batch at a time, until none waits."""
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[: self.MAX_BATCH], self._waiting[self.MAX_BATCH:]
                conn = await self._write_batch(conn, batch)
        finally:
            self._free.append(conn)

    async def _write_batch(self, conn: Connection | None, batch: list[_Waiting]) -> Connection | None:
        """Log one batch and settle its actions; the connection to go on with (``None``: lost)."""
        try:
            conn = conn or await _connect(self._url)
            cur = await conn.execute(LOG, {
                "tables": [b[0] for b in batch], "seqs": [b[1] for b in batch], "data": [b[2] for b in batch],
                "notices": [b[3] for b in batch], "channel": self._channel,
            })
            logged = {(table_id, seq) for table_id, seq, _ in await cur.fetchall()}
        except (psycopg.Error, StoreUnavailable) as e:
            conn = await _unless_broken(conn)
            if conn is not None and len(batch) > 1:
                for one in batch:
                    conn = await self._write_batch(conn, [one])
                return conn
            for *_, done in batch:
                if not done.done():
                    done.set_exception(e)
            return conn
        for table_id, seq, _, _, done in batch:
            if not done.done():
                done.set_result((table_id, seq) in logged)
        return conn

    async def close(self) -> None:
        """Finish the batches on their way and close the connections."""
        self._closed = True
        while self._writing:
            await asyncio.gather(*self._writing, return_exceptions=True)
        for conn in self._free:
            if conn is not None:
                await conn.close()
        self._free = []


async def _unless_broken(conn: Connection | None) -> Connection | None:
    """A connection of the store's own after a failed statement: kept, or closed and ``None``
    (to be opened again when next needed) if it is lost."""
    if conn is not None and conn.broken:
        await conn.close()
        return None
    return conn


async def _connect(url: str) -> Connection:
    try:
        return await psycopg.AsyncConnection.connect(url, autocommit=True)
    except psycopg.OperationalError as e:
        raise StoreUnavailable(f"cannot connect to {describe_postgres_url(url)}: {e}") from None


class Reachability:
    """Whether the pool's last attempt to connect reached the database, and the pool's wait for
    a connection set by it: :data:`BUSY_WAIT` while it did, :data:`CONNECTION_WAIT` once it did
    not. A stopped database breaks the pool's connections; the pool connects again at once, is
    refused, and from then on every statement fails within the short wait, until a connection
    is made again.

    >>> reach = Reachability()
    >>> reach.saw(False); reach.down
    True
    >>> reach.saw(True); reach.down
    False
    """

    def __init__(self) -> None:
        self.pool: AsyncConnectionPool[Connection] | None = None
        self.down = False

    def saw(self, reached: bool) -> None:
        """An attempt to connect reached the database, or did not."""
        self.down = not reached
        if self.pool is not None:
            self.pool.timeout = CONNECTION_WAIT if self.down else BUSY_WAIT

    def connection_class(self) -> type[Connection]:
        """psycopg's connection class, telling this object of each attempt to connect."""
        reach = self

        class WatchedConnection(psycopg.AsyncConnection[Any]):
            @classmethod
            async def connect(cls, *args: Any, **kwargs: Any) -> Any:
                try:
                    conn = await super().connect(*args, **kwargs)
                except psycopg.OperationalError:
                    reach.saw(False)
                    raise
                reach.saw(True)
                return conn

        return WatchedConnection


class PostgresStorage:
    """The tables in a PostgreSQL database, through a pool of connections; open it with
    :meth:`open` (or :func:`hearts.server.storage.open_storage`)."""

    def __init__(self, pool: AsyncConnectionPool[Connection], url: str, channel: str) -> None:
        self._pool = pool
        self._url = url
        self.channel = channel
        """The ``NOTIFY`` channel: one per service sharing the database."""
        self._listeners: set[PgListener] = set()
        self._outbox: list[str] = []
        """The notices waiting for :meth:`_send_notices`."""
        self._sending: asyncio.Task[None] | None = None
        self._outbox_sent: asyncio.Future[None] | None = None
        """Done once the notices in the outbox now are sent."""
        self._announcer: Connection | None = None
        """The connection the notices are sent on (opened when first needed)."""
        self._log = ActionLog(url, channel)

    @classmethod
    async def open(
        cls, url: str, *, channel: str = "pyhearts", min_size: int = 1, max_size: int = 10
    ) -> PostgresStorage:
        """Connect, create or migrate the schema (:func:`migrate`), and open a pool of
        ``min_size`` to ``max_size`` connections (not checked when taken, which would cost a
        round trip each time: a connection found broken is dropped by the pool, and the
        statement that found it fails). Raises
        :class:`~hearts.server.storage.StoreUnavailable` if the database cannot be reached;
        ``ValueError`` for a channel name that is no PostgreSQL identifier (1 to 63 bytes)."""
        if not 0 < len(channel.encode("utf-8")) <= 63:
            raise ValueError(f"a NOTIFY channel's name has 1 to 63 bytes, not {channel!r}")
        async with await _connect(url) as conn:
            await migrate(conn)
        reach = Reachability()
        pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True},
            connection_class=reach.connection_class(),
            timeout=BUSY_WAIT,
            reconnect_timeout=CONNECTION_WAIT,
            open=False,
        )
        reach.pool = pool
        await pool.open()
        return cls(pool, url, channel)

    @property
    def name(self) -> str:
        return describe_postgres_url(self._url)

    @property
    def jobs(self) -> PostgresStorage:
        """The bot jobs are in this database (:class:`~hearts.server.storage.JobQueue`)."""
        return self

    async def ping(self) -> None:
        try:
            await asyncio.wait_for(self._select_one(), PING_WAIT)
        except (psycopg.Error, PoolTimeout, asyncio.TimeoutError) as e:
            raise StoreUnavailable(f"the database {self.name} does not answer: {e or 'timed out'}") from None

    async def _select_one(self) -> None:
        async with self._pool.connection(timeout=PING_WAIT) as conn:
            await conn.execute("SELECT 1")

    def pool_stats(self) -> dict[str, int]:
        """The connection pool's figures (psycopg_pool's ``get_stats``: ``pool_size``,
        ``requests_waiting``, ``requests_wait_ms``, ``requests_errors`` …), for ``/metrics``."""
        return dict(self._pool.get_stats())

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Connection]:
        async with self._pool.connection() as conn, conn.transaction():
            yield conn

    async def _notify(self, conn: Connection, notice: Notice) -> None:
        """Announce a notice when the transaction commits."""
        await conn.execute("SELECT pg_notify(%s, %s)", (self.channel, notice_payload(notice)))

    async def create_table(
        self,
        table_id: str,
        config: dict[str, Any],
        seed: int,
        seats: Sequence[NewSeat],
        *,
        deals: Sequence[Sequence[str]] | None = None,
    ) -> None:
        async with self._transaction() as conn:
            try:
                await conn.execute(
                    "INSERT INTO tables (id, config, seed, deals) VALUES (%s, %s, %s, %s)",
                    (table_id, Jsonb(config), seed, None if deals is None else Jsonb(deals)),
                )
            except psycopg.errors.UniqueViolation:
                raise TableExists(table_id) from None
            async with conn.cursor() as cur:
                await cur.executemany(
                    "INSERT INTO seats (table_id, seat, kind, name, bot, token_hash) VALUES (%s, %s, %s, %s, %s, %s)",
                    [(table_id, i, *row) for i, row in enumerate(seats)],
                )

    async def update_seat(
        self, table_id: str, seat: int, kind: str, name: str | None, token_hash: str | None, *, was: str | None = None
    ) -> None:
        async with self._transaction() as conn:
            cur = await conn.execute(
                "UPDATE seats SET kind = %s, name = %s, token_hash = %s WHERE table_id = %s AND seat = %s"
                " AND kind = coalesce(%s, kind)",
                (kind, name, token_hash, table_id, seat, was),
            )
            if was is not None and cur.rowcount == 0:
                raise SeatConflict(table_id, seat, was)
            await self._notify(conn, SeatNotice(table_id, seat))

    async def set_away(self, table_id: str, seat: int, away: bool) -> bool:
        notice = notice_payload(SeatNotice(table_id, seat))
        params = {"table_id": table_id, "seat": seat, "away": away, "channel": self.channel, "notice": notice}
        async with self._pool.connection() as conn:
            cur = await conn.execute(SET_AWAY, params)
            return cur.rowcount == 1

    def _job_params(self, table_id: str, seq: int, bots: Sequence[int]) -> dict[str, Any]:
        """The parameters of :data:`QUEUE_JOBS` and :data:`JOB_NOTICES`."""
        return {
            "table_id": table_id, "seq": seq, "bots": list(bots), "channel": self.channel,
            "job_notices": [notice_payload(JobNotice(table_id, seat, seq)) for seat in bots],
        }

    async def append(
        self, table_id: str, seq: int, action: Action, finished: bool = False, bots: Sequence[int] = (),
        *, by: str = "person",
    ) -> None:
        notice = notice_payload(ActionNotice(table_id, seq, to_dict(action), by))
        if not (finished or bots):  # most actions: logged and announced in a batch
            if not await self._log.log(table_id, seq, to_json(action), notice):
                raise SeqConflict(table_id, seq)
            return
        params = {**self._job_params(table_id, seq, bots), "data": to_json(action), "finished": finished}
        async with self._pool.connection() as conn:  # (the statements are prepared once used often)
            try:
                cur = await conn.execute(APPEND, params)
            except psycopg.errors.UniqueViolation:
                raise SeqConflict(table_id, seq) from None
            jobs = [job for (job,) in await cur.fetchall()]
        self._announce([notice, *jobs])  # committed: now tell everyone

    def _announce(self, notices: list[str]) -> asyncio.Future[None]:
        """Queue notices (payloads) for the next batch :meth:`_send_notices` sends; the future
        is done once that batch was sent (or failed to be: a warning is logged)."""
        loop = asyncio.get_running_loop()
        self._outbox += notices
        if self._outbox_sent is None:
            self._outbox_sent = loop.create_future()
        sent = self._outbox_sent
        if self._sending is None or self._sending.done():
            self._sending = loop.create_task(self._send_notices())
        return sent

    async def _send_notices(self) -> None:
        """Send the notices waiting, in order, each batch in a transaction of its own (which
        writes nothing: see the module) on a connection of their own, until none waits."""
        while self._outbox:
            batch, self._outbox = self._outbox, []
            sent, self._outbox_sent = self._outbox_sent, None
            try:
                await self._send_batch(batch)
            except (psycopg.Error, StoreUnavailable) as e:
                log.warning("notices could not be sent; the other processes catch up at the next ones",
                            extra=fields(error=str(e), notices=len(batch)))
                self._announcer = await _unless_broken(self._announcer)
            finally:
                if sent is not None and not sent.done():
                    sent.set_result(None)

    async def _send_batch(self, batch: list[str]) -> None:
        """Send notices on the announcer's connection; one found cut while it was idle (the
        database restarted meanwhile) is replaced, and the batch sent again, once."""
        if self._announcer is not None:
            try:
                await self._announcer.execute(ANNOUNCE, (self.channel, batch))
                return
            except psycopg.OperationalError:
                if not self._announcer.broken:
                    raise
                self._announcer = await _unless_broken(self._announcer)
        self._announcer = await _connect(self._url)
        await self._announcer.execute(ANNOUNCE, (self.channel, batch))

    async def table(self, table_id: str) -> TableRow | None:
        async with self._pool.connection() as conn:
            cur = await conn.execute("SELECT config, seed, finished, deals FROM tables WHERE id = %s", (table_id,))
            row = await cur.fetchone()
        return None if row is None else TableRow(*row)

    async def seats(self, table_id: str) -> list[SeatRow]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                f"SELECT {SEAT_COLUMNS} FROM seats WHERE table_id = %s ORDER BY seat", (table_id,)
            )
            return [SeatRow(*r) for r in await cur.fetchall()]

    async def actions(self, table_id: str, after: int = 0) -> list[Any]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "SELECT data FROM actions WHERE table_id = %s AND seq > %s ORDER BY seq", (table_id, after)
            )
            return [data for (data,) in await cur.fetchall()]

    async def heads(self, table_ids: Sequence[str]) -> dict[str, int]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(HEADS, (list(table_ids),))
            return {table_id: seq for table_id, seq in await cur.fetchall()}

    async def unfinished(self) -> list[str]:
        async with self._pool.connection() as conn:
            cur = await conn.execute("SELECT id FROM tables WHERE NOT finished ORDER BY created, id")
            return [table_id for (table_id,) in await cur.fetchall()]

    async def listing(self, limit: int = 100) -> list[TableListing]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                """
                SELECT id, config, seq FROM (
                    SELECT t.id, t.config, t.created,
                           (SELECT coalesce(max(a.seq), 0) FROM actions a WHERE a.table_id = t.id) AS seq,
                           EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id AND s.kind = 'open') AS free
                    FROM tables t WHERE NOT t.finished
                ) AS unfinished
                WHERE coalesce((config ->> 'listed')::boolean, free)
                ORDER BY free DESC, created DESC, id
                LIMIT %s
                """,
                (limit,),
            )
            rows = await cur.fetchall()
            seats: dict[str, list[SeatRow]] = {table_id: [] for table_id, _, _ in rows}
            cur = await conn.execute(
                f"SELECT table_id, {SEAT_COLUMNS} FROM seats WHERE table_id = ANY(%s)"
                " ORDER BY table_id, seat",
                (list(seats),),
            )
            for table_id, *seat in await cur.fetchall():
                seats[table_id].append(SeatRow(*seat))
        return [TableListing(table_id, config, tuple(seats[table_id]), seq) for table_id, config, seq in rows]

    # --- players and ratings ----------------------------------------------------------------

    async def create_player(self, player_id: str, name: str, key_hash: str, mu: float, sigma: float) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(
                "INSERT INTO players (id, name, key_hash, mu, sigma) VALUES (%s, %s, %s, %s, %s)",
                (player_id, name, key_hash, mu, sigma),
            )

    async def player_by_key(self, key_hash: str) -> PlayerRow | None:
        async with self._pool.connection() as conn:
            cur = await conn.execute(f"SELECT {PLAYER_COLUMNS} FROM players WHERE key_hash = %s", (key_hash,))
            row = await cur.fetchone()
        return None if row is None else PlayerRow(*row)

    async def rename_player(self, player_id: str, name: str) -> None:
        async with self._pool.connection() as conn:
            await conn.execute("UPDATE players SET name = %s WHERE id = %s", (name, player_id))

    async def link_seat(self, table_id: str, seat: int, player_id: str) -> None:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE seats SET player_id = %s WHERE table_id = %s AND seat = %s AND kind = 'human'"
                " AND coalesce(player_id, %s) = %s",
                (player_id, table_id, seat, player_id, player_id),
            )
        if cur.rowcount == 0:
            raise SeatConflict(table_id, seat, "a person's seat free of any other profile")

    async def played_tables(self, player_id: str, limit: int = 100) -> list[PlayedTable]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "SELECT id, created, config, finished FROM tables"
                " WHERE id IN (SELECT table_id FROM seats WHERE player_id = %s)"
                " ORDER BY created DESC, id LIMIT %s",
                (player_id, limit),
            )
            rows = await cur.fetchall()
            seats: dict[str, list[SeatRow]] = {table_id: [] for table_id, *_ in rows}
            cur = await conn.execute(
                f"SELECT table_id, {SEAT_COLUMNS} FROM seats WHERE table_id = ANY(%s) ORDER BY table_id, seat",
                (list(seats),),
            )
            for table_id, *seat in await cur.fetchall():
                seats[table_id].append(SeatRow(*seat))
        return [
            PlayedTable(table_id, created, config, finished, tuple(seats[table_id]))
            for table_id, created, config, finished in rows
        ]

    async def rate_game(
        self, table_id: str, players: Sequence[str], rate: Callable[[list[PlayerRow]], list[tuple[float, float]]]
    ) -> bool:
        async with self._transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO rated_games (table_id) VALUES (%s) ON CONFLICT (table_id) DO NOTHING", (table_id,)
            )
            if cur.rowcount == 0:
                return False  # (a concurrent settlement waited here until the first one committed)
            cur = await conn.execute(
                f"SELECT {PLAYER_COLUMNS} FROM players WHERE id = ANY(%s) ORDER BY id FOR UPDATE", (list(players),)
            )
            found = {row[0]: PlayerRow(*row) for row in await cur.fetchall()}
            missing = [p for p in players if p not in found]
            if missing:
                raise StoreError(f"table {table_id}: no player profile {missing[0]!r} to rate")
            before = [found[p] for p in players]
            after = rate(before)
            async with conn.cursor() as c:
                await c.executemany(
                    "UPDATE players SET mu = %s, sigma = %s, games = games + 1 WHERE id = %s",
                    [(mu, sigma, p) for p, (mu, sigma) in zip(players, after, strict=True)],
                )
            await conn.execute(
                "UPDATE rated_games SET changes = %s WHERE table_id = %s",
                (Jsonb(rating_changes(before, after)), table_id),
            )
        return True

    async def unrated(self, limit: int = 100) -> list[str]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "SELECT id FROM tables WHERE finished AND (config ->> 'rated')::boolean"
                " AND NOT EXISTS (SELECT 1 FROM rated_games r WHERE r.table_id = tables.id)"
                " ORDER BY created, id LIMIT %s",
                (limit,),
            )
            return [table_id for (table_id,) in await cur.fetchall()]

    async def leaderboard(self, limit: int = 100) -> list[PlayerRow]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                f"SELECT {PLAYER_COLUMNS} FROM players WHERE games > 0 ORDER BY mu - 3 * sigma DESC, id LIMIT %s",
                (limit,),
            )
            return [PlayerRow(*row) for row in await cur.fetchall()]

    async def listen(self) -> PgListener:
        listener = await PgListener.open(self._url, self.channel)
        self._listeners = {x for x in self._listeners if not x.closed}
        self._listeners.add(listener)
        return listener

    async def close(self) -> None:
        await self._log.close()
        if self._sending is not None:
            await self._sending  # the notices of the actions logged go first
        if self._announcer is not None:
            await self._announcer.close()
        for listener in self._listeners:
            await listener.close()
        await self._pool.close()

    # --- review jobs ------------------------------------------------------------------------

    async def review(self, table_id: str, seat: int) -> ReviewRow | None:
        async with self._pool.connection() as conn:
            cur = await conn.execute(READ_REVIEW, (table_id, seat))
            row = await cur.fetchone()
        return None if row is None else ReviewRow(*row)

    async def queue_review(self, table_id: str, seat: int, budget: int, seed: int) -> ReviewRow:
        params = {"table_id": table_id, "seat": seat, "budget": budget, "seed": seed}
        async with self._pool.connection() as conn:
            row = await (await conn.execute(QUEUE_REVIEW, params)).fetchone()
        if row is not None:
            return ReviewRow(*row)
        stored = await self.review(table_id, seat)
        assert stored is not None
        return stored

    async def pending_reviews(self) -> int:
        async with self._pool.connection() as conn:
            cur = await conn.execute("SELECT count(*) FROM review_jobs WHERE status IN ('queued', 'running')")
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def claim_review(self, worker: str, lease: float) -> ReviewClaim | None:
        async with self._transaction() as conn:
            row = await (await conn.execute(CLAIM_REVIEW, {"worker": worker, "lease": lease})).fetchone()
        return None if row is None else ReviewClaim(*row)

    async def _claimed(self, claim: ReviewClaim, assignments: str, params: Sequence[Any]) -> bool:
        """Update a review job that ``claim`` still holds."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                f"UPDATE review_jobs SET {assignments}{CLAIMED_REVIEW}",
                (*params, claim.table_id, claim.seat, claim.attempt),
            )
            return cur.rowcount == 1

    async def review_progress(self, claim: ReviewClaim, done: int, total: int, lease: float) -> bool:
        return await self._claimed(
            claim, "done = %s, total = %s, lease_until = now() + make_interval(secs => %s)", (done, total, lease)
        )

    async def finish_review(self, claim: ReviewClaim, review: str) -> bool:
        return await self._claimed(
            claim, "status = 'done', done = total, review = %s::json, worker = NULL, lease_until = NULL", (review,)
        )

    async def fail_review(self, claim: ReviewClaim, error: str) -> bool:
        return await self._claimed(
            claim, "status = 'failed', error = %s, worker = NULL, lease_until = NULL", (error,)
        )

    async def release_review(self, claim: ReviewClaim) -> None:
        await self._claimed(
            claim, "status = 'queued', done = 0, total = 0, worker = NULL, lease_until = NULL", ()
        )

    # --- table talk -------------------------------------------------------------------------

    async def notify(self, notice: Notice) -> None:
        await self._announce([notice_payload(notice)])

    async def add_chat(self, table_id: str, seat: int, text: str) -> ChatLine:
        async with self._transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO table_talk (table_id, seat, text) VALUES (%s, %s, %s) RETURNING id", (table_id, seat, text)
            )
            row = await cur.fetchone()
            assert row is not None
            line = ChatLine(int(row[0]), seat, text)
            await self._notify(conn, ChatNotice(table_id, line.id, seat, text))
        return line

    async def chat(self, table_id: str, limit: int = 50) -> list[ChatLine]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "SELECT id, seat, text FROM table_talk WHERE table_id = %s ORDER BY id DESC LIMIT %s", (table_id, limit)
            )
            rows = await cur.fetchall()
        return [ChatLine(int(i), seat, text) for i, seat, text in reversed(rows)]

    async def ask_hint(self, table_id: str, seat: int, seq: int) -> dict[str, Any] | None:
        params = {"table_id": table_id, "seat": seat, "seq": seq, "channel": self.channel,
                  "notice": notice_payload(JobNotice(table_id, seat, seq))}
        async with self._pool.connection() as conn:
            row = await (await conn.execute(ASK_HINT, params)).fetchone()
        assert row is not None
        result: dict[str, Any] | None = row[1]
        return result

    async def claim_hint_job(self, worker: str, lease: float = 30.0) -> HintJob | None:
        async with self._pool.connection() as conn:
            row = await (await conn.execute(CLAIM_HINT, {"worker": worker, "lease": lease})).fetchone()
        return None if row is None else HintJob(*row)

    async def renew_hint_job(self, job: HintJob, lease: float) -> bool:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "UPDATE hint_jobs SET lease_until = now() + make_interval(secs => %s)"
                " WHERE table_id = %s AND seat = %s AND seq = %s AND attempt = %s AND result IS NULL",
                (lease, job.table_id, job.seat, job.seq, job.attempt),
            )
            return cur.rowcount == 1

    async def complete_hint_job(self, job: HintJob, action: dict[str, Any] | None) -> None:
        key = (job.table_id, job.seat, job.seq)
        async with self._transaction() as conn:
            if action is None:
                await conn.execute("DELETE FROM hint_jobs WHERE table_id = %s AND seat = %s AND seq = %s", key)
            else:
                await conn.execute(
                    "UPDATE hint_jobs SET result = %s, worker = NULL, lease_until = NULL"
                    " WHERE table_id = %s AND seat = %s AND seq = %s", (json.dumps(action), *key),
                )
            await self._notify(conn, HintNotice(job.table_id, job.seat, job.seq, action))

    # --- bot jobs ---------------------------------------------------------------------------

    async def enqueue_bot_job(self, table_id: str, seat: int, seq: int) -> bool:
        async with self._pool.connection() as conn:
            cur = await conn.execute(ENQUEUE, self._job_params(table_id, seq, [seat]))
            return cur.rowcount == 1

    async def claim_bot_job(self, worker: str, lease: float = 30.0) -> BotJob | None:
        while True:
            try:
                async with self._transaction() as conn:
                    cur = await conn.execute(CLAIM, {"worker": worker, "lease": lease})
                    row = await cur.fetchone()
            except psycopg.errors.UniqueViolation:
                continue  # another worker claimed a job of that table meanwhile: look again
            return None if row is None else BotJob(*row)

    async def release_bot_job(self, job: BotJob) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(
                "UPDATE bot_jobs SET worker = NULL, lease_until = NULL WHERE id = %s AND attempt = %s",
                (job.id, job.attempt),
            )

    async def renew_bot_jobs(self, jobs: Sequence[BotJob], lease: float) -> set[int]:
        if not jobs:
            return set()
        async with self._pool.connection() as conn:
            cur = await conn.execute(RENEW_JOBS, {
                "ids": [j.id for j in jobs], "attempts": [j.attempt for j in jobs], "lease": lease,
            })
            return {job_id for (job_id,) in await cur.fetchall()}

    async def complete_bot_job(self, job: BotJob) -> bool:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "DELETE FROM bot_jobs WHERE id = %s AND attempt = %s", (job.id, job.attempt)
            )
            return cur.rowcount == 1
