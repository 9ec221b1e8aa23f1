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
    {"type": "back"}                                         play yourself again (after the
                                                             table's stand-in bot took over)
    {"type": "ping"}

Table talk (a seat's connection only; a spectator reads the chat and is told of a rematch)::

    {"type": "chat", "text": "nice trick!"}                  at most ``max_chat`` printable
                                                             characters, ``chat_rate`` a connection
    {"type": "name", "name": "Ann"}                          choose your seat's name (until the
                                                             game ends; not another seat's)
    {"type": "hint", "seq": 9}                               what the search bot would do from
                                                             your view (R7), at your turn
    {"type": "rematch"}                                      once the game is over: a new table,
                                                             the same seats (one per table)

Server → client::

    {"type": "state", "reason": "welcome"|"event"|"resync"|"table", "seq": N, "you": seat,
     "view": View.to_dict(), "table": {...public facts...}, "event": {...}|null}
    {"type": "presence", "online": [seats], "names": [...], "spectators": N, "away": [seats]}
    {"type": "error", "code": "...", "message": "...", "seq": N}
    {"type": "pong"}
    {"type": "chat", "lines": [{"id": 7, "seat": 1, "text": "..."}], "history": bool}
    {"type": "hint", "seq": N, "action": {...codec...}, "text": "Hint: play Q♠"}
    {"type": "rematch", "table": "id", "by": seat, "name": "Ann"}   (every client of the old table)

A state's ``event`` is the last accepted action in the codec, without a pass's cards (they are
the passer's secret), and with the ``seq`` it brought the table to:
``{"type": "play", "seat": 1, "card": "QS", "seq": 9}``, ``{"type": "pass", "seat": 2, "seq": 3}``.

A ``state`` is built from the seat's :class:`~hearts.view.View` and public table facts only
(docs/rules.md R7). A spectator's ``state`` has ``"you": null`` and a ``view`` holding only
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

A table with a turn timer (``turn_timer`` seconds in its facts) gives each seat that is to act
that long; ``time_left`` in the facts holds each seat's seconds left (``null``: no clock runs
for it). A seat whose time runs out is ``away`` (in the facts and in ``presence``): the table's
stand-in bot plays for it until the seat's person comes back — a ``hello``, an action or
``back`` from the seat.

Error codes: ``bad_json``, ``too_large``, ``unknown_type``, ``bad_message`` (a malformed message
or action: the codec's message says what is wrong), ``wrong_seat``, ``not_seated``, ``bad_token``,
``illegal`` (refused by the rules: the message names the R-number), ``no_table``,
``no_spectators``, ``spectators_full``, ``seated``, ``rate_limited``, ``timeout`` (no ``hello``
or ``watch`` in time), ``internal``; of the table talk: ``too_long`` (a chat message),
``bad_name``, ``name_taken``, ``game_over`` (a name change after the end), ``not_your_turn``
(a hint), ``not_over`` (a rematch before the end); ``seat_freed`` (the table's creator gave
the seat a new invite link: the connection is closed).

The server closes a connection with a code and a reason, after the error messages queued for
it: 1008 (too many messages, too many wrong tokens, no ``hello`` or ``watch`` in time, a table
without spectators, a seat given a new invite link), 1013 (too many connections from the address, the table's spectators full,
a client too slow to keep up), 4404 (no such table), 1001 (the server is shutting down).

The lobby's requests (HTTP, JSON bodies) are checked here too: :class:`TableRequest` and
:class:`JoinRequest`; any JSON the server reads goes through :func:`decode_json`.

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
hearts.server.protocol.ProtocolError: unknown message type 'jump'; expected one of: hello, watch, pass, play, moon, sync, back, ping, chat, name, hint, rematch
>>> parse_client('{"type": "chat", "text": "  well played  "}'), parse_client('{"type": "name", "name": "Ann"}')
(Chat(text='well played'), Rename(name='Ann'))
>>> decode_json('{"target": ' + "9" * 5000 + "}")
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: a number of 5000 characters (at most 16)
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from hearts.actions import ACTION_TYPES, Action, from_dict
from hearts.bots.registry import LEVELS
from hearts.errors import ActionError, HeartsError
from hearts.rules import PRESETS, Rules
from hearts.server.limits import DEFAULT_LIMITS, Limits, Refused

CLIENT_TYPES: Final = ("hello", "watch", *ACTION_TYPES, "sync", "back", "ping", "chat", "name", "hint", "rematch")
SEAT_KINDS: Final = ("human", "open", "bot")
STAND_IN: Final = "medium"
"""The bot level that plays for an absent seat when the table names none."""
MAX_TOKEN: Final = 128
"""Characters of a seat's token in a ``hello`` (the server makes 24)."""


class ProtocolError(Refused):
    """A message or request the server cannot read; ``code`` is a short machine-readable name
    (HTTP status 400)."""

    def __init__(self, message: str, code: str = "bad_message", close_code: int | None = None) -> None:
        super().__init__(message, 400, code, close_code)


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
class Back:
    """The seat's person plays again (the stand-in bot stops playing for it)."""


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


@dataclass(frozen=True)
class Chat:
    """A chat message from a seat to everyone at the table: printable text (no control
    characters, no line breaks), stripped, of 1 to ``limits.max_chat`` characters."""

    text: str


@dataclass(frozen=True)
class Rename:
    """The seat's person chooses its name (:func:`check_name`'s rules, not empty)."""

    name: str


@dataclass(frozen=True)
class HintRequest:
    """Ask what the hint bot would do for the seat at position ``seq`` (the table's sequence
    number the client saw)."""

    seq: int


@dataclass(frozen=True)
class Rematch:
    """Ask for a new table with the same seats, once the game is over."""


TalkMessage = Chat | Rename | HintRequest | Rematch
"""The table talk: chat, a name, a hint, a rematch (:meth:`hearts.server.tables.talk.Talk.take`)."""

ClientMessage = Hello | Watch | Sync | Back | Ping | ActionMessage | TalkMessage
"""Any message a client may send."""

_SIMPLE: Final[dict[str, ClientMessage]] = {
    "watch": Watch(), "sync": Sync(), "back": Back(), "ping": Ping(), "rematch": Rematch()
}


def decode_json(raw: str | bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse JSON text that a client sent, refusing what could hurt the server before it is
    built: a number longer than ``limits.max_number_digits`` (a 5,000-digit integer is never
    converted), ``NaN`` and infinities, nesting deeper than ``limits.max_json_depth``. Raises
    :class:`ProtocolError` (code ``bad_json``).
    """

    def number(text: str) -> float | int:
        if len(text) > limits.max_number_digits:
            raise ProtocolError(
                f"a number of {len(text)} characters (at most {limits.max_number_digits})", "bad_json"
            )
        value = float(text) if any(c in text for c in ".eE") else int(text)
        if not math.isfinite(value):
            raise ProtocolError(f"the number {text} is out of range", "bad_json")
        return value

    def constant(text: str) -> Any:
        raise ProtocolError(f"{text} is not JSON", "bad_json")

    try:
        data = json.loads(raw, parse_int=number, parse_float=number, parse_constant=constant)
    except RecursionError:
        data = None
        depth_error = True
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ProtocolError(f"malformed JSON: {e}", "bad_json") from None
    else:
        depth_error = _depth(data) > limits.max_json_depth
    if depth_error:
        raise ProtocolError(f"JSON nested deeper than {limits.max_json_depth} levels", "bad_json")
    return data


def _depth(data: Any) -> int:
    """How deeply arrays and objects nest in a parsed JSON value (a scalar: 0)."""
    deepest = 0
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_client(raw: str | bytes | None, limits: Limits = DEFAULT_LIMITS) -> ClientMessage:
    """Check and parse one client message; raises :class:`ProtocolError` with a clear message.

    An action's own fields are checked by :meth:`ActionMessage.action`, once its seat is known.
    """
    if raw is None:
        raise ProtocolError("empty message", "bad_message")
    size = len(raw.encode("utf-8", "replace")) if isinstance(raw, str) else len(raw)
    if size > limits.max_message:
        raise ProtocolError(f"message of {size} bytes is too large (at most {limits.max_message})", "too_large")
    if isinstance(raw, bytes):
        raise ProtocolError("binary messages are not accepted; send JSON text", "bad_json")
    data = decode_json(raw, limits)
    if not isinstance(data, dict):
        raise ProtocolError(f"a message must be a JSON object with a 'type', not {raw:.40}", "bad_message")
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            f"unknown message type {kind!r:.40}; expected one of: {', '.join(CLIENT_TYPES)}", "unknown_type"
        )
    if kind == "hello":
        token = data.get("token")
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN or not token.isascii():
            raise ProtocolError("'hello' needs a 'token' string (the one of your invite link)", "bad_message")
        return Hello(token)
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind == "chat":
        return Chat(check_chat(data.get("text"), limits))
    if kind == "name":
        name = check_name(data.get("name"), limits, "'name'", "bad_name")
        if not name:
            raise ProtocolError("'name' cannot be empty: choose a name", "bad_name")
        return Rename(name)
    seq = data.get("seq")
    if type(seq) is not int or seq < 0:
        raise ProtocolError(f"'{kind}' needs 'seq', the sequence number you saw (got {seq!r:.20})", "bad_message")
    if kind == "hint":
        return HintRequest(seq)
    return ActionMessage(seq, data)


def check_chat(text: Any, limits: Limits = DEFAULT_LIMITS) -> str:
    """A chat message's text as it is kept: stripped; it must be a string of 1 to
    ``limits.max_chat`` printable characters (no control character, no line break). Raises
    :class:`ProtocolError` (code ``too_long``, or ``bad_message``).

    >>> check_chat("gg")
    'gg'
    >>> check_chat("hi\x07there")
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: a chat message is text without control characters or line breaks
    """
    if not isinstance(text, str):
        raise ProtocolError(f"'chat' needs 'text', a string (got {text!r:.20})", "bad_message")
    kept: str = text.strip()
    if len(kept) > limits.max_chat:
        raise ProtocolError(f"a chat message has at most {limits.max_chat} characters, not {len(kept)}", "too_long")
    if not kept:
        raise ProtocolError("a chat message cannot be empty", "bad_message")
    if not kept.isprintable():
        raise ProtocolError("a chat message is text without control characters or line breaks", "bad_message")
    return kept


RESERVED_NAMES: Final = frozenset({"you"})
"""Names nobody goes by (compared case-insensitively): the page calls each player "you", so
the others would read a player called "You" as themselves."""


def check_name(name: Any, limits: Limits = DEFAULT_LIMITS, what: str = "'name'", code: str = "bad_request") -> str:
    """A player's name as it is kept: stripped; it must be a string of at most
    ``limits.max_name`` printable characters, none of :data:`RESERVED_NAMES` (it may be empty:
    the caller decides what that means). Raises :class:`ProtocolError` with ``code``.

    >>> check_name("  Ann ")
    'Ann'
    >>> check_name("A" * 41)
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: 'name' must be a name of at most 40 printable characters
    >>> check_name(" you ")
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: 'name' cannot be 'you': the page calls every player so; choose a name the others can call you
    """
    words = f"a name of at most {limits.max_name} printable characters"
    if not isinstance(name, str):
        raise ProtocolError(f"{what} must be {words}, not {name!r:.40}", code)
    kept: str = name.strip()
    if len(kept) > limits.max_name or not kept.isprintable():
        raise ProtocolError(f"{what} must be {words}", code)
    if kept.casefold() in RESERVED_NAMES:
        raise ProtocolError(
            f"{what} cannot be {kept!r}: the page calls every player so; choose a name the others can call you", code
        )
    return kept


def error_message(message: str, code: str, seq: int | None = None) -> dict[str, Any]:
    """An ``error`` message (sent to the offending client only)."""
    return {"type": "error", "code": code, "message": message, "seq": seq}


# --- the lobby's requests -----------------------------------------------------------------


class _Fields:
    """The fields of a request object, each taken once with its type checked; :meth:`done`
    refuses the fields nobody took (unknown fields)."""

    def __init__(self, data: Any, what: str, allowed: tuple[str, ...]) -> None:
        if not isinstance(data, dict):
            raise ProtocolError(f"{what} must be a JSON object", "bad_request")
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise ProtocolError(
                f"{what}: unknown field {unknown[0]!r:.40}; allowed: {', '.join(allowed)}", "bad_request"
            )
        self.data = data
        self.what = what

    def get(self, name: str, kind: type | tuple[type, ...], words: str, default: Any = None) -> Any:
        """The field ``name`` (``default`` when absent or null), which must be of ``kind``
        (an ``int`` is never a ``bool``)."""
        value = self.data.get(name)
        if value is None:
            return default
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise ProtocolError(f"{self.what}: '{name}' must be {words}, not {value!r:.40}", "bad_request")
        return value

    def name(self, limits: Limits) -> str | None:
        """The ``name`` field: printable text of at most ``limits.max_name`` characters
        (:func:`check_name`); ``None`` when absent or blank."""
        name: str | None = self.get("name", str, f"a name of at most {limits.max_name} printable characters")
        if name is None:
            return None
        return check_name(name, limits, f"{self.what}: 'name'") or None


@dataclass(frozen=True)
class SeatRequest:
    """One seat of a new table: a ``human`` (an invite link is made for it), an ``open`` seat
    (taken from the lobby) or a ``bot`` of a ``level``."""

    kind: str
    name: str | None = None
    level: str | None = None


@dataclass(frozen=True)
class TableRequest:
    """A lobby's request for a new table (``POST /api/tables``), checked:
    :meth:`parse` builds it from the JSON body or raises :class:`ProtocolError`.

    >>> r = TableRequest.parse({"seats": [{"kind": "human", "name": "Ann"}, {"kind": "open"},
    ...                                   {"kind": "bot", "level": "easy"}], "turn_timer": 30})
    >>> r.rules.players, r.listed, r.turn_timer, r.stand_in, r.all_bots
    (3, True, 30, 'medium', False)
    >>> TableRequest.parse({"seats": [{"kind": "bot"}] * 4, "colour": "red"})
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: the request: unknown field 'colour'; allowed: seats, preset, options, target, spectators, listed, turn_timer, stand_in, rated
    """

    seats: tuple[SeatRequest, ...]
    rules: Rules
    spectators: bool = True
    """Whether anyone may watch."""
    listed: bool = False
    """Whether the lobby lists the table (default: when it has an open seat)."""
    turn_timer: int = 0
    """Seconds a seat has to act before the stand-in bot plays for it (0: no timer)."""
    stand_in: str = STAND_IN
    """The bot level that plays for an absent seat."""
    rated: bool = False
    """Whether the game counts for the players' ratings (:mod:`hearts.server.ratings`; the app
    checks that every person at it will sit with a player profile)."""

    FIELDS: ClassVar = (
        "seats", "preset", "options", "target", "spectators", "listed", "turn_timer", "stand_in", "rated",
    )

    @property
    def all_bots(self) -> bool:
        """Whether every seat is a bot (nobody plays: the bots think at a lower priority)."""
        return all(s.kind == "bot" for s in self.seats)

    @classmethod
    def parse(cls, data: Any, limits: Limits = DEFAULT_LIMITS) -> TableRequest:
        """Check a request: ``seats`` (a list of 3 to 6 ``{"kind": "human", "name": ...}``,
        ``{"kind": "open"}`` or ``{"kind": "bot", "level": "easy"}``), ``preset`` (a name),
        ``options`` (an object of docs/rules.md options), ``target``, ``spectators``, ``listed``,
        ``turn_timer`` (seconds, 0 to ``limits.max_turn_timer``), ``stand_in`` (a bot level),
        ``rated`` (true or false)."""
        f = _Fields(data, "the request", cls.FIELDS)
        seats_in = f.get("seats", list, "a list of 3 to 6 seats", [])
        if not 3 <= len(seats_in) <= 6:
            raise ProtocolError("'seats' must be a list of 3 to 6 seats", "bad_request")
        seats = tuple(_seat(i, spec, limits) for i, spec in enumerate(seats_in))
        named = [s.name.casefold() for s in seats if s.name]
        twice = next((n for n in named if named.count(n) > 1), None)
        if twice is not None:
            raise ProtocolError(f"two seats are named {twice!r:.44}: every seat needs a name of its own", "bad_request")
        preset = f.get("preset", str, f"one of the presets {', '.join(PRESETS)}", "standard")
        overrides = dict(f.get("options", dict, "an object of rule options", {}))
        overrides["players"] = len(seats)
        target = f.get("target", int, "an integer")
        if target is not None:
            overrides["target"] = target
        try:
            rules = Rules.preset(preset, **overrides)
        except HeartsError as e:
            raise ProtocolError(str(e), "bad_request") from None
        turn_timer = f.get("turn_timer", int, f"a whole number of seconds, 0 to {limits.max_turn_timer}", 0)
        if not 0 <= turn_timer <= limits.max_turn_timer:
            raise ProtocolError(
                f"'turn_timer' must be 0 (no timer) to {limits.max_turn_timer} seconds, not {turn_timer}", "bad_request"
            )
        return cls(
            seats,
            rules,
            spectators=f.get("spectators", bool, "true or false", True),
            listed=f.get("listed", bool, "true or false", listed_by_default(s.kind for s in seats)),
            turn_timer=turn_timer,
            stand_in=_level(f.get("stand_in", str, "a bot level", STAND_IN), "'stand_in'"),
            rated=f.get("rated", bool, "true or false", False),
        )


def listed_by_default(kinds: Iterable[str]) -> bool:
    """Whether the lobby lists a table whose seats are of these kinds when its request does
    not say: when it has an open seat (taken from the lobby), not when its people are invited."""
    return "open" in kinds


def _level(level: str, what: str) -> str:
    if level not in LEVELS:
        raise ProtocolError(f"{what}: bot level {level!r:.40} is not one of {', '.join(LEVELS)}", "bad_request")
    return level


def _seat(i: int, spec: Any, limits: Limits) -> SeatRequest:
    f = _Fields(spec, f"seat {i}", ("kind", "name", "level"))
    kind = f.get("kind", str, f"one of {', '.join(SEAT_KINDS)}", "human")
    if kind not in SEAT_KINDS:
        raise ProtocolError(f"seat {i}: kind {kind!r:.40} is not one of {', '.join(SEAT_KINDS)}", "bad_request")
    name = f.name(limits)
    level = _level(f.get("level", str, "a bot level", STAND_IN), f"seat {i}") if kind == "bot" else None
    return SeatRequest(kind, name, level)


@dataclass(frozen=True)
class JoinRequest:
    """A request to take an open seat (``POST /api/tables/{id}/join``): the ``seat`` (default:
    the first open one) and the ``name`` to sit under."""

    seat: int | None = None
    name: str | None = None

    @classmethod
    def parse(cls, data: Any, limits: Limits = DEFAULT_LIMITS) -> JoinRequest:
        """Check a request (``{"seat": 2, "name": "Ann"}``; both optional)."""
        f = _Fields(data, "the request", ("seat", "name"))
        return cls(f.get("seat", int, "a seat number"), f.name(limits))


@dataclass(frozen=True)
class InviteRequest:
    """The table's creator asks for a seat's new invite link (``POST
    /api/tables/{id}/seats/{seat}/invite``): ``{"key": "…"}``, the creator key the table's
    creation answered with.

    >>> InviteRequest.parse({"key": "k3y"}).key
    'k3y'
    >>> InviteRequest.parse({})
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: the request: 'key' is needed: the creator key this table was made with
    """

    key: str

    @classmethod
    def parse(cls, data: Any) -> InviteRequest:
        """Check a request; raises :class:`ProtocolError` (400)."""
        key = _Fields(data, "the request", ("key",)).get("key", str, "the creator key (text)")
        if not key or len(key) > 200:
            raise ProtocolError("the request: 'key' is needed: the creator key this table was made with", "bad_request")
        return cls(key)
