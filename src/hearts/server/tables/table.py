"""A table of the web server: one game, its seats, its connected clients, and one sequence
number — the number of actions its game has applied, each one a row of the store's log.

A table is an actor: whatever reads or changes its position is a command
(:mod:`~hearts.server.tables.commands`: one union of value types) posted to its mailbox
(:mod:`~hearts.server.tables.mailbox`) and handled one at a time by :meth:`Table.process`. One process of the service owns
the table (:mod:`~hearts.server.tables.ownership`: a lease with a fencing epoch, on
PostgreSQL; on SQLite, a cluster of one, its one process) and only it appends to the log and
serves the table's clients: the others relay them to it (:mod:`~hearts.server.relay`), and bot
workers send it the bots' moves (:mod:`~hearts.server.links`). Every action goes through :meth:`Table.handle`: checked
against the sequence number the client saw (stale or duplicate → a resync, not a second
action), applied to the engine through :meth:`Game.apply <hearts.game.Game.apply>` (a refusal
→ an error to that client, nothing changed), committed to the action log, and only then
broadcast (:mod:`~hearts.server.tables.messages`: each seat its own view, R7, each spectator
the public part). Every message that shows the position is built in the table's turn, so no
client ever sees an action that is not committed.

The table's other jobs are parts of their own, each a module: its actions
(:mod:`~hearts.server.tables.moves`), who is there (:mod:`~hearts.server.tables.presence`),
the turn timer (:mod:`~hearts.server.tables.clocks`), this process's bots
(:mod:`~hearts.server.tables.bots`), hints (:mod:`~hearts.server.tables.hints`), the table
talk (:mod:`~hearts.server.tables.talk`) and following the actions its owner logs
(:mod:`~hearts.server.tables.follow`). A part that handles a command returns what must follow
it (:mod:`~hearts.server.tables.effects`: the clocks, a broadcast, who is there, the bots),
which the table alone carries out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hearts.actions import Action
from hearts.game import Game
from hearts.record import GameRecord
from hearts.rules import Rules
from hearts.server.botpool import Lane
from hearts.server.limits import CLOSE_POLICY, CLOSE_SERVICE_RESTART, CLOSE_TRY_LATER, DEFAULT_LIMITS
from hearts.server.logs import fields
from hearts.server.metrics import Actor, Metrics
from hearts.server.outage import is_outage
from hearts.server.protocol import STAND_IN, ProtocolError, error_message, seat_action
from hearts.server.ratings import settle
from hearts.server.storage import NotOwner, SeatRow, SeqConflict, Storage, hash_token
from hearts.server.tables.bots import BotTurns, Thinking
from hearts.server.tables.clocks import Clocks
from hearts.server.tables.commands import (
    Act,
    BotAct,
    CatchUp,
    ComeBack,
    Facts,
    GoAway,
    HandOver,
    HintAt,
    IsOver,
    NameSeat,
    ReadSeats,
    Resync,
    Sit,
    TableCommand,
    TakeSeat,
    Watch,
)
from hearts.server.tables.connection import Connection
from hearts.server.tables.effects import NOTHING, Effects
from hearts.server.tables.errors import TableError
from hearts.server.tables.follow import Follower
from hearts.server.tables.hints import Hints
from hearts.server.tables.mailbox import Mailbox
from hearts.server.tables.messages import StateMessages, public_event
from hearts.server.tables.moves import MOVED, Moves
from hearts.server.tables.names import record_seat, seat_name
from hearts.server.tables.presence import Presence, Roster
from hearts.server.tables.talk import Talk
from hearts.server.wire import ActionMessage, Back, Sync

if TYPE_CHECKING:
    from hearts.server.tables.ownership import Ownership

log = logging.getLogger("hearts.server")


@dataclass
class Table:
    """One game with its seats and connected clients, and its parts (``messages``,
    ``presence``, ``clocks``, ``bots``, ``hints``, ``talk``, ``follower``); its ``seq`` is the
    number of actions the game has applied (each one a row of the store's log)."""

    id: str
    game: Game
    seats: list[SeatRow]
    """Who sits at each seat (``human``, ``open`` or ``bot``), as stored; and who is away."""
    store: Storage
    bot_delay: float = 0.7
    spectators: bool = True
    """Whether anyone may watch (without a seat) what every seat may know."""
    max_spectators: int = DEFAULT_LIMITS.max_spectators
    """Spectators at a time (through every process); a ``watch`` beyond is refused (``spectators_full``)."""
    listed: bool = False
    """Whether the lobby lists the table."""
    turn_timer: int = 0
    """Seconds a seat that is to play has before the stand-in plays for it (0: no timer;
    :func:`~hearts.server.tables.clocks.clocks_for` decides)."""
    pass_timer: int = 0
    """Seconds a seat that is to pass has before the stand-in passes for it (0: no timer)."""
    missed_turns: int = DEFAULT_LIMITS.missed_turns
    """Turns in a row the stand-in plays for an away seat before the seat is handed to it for
    the rest of the game (:mod:`~hearts.server.tables.clocks`)."""
    stand_in: str = STAND_IN
    """The bot level that plays for an away seat."""
    rated: bool = False
    """Whether the game is rated when it ends (:func:`~hearts.server.ratings.settle`)."""
    chat: bool = True
    """Whether the table has a chat (made without: every line is refused, ``chat_off``)."""
    metrics: Metrics = field(default_factory=Metrics)
    roster: Roster = field(default_factory=Roster)
    """Who is connected to the table through the other processes (the manager's)."""
    ownership: Ownership = field(kw_only=True)
    """Which tables this process owns (the manager's, :mod:`~hearts.server.tables.ownership`;
    on SQLite, a cluster of one)."""
    thinking: Thinking = field(kw_only=True)
    """Where this process's bots think (the manager's: :func:`~hearts.server.tables.bots.thinking_for`)."""
    mailbox: Mailbox = field(init=False)
    """The table's commands, handled one at a time by :meth:`process` (:mod:`~hearts.server.tables.mailbox`)."""
    conns: set[Connection] = field(default_factory=set)
    last_event: dict[str, Any] | None = field(init=False, default=None)
    """The last accepted action as every seat may know it (:func:`public_event`)."""
    _tasks: set[asyncio.Task[None]] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        history = self.game.history
        if history:
            self.last_event = public_event(history[-1], len(history))
        self.mailbox = Mailbox(self.process)
        self.messages = StateMessages(self)
        self.presence = Presence(self, self.roster)
        self.clocks = Clocks(self)
        self.bots = BotTurns(self)
        self.hints = Hints(self)
        self.talk = Talk(self)
        self.follower = Follower(self)
        self.moves = Moves(self)

    @property
    def all_bots(self) -> bool:
        """Whether every seat is a bot (its bots think in the ``bots_only`` lane)."""
        return all(s.kind == "bot" for s in self.seats)

    @property
    def lane(self) -> Lane:
        """Where this table's bots wait for a worker."""
        return "bots_only" if self.all_bots else "people"

    @property
    def owned(self) -> bool:
        """Whether this process owns the table: only the owner appends to its log and times its
        seats out (:mod:`~hearts.server.tables.ownership`)."""
        return self.ownership.owns(self.id)

    @property
    def away(self) -> list[int]:
        """The seats whose person is away (the stand-in plays for them until they are back)."""
        return [s.seat for s in self.seats if s.away]

    @property
    def rules(self) -> Rules:
        """The table's rules (its game's)."""
        return self.game.rules

    @property
    def seq(self) -> int:
        """The table's sequence number: how many actions have been applied (and logged)."""
        return self.game.ply

    def record(self) -> GameRecord:
        """The game and who played it (names, bot specs), as a version 2 record exports it."""
        return GameRecord(self.game, [record_seat(s) for s in self.seats])

    def unnamed(self) -> list[int]:
        """The person seats whose name nobody chose yet (the person is asked for one)."""
        return [s.seat for s in self.seats if s.kind == "human" and not s.name]

    def lobby_entry(self) -> dict[str, Any]:
        """The table as the lobby lists it."""
        return {
            "id": self.id,
            "names": [seat_name(s) for s in self.seats],
            "kinds": [s.kind for s in self.seats],
            "free": [s.seat for s in self.seats if s.kind == "open"],
            "round": len(self.game.rounds),
            "totals": list(self.game.totals),
            "rules": self.rules.describe(),
            "target": self.rules.target,
            "spectators_allowed": self.spectators,
            "spectators": self.presence.counts()[1],
            "turn_timer": self.turn_timer,
            "pass_timer": self.pass_timer,
        }

    async def facts(self) -> dict[str, Any]:
        """What ``GET /api/tables/{id}`` shows: the public facts, ``seq``, the rules and the
        pause before each bot move (``bot_delay``, seconds)."""
        return await self.mailbox.run(Facts())

    async def finished_record(self) -> GameRecord:
        """:meth:`record` of a finished game; :class:`TableError` (403, ``not_over``) before
        its end (R7: the record shows every hand)."""
        if not await self.mailbox.run(IsOver()):
            raise TableError("the record is published when the game is over (R7)", 403, "not_over")
        return self.record()

    # --- connections -----------------------------------------------------------------------

    def seat_for_token(self, token: str) -> int | None:
        """The seat this secret token opens, or ``None``."""
        h = hash_token(token)
        for s in self.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
                return s.seat
        return None

    async def find_seat(self, token: str) -> int | None:
        """The seat this secret token opens, or ``None`` — looked up in the store too when this
        process does not know it (a seat just taken through another process)."""
        seat = self.seat_for_token(token)
        if seat is None:
            await self.follower.refresh_seats()
            seat = self.seat_for_token(token)
        return seat

    async def attach(self, conn: Connection, seat: int) -> None:
        """Seat a connection (a spectator that shows a seat's token takes that seat); an away
        seat's person is back. This process takes the table if nobody owns it (its clients'
        process does); if another process does, the client is sent there (:meth:`own`)."""
        await self.mailbox.run(Sit(conn, seat))
        if await self.own(conn):
            self.presence.tell()

    async def own(self, conn: Connection) -> bool:
        """Whether this process serves the table: it owns it, taking it if nobody does, or its
        game is over (a finished table has no owner: any process serves it); else ``conn`` is
        closed as a service restart, and reconnects to the process that does (one path: a
        client is served only by its table's owner)."""
        if self.owned or self.game.is_over or await self.ownership.take(self):
            return True
        conn.kill(CLOSE_SERVICE_RESTART, MOVED)
        return False

    async def watch(self, conn: Connection) -> None:
        """Let an unseated connection watch: the public state now and at every broadcast.

        Raises :class:`TableError` if this table has no spectators or has its maximum (the
        connection is then to be closed).
        """
        if conn.seat is not None:
            raise TableError("this connection holds a seat; open another one to watch", code="seated")
        if not conn.spectator:
            if not self.spectators:
                raise TableError("this table does not allow spectators", code="no_spectators", close_code=CLOSE_POLICY)
            if self.presence.counts()[1] >= self.max_spectators:
                raise TableError(
                    f"this table already has its maximum of {self.max_spectators} spectators; try later",
                    code="spectators_full", close_code=CLOSE_TRY_LATER,
                )
        await self.mailbox.run(Watch(conn))
        if await self.own(conn):
            self.presence.tell()

    def detach(self, conn: Connection) -> None:
        """Forget a connection that has gone."""
        if conn in self.conns:
            self.conns.discard(conn)
            self.presence.tell()

    # --- actions ---------------------------------------------------------------------------

    async def handle(self, conn: Connection, message: Sync | Back | ActionMessage, arrived: float | None = None) -> None:
        """An attached client's message: sync, back, or an action (of its own seat) checked
        against ``seq``; ``arrived`` is when it arrived (a :func:`time.perf_counter` reading;
        default: now). A spectator may sync (the public state) but never act: an error, and
        nothing changes. An action or ``back`` from an away seat brings its person back."""
        arrived = time.perf_counter() if arrived is None else arrived
        seat = conn.seat
        if seat is None:
            assert conn.spectator
            if isinstance(message, Sync):
                await self.mailbox.run(Resync(conn))
            else:
                conn.push(error_message(
                    "spectators cannot act: only a seat may pass, play or choose", "not_seated", self.seq
                ))
            return
        if isinstance(message, Sync):
            await self.mailbox.run(Resync(conn))
            return
        await self.back(seat)
        if isinstance(message, Back):
            return
        try:
            action = seat_action(message, seat)
        except ProtocolError as e:
            conn.push(error_message(str(e), e.code, self.seq))
            return
        await self.moves.person(conn, seat, message.seq, action, arrived)

    async def back(self, seat: int) -> None:
        """The person of an away seat plays again (its clock starts anew; everyone is told, and
        sees the clock)."""
        if self.seats[seat].away:
            await self.mailbox.run(ComeBack(seat))

    async def _sit(self, conn: Connection, seat: int) -> Effects:
        conn.seat = seat
        conn.spectator = False
        conn.table = self
        self.conns.add(conn)
        # (a seat handed over is taken back by ``back``, not by a connection)
        came = seat not in self.clocks.handed_over() and await self._come_back(seat)
        conn.push(self.messages.snapshot(conn, "welcome"))
        return Effects(broadcast="table") if came else NOTHING  # (everyone sees its clock run again)

    def _watch(self, conn: Connection) -> None:
        conn.spectator = True
        conn.table = self
        self.conns.add(conn)
        conn.push(self.messages.snapshot(conn, "welcome"))

    async def _come_back(self, seat: int) -> bool:
        """Whether ``seat`` was away; if it was, it is no longer (in the store too, for every
        process), and its clock starts."""
        if not self.seats[seat].away:
            return False
        self.clocks.back(seat)
        self.set_away(seat, False)
        if await self.store.log.set_away(self.id, seat, False):
            log.info("back", extra=fields(table=self.id, seat=seat))
        self.clocks.start()
        return True

    def set_away(self, seat: int, away: bool) -> None:
        """Mark ``seat``'s person away (the stand-in plays for it) or back, in this process."""
        self.seats[seat] = dataclasses.replace(self.seats[seat], away=away)

    async def apply(self, action: Action, by: Actor, arrived: float) -> None:
        """Apply an action (an illegal one is refused, nothing changed: an
        :class:`~hearts.errors.IllegalAction`), commit its row of the log (with the bot turns
        it opens, on a store with jobs), restart the clocks, broadcast, and count it (made
        ``by`` whom, ``arrived`` at a :func:`time.perf_counter` reading). Call in the table's
        turn. If the row cannot be committed (:class:`~hearts.server.storage.SeqConflict`: the
        database took another action there; or any failure) the action is taken back."""
        game = self.game
        before = game.actors()
        game.apply(action)
        bots = self.thinking.queued(game, self.seats, action, before)
        epoch = self.ownership.epoch(self.id)
        try:
            if epoch is None:  # (not owned here)
                raise NotOwner(self.id, 0)
            started = time.perf_counter()
            await self.store.log.append(self.id, self.seq, action, finished=game.is_over, bots=bots, epoch=epoch)
            self.metrics.append.observe(time.perf_counter() - started)
        except (SeqConflict, NotOwner) as e:
            game.undo()
            if isinstance(e, NotOwner) and epoch is not None:  # (the database refused this process's epoch)
                self.ownership.lost(self.id)
            raise
        except BaseException as e:
            game.undo()
            if not is_outage(e):  # (an outage: the session's one-line warning says it, no traceback each)
                log.exception("could not commit an action; it is taken back", extra=fields(table=self.id, seat=action.seat))
            self.follower.resync_when_back()  # whether it was committed after all, the log says
            raise
        if self.clocks.counted(action.seat, by):
            log.info("handed over", extra=fields(table=self.id, seat=action.seat, stand_in=self.stand_in))
        self.moved_on(action)
        self.metrics.accepted(self.id, action, by, arrived)
        if game.is_over:
            self.ownership.finished(self.id)
            if self.rated:  # its ratings (in the background; the store rates it once)
                self.spawn(settle(self.store, self.id))

    def moved_on(self, action: Action) -> None:
        """After ``action`` was applied: the last event, the clocks, the broadcast."""
        self.last_event = public_event(action, self.seq)
        self.clocks.acted(action.seat)
        self.clocks.start()
        self.messages.broadcast()

    # --- the commands ----------------------------------------------------------------------

    async def process(self, command: TableCommand) -> Any:
        """Handle one of the table's commands (:mod:`~hearts.server.tables.commands`), in its
        turn, then carry out what its handling asked for (:meth:`perform`): the mailbox calls
        this, one command at a time; post a command with ``await table.mailbox.run(command)``,
        which answers what the command's type says."""
        answer, effects = await self._handle(command)
        self.perform(effects)
        return answer

    async def _handle(self, command: TableCommand) -> tuple[Any, Effects]:
        match command:
            case Act():
                return await self.moves.act(command)
            case BotAct():
                await self.bots.play(command)
            case Resync(conn):
                conn.push(self.messages.snapshot(conn, "resync"))
            case Sit(conn, seat):
                return None, await self._sit(conn, seat)
            case Watch(conn):
                self._watch(conn)
            case ComeBack(seat):
                return None, Effects(broadcast="table", tell=True) if await self._come_back(seat) else NOTHING
            case GoAway(seat):
                return None, await self.clocks.go_away(seat)
            case NameSeat(seat, name):
                self.seats[seat] = dataclasses.replace(self.seats[seat], name=name)
                return None, Effects(broadcast="table", tell=True)
            case TakeSeat(seat, name, token_hash):
                self.seats[seat] = dataclasses.replace(self.seats[seat], kind="human", name=name, token_hash=token_hash)
                return None, Effects(clocks=True, broadcast="table")  # (the last free seat taken: the clocks run)
            case ReadSeats():
                return None, await self.follower.read_seats()
            case CatchUp():
                return None, await self.follower.catch_up()
            case HandOver(to):
                return (await self.ownership.hand_over(self, to), self.seq), NOTHING
            case Facts():
                facts = {**self.messages.public(), "seq": self.seq, "rules": self.rules.to_dict(), "bot_delay": self.bot_delay}
                return facts, NOTHING
            case IsOver():
                return self.game.is_over, NOTHING
            case HintAt(conn, seat, seq):
                asked = self.hints.position(seat, seq)
                if asked is None:  # (a position of another decision: the client is sent the table's)
                    conn.push(self.messages.snapshot(conn, "resync"))
                return asked, NOTHING
            case _:
                raise TypeError(f"not a command of a table: {command!r:.80}")
        return None, NOTHING

    def perform(self, effects: Effects) -> None:
        """Carry out what a part asked for when it handled a command (:class:`Effects`), in the
        table's turn: the clocks, the broadcast, who is there, the bots, in this order."""
        if effects.clocks:
            self.clocks.start()
        if effects.broadcast is not None:
            self.messages.broadcast(effects.broadcast)
        if effects.tell:
            self.presence.tell()
        if effects.kick:
            self.bots.kick()

    # --- running ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start serving: the clocks run, and the bots act if it is their turn (on a store with
        jobs: their jobs are queued, if no process has queued them)."""
        self.clocks.start()
        await self.thinking.start(self)

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[None]:
        """Run ``work`` in the background (its failure is logged; :meth:`stop` cancels it)."""
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a table's background work failed", exc_info=task.exception(), extra=fields(table=self.id))

    def stop(self) -> None:
        """Stop the bots' runner, the background work and the clocks (at shutdown)."""
        self.bots.stop()
        self.mailbox.stop()
        for task in list(self._tasks):
            task.cancel()
        self.clocks.stop()
