"""The WebSocket protocol of the web table: typed JSON messages in and out.

Client → server (every action carries ``seq``, the table's sequence number the client saw)::

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

A ``state`` is built from the seat's :class:`~hearts.view.View` and public table facts only
(RULES.md R7). A spectator's ``state`` has ``"you": null`` and a ``view`` holding only
:meth:`View.public_dict() <hearts.view.View.public_dict>` — no ``seat``, ``hand``, ``legal``,
``passed``, ``received`` nor any other private field: it shows what every seat may know and
nothing more. A spectator cannot act (its ``pass``/``play``/``moon`` get an error of code
``not_seated``); it may send ``hello`` with a seat's token later to take that seat. A ``watch``
is refused with ``no_spectators`` on a table created with ``"spectators": false`` and with
``spectators_full`` when the table already has its maximum of spectators. The ``table`` facts
count the spectators (``spectators``) and never list them among the ``online`` seats. An action whose ``seq`` is not the table's current one (stale or duplicate) is
answered with a ``state`` of reason ``resync`` and is not applied — except a pass made during
the same pass phase, which does not depend on the other seats' passes.

>>> parse_client('{"type": "play", "seq": 3, "card": "QS"}')
Action(type='play', seq=3, card='QS', cards=None, choice=None, token=None)
>>> parse_client('{"type": "jump"}')
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: unknown message type 'jump'; expected one of: hello, watch, pass, play, moon, sync, ping
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

MAX_MESSAGE_BYTES: Final = 4096
"""Client messages longer than this are refused (an error to that client; nothing changes)."""

CLIENT_TYPES: Final = ("hello", "watch", "pass", "play", "moon", "sync", "ping")
ACTION_TYPES: Final = ("pass", "play", "moon")


class ProtocolError(ValueError):
    """A message the server cannot accept; ``code`` is a short machine-readable name."""

    def __init__(self, message: str, code: str = "bad_message") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Action:
    """A parsed client message."""

    type: str
    seq: int | None = None
    card: str | None = None
    cards: tuple[str, ...] | None = None
    choice: str | None = None
    token: str | None = None


def parse_client(raw: str | bytes | None) -> Action:
    """Check and parse one client message; raises :class:`ProtocolError` with a clear message."""
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
        raise ProtocolError("a message must be a JSON object with a 'type'", "bad_message")
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            f"unknown message type {kind!r}; expected one of: {', '.join(CLIENT_TYPES)}", "unknown_type"
        )
    if kind == "hello":
        token = data.get("token")
        if not isinstance(token, str) or not token:
            raise ProtocolError("'hello' needs a 'token' string", "bad_message")
        return Action("hello", token=token)
    if kind in ("watch", "sync", "ping"):
        return Action(kind)
    seq = data.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        raise ProtocolError(f"'{kind}' needs 'seq', the sequence number you saw (got {seq!r})", "bad_message")
    if kind == "play":
        card = data.get("card")
        if not isinstance(card, str):
            raise ProtocolError(f"'play' needs a 'card' such as \"QS\" (got {card!r})", "bad_message")
        return Action("play", seq=seq, card=card)
    if kind == "pass":
        cards = data.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise ProtocolError(f"'pass' needs 'cards', a list such as [\"QS\", \"AH\", \"2C\"] (got {cards!r})")
        return Action("pass", seq=seq, cards=tuple(cards))
    choice = data.get("choice")
    if choice not in ("add", "subtract"):
        raise ProtocolError(f"'moon' needs 'choice': \"add\" or \"subtract\" (got {choice!r})")
    return Action("moon", seq=seq, choice=choice)


def error_message(message: str, code: str, seq: int | None = None) -> dict[str, Any]:
    """An ``error`` message (sent to the offending client only)."""
    return {"type": "error", "code": code, "message": message, "seq": seq}
