"""What the HTTP handlers share (no routes): JSON answers (:func:`api`) and request bodies
(:func:`read_json`, held to the server's limits), the client's address and profile
(:func:`credentials`), and the checks of a public URL (the base of invite links)."""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from hearts.server.limits import Limits, Refused, address_key
from hearts.server.passkeys import SESSION_COOKIE
from hearts.server.protocol import decode_json


def api(data: Any, status: int = 200) -> Response:
    """A JSON answer of the API (never cached: it may hold a seat's token)."""
    return JSONResponse(data, status, headers={"Cache-Control": "no-store"})


def client_address(connection: HTTPConnection) -> str:
    """The key the rates of a request's or a WebSocket's client are counted under
    (:func:`.limits.address_key`)."""
    return address_key(connection.client.host if connection.client else None)


def credentials(connection: HTTPConnection) -> tuple[str | None, str | None]:
    """What a request (or a WebSocket's handshake) says of its profile: its ``Authorization``
    header and its session cookie (:func:`hearts.server.players.optional_player` takes both)."""
    return connection.headers.get("authorization"), connection.cookies.get(SESSION_COOKIE)


async def read_json(request: Request, limits: Limits) -> Any:
    """A request's JSON body (``{}`` when empty), read no further than ``limits.max_body``
    bytes: a longer body is refused (413) while it arrives, before it is all read."""
    media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media != "application/json":
        raise Refused("send the request body as JSON (Content-Type: application/json)", 415, "bad_request")
    too_large = Refused(f"the request body is too large (at most {limits.max_body} bytes)", 413, "too_large")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and (len(declared) > 12 or int(declared) > limits.max_body):
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limits.max_body:
            raise too_large
    return decode_json(bytes(body), limits) if body else {}


def check_public_url(url: str) -> str:
    """``url`` as the base of invite links (``http(s)://host[:port][/path]``, without a final
    slash); :class:`ValueError` if it is not one.

    >>> check_public_url("https://hearts.example/play/")
    'https://hearts.example/play'
    >>> check_public_url("hearts.example")
    Traceback (most recent call last):
    ...
    ValueError: the public URL 'hearts.example' is not http(s)://HOST[:PORT][/PATH]
    """
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:
        valid = False
    if not valid or parts.query or parts.fragment or parts.username:
        raise ValueError(f"the public URL {url!r} is not http(s)://HOST[:PORT][/PATH]")
    return url.rstrip("/")


def is_loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine only (``localhost``, ``127.x``, ``::1``)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
