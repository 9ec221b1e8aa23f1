"""Database outages as a process sees them: retried with backoff, and said once in the log.

A process that loses its database (PostgreSQL stopped, restarted, failed over, the network
cut) keeps running: every task that needs the database retries with growing pauses
(:class:`Backoff`), and the process's one :class:`Outage` logs a single warning when the first
of them finds the database unreachable (:meth:`Outage.failed`) and a single line when one
reaches it again (:meth:`Outage.answered`) — not a line per retry, whatever the number of
tasks retrying. :func:`is_outage` tells such failures (the database cannot be reached or the
connection was lost) from the others (a bug, a constraint), which are not retried this way.

>>> import logging
>>> outage = Outage(logging.getLogger("hearts.example"))
>>> outage.down, is_outage(StoreUnavailable("gone")), is_outage(ValueError("bug"))
(False, True, False)
>>> outage.failed(StoreUnavailable("gone")); outage.failed(StoreUnavailable("still gone")); outage.down
True
>>> outage.answered(); outage.down
False
>>> outage.failed(StoreUnavailable("a late answer"), started=0.0); outage.down  # began before it was back
False
>>> [round(d, 2) for d in Backoff(first=0.25, factor=2, most=1).delays(5)]
[0.25, 0.5, 1, 1, 1]
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Final, TypeVar

from hearts.server.logs import fields
from hearts.server.storage import StoreUnavailable

__all__ = ["BACK", "DEFAULT_BACKOFF", "UNREACHABLE", "Backoff", "Outage", "is_outage"]

T = TypeVar("T")

UNREACHABLE: Final = "the database is unreachable; retrying"
"""The event logged (a warning) when a process finds its database unreachable."""
BACK: Final = "the database is back"
"""The event logged when it reaches it again (with ``seconds``: how long it was away)."""


def is_outage(error: BaseException) -> bool:
    """Whether an error says the database cannot be reached or the connection to it was lost
    (:class:`~hearts.server.storage.StoreUnavailable`, psycopg's ``OperationalError`` — a
    pool's timeout included — and ``InterfaceError``, an ``OSError``), not that a statement
    was wrong."""
    if isinstance(error, StoreUnavailable | OSError):
        return True
    try:
        import psycopg
    except ImportError:  # (no PostgreSQL driver: SQLite only)
        return False
    return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError)


@dataclass(frozen=True)
class Backoff:
    """Pauses between retries: ``first`` seconds, then ``factor`` times longer each time, at
    most ``most``."""

    first: float = 0.25
    factor: float = 2.0
    most: float = 5.0

    def delays(self, count: int | None = None) -> Iterator[float]:
        """The pauses, in order (``count`` of them; ``None``: without end)."""
        delay, n = self.first, 0
        while count is None or n < count:
            yield delay
            delay, n = min(self.most, delay * self.factor), n + 1


DEFAULT_BACKOFF: Final = Backoff()
"""A quarter of a second, then twice as long each time, at most 5 s."""


class Outage:
    """Whether the database answers, as one process's tasks find it: each task reports each
    failure that :func:`is_outage` accepts (:meth:`failed`) and each success after one
    (:meth:`answered`); the log says it once each way (:data:`UNREACHABLE`, :data:`BACK`).

    A failure of an attempt that began before the database was last found back (a statement
    that waited for a connection while the pool was reconnecting) is the outage that ended,
    not a new one: given its ``started`` time, it is not reported again."""

    def __init__(self, logger: logging.Logger, **where: object) -> None:
        self.log = logger
        self.where = where
        """Fields every line of this outage carries (e.g. the worker's name)."""
        self._since: float | None = None
        self._back = -float("inf")
        """When the last outage ended (``time.monotonic()``)."""

    @property
    def down(self) -> bool:
        """Whether the last report was a failure."""
        return self._since is not None

    def away_since(self, started: float) -> bool:
        """Whether the database was away at some time after ``started`` (``time.monotonic()``):
        it is now, or it came back since.

        >>> outage = Outage(logging.getLogger("doc"))
        >>> began = time.monotonic()
        >>> outage.away_since(began)
        False
        >>> outage.failed(OSError("refused"), began); outage.answered()
        >>> outage.away_since(began), outage.away_since(time.monotonic() + 1)
        (True, False)
        """
        return self._since is not None or self._back > started

    def failed(self, error: BaseException, started: float | None = None) -> None:
        """A task found the database unreachable (in an attempt begun at ``started``, by
        ``time.monotonic()``, if known): the first such report since it last answered logs
        :data:`UNREACHABLE` (with the error), unless the attempt began before that."""
        if self._since is None and (started is None or started > self._back):
            self._since = time.monotonic()
            self.log.warning(UNREACHABLE, extra=fields(**self.where, error=" ".join(str(error).split())[:300]))

    def answered(self) -> None:
        """A task reached the database: after a failure, logs :data:`BACK` once."""
        if self._since is not None:
            self._back = time.monotonic()
            seconds = round(self._back - self._since, 1)
            self._since = None
            self.log.info(BACK, extra=fields(**self.where, seconds=seconds))

    async def retry(self, attempt: Callable[[], Awaitable[T]], backoff: Backoff = DEFAULT_BACKOFF) -> T:
        """``await attempt()`` until it does not fail with an outage (each failure reported, a
        pause of ``backoff`` after each); its result. Other errors are raised at once."""
        for delay in backoff.delays():
            started = time.monotonic()
            try:
                result = await attempt()
            except Exception as e:
                if not is_outage(e):
                    raise
                self.failed(e, started)
                await asyncio.sleep(delay)
            else:
                self.answered()
                return result
        raise AssertionError("unreachable: the delays never end")  # pragma: no cover
