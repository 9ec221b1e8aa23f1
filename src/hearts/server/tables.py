"""Tables of the web server: one game each, one lock and one sequence number per table.

Every action goes through :meth:`Table.handle` under the table's lock: it is checked against
the sequence number the client saw (stale or duplicate → a resync, not a second action),
applied to the engine through :meth:`Game.apply <hearts.game.Game.apply>` (a refusal → an
error to that client, nothing changed), committed to the action log, and only then broadcast:
each seat gets a message built from its own :class:`~hearts.view.View` (RULES.md R7), and each
spectator the public part alone (:meth:`View.public_dict <hearts.view.View.public_dict>`,
encoded once per broadcast for all of them). A table's ``seq`` is the number of actions its
game has applied. Bots think in worker processes (:mod:`hearts.server.botpool`), paced by
``bot_delay``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from hearts.actions import Action, Pass, to_dict
from hearts.bots import Bot, make_bot
from hearts.bots.registry import LEVELS
from hearts.errors import HeartsError, IllegalAction
from hearts.game import Game
from hearts.record import GameRecord, Seat, replay
from hearts.round import Phase, Trick
from hearts.rules import Rules
from hearts.server.botpool import BotPool, fallback
from hearts.server.persistence import Store, hash_token
from hearts.server.protocol import ActionMessage, ProtocolError, Sync, error_message
from hearts.view import View

log = logging.getLogger("hearts.server")

SEAT_KINDS = ("human", "open", "bot")
MAX_NAME = 40
MAX_SPECTATORS = 50
"""Spectators one table accepts at a time; a ``watch`` beyond gets an error (``spectators_full``)."""


class Connection:
    """One WebSocket client: a bounded outgoing queue drained by a writer with a send timeout.

    A client that cannot keep up (queue full, or a send that times out) is disconnected; it
    can reconnect and get the full state. Nobody else waits for it.

    A connection is unattached (no ``hello`` or ``watch`` accepted yet), seated (``seat`` is
    its seat) or a spectator (``spectator`` is true and ``seat`` is ``None``).
    """

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
        *,
        max_queue: int = 256,
        send_timeout: float = 10.0,
    ) -> None:
        self._send = send
        self._close = close
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(max_queue)
        self.send_timeout = send_timeout
        self.seat: int | None = None
        self.spectator = False
        self.table: Table | None = None
        self.closed = False

    def push(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            who = "a spectator" if self.spectator else f"seat {self.seat}"
            log.warning("client of %s cannot keep up; disconnecting it", who)
            self.kill()

    def kill(self) -> None:
        self.closed = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)

    async def run_writer(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                await asyncio.wait_for(self._send(text), self.send_timeout)
        except Exception:  # a dead or slow socket: drop this client only
            pass
        finally:
            self.closed = True
            with contextlib.suppress(Exception):
                await self._close()


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
    max_spectators: int = MAX_SPECTATORS
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: set[Connection] = field(default_factory=set)
    bots: dict[int, Bot] = field(init=False, default_factory=dict)
    """A bot for each bot seat (made with the seat's spec)."""
    last_event: dict[str, Any] | None = field(init=False, default=None)
    """The last accepted action as every seat may know it (:func:`public_event`)."""
    _bot_task: asyncio.Task[None] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        history = self.game.history
        if history:
            self.last_event = public_event(history[-1], len(history))
        for s, info in enumerate(self.seats):
            if info.kind == "bot":
                self.bots[s] = make_bot(info.bot or "medium", seed=secrets.randbits(32))

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
        }

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
        """Seat a connection (a spectator that shows a seat's token takes that seat)."""
        conn.seat = seat
        conn.spectator = False
        conn.table = self
        self.conns.add(conn)
        conn.push(self.state(seat, "welcome"))
        self.presence()

    def watch(self, conn: Connection) -> None:
        """Let an unseated connection watch: the public state now and at every broadcast.

        Raises :class:`TableError` if this table has no spectators or has its maximum.
        """
        if conn.seat is not None:
            raise TableError("this connection holds a seat; open another one to watch", code="seated")
        if not conn.spectator:
            if not self.spectators:
                raise TableError("this table does not allow spectators", code="no_spectators")
            if self.spectator_count() >= self.max_spectators:
                raise TableError(
                    f"this table already has its maximum of {self.max_spectators} spectators; try later",
                    code="spectators_full",
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

    async def handle(self, conn: Connection, message: Sync | ActionMessage) -> None:
        """A seated client's message: sync, or an action (of its own seat) checked against
        ``seq``. A spectator may sync (the public state) but never act: an error, and nothing
        changes."""
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
                self._apply(action)
            except IllegalAction as e:
                conn.push(error_message(str(e), "illegal", self.seq))
                return
        self.kick_bots()

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

    def _apply(self, action: Action) -> None:
        """Apply an action (an illegal one is refused, nothing changed: an
        :class:`~hearts.errors.IllegalAction`), commit its row of the log, broadcast.
        Called with the lock held."""
        game = self.game
        game.apply(action)
        try:
            self.store.append(self.id, self.seq, action, finished=game.is_over)
        except Exception:
            game.undo()
            log.exception("table %s: could not commit %s; it is taken back", self.id, action)
            raise
        self.last_event = public_event(action, self.seq)
        self.broadcast()

    # --- bots ------------------------------------------------------------------------------

    def kick_bots(self) -> None:
        """Make sure the bots act if it is their turn (one runner task per table)."""
        if not self.bots:
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self._run_bots())

    def _bot_to_act(self) -> int | None:
        return next((s for s in self.game.actors() if s in self.bots), None)

    async def _run_bots(self) -> None:
        while True:
            seat = self._bot_to_act()
            if seat is None:
                return
            view = View.of(self.game, seat)
            if self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
            action: Action | None
            try:
                action, self.bots[seat] = await self.pool.decide(self.bots[seat], view)
            except Exception:
                log.exception("table %s: bot of seat %d failed; it acts at random", self.id, seat)
                action = None
            async with self.lock:
                if self._bot_to_act() != seat or View.of(self.game, seat) != view:
                    continue  # the position moved on meanwhile: think again
                if action is not None and action not in self.game.legal_actions(seat):
                    log.error("table %s: bot of seat %d chose %s, which is illegal; it acts at random",
                              self.id, seat, action)
                    action = None
                self._apply(action if action is not None else fallback(self.game, seat))

    def cancel_bots(self) -> None:
        """Stop the bots' runner (at shutdown)."""
        if self._bot_task is not None:
            self._bot_task.cancel()


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


class TableError(ValueError):
    """A request that cannot be honoured (unknown table, seat taken, bad settings, no watching):
    ``status`` for HTTP, ``code`` for a WebSocket ``error`` message."""

    def __init__(self, message: str, status: int = 400, code: str = "bad_request") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class Manager:
    """Every table of the server, created, joined and restored through the store."""

    def __init__(self, store: Store, bot_delay: float = 0.7, bot_workers: int | None = None) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.pool = BotPool(bot_workers)
        self.tables: dict[str, Table] = {}

    def restore_all(self) -> int:
        """Load every unfinished table by replaying its log; start its bots. Returns how many."""
        count = 0
        for table_id in self.store.unfinished():
            try:
                if self.get(table_id) is not None:
                    count += 1
            except Exception:
                log.exception("table %s could not be restored", table_id)
        return count

    def get(self, table_id: str) -> Table | None:
        """A table in memory, or loaded from the store: its game is ``Game(rules, seed)`` (with
        a migrated table's logged deals) and the log replayed, as a record is
        (:func:`hearts.record.replay`; a log that does not replay raises
        :class:`~hearts.errors.RecordError`)."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        row = self.store.table(table_id)
        if row is None:
            return None
        game = Game(Rules.from_dict(row.config["rules"]), row.seed, deals=row.deals)
        replay(game, self.store.actions(table_id))
        seats = [SeatInfo(r.kind, r.name or "", r.bot, r.token_hash) for r in self.store.seats(table_id)]
        return self._open(table_id, game, seats, spectators=bool(row.config.get("spectators", True)))

    def _open(self, table_id: str, game: Game, seats: list[SeatInfo], spectators: bool) -> Table:
        """Serve a table: keep it in memory and start its bots."""
        table = Table(
            table_id, game, seats, self.store, bot_delay=self.bot_delay, pool=self.pool, spectators=spectators
        )
        self.tables[table_id] = table
        with contextlib.suppress(RuntimeError):  # no running loop (tests, scripts)
            table.kick_bots()
        return table

    def create(self, request: dict[str, Any]) -> tuple[Table, dict[int, str]]:
        """A new table from a lobby request; returns it and the secret token of each human seat.

        ``request``: ``preset`` (name), ``options`` (dict of RULES.md options), ``target``,
        ``players`` (optional, from the number of seats), ``seats``: a list of
        ``{"kind": "human", "name": ...}``, ``{"kind": "open"}`` or ``{"kind": "bot", "level": "easy"}``,
        ``spectators`` (optional, default true: whether anyone may watch; kept in the config).
        """
        if not isinstance(request, dict):
            raise TableError("the request must be a JSON object")
        seats_in = request.get("seats")
        if not isinstance(seats_in, list) or not 3 <= len(seats_in) <= 6:
            raise TableError("'seats' must be a list of 3 to 6 seats")
        options = request.get("options") or {}
        if not isinstance(options, dict):
            raise TableError("'options' must be an object of rule options")
        spectators = request.get("spectators", True)
        if not isinstance(spectators, bool):
            raise TableError("'spectators' must be true or false")
        preset = request.get("preset") or "standard"
        overrides = dict(options)
        overrides["players"] = len(seats_in)
        if request.get("target") is not None:
            overrides["target"] = request["target"]
        try:
            rules = Rules.preset(str(preset), **overrides)
        except (HeartsError, TypeError) as e:
            raise TableError(str(e)) from None
        seats: list[SeatInfo] = []
        tokens: dict[int, str] = {}
        for i, spec in enumerate(seats_in):
            if not isinstance(spec, dict):
                raise TableError(f"seat {i} must be an object with a 'kind'")
            kind = spec.get("kind", "human")
            name = spec.get("name")
            if kind not in SEAT_KINDS:
                raise TableError(f"seat {i}: kind {kind!r} is not one of {', '.join(SEAT_KINDS)}")
            if name is not None and (not isinstance(name, str) or len(name) > MAX_NAME):
                raise TableError(f"seat {i}: a name is a string of at most {MAX_NAME} characters")
            if kind == "bot":
                level = spec.get("level", "medium")
                if not isinstance(level, str) or level not in LEVELS:
                    raise TableError(f"seat {i}: bot level {level!r} is not one of {', '.join(LEVELS)}")
                seats.append(SeatInfo("bot", name or f"Bot ({level})", level))
            elif kind == "human":
                token = secrets.token_urlsafe(18)
                tokens[i] = token
                seats.append(SeatInfo("human", (name or "").strip() or f"Player {i + 1}", None, hash_token(token)))
            else:
                seats.append(SeatInfo("open", "", None, None))
        table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        seed = secrets.randbits(48)
        config = {"rules": rules.to_dict(), "bot_delay": self.bot_delay, "spectators": spectators}
        self.store.create_table(
            table_id, config, seed, [(s.kind, s.name, s.bot, s.token_hash) for s in seats]
        )
        return self._open(table_id, Game(rules, seed), seats, spectators), tokens

    def join(self, table_id: str, seat: Any, name: Any) -> str:
        """Take a free (open) seat; returns its new secret token."""
        table = self.get(table_id)
        if table is None:
            raise TableError(f"there is no table {table_id!r}", 404)
        free = [s for s, info in enumerate(table.seats) if info.kind == "open"]
        if seat is None and free:
            seat = free[0]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(table.seats):
            raise TableError(f"seat {seat!r} does not exist at this table")
        if seat not in free:
            raise TableError(f"seat {seat} is not free", 409)
        if name is not None and (not isinstance(name, str) or len(name) > MAX_NAME):
            raise TableError(f"a name is a string of at most {MAX_NAME} characters")
        token = secrets.token_urlsafe(18)
        info = table.seats[seat]
        info.kind, info.name, info.token_hash = "human", (name or "").strip() or f"Player {seat + 1}", hash_token(token)
        self.store.update_seat(table_id, seat, info.kind, info.name, info.token_hash)
        table.broadcast("table")
        return token

    def open_tables(self) -> list[dict[str, Any]]:
        """Unfinished tables, those with a free seat first."""
        out = []
        for t in self.tables.values():
            if t.game.is_over:
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
                }
            )
        out.sort(key=lambda d: not d["free"])
        return out

    def shutdown(self) -> None:
        for t in self.tables.values():
            t.cancel_bots()
            for c in list(t.conns):
                c.kill()
        self.pool.shutdown()

