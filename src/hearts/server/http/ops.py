"""Health and metrics, for the operators and their monitoring::

    GET  /healthz                  {ok, tables, connections, database}: 200, or 503 when the
                                   database does not answer (tables and connections: this
                                   process's)
    GET  /metrics                  Prometheus metrics (:mod:`hearts.server.metrics`)
"""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hearts.server.http.common import api
from hearts.server.http.services import services
from hearts.server.logs import fields
from hearts.server.metrics import CONTENT_TYPE
from hearts.server.storage import StoreUnavailable

log = logging.getLogger("hearts.server")


async def healthz(request: Request) -> Response:
    s = services(request)
    try:
        await s.store.ping()
        database = True
    except StoreUnavailable as e:
        log.warning("the database does not answer", extra=fields(error=str(e)[:300]))
        database = False
    return api(
        {"ok": database, "tables": len(s.manager.unfinished()), "connections": s.guard.connections,
         "database": database},
        200 if database else 503,
    )


async def prometheus(request: Request) -> Response:
    return Response(services(request).metrics.render(), media_type=CONTENT_TYPE)


ROUTES: list[BaseRoute] = [
    Route("/healthz", healthz),
    Route("/metrics", prometheus),
]
