"""The notices between the processes of one service, declared once: each a :mod:`msgspec`
struct whose ``type`` is its tag (as the WebSocket messages of :mod:`hearts.server.wire`).

A store announces them (:meth:`hearts.server.storage.Storage.listen`): on PostgreSQL as
``NOTIFY`` payloads to every process and bot worker (:func:`notice_payload`, one notice, or a
JSON array of several: :func:`notices_from_payload`), on SQLite as the objects themselves
within the one process. They carry ids, a chat line, a hint; other rows are read from the
store. No accepted action is announced: only its table's owner applies it, and a copy of the
table elsewhere reads the log when it is read itself. (No action goes to a table's owner this
way either: the processes and bot workers reach it over links, :mod:`hearts.server.links`.)

>>> notice_payload(SeatNotice("t1", 2))
'{"type":"seat","table_id":"t1","seat":2}'
>>> notices_from_payload('[{"type":"seat","table_id":"t1","seat":2},{"type":"ban","player_id":"p"}]')
[SeatNotice(table_id='t1', seat=2), BanNotice(player_id='p')]
>>> notices_from_payload('{"type":"seat","table_id":"t1"}')
Traceback (most recent call last):
...
ValueError: not a notice ('{"type":"seat","table_id":"t1"}'): Object missing required field `seat`
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Union

import msgspec


@dataclass(frozen=True)
class ChatLine:
    """A chat message at a table: its number (``id``, increasing), the ``seat`` that sent it
    and its ``text`` (checked: :func:`hearts.server.protocol.check_chat`)."""

    id: int
    seat: int
    text: str


class _Notice(msgspec.Struct, tag_field="type", frozen=True):
    """A notice: its ``type`` is its tag. Fields it does not know are ignored (a newer
    process's, during a rolling upgrade)."""


class SeatNotice(_Notice, tag="seat", frozen=True):
    """Who sits at a seat of a table, or whether its person is away, changed (read it with
    ``seats(table_id)``)."""

    table_id: str
    seat: int


class JobNotice(_Notice, tag="job", frozen=True):
    """A bot job was queued (PostgreSQL only): a bot worker may claim it."""

    table_id: str
    seat: int
    seq: int


class ChatNotice(_Notice, tag="chat", frozen=True):
    """A chat message was stored (:meth:`~hearts.server.storage.sql.SqlTalk.add_chat`); it carries the line itself (at most
    a few hundred bytes of text)."""

    table_id: str
    id: int
    seat: int
    text: str
    hidden: tuple[int, ...] = ()
    """The seats not to be shown it: their players muted or blocked its writer, were blocked
    by it, or turned their chat off (decided when it was written)."""

    @property
    def line(self) -> ChatLine:
        """The chat line it announces."""
        return ChatLine(self.id, self.seat, self.text)


class RematchNotice(_Notice, tag="rematch", frozen=True):
    """The finished table ``table_id`` has a rematch, table ``rematch``, asked for by ``seat``."""

    table_id: str
    rematch: str
    seat: int


class HintNotice(_Notice, tag="hint", frozen=True):
    """A bot worker computed the hint of ``seat``'s decision begun at position ``seq`` of a table
    (:func:`~hearts.server.turns.decision_start`): ``action`` is its codec object, or ``None``
    when that decision was past (no hint is given)."""

    table_id: str
    seat: int
    seq: int
    action: dict[str, Any] | None


class PresenceNotice(_Notice, tag="presence", frozen=True):
    """Who is connected to a table through one server process (``process``: the id it drew
    when it started): the seats with a client there (``online``) and how many spectators.
    ``ask``: the sender has just begun serving the table and asks the others for theirs."""

    table_id: str
    process: str
    online: list[int]
    spectators: int
    ask: bool = False


class AliveNotice(_Notice, tag="alive", frozen=True):
    """The server process ``process`` still runs (sent every few seconds): the presence it
    announced stands; that of a process no longer heard of is forgotten. ``link``: where it
    takes the clients other processes relay to it (``host:port/key``, :mod:`hearts.server.relay`;
    empty: nowhere). ``ask``: it has just started, and asks the others to say they run too.
    ``gone``: it is stopping (:mod:`hearts.server.drain`): hand it no table. ``worker``: a
    bot worker that has just started asks the server processes where their links are (it is
    none of theirs: no table is handed to it)."""

    process: str
    link: str = ""
    ask: bool = False
    gone: bool = False
    worker: bool = False


class BanNotice(_Notice, tag="ban", frozen=True):
    """The profile ``player_id`` was banned (:meth:`~hearts.server.storage.sql.SqlPlayers.ban`): every server process
    closes its connections at that profile's seats."""

    player_id: str


Notice = SeatNotice | JobNotice | ChatNotice | RematchNotice | HintNotice | PresenceNotice | AliveNotice | BanNotice
"""What a listener hears: ids, a chat line or a hint, who is connected where and which processes
run (a PostgreSQL ``NOTIFY`` payload is at most 8000 bytes; these take under 2000); other rows
are read from the store, and no accepted action is heard (only a table's owner needs it, and it
made it). A hint job queued is announced as a :class:`JobNotice` (it wakes the bot workers)."""

TalkNotice = ChatNotice | RematchNotice | HintNotice
"""The notices of the table talk (:meth:`hearts.server.tables.talk.Talk.hear`)."""

_ENCODER: Final = msgspec.json.Encoder()
_DECODER: Final = msgspec.json.Decoder(Union[Notice, list[Notice]])  # noqa: UP007 (a runtime union of types)


def notice_payload(notice: Notice) -> str:
    """A notice as a ``NOTIFY`` payload (far below PostgreSQL's 8000-byte limit).

    >>> notice_payload(JobNotice("t1", 2, 9))
    '{"type":"job","table_id":"t1","seat":2,"seq":9}'
    """
    return _ENCODER.encode(notice).decode()


def notices_from_payload(payload: str | bytes) -> list[Notice]:
    """The notices a payload carries: one (:func:`notice_payload`'s), or several in a JSON
    array (a batch's); ``ValueError`` if it holds anything else.

    >>> notices_from_payload('{"type":"ban","player_id":"p7"}')
    [BanNotice(player_id='p7')]
    """
    try:
        decoded = _DECODER.decode(payload)
    except msgspec.DecodeError as e:
        raise ValueError(f"not a notice ({payload!r:.100}): {e}") from e
    return decoded if isinstance(decoded, list) else [decoded]
