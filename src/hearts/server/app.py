"""The web table's ASGI app (Starlette): the HTTP lobby API, static client, card images and
the WebSocket endpoint for play.

HTTP::

    GET  /                         the client (lobby and table, one page)
    GET  /t/{id}                   the same page, opened on a table (invite: /t/{id}#seat=2&token=…;
                                   watch as a spectator: /t/{id}#watch)
    GET  /cards/{QS}.svg           a card face drawn by the package (/cards/back.svg: the back)
    GET  /api/config               presets, the rule options' specs (Rules.options()), bot levels
    POST /api/tables               create a table → {id, seats: [{seat, kind, name, token?, link?}], watch?}
    GET  /api/tables               unfinished tables (those with a free seat first)
    GET  /api/tables/{id}          a table's public facts
    POST /api/tables/{id}/join     {seat?, name} → {seat, token, link}
    GET  /api/tables/{id}/record   the game record (version 2: rules, seats with names and bot specs,
                                   seed, deals, actions), once the game is over (R7: deals are
                                   secret before)
    WS   /ws/{id}                  play, or watch (see :mod:`hearts.server.protocol`)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from hearts.bots.registry import LEVELS
from hearts.errors import HeartsError
from hearts.record import game_to_dict
from hearts.rules import PRESETS, Rules
from hearts.server.cardsvg import back_svg, card_svg
from hearts.server.persistence import Store, db_path_from_url
from hearts.server.protocol import (
    MAX_MESSAGE_BYTES,
    Hello,
    Ping,
    ProtocolError,
    Watch,
    error_message,
    parse_client,
)
from hearts.server.tables import Connection, Manager, TableError

log = logging.getLogger("hearts.server")
MAX_BODY = 16 * 1024
HELLO_ATTEMPTS = 5


def create_app(db_url: str | None = None, *, bot_delay: float = 0.7, bot_workers: int | None = None) -> Starlette:
    """The app; ``db_url``: ``sqlite:///PATH`` or a path (default: the user's data directory)."""
    path = db_path_from_url(db_url)
    state: dict[str, Any] = {}

    def manager() -> Manager:
        m: Manager = state["manager"]
        return m

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(path)
        m = Manager(store, bot_delay=bot_delay, bot_workers=bot_workers)
        state["manager"] = m
        restored = m.restore_all()
        log.info("database %s: %d unfinished table(s) restored", path, restored)
        try:
            yield
        finally:
            m.shutdown()
            store.close()

    static = resources.files("hearts.server") / "static"

    async def page(request: Request) -> Response:
        return HTMLResponse(
            (static / "index.html").read_text(encoding="utf-8"), headers={"Cache-Control": "no-cache"}
        )

    async def card(request: Request) -> Response:
        code = request.path_params["code"]
        try:
            svg = back_svg() if code == "back" else card_svg(code)
        except HeartsError:
            return JSONResponse({"error": f"no card {code!r}"}, status_code=404)
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})

    async def config(request: Request) -> Response:
        return JSONResponse(
            {
                "presets": {name: Rules.preset(name).to_dict() for name in PRESETS},
                "options": [spec.to_dict() for spec in Rules.options()],
                "levels": list(LEVELS),
            }
        )

    async def body(request: Request) -> Any:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise TableError(f"request body too large (at most {MAX_BODY} bytes)", 413)
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise TableError(f"malformed JSON: {e}") from None

    def link(request: Request, table_id: str, seat: int, token: str) -> str:
        base = str(request.base_url).rstrip("/")
        return f"{base}/t/{table_id}#seat={seat}&token={token}"

    async def create(request: Request) -> Response:
        try:
            table, tokens = manager().create(await body(request))
        except TableError as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        seats = []
        for s, info in enumerate(table.seats):
            entry: dict[str, Any] = {"seat": s, "kind": info.kind, "name": info.name, "bot": info.bot}
            if s in tokens:
                entry["token"] = tokens[s]
                entry["link"] = link(request, table.id, s, tokens[s])
            seats.append(entry)
        out: dict[str, Any] = {"id": table.id, "seats": seats, "rules": table.rules.to_dict()}
        out["spectators"] = table.spectators
        if table.spectators:
            out["watch"] = f"{str(request.base_url).rstrip('/')}/t/{table.id}#watch"
        return JSONResponse(out, status_code=201)

    async def list_tables(request: Request) -> Response:
        return JSONResponse({"tables": manager().open_tables()})

    async def show(request: Request) -> Response:
        table = manager().get(request.path_params["table_id"])
        if table is None:
            return JSONResponse({"error": "no such table"}, status_code=404)
        return JSONResponse({**table.public(), "seq": table.seq, "rules": table.rules.to_dict()})

    async def join(request: Request) -> Response:
        table_id = request.path_params["table_id"]
        try:
            data = await body(request)
            if not isinstance(data, dict):
                raise TableError("the request must be a JSON object")
            token = manager().join(table_id, data.get("seat"), data.get("name"))
        except TableError as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        table = manager().get(table_id)
        assert table is not None
        seat = table.seat_for_token(token)
        assert seat is not None
        return JSONResponse({"seat": seat, "token": token, "link": link(request, table_id, seat, token)})

    async def record(request: Request) -> Response:
        table = manager().get(request.path_params["table_id"])
        if table is None:
            return JSONResponse({"error": "no such table"}, status_code=404)
        if not table.game.is_over:
            return JSONResponse({"error": "the record is published when the game is over (R7)"}, status_code=403)
        return JSONResponse(game_to_dict(table.record()))

    async def play(ws: WebSocket) -> None:
        await ws.accept()
        table_id = ws.path_params["table_id"]
        table = manager().get(table_id)
        if table is None:
            await ws.send_text(json.dumps(error_message(f"there is no table {table_id!r}", "no_table")))
            await ws.close(code=4404)
            return
        conn = Connection(ws.send_text, ws.close)
        writer = asyncio.get_running_loop().create_task(conn.run_writer())
        failures = 0
        try:
            while not conn.closed:
                received = await ws.receive()
                if received["type"] == "websocket.disconnect":
                    break
                raw = received.get("text")
                if raw is None:
                    raw = received.get("bytes")
                try:
                    message = parse_client(raw)
                except ProtocolError as e:
                    conn.push(error_message(str(e), e.code, table.seq))
                    continue
                if isinstance(message, Ping):
                    conn.push({"type": "pong"})
                elif isinstance(message, Hello):
                    seat = table.seat_for_token(message.token)
                    if seat is None:
                        failures += 1
                        conn.push(error_message("wrong token: it opens no seat at this table", "bad_token"))
                        if failures >= HELLO_ATTEMPTS:
                            break
                    elif conn.seat is not None and conn.seat != seat:
                        conn.push(error_message("this connection already holds another seat", "bad_token"))
                    else:
                        table.attach(conn, seat)
                elif isinstance(message, Watch):
                    try:
                        table.watch(conn)
                    except TableError as e:
                        conn.push(error_message(str(e), e.code, table.seq))
                elif conn.seat is None and not conn.spectator:
                    conn.push(error_message(
                        'not seated: send {"type": "hello", "token": ...} (or {"type": "watch"}) first', "not_seated"
                    ))
                else:
                    try:
                        await table.handle(conn, message)
                    except Exception:  # a bug must not take the server down for the others
                        log.exception("table %s: error handling %r", table.id, message)
                        conn.push(error_message("internal error; the table is unchanged", "internal", table.seq))
        except WebSocketDisconnect:
            pass
        finally:
            table.detach(conn)
            conn.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 2)

    routes = [
        Route("/", page),
        Route("/t/{table_id}", page),
        Route("/cards/{code}.svg", card),
        Route("/api/config", config),
        Route("/api/tables", create, methods=["POST"]),
        Route("/api/tables", list_tables, methods=["GET"]),
        Route("/api/tables/{table_id}", show),
        Route("/api/tables/{table_id}/join", join, methods=["POST"]),
        Route("/api/tables/{table_id}/record", record),
        WebSocketRoute("/ws/{table_id}", play),
        Mount("/static", app=StaticFiles(packages=[("hearts.server", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.hearts = state
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db_url: str | None = None,
    bot_delay: float = 0.7,
    bot_workers: int | None = None,
) -> None:
    """Run the server (``hearts serve``) until interrupted."""
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_app(db_url, bot_delay=bot_delay, bot_workers=bot_workers)
    # Every move builds short-lived views and messages: collect the young generation less
    # often, and keep the import-time objects out of the collector's way (shorter pauses).
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    print(f"pyhearts web table on http://{host}:{port}/  (database: {db_path_from_url(db_url)})", flush=True)
    uvicorn.run(
        app, host=host, port=port, ws_max_size=max(64 * 1024, MAX_MESSAGE_BYTES * 4), log_level="warning"
    )
