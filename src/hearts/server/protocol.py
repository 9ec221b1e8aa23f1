"""The WebSocket protocol of the web table: typed JSON messages in and out.

Client → server. An action is the text of the actions' codec (:mod:`hearts.actions`) plus
``seq``, the table's sequence number the client saw (how many actions the table had applied);
its ``seat`` may be left out, it is the connection's seat (a different one is refused)::

    {"type": "hello", "token": "..."}                       take your seat (first message)
    {"type": "watch"}                                       watch as a spectator (no token)
    {"type": "pass", "seq": 4, "cards": ["QS", "AH", "2C"]}  R2
    {"type": "play", "seq": 9, "card": "QS"}                 R3
    {"type": "moon", "seq": 60, "choice": "add"}             R4.4 (shooter_chooses)
    {"type": "sync"}                                         ask for the full state
    {"type": "ping"}

Server → client::

    {"type": "state", "reason": "welcome"|"event"|"resync"|"table", "seq": N, "you": seat,
     "view": View.to_dict(), "table": {...public facts...}, "event": {...}|null}
    {"type": "presence", "online": [seats], "names": [...], "spectators": N}
    {"type": "error", "code": "...", "message": "...", "seq": N}
    {"type": "pong"}

A state's ``event`` is the last accepted action in the codec, without a pass's cards (they are
the passer's secret), and with the ``seq`` it brought the table to:
``{"type": "play", "seat": 1, "card": "QS", "seq": 9}``, ``{"type": "pass", "seat": 2, "seq": 3}``.

A ``state`` is built from the seat's :class:`~hearts.view.View` and public table facts only
(RULES.md R7). A spectator's ``state`` has ``"you": null`` and a ``view`` holding only
:meth:`View.public_dict() <hearts.view.View.public_dict>` — no ``seat``, ``hand``, ``legal``,
``passed``, ``received`` nor any other private field: it shows what every seat may know and
nothing more. A spectator cannot act (its ``pass``/``play``/``moon`` get an error of code
``not_seated``); it may send ``hello`` with a seat's token later to take that seat. A ``watch``
is refused with ``no_spectators`` on a table created with ``"spectators": false`` and with
``spectators_full`` when the table already has its maximum of spectators. The ``table`` facts
count the spectators (``spectators``) and never list them among the ``online`` seats. An action
whose ``seq`` is not the table's current one (stale or duplicate) is answered with a ``state``
of reason ``resync`` and is not applied — except a pass made during the same pass phase, which
does not depend on the other seats' passes.

Error codes: ``bad_json``, ``too_large``, ``unknown_type``, ``bad_message`` (a malformed message
or action: the codec's message says what is wrong), ``wrong_seat``, ``not_seated``, ``bad_token``,
``illegal`` (refused by the rules: the message names the R-number), ``no_table``,
``no_spectators``, ``spectators_full``, ``seated``, ``internal``.

>>> message = parse_client('{"type": "play", "seq": 3, "card": "QS"}')
>>> message.seq, message.action(seat=1)
(3, Play(seat=1, card=Card('QS')))
>>> message = parse_client('{"type": "play", "seq": 3, "seat": 2, "card": "QS"}')
>>> message.action(seat=1)
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: this connection acts for seat 1, not for seat 2
>>> parse_client('{"type": "jump"}')
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: unknown message type 'jump'; expected one of: hello, watch, pass, play, moon, sync, ping
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from hearts.actions import ACTION_TYPES, Action, from_dict
from hearts.errors import ActionError

MAX_MESSAGE_BYTES: Final = 4096
"""Client messages longer than this are refused (an error to that client; nothing changes)."""

CLIENT_TYPES: Final = ("hello", "watch", *ACTION_TYPES, "sync", "ping")


class ProtocolError(ValueError):
    """A message the server cannot accept; ``code`` is a short machine-readable name."""

    def __init__(self, message: str, code: str = "bad_message") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Hello:
    """Take the seat whose secret ``token`` this is."""

    token: str


@dataclass(frozen=True)
class Watch:
    """Watch the table as a spectator."""


@dataclass(frozen=True)
class Sync:
    """Ask for the full state again."""


@dataclass(frozen=True)
class Ping:
    """Ask for a ``pong``."""


@dataclass(frozen=True)
class ActionMessage:
    """A ``pass``, ``play`` or ``moon``: the codec's object (``fields``, ``seq`` included) and
    the ``seq`` the client saw. :meth:`action` makes it the connection's seat's action."""

    seq: int
    fields: Mapping[str, Any]

    def action(self, seat: int) -> Action:
        """The action of ``seat`` (the connection's): a ``seat`` in the message must be it.

        Raises :class:`ProtocolError` (code ``wrong_seat``, or ``bad_message`` with the codec's
        reason for a malformed action).
        """
        claimed = self.fields.get("seat", seat)
        if type(claimed) is not int or claimed != seat:
            raise ProtocolError(f"this connection acts for seat {seat}, not for seat {claimed!r:.20}", "wrong_seat")
        try:
            return from_dict({**self.fields, "seat": seat}, allow=("seq",))
        except ActionError as e:
            raise ProtocolError(str(e), "bad_message") from None


ClientMessage = Hello | Watch | Sync | Ping | ActionMessage
"""Any message a client may send."""


def parse_client(raw: str | bytes | None) -> ClientMessage:
    """Check and parse one client message; raises :class:`ProtocolError` with a clear message.

    An action's own fields are checked by :meth:`ActionMessage.action`, once its seat is known.
    """
    if raw is None:
        raise ProtocolError("empty message", "bad_message")
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            f"message of {size} bytes is too large (at most {MAX_MESSAGE_BYTES})", "too_large"
        )
    if isinstance(raw, bytes):
        raise ProtocolError("binary messages are not accepted; send JSON text", "bad_json")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ProtocolError(f"malformed JSON: {e}", "bad_json") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"a message must be a JSON object with a 'type', not {raw:.40}", "bad_message")
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            f"unknown message type {kind!r:.40}; expected one of: {', '.join(CLIENT_TYPES)}", "unknown_type"
        )
    if kind == "hello":
        token = data.get("token")
        if not isinstance(token, str) or not token:
            raise ProtocolError("'hello' needs a 'token' string", "bad_message")
        return Hello(token)
    if kind == "watch":
        return Watch()
    if kind == "sync":
        return Sync()
    if kind == "ping":
        return Ping()
    seq = data.get("seq")
    if type(seq) is not int or seq < 0:
        raise ProtocolError(f"'{kind}' needs 'seq', the sequence number you saw (got {seq!r:.20})", "bad_message")
    return ActionMessage(seq, data)


def error_message(message: str, code: str, seq: int | None = None) -> dict[str, Any]:
    """An ``error`` message (sent to the offending client only)."""
    return {"type": "error", "code": code, "message": message, "seq": seq}
