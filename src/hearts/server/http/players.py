"""Player profiles (:mod:`hearts.server.players`), their games and the leaderboard::

    POST /api/players              {name} → {id, name, key}: a new player profile (no password: keep
                                   the key; only its hash is stored)
    GET  /api/me                   your profile {id, name, rating: {mu, sigma, rating, games}, chat,
                                   language, guide}
    PATCH /api/me                  {name?, chat?, language?, guide?} → your profile, renamed, its chat
                                   turned on or off (off: no table's chat is shown to it, and it
                                   writes none), its web table's language chosen ("de"; "": the
                                   browser's), its guided first game's {status, table, seen} kept
                                   (offered, on, done or skipped: offered once on every device)
    GET  /api/me/games             {games: [...]}: every table you sat at, newest first
    GET  /api/me/marks             {muted: [{id, name}], blocked: [...], chat}: whom you muted and
                                   blocked (hearts.server.company), and whether your chat is on
    DELETE /api/me/marks/{kind}/{id}
                                   undo a mute or a block (kind: mute, block) → the marks as above
    GET  /api/leaderboard          {players: [...], me}: rated players and the bots' fixed anchors, by
                                   conservative rating (mu − 3σ)

A request acts as a profile with ``Authorization: Bearer <key>``: a missing or unknown key is a 401.
"""

from __future__ import annotations

import dataclasses
import logging

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hearts.server.http.common import api, client_address, credentials, read_json
from hearts.server.http.services import services
from hearts.server.logs import fields
from hearts.server.players import (
    NameRequest,
    ProfileChange,
    authenticate,
    create_player,
    my_games,
    my_profile,
    optional_player,
    profile_dict,
    rating_dict,
)
from hearts.server.protocol import ProtocolError
from hearts.server.ratings import anchors

log = logging.getLogger("hearts.server")


async def new_player(request: Request) -> Response:
    s = services(request)
    s.guard.hit("joins", client_address(request))
    name = NameRequest.parse(await read_json(request, s.limits), s.limits).name
    player, key = await create_player(s.store, name)
    log.info("player created", extra=fields(player=player.id))
    return api({"id": player.id, "name": player.name, "key": key}, 201)


async def me(request: Request) -> Response:
    s = services(request)
    player = await authenticate(s.store, *credentials(request))
    if request.method == "PATCH":
        change = ProfileChange.parse(await read_json(request, s.limits), s.limits)
        if change.name is not None:
            await s.store.players.rename_player(player.id, change.name)
            player = dataclasses.replace(player, name=change.name)
        if change.chat is not None:
            await s.store.players.set_chat(player.id, change.chat)
        if change.language is not None:
            await s.store.players.set_language(player.id, change.language or None)
        if change.guide is not None:
            await s.store.players.set_guide(player.id, change.guide.to_dict())
    return api(await my_profile(s.store, player))


async def games(request: Request) -> Response:
    s = services(request)
    player = await authenticate(s.store, *credentials(request))
    return api({"games": await my_games(s.store, player.id, s.outcomes)})


async def marks(request: Request) -> Response:
    s = services(request)
    player = await authenticate(s.store, *credentials(request))
    if request.method == "DELETE":
        kind = request.path_params["kind"]
        if kind not in ("mute", "block"):
            raise ProtocolError(f"a mark is 'mute' or 'block', not {kind[:20]!r}", "bad_request")
        other = request.path_params["player_id"]
        if other != player.id and (await s.store.players.names([other])):
            await s.store.players.mark(player.id, other, kind, False)
    found = await s.store.players.marks(player.id)
    names = await s.store.players.names(found.muted | found.blocked)
    return api({
        "muted": [{"id": p, "name": names.get(p, "?")} for p in sorted(found.muted, key=lambda p: names.get(p, ""))],
        "blocked": [{"id": p, "name": names.get(p, "?")} for p in sorted(found.blocked, key=lambda p: names.get(p, ""))],
        "chat": await s.store.players.chat_on(player.id),
    })


async def leaderboard(request: Request) -> Response:
    store = services(request).store
    player = await optional_player(store, *credentials(request))
    rows = [
        {"name": p.name, "bot": None, **rating_dict(p.mu, p.sigma, p.games),
         "you": player is not None and p.id == player.id}
        for p in await store.players.leaderboard()
    ]
    rows += [{**{k: v for k, v in a.items() if k != "id"}, "you": False} for a in anchors()]
    rows.sort(key=lambda r: -r["rating"])
    return api({"players": rows, "me": None if player is None else profile_dict(player)})


ROUTES: list[BaseRoute] = [
    Route("/api/players", new_player, methods=["POST"]),
    Route("/api/me", me, methods=["GET", "PATCH"]),
    Route("/api/me/games", games),
    Route("/api/me/marks", marks),
    Route("/api/me/marks/{kind}/{player_id}", marks, methods=["DELETE"]),
    Route("/api/leaderboard", leaderboard),
]
