"""Passkeys (WebAuthn, the ``webauthn`` package) and sign-in sessions: a profile on another device.

A profile (:mod:`hearts.server.players`) keeps its secret key, the fallback that works
everywhere; it may add passkeys, several (one per device or password manager), each a WebAuthn
credential whose public key the server keeps (``store.passkeys``). Signing in with one on any
browser makes a *session*: a random secret in a cookie (``HttpOnly``, ``SameSite=Lax``,
``Secure`` when the page was served over TLS), of which the server keeps only the hash; a
request with that cookie acts as the profile wherever a request with the key does
(:func:`hearts.server.players.optional_player`). *Sign out everywhere* deletes every session of
the profile (and its seat tickets, below); the key stays the profile's.

The relying party is the address the browser shows: its id is the request's host name (behind
a proxy, the ``Host`` it forwards) and the origin the request's scheme, host and port, or the
browser's ``Origin`` of the same host name (a proxy that forwards the host without its port)
(:class:`RelyingParty`); a passkey made on one host name signs in on that name only, and an
address by IP (``http://127.0.0.1``) can have none: the browser refuses it. A WebAuthn
challenge is kept in the database until it is used (once) or five minutes pass, so that any
process may finish a ceremony another one began.

A game goes on on another device through a *seat ticket* (:func:`seat_ticket`): the profile
that sits at a table (its seat linked to it) asks for one, and the browser says hello with it
as with the seat's token; it opens that profile's seat at that table only, for thirty days,
and signing out everywhere revokes it.

>>> rp = RelyingParty.of("https://cards.example.org:8443/t/abc")
>>> rp.id, rp.origins, rp.secure
('cards.example.org', ('https://cards.example.org:8443',), True)
>>> RelyingParty.of("http://cards.example.org/me", "http://cards.example.org:8080").origins  # (nginx's $host: no port)
('http://cards.example.org', 'http://cards.example.org:8080')
>>> RelyingParty.of("http://cards.example.org/me", "https://evil.example").origins
('http://cards.example.org',)
>>> challenge_of({"response": {"clientDataJSON": b64("{\\"challenge\\": \\"abc\\"}".encode())}})
'abc'
>>> challenge_of({"response": {}})
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: the credential is not one a browser makes (no clientDataJSON)
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from hearts.server.company import check_not_banned
from hearts.server.limits import Refused
from hearts.server.protocol import ProtocolError, _Fields
from hearts.server.storage import ChallengePurpose, PasskeyRow, PlayerRow, Storage, hash_token

SESSION_COOKIE: Final = "pyhearts_session"
"""The cookie that holds a sign-in session's secret."""
SESSION_DAYS: Final = 180
"""Days a session cookie lasts in the browser (the server keeps it until signed out)."""
CHALLENGE_SECONDS: Final = 300
"""Seconds a WebAuthn ceremony may take."""
TICKET_SECONDS: Final = 30 * 86400
"""Seconds a seat ticket opens its seat."""
MAX_PASSKEY_NAME: Final = 60
"""Characters of a passkey's name."""
MAX_CREDENTIAL: Final = 8192
"""Characters of one field of a credential (its attestation, its signature …)."""


class PasskeyRefused(Refused):
    """A passkey that signs nothing in: unknown, its signature or challenge wrong (HTTP 401);
    nothing changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 401, "bad_passkey")


def b64(data: bytes) -> str:
    """Bytes as base64url without padding (WebAuthn's JSON)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    """:func:`b64`'s bytes back; :class:`ProtocolError` if ``text`` is not base64url."""
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ProtocolError("the credential is not one a browser makes (bad base64url)", "bad_request") from None


@dataclass(frozen=True)
class RelyingParty:
    """The site the passkeys are for, as the browser sees it: ``id`` (the host name), the
    ``origins`` a credential may come from (scheme, host and port) and whether it is served over
    TLS (the cookie is then ``Secure``)."""

    id: str
    origins: tuple[str, ...]
    secure: bool

    @classmethod
    def of(cls, url: str, origin: str | None = None) -> RelyingParty:
        """The relying party of a request's URL (Starlette builds it from the ``Host`` header
        and the scheme, which ``--forwarded-allow-ips`` lets the proxy's ``X-Forwarded-Proto``
        set) and its ``Origin`` header, taken when it names the same host."""
        parts = urlsplit(url)
        host = parts.hostname or "localhost"
        origins = [f"{parts.scheme}://{parts.netloc}"]
        try:
            told = urlsplit(origin) if origin else None
            same = told is not None and told.hostname == host and told.scheme in ("http", "https")
        except ValueError:
            same = False
        if same and origin not in origins:
            origins.append(str(origin))
        return cls(host, tuple(origins), parts.scheme == "https")


def challenge_of(credential: Any) -> str:
    """The challenge a browser's credential answers (its ``clientDataJSON``'s), to find the
    ceremony it belongs to; :class:`ProtocolError` if it is no credential."""
    response = credential.get("response") if isinstance(credential, dict) else None
    data = response.get("clientDataJSON") if isinstance(response, dict) else None
    if not isinstance(data, str) or not data or len(data) > MAX_CREDENTIAL:
        raise ProtocolError("the credential is not one a browser makes (no clientDataJSON)", "bad_request")
    try:
        challenge = json.loads(unb64(data)).get("challenge")
    except (ValueError, AttributeError):
        challenge = None
    if not isinstance(challenge, str) or not challenge:
        raise ProtocolError("the credential is not one a browser makes (no challenge)", "bad_request")
    return challenge


@dataclass(frozen=True)
class CredentialRequest:
    """``POST /api/passkeys`` and ``POST /api/session``: the browser's ``credential`` (its
    ``PublicKeyCredential`` as JSON: ``id``, ``rawId``, ``type``, ``response``) and, for a new
    passkey, the ``name`` it is shown under (at most 60 characters).

    >>> CredentialRequest.parse({"credential": {"id": "x"}, "name": " Laptop "}).name
    'Laptop'
    >>> CredentialRequest.parse({"credential": "x"})
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: the request: 'credential' must be the browser's credential (an object), not 'x'
    """

    credential: dict[str, Any]
    name: str = ""

    @classmethod
    def parse(cls, data: Any) -> CredentialRequest:
        f = _Fields(data, "the request", ("credential", "name"))
        credential = f.get("credential", dict, "the browser's credential (an object)")
        if credential is None:
            raise ProtocolError("the request: 'credential' is missing", "bad_request")
        name = f.get("name", str, "a name for the passkey", "").strip()
        if len(name) > MAX_PASSKEY_NAME or not name.isprintable():
            raise ProtocolError(f"a passkey's name is at most {MAX_PASSKEY_NAME} printable characters", "bad_request")
        return cls(credential, name)


def passkey_dict(row: PasskeyRow) -> dict[str, Any]:
    """A passkey as ``GET /api/passkeys`` lists it (never its public key)."""
    return {"id": row.credential_id, "name": row.name, "created": row.created.isoformat(),
            "used": None if row.used is None else row.used.isoformat()}


async def _challenge(store: Storage, purpose: ChallengePurpose, player_id: str | None, options: Any) -> dict[str, Any]:
    """Keep the options' challenge for the ceremony's end, and the options as the browser reads
    them (JSON, binary fields in base64url)."""
    await store.passkeys.add_challenge(b64(options.challenge), purpose, player_id, time.time() + CHALLENGE_SECONDS)
    out: dict[str, Any] = json.loads(options_to_json(options))
    return out


async def registration_options(store: Storage, player: PlayerRow, rp: RelyingParty) -> dict[str, Any]:
    """The options of ``navigator.credentials.create`` for a new passkey of ``player``: a
    discoverable credential (signing in needs no name), none of its passkeys again."""
    known = await store.passkeys.of_player(player.id)
    options = generate_registration_options(
        rp_id=rp.id, rp_name="pyhearts", user_id=player.id.encode(), user_name=player.name,
        user_display_name=player.name,
        exclude_credentials=[PublicKeyCredentialDescriptor(id=unb64(k.credential_id)) for k in known],
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.PREFERRED
        ),
    )
    return await _challenge(store, "register", player.id, options)


async def register(store: Storage, player: PlayerRow, rp: RelyingParty, request: CredentialRequest) -> PasskeyRow:
    """Check the browser's new credential against the challenge given to ``player`` and keep it
    as the profile's passkey; :class:`PasskeyRefused` (nothing kept) if it does not hold."""
    challenge = challenge_of(request.credential)
    given, owner = await store.passkeys.take_challenge(challenge, "register", time.time())
    if not given or owner != player.id:
        raise PasskeyRefused("this passkey answers no request of this profile's (or too late): try again")
    try:
        made = verify_registration_response(
            credential=request.credential, expected_challenge=unb64(challenge), expected_rp_id=rp.id,
            expected_origin=list(rp.origins),
        )
    except WebAuthnException as e:
        raise PasskeyRefused(f"the passkey could not be checked: {e}") from None
    credential_id = b64(made.credential_id)
    try:
        await store.passkeys.add(credential_id, player.id, b64(made.credential_public_key), made.sign_count,
                                 request.name or "passkey")
    except ValueError:
        raise Refused("this passkey is registered already", 409, "passkey_known") from None
    found = await store.passkeys.get(credential_id)
    assert found is not None
    return found


async def sign_in_options(store: Storage, rp: RelyingParty) -> dict[str, Any]:
    """The options of ``navigator.credentials.get`` to sign in with any passkey of this site."""
    options = generate_authentication_options(rp_id=rp.id, user_verification=UserVerificationRequirement.PREFERRED)
    return await _challenge(store, "sign_in", None, options)


async def sign_in(store: Storage, rp: RelyingParty, request: CredentialRequest) -> tuple[PlayerRow, str]:
    """Check a passkey's assertion (the challenge given out, the passkey known, its signature and
    counter) and start a session of its profile: the profile and the session's secret (for the
    cookie). :class:`PasskeyRefused` if it does not hold: no session, nothing changed (the
    challenge is used up); :class:`~hearts.server.company.Banned` for a banned profile."""
    challenge = challenge_of(request.credential)
    given, _ = await store.passkeys.take_challenge(challenge, "sign_in", time.time())
    if not given:
        raise PasskeyRefused("this passkey answers no sign-in of this server's (or too late): try again")
    raw = request.credential.get("rawId") or request.credential.get("id")
    passkey = await store.passkeys.get(raw) if isinstance(raw, str) and len(raw) <= MAX_CREDENTIAL else None
    if passkey is None:
        raise PasskeyRefused("this passkey is not known here: sign in with your key, then add it on your profile page")
    try:
        checked = verify_authentication_response(
            credential=request.credential, expected_challenge=unb64(challenge), expected_rp_id=rp.id,
            expected_origin=list(rp.origins), credential_public_key=unb64(passkey.public_key),
            credential_current_sign_count=passkey.sign_count,
        )
    except WebAuthnException as e:
        raise PasskeyRefused(f"the passkey could not be checked: {e}") from None
    player = await store.passkeys.owner(passkey.credential_id)
    if player is None:
        raise PasskeyRefused("this passkey's profile is gone")
    await check_not_banned(store, player.id)
    await store.passkeys.used(passkey.credential_id, checked.new_sign_count)
    return player, await new_session(store, player)


async def new_session(store: Storage, player: PlayerRow) -> str:
    """A new session of ``player``: its secret (the cookie's value; only its hash is kept)."""
    secret = secrets.token_urlsafe(32)
    await store.passkeys.add_session(hash_token(secret), player.id)
    return secret


async def seat_ticket(store: Storage, table_id: str, player_id: str) -> str:
    """A ticket that opens ``player_id``'s seat at ``table_id`` (said in a hello as a seat's
    token) for :data:`TICKET_SECONDS`; the server keeps only the hash of the table and ticket."""
    ticket = secrets.token_urlsafe(18)
    await store.passkeys.add_challenge(hash_token(f"{table_id}:{ticket}"), "seat", player_id, time.time() + TICKET_SECONDS)
    return ticket


async def ticket_player(store: Storage, table_id: str, ticket: str) -> str | None:
    """The profile whose seat ticket at ``table_id`` this is, while it lasts, or ``None``."""
    return await store.passkeys.peek_challenge(hash_token(f"{table_id}:{ticket}"), "seat", time.time())
