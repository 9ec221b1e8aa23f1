"""The review of a finished game's decisions, one seat's (:mod:`hearts.server.reviews`)::

    POST /api/tables/{id}/review   {seat} → {seat, status, done, total}: review that seat's decisions
                                   in the background, once the game is over (409 before: R7)
    GET  /api/tables/{id}/review?seat=S  → {seat, status: none|queued|running|done|failed, done,
                                   total, review?}: its progress, and the review once done
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hearts.server.http.common import api, client_address, read_json
from hearts.server.http.services import services
from hearts.server.reviews import ask, status


async def ask_for_review(request: Request) -> Response:
    s = services(request)
    address = client_address(request)
    body = await read_json(request, s.limits)
    out, queued = await ask(
        s.store, request.path_params["table_id"], body, budget=s.review_budget, guard=s.guard,
        address=address, limits=s.limits,
    )
    if queued:
        s.manager.thinking.review_asked()
    return api(out, 202 if queued else 200)


async def review(request: Request) -> Response:
    s = services(request)
    return api(await status(s.store, request.path_params["table_id"], request.query_params.get("seat")))


ROUTES: list[BaseRoute] = [
    Route("/api/tables/{table_id}/review", ask_for_review, methods=["POST"]),
    Route("/api/tables/{table_id}/review", review, methods=["GET"]),
]
