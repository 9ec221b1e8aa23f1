"""Quick match and the live lobby, over WebSockets (:mod:`hearts.server.quick`,
:mod:`hearts.server.quicksession`, :mod:`hearts.server.wire`)::

    WS   /ws/lobby/quick           join the quick-match queue (``quick``), leave it (``leave``),
                                   be told where you sit (``seated``)
    WS   /ws/lobby/live            the live lobby: ``lobby`` messages, pushed when it changes
"""

from __future__ import annotations

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket

from hearts.server.http.common import client_address, credentials
from hearts.server.http.services import services
from hearts.server.quicksession import QuickSession


async def quick(ws: WebSocket) -> None:
    """A quick-match client (any process serves any: the queue is the database's)."""
    s = services(ws)
    if s.quick is None:
        await ws.close(1013, "quick match is not served here")
        return
    await QuickSession(ws, s.quick, s.guard, client_address(ws), s.link, credentials(ws)[1]).run()


async def live(ws: WebSocket) -> None:
    """A lobby page: the lobby now, then each change (:mod:`hearts.server.lobbyfeed`)."""
    s = services(ws)
    if s.lobby is None:
        await ws.close(1013, "the live lobby is not served here")
        return
    await s.lobby.serve(ws, s.guard, client_address(ws))


ROUTES: list[BaseRoute] = [WebSocketRoute("/ws/lobby/quick", quick), WebSocketRoute("/ws/lobby/live", live)]
