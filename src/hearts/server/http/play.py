"""Play, or watch, over a WebSocket (:mod:`hearts.server.protocol`, :mod:`hearts.server.session`)::

    WS   /ws/{id}                  one client of table {id}: a seat's, or a spectator's
"""

from __future__ import annotations

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket

from hearts.server.http.services import services
from hearts.server.session import Session


async def play(ws: WebSocket) -> None:
    s = services(ws)
    await Session(ws, s.manager, s.guard).run()


ROUTES: list[BaseRoute] = [WebSocketRoute("/ws/{table_id}", play)]
