"""Which process owns each table: at any moment one process of the service owns a
table — holds its lease, with a fencing epoch (:class:`~hearts.server.storage.Leases`) — and
only the owner appends to its log (the database refuses an append of an older epoch, so an
owner that was frozen and wakes up cannot write). Only the owner serves the table's clients: a
client that reaches another process is relayed to the owner (:mod:`hearts.server.relay`), and
served there only once that process owns the table. Bot workers send the bots' moves to the
owner over links too (:mod:`hearts.server.links`). A copy of a table at another process (an HTTP
read, a client being routed) reads the log whenever it is read (:mod:`~hearts.server.tables.follow`).
A finished table has no owner: its last action lets its lease go, and any process serves it.

A process claims a table when it creates or loads it and nobody else owns it; renews its
leases every :data:`RENEW_EVERY` seconds (a lease lasts :data:`~hearts.server.storage.postgres.LEASE`);
and every :data:`SWEEP_EVERY` seconds takes up to :data:`SWEEP` unfinished tables whose lease
has run out (their owner died). A client whose table's owner cannot be reached over a link
waits for the owner's lease to run out (at most :data:`TAKE_WAIT` seconds) and is served by the
process it reached, which takes the table over.

The sweep takes only the tables in play (a client connected through any process, as the
presence notices say, or a bot to move), up to :data:`TAKE_AT_ONCE` at a time: a dead owner's
tables in play come back as soon as its leases run out, whatever number of idle tables it
held. An idle table is taken when someone opens it: a client's hello claims a table nobody
owns, and a client that came while the lease still ran makes the table in play.

On SQLite the same code serves a cluster of one: its one process claims every table it opens
(:class:`~hearts.server.storage.sqlite.SoleLeases`, in its memory) and nobody takes one over.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Final

from hearts.actions import from_dict
from hearts.errors import ActionError
from hearts.server.limits import CLOSE_SERVICE_RESTART
from hearts.server.links import Outcome
from hearts.server.logs import fields
from hearts.server.metrics import ACTORS
from hearts.server.outage import Backoff, is_outage
from hearts.server.storage import Lease
from hearts.server.tables.commands import CatchUp, HandOver
from hearts.server.tables.moves import MOVED

if TYPE_CHECKING:
    from hearts.server.tables.manager import Manager
    from hearts.server.tables.moves import Result
    from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")

RENEW_EVERY: Final = 1.0
"""Seconds between renewals of a process's leases (a lease lasts three)."""

SWEEP_EVERY: Final = 0.5
"""Seconds between looks for tables in play whose owner's lease has run out (a look costs a
query by the tables' keys)."""

SWEEP: Final = 50
"""The most such tables one look takes over."""

TAKE_AT_ONCE: Final = 8
"""The most of them taken over at a time (each loaded from its log if need be, claimed, and
caught up)."""

HAND_AT_ONCE: Final = 16
"""The most tables a stopping process hands to the others at a time."""

HAND_WAIT: Final = 1.5
"""Seconds a stopping process waits for a peer to say it loaded a table handed to it (a peer
that does not answer is given no more tables)."""

OWN_WAIT: Final = 5.0
"""Seconds a stopping process waits for the peer it moved a table's lease to to say it owns it:
the table is the peer's whatever it answers, but the table's clients, closed once it does, then
find it served there (a peer that is slow to adopt it, on a busy machine, is waited for)."""

TAKE_WAIT: Final = 4.0
"""Seconds a client whose table's owner cannot be reached waits for the table to be taken over
(a lease runs out at most three seconds after its owner's last renewal)."""

RETRY: Final = Backoff(first=RENEW_EVERY, most=2.0)
"""The pauses between renewals, and between sweeps, while the database is away."""

Hand = Callable[[str, str, int, int], Awaitable[tuple[str, int] | None]]
"""Hands a table to a peer over a link (:meth:`hearts.server.relay.Relays.hand`): ``(peer,
table_id, epoch, seq)`` → the peer's outcome and the table's position there, or ``None`` if it
did not answer."""


class Ownership:
    """The leases one server process holds (``held``), and the tasks that renew
    them and take over the tables of dead owners. Start it with :meth:`start` (after the
    tables are restored), stop it with :meth:`stop` (its leases are released)."""

    def __init__(self, manager: Manager) -> None:
        self.manager = manager
        self.me = manager.roster.process
        self.leases = manager.store.leases
        self.held: dict[str, Lease] = {}
        self.owners: dict[str, str] = {}
        """The owner last found of tables another process owns (asked again when it does not
        answer, or answers that it no longer owns the table)."""
        self._taking: dict[str, asyncio.Task[bool]] = {}
        self._asking: dict[str, asyncio.Future[Lease | None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._receiving: dict[str, asyncio.Future[None]] = {}
        """The tables being handed to this process by a stopping one, until they are owned here."""
        self._kept: dict[str, asyncio.Event] = {}
        """The tables loaded for a stopping process, kept until their lease is handed here."""
        self._failing = False

    def owns(self, table_id: str) -> bool:
        """Whether this process owns the table."""
        return table_id in self.held

    def epoch(self, table_id: str) -> int | None:
        """The epoch this process's appends to the table carry (``None``: a table not owned here)."""
        lease = self.held.get(table_id)
        return None if lease is None else lease.epoch

    def start(self) -> None:
        """Renew the leases and sweep for orphaned tables, in tasks."""
        self._spawn(self._renew())
        self._sweeper = self._spawn(self._sweep())

    async def stop(self) -> None:
        """Stop the tasks and release this process's leases (the others may take its tables at once)."""
        for task in [*self._tasks, *self._taking.values()]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.held:
            with contextlib.suppress(Exception):
                await self.leases.release(self.me, list(self.held))
        self.held.clear()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- taking and losing tables ---------------------------------------------------------

    async def owner_of(self, table_id: str) -> str | None:
        """The process that owns the table (as last found), or ``None``: nobody does."""
        owner = self.owners.get(table_id)
        if owner is not None:
            return owner
        asking = self._asking.get(table_id)
        if asking is None:  # (one look-up a table, however many of its actions wait for it)
            asking = self._asking[table_id] = asyncio.ensure_future(self.leases.holder(table_id))
            asking.add_done_callback(lambda _: self._asking.pop(table_id, None))
        holder = await asyncio.shield(asking)
        if holder is None:
            return None
        self.owners[table_id] = holder.owner
        return holder.owner

    def unknown(self, table_id: str) -> None:
        """The owner last found of a table is no longer known to be its owner."""
        self.owners.pop(table_id, None)

    async def take(self, table: Table, wait: float = 0.0, handed: tuple[Lease, int] | None = None,
                   dead: str | None = None) -> bool:
        """Own ``table`` if nobody else does, or once the owner's lease has run out (trying for
        ``wait`` seconds, unless a process other than the ``dead`` owner waited out takes it
        meanwhile), or under the lease a stopping process ``handed`` this one (with that
        process's position then); whether this process owns it now. One attempt at a time a
        table: one that waits (or is handed the lease) after an attempt that failed is made anew."""
        if self.owns(table.id):
            return True
        task = self._taking.get(table.id)
        if task is not None:
            if await asyncio.shield(task) or not (wait or handed):
                return self.owns(table.id)
            task = self._taking.get(table.id)  # (one made anew meanwhile, if any)
        if task is None or task.done():
            task = asyncio.get_running_loop().create_task(self._take(table, wait, handed, dead))
            self._taking[table.id] = task
            task.add_done_callback(lambda done: self._taking.pop(table.id) if self._taking.get(table.id) is done else None)
        return await asyncio.shield(task)

    async def taking(self, table_id: str) -> None:
        """Wait for a take-over of the table in progress, if any."""
        task = self._taking.get(table_id)
        if task is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(task)

    async def _take(self, table: Table, wait: float, handed: tuple[Lease, int] | None, dead: str | None) -> bool:
        if handed is not None:
            await self.adopt(table, *handed)
            return True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            lease = await self.leases.claim(table.id, self.me)
            if lease is not None:
                await self.adopt(table, lease)
                return True
            if loop.time() >= deadline:
                return False
            if dead is not None:
                holder = await self.leases.holder(table.id)
                if holder is not None and holder.owner != dead:  # another process took it over
                    self.owners[table.id] = holder.owner
                    return False
            await asyncio.sleep(0.25)

    async def adopt(self, table: Table, lease: Lease, seq: int | None = None) -> None:
        """Serve ``table`` as its owner under ``lease``: it first catches up with what the last
        owner logged (read from the log, unless the table is at the position ``seq`` it was
        handed over at already; a first lease has had no owner before it, so nobody logged
        anything unseen)."""
        if lease.epoch > 1 and (seq is None or table.seq < seq):
            await table.mailbox.run(CatchUp())
        self.held[table.id] = lease
        self.unknown(table.id)
        table.clocks.start()
        log.info("table owned", extra=fields(table=table.id, epoch=lease.epoch, process=self.me))

    def finished(self, table_id: str) -> None:
        """The table's game is over: it needs no owner (no action is left to log, no clock to
        run), so its lease is no longer renewed and runs out (a statement a finished game would
        cost more than the renewals it saves); any process serves its clients and readers."""
        if self.held.pop(table_id, None) is not None:
            log.info("table finished; its lease let go", extra=fields(table=table_id))

    def lose(self, table_id: str) -> None:
        """This process no longer owns the table (its lease was taken over, or handed on); with
        no client of its own there it keeps no copy of it either."""
        if self.held.pop(table_id, None) is not None:
            log.info("table no longer owned", extra=fields(table=table_id))
            self.manager.forget_unused(table_id)

    def lost(self, table_id: str) -> None:
        """The table's lease ran out or was taken over (a renewal found it, or the database
        refused an append): this process no longer owns the table, and every client of it here
        is sent to its owner (closed as a service restart; a relayed one is routed again by the
        process it reached), none left on a copy that no event reaches."""
        log.warning("a table's lease was lost; its clients go to its owner", extra=fields(table=table_id))
        table = self.manager.tables.get(table_id)
        self.lose(table_id)
        for conn in [] if table is None else list(table.conns):
            conn.kill(CLOSE_SERVICE_RESTART, MOVED)

    async def hand_over(self, table: Table, to: str) -> Lease | None:
        """Give the table's lease to process ``to`` (in the table's turn, :class:`HandOver`, so
        no action of its is half-way); the new lease, or ``None`` if this process's lease was
        no longer current."""
        lease = self.held.get(table.id)
        if lease is None:
            return None
        handed = await self.leases.hand_over(lease, to)
        self.lose(table.id)
        if handed is not None:
            log.info("table handed over", extra=fields(table=table.id, to=to, epoch=handed.epoch))
        return handed

    async def _renew(self) -> None:
        """Every :data:`RENEW_EVERY` seconds, renew the leases held; those not renewed are lost."""
        delays = RETRY.delays()
        while True:
            await asyncio.sleep(next(delays) if self._failing else RENEW_EVERY)
            held = dict(self.held)  # (a lease taken while the renewal is on its way is not lost)
            if not held:
                continue
            try:
                kept = await self.leases.renew(self.me, list(held.values()))
            except Exception as e:
                self._failed("could not renew the tables' leases", e)
                continue
            self._failing, delays = False, RETRY.delays()
            for table_id, lease in held.items():
                if table_id not in kept and self.held.get(table_id) is lease:
                    self.lost(table_id)

    def in_play(self, owned: bool = False) -> list[str]:
        """The tables this process knows to be in play and does not own (``owned``: those it
        owns): a client here or at another process (the presence notices)."""
        manager = self.manager
        known = {*manager.roster.tables(), *(t.id for t in manager.tables.values() if t.conns)}
        return sorted(known.intersection(self.held) if owned else known.difference(self.held))

    async def _sweep(self) -> None:
        """Every :data:`SWEEP_EVERY` seconds, take over the unfinished tables in play nobody
        owns, :data:`TAKE_AT_ONCE` at a time (idle ones are taken when opened)."""
        delays = RETRY.delays()
        while True:
            await asyncio.sleep(next(delays) if self._failing else SWEEP_EVERY)
            if self._failing and self.held:  # the database is away: the renewals find it back
                continue  # (a process with no lease to renew finds it back here)
            try:
                orphans = await self.leases.orphans(SWEEP, self.in_play())
                self._failing, delays = False, RETRY.delays()
                gate = asyncio.Semaphore(TAKE_AT_ONCE)
                done = await asyncio.gather(*(self._adopt_orphan(t, gate) for t in orphans), return_exceptions=True)
                failed = next((e for e in done if isinstance(e, Exception)), None)
                if failed is not None:
                    raise failed
            except Exception as e:
                self._failed("could not take over the tables of a process gone", e)

    async def _adopt_orphan(self, table_id: str, gate: asyncio.Semaphore) -> None:
        """Take over a table whose owner's lease ran out, unless another process was quicker."""
        async with gate:
            table = await self.manager.get(table_id)
            if table is not None and not table.game.is_over:
                await self.take(table)
                self.manager.forget_unused(table_id)  # (another process was quicker)

    def _failed(self, event: str, error: Exception) -> None:
        """A failure of the lease tasks: logged once while the database is away."""
        if not is_outage(error):
            log.error(event, exc_info=error)
        elif not self._failing:
            log.warning(event, extra=fields(error=str(error)[:300]))
        self._failing = is_outage(error)

    # --- a stopping process's tables handed to the others ---------------------------------

    async def drain(self, peers: Sequence[str], hand: Hand) -> int:
        """Before this process stops: take no more tables, and ``hand`` each unfinished table it
        owns to one of the live ``peers`` (chosen by the table's id, so they share them; the
        next one if it does not answer), :data:`HAND_AT_ONCE` at a time. The peer loads the
        table first, then the lease moves to it in the table's turn (no action half-way, its
        epoch one more) and it owns the table from that position on. How many were handed."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        gate = asyncio.Semaphore(HAND_AT_ONCE)
        dead: set[str] = set()

        async def one(table_id: str) -> bool:
            async with gate:
                table = self.manager.tables.get(table_id)
                if table is None or table.game.is_over:
                    return False
                for peer in sorted(peers, key=lambda p: hashlib.sha256(f"{p}/{table_id}".encode()).digest()):
                    if peer not in dead:
                        outcome = await self._hand(table, peer, hand)
                        if outcome is not None:
                            return outcome
                        dead.add(peer)
                return False

        # The tables in play first: an idle one not handed in time is let go (taken when opened).
        playing = set(self.in_play(owned=True))
        order = sorted(self.held, key=lambda t: t not in playing)
        done = await asyncio.gather(*(one(t) for t in order), return_exceptions=True)
        return sum(d is True for d in done)

    async def _hand(self, table: Table, peer: str, hand: Hand) -> bool | None:
        """Hand ``table`` to ``peer``: whether it owns it now; ``None`` if it did not answer
        (before the lease moved: the table is still this process's)."""
        loaded = await hand(peer, table.id, 0, 0)
        if loaded is None or loaded[0] != Outcome.DONE.value:
            return None
        lease, seq = await table.mailbox.run(HandOver(peer))
        if lease is None:
            return False
        # (meanwhile an action of this process's clients finds the table not owned here, and
        # the client reconnects: to the peer, which serves it once it owns the table)
        owned = await hand(peer, table.id, lease.epoch, seq)
        # Its own clients reconnect at once and find the table served; those relayed here stay
        # with the process they reached, which relays them to the peer once the links close.
        for c in [c for c in table.conns if not c.relayed]:
            c.kill(CLOSE_SERVICE_RESTART, "the server is restarting: the table is served by another one")
        return owned is not None and owned[0] == Outcome.DONE.value

    async def receive(self, table_id: str, epoch: int, seq: int) -> tuple[Outcome, int]:
        """A table a stopping process hands this one (over a link): with ``epoch`` 0, loaded
        and kept in memory until its lease comes (at most twice
        :data:`HAND_WAIT`); else owned under the lease at ``epoch`` from position ``seq`` on.
        ``done`` and the table's position here, or ``unavailable`` if it could not."""
        received = asyncio.get_running_loop().create_future()
        if epoch:  # (the bots' moves sent meanwhile wait until the table is owned here)
            self._receiving[table_id] = received
        try:
            async with self.manager.visit(table_id) as table:
                if table is None:
                    return Outcome.UNAVAILABLE, 0
                if epoch:
                    await self.take(table, handed=(Lease(table_id, self.me, epoch), seq))
                else:
                    kept = self._kept[table_id] = asyncio.Event()
                    self._spawn(self._keep(table_id, kept))
                    await asyncio.sleep(0)  # (its visit begins before this one ends)
                return Outcome.DONE, table.seq
        except Exception as e:
            if not is_outage(e):
                log.error("a table handed here could not be taken", exc_info=e, extra=fields(table=table_id))
            return Outcome.UNAVAILABLE, 0
        finally:
            received.set_result(None)
            if self._receiving.get(table_id) is received:
                del self._receiving[table_id]
            loaded = self._kept.pop(table_id, None) if epoch else None
            if loaded is not None:  # (its copy, kept since it was loaded, may go)
                loaded.set()

    async def _keep(self, table_id: str, kept: asyncio.Event) -> None:
        """Keep a table loaded for a stopping process in memory until its lease comes."""
        async with self.manager.visit(table_id):
            with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                await asyncio.wait_for(kept.wait(), 2 * HAND_WAIT)
        if self._kept.get(table_id) is kept:  # (its lease never came)
            del self._kept[table_id]

    # --- bots' moves sent to this process ----------------------------------------------------

    async def command(self, table_id: str, seat: int, seen: int, action: Any, by: str) -> Result:
        """A bot's move a bot worker sends this process (over a link, :mod:`hearts.server.relay`):
        ``seat`` makes ``action`` (a codec dict) having seen position ``seen``, ``by`` a bot or
        a stand-in; handled as the table's owner, in its turn. Its outcome, the position after
        it and words (illegal); ``not_owner`` if this process does not own the table, and a
        failure ``unavailable`` (an outage; anything else is logged as a bug)."""
        try:
            received = self._receiving.get(table_id)
            if received is not None:  # (a table being handed here: its commands wait until it is owned)
                await asyncio.wait([received], timeout=HAND_WAIT)
            table = self.manager.tables.get(table_id)
            if table is None or not self.owns(table.id):
                return Outcome.NOT_OWNER, 0 if table is None else table.seq, ""
            try:
                move = from_dict(action)
                if move.seat != seat or by not in ACTORS or by == "person" or not 0 <= seat < len(table.seats):
                    raise ActionError(f"seat {seat} cannot make {action!r:.80} as {by!r:.20}")
            except (ActionError, TypeError, ValueError, KeyError, AttributeError) as e:
                return Outcome.ILLEGAL, table.seq, f"not an action: {e}"
            return await table.moves.command(seat, seen, move, by)  # type: ignore[arg-type]
        except Exception as e:
            if not is_outage(e):
                log.error("a bot's move sent here failed", exc_info=e, extra=fields(table=table_id))
            return Outcome.UNAVAILABLE, 0, str(e)[:300]
