"""Clients relayed to their table's owner (PostgreSQL): a WebSocket client that reaches a
server process which does not own its table is served by the owner itself, through a link
between the two processes (:mod:`hearts.server.links`).

Each server process listens for links on a port of its own (:class:`Relays`, on ``host``, a
port the system picks) and tells the others where, with a key, in its alive notices
(:class:`~hearts.server.notices.AliveNotice`'s ``link``: ``host:port/key``; whoever can read
the service's notices can read the key, which is whoever may read its database). A link is an
ordinary WebSocket (the ``websockets`` library: its framing, its pings, its limits), opened
with the key in its ``Authorization`` header. A process whose client opens a table owned by
another process it knows the link of opens one link to that process (kept for every later
client) and relays the client's messages over it, each way; the owner serves the client with a
:class:`~hearts.server.session.Session` of its own, as if it had connected there (its address,
its limits, its seat), so the table's events for it are made once, by the owner, and no action
goes through the database on its way to the owner. A client is served only by its table's
owner: when a link cannot be opened (the owner died or froze, a wrong key), the process the
client reached waits for the owner's lease to run out and takes the table over (at most
:data:`~hearts.server.tables.ownership.TAKE_WAIT` seconds); an owner that still renews its
lease but cannot be reached leaves the client closed with "try again later" (:class:`Unreachable`).
When a link breaks (the owner stopped and handed its tables on, died, or did not answer the
library's pings for :data:`SILENCE` seconds), each of its clients goes to its table's owner now
(and so does one the owner closes as a service restart: another process owns its table now),
on the same WebSocket: relayed over a link to the process a stopping owner handed the table to,
else served here (this process owns the table, or takes it); its hello said again (it gets the
whole state), and its last action if its last message was one (one the owner had taken is
refused as stale: each action names the position it was made at).

Each message of a link (:mod:`hearts.server.links`) is one JSON array: to the owner ``["open", id, table_id, address]``,
``["text", id, text]``, ``["bytes", id, latin-1 text]`` and ``["close", id]``; back ``["text",
id, text]`` and ``["close", id, code, reason]``. A bot worker sends the bots' moves to their
tables' owners over links too (:class:`~hearts.server.links.OwnerLinks`): ``["act", request,
table_id, seat, seen, action, by]``, answered ``["reply", request, outcome, seq, message]``; and
a stopping process hands its tables to a peer (:meth:`Relays.hand`): ``["hand", request,
table_id, epoch, seq]``, answered ``["reply", request, outcome, seq, ""]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import logging
import secrets
import socket
from collections import Counter
from collections.abc import Mapping
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Final

import msgspec
from starlette.websockets import WebSocket
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.http11 import Request, Response
from websockets.protocol import State

from hearts.server.limits import CLOSE_SERVICE_RESTART, CLOSE_TRY_LATER
from hearts.server.links import (
    CLOSE_WAIT,
    MAX_BUFFERED,
    MAX_FRAME,
    PING_EVERY,
    SILENCE,
    Replies,
    decode_parts,
    encode_parts,
    open_link,
)
from hearts.server.logs import fields
from hearts.server.session import Session, Socket
from hearts.server.tables import TABLE_ID, Connection
from hearts.server.tables.ownership import HAND_WAIT, OWN_WAIT, TAKE_WAIT

if TYPE_CHECKING:
    from hearts.server.limits import AddressGuard
    from hearts.server.tables import Manager

log = logging.getLogger("hearts.server")

HELLO_WAIT: Final = 1.0
"""Seconds a connection to the link port has to complete its opening handshake, with the key;
then it is closed. Before that, nothing longer than the library's request line and headers (a
few kilobytes) is read."""

MAX_PENDING: Final = 4
"""Connections one address may hold on the link port at once without having shown the key;
beyond, a new one is closed at once (a process opens one link to each other process)."""

RETRY_AFTER: Final = 30.0
"""Seconds a process that could not reach another over a link waits before it tries again
(meanwhile a client of that process's tables waits for its lease to run out, and is served here
by the process that takes the table over, or is told to try again later)."""

ROUTES: Final = 3
"""How many times a client looks for its table's owner (an owner may change meanwhile)."""


class Unreachable(Exception):
    """A table's owner renews its lease but cannot be reached over a link: its client is told
    to try again later (this process serves it only as the owner)."""


# --- at the table's owner ---------------------------------------------------------------------


class RemoteSocket:
    """A client relayed from another process, as its :class:`~hearts.server.session.Session`
    here sees it: what :class:`starlette.websockets.WebSocket` offers a session."""

    def __init__(self, link: ServerConnection, cid: int, table_id: str) -> None:
        self.path_params = {"table_id": table_id}
        self._link = link
        self._cid = cid
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._closed = False

    async def accept(self) -> None:
        """Nothing to do: the relaying process accepted the client."""

    async def receive(self) -> dict[str, Any]:
        return await self._inbox.get()

    async def send_text(self, data: str) -> None:
        if not self._closed:
            await self._link.send(encode_parts("text", self._cid, data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        if not self._closed:
            self._closed = True
            with contextlib.suppress(ConnectionClosed):
                await self._link.send(encode_parts("close", self._cid, code, reason or ""))

    def heard(self, message: dict[str, Any]) -> None:
        """A message of the client (or its disconnection), as the relaying process got it."""
        self._inbox.put_nowait(message)


class LinkConnection(ServerConnection):
    """The library's server connection on a process's link port: one address may hold only
    :data:`MAX_PENDING` connections that have not completed their handshake (:attr:`relays`
    counts them; a subclass for each :class:`Relays` sets it)."""

    relays: Relays
    peer = ""
    pending = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        self.peer = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        pending = self.relays.pending
        if pending[self.peer] >= MAX_PENDING:
            log.warning("too many links without the key from one address; closing one", extra=fields(peer=self.peer))
            transport.abort()  # type: ignore[attr-defined]
            return
        pending[self.peer] += 1
        self.pending = True

    def settle(self) -> None:
        """The connection no longer waits for its handshake (done, or the connection gone)."""
        if self.pending:
            self.pending = False
            pending = self.relays.pending
            pending[self.peer] -= 1
            if not pending[self.peer]:
                del pending[self.peer]

    def connection_lost(self, exc: Exception | None) -> None:
        self.settle()
        super().connection_lost(exc)


# --- at the process the client reached --------------------------------------------------------


class Relayed:
    """One client relayed over a link: its connection (the messages the owner sends it), the
    hello (or watch) it said and its last message, to be said again where it is served next if
    the link breaks (an action made again is refused as stale if the owner had taken it: each
    names the position it was made at)."""

    def __init__(self, ws: WebSocket, before: Relayed | None = None) -> None:
        self.ws = ws
        self.conn = Connection(ws.send_text, self._close)
        self.greeting: dict[str, Any] | None = None if before is None else before.greeting
        self.last: Mapping[str, Any] | None = None if before is None else before.last
        self.lost = False
        """The link broke: the client goes to its table's owner, on the same WebSocket."""
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
        """The link broke: stop relaying, keeping the WebSocket open."""
        self.lost = True
        self.conn.kill()
        if self.pump is not None:
            self.pump.cancel()


class Resumed:
    """The WebSocket of a relayed client whose link broke, as the session that serves it here
    sees it: what it said that is said again first (:meth:`Relayed.again`: it gets the whole
    state again), then what it says next."""

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


class Link:
    """A link to the process ``owner``, at a process that relays clients there: its clients,
    and the task that hands them what the owner sends."""

    def __init__(self, relays: Relays, owner: str, ws: ClientConnection) -> None:
        self.owner = owner
        self.ws = ws
        self.clients: dict[int, Relayed] = {}
        self.replies = Replies()
        """The tables handed over this link waiting for the peer's answers."""
        self.reader = asyncio.get_running_loop().create_task(self._read(relays))

    @property
    def open(self) -> bool:
        return self.ws.state is State.OPEN

    async def send(self, *parts: Any) -> None:
        """Send a message to the owner (nothing if the link is closed)."""
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(encode_parts(*parts))

    async def _read(self, relays: Relays) -> None:
        """Hand each client what the owner sends it, until the link closes; then its clients
        go to their tables' owners (:meth:`Relayed.link_lost`)."""
        try:
            async for data in self.ws:
                parts = decode_parts(data)
                if self.replies.heard(parts):  # (to a table handed)
                    continue
                client = self.clients.get(int(parts[1]))
                if client is None:
                    continue
                if parts[0] == "text":
                    client.conn.push(str(parts[2]))
                elif parts[0] == "close":
                    self.clients.pop(int(parts[1]), None)
                    if int(parts[2]) == CLOSE_SERVICE_RESTART:  # (another process owns the table now)
                        client.link_lost()  # (it goes there, on the same WebSocket)
                    else:
                        client.conn.close(int(parts[2]), str(parts[3]))
        except (ValueError, TypeError, IndexError) as e:
            log.warning("a table's owner sent what is not a link's message; closing the link",
                        extra=fields(owner=self.owner, error=str(e)[:200]))
        except ConnectionClosed:
            pass
        finally:
            if self.ws.close_code not in (1000, 1001):  # (not closed here, nor by a stopping owner: it died or froze)
                log.warning("a link to a table's owner broke; its clients go to their tables' owners",
                            extra=fields(owner=self.owner, code=self.ws.close_code))
                relays.failed(self.owner)
            await self.ws.close()
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
        self._server: Server | None = None
        self._links: dict[str, Link] = {}
        self._opening: dict[str, asyncio.Task[Link | None]] = {}
        self._failed: dict[str, float] = {}
        """When a link to each process last could not be opened, or broke (:meth:`asyncio.loop.time`)."""
        self._ids = itertools.count(1)
        self.pending: Counter[str] = Counter()
        """The connections to the link port that have not completed their handshake, by address."""

    async def start(self) -> None:
        """Listen for links (each relayed client served by a :class:`~hearts.server.session.Session`
        here); the manager's roster tells the others where."""
        self._server = await serve(
            self._serve_link, self.host, 0, process_request=self._check_key,
            create_connection=type("LinkConnection", (LinkConnection,), {"relays": self}),
            open_timeout=HELLO_WAIT, ping_interval=PING_EVERY, ping_timeout=SILENCE, close_timeout=CLOSE_WAIT,
            max_size=MAX_FRAME,
            max_queue=None, write_limit=MAX_BUFFERED, compression=None, server_header=None,
        )
        port = next(iter(self._server.sockets)).getsockname()[1]
        log.info("listening for links", extra=fields(host=self.host, port=port))
        host = socket.gethostname() if self.host in ("", "0.0.0.0", "::") else self.host
        host = f"[{host}]" if ":" in host else host
        self.manager.roster.link = f"{host}:{port}/{self.key}"

    def relayed(self) -> int:
        """How many of this process's clients are relayed to other processes now."""
        return sum(len(link.clients) for link in self._links.values())

    def failed(self, owner: str) -> None:
        """A link to ``owner`` could not be opened, or broke: none is tried for :data:`RETRY_AFTER` s."""
        self._failed[owner] = asyncio.get_running_loop().time()
        self._links.pop(owner, None)

    async def stop(self) -> None:
        """Close the links and the port: first those to this process (closed as "going away",
        so that the processes relaying clients here send them to their tables' new owners)."""
        for task in self._opening.values():
            task.cancel()
        if self._server is not None:
            self._server.close(close_connections=True)
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        for link in list(self._links.values()):
            await link.ws.close()

    def _check_key(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse (403) a link whose ``Authorization`` header does not show this process's key."""
        assert isinstance(connection, LinkConnection)
        connection.settle()
        shown = request.headers.get("Authorization", "")
        if not hmac.compare_digest(shown.encode(), f"Bearer {self.key}".encode()):
            log.warning("a link without this process's key; refusing it", extra=fields(peer=str(connection.remote_address)))
            return connection.respond(HTTPStatus.FORBIDDEN, "a wrong key\n")
        return None

    async def _serve_link(self, link: ServerConnection) -> None:
        """Serve the clients another process relays over ``link``, each by a session here."""
        sockets: dict[int, RemoteSocket] = {}
        serving: set[asyncio.Task[None]] = set()
        try:
            async for data in link:
                parts = decode_parts(data)
                if parts[0] == "act":  # (a bot worker's move)
                    if len(parts) != 7:
                        raise ValueError(f"an act of {len(parts)} parts")
                    move = (str(parts[1]), str(parts[2]), int(parts[3]), int(parts[4]), parts[5], str(parts[6]))
                    moving = asyncio.get_running_loop().create_task(self._act(link, *move))
                    serving.add(moving)
                    moving.add_done_callback(serving.discard)
                    continue
                if parts[0] == "hand":  # (a table a stopping process hands this one)
                    if len(parts) != 5:
                        raise ValueError(f"a hand of {len(parts)} parts")
                    handed = (str(parts[1]), str(parts[2]), int(parts[3]), int(parts[4]))
                    taking = asyncio.get_running_loop().create_task(self._receive(link, *handed))
                    serving.add(taking)
                    taking.add_done_callback(serving.discard)
                    continue
                kind, cid = parts[0], int(parts[1])
                if kind == "open":
                    sock = sockets[cid] = RemoteSocket(link, cid, str(parts[2]))
                    task = asyncio.get_running_loop().create_task(self._session(sock, str(parts[3])))
                    serving.add(task)

                    def ended(task: asyncio.Task[None], cid: int = cid) -> None:
                        serving.discard(task)
                        sockets.pop(cid, None)

                    task.add_done_callback(ended)
                    continue
                target = sockets.get(cid)
                if target is None:
                    continue
                if kind == "text":
                    target.heard({"type": "websocket.receive", "text": str(parts[2])})
                elif kind == "bytes":
                    target.heard({"type": "websocket.receive", "bytes": str(parts[2]).encode("latin-1")})
                elif kind == "close":
                    target.heard({"type": "websocket.disconnect", "code": 1001})
                else:
                    raise ValueError(f"an unknown message {kind!r:.20}")
        except (ValueError, TypeError, IndexError) as e:
            log.warning("a link sent what is not a link's message; closing it", extra=fields(error=str(e)[:200]))
        except ConnectionClosed:
            pass
        finally:
            for sock in sockets.values():
                sock.heard({"type": "websocket.disconnect", "code": 1001})
            if serving:
                await asyncio.wait(serving)

    async def _act(self, link: ServerConnection, request: str, table_id: str, seat: int, seen: int, action: Any,
                   by: str) -> None:
        """A bot's move a bot worker sent over ``link``: handled here as the table's owner
        (:meth:`Ownership.command <hearts.server.tables.ownership.Ownership.command>`), answered
        ``["reply", request, outcome, seq, message]``."""
        outcome, seq, message = await self.manager.ownership.command(table_id, seat, seen, action, by)
        with contextlib.suppress(ConnectionClosed):
            await link.send(encode_parts("reply", request, outcome.value, seq, message))

    async def _receive(self, link: ServerConnection, request: str, table_id: str, epoch: int, seq: int) -> None:
        """A table a stopping process hands this one over ``link`` (:meth:`Ownership.receive
        <hearts.server.tables.ownership.Ownership.receive>`), answered ``["reply", request,
        outcome, seq, ""]``."""
        outcome, at = await self.manager.ownership.receive(table_id, epoch, seq)
        with contextlib.suppress(ConnectionClosed):
            await link.send(encode_parts("reply", request, outcome.value, at, ""))

    async def hand(self, peer: str, table_id: str, epoch: int, seq: int) -> tuple[str, int] | None:
        """Hand a table to the process ``peer`` over a link: with ``epoch`` 0 have it load the
        table, else own it under the lease at ``epoch`` from position ``seq`` on; its outcome
        and the table's position there, or ``None`` if it cannot be reached or does not answer
        within :data:`~hearts.server.tables.ownership.HAND_WAIT` seconds (to own it:
        :data:`~hearts.server.tables.ownership.OWN_WAIT`)."""
        link = await self._link(peer)
        wait = OWN_WAIT if epoch else HAND_WAIT
        answer = None if link is None else await link.replies.ask(link.ws, "hand", table_id, epoch, seq, wait=wait)
        return None if answer is None else (str(answer[0]), int(answer[1]))

    async def route(self, table_id: str) -> Link | None:
        """The link to the owner of ``table_id`` if another process owns it; ``None`` if this
        process serves the client: it owns the table, or claims it now (nobody did; of two
        processes whose clients arrive together, one wins and the other relays its client
        there), the game is over, or the owner could not be reached and this process took the
        table over once its lease ran out. Raises :class:`Unreachable` if the owner could not
        be reached and still holds its lease."""
        manager = self.manager
        ownership = manager.ownership
        if ownership.owns(table_id) or not TABLE_ID.fullmatch(table_id):
            return None
        for _ in range(ROUTES):
            try:
                owner = await ownership.owner_of(table_id)
                if owner is None:
                    table = await manager.get(table_id)
                    if table is None or table.game.is_over or await ownership.take(table):
                        return None
                    manager.forget_unused(table_id)  # (another process claimed it first: served there)
                    owner = await ownership.owner_of(table_id)
                    if owner is None:
                        continue
                if owner == ownership.me:
                    return None
                link = await self._link(owner)
                if link is not None:
                    return link
                if await self._take_from(table_id, owner):
                    return None
                holder = await ownership.leases.holder(table_id)
            except Exception:  # (the database is away: the client is served here, and told so)
                return None
            if holder is not None and holder.owner == owner:  # (not taken over by another process)
                break
        log.warning("a table's owner cannot be reached and holds its lease; its client is told to try again",
                    extra=fields(table=table_id, owner=owner))
        raise Unreachable("the table's server cannot be reached; try again later")

    async def _link(self, owner: str) -> Link | None:
        """An open link to the process ``owner``; ``None`` if it cannot be opened (none is
        tried for :data:`RETRY_AFTER` seconds after a failure)."""
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

    async def _take_from(self, table_id: str, owner: str) -> bool:
        """Take the table from ``owner``, which cannot be reached, once its lease runs out;
        whether this process owns it now (else another process took it over first, or
        ``owner`` still holds it)."""
        manager = self.manager
        ownership = manager.ownership
        ownership.unknown(table_id)
        table = await manager.get(table_id)
        if table is not None and await ownership.take(table, wait=TAKE_WAIT, dead=owner):
            return True
        manager.forget_unused(table_id)
        return False

    async def _open(self, owner: str, where: str) -> Link | None:
        """A link to the process ``owner`` at ``where`` (``host:port/key``), accepted; ``None``
        if it cannot be opened (tried again after :data:`RETRY_AFTER` seconds)."""
        try:
            ws = await open_link(where)
        except (OSError, InvalidHandshake, TimeoutError, asyncio.TimeoutError) as e:
            log.warning("cannot open a link to a table's owner; its clients wait for its lease to run out",
                        extra=fields(owner=owner, error=str(e)[:200] or type(e).__name__))
            self.failed(owner)
            return None
        self._failed.pop(owner, None)
        log.info("a link to another process opened: its tables' clients are relayed there", extra=fields(owner=owner))
        link = self._links[owner] = Link(self, owner, ws)
        return link

    async def relay(self, ws: WebSocket, link: Link, address: str) -> None:
        """Relay the client ``ws`` (from ``address``) to the table's owner over ``link``, until
        either end closes. If the link breaks (the owner stopped, died or froze), the client
        goes to the table's owner now, on the same WebSocket: over a link to another process
        that owns it (a stopping owner handed it there), else here (this process owns it, or
        takes it); if none can be reached, the client is closed with "try again later"."""
        await ws.accept()
        table_id = ws.path_params["table_id"]
        before = await self._relay_over(ws, link, address, None)
        while before.lost:
            self.manager.ownership.unknown(table_id)  # (the owner it knew broke the link: ask the database)
            try:
                next_link = await self.route(table_id)
            except Unreachable as e:
                await ws.close(CLOSE_TRY_LATER, str(e))
                return
            log.info("a link broke; its client goes to the table's owner",
                     extra=fields(table=table_id, relayed=next_link is not None))
            if next_link is None:
                await self._session(Resumed(ws, before), address)
                return
            before = await self._relay_over(ws, next_link, address, before)

    async def _relay_over(self, ws: WebSocket, link: Link, address: str, before: Relayed | None) -> Relayed:
        """Relay the client over ``link`` until either end closes or the link breaks (then
        :attr:`Relayed.lost`); what it said ``before`` on a link that broke is said first."""
        cid = next(self._ids)
        client = Relayed(ws, before)
        link.clients[cid] = client
        writer = asyncio.get_running_loop().create_task(client.conn.run_writer())
        await link.send("open", cid, ws.path_params["table_id"], address)
        for said in [] if before is None else before.again():
            await link.send("text", cid, str(said.get("text") or ""))
        client.pump = asyncio.get_running_loop().create_task(self._pump(client, link, cid))
        try:
            await client.pump
        except asyncio.CancelledError:
            if not client.lost:
                raise
        finally:
            if link.clients.pop(cid, None) is not None:
                await link.send("close", cid)
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

    @staticmethod
    async def _pump(client: Relayed, link: Link, cid: int) -> None:
        """Hand the client's messages to the link until it disconnects."""
        ws = client.ws
        while not client.conn.closed:
            received = await ws.receive()
            if received["type"] == "websocket.disconnect":
                return
            text = received.get("text")
            if text is None:
                await link.send("bytes", cid, (received.get("bytes") or b"").decode("latin-1"))
                continue
            if ('"hello"' in text or '"watch"' in text) and _kind(text) in ("hello", "watch"):
                client.greeting = dict(received)
            else:
                client.last = received
            await link.send("text", cid, text)


def _kind(text: str) -> object:
    """The ``type`` of a client's message (``None``: not a JSON object)."""
    try:
        message = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return None
    return message.get("type") if isinstance(message, dict) else None


class SoleRelays:
    """The links of a cluster of one (SQLite): no other process to relay a client to, or to
    hand a table to; every client is served here (:func:`relays_for`)."""

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def relayed(self) -> int:
        return 0

    async def route(self, table_id: str) -> Link | None:
        return None

    async def relay(self, ws: WebSocket, link: Link, address: str) -> None:
        raise RuntimeError("a cluster of one relays no client: route() gives no link")

    async def hand(self, peer: str, table_id: str, epoch: int, seq: int) -> tuple[str, int] | None:
        return None


def relays_for(manager: Manager, guard: AddressGuard, host: str = "127.0.0.1") -> Relays | SoleRelays:
    """The links of a server process: :class:`Relays` where many processes share the database
    (PostgreSQL), :class:`SoleRelays` where one process holds it (SQLite)."""
    return SoleRelays() if manager.store.one_process else Relays(manager, guard, host)
