"""Play, or watch, over a WebSocket (:mod:`hearts.server.protocol`, :mod:`hearts.server.session`)::

    WS   /ws/{id}                  one client of table {id}: a seat's, or a spectator's
"""

from __future__ import annotations

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket

from hearts.server.http.common import client_address, credentials
from hearts.server.http.services import services
from hearts.server.limits import CLOSE_TRY_LATER
from hearts.server.relay import Unreachable
from hearts.server.session import Session


async def play(ws: WebSocket) -> None:
    """Serve the client here, or relay it to its table's owner (:mod:`hearts.server.relay`);
    an owner that cannot be reached has it closed with "try again later"."""
    s = services(ws)
    address = client_address(ws)
    try:
        link = await s.relays.route(ws.path_params["table_id"])
    except Unreachable as e:
        await ws.accept()
        await ws.close(CLOSE_TRY_LATER, str(e))
        return
    if link is not None:
        await s.relays.relay(ws, link, address)
        return
    await Session(ws, s.manager, s.guard, address, credentials(ws)[1]).run()


ROUTES: list[BaseRoute] = [WebSocketRoute("/ws/{table_id}", play)]
