"""The tables of the lobby: made, listed, shown, joined, claimed, invited to, and once over,
their record and replay::

    POST /api/tables               create a table (protocol.TableRequest) →
                                   {id, seats: [{seat, kind, name, token?, link?}], watch?,
                                   creator_key}: the key that frees a seat (only its hash is kept)
    GET  /api/tables               the unfinished tables listed in the lobby (a free seat first)
    GET  /api/tables/{id}          a table's public facts
    POST /api/tables/{id}/join     {seat?, name?} (protocol.JoinRequest) → {seat, token, link}; 403 for
                                   a profile blocked by, or blocking, one seated there
    POST /api/tables/{id}/claim    {token} → {seat}: link the seat of this token to your profile (403:
                                   a blocked pair, as for join)
    POST /api/tables/{id}/seats/{seat}/invite
                                   {key} (protocol.InviteRequest: the creator key) → {seat, token,
                                   link}: a new invite link for a person's seat (403: a wrong key)
    GET  /api/tables/{id}/record   the game record, once the game is over (R7)
    GET  /api/tables/{id}/replay   a finished game step by step (players.replay_steps); 403 before
                                   it is over (R7)
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hearts.record import game_to_dict
from hearts.server.company import check_seating
from hearts.server.http.common import api, client_address, credentials, read_json
from hearts.server.http.services import Services, services
from hearts.server.players import (
    ClaimRequest,
    Unauthorized,
    authenticate,
    for_player,
    optional_player,
    replay_steps,
)
from hearts.server.protocol import InviteRequest, JoinRequest, TableRequest
from hearts.server.storage import SeatConflict, hash_token
from hearts.server.tables import TABLE_ID, Table, TableError


async def create(request: Request) -> Response:
    s = services(request)
    address = client_address(request)
    with s.guard.counting("tables", address):  # a refused request uses up none of the rate
        table_request = TableRequest.parse(await read_json(request, s.limits), s.limits, s.bots)
        player = await optional_player(s.store, *credentials(request))
        table_request, mine = for_player(table_request, player)
        creator_key = secrets.token_urlsafe(18)
        table, tokens = await s.manager.create(table_request, address, hash_token(creator_key))
    if player is not None and mine is not None:
        await s.store.players.link_seat(table.id, mine, player.id)
    out = created(s, table, tokens)
    out.update(rated=table_request.rated, creator_key=creator_key)
    if table.spectators:
        out["watch"] = f"{s.public_url}/t/{table.id}#watch"
    return api(out, 201)


def created(s: Services, table: Table, tokens: dict[int, str]) -> dict[str, Any]:
    """The answer to a table's creation, but for its creator key and whether it is rated."""
    seats = []
    for seat, info in enumerate(table.seats):
        entry: dict[str, Any] = {"seat": seat, "kind": info.kind, "name": info.name, "bot": info.bot}
        if seat in tokens:
            entry["token"] = tokens[seat]
            entry["link"] = s.link(table.id, seat, tokens[seat])
        seats.append(entry)
    return {
        "id": table.id, "seats": seats, "rules": table.rules.to_dict(), "spectators": table.spectators,
        "listed": table.listed, "turn_timer": table.turn_timer, "pass_timer": table.pass_timer,
        "stand_in": table.stand_in, "bot_delay": table.bot_delay,
    }


async def list_tables(request: Request) -> Response:
    return api({"tables": await services(request).manager.open_tables()})


async def show(request: Request) -> Response:
    return api(await (await services(request).find(request.path_params["table_id"])).facts())


async def join(request: Request) -> Response:
    s = services(request)
    s.guard.hit("joins", client_address(request))
    table = await s.find(request.path_params["table_id"])
    join_request = JoinRequest.parse(await read_json(request, s.limits), s.limits)
    player = await optional_player(s.store, *credentials(request))
    row = await s.store.log.table(table.id)
    if row is not None and row.config.get("rated"):
        if player is None:
            raise Unauthorized("this table is rated: join it with your player profile (make one first)")
        if any(seat.player_id == player.id for seat in await s.store.log.seats(table.id)):
            raise TableError("you already sit at this rated table", 409, "seated")
    if player is not None:
        await check_seating(s.store, player.id, await s.store.log.seats(table.id))  # (a blocked pair: 403)
    if player is not None and join_request.name is None:
        join_request = dataclasses.replace(join_request, name=player.name)
    seat, token = await s.manager.join(table.id, join_request)
    if player is not None:
        await s.store.players.link_seat(table.id, seat, player.id)
    return api({"seat": seat, "token": token, "link": s.link(table.id, seat, token)})


async def claim(request: Request) -> Response:
    s = services(request)
    table = await s.find(request.path_params["table_id"])
    player = await authenticate(s.store, *credentials(request))
    claimed = ClaimRequest.parse(await read_json(request, s.limits))
    seat = await table.find_seat(claimed.token)
    if seat is None:
        raise TableError("this token opens no seat at this table", 403, "bad_token")
    await check_seating(s.store, player.id, await s.store.log.seats(table.id))  # (a blocked pair: 403)
    try:
        await s.store.players.link_seat(table.id, seat, player.id)
    except SeatConflict:
        raise TableError(f"seat {seat + 1} is another player's", 409, "seated") from None
    return api({"seat": seat, "player": player.id})


async def invite(request: Request) -> Response:
    s = services(request)
    s.guard.hit("joins", client_address(request))
    key = InviteRequest.parse(await read_json(request, s.limits)).key
    table_id, seat = request.path_params["table_id"], request.path_params["seat"]
    token = await s.manager.new_invite(table_id, seat, key)
    return api({"seat": seat, "token": token, "link": s.link(table_id, seat, token)})


async def record(request: Request) -> Response:
    table = await services(request).find(request.path_params["table_id"])
    return api(game_to_dict(await table.finished_record()))


async def replay(request: Request) -> Response:
    s = services(request)
    table_id = request.path_params["table_id"]
    kept = s.replays.get(table_id)
    if kept is None:
        row = await s.store.log.table(table_id) if TABLE_ID.fullmatch(table_id) else None
        if row is None:
            raise TableError("there is no such table", 404, "no_table")
        if not row.finished:
            raise TableError("the replay is shown when the game is over (R7)", 403, "not_over")
        kept = replay_steps(table_id, row, await s.store.log.seats(table_id), await s.store.log.actions(table_id))
        s.replays.keep(table_id, kept)
    return api(kept)


ROUTES: list[BaseRoute] = [
    Route("/api/tables", create, methods=["POST"]),
    Route("/api/tables", list_tables, methods=["GET"]),
    Route("/api/tables/{table_id}", show),
    Route("/api/tables/{table_id}/join", join, methods=["POST"]),
    Route("/api/tables/{table_id}/record", record),
    Route("/api/tables/{table_id}/replay", replay),
    Route("/api/tables/{table_id}/claim", claim, methods=["POST"]),
    Route("/api/tables/{table_id}/seats/{seat:int}/invite", invite, methods=["POST"]),
]
