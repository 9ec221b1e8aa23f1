"""Tables of the web server: one game each, one lock and one sequence number per table.

Every action goes through :meth:`Table.handle` under the table's lock: it is checked against
the sequence number the client saw (stale or duplicate → a resync, not a second action),
applied to the engine through :meth:`Game.apply <hearts.game.Game.apply>` (a refusal → an
error to that client, nothing changed), committed to the action log, and only then broadcast:
each seat gets a message built from its own :class:`~hearts.view.View` (RULES.md R7), and each
spectator the public part alone (:meth:`View.public_dict <hearts.view.View.public_dict>`,
encoded once per broadcast for all of them). A table's ``seq`` is the number of actions its
game has applied. Bots think in worker processes (:mod:`hearts.server.botpool`), paced by
``bot_delay``; the bots of all-bot tables wait in a lane of their own, so they never make a
person wait.

A table may have a turn timer: each seat that is to act and is no bot has ``turn_timer``
seconds; a seat whose time runs out is *away*, and the table's stand-in bot (``stand_in``, a
level) plays for it until its person comes back (a ``hello``, an action or ``back``). The
clocks start again when a table is restored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from hearts.actions import Action, Pass, to_dict
from hearts.bots import Bot, make_bot
from hearts.errors import IllegalAction
from hearts.game import Game
from hearts.record import GameRecord, Seat, replay
from hearts.round import Phase, Trick
from hearts.rules import Rules
from hearts.server.botpool import BotPool, Lane, fallback
from hearts.server.limits import (
    CLOSE_GOING_AWAY,
    CLOSE_POLICY,
    CLOSE_TRY_LATER,
    DEFAULT_LIMITS,
    Limits,
    RateLimited,
    Refused,
)
from hearts.server.logs import fields
from hearts.server.metrics import Actor, Metrics
from hearts.server.persistence import Store, hash_token
from hearts.server.protocol import (
    STAND_IN,
    ActionMessage,
    Back,
    JoinRequest,
    ProtocolError,
    Sync,
    TableRequest,
    error_message,
    listed_by_default,
)
from hearts.view import View

log = logging.getLogger("hearts.server")

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a table id looks like (the server makes 8 letters and digits); others name no table."""


@dataclass(frozen=True)
class Closing:
    """The end of a connection's outgoing queue: close with ``code`` and ``reason``."""

    code: int
    reason: str


class Connection:
    """One WebSocket client: an outgoing queue drained by a writer with a send timeout.

    A client that cannot keep up (``max_queue`` messages waiting, or a send that times out) is
    disconnected; it can reconnect and get the full state. Nobody else waits for it.
    :meth:`close` ends the connection after what is queued (the error that says why, first),
    with a close code and reason; :meth:`kill` drops what is queued.

    A connection is unattached (no ``hello`` or ``watch`` accepted yet), seated (``seat`` is
    its seat) or a spectator (``spectator`` is true and ``seat`` is ``None``).
    """

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        close: Callable[[int, str], Awaitable[None]],
        *,
        max_queue: int = 256,
        send_timeout: float = 10.0,
    ) -> None:
        self._send = send
        self._close = close
        self.queue: asyncio.Queue[str | Closing] = asyncio.Queue()
        self.max_queue = max_queue
        self.send_timeout = send_timeout
        self.seat: int | None = None
        self.spectator = False
        self.table: Table | None = None
        self.closed = False
        """No more messages are taken (the connection is closing or closed)."""

    @property
    def attached(self) -> bool:
        """Whether a ``hello`` or a ``watch`` was accepted."""
        return self.seat is not None or self.spectator

    def push(self, message: dict[str, Any] | str) -> None:
        """Queue a message (dropped once the connection is closing)."""
        if self.closed:
            return
        if self.queue.qsize() >= self.max_queue:
            log.warning("a client cannot keep up; disconnecting it", extra=fields(
                table=self.table.id if self.table else None, seat=self.seat, spectator=self.spectator
            ))
            self.kill(CLOSE_TRY_LATER, "too many messages waiting for you: reconnect for the full state")
            return
        self.queue.put_nowait(message if isinstance(message, str) else json.dumps(message, separators=(",", ":")))

    def close(self, code: int, reason: str) -> None:
        """Close with ``code`` and ``reason`` once the messages queued so far are sent."""
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(Closing(code, reason))

    def kill(self, code: int = CLOSE_GOING_AWAY, reason: str = "") -> None:
        """Drop what is queued and close with ``code`` and ``reason``."""
        while not self.queue.empty():
            self.queue.get_nowait()
        self.closed = True
        self.queue.put_nowait(Closing(code, reason))

    async def run_writer(self) -> None:
        """Send the queued messages until the connection closes, then close it."""
        end = Closing(CLOSE_TRY_LATER, "the connection failed")
        try:
            while True:
                item = await self.queue.get()
                if isinstance(item, Closing):
                    end = item
                    break
                await asyncio.wait_for(self._send(item), self.send_timeout)
        except Exception:  # a dead or slow socket: drop this client only
            pass
        finally:
            self.closed = True
            with contextlib.suppress(Exception):
                await self._close(end.code, end.reason)


@dataclass
class SeatInfo:
    """Who sits at a seat: a ``human`` (with the hash of its secret token), an ``open`` seat
    (joinable from the lobby) or a ``bot`` (with its spec, such as ``"easy"``)."""

    kind: str
    name: str
    bot: str | None = None
    token_hash: str | None = None

    def record_seat(self) -> Seat:
        """The seat as a record names it: its name and, for a bot, the bot's spec."""
        return Seat(self.name, self.bot if self.kind == "bot" else None)


@dataclass
class Table:
    """One game with its seats, lock and connected clients; its ``seq`` is the number of
    actions the game has applied (each one a row of the store's log)."""

    id: str
    game: Game
    seats: list[SeatInfo]
    store: Store
    bot_delay: float = 0.7
    pool: BotPool = field(default_factory=lambda: BotPool(workers=0))
    """Where the bots think (the manager's worker processes; threads by default)."""
    spectators: bool = True
    """Whether anyone may watch (without a seat) what every seat may know."""
    max_spectators: int = DEFAULT_LIMITS.max_spectators
    """Spectators at a time; a ``watch`` beyond is refused (``spectators_full``)."""
    listed: bool = False
    """Whether the lobby lists the table."""
    turn_timer: int = 0
    """Seconds a seat that is to act has before the stand-in plays for it (0: no timer)."""
    stand_in: str = STAND_IN
    """The bot level that plays for an away seat."""
    metrics: Metrics = field(default_factory=Metrics)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: set[Connection] = field(default_factory=set)
    bots: dict[int, Bot] = field(init=False, default_factory=dict)
    """A bot for each bot seat (made with the seat's spec)."""
    away: set[int] = field(init=False, default_factory=set)
    """Seats whose time ran out: the stand-in plays for them until their person is back."""
    last_event: dict[str, Any] | None = field(init=False, default=None)
    """The last accepted action as every seat may know it (:func:`public_event`)."""
    _stand_ins: dict[int, Bot] = field(init=False, default_factory=dict)
    _clocks: dict[int, asyncio.TimerHandle] = field(init=False, default_factory=dict)
    _bot_task: asyncio.Task[None] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        history = self.game.history
        if history:
            self.last_event = public_event(history[-1], len(history))
        for s, info in enumerate(self.seats):
            if info.kind == "bot":
                self.bots[s] = make_bot(info.bot or STAND_IN, seed=secrets.randbits(32))

    @property
    def all_bots(self) -> bool:
        """Whether every seat is a bot (its bots think in the ``bots_only`` lane)."""
        return len(self.bots) == len(self.seats)

    @property
    def lane(self) -> Lane:
        """Where this table's bots wait for a worker."""
        return "bots_only" if self.all_bots else "people"

    @property
    def rules(self) -> Rules:
        """The table's rules (its game's)."""
        return self.game.rules

    @property
    def seq(self) -> int:
        """The table's sequence number: how many actions have been applied (and logged)."""
        return len(self.game.history)

    def record(self) -> GameRecord:
        """The game and who played it (names, bot specs), as a version 2 record exports it."""
        return GameRecord(self.game, [s.record_seat() for s in self.seats])

    # --- public facts and messages ---------------------------------------------------------

    def online(self) -> list[int]:
        """The seats with a connected client (spectators are no seat)."""
        return sorted({c.seat for c in self.conns if c.seat is not None and not c.closed})

    def spectator_count(self) -> int:
        """How many spectators are connected."""
        return sum(1 for c in self.conns if c.spectator and not c.closed)

    def public(self) -> dict[str, Any]:
        """What every seat (and the lobby, and a spectator) may know about the table."""
        g = self.game
        return {
            "id": self.id,
            "names": [s.name for s in self.seats],
            "kinds": [s.kind for s in self.seats],
            "bots": [s.bot if s.kind == "bot" else None for s in self.seats],
            "online": self.online(),
            "spectators": self.spectator_count(),
            "spectators_allowed": self.spectators,
            "pass_offset": g.round.pass_offset,
            "target": self.rules.target,
            "totals": list(g.totals),
            "score_history": [list(h) for h in g.score_history],
            "results": [
                {"points": list(r.points), "scores": list(r.scores), "shooter": r.shooter,
                 "moon_choice": r.moon_choice}
                for r in g.results
            ],
            "last_trick": _trick_dict(self._last_trick()),
            "finished": g.is_over,
            "winners": None if g.winners is None else list(g.winners),
            "turn_timer": self.turn_timer,
            "time_left": self.time_left(),
            "away": sorted(self.away),
        }

    def time_left(self) -> list[float | None]:
        """Each seat's seconds left to act (``None``: no clock runs for it)."""
        left: list[float | None] = [None] * len(self.seats)
        if self._clocks:
            now = asyncio.get_running_loop().time()
            for seat, clock in self._clocks.items():
                left[seat] = round(max(0.0, clock.when() - now), 1)
        return left

    def _last_trick(self) -> Trick | None:
        for r in reversed(self.game.rounds):
            tricks = r.tricks
            if tricks:
                return tricks[-1]
        return None

    def state(self, seat: int, reason: str, shared: str | None = None, view: View | None = None) -> str:
        """The ``state`` message for ``seat``: its view (R7) and the public table facts.

        The parts that are the same for every seat are encoded once per broadcast (``shared``);
        the seat's private part (:meth:`View.private_dict`) is encoded for it alone.
        """
        if view is None:
            view = View.of(self.game, seat)
        if shared is None:
            shared = self._shared(view)
        private = json.dumps(view.private_dict(), separators=(",", ":"))
        return f'{{"type":"state","reason":"{reason}","you":{seat},"view":{{{private[1:-1]},{shared}'

    def public_state(self, reason: str, shared: str | None = None) -> str:
        """The ``state`` message for a spectator: ``"you": null`` and the public part of the view
        only (:meth:`View.public_dict`, the same for every seat; R7), never a private field."""
        if shared is None:
            shared = self._shared(View.of(self.game, 0))
        return f'{{"type":"state","reason":"{reason}","you":null,"view":{{{shared}'

    def _shared(self, view: View) -> str:
        """The tail of a state message common to every seat and spectator: public view, table,
        event, seq (any seat's view gives the same: its public part only is used)."""
        dumps = json.JSONEncoder(separators=(",", ":")).encode
        return (
            f"{dumps(view.public_dict())[1:]},"
            f'"seq":{self.seq},"table":{dumps(self.public())},"event":{dumps(self.last_event)}}}'
        )

    def broadcast(self, reason: str = "event") -> None:
        """Send the new state to every client: each seat its own, every spectator the public one
        (the shared tail and the spectators' message are encoded once)."""
        shared: str | None = None
        public: str | None = None
        cache: dict[int, str] = {}
        for c in list(self.conns):
            if c.closed:
                continue
            if c.seat is None:
                if c.spectator:
                    if public is None:
                        if shared is None:
                            shared = self._shared(View.of(self.game, 0))
                        public = self.public_state(reason, shared)
                    c.push(public)
                continue
            if c.seat not in cache:
                view = View.of(self.game, c.seat)
                if shared is None:
                    shared = self._shared(view)
                cache[c.seat] = self.state(c.seat, reason, shared, view)
            c.push(cache[c.seat])

    def presence(self) -> None:
        """Tell every client which seats are connected, and how many spectators."""
        message = json.dumps(
            {
                "type": "presence",
                "online": self.online(),
                "names": [s.name for s in self.seats],
                "spectators": self.spectator_count(),
                "away": sorted(self.away),
            },
            separators=(",", ":"),
        )
        for c in list(self.conns):
            c.push(message)

    # --- connections -----------------------------------------------------------------------

    def seat_for_token(self, token: str) -> int | None:
        """The seat this secret token opens, or ``None``."""
        h = hash_token(token)
        for s, info in enumerate(self.seats):
            if info.token_hash is not None and secrets.compare_digest(info.token_hash, h):
                return s
        return None

    def attach(self, conn: Connection, seat: int) -> None:
        """Seat a connection (a spectator that shows a seat's token takes that seat); an away
        seat's person is back."""
        conn.seat = seat
        conn.spectator = False
        conn.table = self
        self.conns.add(conn)
        self._come_back(seat)
        conn.push(self.state(seat, "welcome"))
        self.presence()

    def watch(self, conn: Connection) -> None:
        """Let an unseated connection watch: the public state now and at every broadcast.

        Raises :class:`TableError` if this table has no spectators or has its maximum (the
        connection is then to be closed).
        """
        if conn.seat is not None:
            raise TableError("this connection holds a seat; open another one to watch", code="seated")
        if not conn.spectator:
            if not self.spectators:
                raise TableError("this table does not allow spectators", code="no_spectators", close_code=CLOSE_POLICY)
            if self.spectator_count() >= self.max_spectators:
                raise TableError(
                    f"this table already has its maximum of {self.max_spectators} spectators; try later",
                    code="spectators_full", close_code=CLOSE_TRY_LATER,
                )
        conn.spectator = True
        conn.table = self
        self.conns.add(conn)
        conn.push(self.public_state("welcome"))
        self.presence()

    def detach(self, conn: Connection) -> None:
        """Forget a connection that has gone."""
        if conn in self.conns:
            self.conns.discard(conn)
            self.presence()

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
                conn.push(self.public_state("resync"))
            else:
                conn.push(error_message(
                    "spectators cannot act: only a seat may pass, play or choose", "not_seated", self.seq
                ))
            return
        if isinstance(message, Sync):
            conn.push(self.state(seat, "resync"))
            return
        self.back(seat)
        if isinstance(message, Back):
            return
        try:
            action = message.action(seat)
        except ProtocolError as e:
            conn.push(error_message(str(e), e.code, self.seq))
            return
        async with self.lock:
            if not self._fresh(message.seq, action):
                conn.push(self.state(seat, "resync"))
                return
            try:
                self._apply(action, "person", arrived)
            except IllegalAction as e:
                conn.push(error_message(str(e), "illegal", self.seq))
                return
        self.kick_bots()

    def back(self, seat: int) -> None:
        """The person of an away seat plays again (its clock starts anew; everyone is told)."""
        if self._come_back(seat):
            self.presence()

    def _come_back(self, seat: int) -> bool:
        """Whether ``seat`` was away; if it was, it is no longer, and its clock starts."""
        if seat not in self.away:
            return False
        self.away.discard(seat)
        log.info("back", extra=fields(table=self.id, seat=seat))
        self.start_clocks()
        return True

    def _fresh(self, seen: int, action: Action) -> bool:
        """Whether an action was made on the current state (else: stale or a duplicate)."""
        if seen == self.seq:
            return True
        # A pass does not depend on the others' passes: one made during this pass phase stands.
        g = self.game
        return (
            isinstance(action, Pass)
            and g.phase is Phase.PASSING
            and action.seat in g.actors()
            and g.round_starts[-1] <= seen <= self.seq
        )

    def _apply(self, action: Action, by: Actor, arrived: float) -> None:
        """Apply an action (an illegal one is refused, nothing changed: an
        :class:`~hearts.errors.IllegalAction`), commit its row of the log, restart the clocks,
        broadcast, and count it (made ``by`` whom, ``arrived`` at a :func:`time.perf_counter`
        reading). Called with the lock held."""
        game = self.game
        game.apply(action)
        try:
            self.store.append(self.id, self.seq, action, finished=game.is_over)
        except Exception:
            game.undo()
            log.exception("could not commit an action; it is taken back",
                          extra=fields(table=self.id, seat=action.seat))
            raise
        self.last_event = public_event(action, self.seq)
        clock = self._clocks.pop(action.seat, None)
        if clock is not None:
            clock.cancel()
        self.start_clocks()
        self.broadcast()
        self.metrics.accepted(self.id, action, by, arrived)

    # --- the turn timer ----------------------------------------------------------------------

    def start_clocks(self) -> None:
        """Give each seat that is to act (no bot, not away) ``turn_timer`` seconds, unless its
        clock runs already; stop the clocks of the seats not to act. Needs a running loop
        when the table has a timer."""
        if self.turn_timer <= 0:
            return
        actors = set() if self.game.is_over else set(self.game.actors())
        for seat in [s for s in self._clocks if s not in actors or s in self.away]:
            self._clocks.pop(seat).cancel()
        loop = asyncio.get_running_loop()
        for seat in actors - self._clocks.keys() - self.bots.keys() - self.away:
            self._clocks[seat] = loop.call_later(self.turn_timer, self._time_out, seat)

    def _time_out(self, seat: int) -> None:
        """A seat's clock ran out: it is away, and the stand-in plays for it."""
        self._clocks.pop(seat, None)
        if self.game.is_over or seat not in self.game.actors():
            return
        self.away.add(seat)
        log.info("away", extra=fields(table=self.id, seat=seat, stand_in=self.stand_in))
        self.presence()
        self.kick_bots()

    # --- bots ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start serving: the bots act if it is their turn, the clocks run. Needs a running loop."""
        self.start_clocks()
        self.kick_bots()

    def kick_bots(self) -> None:
        """Make sure the bots (and the stand-ins of away seats) act if it is their turn (one
        runner task per table)."""
        if not self.bots and not self.away:
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self._run_bots())

    def _bot_to_act(self) -> int | None:
        return next((s for s in self.game.actors() if s in self.bots or s in self.away), None)

    async def _run_bots(self) -> None:
        while True:
            seat = self._bot_to_act()
            if seat is None:
                return
            view = View.of(self.game, seat)
            if self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
                if self._bot_to_act() != seat:
                    continue  # the person came back meanwhile
            by: Actor = "bot" if seat in self.bots else "stand_in"
            bots = self.bots if by == "bot" else self._stand_ins
            if seat not in bots:
                bots[seat] = make_bot(self.stand_in, seed=secrets.randbits(32))
            action: Action | None
            try:
                action, bots[seat] = await self.pool.decide(bots[seat], view, self.lane)
            except Exception:
                log.exception("a bot failed; it acts at random", extra=fields(table=self.id, seat=seat))
                action = None
            arrived = time.perf_counter()
            async with self.lock:
                if self._bot_to_act() != seat or View.of(self.game, seat) != view:
                    continue  # the position moved on meanwhile (or the person is back): think again
                if action is not None and action not in self.game.legal_actions(seat):
                    log.error("a bot chose an illegal action; it acts at random",
                              extra=fields(table=self.id, seat=seat, action=to_dict(action)))
                    action = None
                self._apply(action if action is not None else fallback(self.game, seat), by, arrived)

    def stop(self) -> None:
        """Stop the bots' runner and the clocks (at shutdown)."""
        if self._bot_task is not None:
            self._bot_task.cancel()
        for clock in self._clocks.values():
            clock.cancel()
        self._clocks.clear()


def public_event(action: Action, seq: int) -> dict[str, Any]:
    """What every seat may know of an accepted action (R7): its codec object without a pass's
    cards, and the ``seq`` it brought the table to.

    >>> from hearts.actions import Play
    >>> public_event(Pass(2, "2C 3C 4C"), 3), public_event(Play(1, "QS"), 9)
    ({'type': 'pass', 'seat': 2, 'seq': 3}, {'type': 'play', 'seat': 1, 'card': 'QS', 'seq': 9})
    """
    event = to_dict(action)
    event.pop("cards", None)
    event["seq"] = seq
    return event


def _trick_dict(t: Trick | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "leader": t.leader,
        "plays": [{"seat": s, "card": str(c)} for s, c in t.plays],
        "winner": t.winner,
        "points": t.points,
    }


class TableError(Refused):
    """A request that cannot be honoured (unknown table, seat taken, no watching): ``status``
    for HTTP, ``code`` for a WebSocket ``error`` message, ``close_code`` if the connection is
    to be closed."""


class Manager:
    """Every table of the server, created, joined and restored through the store, within the
    server's :class:`~hearts.server.limits.Limits` (tables at once, all-bot tables)."""

    def __init__(
        self,
        store: Store,
        bot_delay: float = 0.7,
        bot_workers: int | None = None,
        *,
        limits: Limits = DEFAULT_LIMITS,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.limits = limits
        self.metrics = metrics or Metrics()
        self.pool = BotPool(bot_workers, metrics=self.metrics)
        self.tables: dict[str, Table] = {}
        self.owners: dict[str, str] = {}
        """The address that made each all-bot table (of this process: not stored)."""

    def restore_all(self) -> int:
        """Load every unfinished table by replaying its log; start its bots. Returns how many."""
        count = 0
        for table_id in self.store.unfinished():
            try:
                if self.get(table_id) is not None:
                    count += 1
            except Exception:
                log.exception("a table could not be restored", extra=fields(table=table_id))
        return count

    def get(self, table_id: str) -> Table | None:
        """A table in memory, or loaded from the store: its game is ``Game(rules, seed)`` (with
        a migrated table's logged deals) and the log replayed, as a record is
        (:func:`hearts.record.replay`; a log that does not replay raises
        :class:`~hearts.errors.RecordError`)."""
        table = self.tables.get(table_id)
        if table is not None or not TABLE_ID.fullmatch(table_id):
            return table
        row = self.store.table(table_id)
        if row is None:
            return None
        game = Game(Rules.from_dict(row.config["rules"]), row.seed, deals=row.deals)
        replay(game, self.store.actions(table_id))
        seats = [SeatInfo(r.kind, r.name or "", r.bot, r.token_hash) for r in self.store.seats(table_id)]
        return self._open(table_id, game, seats, row.config)

    def _open(self, table_id: str, game: Game, seats: list[SeatInfo], config: dict[str, Any]) -> Table:
        """Serve a table (``config``: its stored settings): keep it in memory and start it."""
        table = Table(
            table_id, game, seats, self.store, bot_delay=self.bot_delay, pool=self.pool,
            spectators=bool(config.get("spectators", True)), max_spectators=self.limits.max_spectators,
            listed=bool(config.get("listed", listed_by_default(s.kind for s in seats))), turn_timer=int(config.get("turn_timer", 0)),
            stand_in=str(config.get("stand_in", STAND_IN)), metrics=self.metrics,
        )
        self.tables[table_id] = table
        with contextlib.suppress(RuntimeError):  # no running loop (tests, scripts)
            table.start()
        return table

    def unfinished(self) -> list[Table]:
        """The tables in memory whose game is not over."""
        return [t for t in self.tables.values() if not t.game.is_over]

    def create(self, request: TableRequest, owner: str = "local") -> tuple[Table, dict[int, str]]:
        """A new table from a checked lobby request, made from the address ``owner``; returns
        it and the secret token of each human seat. Raises
        :class:`~hearts.server.limits.RateLimited` when the server has its maximum of tables,
        or of all-bot tables (overall, or made from ``owner``)."""
        self._forget_finished()
        unfinished = self.unfinished()
        limits = self.limits
        if len(unfinished) >= limits.max_tables:
            raise RateLimited(f"the server has its maximum of {limits.max_tables} open tables; try again later",
                              60, status=503)
        if request.all_bots:
            bot_tables = [t.id for t in unfinished if t.all_bots]
            if len(bot_tables) >= limits.max_bot_tables:
                raise RateLimited(f"the server runs its maximum of {limits.max_bot_tables} all-bot tables; "
                                  "try again later, or take a seat yourself", 60, status=503)
            if sum(self.owners.get(t) == owner for t in bot_tables) >= limits.bot_tables_per_address:
                raise RateLimited(f"your address runs its maximum of {limits.bot_tables_per_address} all-bot "
                                  "tables; wait until one is over, or take a seat yourself", 60)
        seats: list[SeatInfo] = []
        tokens: dict[int, str] = {}
        for i, spec in enumerate(request.seats):
            if spec.kind == "bot":
                seats.append(SeatInfo("bot", spec.name or f"Bot ({spec.level})", spec.level))
            elif spec.kind == "human":
                token = secrets.token_urlsafe(18)
                tokens[i] = token
                seats.append(SeatInfo("human", spec.name or f"Player {i + 1}", None, hash_token(token)))
            else:
                seats.append(SeatInfo("open", "", None, None))
        table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        seed = secrets.randbits(48)
        config = {
            "rules": request.rules.to_dict(), "bot_delay": self.bot_delay, "spectators": request.spectators,
            "listed": request.listed, "turn_timer": request.turn_timer, "stand_in": request.stand_in,
        }
        self.store.create_table(table_id, config, seed, [(s.kind, s.name, s.bot, s.token_hash) for s in seats])
        if request.all_bots:
            self.owners[table_id] = owner
        log.info("table created", extra=fields(
            table=table_id, seats=[s.kind for s in seats], listed=request.listed, turn_timer=request.turn_timer
        ))
        return self._open(table_id, Game(request.rules, seed), seats, config), tokens

    def _forget_finished(self) -> None:
        """Let finished tables nobody watches go from memory (the store keeps them)."""
        for table_id in [i for i, t in self.tables.items() if t.game.is_over and not t.conns]:
            del self.tables[table_id]
            self.owners.pop(table_id, None)

    def join(self, table_id: str, request: JoinRequest) -> tuple[int, str]:
        """Take a free (open) seat; returns the seat and its new secret token."""
        table = self.get(table_id)
        if table is None:
            raise TableError(f"there is no table {table_id!r}", 404)
        free = [s for s, info in enumerate(table.seats) if info.kind == "open"]
        seat = free[0] if request.seat is None and free else request.seat
        if seat is None:
            raise TableError("no seat is free at this table", 409)
        if not 0 <= seat < len(table.seats):
            raise TableError(f"seat {seat} does not exist at this table")
        if seat not in free:
            raise TableError(f"seat {seat} is not free", 409)
        token = secrets.token_urlsafe(18)
        info = table.seats[seat]
        info.kind, info.name, info.token_hash = "human", request.name or f"Player {seat + 1}", hash_token(token)
        self.store.update_seat(table_id, seat, info.kind, info.name, info.token_hash)
        log.info("seat taken", extra=fields(table=table_id, seat=seat))
        table.broadcast("table")
        return seat, token

    def open_tables(self) -> list[dict[str, Any]]:
        """The unfinished tables listed in the lobby, those with a free seat first (at most
        ``limits.lobby_size``)."""
        out = []
        for t in self.unfinished():
            if not t.listed:
                continue
            out.append(
                {
                    "id": t.id,
                    "names": [s.name for s in t.seats],
                    "kinds": [s.kind for s in t.seats],
                    "free": [s for s, info in enumerate(t.seats) if info.kind == "open"],
                    "round": len(t.game.rounds),
                    "totals": list(t.game.totals),
                    "rules": t.rules.describe(),
                    "target": t.rules.target,
                    "spectators_allowed": t.spectators,
                    "spectators": t.spectator_count(),
                    "turn_timer": t.turn_timer,
                }
            )
        out.sort(key=lambda d: not d["free"])
        return out[: self.limits.lobby_size]

    def shutdown(self) -> None:
        for t in self.tables.values():
            t.stop()
            for c in list(t.conns):
                c.kill(CLOSE_GOING_AWAY, "the server is shutting down")
        self.pool.shutdown()
