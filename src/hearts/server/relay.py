"""Clients relayed to their table's owner (PostgreSQL): a WebSocket client that reaches a
server process which does not own its table is served by the owner itself, through a link
between the two processes, instead of by a following copy here that forwards its actions.

Each server process listens for links on a port of its own (:class:`Relays`, on ``host``, a
port the system picks) and tells the others where, with a key, in its alive notices
(:class:`~hearts.server.storage.AliveNotice`'s ``link``: ``host:port/key``; whoever can read
the service's notices can read the key, which is whoever may read its database). A process
whose client opens a table owned by another process it knows the link of opens one link to
that process (kept for every later client) and relays the client's messages over it, each
way; the owner serves the client with a :class:`~hearts.server.session.Session` of its own,
as if it had connected there (its address, its limits, its seat), so the table's events for
it are made once, by the owner, and no action goes through the database's ``NOTIFY`` on its
way to the owner. When a link cannot be opened (no such process, a wrong key) the client is
served here, by a following copy that forwards its actions (:mod:`hearts.server.forward`).
When a link breaks (the owner stopped and handed its tables on, died, or said nothing for
:data:`SILENCE` seconds), each of its clients goes to its table's owner now, on the same
WebSocket: relayed over a link to the process a stopping owner handed the table to, else
served here (this process owns the table, or takes it); its hello said again (it gets the whole
state), and its last action if its last message was one (one the owner had taken is refused as
stale: each action names the position it was made at).

A link is a stream of frames, each a 4-byte length and a JSON array: to the owner ``["hello",
key]`` first (answered ``["ok"]``), then ``["open", id, table_id, address]``, ``["text", id,
text]``, ``["bytes", id, latin-1 text]``, ``["close", id]`` and ``["ping"]``; back ``["text",
id, text]``, ``["close", id, code, reason]`` and ``["pong"]``.

>>> frames = Frames()
>>> frames.feed(frame("text", 7, "hi") + frame("close", 7)[:3])
[['text', 7, 'hi']]
>>> frames.feed(frame("close", 7)[3:])
[['close', 7]]
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import logging
import secrets
import socket
import struct
from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, cast

import msgspec
from starlette.websockets import WebSocket

from hearts.server.logs import fields
from hearts.server.session import Session, Socket
from hearts.server.tables import TABLE_ID, Connection
from hearts.server.tables.connection import within

if TYPE_CHECKING:
    from hearts.server.limits import AddressGuard
    from hearts.server.tables import Manager

log = logging.getLogger("hearts.server")

LENGTH: Final = struct.Struct("!I")
"""A frame's length, before it."""

MAX_FRAME: Final = 16 << 20
"""The longest frame a link takes (a table's whole state is tens of kilobytes)."""

MAX_HELLO: Final = 4096
"""The longest frame a link takes before it has shown the process's key (a hello is some fifty
bytes): a longer one is refused as soon as its length is read, nothing of it buffered."""

HELLO_WAIT: Final = 1.0
"""Seconds a connection to the link port has to show the key; then it is closed."""

MAX_PENDING: Final = 4
"""Connections one address may hold on the link port at once without having shown the key;
beyond, a new one is closed at once (a process opens one link to each other process)."""

MAX_BUFFERED: Final = 16 << 20
"""Bytes an owner lets wait for a link's relaying process to read them: beyond, the link is
closed (that process serves its clients itself from then on), as a client that does not read
is let go."""

OPEN_WAIT: Final = 2.0
"""Seconds a process waits for a link to open and be accepted (else it serves the client itself)."""

RETRY_AFTER: Final = 30.0
"""Seconds a process that could not open a link to another waits before it tries again (its
clients of that process's tables are served here meanwhile, without waiting)."""

PING_EVERY: Final = 0.5
"""Seconds between a relaying process's pings on each of its links (answered ``["pong"]``)."""

SILENCE: Final = 2.0
"""Seconds without a frame from a table's owner after which its link is taken to be broken
(the owner frozen or cut off): its clients are served here from then on."""

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(list[Any]).decode


def frame(*parts: Any) -> bytes:
    """One frame of a link: its length, then ``parts`` as a JSON array."""
    body = _encode(parts)
    return LENGTH.pack(len(body)) + body


class Frames:
    """A link's frames as its bytes come (:meth:`feed`); ``ValueError`` for bytes that are no
    frames, or a frame longer than ``limit`` bytes (refused when its length is read)."""

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self.limit = limit

    def feed(self, data: bytes) -> list[list[Any]]:
        """The frames completed by ``data``."""
        buffer = self._buffer
        buffer += data
        frames: list[list[Any]] = []
        start = 0
        while len(buffer) - start >= LENGTH.size:
            (size,) = LENGTH.unpack_from(buffer, start)
            if size > self.limit:
                raise ValueError(f"a frame of {size} bytes (at most {self.limit})")
            end = start + LENGTH.size + size
            if end > len(buffer):
                break
            try:
                frames.append(_decode(buffer[start + LENGTH.size:end]))
            except msgspec.DecodeError as e:
                raise ValueError(f"not a frame: {e}") from None
            start = end
        del buffer[:start]
        return frames


# --- at the table's owner ---------------------------------------------------------------------


class RemoteSocket:
    """A client relayed from another process, as its :class:`~hearts.server.session.Session`
    here sees it: what :class:`starlette.websockets.WebSocket` offers a session."""

    def __init__(self, end: OwnerEnd, cid: int, table_id: str) -> None:
        self.path_params = {"table_id": table_id}
        self._end = end
        self._cid = cid
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._closed = False

    async def accept(self) -> None:
        """Nothing to do: the relaying process accepted the client."""

    async def receive(self) -> dict[str, Any]:
        return await self._inbox.get()

    async def send_text(self, data: str) -> None:
        if not self._closed:
            self._end.write(frame("text", self._cid, data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        if not self._closed:
            self._closed = True
            self._end.write(frame("close", self._cid, code, reason or ""))

    def heard(self, message: dict[str, Any]) -> None:
        """A message of the client (or its disconnection), as the relaying process got it."""
        self._inbox.put_nowait(message)


class OwnerEnd(asyncio.Protocol):
    """A link's end at the table owner's process: the clients one other process relays here.
    Until it shows the key (:data:`HELLO_WAIT` seconds at most) it may send only a short frame
    (:data:`MAX_HELLO`), and its address may hold only :data:`MAX_PENDING` such connections."""

    def __init__(self, relays: Relays) -> None:
        self.relays = relays
        self.transport: asyncio.Transport | None = None
        self._frames = Frames(limit=MAX_HELLO)
        self._accepted = False
        self._sockets: dict[int, RemoteSocket] = {}
        self._peer = ""
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is no subclass of it)
        peer = transport.get_extra_info("peername")
        self._peer = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        pending = self.relays.pending
        if pending[self._peer] >= MAX_PENDING:
            log.warning("too many links without the key from one address; closing one", extra=fields(peer=self._peer))
            self.transport.abort()
            return
        pending[self._peer] += 1
        self._deadline = asyncio.get_running_loop().call_later(HELLO_WAIT, self.transport.abort)
        self.relays.ends.add(self)

    def _keyed(self) -> None:
        """The key was shown: the link is one of the service's (its frames as long as any)."""
        self._accepted = True
        self._frames.limit = MAX_FRAME
        self._settle()

    def _settle(self) -> None:
        """The connection no longer waits for its key (shown, or the connection gone)."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
            self.relays.pending[self._peer] -= 1
            if not self.relays.pending[self._peer]:
                del self.relays.pending[self._peer]

    def write(self, data: bytes) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        transport.write(data)
        if transport.get_write_buffer_size() > MAX_BUFFERED:
            log.warning("a relaying process cannot keep up; closing its link")
            transport.close()

    def data_received(self, data: bytes) -> None:
        try:
            for parts in self._frames.feed(data):
                self._take(parts)
        except (ValueError, TypeError, IndexError) as e:
            log.warning("a link sent what is not a frame; closing it", extra=fields(error=str(e)[:200]))
            assert self.transport is not None
            self.transport.close()

    def _take(self, parts: list[Any]) -> None:
        kind = parts[0]
        if not self._accepted:
            if kind != "hello" or not isinstance(parts[1], str) or not hmac.compare_digest(parts[1], self.relays.key):
                raise ValueError("no hello with this process's key")
            self._keyed()
            self.write(frame("ok"))
        elif kind == "open":
            cid, table_id, address = int(parts[1]), str(parts[2]), str(parts[3])
            opened = self._sockets[cid] = RemoteSocket(self, cid, table_id)
            self.relays.serve(opened, address, lambda: self._sockets.pop(cid, None))
        elif kind == "ping":
            self.write(frame("pong"))
        elif kind in ("text", "bytes", "close"):
            sock = self._sockets.get(int(parts[1]))
            if sock is None:
                return
            if kind == "text":
                sock.heard({"type": "websocket.receive", "text": str(parts[2])})
            elif kind == "bytes":
                sock.heard({"type": "websocket.receive", "bytes": str(parts[2]).encode("latin-1")})
            else:
                sock.heard({"type": "websocket.disconnect", "code": 1001})
        else:
            raise ValueError(f"an unknown frame {kind!r:.20}")

    def connection_lost(self, exc: Exception | None) -> None:
        self._settle()
        self.relays.ends.discard(self)
        for sock in self._sockets.values():
            sock.heard({"type": "websocket.disconnect", "code": 1001})


# --- at the process the client reached --------------------------------------------------------


class Relayed:
    """One client relayed over a link: its connection (the messages the owner sends it), the
    hello (or watch) it said and its last message, to be said again here if the link breaks
    (an action made again is refused as stale if the owner had taken it: each names the
    position it was made at)."""

    def __init__(self, ws: WebSocket, before: Relayed | None = None) -> None:
        self.ws = ws
        self.conn = Connection(ws.send_text, self._close)
        self.greeting: dict[str, Any] | None = None if before is None else before.greeting
        self.last: Mapping[str, Any] | None = None if before is None else before.last
        self.lost = False
        """The link broke: the client is served here from now on, on the same WebSocket."""
        self.pump: asyncio.Task[None] | None = None

    async def _close(self, code: int, reason: str) -> None:
        if not self.lost:
            await self.ws.close(code, reason)

    def again(self) -> list[Mapping[str, Any]]:
        """What the client said that is said again where it is served next: its hello (or
        watch), then its last action if its last message was one."""
        again: list[Mapping[str, Any] | None] = [self.greeting]
        if self.last is not None and _kind(self.last.get("text") or "") in ("play", "pass", "moon"):
            again.append(self.last)
        return [m for m in again if m is not None]

    def link_lost(self) -> None:
        """The link broke (its owner died): stop relaying, keeping the WebSocket open."""
        self.lost = True
        self.conn.kill()
        if self.pump is not None:
            self.pump.cancel()


class Resumed:
    """The WebSocket of a relayed client whose link broke, as the session that serves it here
    sees it: its hello (or watch) said again first (it gets the whole state again), then its
    last action, if its last message was one (it may not have reached the owner)."""

    def __init__(self, ws: WebSocket, client: Relayed) -> None:
        self.ws = ws
        self.path_params = ws.path_params
        self._again = client.again()

    async def accept(self) -> None:
        """Nothing to do: accepted already."""

    async def receive(self) -> Any:
        if self._again:
            return self._again.pop(0)
        return await self.ws.receive()

    async def send_text(self, data: str) -> None:
        await self.ws.send_text(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        await self.ws.close(code, reason)


class RelayEnd(asyncio.Protocol):
    """A link's end at a process that relays clients to the table's owner."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.accepted: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.clients: dict[int, Relayed] = {}
        self.transport: asyncio.Transport | None = None
        self._frames = Frames()
        self.heard = asyncio.get_running_loop().time()
        """When the owner last sent something (:meth:`asyncio.loop.time`)."""

    @property
    def open(self) -> bool:
        return self.transport is not None and not self.transport.is_closing()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is no subclass of it)
        self.transport.write(frame("hello", self.key))

    def write(self, data: bytes) -> None:
        if self.open:
            assert self.transport is not None
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        self.heard = asyncio.get_running_loop().time()
        try:
            for parts in self._frames.feed(data):
                kind = parts[0]
                if kind == "pong":
                    continue
                if kind == "ok":
                    if not self.accepted.done():
                        self.accepted.set_result(True)
                    continue
                client = self.clients.get(int(parts[1]))
                if client is None:
                    continue
                if kind == "text":
                    client.conn.push(str(parts[2]))
                elif kind == "close":
                    self.clients.pop(int(parts[1]), None)
                    client.conn.close(int(parts[2]), str(parts[3]))
        except (ValueError, TypeError, IndexError) as e:
            log.warning("a table's owner sent what is not a frame; closing the link", extra=fields(error=str(e)[:200]))
            assert self.transport is not None
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.accepted.done():
            self.accepted.set_result(False)
        clients, self.clients = self.clients, {}
        for client in clients.values():
            client.link_lost()


class Relays:
    """One server process's links (PostgreSQL): the port it takes relayed clients on, and the
    links it relays its own clients to their tables' owners through. :meth:`start` listens;
    :meth:`route` says whether a new client goes to another process; :meth:`relay` relays it."""

    def __init__(self, manager: Manager, guard: AddressGuard, host: str = "127.0.0.1") -> None:
        self.manager = manager
        self.guard = guard
        """The addresses' limits, which a relayed client's session here counts it against."""
        self.host = host
        self.key = secrets.token_hex(16)
        self._server: asyncio.AbstractServer | None = None
        self._links: dict[str, RelayEnd] = {}
        self._opening: dict[str, asyncio.Task[RelayEnd | None]] = {}
        self._failed: dict[str, float] = {}
        """When a link to each process last could not be opened (:meth:`asyncio.loop.time`)."""
        self._serving: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)
        self._watching: asyncio.Task[None] | None = None
        self.ends: set[OwnerEnd] = set()
        """The links other processes opened to this one."""
        self.pending: Counter[str] = Counter()
        """The connections to the link port that have not shown the key yet, by address."""

    async def start(self) -> None:
        """Listen for links (each relayed client served by a :class:`~hearts.server.session.Session`
        here); the manager's roster tells the others where."""
        self._server = await asyncio.get_running_loop().create_server(lambda: OwnerEnd(self), self.host, 0)
        self._watching = asyncio.get_running_loop().create_task(self._watch())
        port = self._server.sockets[0].getsockname()[1]
        log.info("listening for links", extra=fields(host=self.host, port=port))
        host = socket.gethostname() if self.host in ("", "0.0.0.0", "::") else self.host
        host = f"[{host}]" if ":" in host else host
        self.manager.roster.link = f"{host}:{port}/{self.key}"

    def relayed(self) -> int:
        """How many of this process's clients are relayed to other processes now."""
        return sum(len(link.clients) for link in self._links.values())

    async def stop(self) -> None:
        """Close the links and the port: first those to this process, so that the processes
        relaying clients here serve them themselves (on the same WebSockets) rather than
        see them closed."""
        for end in list(self.ends):
            if end.transport is not None:
                end.transport.abort()
        for task in [*self._opening.values(), *self._serving, *([self._watching] if self._watching else [])]:
            task.cancel()
        for link in self._links.values():
            if link.transport is not None:
                link.transport.close()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _watch(self) -> None:
        """Ping every link each :data:`PING_EVERY` seconds; break one whose owner has said
        nothing for :data:`SILENCE` seconds (its clients are then served here)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(PING_EVERY)
            for owner, link in list(self._links.items()):
                if not link.open:
                    del self._links[owner]
                elif loop.time() - link.heard > SILENCE:
                    log.warning("a table's owner does not answer on its link; serving its clients here",
                                extra=fields(owner=owner))
                    self._failed[owner] = loop.time()  # (no new link to it for a while)
                    assert link.transport is not None
                    link.transport.abort()
                    del self._links[owner]
                else:
                    link.write(frame("ping"))

    def serve(self, sock: RemoteSocket, address: str, done: Callable[[], Any]) -> None:
        """Serve a client another process relays here (in a task)."""
        task = asyncio.get_running_loop().create_task(self._session(sock, address))
        self._serving.add(task)

        def finished(task: asyncio.Task[None]) -> None:
            self._serving.discard(task)
            done()

        task.add_done_callback(finished)

    async def route(self, table_id: str) -> RelayEnd | None:
        """The link to the owner of ``table_id`` if another process owns it and can be
        reached; else ``None`` (this process serves the client). A table nobody owns yet is
        claimed here first (its clients reaching two processes at once: one of them wins)."""
        manager = self.manager
        ownership = manager.ownership
        if ownership.leases is None or ownership.owns(table_id) or not TABLE_ID.fullmatch(table_id):
            return None
        try:
            owner = await ownership.owner_of(table_id)
            if owner is None and await manager.get(table_id) is not None:
                owner = None if ownership.owns(table_id) else await ownership.owner_of(table_id)
                if owner is not None:
                    manager.forget_unused(table_id)  # (served by its owner: no copy here)
        except Exception:  # (the database is away: the client is served here, and told so)
            return None
        if owner is None or owner == ownership.me:
            return None
        link = self._links.get(owner)
        if link is not None and link.open:
            return link
        where = self.manager.roster.links.get(owner)
        failed = self._failed.get(owner)
        if where is None or (failed is not None and asyncio.get_running_loop().time() - failed < RETRY_AFTER):
            return None
        opening = self._opening.get(owner)
        if opening is None:
            opening = self._opening[owner] = asyncio.get_running_loop().create_task(self._open(owner, where))
            opening.add_done_callback(lambda _: self._opening.pop(owner, None))
        return await asyncio.shield(opening)

    async def _open(self, owner: str, where: str) -> RelayEnd | None:
        """A link to the process ``owner`` at ``where`` (``host:port/key``), accepted; ``None``
        if it cannot be opened (tried again after :data:`RETRY_AFTER` seconds)."""
        address, _, key = where.rpartition("/")
        host, _, port = address.rpartition(":")

        async def connect() -> RelayEnd:
            _, link = await asyncio.get_running_loop().create_connection(
                lambda: RelayEnd(key), host.strip("[]"), int(port))
            if not await link.accepted:
                raise ValueError("the link was refused (a wrong key)")
            return link

        try:
            link = await within(connect(), OPEN_WAIT)
        except (OSError, ValueError, TimeoutError, asyncio.TimeoutError) as e:
            log.warning("cannot open a link to a table's owner; serving its clients here",
                        extra=fields(owner=owner, error=str(e)[:200] or type(e).__name__))
            self._failed[owner] = asyncio.get_running_loop().time()
            return None
        self._failed.pop(owner, None)
        log.info("a link to another process opened: its tables' clients are relayed there", extra=fields(owner=owner))
        self._links[owner] = link
        return link

    async def relay(self, ws: WebSocket, link: RelayEnd, address: str) -> None:
        """Relay the client ``ws`` (from ``address``) to the table's owner over ``link``, until
        either end closes. If the link breaks (the owner stopped, died or froze), the client
        goes to the table's owner now, on the same WebSocket: over a link to another process
        that owns it (a stopping owner handed it there), else here (this process owns it, or
        takes it)."""
        await ws.accept()
        table_id = ws.path_params["table_id"]
        before = await self._relay_over(ws, link, address, None)
        while before.lost:
            self.manager.ownership.unknown(table_id)  # (the owner it knew broke the link: ask the database)
            next_link = await self.route(table_id)
            log.info("a link broke; its client goes to the table's owner",
                     extra=fields(table=table_id, relayed=next_link is not None))
            if next_link is None:
                await self._session(Resumed(ws, before), address)
                return
            before = await self._relay_over(ws, next_link, address, before)

    async def _relay_over(self, ws: WebSocket, link: RelayEnd, address: str, before: Relayed | None) -> Relayed:
        """Relay the client over ``link`` until either end closes or the link breaks (then
        :attr:`Relayed.lost`); what it said ``before`` on a link that broke is said first."""
        cid = next(self._ids)
        client = Relayed(ws, before)
        link.clients[cid] = client
        writer = asyncio.get_running_loop().create_task(client.conn.run_writer())
        link.write(frame("open", cid, ws.path_params["table_id"], address))
        for said in [] if before is None else before.again():
            link.write(frame("text", cid, str(said.get("text") or "")))
        client.pump = asyncio.get_running_loop().create_task(self._pump(client, link, cid))
        try:
            await client.pump
        except asyncio.CancelledError:
            if not client.lost:
                raise
        finally:
            if link.clients.pop(cid, None) is not None:
                link.write(frame("close", cid))
            if not client.conn.closed:
                client.conn.kill(1000, "")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, client.conn.send_timeout)
        return client

    async def _session(self, ws: Socket, address: str) -> None:
        """Serve a client here, as if it had connected to this process from ``address``."""
        session = Session(ws, self.manager, self.guard, address)
        session.conn.relayed = isinstance(ws, RemoteSocket)
        await session.run()

    async def _pump(self, client: Relayed, link: RelayEnd, cid: int) -> None:
        """Hand the client's messages to the link until it disconnects."""
        ws = client.ws
        while not client.conn.closed:
            received = await ws.receive()
            if received["type"] == "websocket.disconnect":
                return
            text = received.get("text")
            if text is None:
                link.write(frame("bytes", cid, (received.get("bytes") or b"").decode("latin-1")))
                continue
            if ('"hello"' in text or '"watch"' in text) and _kind(text) in ("hello", "watch"):
                client.greeting = dict(received)
            else:
                client.last = received
            link.write(frame("text", cid, text))


def _kind(text: str) -> object:
    """The ``type`` of a client's message (``None``: not a JSON object)."""
    try:
        message = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return None
    return message.get("type") if isinstance(message, dict) else None
