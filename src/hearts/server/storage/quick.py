"""The quick-match queue in the database (``quick_queue``), shared by every server process:
:class:`QuickQueue`, the part of the store :mod:`hearts.server.quick` works through.

A player has at most one row (the primary key): a place in the queue, held by one connection
(``conn``) that keeps it fresh (``seen``); once the matchmaker seats the player, the row holds
the table, the seat and its token until the player's connection is told, and is then deleted.
On PostgreSQL, a round of matchmaking holds a transaction-level advisory lock (one process
matches at a time) and locks the rows it reads (``FOR UPDATE SKIP LOCKED``): a ``leave``
waits for the round, then finds its row either still waiting (deleted: never seated) or
seated. On SQLite the one process does the same under its own lock.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa

from hearts.server.storage import Storage
from hearts.server.storage.schema import quick_queue, seats, tables
from hearts.server.storage.sql import Database

MATCH_LOCK: Final = 0x51C4_0040
"""The advisory lock a round of matchmaking holds on PostgreSQL (one process at a time)."""

COLUMNS: Final = (
    quick_queue.c.player_id, quick_queue.c.name, quick_queue.c.preset, quick_queue.c.rated, quick_queue.c.mu,
    quick_queue.c.fill_after, quick_queue.c.queued, quick_queue.c.seen, quick_queue.c.conn,
    quick_queue.c.table_id, quick_queue.c.seat, quick_queue.c.token, quick_queue.c.bots, quick_queue.c.seated_preset,
    quick_queue.c.took_seat,
)


@dataclass(frozen=True)
class QueueRow:
    """A player's place in the queue (and, once seated, where)."""

    player_id: str
    name: str
    preset: str
    rated: bool
    mu: float
    fill_after: float
    queued: float
    seen: float
    conn: str
    table_id: str | None = None
    seat: int | None = None
    token: str | None = None
    bots: int | None = None
    seated_preset: str | None = None
    took_seat: bool = False


@dataclass(frozen=True)
class Seating:
    """Where the matchmaker seated a player."""

    player_id: str
    table_id: str
    seat: int
    token: str
    bots: int
    preset: str
    took_seat: bool = False
    """A bot's seat at a game that had just started, taken before its round's first card."""


@dataclass(frozen=True)
class QuickSeat:
    """A profile's seat at an unfinished quick table: where, its name there, the table's preset
    and how many bots sit at it."""

    table_id: str
    seat: int
    name: str | None
    preset: str
    bots: int


class QuickQueue:
    """The rows of the quick-match queue, on a store's database (:meth:`of`)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    def of(cls, store: Storage) -> QuickQueue:
        """The queue on ``store``'s database (either backend's store is a
        :class:`~hearts.server.storage.sql.SqlStore`)."""
        db = getattr(store, "db", None)
        if not isinstance(db, Database):
            raise TypeError(f"quick match needs a SQL store, not {type(store).__name__}")
        return cls(db)

    async def row(self, player_id: str) -> QueueRow | None:
        """The player's row, if any."""
        async with self.db.connect() as conn:
            found = (await conn.execute(sa.select(*COLUMNS).where(quick_queue.c.player_id == player_id))).first()
        return None if found is None else QueueRow(*found)

    async def quick_seats(self, player_ids: Collection[str]) -> dict[str, QuickSeat]:
        """The seat each of these profiles holds at an unfinished quick table, if any (a
        profile is at one such table at most)."""
        if not player_ids:
            return {}
        others = seats.alias("others")
        bots = sa.select(sa.func.count()).where(others.c.table_id == seats.c.table_id, others.c.kind == "bot")
        query = sa.select(seats.c.player_id, seats.c.table_id, seats.c.seat, seats.c.name, tables.c.config,
                          bots.scalar_subquery()).join(tables, seats.c.table_id == tables.c.id).where(
            seats.c.player_id.in_(list(player_ids)), ~tables.c.finished, tables.c.config["quick"].as_boolean(),
        )
        async with self.db.connect() as conn:
            found = (await conn.execute(query)).all()
        return {str(p): QuickSeat(str(t), int(s), n, str(c.get("preset", "")), int(b)) for p, t, s, n, c, b in found}

    async def join(self, entry: QueueRow) -> QueueRow:
        """Put the player in the queue as ``entry`` says; a player already there keeps their
        place (its time) and now belongs to ``entry.conn`` with ``entry``'s options; a player
        seated meanwhile is not queued again. Returns the row as it is now."""
        c = quick_queue.c
        insert = self.db.insert(quick_queue).values(
            player_id=entry.player_id, name=entry.name, preset=entry.preset, rated=entry.rated, mu=entry.mu,
            fill_after=entry.fill_after, queued=entry.queued, seen=entry.seen, conn=entry.conn,
        )
        query = insert.on_conflict_do_update(
            index_elements=[c.player_id],
            set_={"name": entry.name, "preset": entry.preset, "rated": entry.rated, "mu": entry.mu,
                  "fill_after": entry.fill_after, "seen": entry.seen, "conn": entry.conn},
            where=c.table_id.is_(None),
        )
        async with self.db.begin() as conn:
            await conn.execute(query)
            found = (await conn.execute(sa.select(*COLUMNS).where(c.player_id == entry.player_id))).one()
        return QueueRow(*found)

    async def heartbeat(self, player_id: str, conn_id: str, now: float) -> QueueRow | None:
        """Keep the place of ``conn_id`` fresh; the row as it is (``None``: none; a row of
        another connection: the place was taken over)."""
        c = quick_queue.c
        query = quick_queue.update().where(c.player_id == player_id, c.conn == conn_id).values(seen=now)
        async with self.db.begin() as conn:
            await conn.execute(query)
            found = (await conn.execute(sa.select(*COLUMNS).where(c.player_id == player_id))).first()
        return None if found is None else QueueRow(*found)

    async def leave(self, player_id: str, conn_id: str) -> QueueRow | None:
        """Take the player out of the queue unless seated: ``None`` when they are out (never to
        be seated from this place), else the row (seated, or another connection's)."""
        c = quick_queue.c
        query = quick_queue.delete().where(c.player_id == player_id, c.conn == conn_id, c.table_id.is_(None))
        async with self.db.begin() as conn:
            if (await conn.execute(query)).rowcount:
                return None
            found = (await conn.execute(sa.select(*COLUMNS).where(c.player_id == player_id))).first()
        return None if found is None else QueueRow(*found)

    async def told(self, player_id: str, table_id: str) -> None:
        """The player was told of their seat at ``table_id``: the row goes."""
        c = quick_queue.c
        async with self.db.begin() as conn:
            await conn.execute(quick_queue.delete().where(c.player_id == player_id, c.table_id == table_id))

    async def drop_stale(self, before: float) -> int:
        """Forget the places not kept fresh since ``before`` (their player went away) and the
        seats never told since then; how many."""
        async with self.db.begin() as conn:
            return int((await conn.execute(quick_queue.delete().where(quick_queue.c.seen < before))).rowcount)

    async def waiting(self) -> list[QueueRow]:
        """Every place not seated yet, oldest first."""
        c = quick_queue.c
        query = sa.select(*COLUMNS).where(c.table_id.is_(None)).order_by(c.queued, c.player_id)
        async with self.db.connect() as conn:
            return [QueueRow(*r) for r in await conn.execute(query)]

    async def match(
        self, fresh_since: float, seat: Callable[[list[QueueRow]], Awaitable[Sequence[Seating]]]
    ) -> list[Seating]:
        """One round of matchmaking: the waiting places kept fresh since ``fresh_since``, locked
        (PostgreSQL: by one process at a time, the others skip the round), given to ``seat``,
        which makes the tables; the places it seats are marked so. Returns them."""
        c = quick_queue.c
        query = sa.select(*COLUMNS).where(c.table_id.is_(None), c.seen >= fresh_since).order_by(c.queued, c.player_id)
        if self.db.postgres:
            async with self.db.begin() as conn:
                if not (await conn.execute(sa.select(sa.func.pg_try_advisory_xact_lock(MATCH_LOCK)))).scalar_one():
                    return []
                rows = [QueueRow(*r) for r in await conn.execute(query.with_for_update(skip_locked=True))]
                seated = list(await seat(rows)) if rows else []
                await self._mark(conn, seated)
            return seated
        async with self.db.connect() as conn:
            rows = [QueueRow(*r) for r in await conn.execute(query)]
        seated = list(await seat(rows)) if rows else []
        if seated:
            async with self.db.begin() as conn:
                await self._mark(conn, seated)
        return seated

    @staticmethod
    async def _mark(conn: Any, seated: Sequence[Seating]) -> None:
        c = quick_queue.c
        for s in seated:
            await conn.execute(quick_queue.update().where(c.player_id == s.player_id, c.table_id.is_(None)).values(
                table_id=s.table_id, seat=s.seat, token=s.token, bots=s.bots, seated_preset=s.preset,
                took_seat=s.took_seat,
            ))
