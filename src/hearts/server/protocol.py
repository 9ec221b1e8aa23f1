"""Checking what clients send: the WebSocket messages of the web table, read into their types
(:mod:`hearts.server.wire`, where every message in and out is declared once and from which
``docs/protocol.md`` is made), and the lobby's HTTP requests (JSON bodies: :class:`TableRequest`,
:class:`JoinRequest`, :class:`InviteRequest`). Any JSON the server reads goes through
:func:`decode_json`, which refuses what could hurt the server before it is built.

>>> message = parse_client('{"type": "play", "seq": 3, "card": "QS"}')
>>> message.seq, seat_action(message, seat=1)
(3, Play(seat=1, card=Card('QS')))
>>> message = parse_client('{"type": "play", "seq": 3, "seat": 2, "card": "QS"}')
>>> seat_action(message, seat=1)
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: this connection acts for seat 1, not for seat 2
>>> parse_client('{"type": "jump"}')
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: unknown message type 'jump'; expected one of: hello, watch, pass, play, moon, sync, back, ping, chat, name, hint, rematch, mark, report
>>> parse_client('{"type": "chat", "text": "  well played  "}'), parse_client('{"type": "name", "name": "Ann"}')
(Chat(text='well played'), Rename(name='Ann'))
>>> parse_client('{"type": "sync", "since": 4}')
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: 'sync' has no field 'since'
>>> parse_client('{"type": "hint", "seq": "9"}')
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: 'hint' needs 'seq', the sequence number you saw (a whole number from 0) (got '9')
>>> decode_json('{"target": ' + "9" * 5000 + "}")
Traceback (most recent call last):
...
hearts.server.protocol.ProtocolError: a number of 5000 characters (at most 16)
"""

from __future__ import annotations

import json
import math
import re
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import msgspec

from hearts.actions import Action, from_dict
from hearts.bots.registry import LEVELS, check_table
from hearts.errors import ActionError, HeartsError
from hearts.rules import PRESETS, Rules
from hearts.server.limits import DEFAULT_LIMITS, Limits, Refused
from hearts.server.wire import (
    CLIENT_TYPES,
    Back,
    ClientMessage,
    Error,
    Hello,
    MoonMessage,
    PassMessage,
    Ping,
    PlayMessage,
    SeatAction,
    Sync,
    encode,
)

SEAT_KINDS: Final = ("human", "open", "bot")
LEVEL_NAMES: Final = tuple(LEVELS)
"""The bots a service offers by default: the four levels (``hearts serve --bots`` adds more)."""
STAND_IN: Final = "medium"
"""The bot level that plays for an absent seat when the table names none."""



class ProtocolError(Refused):
    """A message or request the server cannot read; ``code`` is a short machine-readable name
    (HTTP status 400)."""

    def __init__(self, message: str, code: str = "bad_message", close_code: int | None = None) -> None:
        super().__init__(message, 400, code, close_code)


def seat_action(message: SeatAction, seat: int) -> Action:
    """The action of ``seat`` (the connection's) that ``message`` makes: a ``seat`` in the
    message must be it. Raises :class:`ProtocolError` (code ``wrong_seat``, or ``bad_message``
    with the codec's reason for a malformed action)."""
    claimed = seat if message.seat is msgspec.UNSET else message.seat
    if type(claimed) is not int or claimed != seat:
        raise ProtocolError(f"this connection acts for seat {seat}, not for seat {claimed!r:.20}", "wrong_seat")
    fields = {f: getattr(message, f) for f in message.__struct_fields__ if f not in ("seq", "seat")}
    try:
        return from_dict({"type": message.__struct_config__.tag, "seat": seat, **fields})
    except ActionError as e:
        raise ProtocolError(str(e), "bad_message") from None


_FIELD_WORDS: Final = {
    "seq": "'seq', the sequence number you saw (a whole number from 0)",
    "token": "a 'token' string (the one of your invite link)",
    "cards": "'cards', a list of cards",
    "card": "'card', a card such as \"QS\"",
    "choice": "'choice', \"add\" or \"subtract\"",
}
"""What a client message's field must be, in words (for the errors)."""

_AT_FIELD: Final = re.compile(r" - at `\$\.(\w+)`$|^Object missing required field `(\w+)`$")
_UNKNOWN_FIELD: Final = re.compile(r"^Object contains unknown field `(.+)`$")


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
    """Check and parse one client message into its type (:mod:`hearts.server.wire`: unknown
    fields are refused); raises :class:`ProtocolError` with a clear message.

    An action's own fields are checked by :func:`seat_action`, once its seat is known.
    """
    if raw is None:
        raise ProtocolError("empty message", "bad_message")
    size = len(raw.encode("utf-8", "replace")) if isinstance(raw, str) else len(raw)
    if size > limits.max_message:
        raise ProtocolError(f"message of {size} bytes is too large (at most {limits.max_message})", "too_large")
    if isinstance(raw, bytes):
        raise ProtocolError("binary messages are not accepted; send JSON text", "bad_json")
    try:
        plain = _PLAIN.decode(raw)
    except msgspec.DecodeError:
        plain = None  # not one of them, or something wrong: the careful way finds what, in a client's words
    if plain is not None and not _long_numbers(plain, limits):
        return typing.cast(ClientMessage, plain)
    data = decode_json(raw, limits)
    if not isinstance(data, dict):
        raise ProtocolError(f"a message must be a JSON object with a 'type', not {raw:.40}", "bad_message")
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            f"unknown message type {kind!r:.40}; expected one of: {', '.join(CLIENT_TYPES)}", "unknown_type"
        )
    if kind == "chat":  # its text's own checks first: their words say what is wrong
        data = {**data, "text": check_chat(data.get("text"), limits)}
    elif kind == "name":
        name = check_name(data.get("name"), limits, code="bad_name")
        if not name:
            raise ProtocolError("a name cannot be empty: choose one the others can call you", "bad_name")
        data = {**data, "name": name}
    elif kind == "report":
        data = {**data, "reason": check_reason(data.get("reason"))}
    message = _typed(kind, data, "bad_name" if kind == "name" else "bad_message")
    if isinstance(message, Hello) and not message.token.isascii():
        raise ProtocolError(f"'hello' needs {_FIELD_WORDS['token']}", "bad_message")
    return message


_PLAIN: Final = msgspec.json.Decoder(PassMessage | PlayMessage | MoonMessage | Sync | Back | Ping)
"""The messages of play, whose fields have no checks of their own beyond their types: a
well-formed one is decoded and checked in one pass (numbers past 64 bits, ``NaN`` and any
nesting are refused by the types)."""


def _long_numbers(message: msgspec.Struct, limits: Limits) -> bool:
    """Whether a message of play may hold a number :func:`decode_json` refuses: a ``seq``
    longer than ``limits.max_number_digits``, or a ``seat`` (of any JSON type) that is not a
    plain integer of at most that many digits."""
    if not isinstance(message, SeatAction):
        return False
    bound = 10 ** limits.max_number_digits
    seat = message.seat
    return message.seq >= bound or (seat is not msgspec.UNSET and (type(seat) is not int or abs(seat) >= bound))


def _typed(kind: str, data: dict[str, Any], code: str = "bad_message") -> ClientMessage:
    """``data`` as its message type, or a :class:`ProtocolError` (``code``) saying, in a
    client's words, which field is wrong."""
    try:
        return typing.cast(ClientMessage, msgspec.convert(data, ClientMessage))
    except msgspec.ValidationError as e:
        reason = str(e)
    unknown = _UNKNOWN_FIELD.match(reason)
    if unknown:
        raise ProtocolError(f"'{kind}' has no field {unknown.group(1)!r:.40}", code) from None
    at = _AT_FIELD.search(reason)
    field = next((f for f in at.groups() if f), "") if at else ""
    words = _FIELD_WORDS.get(field, f"'{field}'")
    value = data.get(field)
    raise ProtocolError(f"'{kind}' needs {words} (got {value!r:.20})" if at else reason.replace("`", "'"), code) from None


MAX_REASON: Final = 500
"""Characters of a report's reason, at most (:data:`hearts.server.storage.MAX_REASON`)."""


def check_reason(reason: Any) -> str:
    """A report's reason as it is kept: its words separated by single spaces, 1 to
    :data:`MAX_REASON` printable characters; :class:`ProtocolError` (``bad_message``) if not.

    >>> check_reason("  rude\\n words ")
    'rude words'
    >>> check_reason("")
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: a report needs a reason: 1 to 500 characters saying what happened
    """
    text = " ".join(reason.split()) if isinstance(reason, str) else ""
    if not text or len(text) > MAX_REASON or not text.isprintable():
        got = f" (got {len(text)})" if len(text) > MAX_REASON else ""
        raise ProtocolError(f"a report needs a reason: 1 to {MAX_REASON} characters saying what happened{got}",
                            "bad_message")
    return text


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


def check_name(name: Any, limits: Limits = DEFAULT_LIMITS, where: str = "", code: str = "bad_request") -> str:
    """A player's name as it is kept: stripped; it must be a string of at most
    ``limits.max_name`` printable characters, none of :data:`RESERVED_NAMES` (it may be empty:
    the caller decides what that means). Raises :class:`ProtocolError` with ``code``, in the
    words of the page that shows it to a player: ``where`` begins the message (``"Seat 1: "``:
    the seats are numbered from 1 there).

    >>> check_name("  Ann ")
    'Ann'
    >>> check_name("A" * 41)
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: a name has at most 40 characters, all printable (no control characters or line breaks)
    >>> check_name(" You ", where="Seat 1: ")
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: Seat 1: “You” cannot be a name: “you” is what the page calls each player; choose a name the others can call you
    """
    words = f"{where}a name has at most {limits.max_name} characters, all printable (no control characters or line breaks)"
    if not isinstance(name, str):
        raise ProtocolError(words, code)
    kept: str = name.strip()
    if len(kept) > limits.max_name or not kept.isprintable():
        raise ProtocolError(words, code)
    if kept.casefold() in RESERVED_NAMES:
        raise ProtocolError(
            f"{where}“{kept}” cannot be a name: “you” is what the page calls each player; "
            "choose a name the others can call you",
            code,
        )
    return kept


def error_message(message: str, code: str, seq: int | None = None, why: str | None = None) -> str:
    """An ``error`` message (sent to the offending client only), as sent."""
    return encode(Error(code=code, message=message, seq=seq, why=why))


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
        (:func:`check_name`); ``None`` when absent or blank. The refusal names a seat's
        object by its seat ("Seat 1: …"), and says nothing of a request's."""
        if self.data.get("name") is None:
            return None
        where = "" if self.what == "the request" else f"{self.what}: "
        return check_name(self.data["name"], limits, where) or None


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
    hearts.server.protocol.ProtocolError: the request: unknown field 'colour'; allowed: seats, preset, options, target, spectators, listed, turn_timer, stand_in, rated, chat, bot_pace
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
    chat: bool = True
    """Whether the table has a chat (false: every line is refused, ``chat_off``)."""
    bot_pace: float | None = None
    """Seconds before each bot move, as the creator asked (held within the server's
    ``min_bot_pace``…``max_bot_pace``); ``None``: the server's ``--bot-delay``."""

    FIELDS: ClassVar = (
        "seats", "preset", "options", "target", "spectators", "listed", "turn_timer", "stand_in", "rated", "chat",
        "bot_pace",
    )

    @property
    def all_bots(self) -> bool:
        """Whether every seat is a bot (nobody plays: the bots think at a lower priority)."""
        return all(s.kind == "bot" for s in self.seats)

    @classmethod
    def parse(cls, data: Any, limits: Limits = DEFAULT_LIMITS, bots: Sequence[str] = LEVEL_NAMES) -> TableRequest:
        """Check a request: ``seats`` (a list of 3 to 6 ``{"kind": "human", "name": ...}``,
        ``{"kind": "open"}`` or ``{"kind": "bot", "level": "easy"}``), ``preset`` (a name),
        ``options`` (an object of docs/rules.md options), ``target``, ``spectators``, ``listed``,
        ``turn_timer`` (seconds, 0 to ``limits.max_turn_timer``), ``stand_in`` (a bot level),
        ``rated`` (true or false), ``chat`` (true or false: whether the table has a chat),
        ``bot_pace`` (seconds before each bot move, 0 to 60, held within ``limits.min_bot_pace``
        … ``limits.max_bot_pace``).

        A bot seat's ``level`` and the ``stand_in`` are one of ``bots``, the bot specs the
        service offers (default: the four levels; ``hearts serve --bots`` adds more), each able
        to play the table's rules (:func:`~hearts.bots.check_table`); a rated table's bots are
        levels, the only bots with a rating (:mod:`hearts.server.ratings`).

        >>> TableRequest.parse({"seats": [{"kind": "bot", "level": "random"}] * 3}, bots=["medium", "random"]).seats[0]
        SeatRequest(kind='bot', name=None, level='random')
        >>> TableRequest.parse({"seats": [{"kind": "bot"}] * 3, "bot_pace": 0}).bot_pace  # the server's least
        0.2
        >>> TableRequest.parse({"seats": [{"kind": "bot"}] * 3, "bot_pace": "fast"})
        Traceback (most recent call last):
        ...
        hearts.server.protocol.ProtocolError: the request: 'bot_pace' must be a number of seconds, 0 to 60, not 'fast'
        """
        f = _Fields(data, "the request", cls.FIELDS)
        seats_in = f.get("seats", list, "a list of 3 to 6 seats", [])
        if not 3 <= len(seats_in) <= 6:
            raise ProtocolError("'seats' must be a list of 3 to 6 seats", "bad_request")
        seats = tuple(_seat(i, spec, limits, bots) for i, spec in enumerate(seats_in))
        named = [(i, s.name) for i, s in enumerate(seats) if s.name]
        twice = next(((i, j, a) for i, a in named for j, b in named if i < j and a.casefold() == b.casefold()), None)
        if twice is not None:
            i, j, name = twice
            raise ProtocolError(
                f"Seats {i + 1} and {j + 1} are both named “{name}”: every player needs a name of their own", "bad_request"
            )
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
        stand_in = _level(f.get("stand_in", str, "a bot level", STAND_IN), "'stand_in'", bots)
        rated = f.get("rated", bool, "true or false", False)
        _check_bots(seats, stand_in, rules, rated)
        pace = f.get("bot_pace", (int, float), "a number of seconds, 0 to 60")
        if pace is not None and not 0 <= pace <= 60:  # (NaN and infinities are no JSON)
            raise ProtocolError(f"the request: 'bot_pace' must be a number of seconds, 0 to 60, not {pace!r:.40}", "bad_request")
        return cls(
            seats,
            rules,
            spectators=f.get("spectators", bool, "true or false", True),
            listed=f.get("listed", bool, "true or false", listed_by_default(s.kind for s in seats)),
            turn_timer=turn_timer,
            stand_in=stand_in,
            rated=rated,
            chat=f.get("chat", bool, "true or false", True),
            bot_pace=None if pace is None else limits.bot_pace(pace),
        )


def listed_by_default(kinds: Iterable[str]) -> bool:
    """Whether the lobby lists a table whose seats are of these kinds when its request does
    not say: when it has an open seat (taken from the lobby), not when its people are invited."""
    return "open" in kinds


def _level(level: str, what: str, bots: Sequence[str]) -> str:
    if level not in bots:
        raise ProtocolError(f"{what}: bot level {level!r:.60} is not one of {', '.join(bots)}", "bad_request")
    return level


def _seat(i: int, spec: Any, limits: Limits, bots: Sequence[str]) -> SeatRequest:
    where = f"Seat {i + 1}"  # the lobby's form numbers the seats from 1
    f = _Fields(spec, where, ("kind", "name", "level"))
    kind = f.get("kind", str, f"one of {', '.join(SEAT_KINDS)}", "human")
    if kind not in SEAT_KINDS:
        raise ProtocolError(f"{where}: kind {kind!r:.40} is not one of {', '.join(SEAT_KINDS)}", "bad_request")
    name = f.name(limits)
    level = _level(f.get("level", str, "a bot level", STAND_IN), where, bots) if kind == "bot" else None
    return SeatRequest(kind, name, level)


def _check_bots(seats: Sequence[SeatRequest], stand_in: str, rules: Rules, rated: bool) -> None:
    """Refuse a table whose bots cannot play its rules, or a rated one seating a bot that is no
    level (only the levels have a rating)."""
    if rated:
        for i, seat in enumerate(seats):
            if seat.level is not None and seat.level not in LEVELS:
                raise ProtocolError(
                    f"Seat {i + 1}: a rated table's bots are levels ({', '.join(LEVELS)}), "
                    f"the bots with a rating; {seat.level!r:.60} has none", "bad_request",
                )
    try:
        check_table([*(s.level for s in seats if s.level is not None), stand_in], rules)
    except HeartsError as e:
        raise ProtocolError(str(e), "bad_request") from None


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
