"""The live lobby (``WS /ws/lobby/live``): the open tables, the people waiting for a quick
match by preset and the games in progress, pushed to every lobby page whenever they change.

Each process builds the lobby from the database every :data:`INTERVAL` seconds while a page
listens (:class:`LobbyFeed`), so what any process made or seated shows on every process's
pages; a page is sent the lobby when it connects, then each new one (``lobby`` messages,
:class:`~hearts.server.wire.Lobby`). It sends nothing (a message is answered with an error).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final

from starlette.websockets import WebSocketDisconnect

from hearts.server.background import Background
from hearts.server.limits import AddressGuard, Refused
from hearts.server.protocol import error_message
from hearts.server.quick import ANY, PRESETS, Matchmaker
from hearts.server.session import Socket
from hearts.server.storage import TableListing
from hearts.server.tables import Manager
from hearts.server.tables.names import seat_name
from hearts.server.wire import Lobby, LobbyTable, encode

log = logging.getLogger("hearts.server")

INTERVAL: Final = 1.0
"""Seconds between two readings of the lobby while pages listen."""


class LobbyFeed(Background):
    """The lobby of one process's pages: read while someone listens, pushed when it changes."""

    def __init__(self, manager: Manager, matchmaker: Matchmaker | None, public_url: str,
                 interval: float = INTERVAL) -> None:
        self.manager = manager
        self.matchmaker = matchmaker
        self.public_url = public_url
        self.interval = interval
        self.listeners: set[asyncio.Queue[str]] = set()
        self.last: str | None = None

    async def run(self) -> None:
        """Read the lobby every ``interval`` seconds while a page listens; push what changed."""
        while True:
            await asyncio.sleep(self.interval)
            if not self.listeners:
                self.last = None
                continue
            try:
                await self.refresh()
            except Exception:
                log.exception("the live lobby could not be read")

    async def refresh(self) -> str:
        """Read the lobby; push it to every page if it changed. Returns it."""
        text = encode(await self.build())
        if text != self.last:
            self.last = text
            for q in self.listeners:
                q.put_nowait(text)
        return text

    async def build(self) -> Lobby:
        """The lobby as it is now in the database."""
        store = self.manager.store
        listed = await store.log.listing(self.manager.limits.lobby_size)
        waiting = dict.fromkeys([*PRESETS, ANY], 0)
        if self.matchmaker is not None:
            waiting.update(self.matchmaker.waiting)
        return Lobby(tables=[self._entry(t) for t in listed], waiting=waiting,
                     playing=len(await store.log.unfinished()))

    def _entry(self, t: TableListing) -> LobbyTable:
        spectators = bool(t.config.get("spectators", True))
        return LobbyTable(
            id=t.id, names=[seat_name(s) for s in t.seats], kinds=[s.kind for s in t.seats], free=t.free,
            quick=bool(t.config.get("quick", False)), spectators_allowed=spectators,
            watch=f"{self.public_url}/t/{t.id}#watch" if spectators else "",
        )

    async def serve(self, ws: Socket, guard: AddressGuard, address: str) -> None:
        """One lobby page: the lobby now, then each change, until it goes."""
        await ws.accept()
        queue: asyncio.Queue[str] = asyncio.Queue()
        try:
            guard.connect(address)
        except Refused as e:
            await ws.send_text(error_message(str(e), e.code))
            await ws.close(e.close_code or 1013, e.reason)
            return
        try:
            await ws.send_text(self.last if self.last is not None else await self.refresh())
        except Exception:
            guard.disconnect(address)
            raise
        self.listeners.add(queue)
        writer = asyncio.get_running_loop().create_task(self._write(ws, queue))
        try:
            while (await ws.receive())["type"] != "websocket.disconnect":
                await ws.send_text(error_message("the live lobby takes no messages", "bad_message"))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.listeners.discard(queue)
            guard.disconnect(address)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer

    @staticmethod
    async def _write(ws: Socket, queue: asyncio.Queue[str]) -> None:
        with contextlib.suppress(Exception):
            while True:
                await ws.send_text(await queue.get())
