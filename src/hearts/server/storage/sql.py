"""The queries, written once for SQLite and PostgreSQL (SQLAlchemy Core, async).

:class:`SqlStore` is a :class:`~hearts.server.storage.Storage` on an
:class:`~sqlalchemy.ext.asyncio.AsyncEngine`, in five parts, each a class of its own:
:class:`SqlTableLog` (``store.log``: tables, seats, the action log), :class:`SqlTalk`
(``store.talk``: the chat), :class:`SqlPlayers` (``store.players``), :class:`SqlPasskeys`
(``store.passkeys``) and :class:`SqlReviews`
(``store.reviews``). A backend (:mod:`~hearts.server.storage.sqlite`,
:mod:`~hearts.server.storage.postgres`) gives it its engine and its :class:`Notifier` — how
notices reach the listeners — and adds what is its own. Dialect differences go through
SQLAlchemy's constructs (``insert … on conflict`` of either dialect, ``RETURNING``, JSON paths)
and the column types of :mod:`~hearts.server.storage.schema`.

>>> import asyncio
>>> from hearts.actions import Play
>>> from hearts.server.storage import open_storage
>>> async def demo() -> list[object]:
...     store = await open_storage("sqlite:///:memory:")
...     await store.log.create_table("t1", {"rules": {}}, 7, [("human", "Ann", None, "h")])
...     await store.log.append("t1", 1, Play(0, "2C"))
...     found = [await store.log.actions("t1"), await store.log.unfinished()]
...     await store.close()
...     return found
>>> asyncio.run(demo())
[[{'type': 'play', 'seat': 0, 'card': '2C'}], ['t1']]
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from hearts.actions import Action, to_dict
from hearts.server.notices import BanNotice, ChatLine, ChatNotice, Notice, SeatNotice
from hearts.server.storage import (
    MAX_REASON,
    BanRow,
    ChallengePurpose,
    MarkKind,
    Marks,
    NewSeat,
    PasskeyRow,
    PlayedTable,
    PlayerRow,
    ReportRow,
    ReviewClaim,
    ReviewRow,
    SeatConflict,
    SeatRow,
    SeqConflict,
    StoreError,
    StoreUnavailable,
    TableExists,
    TableListing,
    TableRow,
    rating_changes,
)
from hearts.server.storage.batches import Batcher
from hearts.server.storage.deadline import Liveness, deadline
from hearts.server.storage.schema import (
    actions,
    auth_challenges,
    now,
    passkeys,
    player_bans,
    player_marks,
    player_reports,
    player_sessions,
    players,
    rated_games,
    review_jobs,
    seats,
    seconds,
    table_talk,
    tables,
    unix_now,
)

UNREACHABLE = (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError, TimeoutError, OSError)
"""The errors that say the database cannot be reached (a pool's wait or an attempt to connect ran out)."""


class Notifier(Protocol):
    """How a backend's notices reach its listeners."""

    async def send(self, conn: AsyncConnection, notice: Notice) -> None:
        """Announce ``notice`` once the transaction ``conn`` is in commits."""
        ...

    def ended(self, conn: AsyncConnection, committed: bool) -> None:
        """The transaction ``conn`` was in has committed (or rolled back): the notices sent in
        it that the backend held are announced (or dropped)."""
        ...


class PoolWaits:
    """The waits for a connection of a pool that had none free (every one checked out, no
    room to open another): how many wait now, how many waited and how long since the start,
    how many gave up at the pool's timeout — ``/metrics``'s ``hearts_database_pool_*``."""

    def __init__(self) -> None:
        self.waiting = 0
        self.waits = 0
        self.seconds = 0.0
        self.timeouts = 0

    async def checkout(self, conn: AsyncConnection, pool: sa.pool.Pool) -> None:
        """Take ``conn``'s connection from ``pool`` (:meth:`AsyncConnection.start`), counted
        as a wait when none was free."""
        if not (isinstance(pool, sa.pool.QueuePool) and pool.checkedin() == 0 and pool.checkedout() >= pool.size()):
            await conn.start()
            return
        self.waiting += 1
        started = time.perf_counter()
        try:
            await conn.start()
        except sa.exc.TimeoutError:
            self.timeouts += 1
            raise
        finally:
            self.waiting -= 1
            self.waits += 1
            self.seconds += time.perf_counter() - started


class Database:
    """An engine and what every part needs of it: a connection (:meth:`connect`) or a
    transaction (:meth:`begin`), either turning a lost database into
    :class:`~hearts.server.storage.StoreUnavailable`, the waits for one counted
    (:attr:`waits`); the backend's :class:`Notifier`. Given a
    :class:`~hearts.server.storage.deadline.Liveness` (PostgreSQL's), each connection or
    transaction, from the wait for a connection to its last statement, runs under a
    :func:`~hearts.server.storage.deadline.deadline`: a frozen database makes it fail as
    unavailable within seconds, not wait."""

    def __init__(self, engine: AsyncEngine, notifier: Notifier, name: str, liveness: Liveness | None = None) -> None:
        self.engine = engine
        self.notifier = notifier
        self.name = name
        self.postgres = engine.dialect.name == "postgresql"
        self.waits = PoolWaits()
        self.liveness = liveness

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[AsyncConnection]:
        async with deadline(self.liveness) as watch:
            conn = self.engine.connect()
            await self.waits.checkout(conn, self.engine.pool)
            try:
                if watch is not None:  # (from now on a silent database cuts the connection)
                    watch.attach(driver_connection(conn))
                yield conn
            finally:
                await conn.close()

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[AsyncConnection]:
        """A connection to read with: in autocommit mode on PostgreSQL (each statement its own
        transaction), in a read transaction on SQLite."""
        try:
            async with self._connection() as conn:
                options = {"isolation_level": "AUTOCOMMIT"} if self.postgres else {"read_only": True}
                yield await conn.execution_options(**options)
        except UNREACHABLE as e:
            raise self.unavailable(e) from None

    @contextlib.asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        """A transaction, committed at the end of the block (rolled back on an error); the
        notices sent in it are announced after the commit."""
        try:
            async with self._connection() as conn:
                committed = False
                try:
                    async with conn.begin():
                        yield conn
                    committed = True
                finally:
                    self.notifier.ended(conn, committed)
        except UNREACHABLE as e:
            raise self.unavailable(e) from None

    def unavailable(self, error: BaseException) -> StoreUnavailable:
        """The error to raise for one of :data:`UNREACHABLE` (the driver's message).

        >>> from sqlalchemy.ext.asyncio import create_async_engine
        >>> db = Database(create_async_engine("sqlite+aiosqlite://"), None, "x")  # type: ignore[arg-type]
        >>> str(db.unavailable(TimeoutError()))
        'the database x does not answer: no answer in time'
        """
        reason = str(getattr(error, "orig", None) or error) or "no answer in time"
        return StoreUnavailable(f"the database {self.name} does not answer: {reason}")

    def insert(self, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
        """An ``INSERT`` of this dialect (its ``on_conflict_do_…``)."""
        return postgresql.insert(table) if self.postgres else sqlite.insert(table)


def driver_connection(conn: AsyncConnection) -> Any:
    """The driver's connection (psycopg's, aiosqlite's) under a checked-out connection."""
    return conn.sync_connection.connection.driver_connection if conn.sync_connection is not None else None


def compact_json(value: Any) -> str:
    """JSON as the codec writes it (no spaces): every JSON column's text.

    >>> compact_json({"type": "play", "seat": 0})
    '{"type":"play","seat":0}'
    """
    return json.dumps(value, separators=(",", ":"))


SEAT_COLUMNS = (seats.c.seat, seats.c.kind, seats.c.name, seats.c.bot, seats.c.token_hash, seats.c.away,
                seats.c.player_id)
"""The columns of a :class:`~hearts.server.storage.SeatRow`, in order."""
PLAYER_COLUMNS = (players.c.id, players.c.name, players.c.mu, players.c.sigma, players.c.games)
"""The columns of a :class:`~hearts.server.storage.PlayerRow`, in order."""


def seat_row(row: Sequence[Any]) -> SeatRow:
    """A :class:`~hearts.server.storage.SeatRow` from :data:`SEAT_COLUMNS`."""
    seat, kind, name, bot, token_hash, away, player_id = row
    return SeatRow(seat, kind, name, bot, token_hash, bool(away), player_id)


async def seats_of(conn: AsyncConnection, table_ids: Sequence[str]) -> dict[str, list[SeatRow]]:
    """The seats of these tables, in order."""
    found: dict[str, list[SeatRow]] = {table_id: [] for table_id in table_ids}
    if found:
        query = sa.select(seats.c.table_id, *SEAT_COLUMNS).where(seats.c.table_id.in_(list(found)))
        for table_id, *seat in await conn.execute(query.order_by(seats.c.table_id, seats.c.seat)):
            found[table_id].append(seat_row(seat))
    return found


def head(table_id: Any) -> sa.ScalarSelect[Any]:
    """A table's last logged ``seq`` (0: none): one backward step of the primary key's index."""
    return sa.select(sa.func.coalesce(sa.func.max(actions.c.seq), 0)).where(actions.c.table_id == table_id) \
        .scalar_subquery()


@dataclass(frozen=True, slots=True)
class Appended:
    """An action to log (:meth:`SqlTableLog.append`): row ``seq`` of a table, its codec object,
    and whether it ends the game."""

    table_id: str
    seq: int
    action: dict[str, Any]
    finished: bool


class SqlTableLog:
    """``store.log``: the tables, their seats and their action logs.

    >>> import asyncio
    >>> from hearts.server.storage import open_storage
    >>> from hearts.actions import Play
    >>> async def demo() -> list[object]:
    ...     store = await open_storage("sqlite:///:memory:")
    ...     await store.log.create_table("t1", {"rules": {}}, 7, [("open", None, None, None)])
    ...     await store.log.append("t1", 1, Play(0, "2C"))
    ...     try:
    ...         await store.log.append("t1", 1, Play(0, "3C"))
    ...     except SeqConflict as e:
    ...         found: list[object] = [str(e)]
    ...     found += [len(await store.log.actions("t1")), (await store.log.table("t1")).seed]
    ...     await store.close()
    ...     return found
    >>> asyncio.run(demo())
    ['table t1: action 1 is already logged; resync from the log', 1, 7]
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self._batches: Batcher[Appended, bool, None] = Batcher(self._write_batch, [None])
        """The appends in batches: those made while a transaction is on its way go together in
        the next one — one ``INSERT … ON CONFLICT DO NOTHING RETURNING`` (the rows logged) and
        one commit for all of them. With SQLite's driver every
        statement is a few hand-overs to its thread, each waiting for the interpreter's lock
        while the event loop works: one transaction per action made them queue under load."""

    async def _write_batch(self, lane: None, batch: list[Appended]) -> tuple[None, list[bool | BaseException]]:
        """Log a batch of actions in one transaction: whether each was logged (``False``: its
        row was taken already, by an earlier action or one before it in the same batch)."""
        first: dict[tuple[str, int], Appended] = {}
        for appended in batch:
            first.setdefault((appended.table_id, appended.seq), appended)
        rows = [{"table_id": t, "seq": seq, "data": a.action} for (t, seq), a in first.items()]
        query = self.db.insert(actions).values(rows).on_conflict_do_nothing() \
            .returning(actions.c.table_id, actions.c.seq)
        async with self.db.begin() as conn:
            keys = {(t, seq) for t, seq in await conn.execute(query)}
            over = [t for (t, seq), a in first.items() if a.finished and (t, seq) in keys]
            if over:
                await conn.execute(tables.update().where(tables.c.id.in_(over)).values(finished=True))
        logged = {id(first[key]) for key in keys}
        return lane, [id(appended) in logged for appended in batch]

    async def create_table(
        self, table_id: str, config: dict[str, Any], seed: int, seats_: Sequence[NewSeat], *,
        deals: Sequence[Sequence[str]] | None = None,
    ) -> None:
        """Insert a table and its seats in one transaction; ``deals`` fixes the deals of its
        first rounds (as a migrated table's are). :class:`TableExists` if the id is taken."""
        async with self.db.begin() as conn:
            try:
                await conn.execute(tables.insert().values(
                    id=table_id, config=config, seed=seed, deals=None if deals is None else [list(d) for d in deals]
                ))
            except sa.exc.IntegrityError:  # the primary key: the only constraint
                raise TableExists(table_id) from None
            if seats_:
                await conn.execute(seats.insert(), [
                    {"table_id": table_id, "seat": i, "kind": kind, "name": name, "bot": bot, "token_hash": token}
                    for i, (kind, name, bot, token) in enumerate(seats_)
                ])

    async def update_seat(
        self, table_id: str, seat: int, kind: str, name: str | None, token_hash: str | None, *, was: str | None = None
    ) -> None:
        """Change who sits at a seat, and announce it (:class:`SeatNotice`). With ``was``
        (such as ``"open"``), only if the seat is of that kind now, else :class:`SeatConflict`:
        of two requests for one free seat, exactly one gets it."""
        query = seats.update().where(seats.c.table_id == table_id, seats.c.seat == seat)
        if was is not None:
            query = query.where(seats.c.kind == was)
        async with self.db.begin() as conn:
            changed = (await conn.execute(query.values(kind=kind, name=name, token_hash=token_hash))).rowcount
            if was is not None and changed == 0:
                raise SeatConflict(table_id, seat, was)
            await self.db.notifier.send(conn, SeatNotice(table_id, seat))

    async def set_away(self, table_id: str, seat: int, away: bool) -> bool:
        """Mark a seat's person away (or back) and announce it (:class:`SeatNotice`);
        ``False`` if it was so already (another process marked it first)."""
        query = seats.update().where(seats.c.table_id == table_id, seats.c.seat == seat, seats.c.away != away)
        async with self.db.begin() as conn:
            if (await conn.execute(query.values(away=away))).rowcount == 0:
                return False
            await self.db.notifier.send(conn, SeatNotice(table_id, seat))
        return True

    async def append(
        self, table_id: str, seq: int, action: Action, finished: bool = False, bots: Sequence[int] = (),
        *, epoch: int | None = None,
    ) -> None:
        # (``epoch`` is not checked: one process holds the database and owns every table)
        """Log an accepted action as row ``seq`` and commit it (before it is broadcast; it is
        not announced: only its table's owner appends); ``finished`` marks
        the game over, and ``bots`` (the bot seats this action makes ones to act; only with
        :attr:`Storage.jobs`) are queued as jobs at position ``seq`` (and announced: a
        :class:`JobNotice` each), in the same transaction.
        With ``epoch`` (the appending owner's :class:`Lease`), the row is logged only if the
        table's lease is still at that epoch, checked with the insert (PostgreSQL; SQLite's one
        process owns every table and ignores it). Raises :class:`SeqConflict` if row ``seq``
        exists, :class:`NotOwner` if the lease has another epoch now (nothing is logged,
        announced or queued), ``ValueError`` for ``bots`` on a store without jobs."""
        if bots:
            raise ValueError("this store has no bot jobs: its server process runs the bots")
        if not await self._batches.add(Appended(table_id, seq, to_dict(action), finished)):
            raise SeqConflict(table_id, seq)

    async def table(self, table_id: str) -> TableRow | None:
        """A stored table, or ``None``."""
        query = sa.select(tables.c.config, tables.c.seed, tables.c.finished, tables.c.deals)
        async with self.db.connect() as conn:
            row = (await conn.execute(query.where(tables.c.id == table_id))).first()
        return None if row is None else TableRow(row[0], int(row[1]), bool(row[2]), row[3])

    async def seats(self, table_id: str) -> list[SeatRow]:
        """A table's seats, in order."""
        async with self.db.connect() as conn:
            return (await seats_of(conn, [table_id]))[table_id]

    async def actions(self, table_id: str, after: int = 0) -> list[Any]:
        """A table's logged actions after row ``after``, in order, as codec objects (for
        :func:`hearts.record.replay`)."""
        query = sa.select(actions.c.data).where(actions.c.table_id == table_id, actions.c.seq > after)
        async with self.db.connect() as conn:
            return list((await conn.execute(query.order_by(actions.c.seq))).scalars())

    async def unfinished(self) -> list[str]:
        """Ids of every table whose game is not over, oldest first."""
        query = sa.select(tables.c.id).where(~tables.c.finished).order_by(tables.c.created, tables.c.id)
        async with self.db.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def listing(self, limit: int = 100) -> list[TableListing]:
        """Up to ``limit`` unfinished tables that the lobby lists, those with a free seat first,
        newest first. A table is listed if its config's ``listed`` is true or, for a table
        whose config has no ``listed`` (made before that option), if it has an open seat (as
        :func:`hearts.server.protocol.listed_by_default` decides)."""
        free = sa.exists().where(seats.c.table_id == tables.c.id, seats.c.kind == "open")
        listed = sa.func.coalesce(tables.c.config["listed"].as_boolean(), free)
        query = (
            sa.select(tables.c.id, tables.c.config, head(tables.c.id))
            .where(~tables.c.finished, listed)
            .order_by(free.desc(), tables.c.created.desc(), tables.c.id.desc())
            .limit(limit)
        )
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
            found = await seats_of(conn, [table_id for table_id, _, _ in rows])
        return [TableListing(table_id, config, tuple(found[table_id]), int(seq)) for table_id, config, seq in rows]


class SqlTalk:
    """``store.talk``: the chat at the tables."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add_chat(self, table_id: str, seat: int, text: str, hidden: Sequence[int] = ()) -> ChatLine:
        """Store a chat message of ``seat`` and announce it (:class:`ChatNotice`), not to be
        shown to the ``hidden`` seats (:mod:`hearts.server.company`)."""
        query = table_talk.insert().values(table_id=table_id, seat=seat, text=text).returning(table_talk.c.id)
        async with self.db.begin() as conn:
            line = ChatLine(int((await conn.execute(query)).scalar_one()), seat, text)
            await self.db.notifier.send(conn, ChatNotice(table_id, line.id, seat, text, tuple(hidden)))
        return line

    async def chat(self, table_id: str, limit: int = 50) -> list[ChatLine]:
        """A table's last ``limit`` chat messages, oldest first."""
        query = sa.select(table_talk.c.id, table_talk.c.seat, table_talk.c.text) \
            .where(table_talk.c.table_id == table_id).order_by(table_talk.c.id.desc()).limit(limit)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [ChatLine(int(i), seat, text) for i, seat, text in reversed(rows)]


class SqlPlayers:
    """``store.players``: the player profiles (:mod:`hearts.server.players`) and their ratings
    (:mod:`hearts.server.ratings`)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def create_player(self, player_id: str, name: str, key_hash: str, mu: float, sigma: float) -> None:
        """Insert a player profile with its key's hash and its starting rating."""
        async with self.db.begin() as conn:
            await conn.execute(players.insert().values(id=player_id, name=name, key_hash=key_hash, mu=mu, sigma=sigma))

    async def player_by_key(self, key_hash: str) -> PlayerRow | None:
        """The profile whose secret key has this hash, or ``None``."""
        async with self.db.connect() as conn:
            row = (await conn.execute(sa.select(*PLAYER_COLUMNS).where(players.c.key_hash == key_hash))).first()
        return None if row is None else PlayerRow(*row)

    async def rename_player(self, player_id: str, name: str) -> None:
        """Change a profile's name (the seats it sat at keep the names they were taken under)."""
        async with self.db.begin() as conn:
            await conn.execute(players.update().where(players.c.id == player_id).values(name=name))

    async def link_seat(self, table_id: str, seat: int, player_id: str) -> None:
        """Record that a person seat's person is the player ``player_id`` (a profile taking the
        seat it made, joined or claimed); :class:`SeatConflict` if the seat is no person's, or
        is linked to another player already."""
        query = seats.update().where(
            seats.c.table_id == table_id, seats.c.seat == seat, seats.c.kind == "human",
            sa.func.coalesce(seats.c.player_id, player_id) == player_id,
        )
        async with self.db.begin() as conn:
            changed = (await conn.execute(query.values(player_id=player_id))).rowcount
        if changed == 0:
            raise SeatConflict(table_id, seat, "a person's seat free of any other profile")

    async def played_tables(self, player_id: str, limit: int = 100) -> list[PlayedTable]:
        """The newest ``limit`` tables where the player sat (newest first)."""
        sat = sa.select(seats.c.table_id).where(seats.c.player_id == player_id)
        query = sa.select(tables.c.id, tables.c.created, tables.c.config, tables.c.finished) \
            .where(tables.c.id.in_(sat)).order_by(tables.c.created.desc(), tables.c.id).limit(limit)
        async with self.db.connect() as conn:
            rows = (await conn.execute(query)).all()
            found = await seats_of(conn, [table_id for table_id, *_ in rows])
        return [PlayedTable(table_id, created, config, bool(finished), tuple(found[table_id]))
                for table_id, created, config, finished in rows]

    async def rate_game(
        self, table_id: str, players_: Sequence[str], rate: Callable[[list[PlayerRow]], list[tuple[float, float]]]
    ) -> bool:
        """Rate a finished game once: in one transaction, mark ``table_id`` rated (``False``,
        nothing changed, if it was already — by any process), read the ``players``' profiles
        (in that order, locked until the end), and store the ``(mu, sigma)`` that ``rate``
        gives each, with one more rated game."""
        settle = self.db.insert(rated_games).values(table_id=table_id).on_conflict_do_nothing()
        read = sa.select(*PLAYER_COLUMNS).where(players.c.id.in_(list(players_))).order_by(players.c.id)
        async with self.db.begin() as conn:
            if (await conn.execute(settle)).rowcount == 0:
                return False  # (a concurrent settlement waited here until the first one committed)
            found = {row[0]: PlayerRow(*row) for row in await conn.execute(read.with_for_update())}
            missing = [p for p in players_ if p not in found]
            if missing:
                raise StoreError(f"table {table_id}: no player profile {missing[0]!r} to rate")
            before = [found[p] for p in players_]
            after = rate(before)
            for p, (mu, sigma) in zip(players_, after, strict=True):
                await conn.execute(players.update().where(players.c.id == p)
                                   .values(mu=mu, sigma=sigma, games=players.c.games + 1))
            await conn.execute(rated_games.update().where(rated_games.c.table_id == table_id)
                               .values(changes=rating_changes(before, after)))
        return True

    async def unrated(self, limit: int = 100) -> list[str]:
        """Finished tables of ``"rated": true`` config not rated yet (their finishing process
        stopped before it rated them), oldest first."""
        settled = sa.exists().where(rated_games.c.table_id == tables.c.id)
        query = sa.select(tables.c.id).where(tables.c.finished, tables.c.config["rated"].as_boolean(), ~settled) \
            .order_by(tables.c.created, tables.c.id).limit(limit)
        async with self.db.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def leaderboard(self, limit: int = 100) -> list[PlayerRow]:
        """The players with at least one rated game, by conservative rating (``mu - 3 sigma``),
        highest first."""
        query = sa.select(*PLAYER_COLUMNS).where(players.c.games > 0) \
            .order_by((players.c.mu - 3 * players.c.sigma).desc(), players.c.id).limit(limit)
        async with self.db.connect() as conn:
            return [PlayerRow(*row) for row in await conn.execute(query)]

    async def blocked_pairs(self, player_ids: Collection[str]) -> set[frozenset[str]]:
        """Every pair among ``player_ids`` of which one blocked the other (whichever did), as
        ``frozenset({a, b})``; unknown ids are in no pair. One query, whatever the number of
        ids: the matchmaker keeps these pairs apart, a listed table's open seat refuses them.

        >>> import asyncio
        >>> from hearts.server.storage import open_storage
        >>> async def demo() -> set[frozenset[str]]:
        ...     store = await open_storage("sqlite:///:memory:")
        ...     for p in ("ann", "bob", "cy"):
        ...         await store.players.create_player(p, p, "key-" + p, 25.0, 8.0)
        ...     await store.players.mark("bob", "ann", "block", True)
        ...     found = await store.players.blocked_pairs(["ann", "bob", "cy"])
        ...     await store.close()
        ...     return found
        >>> asyncio.run(demo()) == {frozenset({"ann", "bob"})}
        True
        """
        ids = list(set(player_ids))
        if len(ids) < 2:
            return set()
        m = player_marks.c
        query = sa.select(m.player_id, m.other_id).where(m.kind == "block", m.player_id.in_(ids), m.other_id.in_(ids))
        async with self.db.connect() as conn:
            return {frozenset(pair) for pair in await conn.execute(query)}

    async def names(self, player_ids: Collection[str]) -> dict[str, str]:
        """The names of those of these profiles that exist."""
        ids = list(set(player_ids))
        if not ids:
            return {}
        async with self.db.connect() as conn:
            return dict((await conn.execute(sa.select(players.c.id, players.c.name).where(players.c.id.in_(ids)))).tuples().all())

    async def is_banned(self, player_id: str) -> bool:
        """Whether the profile is banned (``hearts admin ban``): it cannot sit, chat or queue.
        Read from the database at each call, so a ban made anywhere holds on every process at
        once; ``False`` for an unknown id."""
        query = sa.select(sa.exists().where(player_bans.c.player_id == player_id))
        async with self.db.connect() as conn:
            return bool((await conn.execute(query)).scalar_one())

    async def _known(self, conn: AsyncConnection, player_id: str) -> str:
        """The name of a profile; ``ValueError`` if there is none."""
        name = (await conn.execute(sa.select(players.c.name).where(players.c.id == player_id))).scalar()
        if name is None:
            raise ValueError(f"no player profile {player_id!r}")
        return str(name)

    async def mark(self, player_id: str, other_id: str, kind: MarkKind, on: bool) -> bool:
        """Mute or block (``on``) another profile, or undo it; whether anything changed.
        ``ValueError`` for oneself, an unknown profile or kind (nothing changes)."""
        if kind not in ("mute", "block"):
            raise ValueError(f"a mark is 'mute' or 'block', not {kind!r}")
        if player_id == other_id:
            raise ValueError("you cannot mute or block yourself")
        m = player_marks.c
        async with self.db.begin() as conn:
            await self._known(conn, player_id)
            await self._known(conn, other_id)
            if on:
                query = self.db.insert(player_marks).values(player_id=player_id, other_id=other_id, kind=kind)
                made = query.on_conflict_do_nothing().returning(player_marks.c.kind)
                return (await conn.execute(made)).first() is not None
            undo = player_marks.delete().where(m.player_id == player_id, m.other_id == other_id, m.kind == kind)
            return bool((await conn.execute(undo)).rowcount)

    async def marks(self, player_id: str) -> Marks:
        """The profiles this player muted and blocked."""
        m = player_marks.c
        query = sa.select(m.kind, m.other_id).where(m.player_id == player_id)
        found: dict[str, set[str]] = {"mute": set(), "block": set()}
        async with self.db.connect() as conn:
            for kind, other in await conn.execute(query):
                found[kind].add(other)
        return Marks(found["mute"], found["block"])

    async def hiding(self, speaker: str, listeners: Collection[str]) -> set[str]:
        """Those of ``listeners`` who are not to read ``speaker``'s chat: they muted or blocked
        the speaker, the speaker blocked them, or they turned their chat off."""
        ids = [p for p in set(listeners) if p != speaker]
        if not ids:
            return set()
        m = player_marks.c
        hide = sa.select(m.player_id.label("id")).where(m.other_id == speaker, m.player_id.in_(ids))
        blocked = sa.select(m.other_id.label("id")).where(m.player_id == speaker, m.kind == "block",
                                                         m.other_id.in_(ids))
        off = sa.select(players.c.id.label("id")).where(players.c.id.in_(ids), ~players.c.chat)
        async with self.db.connect() as conn:
            return set((await conn.execute(sa.union(hide, blocked, off))).scalars())

    async def set_chat(self, player_id: str, on: bool) -> None:
        """Turn a profile's chat on or off (off: it reads no table's chat, nor writes)."""
        async with self.db.begin() as conn:
            await conn.execute(players.update().where(players.c.id == player_id).values(chat=on))

    async def chat_on(self, player_id: str) -> bool:
        """Whether a profile's chat is on (``True`` for an unknown id)."""
        async with self.db.connect() as conn:
            found = (await conn.execute(sa.select(players.c.chat).where(players.c.id == player_id))).scalar()
        return found is None or bool(found)

    async def set_language(self, player_id: str, language: str | None) -> None:
        """The language a profile chose for the web table (a catalog's code; ``None``: the
        browser's own)."""
        async with self.db.begin() as conn:
            await conn.execute(players.update().where(players.c.id == player_id).values(language=language))

    async def language(self, player_id: str) -> str | None:
        """The language a profile chose (``None``: none, or an unknown id)."""
        async with self.db.connect() as conn:
            found = (await conn.execute(sa.select(players.c.language).where(players.c.id == player_id))).scalar()
        return None if found is None else str(found)

    async def set_guide(self, player_id: str, guide: dict[str, Any]) -> None:
        """What became of a profile's guided first game (``{status, table, seen}``, checked by
        :class:`hearts.server.players.GuideState`), kept for every device it signs in on."""
        async with self.db.begin() as conn:
            await conn.execute(players.update().where(players.c.id == player_id).values(guide=guide))

    async def guide(self, player_id: str) -> dict[str, Any] | None:
        """A profile's guided first game as kept (``None``: never offered, or an unknown id)."""
        async with self.db.connect() as conn:
            found = (await conn.execute(sa.select(players.c.guide).where(players.c.id == player_id))).scalar()
        return found if isinstance(found, dict) else None

    async def ban(self, player_id: str, reason: str) -> bool:
        """Ban a profile, saying why, and announce it (:class:`BanNotice`: on PostgreSQL every
        server process closes the profile's connections); ``False`` if it was banned already
        (its reason kept). ``ValueError`` for an unknown profile."""
        async with self.db.begin() as conn:
            await self._known(conn, player_id)
            query = self.db.insert(player_bans).values(player_id=player_id, reason=reason[:MAX_REASON])
            made = query.on_conflict_do_nothing().returning(player_bans.c.player_id)
            banned = (await conn.execute(made)).first() is not None
            if banned:
                await self.db.notifier.send(conn, BanNotice(player_id))
            return banned

    async def unban(self, player_id: str) -> bool:
        """Lift a ban; ``False`` if the profile was not banned."""
        async with self.db.begin() as conn:
            return bool((await conn.execute(player_bans.delete().where(player_bans.c.player_id == player_id))).rowcount)

    async def bans(self) -> list[BanRow]:
        """The banned profiles, the latest first."""
        b = player_bans.c
        query = sa.select(b.player_id, players.c.name, b.reason, b.created) \
            .join_from(player_bans, players, players.c.id == b.player_id).order_by(b.created.desc(), b.player_id)
        async with self.db.connect() as conn:
            return [BanRow(*row) for row in await conn.execute(query)]

    async def report(self, reporter: str, reported: str, reason: str, table_id: str | None) -> int:
        """Store a report of ``reported`` by ``reporter`` with its reason (stripped, 1 to
        :data:`MAX_REASON` characters) and a copy of table ``table_id``'s chat and record as
        they are now; its id. ``ValueError`` for a bad reason or reporting oneself."""
        reason = " ".join(reason.split())
        if not 1 <= len(reason) <= MAX_REASON:
            raise ValueError(f"a report's reason is 1 to {MAX_REASON} characters, not {len(reason)}")
        if reporter == reported:
            raise ValueError("you cannot report yourself")
        async with self.db.begin() as conn:
            await self._known(conn, reporter)
            await self._known(conn, reported)
            chat, record = await self._evidence(conn, table_id)
            query = player_reports.insert().values(
                reporter=reporter, reported=reported, reason=reason, table_id=table_id, chat=chat, record=record
            ).returning(player_reports.c.id)
            return int((await conn.execute(query)).scalar_one())

    @staticmethod
    async def _evidence(conn: AsyncConnection, table_id: str | None) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """A table's chat (its last 500 lines) and record (config, seed, seats, actions) now."""
        if table_id is None:
            return [], None
        row = (await conn.execute(sa.select(tables.c.config, tables.c.seed).where(tables.c.id == table_id))).first()
        if row is None:
            return [], None
        t = table_talk.c
        lines = (await conn.execute(sa.select(t.id, t.seat, t.text).where(t.table_id == table_id)
                                    .order_by(t.id.desc()).limit(500))).all()
        chat = [{"id": int(i), "seat": seat, "text": text} for i, seat, text in reversed(lines)]
        logged = sa.select(actions.c.data).where(actions.c.table_id == table_id).order_by(actions.c.seq)
        record = {
            "config": row[0], "seed": int(row[1]),
            "seats": [{"seat": s.seat, "kind": s.kind, "name": s.name, "bot": s.bot, "player_id": s.player_id}
                      for s in (await seats_of(conn, [table_id]))[table_id]],
            "actions": list((await conn.execute(logged)).scalars()),
        }
        return chat, record

    async def reports(self, limit: int = 100) -> list[ReportRow]:
        """The latest ``limit`` reports, the latest first."""
        r = player_reports.c
        query = sa.select(r.id, r.created, r.reporter, r.reported, r.reason, r.table_id, r.chat, r.record) \
            .order_by(r.id.desc()).limit(limit)
        async with self.db.connect() as conn:
            return [ReportRow(int(row[0]), *row[1:]) for row in await conn.execute(query)]


STALE_REVIEW = sa.and_(review_jobs.c.status == "running", review_jobs.c.lease_until < unix_now())
"""A review job whose runner stopped renewing its lease (it died, or lost the database)."""


def lease(for_seconds: float) -> sa.ColumnElement[Any]:
    """The end of a lease of ``for_seconds`` from now, by the database's clock."""
    return unix_now() + seconds(sa.literal(for_seconds, sa.Float))


class SqlReviews:
    """``store.reviews``: the game reviews asked for (:mod:`hearts.server.reviews`), one job per
    table and seat, claimed under a lease by a runner."""

    def __init__(self, db: Database, *, one_process: bool) -> None:
        self.db = db
        self.one_process = one_process
        """Whether one process serves the database (SQLite): a job running under another
        runner's name is then taken at once (that runner was a process that is gone)."""

    async def review(self, table_id: str, seat: int) -> ReviewRow | None:
        """The review job of a table's seat, or ``None`` if none was asked for. A job whose
        runner's lease ran out (the runner died) reads ``queued``, at 0 done."""
        c = review_jobs.c
        query = sa.select(
            c.table_id, c.seat, c.budget, c.seed,
            sa.case((STALE_REVIEW, "queued"), else_=c.status), sa.case((STALE_REVIEW, 0), else_=c.done),
            c.total, sa.cast(c.review, sa.Text), c.error,
        ).where(c.table_id == table_id, c.seat == seat)
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else self._row(row)

    @staticmethod
    def _row(row: Sequence[Any]) -> ReviewRow:
        return ReviewRow(*row)

    async def queue_review(self, table_id: str, seat: int, budget: int, seed: int) -> ReviewRow:
        """Queue the review of a table's seat, unless it is queued, running or done already
        (then the stored job is returned as it is); a ``failed`` one is queued again."""
        insert = self.db.insert(review_jobs).values(table_id=table_id, seat=seat, budget=budget, seed=seed)
        query = insert.on_conflict_do_update(
            index_elements=[review_jobs.c.table_id, review_jobs.c.seat],
            set_={"status": "queued", "budget": insert.excluded.budget, "seed": insert.excluded.seed, "done": 0,
                  "total": 0, "error": None, "requested": now(), "worker": None, "lease_until": None, "tries": 0},
            where=review_jobs.c.status == "failed",
        )
        async with self.db.begin() as conn:
            await conn.execute(query)
        row = await self.review(table_id, seat)
        assert row is not None
        return row

    async def pending_reviews(self) -> int:
        """How many review jobs are queued or running (from every server process)."""
        query = sa.select(sa.func.count()).where(review_jobs.c.status.in_(("queued", "running")))
        async with self.db.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def claim_review(self, worker: str, lease_for: float) -> ReviewClaim | None:
        """Claim the oldest review job that is queued, or running under a lease that has run
        out (its runner died), for ``lease_for`` seconds: it is ``running`` from now, at 0 of 0
        decisions; ``None`` if there is none. Two runners never get the same job. On SQLite
        (one server process) a job running under another runner's name is taken at once: that
        runner was a process that is gone."""
        c = review_jobs.c
        claimable = sa.or_(c.status == "queued", STALE_REVIEW)
        if self.one_process:
            claimable = sa.or_(claimable, sa.and_(c.status == "running", c.worker.is_distinct_from(worker)))
        oldest = sa.select(c.table_id, c.seat).where(claimable).order_by(c.requested, c.table_id, c.seat).limit(1)
        if self.db.postgres:
            oldest = oldest.with_for_update(skip_locked=True)
        query = review_jobs.update().where(sa.tuple_(c.table_id, c.seat).in_(oldest)).values(
            status="running", worker=worker, lease_until=lease(lease_for), attempt=c.attempt + 1, tries=c.tries + 1,
            done=0, total=0,
        ).returning(c.table_id, c.seat, c.budget, c.seed, c.worker, c.attempt, c.tries)
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else ReviewClaim(*row)

    async def _claimed(self, claim: ReviewClaim, **values: Any) -> bool:
        """Update a job that ``claim`` still holds (``running``, under its claim number)."""
        c = review_jobs.c
        query = review_jobs.update().where(
            c.table_id == claim.table_id, c.seat == claim.seat, c.attempt == claim.attempt, c.status == "running"
        )
        async with self.db.begin() as conn:
            return (await conn.execute(query.values(**values))).rowcount == 1

    async def review_progress(self, claim: ReviewClaim, done: int, total: int, lease_for: float) -> bool:
        """Store a claimed job's progress and renew its lease for ``lease_for`` seconds;
        ``False`` if the claim no longer holds the job (then stop computing it)."""
        return await self._claimed(claim, done=done, total=total, lease_until=lease(lease_for))

    async def finish_review(self, claim: ReviewClaim, review: str) -> bool:
        """Store a claimed job's result (the review's JSON text): it is ``done``; ``False`` if
        the claim no longer held the job (nothing is stored)."""
        return await self._claimed(claim, status="done", done=review_jobs.c.total,
                                   review=sa.cast(sa.literal(review), review_jobs.c.review.type)
                                   if self.db.postgres else sa.literal(review),
                                   worker=None, lease_until=None)

    async def fail_review(self, claim: ReviewClaim, error: str) -> bool:
        """Give a claimed job up with a message: it is ``failed`` (asking again queues it
        again); ``False`` if the claim no longer held the job."""
        return await self._claimed(claim, status="failed", error=error, worker=None, lease_until=None)

    async def release_review(self, claim: ReviewClaim) -> None:
        """Let go of a claimed job not done (a runner stopping): it is ``queued`` again, for
        any runner."""
        await self._claimed(claim, status="queued", done=0, total=0, worker=None, lease_until=None)


class SqlPasskeys:
    """``store.passkeys``: the profiles' passkeys, the sign-in sessions (a cookie's secret, kept
    as its hash) and the WebAuthn challenges under way (:mod:`hearts.server.passkeys`)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add_challenge(self, challenge: str, purpose: ChallengePurpose, player_id: str | None, expires: float) -> None:
        """Keep a challenge given out (base64url) until ``expires`` (Unix seconds)."""
        async with self.db.begin() as conn:
            await conn.execute(auth_challenges.delete().where(auth_challenges.c.expires < time.time()))  # (the old ones)
            await conn.execute(auth_challenges.insert().values(
                challenge=challenge, purpose=purpose, player_id=player_id, expires=expires
            ))

    async def take_challenge(self, challenge: str, purpose: ChallengePurpose, now: float) -> tuple[bool, str | None]:
        """Take a challenge back, once (deleted, whoever asks again): whether it was given out for
        ``purpose`` and has not expired, and the profile it was given to."""
        query = auth_challenges.delete().where(auth_challenges.c.challenge == challenge).returning(
            auth_challenges.c.purpose, auth_challenges.c.player_id, auth_challenges.c.expires
        )
        async with self.db.begin() as conn:
            row = (await conn.execute(query)).first()
        if row is None or row.purpose != purpose or row.expires < now:
            return False, None
        return True, row.player_id

    async def peek_challenge(self, challenge: str, purpose: ChallengePurpose, now: float) -> str | None:
        """The profile a secret of ``purpose`` was given to, while it lasts (kept: a seat's ticket
        opens the seat again at each reconnection); ``None`` if there is none."""
        query = sa.select(auth_challenges.c.player_id).where(
            auth_challenges.c.challenge == challenge, auth_challenges.c.purpose == purpose, auth_challenges.c.expires >= now
        )
        async with self.db.connect() as conn:
            found = (await conn.execute(query)).scalar()
        return None if found is None else str(found)

    async def add(self, credential_id: str, player_id: str, public_key: str, sign_count: int, name: str) -> None:
        """Keep a new passkey of a profile; :class:`ValueError` if its credential is known already."""
        query = self.db.insert(passkeys).values(
            credential_id=credential_id, player_id=player_id, public_key=public_key, sign_count=sign_count, name=name
        ).on_conflict_do_nothing().returning(passkeys.c.credential_id)
        async with self.db.begin() as conn:
            if (await conn.execute(query)).first() is None:
                raise ValueError("this passkey is registered already")

    async def of_player(self, player_id: str) -> list[PasskeyRow]:
        """A profile's passkeys, oldest first."""
        query = sa.select(*passkeys.c).where(passkeys.c.player_id == player_id).order_by(passkeys.c.created, passkeys.c.credential_id)
        async with self.db.connect() as conn:
            return [PasskeyRow(*row) for row in await conn.execute(query)]

    async def get(self, credential_id: str) -> PasskeyRow | None:
        """The passkey of a credential id, or ``None``."""
        async with self.db.connect() as conn:
            row = (await conn.execute(sa.select(*passkeys.c).where(passkeys.c.credential_id == credential_id))).first()
        return None if row is None else PasskeyRow(*row)

    async def owner(self, credential_id: str) -> PlayerRow | None:
        """The profile a passkey signs in, or ``None``."""
        query = sa.select(*PLAYER_COLUMNS).join(passkeys, passkeys.c.player_id == players.c.id).where(
            passkeys.c.credential_id == credential_id
        )
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else PlayerRow(*row)

    async def used(self, credential_id: str, sign_count: int) -> None:
        """A passkey signed in: its new signature counter, and the moment."""
        async with self.db.begin() as conn:
            await conn.execute(passkeys.update().where(passkeys.c.credential_id == credential_id).values(
                sign_count=sign_count, used=now()
            ))

    async def remove(self, player_id: str, credential_id: str) -> bool:
        """Delete one of a profile's passkeys; whether there was such a one."""
        query = passkeys.delete().where(passkeys.c.player_id == player_id, passkeys.c.credential_id == credential_id)
        async with self.db.begin() as conn:
            return bool((await conn.execute(query.returning(passkeys.c.credential_id))).first())

    async def add_session(self, session_hash: str, player_id: str) -> None:
        """Keep a new sign-in session of a profile."""
        async with self.db.begin() as conn:
            await conn.execute(player_sessions.insert().values(session_hash=session_hash, player_id=player_id))

    async def session_player(self, session_hash: str) -> PlayerRow | None:
        """The profile of a session, or ``None`` (signed out, or never signed in)."""
        query = sa.select(*PLAYER_COLUMNS).join(player_sessions, player_sessions.c.player_id == players.c.id).where(
            player_sessions.c.session_hash == session_hash
        )
        async with self.db.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else PlayerRow(*row)

    async def end_sessions(self, player_id: str, keep: str | None = None) -> int:
        """Sign a profile out everywhere (every session but ``keep``'s hash, and every seat ticket);
        how many sessions ended."""
        query = player_sessions.delete().where(player_sessions.c.player_id == player_id)
        if keep is not None:
            query = query.where(player_sessions.c.session_hash != keep)
        tickets = auth_challenges.delete().where(auth_challenges.c.player_id == player_id, auth_challenges.c.purpose == "seat")
        async with self.db.begin() as conn:
            await conn.execute(tickets)
            return len((await conn.execute(query.returning(player_sessions.c.session_hash))).all())

    async def end_session(self, session_hash: str) -> None:
        """Sign one session out."""
        async with self.db.begin() as conn:
            await conn.execute(player_sessions.delete().where(player_sessions.c.session_hash == session_hash))


class SqlStore:
    """A :class:`~hearts.server.storage.Storage` on one database: its parts on one
    :class:`Database`; a backend adds its notices (:meth:`listen`, :meth:`notify`), its
    :attr:`leases` and, on PostgreSQL, its :attr:`jobs`."""

    jobs: Any = None
    """No bot job queue (a backend with one sets it)."""
    leases: Any
    """Which process owns each table (the backend's)."""

    def __init__(self, db: Database, *, one_process: bool, log: SqlTableLog | None = None) -> None:
        self.db = db
        self.one_process = one_process
        self.log = log or SqlTableLog(db)
        self.talk = SqlTalk(db)
        self.players = SqlPlayers(db)
        self.passkeys = SqlPasskeys(db)
        self.reviews = SqlReviews(db, one_process=one_process)

    @property
    def name(self) -> str:
        return self.db.name

    async def ping(self) -> None:
        async with self.db.connect() as conn:
            await conn.execute(sa.select(1))

    async def close(self) -> None:
        await self.db.engine.dispose()
