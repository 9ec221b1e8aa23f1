"""The web table's WebSocket messages, declared once: each a :mod:`msgspec` struct whose
``type`` is its tag, with unknown fields refused. The server reads the client's messages
through these types (:func:`hearts.server.protocol.parse_client`) and writes its own from
them; ``docs/protocol.md`` is generated from them (:func:`document`), so the page and the code
cannot disagree.

>>> msgspec.convert({"type": "play", "seq": 9, "card": "QS"}, ClientMessage)
PlayMessage(seq=9, seat=UNSET, card='QS')
>>> msgspec.convert({"type": "sync", "extra": 1}, ClientMessage)
Traceback (most recent call last):
...
msgspec.ValidationError: Object contains unknown field `extra`
>>> encode(Presence(online=[0, 2], names=["Ann", "", "Cy", ""], spectators=1, away=[]))
'{"type":"presence","online":[0,2],"names":["Ann","","Cy",""],"spectators":1,"away":[]}'
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Annotated, Any, Final, Literal, Union

import msgspec

from hearts.view import (
    apply_event as apply_event,  # a client's copy of its state: one function, in the view's layer
)

Seq = Annotated[int, msgspec.Meta(ge=0)]
"""A table's sequence number: how many actions it had applied."""

MAX_TOKEN: Final = 128
"""Characters of a seat's token in a ``hello`` (the server makes 24)."""


class Message(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True, kw_only=True):
    """A message of the protocol: its ``type`` is its tag."""


# --- client → server --------------------------------------------------------------------------


class Hello(Message, tag="hello", frozen=True):
    """Take the seat whose secret ``token`` this is (the one of the invite link, or a profile's
    seat ticket: ``POST /api/tables/{id}/ticket``); the first message of a seat's connection.
    Answered with a ``state`` of reason ``welcome``."""

    token: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TOKEN)]


class Watch(Message, tag="watch", frozen=True):
    """Watch the table as a spectator (no token): the public ``state`` now and at every change.
    Refused with ``no_spectators`` or ``spectators_full``. With ``key``, a player profile's
    secret key (``bad_key`` if it opens none), or without it the profile of the connection's
    session cookie (a passkey's sign-in, on the process that serves the connection), the chat
    lines of the profiles it muted or blocked, or that blocked it, are not sent (none at all if
    its chat is off)."""

    key: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TOKEN)] | None = None


class SeatAction(Message, frozen=True, kw_only=True):
    """A seat's action: its fields are the actions' codec (:mod:`hearts.actions`), with
    ``seq``, the position the client saw; ``seat`` may be left out (it is the connection's:
    :func:`hearts.server.protocol.seat_action` makes it the seat's action)."""

    seq: Seq
    seat: Annotated[Any, msgspec.Meta(description="the connection's seat (may be left out)", extra={"shown": "int"})] = (
        msgspec.UNSET
    )


class PassMessage(SeatAction, tag="pass", frozen=True, kw_only=True):
    """Pass these cards (R2)."""

    cards: list[str]


class PlayMessage(SeatAction, tag="play", frozen=True, kw_only=True):
    """Play this card (R3)."""

    card: str


class MoonMessage(SeatAction, tag="moon", frozen=True, kw_only=True):
    """The moon shooter's choice (R4.4, ``shooter_chooses``): ``add`` 26 to everyone else or
    ``subtract`` 26 from one's own score."""

    choice: str


class Sync(Message, tag="sync", frozen=True):
    """Ask for the full state again (a ``state`` of reason ``resync``)."""


class Back(Message, tag="back", frozen=True):
    """Play yourself again, after the table's stand-in bot took over an away seat."""


class Ping(Message, tag="ping", frozen=True):
    """Ask for a ``pong``."""


class Chat(Message, tag="chat", frozen=True):
    """Say something to everyone at the table: printable text (no control characters, no line
    breaks), stripped, of 1 to ``max_chat`` characters, at most ``chat_rate`` per seat."""

    text: str


class Rename(Message, tag="name", frozen=True):
    """Choose your seat's name (until the game ends; not another seat's; not "you")."""

    name: str


class HintRequest(Message, tag="hint", frozen=True):
    """What the hint bot would do from your view (R7), at your turn, asked at position ``seq``:
    the hint of a pass holds through the pass phase (the others' passes do not change yours,
    R2.1), any other one for its position only; a position you are not to decide at gets a
    ``resync``."""

    seq: Seq


class Rematch(Message, tag="rematch", frozen=True):
    """Once the game is over: a new table with the same seats (one per finished table)."""


class Mark(Message, tag="mark", frozen=True):
    """Mute (``kind`` ``mute``: their chat hidden from you, at every table) or block (``block``:
    your chat hidden from each other, and never seated together again) the player profile at
    ``seat``, or undo it (``on`` false). Your seat must be your profile's, and theirs another
    profile's. Marks are your profile's, kept across tables and devices; answered with a
    ``company``."""

    seat: int
    kind: Literal["mute", "block"]
    on: bool = True


class Report(Message, tag="report", frozen=True):
    """Report the player profile at ``seat`` to the service's operator, saying why (``reason``:
    1 to 500 characters); the table's chat and record as they are now are kept with it.
    Answered with a ``reported``."""

    seat: int
    reason: str


ActionMessage = PassMessage | PlayMessage | MoonMessage
"""A seat's action: the actions' codec (:mod:`hearts.actions`) and the ``seq`` the client saw."""

TalkMessage = Chat | Rename | HintRequest | Rematch
"""The table talk (:meth:`hearts.server.tables.talk.Talk.take`)."""

ClientMessage = Union[  # noqa: UP007
    Hello, Watch, PassMessage, PlayMessage, MoonMessage, Sync, Back, Ping, Chat, Rename, HintRequest, Rematch,
    Mark, Report,
]
"""Any message a client may send."""

CLIENT_TYPES: Final = tuple(str(t.__struct_config__.tag) for t in typing.get_args(ClientMessage))
"""The ``type`` of each client message."""


# --- server → client --------------------------------------------------------------------------


class TrickPlay(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One card of a trick and the seat that played it."""

    seat: int
    card: str


class TrickFacts(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A completed trick: who led, each play in order, who won it and its points."""

    leader: int
    plays: list[TrickPlay]
    winner: int
    points: int


class RoundResult(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One round's outcome: each seat's points taken and score, the moon shooter if any and
    the choice made."""

    points: list[int]
    scores: list[int]
    shooter: int | None
    moon_choice: str | None


class TableFacts(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """What every seat, spectator and the lobby may know of a table."""

    id: str
    online: list[int]
    """The seats with a connected client (through any server process)."""
    spectators: int
    spectators_allowed: bool
    chat: bool
    """Whether the table has a chat (a table made with ``"chat": false`` has none)."""
    pass_offset: int
    turn_timer: int
    """Seconds a person has to play a card or choose how a shot moon scores (0: no clock)."""
    pass_timer: int
    """Seconds a person has to pass (0: no clock)."""
    time_left: list[float | None]
    """Each seat's seconds left to act, counted from when the message was sent (``null``: no
    clock runs for it): every viewer sees each seat's clock."""
    handed_over: list[int]
    """The away seats handed to the stand-in for the rest of the game (it played their last
    ``missed_turns`` turns in a row): a reconnection alone does not take them back."""
    names: list[str]
    kinds: list[Literal["human", "open", "bot"]]
    bots: list[str | None]
    unnamed: list[int]
    """The person seats asked for a name."""
    away: list[int]
    """The seats the stand-in bot plays for."""
    target: int
    totals: list[int]
    score_history: list[list[int]]
    results: list[RoundResult]
    finished: bool
    winners: list[int] | None
    last_trick: TrickFacts | None


class State(Message, tag="state", frozen=True):
    """The whole position as this viewer may see it (R7): a seat's ``view`` is
    :meth:`View.to_dict <hearts.view.View.to_dict>` (its hand, legal actions, …); a spectator's
    (``you`` null) only :meth:`View.public_dict <hearts.view.View.public_dict>`. ``event`` is
    the last accepted action in the codec, without a pass's cards, with the ``seq`` it brought
    the table to; ``n`` the number of the table's last ``event`` message. Sent on ``welcome``
    and on ``resync`` (a ``sync``, a stale action or hint); every change after it comes as an
    ``event``."""

    reason: Literal["welcome", "resync"]
    you: int | None
    n: int
    view: dict[str, Any]
    seq: int
    table: TableFacts
    event: dict[str, Any] | None


class Event(Message, tag="event", frozen=True):
    """What changed since the last ``state`` or ``event`` this connection was sent, as its
    viewer may see it (R7: a seat's own view, a spectator's public one): ``view`` and ``table``
    hold the fields whose value changed, each whole (``null`` is a value, not a removal); the
    others are as they were. ``n`` numbers the table's events 1, 2, …: an event whose ``n`` is
    not one more than the last one's means messages were missed — ask to ``sync``. ``reason``:
    an accepted action (``event``, with ``event`` and ``seq`` new), a change of the seats or
    the presence (``table``), or actions caught up with (``resync``). ``more`` (absent: none)
    holds the fields of the view that are lists grown at their end, with the items added: at a
    trick's end, ``{"tricks": [that trick]}``, the round's earlier tricks not sent again."""

    reason: Literal["event", "resync", "table"]
    n: int
    seq: int
    view: dict[str, Any]
    table: dict[str, Any]
    event: dict[str, Any] | None
    more: dict[str, list[Any]] = {}


class Presence(Message, tag="presence", frozen=True):
    """Who is connected (seats, spectators, through every server process) and who is away."""

    online: list[int]
    names: list[str]
    spectators: int
    away: list[int]


class Error(Message, tag="error", frozen=True):
    """A refusal, sent to the offending client only; nothing changed. ``code`` names it (see
    the list below), ``seq`` is the table's position when known. An ``illegal`` card's ``why``
    is the rule that refuses it in a player's words, in English, citing its R-number ("You must
    follow suit: a club was led and you still hold a club (R3.2)."): a message of the catalogs,
    which a client shows translated (``/i18n/<lang>.json``)."""

    code: str
    message: str
    seq: int | None = None
    why: str | None = None


class Pong(Message, tag="pong", frozen=True):
    """The answer to a ``ping``."""


class ChatLine(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One chat message as kept: its number, the seat that wrote it, its text."""

    id: int
    seat: int
    text: str


class ChatLines(Message, tag="chat", frozen=True):
    """Chat lines: the last ones on connecting (``history``), then each one as it is written."""

    lines: list[ChatLine]
    history: bool = False


class Hint(Message, tag="hint", frozen=True):
    """The hint asked for, sent at the table's position ``seq``: the action in the codec, and in
    words."""

    seq: int
    action: dict[str, Any]
    text: str


class RematchOffer(Message, tag="rematch", frozen=True):
    """A rematch was made (told to every client of the finished table): its table id, and who
    asked for it."""

    table: str
    by: int
    name: str


class Company(Message, tag="company", frozen=True):
    """Your company at this table (after the chat's history, and after each ``mark``): the
    seats whose profiles your profile muted and blocked, and whether your chat is on (off: you
    get no chat lines and write none; ``PATCH /api/me {"chat": true}`` turns it on)."""

    muted: list[int]
    blocked: list[int]
    chat: bool


class Reported(Message, tag="reported", frozen=True):
    """Your report of the player at ``seat`` is stored for the operator."""

    seat: int


ServerMessage = Union[State, Event, Presence, Error, Pong, ChatLines, Hint, RematchOffer, Company, Reported]  # noqa: UP007
"""Any message the server sends."""

_encoder: Final = msgspec.json.Encoder()


def encode(message: Message | dict[str, Any]) -> str:
    """A message (a struct, or a dict of its fields: the position's, built per viewer) as the
    JSON text sent on the wire."""
    text: bytes = _encoder.encode(message)
    return text.decode()


# --- quick match (WS /ws/lobby/quick) and the live lobby (WS /ws/lobby/live) -------------------

QUICK_PRESETS: Final = ("standard", "omnibus", "black_maria", "any")
"""The rule sets a quick match is asked for by (:data:`hearts.server.quick.PRESETS`), and
``any``. (``three``, the name of earlier versions, is read as ``black_maria``.)"""

FillAfter = Annotated[int, msgspec.Meta(ge=3, le=300)]
"""Seconds a quick-match player waits before bots fill the empty seats."""


class QuickRequest(Message, tag="quick", frozen=True):
    """Join the quick-match queue as the player profile whose secret ``key`` this is (without
    one: the profile signed in by the connection's session cookie, a passkey's), for a
    ``preset`` (``standard``, ``omnibus``: J♦ −10, ``black_maria``: Black Maria for three
    players, docs/rules.md R6, or ``any``; ``three``, its earlier name, is read as it), rated
    or not; bots fill the empty seats after ``fill_after`` seconds (3 to 300, default 20).
    Answered with ``queued``, then ``seated``. One queue per player: a second request on the
    connection is refused (``in_queue``); the same profile on another connection takes the
    place over (the first is told ``left``, reason ``replaced``)."""

    key: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TOKEN)] | None = None
    preset: Literal["standard", "omnibus", "black_maria", "any"] = "standard"
    rated: bool = False
    fill_after: FillAfter = 20


class QuickLeave(Message, tag="leave", frozen=True):
    """Leave the queue, at once: answered with ``left`` (or ``seated``, when the table was
    made first)."""


QuickClientMessage = Union[QuickRequest, QuickLeave, Ping]  # noqa: UP007
"""Any message a quick-match client may send."""


class Queued(Message, tag="queued", frozen=True):
    """In the queue: the preset and options asked for, the seconds waited, ``fill_after``
    (bots fill the empty seats when ``waited`` reaches it: the countdown is their difference),
    and ``waiting``, the people in the queue who could share the table. Sent on joining and
    when ``waiting`` changes."""

    preset: str
    rated: bool
    fill_after: int
    waited: float
    waiting: int


class Seated(Message, tag="seated", frozen=True):
    """A table was made: its id, the seat, its secret ``token`` and invite ``link`` (open it as
    usual: ``/ws/{table}`` and ``hello``), the preset played, how many seats ``bots`` take, and
    ``message``, in words — which also says when the seat was a bot's at a game that had just
    started (taken before its round's first card; the seat's score stays its own). The place in
    the queue is gone."""

    table: str
    seat: int
    token: str
    link: str
    preset: str
    bots: int
    message: str


class Left(Message, tag="left", frozen=True):
    """Out of the queue: ``asked`` (a ``leave``) or ``replaced`` (the same profile queued on
    another connection)."""

    reason: Literal["asked", "replaced"]


QuickServerMessage = Union[Queued, Seated, Left, Error, Pong]  # noqa: UP007
"""Any message the quick-match socket sends."""


class LobbyTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A table as the live lobby shows it."""

    id: str
    names: list[str]
    kinds: list[str]
    free: list[int]
    quick: bool
    spectators_allowed: bool
    watch: str


class Lobby(Message, tag="lobby", frozen=True):
    """The live lobby (``/ws/lobby/live``, nothing to send): the unfinished listed tables
    (those with a free seat first), the people waiting for a quick match by preset, and the
    games in progress; pushed whole when it changes."""

    tables: list[LobbyTable]
    waiting: dict[str, int]
    playing: int


# --- the protocol's page ----------------------------------------------------------------------


def _type_name(t: Any) -> str:
    """A field's type as the page shows it: ``int``, ``list[str]``, ``int | null``, ``"a" | "b"``."""
    origin = typing.get_origin(t)
    if origin is Annotated:
        return _type_name(typing.get_args(t)[0])
    if origin is Literal:
        return " | ".join(f'"{a}"' for a in typing.get_args(t))
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(a) for a in typing.get_args(t))
    if origin is list:
        return f"list[{_type_name(typing.get_args(t)[0])}]"
    if origin is dict:
        return "object"
    if t is type(None):
        return "null"
    if t is Any:
        return "any"
    name = str(getattr(t, "__name__", t))
    return {"str": "string", "float": "number"}.get(name, name)


def _field_row(name: str, hint: Any, required: bool) -> str:
    """One field's row of the page: its name, its type, whether it is required and its bounds."""
    shown = _type_name(hint)
    notes = ["required" if required else "optional"]
    for meta in (m for m in getattr(hint, "__metadata__", ()) if isinstance(m, msgspec.Meta)):
        shown = (meta.extra or {}).get("shown", shown)
        if meta.ge is not None:
            notes.append(f"at least {meta.ge}")
        if meta.max_length is not None:
            notes.append(f"{meta.min_length or 0} to {meta.max_length} characters")
        if meta.description:
            notes.append(meta.description)
    return f"| `{name}` | {shown} | {'; '.join(notes)} |"


def _section(cls: type[msgspec.Struct]) -> list[str]:
    """One message's (or part's) section of the page: its name, what it is, its fields."""
    tag = cls.__struct_config__.tag
    title = f'`{{"type": "{tag}"}}` — {cls.__name__}' if isinstance(tag, str) else f"{cls.__name__}"
    words = " ".join(inspect.cleandoc(cls.__doc__ or "").split()).replace("``", "`")
    lines = [f"### {title}", "", words, ""]
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = msgspec.structs.fields(cls)
    if fields:
        lines += ["| field | type | |", "|---|---|---|"]
        lines += [_field_row(f.encode_name, hints[f.name], f.required) for f in fields]
        lines.append("")
    return lines


ERROR_CODES: Final = {
    "bad_json": "the message is not JSON the server reads (malformed, a number too long, nesting too deep)",
    "too_large": "the message is over the size limit",
    "unknown_type": "no such ``type``",
    "bad_message": "a malformed message or action (an unknown field, a wrong type; the codec says what is wrong)",
    "wrong_seat": "an action for another seat than the connection's",
    "not_seated": "a spectator tried to act, or to talk",
    "bad_token": "no seat opens with this token",
    "illegal": "refused by the rules: the message names the R-number",
    "no_table": "no such table",
    "no_spectators": "the table allows no spectators",
    "spectators_full": "the table has its maximum of spectators",
    "seated": "this connection holds a seat; open another one to watch",
    "rate_limited": "too many messages",
    "timeout": "no ``hello`` or ``watch`` in time",
    "unavailable": "the database cannot be reached; nothing changed, try again in a few seconds",
    "internal": "the server failed; nothing changed",
    "too_long": "a chat message over the limit",
    "bad_name": "a name that cannot be taken",
    "name_taken": "another seat's name",
    "game_over": "a name change after the end",
    "not_your_turn": "a hint asked for when the seat is not to act",
    "not_over": "a rematch asked for before the end",
    "seat_freed": "the table's creator gave the seat a new invite link (the connection is closed)",
    "no_profile": "a ``mark`` or ``report`` from a seat of no player profile, or of a seat of none",
    "chat_off": "a chat line at a table without chat, or from a profile whose chat is off",
    "bad_key": "quick match: no player profile has this key",
    "in_queue": "quick match: this connection is in the queue already (``leave`` first)",
    "at_table": "quick match: the profile plays at an unfinished quick table (finish it first)",
    "banned": "the profile is banned (a ``hello`` at its seat, a chat line: the connection is closed); quick match: the profile may not play with strangers",
}
"""What each ``error`` code means."""


def document() -> str:
    """The protocol's page (``docs/protocol.md``), made from the declarations above."""
    lines = [
        "# The web table's protocol",
        "",
        "<!-- generated from hearts/server/wire.py by `python -m hearts.server.wire`; do not edit -->",
        "",
        "A client opens a WebSocket to `/ws/{table id}` and sends JSON text messages; each is an",
        'object whose `"type"` names it. A field that is not declared here is refused (`bad_message`),',
        "and so is a message that is not JSON, too large, or too deeply nested; nothing changes. An",
        "action carries `seq`, the table's sequence number the client saw: one made on a position",
        "that has moved on is answered with a `state` of reason `resync` and not applied (a pass",
        "made in the same pass phase still stands).",
        "",
        "The position comes whole once — a `state` on `hello`, `watch` and `sync` — and then as",
        "numbered `event` messages, each holding only the fields that changed for that viewer:",
        "apply each to the last state (replace each field it holds); an event whose `n` is not",
        "the last one's plus one means a message was missed, and a `sync` brings the whole state.",
        "",
        "A `state` or `event` is built from the seat's view and the public table facts only (R7). A",
        'spectator\'s `state` has `"you": null` and a `view` holding only the public part — no',
        "`seat`, `hand`, `legal`, `passed`, `received` nor any other private field. A spectator",
        "cannot act (`not_seated`); it may send `hello` with a seat's token later to take that seat.",
        "The `table` facts count the spectators and never list them among the `online` seats.",
        "",
        "A table with turn clocks (`turn_timer` seconds to play, `pass_timer` to pass, in its",
        "facts) gives each person seat that is to act that long; `time_left` holds each seat's",
        "seconds left, for every viewer. A seat whose time runs out is `away` (in the facts and in",
        "`presence`): the table's stand-in bot plays for it until the seat's person comes back —",
        "a `hello`, an action or `back`. After `missed_turns` (3 by default) of its turns in a row",
        "played by the stand-in, the seat is `handed_over` for the rest of the game: a `hello`",
        "alone no longer takes it back, `back` or an action does. Public (listed) and quick",
        "tables have clocks by default (30 s a card, 45 s a pass); docs/web.md says more.",
        "",
        "## Client → server",
        "",
    ]
    for cls in typing.get_args(ClientMessage):
        lines += _section(cls)
    lines += ["## Server → client", ""]
    for cls in typing.get_args(ServerMessage):
        lines += _section(cls)
    lines += ["## Parts of the server's messages", ""]
    for cls in (TableFacts, RoundResult, TrickFacts, TrickPlay, ChatLine):
        lines += _section(cls)
    lines += ["## Error codes", "", "| code | meaning |", "|---|---|"]
    lines += [f"| `{code}` | {words.replace('``', '`')} |" for code, words in ERROR_CODES.items()]
    lines += [
        "",
        "## Quick match and the live lobby",
        "",
        "`/ws/lobby/quick` is the quick-match socket: send `quick` (with your player key), then",
        "wait for `seated`; `leave` takes you out at once. The queue lives in the database, so",
        "people who reach different server processes meet; a connection lost keeps the place",
        "(without being seated) for a few seconds: send `quick` again on a new one to keep it.",
        "`/ws/lobby/live` pushes the `lobby` whenever it changes (send nothing).",
        "",
    ]
    for cls in (*typing.get_args(QuickClientMessage)[:2], *typing.get_args(QuickServerMessage)[:3], Lobby, LobbyTable):
        lines += _section(cls)
    lines += [
        "",
        "The server closes a connection with a code and a reason, after the error messages queued",
        "for it: 1008 (too many messages, too many wrong tokens, no `hello` or `watch` in time, a",
        "table without spectators, a seat given a new invite link), 1013 (too many connections from",
        "the address, the table's spectators full, a client too slow to keep up), 4404 (no such",
        "table), 1001 (the server is shutting down), 1012 (the server is restarting and another one",
        "serves the table already: reconnect at once).",
        "",
        "A server process that freezes (a hung machine) closes nothing: its connections stay open",
        "and silent. A client that has heard nothing for a few seconds sends a `ping`; when no",
        "`pong` comes within 3 s it lets the connection go and opens `/ws/{table id}?via=N` (N = 1,",
        "2, …, each opening given 3 s): behind the recommended proxy (docs/deployment.md) another",
        "route, which may reach another process; that one serves the table once the frozen owner's",
        "lease has run out. The web table's client does so, and `hearts tui --quick` (with the WebSocket's own pings).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - writes the page
    import pathlib
    import sys

    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("docs/protocol.md")
    out.write_text(document(), encoding="utf-8")
    print(f"wrote {out}")
