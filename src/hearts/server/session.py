"""One WebSocket client of the web table, from its handshake to its close (``WS /ws/{id}``).

A session counts against its address's limits (:class:`~hearts.server.limits.AddressGuard`:
connections open and opened, messages), must take a seat (``hello``) or watch within
``hello_timeout`` seconds, may show a wrong token ``hello_attempts - 1`` times, and is closed
with a code and a reason — after the error messages queued for it — when it breaks a limit or
is refused for good (see :mod:`hearts.server.protocol`). Its messages go to its
:class:`~hearts.server.tables.Table`; its seat's chat messages — through all of the seat's
connections to this process together — are held to ``chat_rate`` (beyond: an error, the message
is not sent, the connection stays open).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from typing import Any, Protocol

from starlette.websockets import WebSocketDisconnect

from hearts.server import company
from hearts.server.company import Banned, check_not_banned, seat_player
from hearts.server.limits import (
    CLOSE_NO_TABLE,
    CLOSE_POLICY,
    AddressGuard,
    RateLimited,
    Refused,
    rate_words,
)
from hearts.server.logs import fields
from hearts.server.outage import is_outage
from hearts.server.passkeys import ticket_player
from hearts.server.players import optional_player
from hearts.server.protocol import ProtocolError, error_message, parse_client
from hearts.server.tables import UNAVAILABLE, Connection, Manager, Table
from hearts.server.wire import (
    Chat,
    Hello,
    HintRequest,
    Mark,
    Ping,
    Pong,
    Rematch,
    Rename,
    Report,
    TalkMessage,
    Watch,
    encode,
)

log = logging.getLogger("hearts.server")


class Socket(Protocol):
    """What a session needs of its client's WebSocket: a
    :class:`starlette.websockets.WebSocket`, or a client another process relays here
    (:class:`hearts.server.relay.RemoteSocket`)."""

    @property
    def path_params(self) -> dict[str, Any]: ...

    async def accept(self) -> None: ...

    async def receive(self) -> Any: ...

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Session:
    """A WebSocket connection to the table ``table_id`` from ``address``: :meth:`run` serves
    it to its end."""

    def __init__(self, ws: Socket, manager: Manager, guard: AddressGuard, address: str, session: str | None = None) -> None:
        self.ws = ws
        self.session = session
        """The secret of the session cookie the connection came with (a profile signed in with a
        passkey: :mod:`hearts.server.passkeys`), or ``None``; a relayed connection has none."""
        self.manager = manager
        self.guard = guard
        self.limits = guard.limits
        self.address = address
        self.conn = Connection(ws.send_text, self._close)
        self.failures = 0
        """Wrong tokens shown so far."""

    async def _close(self, code: int, reason: str) -> None:
        await self.ws.close(code, reason)

    def failed(self, error: Exception, table: Table, event: str, unchanged: str) -> None:
        """A message failed: an ``unavailable`` error (the database cannot be reached; counted
        in ``hearts_database_errors_total``, and no line a message in the log: the process's
        tasks say once that the database is away, as for an HTTP request) or an ``internal``
        one (a bug: logged with its traceback, counted in ``hearts_internal_errors_total``) to
        this client only."""
        metrics = self.manager.metrics
        if is_outage(error):
            metrics.database_errors.inc()
            self.conn.push(error_message(UNAVAILABLE, "unavailable", table.seq))
            return
        metrics.internal_errors.inc()
        log.exception(event, extra=fields(table=table.id, seat=self.conn.seat))
        self.conn.push(error_message(f"internal error; {unchanged}", "internal", table.seq))

    def refuse(self, refusal: Refused, seq: int | None = None) -> None:
        """Tell the client why its message is refused, and close the connection if the refusal
        says so."""
        self.manager.metrics.refused.labels(refusal.code).inc()
        self.conn.push(error_message(str(refusal), refusal.code, seq))
        if refusal.close_code is not None:
            log.info("connection closed", extra=fields(
                address=self.address, code=refusal.close_code, reason=refusal.code
            ))
            self.conn.close(refusal.close_code, refusal.reason)

    async def run(self) -> None:
        """Serve the connection until it closes."""
        await self.ws.accept()
        writer = asyncio.get_running_loop().create_task(self.conn.run_writer())
        counted = False
        try:
            self.guard.connect(self.address)
            counted = True
            async with self.manager.visit(self.ws.path_params["table_id"]) as table:
                if table is None:
                    raise Refused("there is no such table", 404, "no_table", CLOSE_NO_TABLE)
                await self._serve(table)
        except Refused as e:
            self.refuse(e)
        except WebSocketDisconnect:
            pass
        finally:
            if self.conn.table is not None:
                self.conn.table.detach(self.conn)
            if counted:
                self.guard.disconnect(self.address)
            if not self.conn.closed:
                self.conn.kill(1000, "")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, self.conn.send_timeout)

    async def _serve(self, table: Table) -> None:
        """Read and answer messages until the connection closes."""
        conn = self.conn
        deadline = asyncio.get_running_loop().time() + self.limits.hello_timeout
        while not conn.closed:
            wait = None if conn.attached else deadline - asyncio.get_running_loop().time()
            try:
                received = await asyncio.wait_for(self.ws.receive(), wait)
            except asyncio.TimeoutError:
                timeout = self.limits.hello_timeout
                raise ProtocolError(f"no hello or watch within {timeout:g} s", "timeout", CLOSE_POLICY) from None
            if received["type"] == "websocket.disconnect":
                return
            arrived = time.perf_counter()
            self.guard.hit("messages", self.address)
            raw = received.get("text")
            if raw is None:
                raw = received.get("bytes")
            try:
                message = parse_client(raw, self.limits)
            except ProtocolError as e:
                self.refuse(e, table.seq)
                continue
            if isinstance(message, Ping):
                conn.push(encode(Pong()))
            elif isinstance(message, Hello):
                await self._hello(table, message)
            elif isinstance(message, Watch):
                try:
                    if message.key is not None or self.session:
                        conn.unread = await self._unread(table, message.key)
                    await table.watch(conn)
                    await table.talk.send_history(conn)
                except Refused as e:
                    self.refuse(e, table.seq)
            elif not conn.attached:
                conn.push(error_message(
                    'not seated: send {"type": "hello", "token": ...} (or {"type": "watch"}) first', "not_seated"
                ))
            elif isinstance(message, (Chat, Rename, HintRequest, Rematch)):
                await self._talk(table, message)
            elif isinstance(message, (Mark, Report)):
                await self._company(table, message)
            else:
                try:
                    await table.handle(conn, message, arrived)
                except Exception as e:  # a bug must not take the server down for the others
                    self.failed(e, table, "error handling a message", "the table is unchanged")

    async def _unread(self, table: Table, key: str | None) -> frozenset[int] | None:
        """The seats whose chat lines a spectator watching with the profile ``key`` (else the
        one of its session cookie) does not read (:attr:`Connection.unread`);
        :class:`ProtocolError` if the key opens no profile."""
        try:
            me = await optional_player(table.store, None if key is None else f"Bearer {key}", self.session)
        except Banned:
            raise
        except Refused as e:
            raise ProtocolError(str(e), "bad_key") from None
        if me is None:  # (a session signed out: nothing hidden)
            return None
        hidden = await company.seats_hidden_from(table.store, await table.store.log.seats(table.id), me.id)
        return None if hidden is None else frozenset(hidden)

    async def _hello(self, table: Table, hello: Hello) -> None:
        """Seat the connection at the seat the token opens (a seat's own, or a profile's seat
        ticket: :func:`hearts.server.passkeys.seat_ticket`); a wrong token is an error, and one
        too many closes the connection; a seat of a banned profile is refused, closed."""
        seat = await table.find_seat(hello.token)
        if seat is None:
            seat = await self._ticket_seat(table, hello.token)
        if seat is None:
            self.failures += 1
            close = CLOSE_POLICY if self.failures >= self.limits.hello_attempts else None
            message = "wrong token: it opens no seat at this table"
            self.refuse(ProtocolError(message if close is None else f"{message} (too many wrong tokens)",
                                      "bad_token", close))
        elif self.conn.seat is not None and self.conn.seat != seat:
            self.refuse(ProtocolError("this connection already holds another seat", "bad_token"))
        else:
            try:
                await check_not_banned(table.store, await seat_player(table.store, table.id, seat))
            except Banned as e:
                self.refuse(e, table.seq)
                return
            except Exception as e:  # the database is away: the seat is welcomed all the same (a
                if not is_outage(e):  # ban holds again at its next chat line, which needs it)
                    raise
            await table.attach(self.conn, seat)
            await table.talk.send_history(self.conn)

    @staticmethod
    async def _ticket_seat(table: Table, ticket: str) -> int | None:
        """The seat at ``table`` of the profile whose seat ticket this is, or ``None``."""
        player_id = await ticket_player(table.store, table.id, ticket)
        if player_id is None:
            return None
        return next((s.seat for s in await table.store.log.seats(table.id) if s.kind == "human" and s.player_id == player_id), None)

    async def _company(self, table: Table, message: Mark | Report) -> None:
        """A seat's ``mark`` or ``report`` (:mod:`hearts.server.company`), held to its seat's
        chat rate as a chat line is; a refusal is an error message, and nothing changes."""
        try:
            seat = self.conn.seat
            if seat is None:
                raise ProtocolError("spectators cannot mute, block or report: take a seat", "not_seated")
            wait = self.manager.chats.hit(f"{table.id}/{seat}")
            if wait:
                raise RateLimited(f"too many messages (at most {rate_words(self.manager.chat_rate)}); "
                                  f"wait {max(1, math.ceil(wait))} s", max(1, math.ceil(wait)), close_code=None)
            self.conn.push(await company.take(table.store, table.id, seat, message))
        except Refused as e:
            self.refuse(e, table.seq)
        except Exception as e:  # a bug must not take the server down for the others
            self.failed(e, table, "error handling a mark or report", "nothing was changed")

    async def _talk(self, table: Table, message: TalkMessage) -> None:
        """A chat message (held to its seat's chat rate, :attr:`Manager.chats`), a name, a hint
        request or a rematch request; a refusal is an error message, and nothing changes."""
        try:
            if isinstance(message, Chat) and self.conn.seat is not None:
                wait = self.manager.chats.hit(f"{table.id}/{self.conn.seat}")
                if wait:
                    raise RateLimited(f"too many chat messages (at most {rate_words(self.manager.chat_rate)}); "
                                      f"wait {max(1, math.ceil(wait))} s", max(1, math.ceil(wait)), close_code=None)
            if isinstance(message, Rematch):
                await company.check_rematch(table.store, table.id)  # (never a blocked pair again)
                await self.manager.rematch(table, self.conn)
            else:
                await table.talk.take(self.conn, message)
        except Refused as e:
            self.refuse(e, table.seq)
        except Exception as e:  # a bug must not take the server down for the others
            self.failed(e, table, "error handling table talk", "nothing was changed")
