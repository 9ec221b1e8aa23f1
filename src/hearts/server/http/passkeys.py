"""Passkeys and sign-in sessions (:mod:`hearts.server.passkeys`)::

    GET  /api/passkeys             {passkeys: [{id, name, created, used}]}: your passkeys
    POST /api/passkeys/options     the options of navigator.credentials.create for a new passkey
    POST /api/passkeys             {credential, name?} → {passkeys}: the new passkey checked and kept
    DELETE /api/passkeys/{id}      → {passkeys}: one removed
    POST /api/session/options      the options of navigator.credentials.get, to sign in
    POST /api/session              {credential} → your profile {id, name, rating, chat, language, guide},
                                   and the session cookie: signed in (401, nothing changed: a
                                   passkey unknown, or whose signature or challenge is wrong)
    DELETE /api/session            signed out in this browser (the cookie cleared)
    POST /api/me/sign-out-everywhere
                                   → {ended: N}: every session of your profile ended (and its seat
                                   tickets); your key stays yours
    POST /api/tables/{id}/ticket   → {seat, ticket}: a ticket that opens your seat at that
                                   unfinished table (said in a hello as a token), on this device

The passkeys' requests act as your profile as every other does: ``Authorization: Bearer <key>``,
or the session cookie.
"""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hearts.server.http.common import api, client_address, credentials, read_json
from hearts.server.http.services import services
from hearts.server.logs import fields
from hearts.server.passkeys import (
    SESSION_COOKIE,
    SESSION_DAYS,
    CredentialRequest,
    RelyingParty,
    passkey_dict,
    register,
    registration_options,
    seat_ticket,
    sign_in,
    sign_in_options,
)
from hearts.server.players import authenticate, my_profile
from hearts.server.storage import hash_token
from hearts.server.tables import TableError

log = logging.getLogger("hearts.server")


def party(request: Request) -> RelyingParty:
    """The relying party as this request's browser sees it (its URL and ``Origin``)."""
    return RelyingParty.of(str(request.url), request.headers.get("origin"))


async def _listed(request: Request, player_id: str) -> Response:
    return api({"passkeys": [passkey_dict(k) for k in await services(request).store.passkeys.of_player(player_id)]})


async def passkeys(request: Request) -> Response:
    s = services(request)
    player = await authenticate(s.store, *credentials(request))
    if request.method == "POST":
        await register(s.store, player, party(request),
                       CredentialRequest.parse(await read_json(request, s.limits)))
        log.info("passkey added", extra=fields(player=player.id))
    return await _listed(request, player.id)


async def new_passkey_options(request: Request) -> Response:
    s = services(request)
    player = await authenticate(s.store, *credentials(request))
    return api(await registration_options(s.store, player, party(request)))


async def remove_passkey(request: Request) -> Response:
    s = services(request)
    player = await authenticate(s.store, *credentials(request))
    if not await s.store.passkeys.remove(player.id, request.path_params["credential_id"]):
        raise TableError("you have no such passkey", 404, "no_passkey")
    return await _listed(request, player.id)


async def sign_in_options_(request: Request) -> Response:
    s = services(request)
    s.guard.hit("joins", client_address(request))
    return api(await sign_in_options(s.store, party(request)))


def _cookie(response: Response, rp: RelyingParty, secret: str | None) -> Response:
    """Set (or, with ``None``, clear) the session cookie: ``HttpOnly``, ``SameSite=Lax``,
    ``Secure`` over TLS."""
    if secret is None:
        response.delete_cookie(SESSION_COOKIE, path="/", secure=rp.secure, httponly=True, samesite="lax")
    else:
        response.set_cookie(SESSION_COOKIE, secret, max_age=SESSION_DAYS * 86400, path="/", secure=rp.secure,
                            httponly=True, samesite="lax")
    return response


async def session(request: Request) -> Response:
    s = services(request)
    rp = party(request)
    if request.method == "DELETE":
        secret = credentials(request)[1]
        if secret:
            await s.store.passkeys.end_session(hash_token(secret))
        return _cookie(api({"signed_out": True}), rp, None)
    s.guard.hit("joins", client_address(request))
    player, secret = await sign_in(s.store, rp, CredentialRequest.parse(await read_json(request, s.limits)))
    log.info("signed in with a passkey", extra=fields(player=player.id))
    return _cookie(api(await my_profile(s.store, player)), rp, secret)


async def sign_out_everywhere(request: Request) -> Response:
    s = services(request)
    player = await authenticate(s.store, *credentials(request))
    ended = await s.store.passkeys.end_sessions(player.id)
    log.info("signed out everywhere", extra=fields(player=player.id, sessions=ended))
    return _cookie(api({"ended": ended}), party(request), None)


async def ticket(request: Request) -> Response:
    s = services(request)
    player = await authenticate(s.store, *credentials(request))
    table = await s.find(request.path_params["table_id"])
    seat = next((r.seat for r in await s.store.log.seats(table.id) if r.kind == "human" and r.player_id == player.id), None)
    if seat is None:
        raise TableError("your profile has no seat at this table", 404, "not_seated")
    row = await s.store.log.table(table.id)
    if row is None or row.finished:
        raise TableError("the game is over: its seats stay as they were", 409, "game_over")
    return api({"seat": seat, "ticket": await seat_ticket(s.store, table.id, player.id)})


ROUTES: list[BaseRoute] = [
    Route("/api/passkeys", passkeys, methods=["GET", "POST"]),
    Route("/api/passkeys/options", new_passkey_options, methods=["POST"]),
    Route("/api/passkeys/{credential_id}", remove_passkey, methods=["DELETE"]),
    Route("/api/session/options", sign_in_options_, methods=["POST"]),
    Route("/api/session", session, methods=["POST", "DELETE"]),
    Route("/api/me/sign-out-everywhere", sign_out_everywhere, methods=["POST"]),
    Route("/api/tables/{table_id}/ticket", ticket, methods=["POST"]),
]
