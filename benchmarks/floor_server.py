"""The floor of ``cluster_load.py``: the least any server of the web table must do per play.

    .venv/bin/python benchmarks/floor_server.py PORT DB_URL

One server process on the real server's stack (a Starlette app on uvicorn: uvloop, httptools,
the ``websockets`` implementation, the real server's collector settings) answering
``GET /healthz`` and ``WS /ws/{table_id}``, and per play only what no server can skip: read the
WebSocket message, append the action's row — through the project's own
:class:`~hearts.server.storage.postgres.ActionLog`, so the same driver (psycopg, through libpq),
the same statement and the same batches as the real server (which announces no action either) — wait for
its commit, then send one small JSON ``event`` message, the same text, to the table's four
sockets. No rules, no views, no lease (no epoch), no listener, no limits, no metrics.

It speaks just enough of docs/protocol.md for the benchmark's clients (``load_client.mjs`` and
``server_load``'s, unchanged) to play against it: ``hello`` with the token ``"0"``–``"3"`` (the
seat; ``cluster_load.py`` makes the tables' rows beforehand) is answered by a ``state`` whose view
has the seat, whose turn it is and one legal card (``2C``); a ``play`` whose ``seq`` is the
table's is accepted whoever sends it and whatever its card (another is dropped), and its
``event`` says the next seat in a fixed order (0, 1, 2, 3, 0, …) is to move, until the game is
over after :data:`PLAYS` plays (the last one marks the table finished, as the real log does).
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from hearts.server.storage.deadline import Liveness
from hearts.server.storage.postgres import ActionLog

PLAYS = 52
"""Plays of a floor game: one round's tricks."""

CARD = "2C"
"""The one card every state offers (no rules: any card sent is taken)."""


@dataclass
class FloorTable:
    """A table of this process: its last ``seq`` and its seats' sockets."""

    seq: int = 0
    sockets: list[WebSocket | None] = field(default_factory=lambda: [None] * 4)


TABLES: dict[str, FloorTable] = {}
LOG: list[ActionLog] = []
"""The process's :class:`ActionLog` (made in the app's lifespan)."""


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def state(table: FloorTable, seat: int) -> str:
    """The ``state`` message a seat is sent on ``hello``: its seat, whose turn, one legal card."""
    view = {"seat": seat, "to_move": table.seq % 4, "legal": [CARD], "game_over": table.seq >= PLAYS,
            "must_pass": False, "moon_choice_pending": False}
    return dumps({"type": "state", "reason": "welcome", "you": seat, "n": table.seq, "seq": table.seq,
                  "view": view, "table": {}, "event": None})


async def play(table_id: str, table: FloorTable, seat: int, card: str) -> None:
    """Log the play at the table's next ``seq`` (its commit awaited), then tell the four seats."""
    table.seq = seq = table.seq + 1
    action = {"type": "play", "seat": seat, "card": card}
    logged = await LOG[0].log(table_id, seq, dumps(action), "", None, seq == PLAYS)
    if logged != "logged":
        raise RuntimeError(f"{table_id}: seq {seq} {logged}")
    view = {"to_move": seq % 4, "game_over": seq == PLAYS}
    text = dumps({"type": "event", "reason": "event", "n": seq, "seq": seq, "event": {**action, "seq": seq},
                  "view": view, "table": {}})
    for ws in table.sockets:
        if ws is not None:
            with suppress(Exception):  # (a seat gone: nothing to tell it)
                await ws.send_text(text)


async def serve_socket(ws: WebSocket) -> None:
    """One seat's WebSocket, from its ``hello`` to its close."""
    await ws.accept()
    table_id = ws.path_params["table_id"]
    table = TABLES.setdefault(table_id, FloorTable())
    seat: int | None = None
    try:
        while True:
            message = json.loads(await ws.receive_text())
            kind = message.get("type")
            if kind == "hello":
                seat = int(message["token"]) % 4
                table.sockets[seat] = ws
                await ws.send_text(state(table, seat))
            elif kind == "play" and seat is not None and message.get("seq") == table.seq and table.seq < PLAYS:
                await play(table_id, table, seat, str(message.get("card", CARD)))
    except WebSocketDisconnect:
        pass
    finally:
        if seat is not None and table.sockets[seat] is ws:
            table.sockets[seat] = None
        if not any(table.sockets):
            TABLES.pop(table_id, None)


async def healthz(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


def app(url: str) -> Starlette:
    """The floor's app, appending to the PostgreSQL database ``url``."""

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        LOG.append(ActionLog(url, "pyhearts", Liveness()))
        yield
        await LOG[0].close()

    return Starlette(routes=[Route("/healthz", healthz), WebSocketRoute("/ws/{table_id}", serve_socket)],
                     lifespan=lifespan)


def main() -> None:
    port, url = int(sys.argv[1]), sys.argv[2]
    gc.freeze()  # (as the real server: hearts.server.app.AppFactory)
    gc.set_threshold(50_000, 50, 1000)
    config = uvicorn.Config(app(url), host="127.0.0.1", port=port, log_level="warning", access_log=False,
                            forwarded_allow_ips="127.0.0.1")
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
