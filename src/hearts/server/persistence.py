"""SQLite persistence of the web tables: the tables, their seats, and an append-only event log.

A table's state is what replaying its events gives (DESIGN.md: "a record is the event list"):
one row per accepted event — every round's deal, each pass, play and moon choice. A row is
committed before the action it records is broadcast, so a server killed at any moment loses
nothing that a client has seen.

>>> store = Store(":memory:")
>>> store.create_table("t1", {"rules": {}}, 7, [("human", "Ann", None, "h")])
>>> store.append("t1", [(1, "deal", None, {"hands": []})])
>>> [e.kind for e in store.events("t1")]
['deal']
>>> store.unfinished()
['t1']
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL DEFAULT (julianday('now')),
    config TEXT NOT NULL,
    seed INTEGER NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT,
    bot TEXT,
    token_hash TEXT,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    data TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
"""


def hash_token(token: str) -> str:
    """The stored form of a seat's secret token (only hashes are stored)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


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
        path = default_db_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return str(path)
    if url.startswith("sqlite:///"):
        rest = url[len("sqlite:///") :]
        return rest if rest == ":memory:" else "/" + rest.lstrip("/")
    if url.startswith("sqlite:"):
        raise ValueError(f"unsupported database URL {url!r}; use sqlite:///PATH")
    if "://" in url:
        raise ValueError(f"unsupported database URL {url!r}; only sqlite:///PATH is supported")
    return url


@dataclass(frozen=True)
class Event:
    """One accepted event of a table's log."""

    seq: int
    kind: str
    """``deal``, ``pass``, ``play`` or ``moon``."""
    seat: int | None
    data: dict[str, Any]


@dataclass(frozen=True)
class SeatRow:
    seat: int
    kind: str
    name: str | None
    bot: str | None
    token_hash: str | None


class Store:
    """The database: one connection, used from the event loop's thread only."""

    def __init__(self, path: str) -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a commit survives the process being killed (SIGKILL); only a
        # power loss can lose the last commits.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self._checkpointer: threading.Thread | None = None
        self._stop = threading.Event()
        if path != ":memory:":
            # Checkpoints (which fsync the database file) run in a thread of their own, so a
            # slow disk never stalls the event loop that commits the moves.
            self.db.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpointer = threading.Thread(target=self._checkpoint_loop, name="wal-checkpoint", daemon=True)
            self._checkpointer.start()

    def _checkpoint_loop(self, interval: float = 1.0) -> None:
        con = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            while not self._stop.wait(interval):
                with contextlib.suppress(sqlite3.Error):
                    con.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            con.close()

    def close(self) -> None:
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(5)
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()

    def create_table(
        self,
        table_id: str,
        config: dict[str, Any],
        seed: int,
        seats: Sequence[tuple[str, str | None, str | None, str | None]],
    ) -> None:
        """Insert a table and its seats (kind, name, bot spec, token hash) in one transaction."""
        with self._tx():
            self.db.execute(
                "INSERT INTO tables (id, config, seed) VALUES (?, ?, ?)",
                (table_id, json.dumps(config), seed),
            )
            self.db.executemany(
                "INSERT INTO seats (table_id, seat, kind, name, bot, token_hash) VALUES (?, ?, ?, ?, ?, ?)",
                [(table_id, i, *row) for i, row in enumerate(seats)],
            )

    def update_seat(self, table_id: str, seat: int, kind: str, name: str | None, token_hash: str | None) -> None:
        with self._tx():
            self.db.execute(
                "UPDATE seats SET kind = ?, name = ?, token_hash = ? WHERE table_id = ? AND seat = ?",
                (kind, name, token_hash, table_id, seat),
            )

    def append(
        self, table_id: str, events: Iterable[tuple[int, str, int | None, dict[str, Any]]], finished: bool = False
    ) -> None:
        """Append events (seq, kind, seat, data) and commit them (before they are broadcast)."""
        with self._tx():
            self.db.executemany(
                "INSERT INTO events (table_id, seq, kind, seat, data) VALUES (?, ?, ?, ?, ?)",
                [(table_id, seq, kind, seat, json.dumps(data)) for seq, kind, seat, data in events],
            )
            if finished:
                self.db.execute("UPDATE tables SET finished = 1 WHERE id = ?", (table_id,))

    def table(self, table_id: str) -> tuple[dict[str, Any], int, bool] | None:
        """A table's config, seed and finished flag, or ``None``."""
        row = self.db.execute("SELECT config, seed, finished FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            return None
        return json.loads(row[0]), int(row[1]), bool(row[2])

    def seats(self, table_id: str) -> list[SeatRow]:
        rows = self.db.execute(
            "SELECT seat, kind, name, bot, token_hash FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
        ).fetchall()
        return [SeatRow(*r) for r in rows]

    def events(self, table_id: str) -> list[Event]:
        rows = self.db.execute(
            "SELECT seq, kind, seat, data FROM events WHERE table_id = ? ORDER BY seq", (table_id,)
        ).fetchall()
        return [Event(seq, kind, seat, json.loads(data)) for seq, kind, seat, data in rows]

    def unfinished(self) -> list[str]:
        """Ids of every table whose game is not over (restored at start)."""
        return [r[0] for r in self.db.execute("SELECT id FROM tables WHERE finished = 0 ORDER BY created, id")]

    def _tx(self) -> _Transaction:
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
