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

* ``store.log`` (:class:`TableLog`): a table's row (:class:`TableRow`: the config with its
  rules, the seed its deals are shuffled from, the finished flag), its seats (:class:`SeatRow`)
  and its log: one row per accepted action, ``seq`` 1, 2, …, the action in the codec of
  :mod:`hearts.actions`. **The database decides the order of actions**: appending a ``seq``
  that is already logged raises :class:`SeqConflict`, whichever process tries second, so an
  action is accepted exactly once; the loser resyncs (reads the rows after its own ``seq``).
  Every accepted action and seat change is then announced to every :meth:`Storage.listen`
  listener: on PostgreSQL to every process (``NOTIFY``), on SQLite within the process.
* ``store.talk`` (:class:`Talk`): the chat; ``store.players`` (:class:`Players`): profiles and
  ratings; ``store.reviews`` (:class:`Reviews`): the game reviews asked for
  (:class:`ReviewRow`: one job per table and seat, claimed under a lease by a
  :class:`~hearts.server.reviews.ReviewRunner`).
* ``store.jobs`` (:class:`JobQueue`, PostgreSQL only): a bot seat to act at a position, or a
  hint, claimed by a bot worker on any machine; SQLite has no queue (``None``), and its one
  server process runs the bots itself.
* ``store.leases`` (:class:`Leases`; on SQLite a cluster of one): which process owns each table — one at
  a time, under a lease with a fencing epoch that its appends carry (``append(…, epoch=…)``):
  the database refuses an older epoch's (:class:`NotOwner`). SQLite has none (``None``): its one
  process owns every table.

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
import hashlib
import importlib.util
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, Protocol, TypeGuard

from hearts.actions import Action
from hearts.game import Game
from hearts.record import replay
from hearts.rules import Rules
from hearts.server.logs import fields
from hearts.server.notices import ChatLine, Notice

log = logging.getLogger("hearts.server")

def hash_token(token: str) -> str:
    """The stored form of a seat's secret token or a player's key (only hashes are stored).

    >>> hash_token("abc")[:12]
    'ba7816bf8f01'
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


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
    """The profiles a player muted and blocked (:meth:`Players.marks`)."""

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
    """A report of player ``reported`` by ``reporter`` (:meth:`Players.report`), for the
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
    queued): to be computed, then stored with :meth:`Reviews.finish_review`. Every write of a
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
    """A claimed hint job: the hint of ``seat`` at position ``seq`` of table ``table_id``,
    held by ``worker`` by its claim number ``attempt``."""

    table_id: str
    seat: int
    seq: int
    worker: str
    attempt: int


class JobQueue(Protocol):
    """Bot jobs in the database (PostgreSQL), for bot workers on any machine. A job is queued
    with the action that makes a bot seat one to act (:meth:`TableLog.append`'s ``bots``), or
    by :meth:`enqueue_bot_job`; a worker claims one (:meth:`claim_bot_job`), makes the bot's
    move, and deletes it (:meth:`complete_bot_job`)."""

    async def enqueue_bot_job(self, table_id: str, seat: int, seq: int) -> bool:
        """Queue the bot of ``seat`` to act from position ``seq`` and announce it
        (:class:`JobNotice`); ``False`` if that job is queued already (any process may queue
        it: it is queued once)."""
        ...

    async def claim_bot_job(self, worker: str, lease: float = 30.0) -> BotJob | None:
        """Claim the oldest job of a table that has no job claimed (its own expired claim
        aside), for ``lease`` seconds; ``None`` if there is none. Two workers claiming at
        once never get the same job, nor two jobs of one table."""
        ...

    async def complete_bot_job(self, job: BotJob) -> bool:
        """Delete a job once done (its action appended, or found stale); ``False`` if this
        claim no longer held it (its lease expired and another worker claimed it)."""
        ...

    async def release_bot_job(self, job: BotJob) -> None:
        """Let go of a claimed job not done (a worker stopping): any worker may claim it now."""
        ...

    async def renew_bot_jobs(self, jobs: Sequence[BotJob], lease: float) -> set[int]:
        """Extend claims to ``lease`` seconds from now (a worker's heartbeat for the jobs it
        holds while it waits out their bot delays and thinks); the ids of the jobs whose claim
        still held (the others' leases ran out and another worker claimed them)."""
        ...

    async def ask_hint(self, table_id: str, seat: int, seq: int) -> dict[str, Any] | None:
        """The hint of ``seat`` at position ``seq`` if computed already (its action's codec
        object); else ``None``, and a hint job is queued (once, whoever asks) and announced:
        its result comes as a :class:`HintNotice`."""
        ...

    async def claim_hint_job(self, worker: str, lease: float = 30.0) -> HintJob | None:
        """Claim the oldest hint job not computed and not claimed (or whose lease expired)."""
        ...

    async def complete_hint_job(self, job: HintJob, action: dict[str, Any] | None) -> None:
        """Keep a hint job's result (``None``: the position moved on; the job is dropped) and
        announce it (:class:`HintNotice`)."""
        ...

    async def renew_hint_job(self, job: HintJob, lease: float) -> bool:
        """Extend a hint job's claim to ``lease`` seconds from now; ``False`` if the claim no
        longer holds it (or it is computed)."""
        ...


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


class TableLog(Protocol):
    """``store.log``: the tables, their seats and their action logs.

    >>> import asyncio
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

    async def create_table(
        self,
        table_id: str,
        config: dict[str, Any],
        seed: int,
        seats: Sequence[NewSeat],
        *,
        deals: Sequence[Sequence[str]] | None = None,
    ) -> None:
        """Insert a table and its seats in one transaction; ``deals`` fixes the deals of its
        first rounds (as a migrated table's are). :class:`TableExists` if the id is taken."""
        ...

    async def update_seat(
        self, table_id: str, seat: int, kind: str, name: str | None, token_hash: str | None, *, was: str | None = None
    ) -> None:
        """Change who sits at a seat, and announce it (:class:`SeatNotice`). With ``was``
        (such as ``"open"``), only if the seat is of that kind now, else :class:`SeatConflict`:
        of two requests for one free seat, exactly one gets it."""
        ...

    async def set_away(self, table_id: str, seat: int, away: bool) -> bool:
        """Mark a seat's person away (or back) and announce it (:class:`SeatNotice`);
        ``False`` if it was so already (another process marked it first)."""
        ...

    async def append(
        self, table_id: str, seq: int, action: Action, finished: bool = False, bots: Sequence[int] = (),
        *, epoch: int | None = None,
    ) -> None:
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
        ...

    async def table(self, table_id: str) -> TableRow | None:
        """A stored table, or ``None``."""
        ...

    async def seats(self, table_id: str) -> list[SeatRow]:
        """A table's seats, in order."""
        ...

    async def actions(self, table_id: str, after: int = 0) -> list[Any]:
        """A table's logged actions after row ``after``, in order, as codec objects (for
        :func:`hearts.record.replay`)."""
        ...

    async def unfinished(self) -> list[str]:
        """Ids of every table whose game is not over, oldest first."""
        ...

    async def listing(self, limit: int = 100) -> list[TableListing]:
        """Up to ``limit`` unfinished tables that the lobby lists, those with a free seat first,
        newest first. A table is listed if its config's ``listed`` is true or, for a table
        whose config has no ``listed`` (made before that option), if it has an open seat (as
        :func:`hearts.server.protocol.listed_by_default` decides)."""
        ...


class Talk(Protocol):
    """``store.talk``: the chat at the tables."""

    async def add_chat(self, table_id: str, seat: int, text: str, hidden: Sequence[int] = ()) -> ChatLine:
        """Store a chat message of ``seat`` and announce it (:class:`ChatNotice`), not to be
        shown to the ``hidden`` seats (:mod:`hearts.server.company`)."""
        ...

    async def chat(self, table_id: str, limit: int = 50) -> list[ChatLine]:
        """A table's last ``limit`` chat messages, oldest first."""
        ...


class Players(Protocol):
    """``store.players``: the player profiles (:mod:`hearts.server.players`) and their ratings
    (:mod:`hearts.server.ratings`)."""

    async def create_player(self, player_id: str, name: str, key_hash: str, mu: float, sigma: float) -> None:
        """Insert a player profile with its key's hash and its starting rating."""
        ...

    async def player_by_key(self, key_hash: str) -> PlayerRow | None:
        """The profile whose secret key has this hash, or ``None``."""
        ...

    async def rename_player(self, player_id: str, name: str) -> None:
        """Change a profile's name (the seats it sat at keep the names they were taken under)."""
        ...

    async def link_seat(self, table_id: str, seat: int, player_id: str) -> None:
        """Record that a person seat's person is the player ``player_id`` (a profile taking the
        seat it made, joined or claimed); :class:`SeatConflict` if the seat is no person's, or
        is linked to another player already."""
        ...

    async def played_tables(self, player_id: str, limit: int = 100) -> list[PlayedTable]:
        """The newest ``limit`` tables where the player sat (newest first)."""
        ...

    async def rate_game(
        self, table_id: str, players: Sequence[str], rate: Callable[[list[PlayerRow]], list[tuple[float, float]]]
    ) -> bool:
        """Rate a finished game once: in one transaction, mark ``table_id`` rated (``False``,
        nothing changed, if it was already — by any process), read the ``players``' profiles
        (in that order, locked until the end), and store the ``(mu, sigma)`` that ``rate``
        gives each, with one more rated game."""
        ...

    async def unrated(self, limit: int = 100) -> list[str]:
        """Finished tables of ``"rated": true`` config not rated yet (their finishing process
        stopped before it rated them), oldest first."""
        ...

    async def leaderboard(self, limit: int = 100) -> list[PlayerRow]:
        """The players with at least one rated game, by conservative rating (``mu - 3 sigma``),
        highest first."""
        ...

    async def blocked_pairs(self, player_ids: Collection[str]) -> set[frozenset[str]]:
        """Every pair among ``player_ids`` of which one blocked the other (whichever did), as
        ``frozenset({a, b})``; unknown ids are in no pair. One query, whatever the number of
        ids: the matchmaker keeps these pairs apart, a listed table's open seat refuses them.

        >>> import asyncio
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
        ...

    async def names(self, player_ids: Collection[str]) -> dict[str, str]:
        """The names of those of these profiles that exist."""
        ...

    async def is_banned(self, player_id: str) -> bool:
        """Whether the profile is banned (``hearts admin ban``): it cannot sit, chat or queue.
        Read from the database at each call, so a ban made anywhere holds on every process at
        once; ``False`` for an unknown id."""
        ...

    async def mark(self, player_id: str, other_id: str, kind: MarkKind, on: bool) -> bool:
        """Mute or block (``on``) another profile, or undo it; whether anything changed.
        ``ValueError`` for oneself, an unknown profile or kind (nothing changes)."""
        ...

    async def marks(self, player_id: str) -> Marks:
        """The profiles this player muted and blocked."""
        ...

    async def hiding(self, speaker: str, listeners: Collection[str]) -> set[str]:
        """Those of ``listeners`` who are not to read ``speaker``'s chat: they muted or blocked
        the speaker, the speaker blocked them, or they turned their chat off."""
        ...

    async def set_chat(self, player_id: str, on: bool) -> None:
        """Turn a profile's chat on or off (off: it reads no table's chat, nor writes)."""
        ...

    async def chat_on(self, player_id: str) -> bool:
        """Whether a profile's chat is on (``True`` for an unknown id)."""
        ...

    async def set_language(self, player_id: str, language: str | None) -> None:
        """The language a profile chose for the web table (a catalog's code; ``None``: the
        browser's own)."""
        ...

    async def language(self, player_id: str) -> str | None:
        """The language a profile chose (``None``: none, or an unknown id)."""
        ...

    async def set_guide(self, player_id: str, guide: dict[str, Any]) -> None:
        """What became of a profile's guided first game (``{status, table, seen}``, checked by
        :class:`hearts.server.players.GuideState`), kept for every device it signs in on."""
        ...

    async def guide(self, player_id: str) -> dict[str, Any] | None:
        """A profile's guided first game as kept (``None``: never offered, or an unknown id)."""
        ...

    async def ban(self, player_id: str, reason: str) -> bool:
        """Ban a profile, saying why, and announce it (:class:`BanNotice`: on PostgreSQL every
        server process closes the profile's connections); ``False`` if it was banned already
        (its reason kept). ``ValueError`` for an unknown profile."""
        ...

    async def unban(self, player_id: str) -> bool:
        """Lift a ban; ``False`` if the profile was not banned."""
        ...

    async def bans(self) -> list[BanRow]:
        """The banned profiles, the latest first."""
        ...

    async def report(self, reporter: str, reported: str, reason: str, table_id: str | None) -> int:
        """Store a report of ``reported`` by ``reporter`` with its reason (stripped, 1 to
        :data:`MAX_REASON` characters) and a copy of table ``table_id``'s chat and record as
        they are now; its id. ``ValueError`` for a bad reason or reporting oneself."""
        ...

    async def reports(self, limit: int = 100) -> list[ReportRow]:
        """The latest ``limit`` reports, the latest first."""
        ...


class Passkeys(Protocol):
    """``store.passkeys``: the profiles' passkeys, the sign-in sessions (a cookie's secret, kept
    as its hash) and the WebAuthn challenges under way (:mod:`hearts.server.passkeys`)."""

    async def add_challenge(self, challenge: str, purpose: ChallengePurpose, player_id: str | None, expires: float) -> None:
        """Keep a challenge given out (base64url) until ``expires`` (Unix seconds)."""
        ...

    async def take_challenge(self, challenge: str, purpose: ChallengePurpose, now: float) -> tuple[bool, str | None]:
        """Take a challenge back, once (deleted, whoever asks again): whether it was given out for
        ``purpose`` and has not expired, and the profile it was given to."""
        ...

    async def peek_challenge(self, challenge: str, purpose: ChallengePurpose, now: float) -> str | None:
        """The profile a secret of ``purpose`` was given to, while it lasts (kept: a seat's ticket
        opens the seat again at each reconnection); ``None`` if there is none."""
        ...

    async def add(self, credential_id: str, player_id: str, public_key: str, sign_count: int, name: str) -> None:
        """Keep a new passkey of a profile; :class:`ValueError` if its credential is known already."""
        ...

    async def of_player(self, player_id: str) -> list[PasskeyRow]:
        """A profile's passkeys, oldest first."""
        ...

    async def get(self, credential_id: str) -> PasskeyRow | None:
        """The passkey of a credential id, or ``None``."""
        ...

    async def owner(self, credential_id: str) -> PlayerRow | None:
        """The profile a passkey signs in, or ``None``."""
        ...

    async def used(self, credential_id: str, sign_count: int) -> None:
        """A passkey signed in: its new signature counter, and the moment."""
        ...

    async def remove(self, player_id: str, credential_id: str) -> bool:
        """Delete one of a profile's passkeys; whether there was such a one."""
        ...

    async def add_session(self, session_hash: str, player_id: str) -> None:
        """Keep a new sign-in session of a profile."""
        ...

    async def session_player(self, session_hash: str) -> PlayerRow | None:
        """The profile of a session, or ``None`` (signed out, or never signed in)."""
        ...

    async def end_sessions(self, player_id: str, keep: str | None = None) -> int:
        """Sign a profile out everywhere (every session but ``keep``'s hash, and every seat ticket);
        how many sessions ended."""
        ...

    async def end_session(self, session_hash: str) -> None:
        """Sign one session out."""
        ...


class Reviews(Protocol):
    """``store.reviews``: the game reviews asked for (:mod:`hearts.server.reviews`), one job per
    table and seat, claimed under a lease by a runner."""

    async def review(self, table_id: str, seat: int) -> ReviewRow | None:
        """The review job of a table's seat, or ``None`` if none was asked for. A job whose
        runner's lease ran out (the runner died) reads ``queued``, at 0 done."""
        ...

    async def queue_review(self, table_id: str, seat: int, budget: int, seed: int) -> ReviewRow:
        """Queue the review of a table's seat, unless it is queued, running or done already
        (then the stored job is returned as it is); a ``failed`` one is queued again."""
        ...

    async def pending_reviews(self) -> int:
        """How many review jobs are queued or running (from every server process)."""
        ...

    async def claim_review(self, worker: str, lease_for: float) -> ReviewClaim | None:
        """Claim the oldest review job that is queued, or running under a lease that has run
        out (its runner died), for ``lease_for`` seconds: it is ``running`` from now, at 0 of 0
        decisions; ``None`` if there is none. Two runners never get the same job. On SQLite
        (one server process) a job running under another runner's name is taken at once: that
        runner was a process that is gone."""
        ...

    async def review_progress(self, claim: ReviewClaim, done: int, total: int, lease_for: float) -> bool:
        """Store a claimed job's progress and renew its lease for ``lease_for`` seconds;
        ``False`` if the claim no longer holds the job (then stop computing it)."""
        ...

    async def finish_review(self, claim: ReviewClaim, review: str) -> bool:
        """Store a claimed job's result (the review's JSON text): it is ``done``; ``False`` if
        the claim no longer held the job (nothing is stored)."""
        ...

    async def fail_review(self, claim: ReviewClaim, error: str) -> bool:
        """Give a claimed job up with a message: it is ``failed`` (asking again queues it
        again); ``False`` if the claim no longer held the job."""
        ...

    async def release_review(self, claim: ReviewClaim) -> None:
        """Let go of a claimed job not done (a runner stopping): it is ``queued`` again, for
        any runner."""
        ...


class Storage(Protocol):
    """A database of tables, in parts by concern — :attr:`log`, :attr:`talk`,
    :attr:`players`, :attr:`passkeys`, :attr:`reviews` and (PostgreSQL) :attr:`jobs` and :attr:`leases` — with
    the notices that every process hears (:meth:`listen`, :meth:`notify`)."""

    @property
    def name(self) -> str:
        """The database, for logs (its path, or its URL without a password)."""
        ...

    @property
    def log(self) -> TableLog:
        """The tables, their seats and their action logs."""
        ...

    @property
    def talk(self) -> Talk:
        """The chat at the tables."""
        ...

    @property
    def players(self) -> Players:
        """The player profiles and ratings."""
        ...

    @property
    def passkeys(self) -> Passkeys:
        """The passkeys, sign-in sessions and WebAuthn challenges."""
        ...

    @property
    def reviews(self) -> Reviews:
        """The game review jobs."""
        ...

    @property
    def jobs(self) -> JobQueue | None:
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
    *,
    outage: OutageReport | None = None,
) -> None:
    """Hand every notice of ``listener`` to ``hear`` until the store closes it. When it loses
    its connection (:class:`StoreUnavailable`), listen again once the database answers
    (trying every few seconds), then call ``missed``: notices may have been lost meanwhile.
    With ``outage``, the loss and the return are reported there instead of logged here."""
    while True:
        try:
            async for notice in listener:
                hear(notice)
            return
        except StoreUnavailable as e:
            if outage is None:
                log.warning("the database's notices were lost; listening again", extra=fields(error=str(e)))
            else:
                outage.failed(e)
        finally:
            await listener.close()
        wait = 0.5
        while True:
            try:
                listener = await store.listen()
                break
            except StoreError as e:
                if outage is None:
                    log.warning("cannot listen to the database's notices yet", extra=fields(error=str(e)))
                else:
                    outage.failed(e)
            await asyncio.sleep(wait)
            wait = min(5.0, wait * 2)
        if outage is not None:
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
