"""The floor of ``cluster_load.py``: the least any server of the web table must do per play.

    .venv/bin/python benchmarks/floor_server.py PORT DB_URL

One server process on the real server's stack (Starlette on uvicorn: uvloop, httptools, the ``websockets``
implementation, the real server's collector settings) answering ``GET /healthz`` and ``WS /ws/{table_id}``,
and per action only what no server can skip: read the WebSocket message, append its row — through the
project's own :class:`~hearts.server.storage.postgres.ActionLog`: the same driver, statement and batches as
ours — wait for its commit, then send one small JSON ``event``, the same text, to the table's four sockets,
a table's actions one at a time, as ours. No rules, no views, no lease, no listener, no limits, no metrics.

It speaks just enough of docs/protocol.md for the benchmark's clients (unchanged) to play rounds as
they play ours: ``hello`` with the token ``"0"``–``"3"`` (the seat; ``cluster_load.py`` makes the
tables' rows beforehand) is answered by a ``state`` with the seat, a hand, whose turn it is and one
legal card (``2C``). A round takes each seat's pass first, whatever its ``seq`` and cards (the same
burst as ours at a round's start), then :data:`PLAYS` ``play``s whose ``seq`` is the table's, whoever
sends them and whatever the card (another is dropped), each ``event`` naming the next seat in a fixed
order (0, 1, 2, 3, 0, …). A game has as many rounds as its table's id ends with (``floor-…-2``: two;
``cluster_load.py`` gives each the rounds one of ours played); its last action marks it finished.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from hearts.server.storage.deadline import Liveness
from hearts.server.storage.postgres import ActionLog

PASSES, PLAYS = 4, 52
"""A floor round's passes (one a seat, first) and plays."""

HAND, CARD = [rank + "C" for rank in "23456789TJQKA"], "2C"
"""The hand every state shows, and the one legal card it offers (any card sent is taken)."""


@dataclass
class FloorTable:
    """A table: its rounds, last ``seq``, passes (round, seat), sockets, and actions' turn (one at a time)."""

    rounds: int
    seq: int = 0
    passed: set[tuple[int, int]] = field(default_factory=set)
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)
    sockets: list[WebSocket | None] = field(default_factory=lambda: [None] * 4)


TABLES: dict[str, FloorTable] = {}
LOG: list[ActionLog] = []  # (the process's ActionLog, made in the app's lifespan)


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def view(table: FloorTable) -> dict[str, Any]:
    """The part of a view that changes with the table's position: the round, the pass, whose turn, the end."""
    done, at = divmod(table.seq, PASSES + PLAYS)
    over = done >= table.rounds
    return {"round_number": min(done, table.rounds - 1) + 1, "must_pass": at < PASSES and not over,
            "to_move": (at - PASSES) % 4, "game_over": over}


def state(table: FloorTable, seat: int) -> str:
    """The ``state`` message a seat is sent on ``hello``: its seat, a hand, whose turn, one legal card."""
    seen = {"seat": seat, "hand": HAND, "pass_count": 3, "legal": [CARD], **view(table)}
    return dumps({"type": "state", "reason": "welcome", "you": seat, "n": table.seq, "seq": table.seq,
                  "view": seen, "table": {}, "event": None})


async def act(table_id: str, table: FloorTable, action: dict[str, Any]) -> None:
    """Log the action at the table's next ``seq``, its commit awaited; tell the four seats (a pass without its cards)."""
    async with table.turn:
        table.seq = seq = table.seq + 1
        ends = seq == table.rounds * (PASSES + PLAYS)
        if (logged := await LOG[0].log(table_id, seq, dumps(action), "", None, ends)) != "logged":
            raise RuntimeError(f"{table_id}: seq {seq} not logged ({logged})")
        text = dumps({"type": "event", "reason": "event", "n": seq, "seq": seq, "view": view(table), "table": {},
                      "event": {**{key: value for key, value in action.items() if key != "cards"}, "seq": seq}})
        for ws in table.sockets:
            if ws is not None:
                with suppress(Exception):  # (a seat gone: nothing to tell it)
                    await ws.send_text(text)


async def serve_socket(ws: WebSocket) -> None:
    """One seat's WebSocket, from its ``hello`` to its close."""
    await ws.accept()
    table_id = ws.path_params["table_id"]
    table = TABLES.setdefault(table_id, FloorTable(int(table_id.rsplit("-", 1)[1])))
    seat: int | None = None
    try:
        with suppress(WebSocketDisconnect):
            while True:
                message = json.loads(await ws.receive_text())
                kind = message.get("type")
                if kind == "hello":
                    seat = int(message["token"]) % 4
                    table.sockets[seat] = ws
                    await ws.send_text(state(table, seat))
                elif seat is None or (v := view(table))["game_over"]:
                    continue
                elif kind == "pass" and v["must_pass"] and (mine := (v["round_number"], seat)) not in table.passed:
                    table.passed.add(mine)
                    await act(table_id, table, {"type": "pass", "seat": seat, "cards": message.get("cards")})
                elif kind == "play" and not v["must_pass"] and message.get("seq") == table.seq:
                    await act(table_id, table, {"type": "play", "seat": seat, "card": str(message.get("card", CARD))})
    finally:
        if seat is not None and table.sockets[seat] is ws:
            table.sockets[seat] = None
        if not any(table.sockets):
            TABLES.pop(table_id, None)


def app(url: str) -> Starlette:
    """The floor's app, appending to the PostgreSQL database ``url``."""

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        LOG.append(ActionLog(url, "pyhearts", Liveness()))
        yield
        await LOG[0].close()

    return Starlette(routes=[Route("/healthz", lambda _: PlainTextResponse("ok")), WebSocketRoute("/ws/{table_id}", serve_socket)],
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
