"""The links between the processes of a service on PostgreSQL: an ordinary WebSocket (the
``websockets`` library: its framing, its pings, its limits) that a process opens to another with
that process's key in its ``Authorization`` header (:func:`open_link`), each message one JSON
array (:func:`encode_parts`). Server processes relay clients to their tables' owners over them
and a stopping process hands its tables to its peers (:mod:`hearts.server.relay`, which serves
both ends); bot workers send the bots' moves to the tables' owners (:class:`OwnerLinks`); each
answer says what became of the move, or of the table handed (:class:`Outcome`).

>>> decode_parts(encode_parts("text", 7, "hi"))
['text', 7, 'hi']
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import secrets
from typing import Any, Final

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.protocol import State

from hearts.server.logs import fields

log = logging.getLogger("hearts.server")


class Outcome(enum.Enum):
    """What became of an action at its table's owner (or of a table handed to a peer).

    >>> Outcome.DONE.value, Outcome("stale") is Outcome.STALE
    ('done', True)
    """

    DONE = "done"
    """Applied and logged (its event reaches every process through the log's notice); a
    table handed: loaded, or owned."""
    STALE = "stale"
    """Made on a position that has moved on (the client is sent the position again)."""
    ILLEGAL = "illegal"
    """Refused by the rules; nothing changed."""
    NOT_OWNER = "not_owner"
    """The process asked does not own the table (any more): ask the table's owner."""
    UNAVAILABLE = "unavailable"
    """The database could not be reached: nothing changed; try again."""

MAX_FRAME: Final = 16 << 20
"""The longest message a link takes (a table's whole state is tens of kilobytes)."""

MAX_BUFFERED: Final = 16 << 20
"""Bytes an owner lets wait for a link's relaying process to read them: beyond, a relayed
client's message waits, and its session here lets it go as a client that does not read."""

OPEN_WAIT: Final = 2.0
"""Seconds a process waits for a link to open and be accepted (else the other end is taken to
be unreachable)."""

REPLY_WAIT: Final = 1.5
"""Seconds a bot worker waits for the owner's answer to a move (then it asks the database who
owns the table, and sends the move again)."""

PING_EVERY: Final = 0.5
"""Seconds between the pings on each link (the library's, each way)."""

SILENCE: Final = 2.0
"""Seconds a ping may wait for its pong: then the link is taken to be broken (the other end
frozen or cut off), and its clients go to their tables' owners."""

CLOSE_WAIT: Final = 0.25
"""Seconds a link that closes waits for the other end's closing handshake (a frozen end sends
none: its clients must not wait for it)."""

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(list[Any]).decode


def encode_parts(*parts: Any) -> bytes:
    """One message of a link: ``parts`` as a JSON array."""
    return _encode(parts)


def decode_parts(data: bytes | str) -> list[Any]:
    """The parts of a link's message; ``ValueError`` for what is not one."""
    try:
        parts = _decode(data)
    except msgspec.DecodeError as e:
        raise ValueError(f"not a link's message: {e}") from None
    if not parts:
        raise ValueError("an empty link's message")
    return parts


async def open_link(where: str) -> ClientConnection:
    """Open a link to the process that takes links at ``where`` (``host:port/key``, from its
    alive notices); raises what :func:`websockets.asyncio.client.connect` raises."""
    address, _, key = where.rpartition("/")
    return await connect(
        f"ws://{address}/", additional_headers={"Authorization": f"Bearer {key}"}, proxy=None,
        open_timeout=OPEN_WAIT, ping_interval=PING_EVERY, ping_timeout=SILENCE, close_timeout=CLOSE_WAIT,
        max_size=MAX_FRAME, max_queue=None, write_limit=MAX_BUFFERED, compression=None, user_agent_header=None,
    )


class Replies:
    """The requests sent over links that wait for their replies: :meth:`ask` sends ``[kind,
    request, *parts]`` and waits for ``["reply", request, *answer]``, which the link's reader
    hands to :meth:`heard`."""

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[list[Any]]] = {}

    async def ask(self, link: ClientConnection, kind: str, *parts: Any, wait: float) -> list[Any] | None:
        """Send a request over ``link``: the reply's answer, or ``None`` if the link closed or
        none came within ``wait`` seconds."""
        request = secrets.token_hex(8)
        reply: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request] = reply
        try:
            await link.send(encode_parts(kind, request, *parts))
            return await asyncio.wait_for(asyncio.shield(reply), wait)
        except (ConnectionClosed, TimeoutError, asyncio.TimeoutError):
            return None
        finally:
            self._waiting.pop(request, None)

    def heard(self, parts: list[Any]) -> bool:
        """Whether a link's message is a reply (handed to its request, if it still waits)."""
        if parts[0] != "reply":
            return False
        reply = self._waiting.get(str(parts[1]))
        if reply is not None and not reply.done():
            reply.set_result(parts[2:])
        return True


class OwnerLinks:
    """A bot worker's links to the server processes, over which it sends each bot's move to
    its table's owner (:meth:`send`), as their clients' moves reach them; where each process
    takes links, from its alive notices (:meth:`heard`)."""

    def __init__(self) -> None:
        self.where: dict[str, str] = {}
        self._links: dict[str, ClientConnection] = {}
        self._opening: dict[str, asyncio.Task[ClientConnection | None]] = {}
        self._replies = Replies()
        self._readers: set[asyncio.Task[None]] = set()

    def heard(self, process: str, link: str, gone: bool) -> None:
        """A server process's alive notice: where it takes links (``gone``: it stops)."""
        if gone or not link:
            self.where.pop(process, None)
        else:
            self.where[process] = link

    async def send(self, owner: str, table_id: str, seat: int, seen: int, action: Any, by: str,
                   wait: float = REPLY_WAIT) -> tuple[str, int, str] | None:
        """Send ``seat``'s move ``action`` (a codec dict), made at position ``seen`` ``by`` a
        bot or a stand-in, to the process ``owner``: its outcome, the owner's position after it
        and words (illegal); ``None`` if the owner cannot be reached or does not answer within
        ``wait`` seconds."""
        link = await self._link(owner)
        answer = None if link is None else await self._replies.ask(link, "act", table_id, seat, seen, action, by, wait=wait)
        return None if answer is None else (str(answer[0]), int(answer[1]), str(answer[2]))

    async def _link(self, owner: str) -> ClientConnection | None:
        link = self._links.get(owner)
        if link is not None and link.state is State.OPEN:
            return link
        if owner not in self.where:
            return None
        opening = self._opening.get(owner)
        if opening is None:
            opening = self._opening[owner] = asyncio.get_running_loop().create_task(self._open(owner))
            opening.add_done_callback(lambda _: self._opening.pop(owner, None))
        return await asyncio.shield(opening)

    async def _open(self, owner: str) -> ClientConnection | None:
        try:
            link = await open_link(self.where[owner])
        except (OSError, InvalidHandshake, TimeoutError, asyncio.TimeoutError) as e:
            log.warning("cannot open a link to a table's owner", extra=fields(owner=owner, error=str(e)[:200]))
            return None
        self._links[owner] = link
        reader = asyncio.get_running_loop().create_task(self._read(link))
        self._readers.add(reader)
        reader.add_done_callback(self._readers.discard)
        return link

    async def _read(self, link: ClientConnection) -> None:
        """Hand each reply to its move, until the link closes."""
        with contextlib.suppress(ConnectionClosed, ValueError, TypeError, IndexError):
            async for data in link:
                self._replies.heard(decode_parts(data))

    async def close(self) -> None:
        """Close the links."""
        for link in list(self._links.values()):
            await link.close()
        self._links.clear()
