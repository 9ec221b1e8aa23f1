"""The app's exception handlers (no routes): every refusal as ``{"error": "...", "code": "..."}`` with its
status — a :class:`~hearts.server.limits.Refused` (4xx, with ``WWW-Authenticate`` on a 401 and
``Retry-After`` on a 429), Starlette's own HTTP errors (404, 405), and an unexpected error: a
503 with ``Retry-After`` when the database is out (:class:`~hearts.server.storage.StoreUnavailable`,
or another error :func:`hearts.server.outage.is_outage` accepts), else a 500."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hearts.server.http.common import api
from hearts.server.http.services import services
from hearts.server.limits import RateLimited, Refused
from hearts.server.outage import is_outage
from hearts.server.players import Unauthorized
from hearts.server.storage import StoreUnavailable
from hearts.server.tables import RETRY_AFTER_OUTAGE, UNAVAILABLE


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    services(request).metrics.refused.labels(exc.code).inc()
    response = api({"error": str(exc), "code": exc.code}, exc.status)  # the code: for the client to say it in its language
    if isinstance(exc, Unauthorized):
        response.headers["WWW-Authenticate"] = 'Bearer realm="pyhearts player profile"'
    if isinstance(exc, RateLimited) and exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)


async def unavailable(request: Request, exc: Exception) -> Response:
    """The database is out: 503 with ``Retry-After``, counted. Handled as the error it is
    (not as a 500, which Starlette logs with its traceback): an outage logs no line per request."""
    services(request).metrics.database_errors.inc()
    return JSONResponse({"error": UNAVAILABLE}, 503, headers={"Retry-After": str(RETRY_AFTER_OUTAGE)})


async def internal_error(request: Request, exc: Exception) -> Response:
    if is_outage(exc):  # (the driver's own errors, should one not be a StoreUnavailable)
        return await unavailable(request, exc)
    services(request).metrics.internal_errors.inc()
    return JSONResponse({"error": "internal error"}, 500)


EXCEPTION_HANDLERS: dict[type[Exception] | int, Callable[[Request, Exception], Awaitable[Response]]] = {
    Refused: refused,
    HTTPException: http_error,
    StoreUnavailable: unavailable,
    500: internal_error,
}
