"""SQLite persistence of the web tables: the tables, their seats, and an append-only action log.

A table's state is what replaying its log gives (docs/architecture.md): its row holds the rules (in its
config) and the seed its deals are shuffled from; the log holds one row per accepted action,
``seq`` 1, 2, … and the action in the codec of :mod:`hearts.actions` — the text records use.
Deals are not logged: they follow from the seed. A row is committed before the action it
records is broadcast, so a server killed at any moment loses nothing that a client has seen.
Row ``seq`` is written once: a second append of it raises :class:`SeqConflict`.

:class:`Store` is the synchronous engine (one connection, used from the event loop's thread:
a commit in WAL mode takes microseconds); :class:`hearts.server.storage.sqlite.SQLiteStorage`
is its face in the async :class:`~hearts.server.storage.Storage` API. The database file and
its ``-wal`` and ``-shm`` files are readable by their owner only (mode 0600: they hold the
seats' token hashes).

>>> from hearts.actions import Play
>>> store = Store(":memory:")
>>> store.create_table("t1", {"rules": {}}, 7, [("human", "Ann", None, "h")])
>>> store.append("t1", 1, Play(0, "2C"))
>>> store.actions("t1"), store.unfinished()
([{'type': 'play', 'seat': 0, 'card': '2C'}], ['t1'])
>>> store.append("t1", 1, Play(0, "3C"))
Traceback (most recent call last):
hearts.server.storage.SeqConflict: table t1: action 1 is already logged; resync from the log

A database of the first version (a log of ``deal``, ``pass``, ``play`` and ``moon`` events) is
migrated when it is opened (:func:`migrate_v1`); one newer than :data:`SCHEMA_VERSION` is a
:class:`~hearts.server.storage.SchemaError`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final

from hearts.actions import Action, Moon, Pass, Play, to_json
from hearts.errors import HeartsError
from hearts.server.storage import (
    ChatLine,
    NewSeat,
    PlayedTable,
    PlayerRow,
    ReviewClaim,
    ReviewRow,
    SchemaError,
    SeatConflict,
    SeatRow,
    SeqConflict,
    StoreError,
    TableExists,
    TableListing,
    TableRow,
    rating_changes,
)

__all__ = [
    "SCHEMA_VERSION",
    "SchemaError",
    "SeatRow",
    "SeqConflict",
    "Store",
    "StoreError",
    "TableRow",
    "db_path_from_url",
    "default_db_path",
    "hash_token",
    "migrate_v1",
]

SCHEMA_VERSION: Final = 6
"""The database's ``PRAGMA user_version`` (0 with an ``events`` table: the first version; 3
gave seats their ``away`` flag; 4 players and ratings, 5 table talk, 6 game reviews)."""

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL DEFAULT (julianday('now')),
    config TEXT NOT NULL,
    seed INTEGER NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    deals TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT,
    bot TEXT,
    token_hash TEXT,
    away INTEGER NOT NULL DEFAULT 0,
    player_id TEXT,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL DEFAULT (julianday('now'))
);
CREATE TABLE IF NOT EXISTS rated_games (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    rated REAL NOT NULL DEFAULT (julianday('now')),
    changes TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS table_talk (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    text TEXT NOT NULL,
    sent REAL NOT NULL DEFAULT (julianday('now'))
);
CREATE INDEX IF NOT EXISTS table_talk_by_table ON table_talk (table_id, id);
CREATE TABLE IF NOT EXISTS review_jobs (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    budget INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    review TEXT,
    error TEXT,
    requested REAL NOT NULL DEFAULT (julianday('now')),
    worker TEXT,
    lease_until REAL,
    attempt INTEGER NOT NULL DEFAULT 0,
    tries INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seat)
);
"""
"""``tables.deals``: explicit deals (a JSON list of deals, each a list of hands) for the first
rounds of a table migrated from the first version; ``NULL`` for every table made since.
``seats.away``: 1 while the seat's person is away (the stand-in bot plays for it).
``seats.player_id``, ``players`` and ``rated_games`` (version 4): the player profiles
(:mod:`hearts.server.players`: a name, the hash of a secret key, an OpenSkill rating), the
profile each person seat was taken by, and the rated games already settled (one row per table:
a game is rated once), with each player's rating before and after (``changes``, JSON).
``review_jobs`` (version 6): the game reviews asked for (:mod:`hearts.server.reviews`), one per
table and seat, with their progress, the runner holding one (``worker``, its lease's end in
Unix seconds, its claim number ``attempt``, the claims since it was queued ``tries``) and the
result's JSON text."""

SEAT_COLUMNS: Final = "seat, kind, name, bot, token_hash, away != 0, player_id"
"""The columns of a :class:`~hearts.server.storage.SeatRow`, in order."""
PLAYER_COLUMNS: Final = "id, name, mu, sigma, games"
"""The columns of a :class:`~hearts.server.storage.PlayerRow`, in order."""
REVIEW_COLUMNS: Final = "table_id, seat, budget, seed, status, done, total, review, error"
"""The columns of a :class:`~hearts.server.storage.ReviewRow`, in order."""


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
    gives new ``-wal`` and ``-shm`` files the database file's mode."""
    Path(path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for name in (path, f"{path}-wal", f"{path}-shm"):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)


class Store:
    """The database: one connection, used from the event loop's thread only."""

    def __init__(self, path: str) -> None:
        if path != ":memory:":
            _make_private(path)
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a commit survives the process being killed (SIGKILL); only a
        # power loss can lose the last commits.
        self.db.execute("PRAGMA synchronous=NORMAL")
        try:
            with self._tx():
                _upgrade(self.db)
        except BaseException:
            self.db.close()
            raise
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
        seats: Sequence[NewSeat],
        *,
        deals: Sequence[Sequence[str]] | None = None,
    ) -> None:
        """Insert a table and its seats (kind, name, bot spec, token hash) in one transaction;
        ``deals`` fixes the deals of its first rounds (as a migrated table's are).
        :class:`~hearts.server.storage.TableExists` if the id is taken."""
        with self._tx():
            try:
                self.db.execute(
                    "INSERT INTO tables (id, config, seed, deals) VALUES (?, ?, ?, ?)",
                    (table_id, json.dumps(config), seed, None if deals is None else json.dumps(deals)),
                )
            except sqlite3.IntegrityError:  # the primary key: the only constraint
                raise TableExists(table_id) from None
            self.db.executemany(
                "INSERT INTO seats (table_id, seat, kind, name, bot, token_hash) VALUES (?, ?, ?, ?, ?, ?)",
                [(table_id, i, *row) for i, row in enumerate(seats)],
            )

    def update_seat(
        self, table_id: str, seat: int, kind: str, name: str | None, token_hash: str | None, *, was: str | None = None
    ) -> None:
        """Change who sits at a seat (a free seat taken from the lobby); with ``was``, only if
        the seat is of that kind now, else :class:`~hearts.server.storage.SeatConflict`."""
        with self._tx():
            changed = self.db.execute(
                "UPDATE seats SET kind = ?, name = ?, token_hash = ? WHERE table_id = ? AND seat = ?"
                " AND kind = coalesce(?, kind)",
                (kind, name, token_hash, table_id, seat, was),
            ).rowcount
        if was is not None and changed == 0:
            raise SeatConflict(table_id, seat, was)

    def set_away(self, table_id: str, seat: int, away: bool) -> bool:
        """Mark a seat's person away (or back); ``False`` if it was so already."""
        with self._tx():
            return self.db.execute(
                "UPDATE seats SET away = ? WHERE table_id = ? AND seat = ? AND away != ?",
                (int(away), table_id, seat, int(away)),
            ).rowcount == 1

    def append(self, table_id: str, seq: int, action: Action, finished: bool = False) -> None:
        """Log an accepted action as row ``seq`` (its codec text) and commit it, before it is
        broadcast; ``finished`` marks the table's game over in the same transaction. Raises
        :class:`~hearts.server.storage.SeqConflict` if row ``seq`` is already logged."""
        with self._tx():
            try:
                self.db.execute(
                    "INSERT INTO actions (table_id, seq, data) VALUES (?, ?, ?)", (table_id, seq, to_json(action))
                )
            except sqlite3.IntegrityError:  # the primary key (table_id, seq): the only constraint
                raise SeqConflict(table_id, seq) from None
            if finished:
                self.db.execute("UPDATE tables SET finished = 1 WHERE id = ?", (table_id,))

    def table(self, table_id: str) -> TableRow | None:
        """A stored table, or ``None``."""
        row = self.db.execute(
            "SELECT config, seed, finished, deals FROM tables WHERE id = ?", (table_id,)
        ).fetchone()
        if row is None:
            return None
        config, seed, finished, deals = row
        return TableRow(json.loads(config), int(seed), bool(finished), None if deals is None else json.loads(deals))

    def seats(self, table_id: str) -> list[SeatRow]:
        """A table's seats, in order."""
        rows = self.db.execute(
            f"SELECT {SEAT_COLUMNS} FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
        ).fetchall()
        return [_seat_row(*r) for r in rows]

    def actions(self, table_id: str, after: int = 0) -> list[Any]:
        """A table's logged actions after row ``after``, in order, as codec objects (for
        :func:`hearts.record.replay`)."""
        rows = self.db.execute(
            "SELECT data FROM actions WHERE table_id = ? AND seq > ? ORDER BY seq", (table_id, after)
        )
        return [json.loads(data) for (data,) in rows]

    def heads(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The last logged row (``seq``) of each of these tables (0: none logged yet)."""
        return {
            table_id: self.db.execute("SELECT coalesce(max(seq), 0) FROM actions WHERE table_id = ?",
                                      (table_id,)).fetchone()[0]
            for table_id in table_ids
        }

    def unfinished(self) -> list[str]:
        """Ids of every table whose game is not over (restored at start)."""
        return [r[0] for r in self.db.execute("SELECT id FROM tables WHERE finished = 0 ORDER BY created, id")]

    def listing(self, limit: int = 100) -> list[TableListing]:
        """Up to ``limit`` unfinished tables that the lobby lists: those with a free seat
        first, newest first (see :meth:`hearts.server.storage.Storage.listing`)."""
        rows = self.db.execute(
            """
            SELECT id, config, seq FROM (
                SELECT t.id, t.config, t.created, t.rowid AS k,
                       (SELECT coalesce(max(a.seq), 0) FROM actions a WHERE a.table_id = t.id) AS seq,
                       EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id AND s.kind = 'open') AS free
                FROM tables t WHERE t.finished = 0
            )
            WHERE coalesce(json_extract(config, '$.listed'), free)
            ORDER BY free DESC, created DESC, k DESC
            LIMIT ?
            """,
            (limit,),
        ).fetchall()
        seats: dict[str, list[SeatRow]] = {table_id: [] for table_id, _, _ in rows}
        for table_id, *seat in self.db.execute(
            f"SELECT table_id, {SEAT_COLUMNS} FROM seats WHERE table_id IN ({', '.join('?' * len(seats))})"
            " ORDER BY table_id, seat",
            list(seats),
        ):
            seats[table_id].append(_seat_row(*seat))
        return [TableListing(table_id, json.loads(config), tuple(seats[table_id]), seq) for table_id, config, seq in rows]

    # --- players and ratings (see hearts.server.storage.Storage for what each method does) --

    def create_player(self, player_id: str, name: str, key_hash: str, mu: float, sigma: float) -> None:
        """Insert a player profile."""
        with self._tx():
            self.db.execute(
                "INSERT INTO players (id, name, key_hash, mu, sigma) VALUES (?, ?, ?, ?, ?)",
                (player_id, name, key_hash, mu, sigma),
            )

    def player_by_key(self, key_hash: str) -> PlayerRow | None:
        """The profile whose key has this hash, or ``None``."""
        row = self.db.execute(
            f"SELECT {PLAYER_COLUMNS} FROM players WHERE key_hash = ?", (key_hash,)
        ).fetchone()
        return None if row is None else PlayerRow(*row)

    def rename_player(self, player_id: str, name: str) -> None:
        """Change a profile's name."""
        with self._tx():
            self.db.execute("UPDATE players SET name = ? WHERE id = ?", (name, player_id))

    def link_seat(self, table_id: str, seat: int, player_id: str) -> None:
        """Link a person seat to a profile (:class:`~hearts.server.storage.SeatConflict` if it is
        no person's, or another profile's)."""
        with self._tx():
            changed = self.db.execute(
                "UPDATE seats SET player_id = ? WHERE table_id = ? AND seat = ? AND kind = 'human'"
                " AND coalesce(player_id, ?) = ?",
                (player_id, table_id, seat, player_id, player_id),
            ).rowcount
        if changed == 0:
            raise SeatConflict(table_id, seat, "a person's seat free of any other profile")

    def played_tables(self, player_id: str, limit: int = 100) -> list[PlayedTable]:
        """The newest ``limit`` tables where the player sat, newest first."""
        rows = self.db.execute(
            "SELECT t.id, (t.created - 2440587.5) * 86400.0, t.config, t.finished FROM tables t"
            " WHERE t.id IN (SELECT table_id FROM seats WHERE player_id = ?)"
            " ORDER BY t.created DESC, t.rowid DESC LIMIT ?",
            (player_id, limit),
        ).fetchall()
        seats: dict[str, list[SeatRow]] = {table_id: [] for table_id, *_ in rows}
        for table_id, *seat in self.db.execute(
            f"SELECT table_id, {SEAT_COLUMNS} FROM seats WHERE table_id IN ({', '.join('?' * len(seats))})"
            " ORDER BY table_id, seat",
            list(seats),
        ):
            seats[table_id].append(_seat_row(*seat))
        return [
            PlayedTable(table_id, datetime.fromtimestamp(created, timezone.utc), json.loads(config), bool(finished),
                        tuple(seats[table_id]))
            for table_id, created, config, finished in rows
        ]

    def rate_game(
        self, table_id: str, players: Sequence[str], rate: Callable[[list[PlayerRow]], list[tuple[float, float]]]
    ) -> bool:
        """Rate a finished game once (one transaction; ``False`` if it was rated already)."""
        with self._tx():
            if self.db.execute(
                "INSERT INTO rated_games (table_id) VALUES (?) ON CONFLICT (table_id) DO NOTHING", (table_id,)
            ).rowcount == 0:
                return False
            found = {
                row[0]: PlayerRow(*row)
                for row in self.db.execute(
                    f"SELECT {PLAYER_COLUMNS} FROM players WHERE id IN ({', '.join('?' * len(players))})",
                    list(players),
                )
            }
            missing = [p for p in players if p not in found]
            if missing:
                raise StoreError(f"table {table_id}: no player profile {missing[0]!r} to rate")
            before = [found[p] for p in players]
            after = rate(before)
            self.db.executemany(
                "UPDATE players SET mu = ?, sigma = ?, games = games + 1 WHERE id = ?",
                [(mu, sigma, p) for p, (mu, sigma) in zip(players, after, strict=True)],
            )
            self.db.execute(
                "UPDATE rated_games SET changes = ? WHERE table_id = ?",
                (json.dumps(rating_changes(before, after)), table_id),
            )
        return True

    def unrated(self, limit: int = 100) -> list[str]:
        """Finished rated tables not rated yet, oldest first."""
        return [r[0] for r in self.db.execute(
            "SELECT id FROM tables WHERE finished = 1 AND json_extract(config, '$.rated') = 1"
            " AND id NOT IN (SELECT table_id FROM rated_games) ORDER BY created, id LIMIT ?",
            (limit,),
        )]

    def leaderboard(self, limit: int = 100) -> list[PlayerRow]:
        """The players with a rated game, by ``mu - 3 sigma``, highest first."""
        rows = self.db.execute(
            f"SELECT {PLAYER_COLUMNS} FROM players WHERE games > 0 ORDER BY mu - 3 * sigma DESC, id LIMIT ?",
            (limit,),
        )
        return [PlayerRow(*row) for row in rows]

    # --- game reviews (see hearts.server.storage.Storage for what each method does) ---------

    def review(self, table_id: str, seat: int) -> ReviewRow | None:
        """The review job of a table's seat, or ``None``."""
        row = self.db.execute(
            f"SELECT {REVIEW_COLUMNS} FROM review_jobs WHERE table_id = ? AND seat = ?", (table_id, seat)
        ).fetchone()
        return None if row is None else ReviewRow(*row)

    def queue_review(self, table_id: str, seat: int, budget: int, seed: int) -> ReviewRow:
        """Queue a review unless one is queued, running or done (a failed one is queued again)."""
        with self._tx():
            self.db.execute(
                "INSERT INTO review_jobs (table_id, seat, budget, seed) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (table_id, seat) DO UPDATE SET status = 'queued', budget = excluded.budget,"
                " seed = excluded.seed, done = 0, total = 0, error = NULL, requested = julianday('now'),"
                " worker = NULL, lease_until = NULL, tries = 0 WHERE status = 'failed'",
                (table_id, seat, budget, seed),
            )
        row = self.review(table_id, seat)
        assert row is not None
        return row

    def pending_reviews(self) -> int:
        """How many review jobs are queued or running."""
        ((count,),) = self.db.execute("SELECT count(*) FROM review_jobs WHERE status IN ('queued', 'running')")
        return int(count)

    def claim_review(self, worker: str, lease: float) -> ReviewClaim | None:
        """Claim the oldest queued review job, or one running under another runner's name (this
        file is served by one process: that runner is gone) or an expired lease."""
        now = time.time()
        with self._tx():
            row = self.db.execute(
                "SELECT table_id, seat FROM review_jobs WHERE status = 'queued'"
                " OR (status = 'running' AND (worker IS NOT ? OR lease_until < ?)) ORDER BY requested, rowid LIMIT 1",
                (worker, now),
            ).fetchone()
            if row is None:
                return None
            claimed = self.db.execute(
                "UPDATE review_jobs SET status = 'running', worker = ?, lease_until = ?, attempt = attempt + 1,"
                " tries = tries + 1, done = 0, total = 0 WHERE table_id = ? AND seat = ?"
                " RETURNING table_id, seat, budget, seed, attempt, tries",
                (worker, now + lease, *row),
            ).fetchone()
        table_id, seat, budget, seed, attempt, tries = claimed
        return ReviewClaim(table_id, seat, budget, seed, worker, attempt, tries)

    def _claimed(self, claim: ReviewClaim, assignments: str, params: Sequence[Any]) -> bool:
        """Update a job that ``claim`` still holds (``running``, under its claim number)."""
        with self._tx():
            return self.db.execute(
                f"UPDATE review_jobs SET {assignments}"
                " WHERE table_id = ? AND seat = ? AND attempt = ? AND status = 'running'",
                (*params, claim.table_id, claim.seat, claim.attempt),
            ).rowcount == 1

    def review_progress(self, claim: ReviewClaim, done: int, total: int, lease: float) -> bool:
        """Store a claimed job's progress and renew its lease."""
        return self._claimed(claim, "done = ?, total = ?, lease_until = ?", (done, total, time.time() + lease))

    def finish_review(self, claim: ReviewClaim, review: str) -> bool:
        """Store a claimed job's result."""
        return self._claimed(
            claim, "status = 'done', done = total, review = ?, worker = NULL, lease_until = NULL", (review,)
        )

    def fail_review(self, claim: ReviewClaim, error: str) -> bool:
        """Give a claimed job up."""
        return self._claimed(claim, "status = 'failed', error = ?, worker = NULL, lease_until = NULL", (error,))

    def release_review(self, claim: ReviewClaim) -> None:
        """Let go of a claimed job: queued again."""
        self._claimed(claim, "status = 'queued', done = 0, total = 0, worker = NULL, lease_until = NULL", ())

    # --- table talk (see hearts.server.storage.Storage) ---------------------------------------

    def add_chat(self, table_id: str, seat: int, text: str) -> ChatLine:
        """Store a chat message of ``seat``."""
        with self._tx():
            cur = self.db.execute(
                "INSERT INTO table_talk (table_id, seat, text) VALUES (?, ?, ?)", (table_id, seat, text)
            )
        assert cur.lastrowid is not None
        return ChatLine(cur.lastrowid, seat, text)

    def chat(self, table_id: str, limit: int = 50) -> list[ChatLine]:
        """A table's last ``limit`` chat messages, oldest first."""
        rows = self.db.execute(
            "SELECT id, seat, text FROM table_talk WHERE table_id = ? ORDER BY id DESC LIMIT ?", (table_id, limit)
        ).fetchall()
        return [ChatLine(*row) for row in reversed(rows)]

    def _tx(self) -> contextlib.AbstractContextManager[None]:
        return _transaction(self.db)


def _seat_row(
    seat: int, kind: str, name: str | None, bot: str | None, token_hash: str | None, away: int, player_id: str | None
) -> SeatRow:
    return SeatRow(seat, kind, name, bot, token_hash, bool(away), player_id)


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# --- the first version's databases --------------------------------------------------------


def _upgrade(db: sqlite3.Connection) -> None:
    """Create the schema in a new database, migrate an older one (in a transaction): the first
    version's log (:func:`migrate_v1`), and seats without their ``away`` flag (version 3) or
    their ``player_id`` (version 4)."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"the database has schema version {version}; this server knows versions up to {SCHEMA_VERSION}"
        )
    if version < SCHEMA_VERSION:
        v1 = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone()
        _create_schema(db)
        if v1:
            migrate_v1(db)
        columns = {column for _, column, *_ in db.execute("PRAGMA table_info(seats)")}
        if "away" not in columns:
            db.execute("ALTER TABLE seats ADD COLUMN away INTEGER NOT NULL DEFAULT 0")
        if "player_id" not in columns:  # version 4: seats taken by player profiles
            db.execute("ALTER TABLE seats ADD COLUMN player_id TEXT")
        db.execute("CREATE INDEX IF NOT EXISTS seats_player ON seats (player_id) WHERE player_id IS NOT NULL")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _create_schema(db: sqlite3.Connection) -> None:
    # Statement by statement: executescript() would commit the transaction it runs in.
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)


def migrate_v1(db: sqlite3.Connection) -> None:
    """Rewrite a first-version database (in a transaction, once the ``actions`` table exists):
    each table's ``events`` (``deal``, ``pass``, ``play``, ``moon`` rows with a kind, a seat and
    data) become its ``actions`` in the codec, and its logged deals its explicit ``deals``.

    The restore replays them as ``Game(rules, seed, deals=deals)``, which gives the logged
    rounds exactly (the first version logged a round's deal as it began). The rounds an
    unfinished table has not begun yet are then the seed's deals, where the first version would
    have shuffled them from ``random.Random(f"{seed}:{len(deals)}")``: they differ from what it
    would have dealt — as random, and fixed from then on.

    A row that is no action raises :class:`~hearts.server.storage.SchemaError` (naming the table and row) and the
    transaction leaves the database as it was.
    """
    db.execute("ALTER TABLE tables ADD COLUMN deals TEXT")
    events: dict[str, list[tuple[int, str, int | None, str]]] = {}
    for table_id, seq, kind, seat, data in db.execute(
        "SELECT table_id, seq, kind, seat, data FROM events ORDER BY table_id, seq"
    ):
        events.setdefault(table_id, []).append((seq, kind, seat, data))
    for table_id, rows in events.items():
        deals: list[list[str]] = []
        actions: list[tuple[str, int, str]] = []
        for seq, kind, seat, data in rows:
            try:
                fields = json.loads(data)
                if kind == "deal":
                    deals.append([str(hand) for hand in fields["hands"]])
                    continue
                actions.append((table_id, len(actions) + 1, to_json(_v1_action(kind, seat, fields))))
            except (HeartsError, KeyError, TypeError, ValueError) as e:
                raise SchemaError(f"table {table_id}: event {seq} ({kind}) cannot be migrated: {e}") from None
        db.executemany("INSERT INTO actions (table_id, seq, data) VALUES (?, ?, ?)", actions)
        db.execute("UPDATE tables SET deals = ? WHERE id = ?", (json.dumps(deals), table_id))
    db.execute("DROP TABLE events")


def _v1_action(kind: str, seat: int | None, fields: dict[str, Any]) -> Action:
    """A first-version event row as an action (``seat`` must be a seat number)."""
    if not isinstance(seat, int):
        raise TypeError(f"its seat is {seat!r}")
    if kind == "pass":
        return Pass(seat, fields["cards"])
    if kind == "play":
        return Play(seat, fields["card"])
    if kind == "moon":
        return Moon(seat, fields["choice"])
    raise ValueError(f"unknown kind {kind!r}")
