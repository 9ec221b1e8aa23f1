"""The browser client's pages, card images, the lobby's configuration and the static files::

    GET  /, /t/{id}, /me, /games, /leaderboard, /replay/{id}
                                   the client (lobby and table, one page), opened on a table, a
                                   profile, your games, the leaderboard or a replay
    GET  /cards/{QS}.svg           a card face drawn by the package (/cards/back.svg: the back)
    GET  /rules                    the rule book (?table={id}: with that table's options)
    GET  /api/rules[?table={id}]   the rule book (hearts.book, English: the client translates each
                                   message) and the options of a table, else the default rules
    GET  /api/config               presets, the rule options' specs (Rules.options()), bot levels
                                   (``levels``: the four, then the specs ``serve --bots`` allows),
                                   the invite links' base and the limits a form needs
    GET  /static/...               the client's files: ``index.html`` loads ``app.js``, an ES
                                   module that imports the others (served as ``text/javascript``:
                                   a browser refuses a module script of any other type), and
                                   ``style.css``
"""

from __future__ import annotations

import mimetypes
from importlib import resources

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from hearts import book
from hearts.errors import HeartsError
from hearts.rules import PRESETS, Rules
from hearts.server.cardsvg import back_svg, card_svg
from hearts.server.http.common import api, is_loopback
from hearts.server.http.services import services
from hearts.server.protocol import STAND_IN
from hearts.server.tables import TableError

# The client's ES modules need a JavaScript type, whatever the system's table says (a Windows
# registry may map .js to text/plain); StaticFiles asks mimetypes.
mimetypes.add_type("text/javascript", ".js")

STATIC = resources.files("hearts.server") / "static"


async def page(request: Request) -> Response:
    return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"), headers={"Cache-Control": "no-cache"})


async def card(request: Request) -> Response:
    code = request.path_params["code"]
    try:
        svg = back_svg() if code == "back" else card_svg(code)
    except HeartsError:
        raise TableError(f"no card {code!r:.20}", 404, "no_card") from None
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


async def rule_book(request: Request) -> Response:
    table_id = request.query_params.get("table")
    rules = (await services(request).find(table_id)).rules if table_id else Rules()
    return api({"table": table_id, **book.to_dict(rules)})


async def config(request: Request) -> Response:
    s = services(request)
    return api(
        {
            "presets": {name: Rules.preset(name).to_dict() for name in PRESETS},
            "options": [spec.to_dict() for spec in Rules.options()],
            "levels": list(s.bots),
            "stand_in": STAND_IN,
            "max_turn_timer": s.limits.max_turn_timer,
            "bot_pace": {"min": s.limits.min_bot_pace, "max": s.limits.max_bot_pace, "default": s.manager.bot_delay},
            "max_name": s.limits.max_name,
            "max_chat": s.limits.max_chat,
            "public_url": s.public_url,
            "local_only": is_loopback(s.public_url),
        }
    )


ROUTES: list[BaseRoute] = [
    Route("/", page),
    Route("/t/{table_id}", page),
    Route("/me", page),
    Route("/games", page),
    Route("/leaderboard", page),
    Route("/replay/{table_id}", page),
    Route("/rules", page),
    Route("/cards/{code}.svg", card),
    Route("/api/config", config),
    Route("/api/rules", rule_book),
    Mount("/static", app=StaticFiles(packages=[("hearts.server", "static")]), name="static"),
]
