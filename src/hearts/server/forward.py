"""A stopping server process's tables handed to a live one through the database (PostgreSQL):
it sends a :class:`~hearts.server.notices.HandNotice` (``NOTIFY``, through the service's
channel) and waits for the :class:`~hearts.server.notices.ReplyNotice` (:meth:`Forwarder.hand`,
:meth:`Forwarder.answer`); and :class:`Outcome`, what became of an action at its table's owner.

>>> Outcome.DONE.value, Outcome("stale") is Outcome.STALE
('done', True)
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import secrets
from typing import Final

from hearts.server.notices import HandNotice, ReplyNotice
from hearts.server.storage import Lease, Storage, StoreUnavailable

FORWARD_WAIT: Final = 1.5
"""Seconds a process waits for a peer's reply to a table handed to it."""


class Outcome(enum.Enum):
    """What became of an action at its table's owner (or of a table handed to a peer)."""

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


class Forwarder:
    """One process's tables handed to its peers, waiting for their replies (``me``: the
    process id the peers answer to). Hand it every :class:`~hearts.server.notices.ReplyNotice`
    heard (:meth:`hear`); :meth:`hand` hands a table and returns the peer's reply."""

    def __init__(self, store: Storage, me: str) -> None:
        self.store = store
        self.me = me
        self._waiting: dict[str, asyncio.Future[ReplyNotice]] = {}

    async def hand(self, to: str, table_id: str, lease: Lease | None = None, seq: int = 0,
                   wait: float = FORWARD_WAIT) -> ReplyNotice | None:
        """Hand the table to process ``to`` (:class:`~hearts.server.notices.HandNotice`): have
        it load the table (no ``lease``), or own it under ``lease`` from position ``seq``; its
        reply (``done``: it did), or ``None`` if none came within ``wait`` seconds. A failure
        to send (the database away) is raised."""
        request = secrets.token_hex(8)
        reply: asyncio.Future[ReplyNotice] = asyncio.get_running_loop().create_future()
        self._waiting[request] = reply
        try:
            epoch = 0 if lease is None else lease.epoch
            if not await self.store.notify(HandNotice(to, self.me, request, table_id, epoch, seq)):
                raise StoreUnavailable("the table's peer could not be told: the database does not answer")
            with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                return await asyncio.wait_for(asyncio.shield(reply), wait)
            return None
        finally:
            self._waiting.pop(request, None)

    def hear(self, notice: ReplyNotice) -> None:
        """A reply heard on the channel: handed to its table handed if it is this process's;
        any other, ignored."""
        reply = self._waiting.get(notice.request)
        if notice.to == self.me and reply is not None and not reply.done():
            reply.set_result(notice)

    async def answer(self, hand: HandNotice, outcome: Outcome, seq: int) -> None:
        """Send the reply to a table handed to this process."""
        await self.store.notify(ReplyNotice(hand.sender, hand.request, outcome.value, seq))
