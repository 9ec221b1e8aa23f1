"""The web tables' storage: one async API (:class:`Storage`) on SQLite or PostgreSQL.

* **SQLite** (``sqlite:///PATH``, a plain path, or ``None``: the user's data file): the
  embedded default for one server process, zero set-up (:mod:`hearts.server.storage.sqlite`).
* **PostgreSQL** (``postgresql://user@host:port/dbname``): for many server processes and bot
  workers on any machines (:mod:`hearts.server.storage.postgres`, the ``postgres`` extra:
  psycopg 3). It also holds the bot jobs.

Both run the same queries (:mod:`hearts.server.storage.sql`, SQLAlchemy Core) on one schema
(:mod:`hearts.server.storage.schema`) kept by one Alembic history
(:mod:`hearts.server.storage.migrate`); what only PostgreSQL has — ``SKIP LOCKED`` job
claiming, ``LISTEN/NOTIFY``, the tables' leases — lives in its module. A store is in parts by
concern:

* ``store.log`` (:class:`~hearts.server.storage.sql.SqlTableLog`): a table's row (:class:`TableRow`: the config with its
  rules, the seed its deals are shuffled from, the finished flag), its seats (:class:`SeatRow`)
  and its log: one row per accepted action, ``seq`` 1, 2, …, the action in the codec of
  :mod:`hearts.actions`. **The database decides the order of actions**: appending a ``seq``
  that is already logged raises :class:`SeqConflict`, whichever process tries second, so an
  action is accepted exactly once; the loser resyncs (reads the rows after its own ``seq``).
  Every accepted action and seat change is then announced to every :meth:`Storage.listen`
  listener: on PostgreSQL to every process (``NOTIFY``), on SQLite within the process.
* ``store.talk`` (:class:`~hearts.server.storage.sql.SqlTalk`): the chat; ``store.players``
  (:class:`~hearts.server.storage.sql.SqlPlayers`): profiles and ratings; ``store.passkeys``
  (:class:`~hearts.server.storage.sql.SqlPasskeys`): passkeys and sign-in sessions;
  ``store.reviews`` (:class:`~hearts.server.storage.sql.SqlReviews`): the game reviews asked for
  (:class:`ReviewRow`: one job per table and seat, claimed under a lease by a
  :class:`~hearts.server.reviews.ReviewRunner`).
* ``store.jobs`` (:class:`~hearts.server.storage.postgres.PgJobs`, PostgreSQL only): a bot seat to act at a position, or a
  hint, claimed by a bot worker on any machine; SQLite has no queue (``None``), and its one
  server process runs the bots itself.
* ``store.leases`` (:class:`Leases`): which process owns each table — one at a time, under a
  lease with a fencing epoch that its appends carry (``append(…, epoch=…)``): the database
  refuses an older epoch's (:class:`NotOwner`). On SQLite a cluster of one: its one process owns
  every table it opens.

:func:`load_game` rebuilds a table's game from its row and log, for a server process and a bot
worker alike. Open a store with :func:`open_storage`; every method is a coroutine::

    store = await open_storage("postgresql://hearts@db.example:5432/hearts")
    await store.log.create_table("t1", {"rules": rules.to_dict()}, seed, [("human", "Ann", None, token_hash)])
    await store.log.append("t1", 1, action)      # SeqConflict if row 1 is logged already
    row = await store.log.table("t1")
    game = Game(Rules.from_dict(row.config["rules"]), row.seed, deals=row.deals)
    replay(game, await store.log.actions("t1"))  # the table's position
    await store.close()
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib.util
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeGuard

from hearts.game import Game
from hearts.record import replay
from hearts.rules import Rules
from hearts.server.notices import Notice

if TYPE_CHECKING:
    from hearts.server.storage.postgres import PgJobs
    from hearts.server.storage.sql import SqlPasskeys, SqlPlayers, SqlReviews, SqlTableLog, SqlTalk


def hash_token(token: str) -> str:
    """The stored form of a seat's secret token or a player's key (only hashes are stored).

    >>> hash_token("abc")[:12]
    'ba7816bf8f01'
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id(nbytes: int) -> str:
    """A new random id of ``nbytes`` random bytes (:func:`id_of` them): a table's or a player
    profile's.

    >>> len(new_id(6)), new_id(9).isalnum()
    (8, True)
    """
    return id_of(secrets.token_bytes(nbytes))


def id_of(raw: bytes) -> str:
    """The id that stands for ``raw``: its URL-safe base64 with ``-`` and ``_`` replaced by
    letters, so that an id is letters and digits only and none begins with ``-``, which a
    command line (``hearts admin ban PLAYER_ID``) reads as an option.

    >>> id_of(bytes([251, 255, 255]))
    'xyyy'
    """
    return base64.urlsafe_b64encode(raw).decode().rstrip("=").replace("-", "x").replace("_", "y")


NewSeat = tuple[str, str | None, str | None, str | None]
"""A seat of a table being created: its kind (``human``, ``open`` or ``bot``), name, bot spec
and token hash."""


class StoreError(RuntimeError):
    """A storage failure that the caller can name (the base of this module's errors)."""


class SchemaError(StoreError):
    """The database's schema is newer than this code knows, or an old one cannot be migrated;
    the database is left as it was."""


class StoreUnavailable(StoreError):
    """The database cannot be reached, or a listener lost its connection (notices may have
    been missed: open a new listener and resync every table held in memory)."""


class SeqConflict(StoreError):
    """Row ``seq`` of a table's log is already written (by this process or another): the
    action that tried to take it is not accepted; resync from the log."""

    def __init__(self, table_id: str, seq: int) -> None:
        super().__init__(f"table {table_id}: action {seq} is already logged; resync from the log")
        self.table_id = table_id
        self.seq = seq


class NotOwner(StoreError):
    """An append by a process whose lease on the table is no longer the current one (another
    process took the table over): refused by the database, nothing logged or announced."""

    def __init__(self, table_id: str, epoch: int) -> None:
        super().__init__(f"table {table_id}: the lease of epoch {epoch} is no longer the table's; another process owns it")
        self.table_id = table_id
        self.epoch = epoch


class TableExists(StoreError):
    """``create_table`` of an id that is stored already (by this process or another): nothing
    was done. A rematch's table has an id made from its old table's, so of two processes making
    it, one does and the other hears this."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"table {table_id} exists already")
        self.table_id = table_id


class SeatConflict(StoreError):
    """A conditional seat change found the seat no longer as expected (another request took
    it first), or no such seat."""

    def __init__(self, table_id: str, seat: int, was: str) -> None:
        super().__init__(f"table {table_id}: seat {seat} is not {was!r} (any more), or does not exist")
        self.table_id = table_id
        self.seat = seat


@dataclass(frozen=True)
class TableRow:
    """A stored table: its config (``rules``, ``spectators``, …), seed and finished flag, and
    the explicit deals of its first rounds (``None``: every deal is the seed's)."""

    config: dict[str, Any]
    seed: int
    finished: bool
    deals: list[list[str]] | None


@dataclass(frozen=True)
class SeatRow:
    """A stored seat: ``human``, ``open`` or ``bot``, its name, bot spec and token hash,
    whether its person is ``away`` (the turn timer ran out: the table's stand-in bot plays for
    it until the person is back), and the player profile its person sits as (``player_id``;
    ``None``: no profile, or no person)."""

    seat: int
    kind: str
    name: str | None
    bot: str | None
    token_hash: str | None
    away: bool = False
    player_id: str | None = None


@dataclass(frozen=True)
class PlayerRow:
    """A stored player profile (:mod:`hearts.server.players`): its id, name, and rating — an
    OpenSkill ``mu`` and ``sigma`` (:mod:`hearts.server.ratings`) and the rated ``games`` it
    played. Its secret key is stored only as a hash, never read back."""

    id: str
    name: str
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class PasskeyRow:
    """A stored passkey (:mod:`hearts.server.passkeys`): its WebAuthn credential id and COSE
    public key (base64url), the profile it signs in, the authenticator's signature counter, its
    name, when it was made and last used."""

    credential_id: str
    player_id: str
    public_key: str
    sign_count: int
    name: str
    created: datetime
    used: datetime | None


ChallengePurpose = Literal["register", "sign_in", "seat"]
"""What a secret was given out for: a WebAuthn challenge to add a passkey to a profile or to
sign in, or a ticket that opens a profile's seat (:mod:`hearts.server.passkeys`)."""


MarkKind = Literal["mute", "block"]
"""A player's mark on another: ``mute`` (the other's chat hidden from the player) or ``block``
(their chat hidden from each other, and never seated together by the matchmaker nor at a
listed table's open seat)."""

MAX_REASON: Final = 500
"""Characters of a report's reason (or a ban's), at most."""


@dataclass(frozen=True)
class Marks:
    """The profiles a player muted and blocked (:meth:`~hearts.server.storage.sql.SqlPlayers.marks`)."""

    muted: set[str]
    blocked: set[str]


@dataclass(frozen=True)
class BanRow:
    """A banned profile (``hearts admin ban``): its id, name, the operator's reason, when."""

    player_id: str
    name: str
    reason: str
    created: datetime


@dataclass(frozen=True)
class ReportRow:
    """A report of player ``reported`` by ``reporter`` (:meth:`~hearts.server.storage.sql.SqlPlayers.report`), for the
    operator: its reason, the table it was made at, and that table's ``chat`` (each line's
    ``id``, ``seat`` and ``text``) and ``record`` (``config``, ``seed``, ``seats``, ``actions``) as
    they were then, copied (``record`` ``None``: no such table)."""

    id: int
    created: datetime
    reporter: str
    reported: str
    reason: str
    table_id: str | None
    chat: list[dict[str, Any]]
    record: dict[str, Any] | None


def rating_changes(before: Sequence[PlayerRow], after: Sequence[tuple[float, float]]) -> dict[str, Any]:
    """What a rated game changed, as stored with it: each player's ``mu`` and ``sigma`` before
    and after.

    >>> rating_changes([PlayerRow("p1", "Ann", 25.0, 8.0, 0)], [(27.5, 7.5)])
    {'p1': {'mu': [25.0, 27.5], 'sigma': [8.0, 7.5]}}
    """
    return {p.id: {"mu": [p.mu, mu], "sigma": [p.sigma, sigma]} for p, (mu, sigma) in zip(before, after, strict=True)}


@dataclass(frozen=True)
class PlayedTable:
    """A table a player sat at, as "my games" lists it: its id, when it was made, its config
    (rules, ``rated``, …), whether its game is over, and its seats."""

    id: str
    created: datetime
    config: dict[str, Any]
    finished: bool
    seats: tuple[SeatRow, ...]


@dataclass(frozen=True)
class TableListing:
    """An unfinished table as the lobby lists it: its config, seats, and ``seq`` (how many
    actions its log holds)."""

    id: str
    config: dict[str, Any]
    seats: tuple[SeatRow, ...]
    seq: int

    @property
    def free(self) -> list[int]:
        """The open seats (joinable from the lobby)."""
        return [s.seat for s in self.seats if s.kind == "open"]


@dataclass(frozen=True)
class BotJob:
    """A claimed bot job: the bot of ``seat`` at table ``table_id`` is to act from position
    ``seq`` (the table's ``seq`` when queued) while the seat is to act; ``worker`` holds it
    until ``lease_until``, by its claim number ``attempt`` (1 for the first claim, more after
    leases expired); it had ``waited`` seconds since it was queued when claimed."""

    id: int
    table_id: str
    seat: int
    seq: int
    worker: str
    attempt: int
    lease_until: datetime
    waited: float


ReviewStatus = Literal["queued", "running", "done", "failed"]
"""Where a stored review job is: waiting for a runner, being computed, its result stored, or
given up (its message in :attr:`ReviewRow.error`)."""


@dataclass(frozen=True)
class ReviewRow:
    """A stored review job (:mod:`hearts.server.reviews`): the review of ``seat``'s decisions at
    table ``table_id`` with ``budget`` sampled deals per decision and ``seed``; its ``status``,
    ``done`` of ``total`` decisions valued so far, and once done the review as JSON text
    (``GameReview.to_dict()``)."""

    table_id: str
    seat: int
    budget: int
    seed: int
    status: ReviewStatus
    done: int
    total: int
    review: str | None
    error: str | None


@dataclass(frozen=True)
class ReviewClaim:
    """A review job claimed by ``worker`` (claim number ``attempt``: 1 for the first claim,
    more after a lease ran out or a runner let go; ``tries``: the claims since it was last
    queued): to be computed, then stored with :meth:`~hearts.server.storage.sql.SqlReviews.finish_review`. Every write of a
    claim is refused once another claim holds the job."""

    table_id: str
    seat: int
    budget: int
    seed: int
    worker: str
    attempt: int
    tries: int


@dataclass(frozen=True)
class HintJob:
    """A claimed hint job: the hint of ``seat``'s decision begun at position ``seq`` of table
    ``table_id`` (:func:`~hearts.server.turns.decision_start`), held by ``worker`` by its
    claim number ``attempt``."""

    table_id: str
    seat: int
    seq: int
    worker: str
    attempt: int


@dataclass(frozen=True)
class Lease:
    """A process's ownership of a table: ``owner`` (the process id), ``epoch`` (increases at each new owner)."""

    table_id: str
    owner: str
    epoch: int


class Leases(Protocol):
    """``store.leases``: which process owns each table. At any moment at most one
    process holds a live lease on a table, for :data:`~hearts.server.storage.postgres.LEASE`
    seconds from its last claim or renewal (by the database's clock); each new holder gets the
    next epoch, and an append carrying an older one is refused (:class:`NotOwner`), so an old
    owner that wakes up cannot write. A lease whose time has run out is held by nobody, its
    old holder included: claimed again, even by it, it has a new epoch."""

    async def claim(self, table_id: str, owner: str) -> Lease | None:
        """Take the table's lease if nobody holds a live one (a new epoch: one more than the
        last, 1 for the first), or extend it if ``owner`` holds it (the same epoch); ``None``
        if another process holds it."""
        ...

    async def renew(self, owner: str, leases: Sequence[Lease]) -> set[str]:
        """Extend those of ``leases`` that ``owner`` still holds at the same epoch (run out
        too, if nobody took them meanwhile); the ids of their tables (the others were lost:
        taken over, or released)."""
        ...

    async def holder(self, table_id: str) -> Lease | None:
        """The table's live lease, or ``None`` (none ever, or run out: nobody owns it)."""
        ...

    async def hand_over(self, lease: Lease, to: str) -> Lease | None:
        """Give the table to process ``to`` (the next epoch, a full lease) if ``lease`` is still
        the current one (the same owner and epoch); the new lease, or ``None``."""
        ...

    async def orphans(self, limit: int, live: Sequence[str]) -> list[str]:
        """Up to ``limit`` unfinished tables in play whose lease has run out (their owner died
        or stopped), the longest run out first, then those never claimed whose bots wait for a
        move. In play: one of ``live`` (the tables the asking process knows to be in play: a
        client connected, :meth:`~hearts.server.tables.ownership.Ownership.in_play`) or one
        whose bots wait for a move. An idle
        table is nobody's orphan, nor is a table of people never claimed: the first process
        one of its clients reaches claims it. The look-up costs the same however many idle
        tables there are."""
        ...

    async def release(self, owner: str, table_ids: Sequence[str]) -> None:
        """End the leases ``owner`` holds on these tables (a process stopping): any process may
        claim them at once, at the next epoch (the rows and their epochs stay)."""
        ...


class Listener(Protocol):
    """The notices of a store, from the moment :meth:`Storage.listen` returned: an async
    iterator, to be closed when done::

        listener = await store.listen()
        try:
            async for notice in listener:
                ...
        finally:
            await listener.close()

    Iteration ends once it is closed; on PostgreSQL it raises :class:`StoreUnavailable` if
    the connection is lost.
    """

    def __aiter__(self) -> Listener: ...

    async def __anext__(self) -> Notice: ...

    async def close(self) -> None: ...


class QueueListener:
    """A :class:`Listener` fed within the process: its store puts notices into it
    (:meth:`put`) and ends it (:meth:`end`, with an error to raise if its source was lost)."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Notice | StoreError | None] = asyncio.Queue()
        self.closed = False

    def put(self, notice: Notice) -> None:
        """Hand the listener a notice."""
        self._queue.put_nowait(notice)

    def end(self, error: StoreError | None = None) -> None:
        """End the iteration once the notices already put are taken: cleanly, or with ``error``."""
        self.closed = True
        self._queue.put_nowait(error)

    def __aiter__(self) -> QueueListener:
        return self

    async def __anext__(self) -> Notice:
        item = await self._queue.get()
        if item is None or isinstance(item, StoreError):
            self._queue.put_nowait(item)  # it stays ended
            if item is None:
                raise StopAsyncIteration
            raise item
        return item

    async def close(self) -> None:
        """Stop listening: the notices already heard are still given, then iteration ends."""
        if not self.closed:
            self.end()


class Storage(Protocol):
    """A database of tables, in parts by concern — :attr:`log`, :attr:`talk`,
    :attr:`players`, :attr:`passkeys`, :attr:`reviews` and (PostgreSQL) :attr:`jobs` and :attr:`leases` — with
    the notices that every process hears (:meth:`listen`, :meth:`notify`)."""

    @property
    def name(self) -> str:
        """The database, for logs (its path, or its URL without a password)."""
        ...

    @property
    def log(self) -> SqlTableLog:
        """The tables, their seats and their action logs."""
        ...

    @property
    def talk(self) -> SqlTalk:
        """The chat at the tables."""
        ...

    @property
    def players(self) -> SqlPlayers:
        """The player profiles and ratings."""
        ...

    @property
    def passkeys(self) -> SqlPasskeys:
        """The passkeys, sign-in sessions and WebAuthn challenges."""
        ...

    @property
    def reviews(self) -> SqlReviews:
        """The game review jobs."""
        ...

    @property
    def jobs(self) -> PgJobs | None:
        """The bot job queue (PostgreSQL: bots act through bot workers), or ``None`` (SQLite:
        the server process runs its tables' bots)."""
        ...

    @property
    def leases(self) -> Leases:
        """Which process owns each table: on PostgreSQL, the many processes' leases; on SQLite,
        a cluster of one (its process owns every table it opens)."""
        ...

    @property
    def one_process(self) -> bool:
        """Whether one process serves the database (SQLite): it restores every unfinished
        table when it starts, and has no peer to hand a table to."""
        ...

    async def ping(self) -> None:
        """Check that the database answers; :class:`StoreUnavailable` if it does not."""
        ...

    async def notify(self, notice: Notice) -> bool:
        """Announce a notice to every listener (every process on PostgreSQL); whether it was
        sent (``False``: the database could not be reached, and a warning is logged)."""
        ...

    async def listen(self) -> Listener:
        """A listener that hears every action accepted and seat changed from now on (by any
        process on PostgreSQL; by this store on SQLite), this process's own included."""
        ...

    async def close(self) -> None:
        """Release the connections (open listeners end)."""
        ...


@dataclass(frozen=True)
class StoredGame:
    """A stored table with its game: ``Game(rules, seed)`` (with a migrated table's logged
    deals) and its log replayed, as a record is."""

    row: TableRow
    seats: list[SeatRow]
    game: Game


async def load_game(store: Storage, table_id: str) -> StoredGame | None:
    """A table's row, seats and game (:class:`StoredGame`), or ``None`` if there is no such
    table; a log that does not replay raises :class:`~hearts.errors.RecordError`."""
    row = await store.log.table(table_id)
    if row is None:
        return None
    game = Game(Rules.from_dict(row.config["rules"]), row.seed, deals=row.deals)
    replay(game, await store.log.actions(table_id))
    return StoredGame(row, await store.log.seats(table_id), game)


class OutageReport(Protocol):
    """Where a process's tasks report that the database is unreachable and that it answers
    again, to be said once in the log each way (:class:`hearts.server.outage.Outage`)."""

    def failed(self, error: BaseException) -> None: ...

    def answered(self) -> None: ...


async def follow(
    store: Storage,
    listener: Listener,
    hear: Callable[[Notice], None],
    missed: Callable[[], None],
    outage: OutageReport,
) -> None:
    """Hand every notice of ``listener`` to ``hear`` until the store closes it. When it loses
    its connection (:class:`StoreUnavailable`), listen again once the database answers
    (trying every few seconds), then call ``missed``: notices may have been lost meanwhile. The
    loss and the return are reported to ``outage``, which says each once in the log."""
    while True:
        try:
            async for notice in listener:
                hear(notice)
            return
        except StoreUnavailable as e:
            outage.failed(e)
        finally:
            await listener.close()
        wait = 0.5
        while True:
            try:
                listener = await store.listen()
                break
            except StoreError as e:
                outage.failed(e)
            await asyncio.sleep(wait)
            wait = min(5.0, wait * 2)
        outage.answered()
        missed()


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(url: str | None) -> TypeGuard[str]:
    """Whether a URL names a PostgreSQL database (``ImportError`` if the driver is missing).

    >>> is_postgres("sqlite:///tmp/x.db"), is_postgres(None)
    (False, False)
    """
    if url is None or not url.startswith(POSTGRES_SCHEMES):
        return False
    if importlib.util.find_spec("psycopg") is None:
        raise ImportError("PostgreSQL storage needs the 'postgres' extra: pip install 'pyhearts[postgres]'")
    return True


def describe_url(url: str | None) -> str:
    """The database a URL names, for logs (a path, or a URL without its password), without
    opening it; ``ValueError`` for a URL of no backend.

    >>> describe_url("sqlite:///tmp/x.db"), describe_url("postgresql://ann:pw@db:5433/hearts")
    ('/tmp/x.db', 'postgresql://ann@db:5433/hearts')
    """
    if is_postgres(url):
        from hearts.server.storage.postgres import describe_postgres_url

        return describe_postgres_url(url)
    from hearts.server.storage.sqlite import db_path_from_url

    return db_path_from_url(url)


async def open_storage(url: str | None, *, channel: str = "pyhearts") -> Storage:
    """The storage a URL names, opened and at the newest schema version (created or migrated).

    ``postgresql://…`` (or ``postgres://…``): PostgreSQL, its notices on ``channel`` (one per
    service sharing a database); anything else is SQLite: ``sqlite:///PATH``, a plain path, or
    ``None`` for the user's data file (:func:`hearts.server.storage.sqlite.db_path_from_url`).
    Raises ``ValueError`` for a URL of no backend, :class:`SchemaError` for a database newer
    than this code, :class:`StoreUnavailable` if PostgreSQL cannot be reached.
    """
    if is_postgres(url):
        from hearts.server.storage.postgres import PostgresStorage

        return await PostgresStorage.open(url, channel=channel)
    from hearts.server.storage.sqlite import SQLiteStorage, db_path_from_url

    return await SQLiteStorage.open(db_path_from_url(url))
