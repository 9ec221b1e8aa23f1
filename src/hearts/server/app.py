"""The web table's ASGI app (Starlette): the HTTP lobby API, static client, card images, the
WebSocket endpoint for play, health and metrics; and :func:`serve`, which runs it.

HTTP::

    GET  /                         the client (lobby and table, one page)
    GET  /t/{id}                   the same page, opened on a table (invite: /t/{id}#seat=2&token=…;
                                   watch as a spectator: /t/{id}#watch)
    GET  /me, /games, /leaderboard, /replay/{id}
                                   the same page, opened on your profile (import one:
                                   /me#import=<key>), your games, the leaderboard, or the replay of
                                   a finished game (/replay/{id}?seat=S&review=1: with seat S's review)
    GET  /static/…                 the client's files: ``index.html`` loads ``app.js``, an ES
                                   module that imports the others (served as ``text/javascript``:
                                   a browser refuses a module script of any other type), and
                                   ``style.css``
    GET  /cards/{QS}.svg           a card face drawn by the package (/cards/back.svg: the back)
    GET  /api/config               presets, the rule options' specs (Rules.options()), bot levels,
                                   the invite links' base and the limits a form needs
    POST /api/tables               create a table (protocol.TableRequest) →
                                   {id, seats: [{seat, kind, name, token?, link?}], watch?,
                                   creator_key}: the key that frees a seat (only its hash is kept)
    GET  /api/tables               the unfinished tables listed in the lobby (a free seat first)
    GET  /api/tables/{id}          a table's public facts
    POST /api/tables/{id}/join     {seat?, name?} (protocol.JoinRequest) → {seat, token, link}
    POST /api/tables/{id}/claim    {token} → {seat}: link the seat of this token to your profile
    POST /api/tables/{id}/seats/{seat}/invite
                                   {key} (protocol.InviteRequest: the creator key) → {seat, token,
                                   link}: the table's creator frees a person's seat: a new invite
                                   link, the old one's connections closed (403: a wrong key)
    GET  /api/tables/{id}/replay   a finished game step by step (players.replay_steps: every hand,
                                   the trick, points, each round's scores); 403 before it is over (R7)
    POST /api/players              {name} → {id, name, key}: a new player profile (no password: keep
                                   the key; only its hash is stored)
    GET  /api/me                   your profile {id, name, rating: {mu, sigma, rating, games}}
    PATCH /api/me                  {name} → your profile, renamed
    GET  /api/me/games             {games: [...]}: every table you sat at, newest first
    GET  /api/leaderboard          {players: [...], me}: rated players and the bots' fixed anchors, by
                                   conservative rating (mu − 3σ)
    GET  /api/tables/{id}/record   the game record (version 2: rules, seats with names and bot specs,
                                   seed, deals, actions), once the game is over (R7: deals are
                                   secret before)
    POST /api/tables/{id}/review   {seat} → {seat, status, done, total}: review that seat's decisions
                                   in the background (:mod:`hearts.server.reviews`), once the game
                                   is over (409 before: R7)
    GET  /api/tables/{id}/review?seat=S  → {seat, status: none|queued|running|done|failed, done,
                                   total, review?}: its progress, and the review once done
    GET  /healthz                  {ok, tables, connections, database}: 200, or 503 when the
                                   database does not answer (tables and connections: this
                                   process's)
    GET  /metrics                  Prometheus metrics (:mod:`hearts.server.metrics`)
    WS   /ws/{id}                  play, or watch (:mod:`hearts.server.protocol`, :mod:`.session`)

Player profiles (:mod:`hearts.server.players`): a request acts as a profile with
``Authorization: Bearer <key>`` — needed by ``/api/me`` and a claim, optional when creating or
joining a table (the seat is then the profile's; a ``rated`` table, :mod:`.ratings`, needs it);
a missing or unknown key is a 401.

Every request is held to the server's :class:`~hearts.server.limits.Limits`: a body is read
only up to ``max_body`` bytes (413 beyond), a ``POST`` must be JSON (415), JSON is read by
:func:`~hearts.server.protocol.decode_json`, and tables and joins count against the address's
rates (429 with ``Retry-After``). Every refusal is a 4xx (or 503) with ``{"error": "..."}``.
Every response carries :data:`SECURITY_HEADERS`. Invite links are made from ``public_url``,
never from the request's ``Host``.

:func:`serve` runs one server process on SQLite, or on PostgreSQL as many as asked
(``workers``: processes sharing the listening socket, started and restarted by uvicorn's
supervisor; more on other machines, pointed at the same database) and a bot worker
(:mod:`hearts.server.botworker`) beside them. Any process serves any table.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import ipaddress
import logging
import mimetypes
import os
import secrets
import socket
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from hearts import fast
from hearts.bots.registry import LEVELS
from hearts.errors import HeartsError
from hearts.record import game_to_dict
from hearts.rules import PRESETS, Rules
from hearts.server import logs
from hearts.server.botpool import watch_parent
from hearts.server.botworker import BotWorkerProcess, WorkerOptions
from hearts.server.cardsvg import back_svg, card_svg
from hearts.server.limits import DEFAULT_LIMITS, AddressGuard, Limits, RateLimited, Refused, address_key
from hearts.server.logs import fields
from hearts.server.metrics import CONTENT_TYPE, Metrics
from hearts.server.outage import is_outage
from hearts.server.persistence import hash_token
from hearts.server.players import (
    ClaimRequest,
    NameRequest,
    Outcomes,
    Unauthorized,
    authenticate,
    create_player,
    for_player,
    my_games,
    optional_player,
    profile_dict,
    rating_dict,
    replay_steps,
)
from hearts.server.protocol import STAND_IN, InviteRequest, JoinRequest, TableRequest, decode_json
from hearts.server.ratings import anchors, settle_pending
from hearts.server.reviews import DEFAULT_BUDGET, ReviewRunner
from hearts.server.reviews import ask as ask_review
from hearts.server.reviews import status as review_status
from hearts.server.session import Session
from hearts.server.storage import (
    SeatConflict,
    StoreError,
    StoreUnavailable,
    describe_url,
    is_postgres,
    open_storage,
)
from hearts.server.tables import RETRY_AFTER_OUTAGE, TABLE_ID, UNAVAILABLE, Manager, Table, TableError

log = logging.getLogger("hearts.server")

# The client's ES modules need a JavaScript type, whatever the system's table says (a Windows
# registry may map .js to text/plain); StaticFiles asks mimetypes.
mimetypes.add_type("text/javascript", ".js")

SECURITY_HEADERS: Final = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}
"""Headers on every HTTP response: scripts, styles and images from this server only (no inline
code), no framing, no content sniffing, no referrer (an invite link is a secret)."""

DEFAULT_PUBLIC_URL: Final = "http://127.0.0.1:8000"


def create_app(
    db: str | None = None,
    *,
    public_url: str = DEFAULT_PUBLIC_URL,
    bot_delay: float = 0.7,
    bot_workers: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
    review_budget: int = DEFAULT_BUDGET,
) -> Starlette:
    """The app. ``db``: ``sqlite:///PATH`` or a path (default: the user's data directory), or
    ``postgresql://USER@HOST:PORT/DBNAME``, opened when the app starts (in its event loop) and
    closed when it stops; ``public_url``: the base of invite links
    (``https://hearts.example``); ``bot_delay``: the pause before each bot move (seconds);
    ``bot_workers``: processes the bots think in on SQLite (0: threads; default: one per core,
    at most four) — on PostgreSQL, bots are jobs for bot workers; ``review_budget``: sampled
    deals per decision of the game reviews asked for (computed by this process on SQLite, by
    the bot workers on PostgreSQL)."""
    public_url = check_public_url(public_url)
    if isinstance(review_budget, bool) or not isinstance(review_budget, int) or review_budget < 4:
        raise ValueError(f"the review budget is a whole number of sampled deals >= 4, not {review_budget!r}")
    guard = AddressGuard(limits)
    metrics = Metrics()
    state: dict[str, Manager] = {}
    outcomes = Outcomes()
    replays: dict[str, dict[str, Any]] = {}
    """The replays of finished games this process made (the newest 64: they cannot change)."""
    reviewer: list[ReviewRunner] = []
    """The review runner of this process (SQLite: the server computes the reviews itself)."""

    def manager() -> Manager:
        return state["manager"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = await open_storage(db)
        try:
            m = state["manager"] = Manager(store, bot_delay, bot_workers, limits=limits, metrics=metrics)
            metrics.tables.set_function(lambda: len(m.unfinished()))
            metrics.connections.set_function(lambda: guard.connections)
            pool_stats = getattr(store, "pool_stats", None)
            if pool_stats is not None:  # PostgreSQL's connection pool
                metrics.watch_pool(pool_stats)
            restored = await m.start()
            log.info("started", extra=fields(tables_restored=restored, public_url=public_url, database=store.name))
            try:
                await settle_pending(store)  # rated games whose process stopped before rating them
            except StoreError:
                log.exception("the rated games left unrated could not be looked for")
            reviews: asyncio.Task[None] | None = None
            if store.jobs is None:  # SQLite: no bot workers, this process runs the reviews
                reviewer.append(ReviewRunner(store))
                reviews = asyncio.get_running_loop().create_task(reviewer[0].run())
            try:
                yield
            finally:
                if reviews is not None:
                    reviews.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await reviews
                await m.shutdown()
        finally:
            await store.close()

    static = resources.files("hearts.server") / "static"

    def api(data: Any, status: int = 200) -> Response:
        """A JSON answer of the API (never cached: it may hold a seat's token)."""
        return JSONResponse(data, status, headers={"Cache-Control": "no-store"})

    def link(table_id: str, seat: int, token: str) -> str:
        return f"{public_url}/t/{table_id}#seat={seat}&token={token}"

    async def find(request: Request) -> Table:
        table = await manager().get(request.path_params["table_id"])
        if table is None:
            raise TableError("there is no such table", 404, "no_table")
        return table

    async def page(request: Request) -> Response:
        return HTMLResponse(
            (static / "index.html").read_text(encoding="utf-8"), headers={"Cache-Control": "no-cache"}
        )

    async def card(request: Request) -> Response:
        code = request.path_params["code"]
        try:
            svg = back_svg() if code == "back" else card_svg(code)
        except HeartsError:
            raise TableError(f"no card {code!r:.20}", 404, "no_card") from None
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})

    async def config(request: Request) -> Response:
        return api(
            {
                "presets": {name: Rules.preset(name).to_dict() for name in PRESETS},
                "options": [spec.to_dict() for spec in Rules.options()],
                "levels": list(LEVELS),
                "stand_in": STAND_IN,
                "max_turn_timer": limits.max_turn_timer,
                "max_name": limits.max_name,
                "max_chat": limits.max_chat,
                "public_url": public_url,
                "local_only": is_loopback(public_url),
            }
        )

    async def create(request: Request) -> Response:
        address = address_key(request.client.host if request.client else None)
        with guard.counting("tables", address):  # a refused request uses up none of the rate
            table_request = TableRequest.parse(await read_json(request, limits), limits)
            player = await optional_player(manager().store, request.headers.get("authorization"))
            table_request, mine = for_player(table_request, player)
            creator_key = secrets.token_urlsafe(18)
            table, tokens = await manager().create(table_request, address, hash_token(creator_key))
        if player is not None and mine is not None:
            await manager().store.link_seat(table.id, mine, player.id)
        seats = []
        for s, info in enumerate(table.seats):
            entry: dict[str, Any] = {"seat": s, "kind": info.kind, "name": info.name, "bot": info.bot}
            if s in tokens:
                entry["token"] = tokens[s]
                entry["link"] = link(table.id, s, tokens[s])
            seats.append(entry)
        out: dict[str, Any] = {
            "id": table.id, "seats": seats, "rules": table.rules.to_dict(), "spectators": table.spectators,
            "listed": table.listed, "turn_timer": table.turn_timer, "stand_in": table.stand_in,
            "rated": table_request.rated, "creator_key": creator_key,
        }
        if table.spectators:
            out["watch"] = f"{public_url}/t/{table.id}#watch"
        return api(out, 201)

    async def list_tables(request: Request) -> Response:
        return api({"tables": await manager().open_tables()})

    async def show(request: Request) -> Response:
        return api(await (await find(request)).facts())

    async def join(request: Request) -> Response:
        guard.hit("joins", address_key(request.client.host if request.client else None))
        table = await find(request)
        join_request = JoinRequest.parse(await read_json(request, limits), limits)
        store = manager().store
        player = await optional_player(store, request.headers.get("authorization"))
        row = await store.table(table.id)
        if row is not None and row.config.get("rated"):
            if player is None:
                raise Unauthorized("this table is rated: join it with your player profile (make one first)")
            if any(s.player_id == player.id for s in await store.seats(table.id)):
                raise TableError("you already sit at this rated table", 409, "seated")
        if player is not None and join_request.name is None:
            join_request = dataclasses.replace(join_request, name=player.name)
        seat, token = await manager().join(table.id, join_request)
        if player is not None:
            await store.link_seat(table.id, seat, player.id)
        return api({"seat": seat, "token": token, "link": link(table.id, seat, token)})

    async def claim(request: Request) -> Response:
        table = await find(request)
        store = manager().store
        player = await authenticate(store, request.headers.get("authorization"))
        claimed = ClaimRequest.parse(await read_json(request, limits))
        seat = await table.find_seat(claimed.token)
        if seat is None:
            raise TableError("this token opens no seat at this table", 403, "bad_token")
        try:
            await store.link_seat(table.id, seat, player.id)
        except SeatConflict:
            raise TableError(f"seat {seat + 1} is another player's", 409, "seated") from None
        return api({"seat": seat, "player": player.id})

    async def invite(request: Request) -> Response:
        guard.hit("joins", address_key(request.client.host if request.client else None))
        key = InviteRequest.parse(await read_json(request, limits)).key
        table_id, seat = request.path_params["table_id"], request.path_params["seat"]
        token = await manager().new_invite(table_id, seat, key)
        return api({"seat": seat, "token": token, "link": link(table_id, seat, token)})

    async def replay(request: Request) -> Response:
        table_id = request.path_params["table_id"]
        kept = replays.get(table_id)
        if kept is None:
            store = manager().store
            row = await store.table(table_id) if TABLE_ID.fullmatch(table_id) else None
            if row is None:
                raise TableError("there is no such table", 404, "no_table")
            if not row.finished:
                raise TableError("the replay is shown when the game is over (R7)", 403, "not_over")
            kept = replay_steps(table_id, row, await store.seats(table_id), await store.actions(table_id))
            replays[table_id] = kept
            while len(replays) > 64:
                replays.pop(next(iter(replays)))
        return api(kept)

    async def new_player(request: Request) -> Response:
        guard.hit("joins", address_key(request.client.host if request.client else None))
        name = NameRequest.parse(await read_json(request, limits), limits).name
        player, key = await create_player(manager().store, name)
        log.info("player created", extra=fields(player=player.id))
        return api({"id": player.id, "name": player.name, "key": key}, 201)

    async def me(request: Request) -> Response:
        store = manager().store
        player = await authenticate(store, request.headers.get("authorization"))
        if request.method == "PATCH":
            name = NameRequest.parse(await read_json(request, limits), limits).name
            await store.rename_player(player.id, name)
            player = dataclasses.replace(player, name=name)
        return api(profile_dict(player))

    async def games(request: Request) -> Response:
        store = manager().store
        player = await authenticate(store, request.headers.get("authorization"))
        return api({"games": await my_games(store, player.id, outcomes)})

    async def leaderboard(request: Request) -> Response:
        store = manager().store
        player = await optional_player(store, request.headers.get("authorization"))
        rows = [
            {"name": p.name, "bot": None, **rating_dict(p.mu, p.sigma, p.games),
             "you": player is not None and p.id == player.id}
            for p in await store.leaderboard()
        ]
        rows += [{**{k: v for k, v in a.items() if k != "id"}, "you": False} for a in anchors()]
        rows.sort(key=lambda r: -r["rating"])
        return api({"players": rows, "me": None if player is None else profile_dict(player)})

    async def record(request: Request) -> Response:
        table = await find(request)
        return api(game_to_dict(await table.finished_record()))

    async def ask_for_review(request: Request) -> Response:
        address = address_key(request.client.host if request.client else None)
        body = await read_json(request, limits)
        out, queued = await ask_review(
            manager().store, request.path_params["table_id"], body, budget=review_budget, guard=guard,
            address=address, limits=limits,
        )
        if queued and reviewer:
            reviewer[0].wake()
        return api(out, 202 if queued else 200)

    async def review(request: Request) -> Response:
        return api(await review_status(manager().store, request.path_params["table_id"],
                                       request.query_params.get("seat")))

    async def healthz(request: Request) -> Response:
        m = manager()
        try:
            await m.store.ping()
            database = True
        except StoreUnavailable as e:
            log.warning("the database does not answer", extra=fields(error=str(e)[:300]))
            database = False
        return api(
            {"ok": database, "tables": len(m.unfinished()), "connections": guard.connections, "database": database},
            200 if database else 503,
        )

    async def prometheus(request: Request) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    async def play(ws: WebSocket) -> None:
        await Session(ws, manager(), guard).run()

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        metrics.refused.labels(exc.code).inc()
        response = api({"error": str(exc)}, exc.status)
        if isinstance(exc, Unauthorized):
            response.headers["WWW-Authenticate"] = 'Bearer realm="pyhearts player profile"'
        if isinstance(exc, RateLimited) and exc.retry_after is not None:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)

    async def internal_error(request: Request, exc: Exception) -> Response:
        if is_outage(exc):
            metrics.database_errors.inc()
            return JSONResponse({"error": UNAVAILABLE}, 503, headers={"Retry-After": str(RETRY_AFTER_OUTAGE)})
        metrics.internal_errors.inc()
        return JSONResponse({"error": "internal error"}, 500)

    routes = [
        Route("/", page),
        Route("/t/{table_id}", page),
        Route("/me", page),
        Route("/games", page),
        Route("/leaderboard", page),
        Route("/replay/{table_id}", page),
        Route("/cards/{code}.svg", card),
        Route("/api/config", config),
        Route("/api/tables", create, methods=["POST"]),
        Route("/api/tables", list_tables, methods=["GET"]),
        Route("/api/tables/{table_id}", show),
        Route("/api/tables/{table_id}/join", join, methods=["POST"]),
        Route("/api/tables/{table_id}/record", record),
        Route("/api/tables/{table_id}/replay", replay),
        Route("/api/tables/{table_id}/claim", claim, methods=["POST"]),
        Route("/api/tables/{table_id}/seats/{seat:int}/invite", invite, methods=["POST"]),
        Route("/api/players", new_player, methods=["POST"]),
        Route("/api/me", me, methods=["GET", "PATCH"]),
        Route("/api/me/games", games),
        Route("/api/leaderboard", leaderboard),
        Route("/api/tables/{table_id}/review", ask_for_review, methods=["POST"]),
        Route("/api/tables/{table_id}/review", review, methods=["GET"]),
        Route("/healthz", healthz),
        Route("/metrics", prometheus),
        WebSocketRoute("/ws/{table_id}", play),
        Mount("/static", app=StaticFiles(packages=[("hearts.server", "static")]), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={Refused: refused, HTTPException: http_error, 500: internal_error},
    )
    app.add_middleware(SecurityHeaders)
    return app


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


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


# --- running the server -------------------------------------------------------------------


class ServeError(ValueError):
    """The server cannot start as asked (its address cannot be listened on, its database cannot
    be opened, an option is wrong); the message is one line that says which and why."""


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` and listening (``port`` 0: a free one), or
    :class:`ServeError` (a busy port, an address not this machine's)."""
    where = url_of(host, port)
    if not 0 <= port <= 65535:
        raise ServeError(f"cannot listen on {where}: a port is 0 to 65535")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        raise ServeError(f"cannot listen on {where}: {e.strerror or e}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        raise ServeError(f"cannot listen on {where}: {e.strerror or e}") from None
    return sock


def url_of(host: str, port: int) -> str:
    """``http://host:port`` (an IPv6 address in brackets; a wildcard address: this machine's name)."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def check_database(db: str | None) -> str:
    """Open the database ``db`` (creating or migrating its schema), see that it answers, and
    close it: its name (a path, or a URL without its password); or :class:`ServeError`."""

    async def check() -> str:
        store = await open_storage(db)
        try:
            await store.ping()
            return store.name
        finally:
            await store.close()

    try:
        return asyncio.run(check())
    except (OSError, sqlite3.Error, StoreError, ValueError, ImportError) as e:
        reason = " ".join(str(e).split())
        try:
            shown = describe_url(db) if is_postgres(db) else db or "(the default)"  # (never a password)
        except (ImportError, ValueError):
            shown = "(an unreadable URL)"
        raise ServeError(f"cannot open the database {shown}: {reason}") from None


@dataclass(frozen=True)
class AppFactory:
    """Makes the app of one server process in that process (uvicorn calls it: ``factory``);
    sent to each worker process (pickled) when there are several."""

    db: str | None
    public_url: str
    bot_delay: float
    bot_workers: int | None
    limits: Limits
    log_level: str
    parent: int | None = None
    """The supervisor of a worker process: the worker exits when it is gone (SIGKILL)."""
    review_budget: int = DEFAULT_BUDGET
    """Sampled deals per decision of the game reviews asked for."""

    def __call__(self) -> Starlette:
        logs.configure(self.log_level)
        if self.parent is not None:
            watch_parent(self.parent)
        # Every move builds short-lived views and messages: collect the young generation less
        # often, and keep the import-time objects out of the collector's way (shorter pauses).
        # A full collection walks every table held in memory (hundreds of milliseconds with a
        # thousand of them): leave it for rare occasions — reference counting frees the
        # server's garbage, which holds almost no cycles.
        gc.freeze()
        gc.set_threshold(50_000, 50, 1000)
        return create_app(
            self.db, public_url=self.public_url, bot_delay=self.bot_delay, bot_workers=self.bot_workers,
            limits=self.limits, review_budget=self.review_budget,
        )


DEFAULT_BOT_JOBS: Final = 16
"""Bot jobs the service's own bot worker holds at once (PostgreSQL)."""


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    bot_delay: float = 0.7,
    bot_workers: int | None = None,
    *,
    public_url: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    log_level: str = "info",
    forwarded_allow_ips: str | None = None,
    workers: int = 1,
    bot_jobs: int = DEFAULT_BOT_JOBS,
    review_budget: int = DEFAULT_BUDGET,
) -> None:
    """Run the server (``hearts serve``) until interrupted: listen on ``host``:``port``, open
    the database ``db``, then print the address; JSON logs go to standard error from
    ``log_level`` up.

    ``public_url`` is the base of invite links (default: the address listened on);
    ``limits``: the server's :class:`~hearts.server.limits.Limits` (each process's);
    ``forwarded_allow_ips``: the proxies (comma-separated addresses and networks, ``*`` for
    any) whose ``X-Forwarded-For`` names the client (default: none, not even 127.0.0.1). A
    connection is closed when it sends no complete request in ``limits.request_timeout``
    seconds, or opens beyond ``limits.tcp_connections_per_address`` (:mod:`.edge`).

    On PostgreSQL: ``workers`` server processes share the socket (a dead one is started
    again), and a bot worker process makes the bots' moves, ``bot_jobs`` at once, thinking in
    ``bot_workers`` processes (``bot_jobs=0``: none here — run ``hearts bot-worker``
    elsewhere). SQLite is served by one process, whose bots think in ``bot_workers``
    processes. ``review_budget``: sampled deals per decision of the game reviews asked for
    (:mod:`hearts.server.reviews`; fewer: faster and less precise). Raises :class:`ServeError`
    (one line) when it cannot start.
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from hearts.server.edge import TrustedProxies, protocol_factory

    try:
        logs.configure(log_level)
        public = check_public_url(public_url) if public_url is not None else None
        proxies = TrustedProxies.parse(forwarded_allow_ips)
    except ValueError as e:
        raise ServeError(str(e)) from None
    if workers < 1:
        raise ServeError(f"--workers must be 1 or more, not {workers}")
    if bot_jobs < 0:
        raise ServeError(f"--bot-jobs must be 0 or more, not {bot_jobs}")
    if review_budget < 4:
        raise ServeError(f"--review-budget must be 4 sampled deals or more, not {review_budget}")
    if workers > 1 and not is_postgres(db):
        raise ServeError(f"--workers {workers} needs PostgreSQL (--db postgresql://…): a SQLite database is "
                         "served by one process")
    sock = listen(host, port)
    bots: BotWorkerProcess | None = None
    try:
        name = check_database(db)
        # The bots' compiled kernel: compiled (the first time) and cached now, before anyone plays.
        fast.prepare(lambda line: print(line, flush=True))
        bound = url_of(host, sock.getsockname()[1])
        factory = AppFactory(db, public or bound, bot_delay, bot_workers, limits, log_level,
                             parent=os.getpid() if workers > 1 else None, review_budget=review_budget)
        print(f"pyhearts web table on {bound}/  (database: {name})", flush=True)
        if public is not None:
            print(f"invite links: {public}/", flush=True)
        elif is_loopback(bound):
            print("only this machine can connect: --host 0.0.0.0 lets others in (--public-url for the links)", flush=True)
        config = uvicorn.Config(
            factory,
            factory=True,
            workers=workers,
            ws_max_size=max(64 * 1024, limits.max_message * 4),
            log_config=None,
            access_log=False,
            limit_concurrency=limits.max_connections,
            http=protocol_factory(limits, proxies),
            proxy_headers=bool(proxies.text),
            forwarded_allow_ips=proxies.text or None,
        )
        if is_postgres(db) and bot_jobs > 0:
            bots = BotWorkerProcess(WorkerOptions(db, jobs=bot_jobs, processes=bot_workers, log_level=log_level))
            bots.start()
        if workers > 1:
            Multiprocess(config, sockets=[sock]).run()
            return
        server = uvicorn.Server(config)
        server.run(sockets=[sock])
        if not server.started:
            raise ServeError("the server stopped while starting (see the log above)")
    finally:
        if bots is not None:
            bots.stop()
        sock.close()
