"""Health and metrics, for the operators and their monitoring::

    GET  /healthz                  {ok, tables, connections, database}: 200, or 503 when the
                                   database does not answer (tables and connections: this
                                   process's)
    GET  /metrics                  Prometheus metrics (:mod:`hearts.server.metrics`): private — to
                                   this machine (a loopback client, as the server sees it: behind
                                   a trusted proxy, the client its X-Forwarded-For names), or with
                                   ``Authorization: Bearer TOKEN``, the token the server was
                                   started with (``hearts serve --metrics-token``); else 403
"""

from __future__ import annotations

import ipaddress
import secrets

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hearts.server.http.common import api
from hearts.server.http.services import services
from hearts.server.limits import Refused
from hearts.server.metrics import CONTENT_TYPE
from hearts.server.storage import StoreUnavailable


async def healthz(request: Request) -> Response:
    s = services(request)
    try:
        await s.store.ping()
        database = True
    except StoreUnavailable:  # (no line a request: the process's tasks say once that it is away)
        database = False
    return api(
        {"ok": database, "tables": len(s.manager.unfinished()), "connections": s.guard.connections,
         "database": database},
        200 if database else 503,
    )


async def prometheus(request: Request) -> Response:
    s = services(request)
    if not may_scrape(request, s.metrics_token):
        raise Refused(
            "the metrics are private: read them from this machine, or send 'Authorization: Bearer <the token "
            "hearts serve was given with --metrics-token>'", 403, "forbidden",
        )
    return Response(s.metrics.render(), media_type=CONTENT_TYPE)


def may_scrape(request: Request, token: str | None) -> bool:
    """Whether ``request`` may read the metrics: it comes from this machine (its client, after
    the trusted proxies' ``X-Forwarded-For``, is a loopback address), or it holds ``token``
    (``Authorization: Bearer TOKEN``, compared in constant time)."""
    host = request.client.host if request.client else ""
    try:
        if ipaddress.ip_address(host).is_loopback:
            return True
    except ValueError:
        pass
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return (token is not None and scheme.lower() == "bearer"
            and secrets.compare_digest(given.strip().encode(), token.encode()))


ROUTES: list[BaseRoute] = [
    Route("/healthz", healthz),
    Route("/metrics", prometheus),
]
