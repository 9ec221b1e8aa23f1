"""Tables of the web server: one game each, one lock and one sequence number per table.

Every action goes through :meth:`Table.handle` under the table's lock: it is checked against
the sequence number the client saw (stale or duplicate → a resync, not a second action),
applied to the engine through :meth:`Game.apply <hearts.game.Game.apply>` (a refusal → an
error to that client, nothing changed), committed to the action log — **the database decides
the order**: if another process logged an action at that position first
(:class:`~hearts.server.storage.SeqConflict`), this one is taken back, the table catches up
(from the other's notice, else from the log), and the client gets a resync (a pass made
during the same pass phase still stands, and is logged after the other) — and only then
broadcast: each seat gets a message built from its own :class:`~hearts.view.View`
(docs/rules.md R7), and each spectator the public part alone
(:meth:`View.public_dict <hearts.view.View.public_dict>`, encoded once per broadcast for all
of them). Every message that shows the position is built under the lock, so no client ever
sees an action that is not committed. A table's ``seq`` is the number of actions its game has
applied.

Many processes may serve one table (PostgreSQL): each follows the store's notices
(:meth:`Manager.start`) and applies the actions the others logged (:meth:`Table.hear`: from
their notices, those heard while the table is busy once it is free; :meth:`Table.catch_up`
reads the log where a notice is missing), then broadcasts them to its own connections. Who is ``online`` and
how many spectators is the service's: each process announces its own connections at a table
when they change (:class:`~hearts.server.storage.PresenceNotice`) and adds the others' (a
:class:`Roster`; a process that stops being heard of, :class:`~hearts.server.storage.AliveNotice`,
is forgotten). What is per process: the connections, the per-address limits, and the turn
clocks (each process serving a table runs them; the first to see one run out marks the seat
away in the store, which every process follows).

Bots: with SQLite, the bots think in this process's worker processes
(:mod:`hearts.server.botpool`), paced by ``bot_delay``; the bots of all-bot tables wait in a
lane of their own, so they never make a person wait. With PostgreSQL, a bot's turn is a job in
the database (:mod:`hearts.server.turns`, :mod:`hearts.server.botworker`), queued with the
action that opened it, for bot workers on any machine.

A table may have a turn timer: each seat that is to act and is no bot has ``turn_timer``
seconds; a seat whose time runs out is *away*, and the table's stand-in bot (``stand_in``, a
level) plays for it until its person comes back (a ``hello``, an action or ``back``). The
clocks start again when a table is restored.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import hashlib
import json
import logging
import random
import re
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from hearts.actions import Action, Moon, Pass, from_dict, to_dict
from hearts.bots import Bot, make_bot
from hearts.errors import IllegalAction, RecordError
from hearts.game import Game
from hearts.record import GameRecord, Seat, replay
from hearts.round import Phase, Trick
from hearts.rules import Rules
from hearts.server.botpool import BotPool, Lane, fallback
from hearts.server.botworker import job_seed
from hearts.server.limits import (
    CLOSE_GOING_AWAY,
    CLOSE_POLICY,
    CLOSE_TRY_LATER,
    DEFAULT_LIMITS,
    Limits,
    RateLimited,
    Refused,
    SlidingWindows,
    rate_item,
)
from hearts.server.logs import fields
from hearts.server.metrics import Actor, Metrics
from hearts.server.outage import Backoff, is_outage
from hearts.server.persistence import hash_token
from hearts.server.protocol import (
    STAND_IN,
    ActionMessage,
    Back,
    Chat,
    HintRequest,
    JoinRequest,
    ProtocolError,
    Rename,
    Sync,
    TableRequest,
    error_message,
    listed_by_default,
)
from hearts.server.ratings import settle
from hearts.server.storage import (
    ActionNotice,
    AliveNotice,
    ChatLine,
    ChatNotice,
    HintNotice,
    JobNotice,
    Notice,
    PresenceNotice,
    RematchNotice,
    SeatConflict,
    SeatNotice,
    SeatRow,
    SeqConflict,
    Storage,
    StoreUnavailable,
    TableExists,
    TalkNotice,
    follow,
    load_game,
)
from hearts.server.turns import bot_spec, bot_turns, new_bot_turns
from hearts.text import Style
from hearts.view import View

log = logging.getLogger("hearts.server")

_dumps: Final = json.JSONEncoder(separators=(",", ":")).encode
"""Compact JSON text of a value (the messages' encoding)."""

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

    async def _send_queued(self, first: str) -> Closing | None:
        """Send ``first`` and the messages queued after it, up to a :class:`Closing` (returned)."""
        await self._send(first)
        while not self.queue.empty():
            item = self.queue.get_nowait()
            if isinstance(item, Closing):
                return item
            await self._send(item)
        return None

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
        """Send the queued messages until the connection closes, then close it. The messages
        queued meanwhile are sent together, under one deadline of ``send_timeout`` seconds."""
        end = Closing(CLOSE_TRY_LATER, "the connection failed")
        try:
            while not isinstance(item := await self.queue.get(), Closing):
                closing = await within(self._send_queued(item), self.send_timeout)
                if closing is not None:
                    item = closing
                    break
            end = item
        except Exception:  # a dead or slow socket: drop this client only
            pass
        finally:
            self.closed = True
            with contextlib.suppress(Exception):
                await self._close(end.code, end.reason)


_T = TypeVar("_T")


async def within(work: Coroutine[Any, Any, _T], seconds: float) -> _T:
    """Await ``work``, raising ``TimeoutError`` after ``seconds``: ``asyncio.wait_for``
    without the task that it makes for each use (on Python 3.11, ``asyncio.timeout``; on 3.10,
    ``wait_for`` itself, raising ``asyncio.TimeoutError``)."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await work
    return await asyncio.wait_for(work, seconds)  # pragma: no cover - Python 3.10


NOTICE_WAIT: Final = 0.25
"""Seconds an action refused for a position another process took waits for that action's
notice before it reads the log instead."""


def record_seat(seat: SeatRow) -> Seat:
    """A seat as a record names it: its name and, for a bot, the bot's spec."""
    return Seat(seat_name(seat), seat.bot if seat.kind == "bot" else None)


def seat_name(seat: SeatRow) -> str:
    """A seat's name as people read it: the stored one; ``Player 2`` for a person who has not
    chosen one yet (:meth:`Table.unnamed`); empty for an open seat.

    >>> seat_name(SeatRow(1, "human", None, None, "h")), seat_name(SeatRow(2, "bot", "Ada", "hard", None))
    ('Player 2', 'Ada')
    """
    if seat.name:
        return seat.name
    return f"Player {seat.seat + 1}" if seat.kind == "human" else ""


FRIENDLY_NAMES: Final = (
    "Ada", "Bea", "Cal", "Dot", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jem",
    "Kit", "Lou", "Max", "Ned", "Oli", "Pip", "Roz", "Sam", "Tom", "Viv",
)
"""The names bots get (shown with their level: "Ada (hard)")."""


def bot_names(seed: int, count: int, taken: Iterable[str] = ()) -> list[str]:
    """``count`` distinct names for a table's bots, drawn from the table's ``seed`` (the same
    seed gives the same names), none of them one of the ``taken`` names (in any case).

    >>> bot_names(7, 3) == bot_names(7, 3), len(set(bot_names(7, 5))), "Ada" in bot_names(7, 19, ["ada"])
    (True, 5, False)
    """
    used = {name.casefold() for name in taken}
    free = [name for name in FRIENDLY_NAMES if name.casefold() not in used]
    return random.Random(seed).sample(free, count)


def rematch_id(table_id: str) -> str:
    """The id of a finished table's rematch: made from the table's id, so that every process
    makes the same one and the store lets the first of them create it
    (:class:`~hearts.server.storage.TableExists` for the others).

    >>> rematch_id("abc") == rematch_id("abc") != rematch_id("abd"), bool(TABLE_ID.fullmatch(rematch_id("abc")))
    (True, True)
    """
    digest = hashlib.sha256(f"pyhearts rematch of {table_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest)[:8].decode().replace("-", "x").replace("_", "y")


def hint_text(action: Action) -> str:
    """A hint in words: "Hint: play Q♠", "Hint: pass A♠ K♠ Q♥" (highest first).

    >>> from hearts.actions import Play
    >>> hint_text(Play(0, "QS")), hint_text(Pass(0, "QH AS KS")), hint_text(Moon(0, "add"))
    ('Hint: play Q♠', 'Hint: pass A♠ K♠ Q♥', 'Hint: add 26 to everyone else')
    """
    style = Style()
    if isinstance(action, Pass):
        return "Hint: pass " + style.cards(sorted(action.cards, reverse=True))
    if isinstance(action, Moon):
        return "Hint: add 26 to everyone else" if action.choice == "add" else "Hint: take 26 off your own score"
    return "Hint: play " + style.card(action.card)


HEADS_EVERY: Final = 0.75
"""Seconds between a server process's checks of the log's head of the tables it holds (on
PostgreSQL): a table behind its log at two checks running (a notice lost with the connection
that sent it, or with the process that logged the action) catches up, within two such periods."""

HEADS_CATCH_UPS: Final = 50
"""The most tables one check sends to catch up with their logs (a lost listener, which loses
every notice, makes every table catch up by itself)."""

ALIVE_EVERY: Final = 10.0
"""Seconds between a server process's alive notices (:class:`~hearts.server.storage.AliveNotice`); the
presence announced by a process not heard of for three times as long is forgotten."""


class Roster:
    """Who is connected to each table through the *other* server processes of a service, as
    their presence notices told (:class:`~hearts.server.storage.PresenceNotice`; SQLite: nobody).
    A process not heard of for ``3 * ALIVE_EVERY`` seconds counts no more.

    >>> roster = Roster("me")
    >>> roster.heard(PresenceNotice("t1", "other", [2], 1), now=0.0)
    True
    >>> roster.online("t1", now=1.0), roster.spectators("t1", now=1.0)
    ([2], 1)
    >>> roster.online("t1", now=100.0)  # "other" has not been heard of since: gone
    []
    """

    def __init__(self, process: str | None = None) -> None:
        self.process = process or secrets.token_hex(6)
        """This process's id in its notices."""
        self._seen: dict[str, float] = {}
        """When each other process was last heard of (:func:`time.monotonic`)."""
        self._tables: dict[str, dict[str, tuple[tuple[int, ...], int]]] = {}
        """Each table's presence through each other process: (seats online, spectators)."""

    def alive(self, process: str, now: float | None = None) -> None:
        """``process`` was heard of (at ``now``, a :func:`time.monotonic` reading)."""
        if process != self.process:
            self._seen[process] = time.monotonic() if now is None else now

    def heard(self, notice: PresenceNotice, now: float | None = None) -> bool:
        """Take another process's presence at a table; whether that changed what it shows
        (this process's own notices change nothing)."""
        if notice.process == self.process:
            return False
        self.alive(notice.process, now)
        entry = (tuple(sorted(set(notice.online))), notice.spectators)
        procs = self._tables.setdefault(notice.table_id, {})
        before = procs.pop(notice.process, None)
        if entry != ((), 0):
            procs[notice.process] = entry
        elif not procs:
            del self._tables[notice.table_id]
        return before != procs.get(notice.process)

    def _present(self, table_id: str, now: float | None) -> list[tuple[tuple[int, ...], int]]:
        procs = self._tables.get(table_id)
        if not procs:
            return []
        since = (time.monotonic() if now is None else now) - 3 * ALIVE_EVERY
        return [entry for p, entry in procs.items() if self._seen.get(p, since - 1) >= since]

    def online(self, table_id: str, now: float | None = None) -> list[int]:
        """The seats with a client at another process."""
        return sorted({seat for seats, _ in self._present(table_id, now) for seat in seats})

    def spectators(self, table_id: str, now: float | None = None) -> int:
        """The spectators at the other processes."""
        return sum(count for _, count in self._present(table_id, now))

    def forget_gone(self, now: float | None = None) -> list[str]:
        """Forget the processes not heard of for ``3 * ALIVE_EVERY`` seconds; the tables whose
        presence that changed."""
        since = (time.monotonic() if now is None else now) - 3 * ALIVE_EVERY
        gone = {p for p, seen in self._seen.items() if seen < since}
        changed = []
        for table_id, procs in list(self._tables.items()):
            if gone & procs.keys():
                changed.append(table_id)
                for p in gone:
                    procs.pop(p, None)
                if not procs:
                    del self._tables[table_id]
        for p in gone:
            del self._seen[p]
        return changed


@dataclass
class Table:
    """One game with its seats, lock and connected clients; its ``seq`` is the number of
    actions the game has applied (each one a row of the store's log)."""

    id: str
    game: Game
    seats: list[SeatRow]
    """Who sits at each seat (``human``, ``open`` or ``bot``), as stored; and who is away."""
    store: Storage
    bot_delay: float = 0.7
    pool: BotPool | None = None
    """Where this process's bots think (SQLite); ``None``: the bots' turns are jobs in the
    store, for bot workers (PostgreSQL)."""
    spectators: bool = True
    """Whether anyone may watch (without a seat) what every seat may know."""
    max_spectators: int = DEFAULT_LIMITS.max_spectators
    """Spectators at a time (through every process); a ``watch`` beyond is refused (``spectators_full``)."""
    listed: bool = False
    """Whether the lobby lists the table."""
    turn_timer: int = 0
    """Seconds a seat that is to act has before the stand-in plays for it (0: no timer)."""
    stand_in: str = STAND_IN
    """The bot level that plays for an away seat."""
    rated: bool = False
    """Whether the game is rated when it ends (:func:`~hearts.server.ratings.settle`)."""
    metrics: Metrics = field(default_factory=Metrics)
    roster: Roster = field(default_factory=Roster)
    """Who is connected to the table through the other processes (the :class:`Manager`'s)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: set[Connection] = field(default_factory=set)
    last_event: dict[str, Any] | None = field(init=False, default=None)
    """The last accepted action as every seat may know it (:func:`public_event`)."""
    _bots: dict[int, Bot] = field(init=False, default_factory=dict)
    """This process's bot for each seat it played (the seat's own bot, or the stand-in)."""
    _clocks: dict[int, asyncio.TimerHandle] = field(init=False, default_factory=dict)
    _bot_task: asyncio.Task[None] | None = field(init=False, default=None)
    _tasks: set[asyncio.Task[None]] = field(init=False, default_factory=set)
    _hints: dict[tuple[int, int], Action] = field(init=False, default_factory=dict)
    """The hints given in this process, by seat and position (those of past positions go)."""
    _hint_waiters: dict[tuple[int, int], set[Connection]] = field(init=False, default_factory=dict)
    """The connections waiting for a hint being computed, by seat and position."""
    rematch: RematchNotice | None = field(init=False, default=None)
    """This finished table's rematch, once one was asked for (as this process heard of it)."""
    _announced: tuple[tuple[int, ...], int] | None = field(init=False, default=((), 0))
    """This process's presence at the table as last announced to the others (``None``: to
    announce again)."""
    _announcer: asyncio.Task[None] | None = field(init=False, default=None)
    _rules_json: str | None = field(init=False, default=None)
    """The rules as state messages carry them, encoded once."""
    _tricks_json: tuple[Trick | None, str] | None = field(init=False, default=None)
    """The round's completed tricks encoded, with the last of them (the key: a new trick, a
    new round or an undo makes another object)."""
    _public_parts: tuple[tuple[Any, ...], tuple[str, str, str]] | None = field(init=False, default=None)
    """Parts of :meth:`public` encoded, with what they were encoded for (:meth:`_public_json`)."""
    _heard: dict[int, Any] = field(init=False, default_factory=dict)
    """Actions other processes logged, by ``seq``, heard while the lock was held (or out of
    order): applied from here when the lock is free, without reading the log."""
    _draining: bool = field(init=False, default=False)
    """Whether a task waits for the lock to apply :attr:`_heard`."""
    _heard_signal: asyncio.Event | None = field(init=False, default=None)
    """Set when an action is heard of (for :meth:`_await_heard`)."""

    def __post_init__(self) -> None:
        history = self.game.history
        if history:
            self.last_event = public_event(history[-1], len(history))

    @property
    def all_bots(self) -> bool:
        """Whether every seat is a bot (its bots think in the ``bots_only`` lane)."""
        return all(s.kind == "bot" for s in self.seats)

    @property
    def lane(self) -> Lane:
        """Where this table's bots wait for a worker."""
        return "bots_only" if self.all_bots else "people"

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
        return len(self.game.history)

    def record(self) -> GameRecord:
        """The game and who played it (names, bot specs), as a version 2 record exports it."""
        return GameRecord(self.game, [record_seat(s) for s in self.seats])

    def unnamed(self) -> list[int]:
        """The person seats whose name nobody chose yet (the person is asked for one)."""
        return [s.seat for s in self.seats if s.kind == "human" and not s.name]

    # --- public facts and messages ---------------------------------------------------------

    def online(self) -> list[int]:
        """The seats with a connected client, through any process (spectators are no seat)."""
        here = {c.seat for c in self.conns if c.seat is not None and not c.closed}
        return sorted(here.union(self.roster.online(self.id)))

    def spectator_count(self) -> int:
        """How many spectators are connected, through any process."""
        return sum(1 for c in self.conns if c.spectator and not c.closed) + self.roster.spectators(self.id)

    def _here(self) -> tuple[tuple[int, ...], int]:
        """This process's presence: the seats with a client here, and its spectators."""
        live = [c for c in self.conns if not c.closed]
        return tuple(sorted({c.seat for c in live if c.seat is not None})), sum(c.spectator for c in live)

    def public(self) -> dict[str, Any]:
        """What every seat (and the lobby, and a spectator) may know about the table."""
        return {**self._moment(), **self._who(), **self._scores(), "last_trick": _trick_dict(self._last_trick())}

    def _moment(self) -> dict[str, Any]:
        """The part of :meth:`public` that may change at any time: presence, clocks."""
        return {
            "id": self.id,
            "online": self.online(),
            "spectators": self.spectator_count(),
            "spectators_allowed": self.spectators,
            "pass_offset": self.game.round.pass_offset,
            "turn_timer": self.turn_timer,
            "time_left": self.time_left(),
        }

    def _who(self) -> dict[str, Any]:
        """The part of :meth:`public` that changes with the seats."""
        return {
            "names": [seat_name(s) for s in self.seats],
            "kinds": [s.kind for s in self.seats],
            "bots": [s.bot if s.kind == "bot" else None for s in self.seats],
            "unnamed": self.unnamed(),
            "away": self.away,
        }

    def _scores(self) -> dict[str, Any]:
        """The part of :meth:`public` that changes when a round or the game ends."""
        g = self.game
        return {
            "target": self.rules.target,
            "totals": list(g.totals),
            "score_history": [list(h) for h in g.score_history],
            "results": [
                {"points": list(r.points), "scores": list(r.scores), "shooter": r.shooter,
                 "moon_choice": r.moon_choice}
                for r in g.results
            ],
            "finished": g.is_over,
            "winners": None if g.winners is None else list(g.winners),
        }

    def _public_json(self) -> str:
        """:meth:`public` encoded, its parts kept encoded until what they depend on changes
        (the seats; the rounds played; the last trick)."""
        g = self.game
        keys = (tuple(self.seats), (len(g.results), g.is_over), self._last_trick())
        parts = self._public_parts
        if parts is None or parts[0][0] != keys[0] or parts[0][1] != keys[1] or parts[0][2] is not keys[2]:
            parts = self._public_parts = (keys, (
                _dumps(self._who())[1:-1], _dumps(self._scores())[1:-1], _dumps(_trick_dict(keys[2]))
            ))
        who, scores, last_trick = parts[1]
        return f'{_dumps(self._moment())[:-1]},{who},{scores},"last_trick":{last_trick}}}'

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
            "spectators": self.spectator_count(),
            "turn_timer": self.turn_timer,
        }

    async def facts(self) -> dict[str, Any]:
        """What ``GET /api/tables/{id}`` shows: the public facts, ``seq`` and the rules."""
        async with self.lock:
            return {**self.public(), "seq": self.seq, "rules": self.rules.to_dict()}

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
        event, seq (any seat's view gives the same: its public part only is used). The rules
        are encoded once per table, the round's completed tricks once per trick."""
        public = view.public_dict()
        tricks, rules = public.pop("tricks"), public.pop("rules")
        if self._rules_json is None:
            self._rules_json = _dumps(rules)
        last = view.tricks[-1] if view.tricks else None  # a trick object lives as long as its trick
        if self._tricks_json is None or self._tricks_json[0] is not last:
            self._tricks_json = (last, _dumps(tricks))
        return (
            f'{_dumps(public)[1:-1]},"rules":{self._rules_json},"tricks":{self._tricks_json[1]}}},'
            f'"seq":{self.seq},"table":{self._public_json()},"event":{_dumps(self.last_event)}}}'
        )

    def broadcast(self, reason: str = "event") -> None:
        """Send the new state to every client: each seat its own, every spectator the public one
        (the shared tail and the spectators' message are encoded once). Call with the lock held."""
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

    def presence(self, announce: bool = True) -> None:
        """Tell every client which seats are connected, and how many spectators; and, if this
        process's own connections changed (``announce``), the other processes."""
        if announce and self._here() != self._announced:
            self.announce()
        message = json.dumps(
            {
                "type": "presence",
                "online": self.online(),
                "names": [seat_name(s) for s in self.seats],
                "spectators": self.spectator_count(),
                "away": self.away,
            },
            separators=(",", ":"),
        )
        for c in list(self.conns):
            c.push(message)

    def announce(self, again: bool = False) -> None:
        """Tell the other processes this process's presence at the table (a
        :class:`~hearts.server.storage.PresenceNotice`) if it changed since last told, or
        ``again`` (asked for by a process that begins serving the table) if there is any;
        one notice at a time, in order."""
        if again and self._here() != ((), 0):
            self._announced = None
        if self._announcer is None or self._announcer.done():
            self._announcer = asyncio.get_running_loop().create_task(self._announce())
            self._tasks.add(self._announcer)
            self._announcer.add_done_callback(self._done)

    async def _announce(self) -> None:
        while (here := self._here()) != self._announced:
            self._announced = here
            await self.store.notify(PresenceNotice(self.id, self.roster.process, list(here[0]), here[1]))

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
            await self.refresh_seats()
            seat = self.seat_for_token(token)
        return seat

    async def attach(self, conn: Connection, seat: int) -> None:
        """Seat a connection (a spectator that shows a seat's token takes that seat); an away
        seat's person is back."""
        async with self.lock:
            conn.seat = seat
            conn.spectator = False
            conn.table = self
            self.conns.add(conn)
            await self._come_back(seat)
            conn.push(self.state(seat, "welcome"))
        self.presence()

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
            if self.spectator_count() >= self.max_spectators:
                raise TableError(
                    f"this table already has its maximum of {self.max_spectators} spectators; try later",
                    code="spectators_full", close_code=CLOSE_TRY_LATER,
                )
        async with self.lock:
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

    # --- table talk: chat, names, hints, the rematch ----------------------------------------

    async def talk(self, conn: Connection, message: Chat | Rename | HintRequest) -> None:
        """A seat's chat message, name or hint request (:mod:`hearts.server.protocol`); raises
        :class:`TableError` for one that is refused (nothing changes). A spectator reads the
        chat but writes nothing."""
        seat = conn.seat
        if seat is None:
            raise TableError("spectators read the chat; only the players write, choose names and ask for hints",
                             code="not_seated")
        if isinstance(message, Chat):
            await self.store.add_chat(self.id, seat, message.text)  # its notice brings it to everyone
        elif isinstance(message, Rename):
            await self.rename(seat, message.name)
        else:
            await self.hint(conn, seat, message.seq)

    async def send_talk(self, conn: Connection) -> None:
        """What a client gets after its welcome: the last 50 chat messages and, at a finished
        table, its rematch if there is one. During a database outage the client gets neither
        (the connection stays open; the next messages arrive as they come)."""
        try:
            lines = await self.store.chat(self.id, 50)
            conn.push(chat_message(lines, history=True))
            if self.game.is_over and self.rematch is None:
                stored = await self.store.table(rematch_id(self.id))
                if stored is not None:
                    self.rematch = RematchNotice(self.id, rematch_id(self.id), int(stored.config.get("rematch_by", 0)))
        except Exception as e:
            if not is_outage(e):
                raise
            log.warning("the chat history could not be read", extra=fields(table=self.id, error=str(e)))
        if self.rematch is not None:
            conn.push(self.rematch_message(self.rematch))

    def hear_talk(self, notice: TalkNotice) -> None:
        """A notice of the table talk (from any process): a chat line for every client, a
        rematch for every client, a hint for the connections that asked for it."""
        if isinstance(notice, ChatNotice):
            message = json.dumps(chat_message([notice.line]), separators=(",", ":"))
            for c in list(self.conns):
                c.push(message)
        elif isinstance(notice, RematchNotice):
            self.rematch = notice
            for c in list(self.conns):
                c.push(self.rematch_message(notice))
        else:
            action = None if notice.action is None else from_dict(notice.action)
            self._give_hint(notice.seat, notice.seq, action)

    def rematch_message(self, notice: RematchNotice) -> dict[str, Any]:
        """The ``rematch`` message: the new table's id, and who asked for it."""
        return {"type": "rematch", "table": notice.rematch, "by": notice.seat, "name": seat_name(self.seats[notice.seat])}

    async def rename(self, seat: int, name: str) -> None:
        """``seat``'s person takes the name ``name`` (checked by
        :func:`~hearts.server.protocol.check_name`), in the store and for every client of every
        process; until the game ends. :class:`TableError` (``game_over``, ``name_taken``) if not."""
        if self.game.is_over:
            raise TableError("the game is over: names stay as they were", code="game_over")
        taken = {seat_name(s).casefold() for s in self.seats if s.seat != seat and s.kind != "open"}
        if name.casefold() in taken:
            raise TableError(f"{name!r} is another seat's name at this table: choose another", code="name_taken")
        row = self.seats[seat]
        await self.store.update_seat(self.id, seat, "human", name, row.token_hash, was="human")
        async with self.lock:
            self.seats[seat] = dataclasses.replace(self.seats[seat], name=name)
            self.broadcast("table")
        self.presence()
        log.info("named", extra=fields(table=self.id, seat=seat))

    async def hint(self, conn: Connection, seat: int, seq: int) -> None:
        """Send ``conn`` what the hint bot would do for ``seat`` at position ``seq``, computed
        from the seat's view only (R7), once per seat and position: in this process's bot
        pool (SQLite), or by a bot worker (PostgreSQL: a hint job; its result comes back as a
        :class:`~hearts.server.storage.HintNotice`). A stale ``seq`` gets a resync; a hint
        whose position has moved on by the time it is ready is dropped. :class:`TableError`
        (``not_your_turn``) when the seat is not to act."""
        async with self.lock:
            if self.game.is_over or seat not in self.game.actors():
                raise TableError("a hint is given when it is your turn to act", code="not_your_turn")
            if seq != self.seq:
                conn.push(self.state(seat, "resync"))
                return
            view = View.of(self.game, seat)
        key = (seat, seq)
        known = self._hints.get(key)
        if known is not None:
            conn.push(hint_message(known, seq))
            return
        waiting = key in self._hint_waiters
        self._hint_waiters.setdefault(key, set()).add(conn)
        if waiting:
            return  # being computed: it is sent to every connection that asked
        jobs = self.store.jobs
        if jobs is not None:
            found = await jobs.ask_hint(self.id, seat, seq)
            if found is not None:
                self._give_hint(seat, seq, from_dict(found))
            return
        assert self.pool is not None
        self._spawn(self._think_hint(self.pool, view, seat, seq))

    async def _think_hint(self, pool: BotPool, view: View, seat: int, seq: int) -> None:
        try:
            action = await pool.hint(view, job_seed(self.game.seed or 0, seat, seq))
            log.info("hint", extra=fields(table=self.id, seat=seat, seq=seq))
        except Exception:
            log.exception("a hint failed", extra=fields(table=self.id, seat=seat))
            action = None
        self._give_hint(seat, seq, action)

    def _give_hint(self, seat: int, seq: int, action: Action | None) -> None:
        """A hint is ready: keep it, and send it to the connections waiting for it if its
        position is still the table's (else it is dropped)."""
        waiters = self._hint_waiters.pop((seat, seq), set())
        for key in [k for k in self._hints if k[1] < self.seq]:
            del self._hints[key]
        if action is None or seq != self.seq or seat not in self.game.actors():
            return
        self._hints[seat, seq] = action
        message = hint_message(action, seq)
        for c in waiters:
            if c.seat == seat and c in self.conns:
                c.push(message)

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
                async with self.lock:
                    conn.push(self.public_state("resync"))
            else:
                conn.push(error_message(
                    "spectators cannot act: only a seat may pass, play or choose", "not_seated", self.seq
                ))
            return
        if isinstance(message, Sync):
            async with self.lock:
                conn.push(self.state(seat, "resync"))
            return
        await self.back(seat)
        if isinstance(message, Back):
            return
        try:
            action = message.action(seat)
        except ProtocolError as e:
            conn.push(error_message(str(e), e.code, self.seq))
            return
        async with self.lock:
            while True:
                if not self._fresh(message.seq, action):
                    conn.push(self.state(seat, "resync"))
                    return
                try:
                    await self._apply(action, "person", arrived)
                except IllegalAction as e:
                    conn.push(error_message(str(e), "illegal", self.seq))
                    return
                except SeqConflict:  # another process logged an action there first
                    await self._await_heard()
                    await self.catch_up(read=False)  # from its notice (else from the log)
                    continue  # a pass of this pass phase still stands; anything else is now stale
                break
        self.kick_bots()

    async def back(self, seat: int) -> None:
        """The person of an away seat plays again (its clock starts anew; everyone is told)."""
        if await self._come_back(seat):
            self.presence()

    async def _come_back(self, seat: int) -> bool:
        """Whether ``seat`` was away; if it was, it is no longer (in the store too, for every
        process), and its clock starts."""
        if not self.seats[seat].away:
            return False
        self._set_away(seat, False)
        if await self.store.set_away(self.id, seat, False):
            log.info("back", extra=fields(table=self.id, seat=seat))
        self.start_clocks()
        return True

    def _set_away(self, seat: int, away: bool) -> None:
        self.seats[seat] = dataclasses.replace(self.seats[seat], away=away)

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

    async def _apply(self, action: Action, by: Actor, arrived: float) -> None:
        """Apply an action (an illegal one is refused, nothing changed: an
        :class:`~hearts.errors.IllegalAction`), commit its row of the log (with the bot turns
        it opens, on a store with jobs), restart the clocks, broadcast, and count it (made
        ``by`` whom, ``arrived`` at a :func:`time.perf_counter` reading). Called with the lock
        held. If the row cannot be committed (:class:`~hearts.server.storage.SeqConflict`: the
        database took another action there; or any failure) the action is taken back."""
        game = self.game
        before = game.actors()
        game.apply(action)
        bots = new_bot_turns(game, self.seats, action, before) if self.store.jobs is not None else []
        try:
            await self.store.append(self.id, self.seq, action, finished=game.is_over, bots=bots, by=by)
        except SeqConflict:
            game.undo()
            raise
        except BaseException:
            game.undo()
            log.exception("could not commit an action; it is taken back", extra=fields(table=self.id, seat=action.seat))
            self._spawn(self._resync_when_back())  # whether it was committed after all, the log says
            raise
        self._moved_on(action)
        self.metrics.accepted(self.id, action, by, arrived)
        if game.is_over and self.rated:  # its ratings (in the background; the store rates it once)
            self._spawn(self._settle())

    async def _settle(self) -> None:
        """Rate the finished game if the table is rated (:func:`~hearts.server.ratings.settle`)."""
        await settle(self.store, self.id)

    def _moved_on(self, action: Action) -> None:
        """After ``action`` was applied: the last event, the clocks, the broadcast."""
        self.last_event = public_event(action, self.seq)
        clock = self._clocks.pop(action.seat, None)
        if clock is not None:
            clock.cancel()
        self.start_clocks()
        self.broadcast()

    # --- following the log (actions other processes logged) --------------------------------

    def hear(self, notice: ActionNotice | SeatNotice) -> None:
        """A notice of the store: an action was logged (by any process), applied here if this
        table has not (at once if the lock is free, else as soon as it is; from the log only
        when a notice is missing); or a seat changed (read again from the store)."""
        if isinstance(notice, SeatNotice):
            self._spawn(self.refresh_seats())
            return
        if notice.seq <= self.seq:
            return  # this process's own, or one it caught up with already
        self._heard[notice.seq] = notice.action
        if self._heard_signal is not None:
            self._heard_signal.set()
        if self.lock.locked():
            if not self._draining:
                self._draining = True
                self._spawn(self._drain())
        elif self._follow_heard():
            self._spawn(self.resync())

    async def _await_heard(self, timeout: float = NOTICE_WAIT) -> None:
        """Wait, at most ``timeout`` seconds, for the notice of the action another process
        logged at ``seq + 1`` (where this process's own was refused): reading it from the
        notice spares the database a query. Call with the lock held."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            while self.seq + 1 not in self._heard and (left := deadline - loop.time()) > 0:
                self._heard_signal = signal = asyncio.Event()
                with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                    await within(signal.wait(), left)
        finally:
            self._heard_signal = None

    async def _drain(self) -> None:
        """Apply the actions heard while the lock was held, once it is free."""
        async with self.lock:
            self._draining = False
            if self._follow_heard():
                await self.catch_up()

    def _follow_heard(self) -> bool:
        """Apply the heard actions that follow this table's position, and forget the ones it
        has; whether the log must be read (a notice is missing before the ones left, or one
        does not follow this position). Call with the lock free or held by the caller."""
        run: list[Any] = []
        while self.seq + 1 + len(run) in self._heard:
            run.append(self._heard.pop(self.seq + 1 + len(run)))
        try:
            if run:
                self._follow(run)
        except RecordError:
            log.exception("a logged action does not follow this table's position; reading the log",
                          extra=fields(table=self.id))
            self._heard = {}
            return True
        self._forget_heard()
        return bool(self._heard)

    def _forget_heard(self) -> None:
        """Forget the heard actions this table has applied."""
        self._heard = {seq: a for seq, a in self._heard.items() if seq > self.seq}

    def lagged(self) -> None:
        """The table is behind its log (a notice of its was lost): catch up with it."""
        self._spawn(self.resync())

    def missed(self) -> None:
        """Notices may have been missed (the listener lost its connection): catch up with the
        log and the seats."""
        self._spawn(self.resync())
        self._spawn(self.refresh_seats())

    async def resync(self) -> None:
        """Catch up with the log, taking the lock."""
        async with self.lock:
            await self.catch_up()

    async def _resync_when_back(self) -> None:
        """:meth:`resync` once the database answers (polled with backoff, without the lock: the
        table's other actions are answered meanwhile, "unavailable" during an outage)."""
        for delay in Backoff(first=0.25, most=2.0).delays():
            try:
                await self.store.ping()
                break
            except StoreUnavailable:
                await asyncio.sleep(delay)
        await self.resync()

    async def catch_up(self, read: bool = True) -> None:
        """Apply the actions logged after this table's ``seq`` (by other processes) and
        broadcast them: the ones heard of first, then (if ``read``, or if a notice is missing)
        the rest of the log; a log that does not follow this position reloads the game from
        the store. Call with the lock held. ``read=False`` where an action is known to be
        logged (its notice on its way or come): the log is read only if nothing was heard."""
        try:
            seq = self.seq
            if self._follow_heard() or read or self.seq == seq:
                logged = await self.store.actions(self.id, after=self.seq)
                if logged:
                    self._follow(logged)
                self._forget_heard()
        except RecordError:
            self._heard = {}
            log.exception("the log does not follow this table's position; reloading it", extra=fields(table=self.id))
            stored = await load_game(self.store, self.id)
            if stored is not None:
                self.game, self.seats = stored.game, stored.seats
                self.last_event = public_event(self.game.history[-1], self.seq) if self.game.history else None
                self.start_clocks()
                self.broadcast("resync")

    def _follow(self, logged: list[Any]) -> None:
        """Apply logged actions (codec objects, the ones after ``seq``), broadcasting each as
        if it had been accepted here."""
        for item in logged:
            replay(self.game, [item], start=self.seq + 1)
            self._moved_on(self.game.history[-1])
        self.kick_bots()

    async def refresh_seats(self) -> None:
        """Read the seats from the store (a seat taken, a person away or back, through any
        process) and tell the clients what changed."""
        async with self.lock:
            rows = await self.store.seats(self.id)
            if rows == self.seats:
                return
            before, self.seats = self.seats, rows
            self._shut_out([s.seat for s in rows if before[s.seat].token_hash not in (None, s.token_hash)])
            self.start_clocks()
            if [(s.kind, s.name) for s in before] != [(s.kind, s.name) for s in rows]:
                self.broadcast("table")
        if [s.away for s in before] != [s.away for s in rows]:
            self.presence()
            self.kick_bots()

    def _shut_out(self, seats: list[int]) -> None:
        """Close the connections that hold these seats by a token that no longer opens them
        (a new invite link replaced it), saying why (an error ``seat_freed``, then the close)."""
        words = "the table's creator gave this seat a new invite link: your link no longer opens it"
        for conn in [c for c in self.conns if c.seat in seats]:
            self.conns.discard(conn)
            conn.push(error_message(words, "seat_freed", self.seq))
            conn.close(CLOSE_POLICY, words)

    # --- the turn timer ----------------------------------------------------------------------

    def start_clocks(self) -> None:
        """Give each seat that is to act (no bot, not away) ``turn_timer`` seconds, unless its
        clock runs already; stop the clocks of the seats not to act. Needs a running loop
        when the table has a timer."""
        if self.turn_timer <= 0:
            return
        people = set() if self.game.is_over else set(self.game.actors()) - set(bot_turns(self.game, self.seats))
        for seat in [s for s in self._clocks if s not in people]:
            self._clocks.pop(seat).cancel()
        loop = asyncio.get_running_loop()
        for seat in people - self._clocks.keys():
            self._clocks[seat] = loop.call_later(self.turn_timer, self._time_out, seat)

    def _time_out(self, seat: int) -> None:
        """A seat's clock ran out: it is away, and the stand-in plays for it."""
        self._clocks.pop(seat, None)
        self._spawn(self._go_away(seat))

    async def _go_away(self, seat: int) -> None:
        async with self.lock:
            if self.game.is_over or seat not in self.game.actors() or self.seats[seat].away:
                return
            self._set_away(seat, True)
            if await self.store.set_away(self.id, seat, True):  # (else another process did)
                log.info("away", extra=fields(table=self.id, seat=seat, stand_in=self.stand_in))
                if self.store.jobs is not None:
                    await self.store.jobs.enqueue_bot_job(self.id, seat, self.seq)
        self.presence()
        self.kick_bots()

    # --- bots ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start serving: the clocks run, and the bots act if it is their turn (on a store with
        jobs: their jobs are queued, if no process has queued them)."""
        self.start_clocks()
        jobs = self.store.jobs
        if jobs is None:
            self.kick_bots()
            return
        for seat in bot_turns(self.game, self.seats):
            await jobs.enqueue_bot_job(self.id, seat, self.seq)

    def kick_bots(self) -> None:
        """Make sure this process's bots (and the stand-ins of away seats) act if it is their
        turn (one runner task per table); nothing to do when the bots are jobs."""
        if self.pool is None or not bot_turns(self.game, self.seats):
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self._run_bots(self.pool))

    def _bot_to_act(self) -> int | None:
        return next(iter(bot_turns(self.game, self.seats)), None)

    async def _run_bots(self, pool: BotPool) -> None:
        while True:
            seat = self._bot_to_act()
            if seat is None:
                return
            view = View.of(self.game, seat)
            if self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
                if self._bot_to_act() != seat:
                    continue  # the person came back meanwhile
            by: Actor = "bot" if self.seats[seat].kind == "bot" else "stand_in"
            action: Action | None
            try:
                bot = self._bots.get(seat) or make_bot(bot_spec(self.seats[seat], self.stand_in) or self.stand_in,
                                                       seed=secrets.randbits(32))
                action, self._bots[seat] = await pool.decide(bot, view, self.lane)
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
                with contextlib.suppress(SeqConflict):  # the position moved on: think again
                    await self._apply(action if action is not None else fallback(self.game, seat), by, arrived)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (its failure is logged; :meth:`stop` cancels it)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a table's background work failed", exc_info=task.exception(), extra=fields(table=self.id))

    def stop(self) -> None:
        """Stop the bots' runner, the background work and the clocks (at shutdown)."""
        for task in [self._bot_task, *self._tasks]:
            if task is not None:
                task.cancel()
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


def chat_message(lines: Iterable[ChatLine], history: bool = False) -> dict[str, Any]:
    """A ``chat`` message: chat lines (``history``: the last ones, sent on connecting)."""
    return {"type": "chat", "lines": [dataclasses.asdict(line) for line in lines], "history": history}


def hint_message(action: Action, seq: int) -> dict[str, Any]:
    """A ``hint`` message: the action (in the codec) and its words, for position ``seq``."""
    return {"type": "hint", "seq": seq, "action": to_dict(action), "text": hint_text(action)}


def _trick_dict(t: Trick | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "leader": t.leader,
        "plays": [{"seat": s, "card": str(c)} for s, c in t.plays],
        "winner": t.winner,
        "points": t.points,
    }


UNAVAILABLE: Final = "the database is unavailable; nothing was changed: try again in a few seconds"
"""What a request or message is answered while the database cannot be reached (HTTP 503)."""

RETRY_AFTER_OUTAGE: Final = 2
"""The ``Retry-After`` (seconds) of a 503 answered during a database outage."""


class TableError(Refused):
    """A request that cannot be honoured (unknown table, seat taken, no watching): ``status``
    for HTTP, ``code`` for a WebSocket ``error`` message, ``close_code`` if the connection is
    to be closed."""


class Manager:
    """Every table this process serves, created, joined and restored through the store, within
    the server's :class:`~hearts.server.limits.Limits` (tables at once, all-bot tables); and
    the follower of the store's notices, which keeps them up with what other processes log.

    Use it inside the event loop: ``await manager.start()`` (restores the unfinished tables,
    follows the notices), ``await manager.shutdown()``.
    """

    def __init__(
        self,
        store: Storage,
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
        self.pool = BotPool(bot_workers, metrics=self.metrics) if store.jobs is None else None
        """Where the bots think in this process (SQLite); ``None`` when they are jobs."""
        self.tables: dict[str, Table] = {}
        self.owners: dict[str, str] = {}
        """The address that made each all-bot table (of this process: not stored)."""
        self._loading: dict[str, list[ActionNotice | SeatNotice]] = {}
        """The notices heard for each table being loaded (applied once it is)."""
        self._load_lock = asyncio.Lock()
        self._follower: asyncio.Task[None] | None = None
        self.roster = Roster()
        """Who is connected to each table through the other processes of the service."""
        self._heartbeat: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._asking: set[asyncio.Task[None]] = set()
        self.chat_rate = rate_item(limits.chat_rate)
        self.chats = SlidingWindows(self.chat_rate.amount, self.chat_rate.get_expiry())
        """The chat messages each seat sent through this process (``"table/seat"``: all of its
        connections together), in a sliding window of ``limits.chat_rate``."""

    async def start(self) -> int:
        """Listen to the store's notices, restore every unfinished table, then follow the
        notices (in a task). Returns how many tables were restored."""
        listener = await self.store.listen()
        loop = asyncio.get_running_loop()
        self._heartbeat = loop.create_task(self._beat())
        restored = await self.restore_all()
        self._follower = loop.create_task(follow(self.store, listener, self._hear, self._missed))
        if self.store.jobs is not None:  # other processes log actions too
            self._watcher = loop.create_task(self._watch_heads())
        return restored

    async def _watch_heads(self) -> None:
        """Every :data:`HEADS_EVERY` seconds, read the log's head of each unfinished table held
        here; a table found behind it twice running, at the same position (no notice moved it
        on meanwhile: one in flight is not a lost one), catches up with the log, at most
        :data:`HEADS_CATCH_UPS` at a time. A failure is logged once until the database answers
        again."""
        failing = False
        behind: dict[str, int] = {}
        """The tables found behind the log at the last check, and their position then."""
        while True:
            await asyncio.sleep(HEADS_EVERY)
            held = {t.id: t for t in self.tables.values() if not t.game.is_over}
            if not held:
                continue
            try:
                heads = await self.store.heads(list(held))
            except Exception as e:  # the database is away: the listener's loss says more
                if not failing:
                    log.warning("could not check the tables' logs", extra=fields(error=str(e)))
                failing = True
                continue
            failing = False
            lagging = {table_id: held[table_id].seq for table_id, seq in heads.items() if seq > held[table_id].seq}
            stuck = [table_id for table_id, seq in lagging.items() if behind.get(table_id) == seq]
            behind = lagging
            for table_id in stuck[:HEADS_CATCH_UPS]:
                log.info("a table was behind its log; catching up", extra=fields(table=table_id, seq=heads[table_id]))
                held[table_id].lagged()

    async def _beat(self) -> None:
        """Tell the other processes every :data:`ALIVE_EVERY` seconds that this one runs, and
        forget the presence of those no longer heard of."""
        while True:
            try:
                await self.store.notify(AliveNotice(self.roster.process))
            except Exception as e:  # the database is away: the listener's loss says more
                log.warning("could not tell the other processes this one runs", extra=fields(error=str(e)))
            for table_id in self.roster.forget_gone():
                table = self.tables.get(table_id)
                if table is not None:
                    table.presence(announce=False)
            await asyncio.sleep(ALIVE_EVERY)

    async def _ask(self, table_ids: list[str]) -> None:
        """Ask the other processes for their presence at these tables (they answer with their
        :class:`~hearts.server.storage.PresenceNotice`, if they have any); a failure is logged
        (the table is served all the same: its presence shows once the others' change)."""
        try:
            for table_id in table_ids:
                await self.store.notify(PresenceNotice(table_id, self.roster.process, [], 0, ask=True))
        except Exception as e:  # the database is away: the listener's loss says more
            log.warning("could not ask the other processes who is at a table", extra=fields(error=str(e)))

    async def restore_all(self) -> int:
        """Load every unfinished table by replaying its log; start its bots. Returns how many."""
        count = 0
        for table_id in await self.store.unfinished():
            try:
                if await self.get(table_id) is not None:
                    count += 1
            except Exception:
                log.exception("a table could not be restored", extra=fields(table=table_id))
        return count

    async def get(self, table_id: str) -> Table | None:
        """A table in memory, or loaded from the store (:func:`~hearts.server.storage.load_game`:
        its log replayed, as a record is; a log that does not replay raises
        :class:`~hearts.errors.RecordError`) and started."""
        table = self.tables.get(table_id)
        if table is not None or not TABLE_ID.fullmatch(table_id):
            return table
        async with self._load_lock:
            table = self.tables.get(table_id)
            if table is not None:
                return table
            self._loading[table_id] = []
            try:
                stored = await load_game(self.store, table_id)
            finally:
                heard = self._loading.pop(table_id)
            if stored is None:
                return None
            table = await self._open(table_id, stored.game, stored.seats, stored.row.config)
        for notice in heard:  # logged while it loaded
            table.hear(notice)
        return table

    async def _open(self, table_id: str, game: Game, seats: list[SeatRow], config: dict[str, Any]) -> Table:
        """Serve a table (``config``: its stored settings): keep it in memory and start it."""
        table = Table(
            table_id, game, seats, self.store, bot_delay=self.bot_delay, pool=self.pool,
            spectators=bool(config.get("spectators", True)), max_spectators=self.limits.max_spectators,
            listed=bool(config.get("listed", listed_by_default(s.kind for s in seats))),
            turn_timer=int(config.get("turn_timer", 0)), stand_in=str(config.get("stand_in", STAND_IN)),
            rated=bool(config.get("rated", False)), metrics=self.metrics, roster=self.roster,
        )
        self.tables[table_id] = table
        await table.start()
        await self._ask([table_id])
        return table

    def unfinished(self) -> list[Table]:
        """The tables in memory whose game is not over."""
        return [t for t in self.tables.values() if not t.game.is_over]

    async def create(
        self, request: TableRequest, owner: str = "local", creator_hash: str | None = None
    ) -> tuple[Table, dict[int, str]]:
        """A new table from a checked lobby request, made from the address ``owner``; returns
        it and the secret token of each human seat. ``creator_hash``: the hash of the creator's
        key (:func:`~hearts.server.persistence.hash_token`), kept in the table's stored
        settings: whoever shows the key may give a seat a new invite link (:meth:`new_invite`). Raises
        :class:`~hearts.server.limits.RateLimited` when the service has its maximum of tables,
        or this process its maximum of all-bot tables (overall, or made from ``owner``)."""
        self._forget_finished()
        limits = self.limits
        await self._room()
        if request.all_bots:
            bot_tables = [t.id for t in self.unfinished() if t.all_bots]
            if len(bot_tables) >= limits.max_bot_tables:
                raise RateLimited(f"the server runs its maximum of {limits.max_bot_tables} all-bot tables; "
                                  "try again later, or take a seat yourself", 60, status=503)
            if sum(self.owners.get(t) == owner for t in bot_tables) >= limits.bot_tables_per_address:
                raise RateLimited(f"your address runs its maximum of {limits.bot_tables_per_address} all-bot "
                                  "tables; wait until one is over, or take a seat yourself", 60)
        seats: list[SeatRow] = []
        tokens: dict[int, str] = {}
        seed = secrets.randbits(48)
        unnamed_bots = [s for s in request.seats if s.kind == "bot" and not s.name]
        names = iter(bot_names(seed, len(unnamed_bots), [s.name for s in request.seats if s.name]))
        for i, spec in enumerate(request.seats):
            if spec.kind == "bot":
                seats.append(SeatRow(i, "bot", spec.name or next(names), spec.level, None))
            elif spec.kind == "human":
                token = secrets.token_urlsafe(18)
                tokens[i] = token
                seats.append(SeatRow(i, "human", spec.name, None, hash_token(token)))  # no name: asked (unnamed)
            else:
                seats.append(SeatRow(i, "open", "", None, None))
        table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        config = {
            "rules": request.rules.to_dict(), "bot_delay": self.bot_delay, "spectators": request.spectators,
            "listed": request.listed, "turn_timer": request.turn_timer, "stand_in": request.stand_in,
            "rated": request.rated,
        }
        if creator_hash is not None:
            config["creator_hash"] = creator_hash
        await self.store.create_table(table_id, config, seed, [(s.kind, s.name, s.bot, s.token_hash) for s in seats])
        if request.all_bots:
            self.owners[table_id] = owner
        log.info("table created", extra=fields(
            table=table_id, seats=[s.kind for s in seats], listed=request.listed, turn_timer=request.turn_timer
        ))
        return await self._open(table_id, Game(request.rules, seed), seats, config), tokens

    async def _room(self) -> None:
        """Raise :class:`~hearts.server.limits.RateLimited` (503) when the service has its
        maximum of unfinished tables."""
        if len(await self.store.unfinished()) >= self.limits.max_tables:
            raise RateLimited(f"the server has its maximum of {self.limits.max_tables} open tables; try again later",
                              60, status=503)

    async def rematch(self, table: Table, conn: Connection) -> None:
        """A new table for a finished one, asked for by ``conn``'s seat: the same seats (each
        person's with the same token hash, so each browser's token opens its seat there
        too; no token is sent anywhere), names, bots, rules and options, and a new seed. One
        per finished table: its id is :func:`rematch_id`, so of two requests (through any
        processes) the store lets one create it. Every client of the old table is told
        (a :class:`~hearts.server.storage.RematchNotice`, through every process); a second
        request is answered with the same rematch. :class:`TableError` (``not_over``,
        ``not_seated``) if it cannot be asked for."""
        seat = conn.seat
        if seat is None:
            raise TableError("only the players ask for a rematch; spectators are told of it", code="not_seated")
        if not table.game.is_over:
            raise TableError("a rematch is for a finished game: play this one to the end first", code="not_over")
        new_id = rematch_id(table.id)
        row = await self.store.table(table.id)
        if row is None:
            raise TableError(f"there is no table {table.id!r}", 404, "no_table")
        config = {**row.config, "rematch_of": table.id, "rematch_by": seat}
        seats = [SeatRow(s.seat, s.kind, s.name if s.kind != "open" else "", s.bot, s.token_hash, player_id=s.player_id)
                 for s in await self.store.seats(table.id)]  # as stored: with their profiles
        seed = secrets.randbits(48)
        await self._room()
        try:
            await self.store.create_table(new_id, config, seed, [(s.kind, s.name, s.bot, s.token_hash) for s in seats])
        except TableExists:  # asked for already (here or through another process): the same one
            stored = await self.store.table(new_id)
            by = seat if stored is None else int(stored.config.get("rematch_by", seat))
            conn.push(table.rematch_message(RematchNotice(table.id, new_id, by)))
            return
        for s in seats:  # each person plays the rematch as the same profile (ratings, my games)
            if s.player_id is not None:
                await self.store.link_seat(new_id, s.seat, s.player_id)
        log.info("rematch", extra=fields(table=new_id, rematch_of=table.id, seat=seat))
        await self._open(new_id, Game(table.rules, seed), seats, config)
        await self.store.notify(RematchNotice(table.id, new_id, seat))

    def _forget_finished(self) -> None:
        """Let finished tables nobody watches go from memory (the store keeps them)."""
        for table_id in [i for i, t in self.tables.items() if t.game.is_over and not t.conns]:
            self.tables.pop(table_id).stop()
            self.owners.pop(table_id, None)

    async def join(self, table_id: str, request: JoinRequest) -> tuple[int, str]:
        """Take a free (open) seat; returns the seat and its new secret token. Of two requests
        for one seat (through any processes), the store lets one take it; the other is
        refused (409)."""
        table = await self.get(table_id)
        if table is None:
            raise TableError(f"there is no table {table_id!r}", 404)
        free = [s.seat for s in table.seats if s.kind == "open"]
        seat = free[0] if request.seat is None and free else request.seat
        if seat is None:
            raise TableError("no seat is free at this table", 409)
        if not 0 <= seat < len(table.seats):
            raise TableError(f"seat {seat} does not exist at this table")
        if seat not in free:
            raise TableError(f"seat {seat} is not free", 409)
        if request.name and request.name.casefold() in {seat_name(s).casefold() for s in table.seats}:
            raise TableError(f"{request.name!r} is another seat's name at this table: choose another", 409, "name_taken")
        token = secrets.token_urlsafe(18)
        name, token_hash = request.name, hash_token(token)  # no name: asked (unnamed)
        try:
            await self.store.update_seat(table_id, seat, "human", name, token_hash, was="open")
        except SeatConflict:
            raise TableError(f"seat {seat} is not free", 409) from None
        async with table.lock:
            table.seats[seat] = dataclasses.replace(table.seats[seat], kind="human", name=name, token_hash=token_hash)
            table.broadcast("table")
        log.info("seat taken", extra=fields(table=table_id, seat=seat))
        return seat, token

    async def new_invite(self, table_id: str, seat: int, creator_key: str) -> str:
        """Free a person's seat for someone else, asked by the table's creator (``creator_key``:
        the key :meth:`create` was given the hash of): the seat gets a new secret token,
        returned, and no name (its next person is asked for one); the old token opens nothing
        any more, and the connections that hold the seat through any process are closed,
        saying why. :class:`TableError` (403: not the creator; 404, 400, 409: no such table,
        seat, or not a person's seat of an unfinished unrated game) if not; nothing changes."""
        table = await self.get(table_id)
        row = await self.store.table(table_id)
        if table is None or row is None:
            raise TableError(f"there is no table {table_id!r}", 404, "no_table")
        kept = row.config.get("creator_hash")
        if not isinstance(kept, str) or not secrets.compare_digest(kept, hash_token(creator_key)):
            raise TableError("only the table's creator can free a seat (from the browser that made the table)",
                             403, "not_creator")
        if not 0 <= seat < len(table.seats):
            raise TableError(f"seat {seat} does not exist at this table", 400, "bad_request")
        if table.seats[seat].kind != "human":
            raise TableError(f"seat {seat} is not a person's: only a person's seat gets an invite link", 409, "not_human")
        if table.game.is_over:
            raise TableError("the game is over: its seats stay as they were", 409, "game_over")
        if row.config.get("rated"):
            raise TableError("a rated table's seats are its players' profiles: they cannot be given away", 409, "rated")
        token = secrets.token_urlsafe(18)
        await self.store.update_seat(table_id, seat, "human", None, hash_token(token), was="human")
        await table.refresh_seats()
        log.info("seat freed", extra=fields(table=table_id, seat=seat))
        return token

    async def open_tables(self) -> list[dict[str, Any]]:
        """The unfinished tables listed in the lobby (by the store: those with a free seat
        first, then the newest; at most ``limits.lobby_size``)."""
        out = []
        for listed in await self.store.listing(self.limits.lobby_size):
            table = await self.get(listed.id)
            if table is not None and not table.game.is_over:
                out.append(table.lobby_entry())
        return out

    # --- the notices ----------------------------------------------------------------------

    def _missed(self) -> None:
        """Notices may have been missed: every table in memory catches up, and asks the
        others for their presence again."""
        for table in list(self.tables.values()):
            table.missed()
        task = asyncio.get_running_loop().create_task(self._ask(list(self.tables)))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    def _hear(self, notice: Notice) -> None:
        """Hand a notice to its table (one being loaded keeps it for later); bot jobs are no
        concern of a server process. Every accepted action of the service is counted
        (``hearts_service_moves_total``); the presence of the others is kept in the roster."""
        if isinstance(notice, JobNotice):
            return
        if isinstance(notice, AliveNotice):
            self.roster.alive(notice.process)
            return
        if isinstance(notice, PresenceNotice):
            self._hear_presence(notice)
            return
        if isinstance(notice, ActionNotice):
            self.metrics.service_moves.labels(notice.by).inc()
        if isinstance(notice, (ChatNotice, RematchNotice, HintNotice)):
            talking = self.tables.get(notice.table_id)
            if talking is not None:
                talking.hear_talk(notice)
            return
        heard = self._loading.get(notice.table_id)
        if heard is not None:
            heard.append(notice)
            return
        table = self.tables.get(notice.table_id)
        if table is not None:
            table.hear(notice)

    def _hear_presence(self, notice: PresenceNotice) -> None:
        """Another process's presence at a table: shown to this process's clients if it
        changed; answered with this process's own if asked for."""
        changed = self.roster.heard(notice)
        table = self.tables.get(notice.table_id)
        if table is None:
            return
        if notice.ask and notice.process != self.roster.process:
            table.announce(again=True)
        if changed:
            table.presence(announce=False)

    async def shutdown(self) -> None:
        """Stop following the notices, tell the others this process's clients are gone, stop
        every table and close its connections."""
        for task in [self._follower, self._heartbeat, self._watcher, *self._asking]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for t in self.tables.values():
            if t._here() != ((), 0):
                with contextlib.suppress(Exception):  # (else the others forget it once it is no longer heard of)
                    await self.store.notify(PresenceNotice(t.id, self.roster.process, [], 0))
        for t in self.tables.values():
            t.stop()
            for c in list(t.conns):
                c.kill(CLOSE_GOING_AWAY, "the server is shutting down")
        if self.pool is not None:
            self.pool.shutdown()
