"""A table's WebSocket clients: each a :class:`Connection` that sends a message at once when
its socket takes it, else queues it for its own writer, so that a slow client never makes the
table or the others wait."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from hearts.server.limits import CLOSE_GOING_AWAY, CLOSE_TRY_LATER
from hearts.server.logs import fields

if TYPE_CHECKING:
    from hearts.server.tables.messages import Sent
    from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")


@dataclass(frozen=True)
class Closing:
    """The end of a connection's outgoing queue: close with ``code`` and ``reason``."""

    code: int
    reason: str


class Connection:
    """One WebSocket client: a message is sent at once, in passing, when nothing waits before
    it and the socket takes it without waiting; else it waits in an outgoing queue drained by
    a writer with a send timeout.

    A client that cannot keep up (its socket's buffer full, ``max_queue`` messages waiting, or
    a send that times out) is disconnected; it can reconnect and get the full state. Nobody
    else waits for it.
    :meth:`close` ends the connection after what is queued (the error that says why, first),
    with a close code and reason; :meth:`kill` drops what is queued.

    A connection is unattached (no ``hello`` or ``watch`` accepted yet), seated (``seat`` is
    its seat) or a spectator (``spectator`` is true and ``seat`` is ``None``).
    """

    def __init__(
        self,
        send: Callable[[str], Coroutine[Any, Any, None]],
        close: Callable[[int, str], Awaitable[None]],
        *,
        max_queue: int = 256,
        send_timeout: float = 10.0,
    ) -> None:
        self._send = send
        self._close = close
        self.queue: asyncio.Queue[str | Closing] = asyncio.Queue()
        self.max_queue = max_queue
        self.send_timeout = send_timeout
        self.seat: int | None = None
        self.spectator = False
        self.unread: frozenset[int] | None = frozenset()
        """A spectator's: the seats whose chat lines it does not read (their profiles its
        profile muted or blocked, or that blocked it); ``None``: no line at all (its chat is off)."""
        self.table: Table | None = None
        self.relayed = False
        """A client another process relays to this one (:mod:`hearts.server.relay`): when this
        process stops, that process serves it itself, on the same WebSocket."""
        self.closed = False
        """No more messages are taken (the connection is closing or closed)."""
        self._idle = False
        """The writer runs and waits for a message: the queue is empty and no send is on its way."""
        self.sent: Sent | None = None
        """The position as this connection was last sent it (its ``state``, then each
        ``event`` applied): the next event carries what changed since."""

    def reads(self, seat: int) -> bool:
        """Whether this spectator reads the chat lines of ``seat``."""
        return self.unread is not None and seat not in self.unread

    @property
    def attached(self) -> bool:
        """Whether a ``hello`` or a ``watch`` was accepted."""
        return self.seat is not None or self.spectator

    def push(self, message: str) -> None:
        """Queue a message, encoded (dropped once the connection is closing)."""
        if self.closed:
            return
        if self._idle:  # (the queue is empty)
            self._send_now(message)
            return
        if self.queue.qsize() >= self.max_queue:
            self._let_go()
            return
        self.queue.put_nowait(message)

    def _send_now(self, message: str) -> None:
        """Send ``message`` in passing (no hand-over to the writer: one action's broadcast goes
        out in the turn that made it). A send is a coroutine that finishes without waiting
        while the socket's buffer has room; one that would wait (the client does not read:
        its buffer is full) is dropped before it sent anything, and the client disconnected."""
        sending = self._send(message)
        try:
            sending.send(None)
        except StopIteration:
            return
        except Exception:  # a dead socket: drop this client only
            self.kill(CLOSE_TRY_LATER, "the connection failed")
            return
        sending.close()
        self._let_go()

    def _let_go(self) -> None:
        """Disconnect a client that cannot keep up (it may reconnect for the whole state)."""
        log.warning("a client cannot keep up; disconnecting it", extra=fields(
            table=self.table.id if self.table else None, seat=self.seat, spectator=self.spectator
        ))
        self.kill(CLOSE_TRY_LATER, "too many messages waiting for you: reconnect for the full state")

    async def _send_queued(self, first: str) -> Closing | None:
        """Send ``first`` and the messages queued after it, up to a :class:`Closing` (returned)."""
        await self._send(first)
        while not self.queue.empty():
            item = self.queue.get_nowait()
            if isinstance(item, Closing):
                return item
            await self._send(item)
        return None

    def close(self, code: int, reason: str) -> None:
        """Close with ``code`` and ``reason`` once the messages queued so far are sent."""
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(Closing(code, reason))

    def kill(self, code: int = CLOSE_GOING_AWAY, reason: str = "") -> None:
        """Drop what is queued and close with ``code`` and ``reason``."""
        while not self.queue.empty():
            self.queue.get_nowait()
        self.closed = True
        self.queue.put_nowait(Closing(code, reason))

    async def run_writer(self) -> None:
        """Send the queued messages until the connection closes, then close it. The messages
        queued meanwhile are sent together, under one deadline of ``send_timeout`` seconds."""
        end = Closing(CLOSE_TRY_LATER, "the connection failed")
        try:
            while True:
                self._idle = self.queue.empty()
                item = await self.queue.get()
                self._idle = False
                if isinstance(item, Closing):
                    break
                closing = await within(self._send_queued(item), self.send_timeout)
                if closing is not None:
                    item = closing
                    break
            end = item
        except Exception:  # a dead or slow socket: drop this client only
            pass
        finally:
            self.closed = True
            with contextlib.suppress(Exception):
                await self._close(end.code, end.reason)


_T = TypeVar("_T")


async def within(work: Coroutine[Any, Any, _T], seconds: float) -> _T:
    """Await ``work``, raising ``TimeoutError`` after ``seconds``: ``asyncio.wait_for``
    without the task that it makes for each use (on Python 3.11, ``asyncio.timeout``; on 3.10,
    ``wait_for`` itself, raising ``asyncio.TimeoutError``)."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await work
    return await asyncio.wait_for(work, seconds)  # pragma: no cover - Python 3.10


