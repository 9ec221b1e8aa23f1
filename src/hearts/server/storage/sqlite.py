"""The SQLite backend: the embedded default, for one server process.

:class:`SQLiteStorage` runs the queries of :mod:`hearts.server.storage.sql` through
``sqlite+aiosqlite`` (the statements run in aiosqlite's thread, off the event loop) on one
connection: one process serves the file, and its statements queue for that connection rather
than for SQLite's lock. The file is in WAL mode with ``synchronous=NORMAL`` (a commit survives
the process being killed; only a power loss can lose the last ones), and it and its ``-wal``
and ``-shm`` files are readable by their owner only (mode 0600: they hold the seats' token
hashes). Its notices are heard within the process; it has no job queue
(:attr:`~SQLiteStorage.jobs` is ``None``): its process runs its tables' bots itself, and owns
them all, a cluster of one (:class:`SoleLeases`).

>>> import asyncio
>>> from hearts.actions import Play
>>> async def demo() -> list[object]:
...     store = await SQLiteStorage.open(":memory:")
...     listener = await store.listen()
...     await store.log.create_table("t1", {"rules": {}}, 7, [("open", None, None, None)])
...     await store.log.append("t1", 1, Play(0, "2C"))  # (not announced)
...     await store.log.update_seat("t1", 0, "human", "Ann", None, was="open")
...     heard = [await anext(listener)]
...     await store.close()
...     return heard + [notice async for notice in listener]
>>> asyncio.run(demo())
[SeatNotice(table_id='t1', seat=0)]
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool, StaticPool

from hearts.server.notices import Notice
from hearts.server.storage import Lease, QueueListener, StoreError
from hearts.server.storage.migrate import upgrade
from hearts.server.storage.sql import Database, SqlStore, compact_json


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/pyhearts/tables.db`` (default ``~/.local/share/pyhearts/tables.db``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "pyhearts" / "tables.db"


def db_path_from_url(url: str | None) -> str:
    """A SQLite file path from ``sqlite:///path``, a plain path, or ``None`` (the default file).

    >>> db_path_from_url("sqlite:///tmp/x.db"), db_path_from_url("sqlite:///:memory:")
    ('/tmp/x.db', ':memory:')
    """
    if url is None:
        return str(default_db_path())
    if url.startswith("sqlite:///"):
        rest = url[len("sqlite:///") :]
        return rest if rest == ":memory:" else "/" + rest.lstrip("/")
    if url.startswith("sqlite:") or "://" in url:
        raise ValueError(f"unsupported database URL {url!r}; use sqlite:///PATH or postgresql://USER@HOST:PORT/DBNAME")
    return url


def _make_private(path: str) -> None:
    """Create the database file readable by its owner only (mode 0600), in a folder made 0700
    if new, or tighten an existing one (and its ``-wal`` and ``-shm`` files) to 0600; SQLite
    makes the ``-wal`` and ``-shm`` files with the database file's mode. A folder is refused
    (:class:`~hearts.server.storage.StoreError`) and left as it is."""
    if os.path.isdir(path):
        raise StoreError(f"{path} is a folder, not a database file")
    Path(path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for name in (path, f"{path}-wal", f"{path}-shm"):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)


def sqlite_engine(path: str) -> AsyncEngine:
    """An engine on one connection to the file (WAL, ``synchronous=NORMAL``), whose
    transactions begin with ``BEGIN IMMEDIATE`` (a reader's with ``BEGIN``): SQLite's driver
    would otherwise begin none before a schema change, and a writer would find the lock taken
    only at its first write."""
    engine = create_async_engine(
        f"sqlite+aiosqlite:///{path}",
        poolclass=StaticPool if path == ":memory:" else AsyncAdaptedQueuePool,
        **({} if path == ":memory:" else {"pool_size": 1, "max_overflow": 0, "pool_timeout": 60}),
        json_serializer=compact_json,
    )

    @sa.event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi: Any, record: Any) -> None:
        dbapi.isolation_level = None  # transactions begun by _begin, not by the driver
        cursor = dbapi.cursor()
        pragmas = ["journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=10000"]
        if path != ":memory:":
            pragmas.append("wal_autocheckpoint=0")  # checkpoints run in a thread of their own: Checkpoints
        for pragma in pragmas:
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @sa.event.listens_for(engine.sync_engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get("read_only") else "BEGIN IMMEDIATE")

    return engine


class Checkpoints:
    """WAL checkpoints (which fsync the database file) in a thread of their own, every
    ``interval`` seconds, so that a slow disk never holds up the connection that commits the
    moves (SQLite would otherwise run one inside a commit now and then)."""

    def __init__(self, path: str, interval: float = 1.0) -> None:
        self.path = path
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        con = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            while not self._stop.wait(self.interval):
                with contextlib.suppress(sqlite3.Error):
                    con.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            with contextlib.suppress(sqlite3.Error):
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            con.close()

    def stop(self) -> None:
        """Stop, after a last checkpoint that empties the WAL (the store is closed)."""
        self._stop.set()
        self._thread.join(5)


class SoleLeases:
    """``store.leases`` of SQLite: the leases of a cluster of one process, kept in its memory.
    The process that serves the file is its only member, so it claims every table it opens (at
    epoch 1; again, the next one) and never loses one: the same ownership code as PostgreSQL's
    many processes, with nobody to take a table over.

    >>> import asyncio
    >>> async def demo() -> list[object]:
    ...     leases = SoleLeases()
    ...     first = await leases.claim("t1", "me")
    ...     return [first, await leases.claim("t1", "me") == first, await leases.renew("me", [first]),
    ...             await leases.orphans(10, ["t1", "t2"])]
    >>> asyncio.run(demo())
    [Lease(table_id='t1', owner='me', epoch=1), True, {'t1'}, ['t2']]
    """

    def __init__(self) -> None:
        self._held: dict[str, Lease] = {}
        self._epochs: dict[str, int] = {}

    async def claim(self, table_id: str, owner: str) -> Lease | None:
        lease = self._held.get(table_id)
        if lease is not None:
            return lease if lease.owner == owner else None
        epoch = self._epochs[table_id] = self._epochs.get(table_id, 0) + 1
        lease = self._held[table_id] = Lease(table_id, owner, epoch)
        return lease

    async def renew(self, owner: str, leases: Sequence[Lease]) -> set[str]:
        return {x.table_id for x in leases if self._held.get(x.table_id) == x and x.owner == owner}

    async def holder(self, table_id: str) -> Lease | None:
        return self._held.get(table_id)

    async def hand_over(self, lease: Lease, to: str) -> Lease | None:
        if self._held.get(lease.table_id) != lease:
            return None
        epoch = self._epochs[lease.table_id] = lease.epoch + 1
        handed = self._held[lease.table_id] = Lease(lease.table_id, to, epoch)
        return handed

    async def orphans(self, limit: int, live: Sequence[str]) -> list[str]:
        return [t for t in live if t not in self._held][:limit]

    async def release(self, owner: str, table_ids: Sequence[str]) -> None:
        for table_id in table_ids:
            lease = self._held.get(table_id)
            if lease is not None and lease.owner == owner:
                del self._held[table_id]


class SQLiteStorage(SqlStore):
    """The tables in one SQLite file; open it with :meth:`open` (or
    :func:`hearts.server.storage.open_storage`)."""

    jobs = None
    """No bot job queue: the server process runs the bots."""
    def __init__(self, db: Database) -> None:
        super().__init__(db, one_process=True)
        self.leases = SoleLeases()
        """A cluster of one: the server process owns every table it opens (an append's
        ``epoch`` is not checked: no other process writes)."""
        self._listeners: set[QueueListener] = set()
        self._held: dict[AsyncConnection, list[Notice]] = {}
        self._checkpoints = None if db.name == ":memory:" else Checkpoints(db.name)

    @classmethod
    async def open(cls, path: str) -> SQLiteStorage:
        """Open (or create) the file and bring its schema to the newest version
        (:func:`hearts.server.storage.migrate.upgrade`); :class:`~hearts.server.storage.StoreError`
        for a file that is no database or cannot be opened, ``OSError`` for a folder that cannot
        be made."""
        if path != ":memory:":
            _make_private(path)
        engine = sqlite_engine(path)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(upgrade)
        except sa.exc.DBAPIError as e:  # not a database, not a file one may open, …
            await engine.dispose()
            raise StoreError(f"{path}: {e.orig}") from None
        except BaseException:
            await engine.dispose()
            raise
        store = cls.__new__(cls)
        cls.__init__(store, Database(engine, store, path))
        return store

    async def send(self, conn: AsyncConnection, notice: Notice) -> None:
        """Hold a notice for this store's listeners until ``conn``'s transaction commits
        (:class:`~hearts.server.storage.sql.Notifier`: one process holds the file)."""
        self._held.setdefault(conn, []).append(notice)

    def ended(self, conn: AsyncConnection, committed: bool) -> None:
        held = self._held.pop(conn, [])
        for notice in held if committed else ():
            self._announce(notice)

    def _announce(self, notice: Notice) -> None:
        self._listeners = {listener for listener in self._listeners if not listener.closed}
        for listener in self._listeners:
            listener.put(notice)

    async def notify(self, notice: Notice) -> bool:
        self._announce(notice)
        return True

    async def listen(self) -> QueueListener:
        listener = QueueListener()
        self._listeners.add(listener)
        return listener

    async def close(self) -> None:
        for listener in self._listeners:
            await listener.close()
        await super().close()
        if self._checkpoints is not None:
            self._checkpoints.stop()
