"""Deadlines on a process's PostgreSQL calls: a frozen database answered within a second.

A stopped database refuses connections at once; a *frozen* one (its processes stopped, its
machine hung, a network that drops everything) accepts them and never answers, so a call
would wait for it until TCP gives up, minutes later. Every call to PostgreSQL (a connection of
the pool waited for, a connection made, the statements run on it; the action log's and the
announcer's statements) runs under a :class:`Deadline`: it is given up once it has waited
:data:`SILENCE` seconds during which the database answered nothing at all — no statement of the
process, on any connection (:class:`Liveness`, told of each answer). A busy database answers
other calls meanwhile, so a call queued behind a burst is not given up: only silence is.

A call is given up according to what it waits for:

* a connection (the pool's, or one being made): the wait is cancelled and :class:`TimeoutError`
  raised (a cancelled pool wait or attempt to connect leaves nothing behind);
* a statement's answer: the connection's socket is shut down (:func:`cut`), so that the
  driver fails as on a lost connection (psycopg's ``OperationalError``) and the connection is
  dropped, never given back to the pool hung. (Cancelling psycopg's wait instead makes it ask
  the server to cancel the query and wait for that, 5 s and 5 s more, which a frozen server
  never answers.)

Once a call was given up, the database is *silent* (:attr:`Liveness.silent`): every call fails
at once until a probe (an attempt to connect, every :data:`PROBE_PAUSE`) is answered.

The caller turns either into :class:`~hearts.server.storage.StoreUnavailable`. SQLite has no
deadline (the database is a file of the process's: a wait is a lock's busy wait, bounded by its
own timeout).

>>> import asyncio
>>> async def demo() -> str:
...     liveness = Liveness(silence=0.05)
...     try:
...         async with deadline(liveness):
...             await asyncio.Event().wait()  # a wait the database never ends
...     except TimeoutError:
...         return "given up"
...     return "answered"
>>> asyncio.run(demo())
'given up'
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final, Protocol

__all__ = ["SILENCE", "Deadline", "Liveness", "current", "cut", "deadline"]

SILENCE: Final = 0.8
"""Seconds of silence from the database after which a call waiting for it is given up (an
action answered "unavailable", a request 503): within the issue's 2 s with a margin for the
answer's way back and a slower machine."""

RECHECK: Final = 0.1
"""Seconds after a connection is cut before the call, if it goes on waiting, is looked at again."""


PROBE_PAUSE: Final = 0.25
"""Seconds between two attempts of :class:`Liveness`'s probe while the database is silent."""


class Liveness:
    """When a process's database last answered (``time.monotonic()``; any statement, on any
    connection), and so when a call begun at a given time is to be given up; whether it is
    :attr:`silent`.

    A call that has heard nothing for half the silence asks for the ``probe`` (an attempt to
    connect, within :attr:`silence`; :meth:`ask`): a live database answers it, which keeps the
    call waiting (a statement that waits for a lock held elsewhere on an otherwise idle
    process). Once a call was given up (:meth:`gave_up`) and nothing answered for
    :attr:`silence` seconds, the database is silent: every call begun then fails at once (its
    connection would wait as long again — an action behind another in its table's turn would
    wait twice), while the probe runs every :data:`PROBE_PAUSE` until the database answers again.

    >>> liveness = Liveness(silence=1.0)
    >>> liveness.silent, liveness.cuts
    (False, 0)
    >>> liveness.gave_up(); liveness.silent  # (no probe: never silent)
    False
    """

    def __init__(self, silence: float = SILENCE, probe: Callable[[], Awaitable[object]] | None = None) -> None:
        self.silence = silence
        self.last = -float("inf")
        """When the database last answered."""
        self.cuts = 0
        """Calls given up since the start (``/metrics``): on a silent database, or at once while it is."""
        self.silent = False
        """Whether a call was given up and nothing answered since: calls fail at once."""
        self._probe = probe
        self._probing: asyncio.Task[None] | None = None

    def answered(self) -> None:
        """The database answered a statement (or a connection was made)."""
        self.last = time.monotonic()
        self.silent = False

    def ask(self) -> None:
        """A call has heard nothing for half the silence: the probe tries the database now,
        unless it is trying already (once; over and over while the database is silent)."""
        if self._probe is not None and self._probing is None:
            self._probing = asyncio.get_running_loop().create_task(self._until_answered())

    def gave_up(self) -> None:
        """A call was given up: with a probe, the database is now :attr:`silent` until it
        answers (the probe runs meanwhile)."""
        self.cuts += 1
        if self._probe is None or time.monotonic() - self.last < self.silence:
            return
        self.silent = True
        self.ask()

    async def _until_answered(self) -> None:
        assert self._probe is not None
        try:
            while True:
                try:
                    await asyncio.wait_for(self._probe(), self.silence)
                except Exception:  # (not answered yet: a refusal, or no answer in time)
                    if not self.silent:
                        return
                    await asyncio.sleep(PROBE_PAUSE)
                else:
                    self.answered()
                    return
        finally:
            self._probing = None

    async def close(self) -> None:
        """Stop the probe, if it runs."""
        if self._probing is not None:
            self._probing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._probing


class Driver(Protocol):
    """A driver's connection (psycopg's): whether it is closed, and its libpq connection."""

    @property
    def closed(self) -> bool: ...

    @property
    def pgconn(self) -> Any: ...


def cut(conn: Driver) -> None:
    """Shut a driver connection's socket down (both ways), if it is still open: whatever waits
    on it wakes and reads the end of the stream, and the driver finds the connection lost. The
    socket stays open (the connection's owner closes it); a connection closed meanwhile is left
    alone (its descriptor's number may be another socket's by now)."""
    with contextlib.suppress(Exception):  # (closed meanwhile: libpq has no socket for it)
        if conn.closed:
            return
        with socket.socket(fileno=os.dup(int(conn.pgconn.socket))) as sock:
            sock.shutdown(socket.SHUT_RDWR)


_CURRENT: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("pyhearts_deadline", default=None)


def current() -> Deadline | None:
    """The deadline of the call the running code is part of, if any (for the pool's pings,
    which run while a connection is checked out: :meth:`Deadline.attach` their connection)."""
    return _CURRENT.get()


class Deadline:
    """One call's deadline (see the module): :meth:`attach` the driver connection it runs
    statements on once it has one; :meth:`stop` at its end."""

    def __init__(self, liveness: Liveness, timeout: asyncio.Timeout) -> None:
        self._liveness = liveness
        self._timeout = timeout
        self._began = time.monotonic()
        self._conn: Driver | None = None
        self._loop = asyncio.get_running_loop()
        self._due = 0.0
        self._handle = self._arm(liveness.silence / 2)
        self.expired = False
        """Whether the call was given up."""

    def _arm(self, delay: float) -> asyncio.TimerHandle:
        self._due = time.monotonic() + delay
        self._handle = self._loop.call_later(delay, self._check)
        return self._handle

    def attach(self, conn: Driver | None) -> None:
        """From now on the call waits for statements on this connection (``None``: for a
        connection: of the pool, or being made)."""
        self._conn = conn

    def _check(self) -> None:
        liveness = self._liveness
        now = time.monotonic()
        # (a check that comes late found the event loop busy: answers may wait unread in the
        # sockets meanwhile, so that time is not the database's silence)
        quiet = now - max(self._began, liveness.last) - max(0.0, now - self._due)
        if quiet < liveness.silence / 2:  # the database answered meanwhile: busy, not frozen
            self._arm(liveness.silence / 2 - quiet)
            return
        if quiet < liveness.silence:  # half the silence heard nothing: is the database there?
            liveness.ask()
            self._arm(liveness.silence - quiet)
            return
        if not self.expired:
            self.expired = True
            self._liveness.gave_up()
        if self._conn is None:
            self._timeout.reschedule(self._loop.time())
            return
        cut(self._conn)
        self._conn = None  # (the call may go on to another connection: it is cancelled then)
        self._arm(RECHECK)

    def stop(self) -> None:
        """The call ended: no more checks."""
        self._handle.cancel()


@contextlib.asynccontextmanager
async def deadline(liveness: Liveness | None, conn: Driver | None = None) -> AsyncIterator[Deadline | None]:
    """The block is a call under a :class:`Deadline` (``None``: none, SQLite's), waiting for
    statements on ``conn`` if given (else for a connection, until :meth:`Deadline.attach`);
    a wait for a connection given up raises :class:`TimeoutError` from the block, and so does
    entering it while the database is :attr:`~Liveness.silent`."""
    if liveness is None:
        yield None
        return
    if liveness.silent:
        liveness.cuts += 1
        raise TimeoutError("the database is silent")
    async with asyncio.timeout(None) as timeout:
        watch = Deadline(liveness, timeout)
        watch.attach(conn)
        token = _CURRENT.set(watch)
        try:
            yield watch
        finally:
            _CURRENT.reset(token)
            watch.stop()
