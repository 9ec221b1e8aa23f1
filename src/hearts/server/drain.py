"""Stopping a server process without its players noticing (SIGTERM or SIGINT, as a rolling
restart sends them): :class:`DrainingServer` is uvicorn's server with a drain before its
shutdown.

1. It stops listening: a proxy (nginx) sends the new connections to the other processes at
   once, and a client reconnecting comes to one of them.
2. It hands each table it owns to a live peer (:meth:`Services.drain
   <hearts.server.http.services.Services.drain>`, PostgreSQL): the peer loads the table, the
   lease moves to it in the table's turn, and the peer owns the table from that position on;
   the clients the other processes relayed here are served by those processes from then on, on
   the same WebSockets. At most :data:`DRAIN_WAIT` seconds: a table not handed by then is let
   go when the process stops (its lease released; a peer's sweep takes it).
3. Then uvicorn shuts down: it closes this process's WebSockets with code 1012 ("service
   restart"), the browser reconnects at once, and its table is served there already.

With no live peer (one process, or SQLite) the process stops as it did without a drain.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable
from typing import Final

import uvicorn

from hearts.server.http.services import RUNNING
from hearts.server.logs import fields

log = logging.getLogger("hearts.server")

DRAIN_WAIT: Final = 10.0
"""The most seconds a stopping process spends handing its tables to its peers."""


class DrainingServer(uvicorn.Server):
    """uvicorn's server, which calls ``listening()`` once it listens (its app started), and
    drains (see the module) when it is first asked to exit."""

    drained = False

    def __init__(self, config: uvicorn.Config, listening: Callable[[], None] = lambda: None) -> None:
        super().__init__(config)
        self.listening = listening

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.listening()

    async def on_tick(self, counter: int) -> bool:
        if self.should_exit and not self.drained and not self.force_exit:
            self.drained = True
            await self.drain()
        return await super().on_tick(counter)

    async def drain(self) -> None:
        """Stop listening, then drain the services running here (bounded by :data:`DRAIN_WAIT`)."""
        started = time.monotonic()
        for server in self.servers:
            server.close()
        handed = 0
        try:
            for services in list(RUNNING):
                handed += await asyncio.wait_for(services.drain(), max(0.0, DRAIN_WAIT - (time.monotonic() - started)))
        except (TimeoutError, asyncio.TimeoutError):
            log.warning("the tables could not all be handed to the other processes in time",
                        extra=fields(seconds=DRAIN_WAIT))
        log.info("drained", extra=fields(tables_handed=handed, seconds=round(time.monotonic() - started, 3)))
