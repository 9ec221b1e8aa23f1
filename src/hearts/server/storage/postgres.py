"""The PostgreSQL backend of :class:`~hearts.server.storage.Storage`: for many server processes
and bot workers on any machines (the ``postgres`` extra: psycopg 3 and its pool).

* **Order**: appending an action is an ``INSERT`` under the primary key ``(table_id, seq)``;
  of two processes appending the same ``seq``, one commits and the other gets
  :class:`~hearts.server.storage.SeqConflict`.
* **Notices**: the same transaction sends ``NOTIFY`` on the service's channel, with ids and
  the action's codec object (a payload is at most 8000 bytes; these take under 200): every
  process's :meth:`PostgresStorage.listen` listener hears it once the action is committed.
* **Bot jobs**: queued with the action that makes a bot seat one to act (``append``'s
  ``bots``, in the same transaction) or by :meth:`~PostgresStorage.enqueue_bot_job`;
  :meth:`~PostgresStorage.claim_bot_job` (``FOR UPDATE SKIP LOCKED``, oldest first, at most
  one claimed job per table, under a lease that another worker takes over once it has
  expired), :meth:`~PostgresStorage.complete_bot_job`.
* **One round trip** per append, away flag or job queued: each is one statement (its
  parts in data-modifying ``WITH`` clauses), so one implicit transaction.
* **Schema**: the numbered SQL files of ``migrations/postgresql/`` (``0001_tables.sql``, …),
  applied by :func:`migrate` in one transaction under an advisory lock (processes starting
  together migrate once); the versions applied are the rows of ``schema_version``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from hearts.actions import Action, to_dict, to_json
from hearts.server.storage import (
    ActionNotice,
    BotJob,
    JobNotice,
    NewSeat,
    Notice,
    QueueListener,
    SchemaError,
    SeatConflict,
    SeatNotice,
    SeatRow,
    SeqConflict,
    StoreUnavailable,
    TableListing,
    TableRow,
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

_NOTICE_TYPES: Final[dict[str, type[Notice]]] = {"action": ActionNotice, "seat": SeatNotice, "job": JobNotice}


def notice_payload(notice: Notice) -> str:
    """A notice as a ``NOTIFY`` payload (far below the 8000-byte limit).

    >>> notice_payload(ActionNotice("t1", 9, {"type": "play", "seat": 1, "card": "QS"}))
    '{"type":"action","table_id":"t1","seq":9,"action":{"type":"play","seat":1,"card":"QS"}}'
    """
    kind = next(k for k, cls in _NOTICE_TYPES.items() if isinstance(notice, cls))
    return json.dumps({"type": kind, **dataclasses.asdict(notice)}, separators=(",", ":"))


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
SELECT pg_notify(%(channel)s, %(notice)s)
UNION ALL
{JOB_NOTICES}
"""
"""An action logged (a second row ``seq`` violates the primary key: nothing is done), the game
marked over if ``finished``, the jobs of ``bots`` queued, and all of it announced."""

ENQUEUE: Final = f"WITH {QUEUE_JOBS} {JOB_NOTICES}"

SET_AWAY: Final = """
WITH changed AS (
    UPDATE seats SET away = %(away)s
    WHERE table_id = %(table_id)s AND seat = %(seat)s AND away <> %(away)s
    RETURNING seat
)
SELECT pg_notify(%(channel)s, %(notice)s) FROM changed
"""

SEAT_COLUMNS: Final = "seat, kind, name, bot, token_hash, away"
"""The columns of a :class:`~hearts.server.storage.SeatRow`, in order."""


# --- the storage ----------------------------------------------------------------------------


def describe_postgres_url(url: str) -> str:
    """A PostgreSQL URL without its password (for logs).

    >>> describe_postgres_url("postgresql://ann:secret@db.example:5433/hearts")
    'postgresql://ann@db.example:5433/hearts'
    """
    info = psycopg.conninfo.conninfo_to_dict(url)
    user = f"{info['user']}@" if "user" in info else ""
    return f"postgresql://{user}{info.get('host', '')}:{info.get('port', 5432)}/{info.get('dbname', '')}"


async def _connect(url: str) -> Connection:
    try:
        return await psycopg.AsyncConnection.connect(url, autocommit=True)
    except psycopg.OperationalError as e:
        raise StoreUnavailable(f"cannot connect to {describe_postgres_url(url)}: {e}") from None


class PostgresStorage:
    """The tables in a PostgreSQL database, through a pool of connections; open it with
    :meth:`open` (or :func:`hearts.server.storage.open_storage`)."""

    def __init__(self, pool: AsyncConnectionPool[Connection], url: str, channel: str) -> None:
        self._pool = pool
        self._url = url
        self.channel = channel
        """The ``NOTIFY`` channel: one per service sharing the database."""
        self._listeners: set[PgListener] = set()

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
        pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True},
            open=False,
        )
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
            async with self._pool.connection(timeout=5) as conn:
                await conn.execute("SELECT 1")
        except (psycopg.Error, PoolTimeout) as e:
            raise StoreUnavailable(f"the database {self.name} does not answer: {e}") from None

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
            await conn.execute(
                "INSERT INTO tables (id, config, seed, deals) VALUES (%s, %s, %s, %s)",
                (table_id, Jsonb(config), seed, None if deals is None else Jsonb(deals)),
            )
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
        self, table_id: str, seq: int, action: Action, finished: bool = False, bots: Sequence[int] = ()
    ) -> None:
        data = to_dict(action)
        params = {
            **self._job_params(table_id, seq, bots), "data": to_json(action), "finished": finished,
            "notice": notice_payload(ActionNotice(table_id, seq, data)),
        }
        async with self._pool.connection() as conn:
            try:
                await conn.execute(APPEND, params)
            except psycopg.errors.UniqueViolation:
                raise SeqConflict(table_id, seq) from None

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

    async def listen(self) -> PgListener:
        listener = await PgListener.open(self._url, self.channel)
        self._listeners = {x for x in self._listeners if not x.closed}
        self._listeners.add(listener)
        return listener

    async def close(self) -> None:
        for listener in self._listeners:
            await listener.close()
        await self._pool.close()

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

    async def complete_bot_job(self, job: BotJob) -> bool:
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                "DELETE FROM bot_jobs WHERE id = %s AND attempt = %s", (job.id, job.attempt)
            )
            return cur.rowcount == 1
