"""One client of the quick match (``WS /ws/lobby/quick``, :mod:`hearts.server.wire`'s
``quick``, ``leave``, ``queued``, ``seated``, ``left``): it joins the queue as a player
profile, keeps its place fresh every second (:data:`BEAT`), and is told where it sits — at
once when this process's matchmaker seated it, within a second when another's did.

A refused message (malformed, an unknown preset, an unknown key, a second request, a banned
profile, a player at an unfinished quick table) is an ``error`` and changes nothing; so is one
the database cannot answer (``unavailable``: the place, kept in it, stays as it was). A
connection that closes while queued leaves its place unseatable at once (:data:`~hearts.server.quick.FRESH`
in the past) but kept a while: the same profile's next request takes it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
import typing
from typing import Any, Final

import msgspec
from starlette.websockets import WebSocketDisconnect

from hearts.server.company import Banned
from hearts.server.limits import AddressGuard, Refused
from hearts.server.players import optional_player
from hearts.server.protocol import ProtocolError, decode_json, error_message
from hearts.server.quick import ANY, FRESH, PRESETS, Matchmaker, is_banned, preset_name
from hearts.server.session import Socket
from hearts.server.storage import PlayerRow, StoreUnavailable
from hearts.server.storage.quick import QueueRow
from hearts.server.tables import UNAVAILABLE
from hearts.server.wire import (
    Left,
    Ping,
    Pong,
    Queued,
    QuickClientMessage,
    QuickLeave,
    QuickRequest,
    Seated,
    encode,
)

BEAT: Final = 1.0
"""Seconds between two words of a queued connection to the queue."""
QUICK_TYPES: Final = tuple(str(t.__struct_config__.tag) for t in typing.get_args(QuickClientMessage))


def parse_quick(raw: str | bytes | None, max_message: int) -> QuickClientMessage:
    """One quick-match message, checked; :class:`ProtocolError` saying what is wrong."""
    if raw is None or isinstance(raw, bytes):
        raise ProtocolError("send JSON text", "bad_json")
    if len(raw.encode("utf-8", "replace")) > max_message:
        raise ProtocolError(f"a message is at most {max_message} bytes", "too_large")
    data = decode_json(raw)
    if not isinstance(data, dict) or data.get("type") not in QUICK_TYPES:
        kind = data.get("type") if isinstance(data, dict) else None
        raise ProtocolError(f"unknown message type {kind!r:.40}; expected one of: {', '.join(QUICK_TYPES)}",
                            "unknown_type")
    if data["type"] == "quick" and isinstance(data.get("preset"), str):
        data["preset"] = preset_name(data["preset"])  # an old name (RENAMED) asks for its present one
    if data["type"] == "quick" and data.get("preset", "standard") not in (*PRESETS, ANY):
        raise ProtocolError(f"unknown preset {data.get('preset')!r:.40}; choose one of: "
                            f"{', '.join((*PRESETS, ANY))}", "bad_message")
    try:
        return typing.cast(QuickClientMessage, msgspec.convert(data, QuickClientMessage))
    except msgspec.ValidationError as e:
        raise ProtocolError(f"'{data['type']}': {str(e).replace('`', '')}", "bad_message") from None


class QuickSession:
    """A quick-match connection from ``address``, served by :meth:`run`; ``link`` makes a
    seat's invite link."""

    def __init__(self, ws: Socket, matchmaker: Matchmaker, guard: AddressGuard, address: str,
                 link: typing.Callable[[str, int, str], str], session: str | None = None) -> None:
        self.ws = ws
        self.session = session
        """The secret of the session cookie the connection came with (a profile signed in with a
        passkey), used when a request names no key."""
        self.mm = matchmaker
        self.guard = guard
        self.address = address
        self.link = link
        self.conn_id = secrets.token_hex(8)
        self.player: PlayerRow | None = None
        self.seated = asyncio.Event()
        self.last_waiting: int | None = None

    @property
    def queued(self) -> bool:
        return self.player is not None

    async def send(self, text: str) -> None:
        await self.ws.send_text(text)

    async def run(self) -> None:
        """Serve the connection until it closes."""
        await self.ws.accept()
        counted = False
        try:
            self.guard.connect(self.address)
            counted = True
            await self._serve()
        except Refused as e:
            with contextlib.suppress(Exception):
                await self.send(error_message(str(e), e.code))
                await self.ws.close(e.close_code or 1008, e.reason)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            if counted:
                self.guard.disconnect(self.address)
            if self.player is not None:  # gone: not seatable, the place kept a while
                self.mm.waiters.pop(self.player.id, None)
                with contextlib.suppress(Exception):
                    await self.mm.queue.heartbeat(self.player.id, self.conn_id, time.time() - FRESH - 1)

    async def _serve(self) -> None:
        """Answer the messages; between them, every :data:`BEAT` seconds or when seated here,
        keep the place (:meth:`_beat`). One read waits at a time, never dropped."""
        receive: asyncio.Future[Any] | None = None
        try:
            while True:
                if receive is None:
                    receive = asyncio.ensure_future(self.ws.receive())
                seated = asyncio.ensure_future(self.seated.wait())
                done, _ = await asyncio.wait({receive, seated}, timeout=BEAT, return_when=asyncio.FIRST_COMPLETED)
                seated.cancel()
                if receive not in done:
                    with contextlib.suppress(StoreUnavailable):  # the place is kept; next beat
                        await self._beat()
                    continue
                received, receive = receive.result(), None
                if received["type"] == "websocket.disconnect":
                    return
                self.guard.hit("messages", self.address)
                try:
                    await self._handle(parse_quick(received.get("text", received.get("bytes")),
                                                   self.guard.limits.max_message))
                except ProtocolError as e:
                    await self.send(error_message(str(e), e.code))
                except StoreUnavailable:
                    await self.send(error_message(UNAVAILABLE, "unavailable"))
        finally:
            if receive is not None:
                receive.cancel()
                with contextlib.suppress(BaseException):
                    await receive

    async def _handle(self, message: QuickClientMessage) -> None:
        if isinstance(message, Ping):
            await self.send(encode(Pong()))
        elif isinstance(message, QuickLeave):
            await self._leave()
        elif isinstance(message, QuickRequest):
            await self._join(message)

    async def _join(self, request: QuickRequest) -> None:
        """Queue the profile (or refuse, changing nothing)."""
        if self.queued:
            raise ProtocolError("you are in the queue already: leave it first to ask for another game", "in_queue")
        store = self.mm.manager.store
        try:
            player = await optional_player(store, None if request.key is None else f"Bearer {request.key}", self.session)
        except Banned:
            raise  # (an error, and the connection closed)
        except Refused as e:
            raise ProtocolError(str(e), "bad_key") from None
        if player is None:
            raise ProtocolError("the quick match needs your player profile: its key, or a passkey's sign-in", "bad_key")
        if await is_banned(store, player.id):
            raise ProtocolError("this profile may not play with strangers", "banned")
        untold = await self.mm.queue.row(player.id)
        if untold is not None and untold.table_id is not None:  # seated while gone: told now
            self.player = player
            await self._tell(untold)
            return
        held = (await self.mm.queue.quick_seats([player.id])).get(player.id)
        if held is not None and untold is None:  # (with a place waiting, the matchmaker tells its seat)
            raise ProtocolError(f"you play at the quick table {held.table_id} already: finish that game first",
                                "at_table")
        now = time.time()
        entry = QueueRow(player.id, player.name, request.preset, request.rated, player.mu,
                         request.fill_after, now, now, self.conn_id)
        async with self.mm.lock:
            row = await self.mm.queue.join(entry)
        self.player = player
        self.mm.waiters[player.id] = self.seated
        if row.table_id is not None:
            await self._tell(row)
            return
        await self._queued(row)

    async def _queued(self, row: QueueRow) -> None:
        waiting = self._waiting(row)
        self.last_waiting = waiting
        await self.send(encode(Queued(preset=row.preset, rated=row.rated, fill_after=int(row.fill_after),
                                      waited=round(max(0.0, time.time() - row.queued), 1), waiting=waiting)))

    def _waiting(self, row: QueueRow) -> int:
        """People in the queue who could share the player's table (the player too)."""
        counts = self.mm.waiting
        if row.preset == ANY:
            return max(1, sum(counts.values()))
        return max(1, counts[preset_name(row.preset)] + counts[ANY])

    async def _beat(self) -> None:
        """Keep the place fresh; tell the player what changed (seated, replaced, more people)."""
        if self.player is None:
            return
        row = await self.mm.queue.heartbeat(self.player.id, self.conn_id, time.time())
        if row is None or row.conn != self.conn_id:
            self._forget()
            await self.send(encode(Left(reason="replaced")))
        elif row.table_id is not None:
            await self._tell(row)
        elif self._waiting(row) != self.last_waiting:
            await self._queued(row)

    async def _leave(self) -> None:
        if self.player is None:
            await self.send(encode(Left(reason="asked")))
            return
        async with self.mm.lock:
            row = await self.mm.queue.leave(self.player.id, self.conn_id)
        if row is not None and row.table_id is not None:
            await self._tell(row)  # seated first: the table is theirs
            return
        self._forget()
        await self.send(encode(Left(reason="asked" if row is None else "replaced")))

    def _forget(self) -> None:
        if self.player is not None:
            self.mm.waiters.pop(self.player.id, None)
        self.player = None
        self.seated.clear()

    async def _tell(self, row: QueueRow) -> None:
        """Tell the player where they sit; the place in the queue goes."""
        assert row.table_id is not None and row.seat is not None and row.token is not None
        bots = row.bots or 0
        preset = preset_name(row.seated_preset or row.preset)
        if row.took_seat:
            words = (f"you take a bot's seat at a game of {PRESETS[preset].label} that has just started "
                     "(the seat's score stays its own)")
            words += f"; {bots} bot{'s' if bots != 1 else ''} still play" if bots else ""
        else:
            words = f"your table of {PRESETS[preset].label} is ready"
            words += f"; {bots} bot{'s' if bots != 1 else ''} took the empty seats" if bots else ""
        await self.send(encode(Seated(table=row.table_id, seat=row.seat, token=row.token,
                                      link=self.link(row.table_id, row.seat, row.token), preset=preset, bots=bots,
                                      message=words)))
        await self.mm.queue.told(row.player_id, row.table_id)
        self._forget()
