"""Commands sent to a table's owner through the database (PostgreSQL): a bot worker sends a
bot's move to the owner as a :class:`~hearts.server.storage.CommandNotice` and waits for its
:class:`~hearts.server.storage.ReplyNotice` — or, when it is done, the action's own
:class:`~hearts.server.storage.ActionNotice`, which names the command (``NOTIFY`` both ways,
through the service's channel); the owner handles it in its table's turn like one of its own
clients' commands (:mod:`hearts.server.tables.ownership`). A stopping server process hands its
tables to a live one the same way (:meth:`Forwarder.hand`). A person's actions never come this
way: a client is served by its table's owner (:mod:`hearts.server.relay`).

>>> Outcome.DONE.value, Outcome("stale") is Outcome.STALE
('done', True)
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import secrets
from collections.abc import Callable
from typing import Final

from hearts.actions import Action, to_dict
from hearts.server.notices import ActionNotice, CommandNotice, HandNotice, Notice, ReplyNotice
from hearts.server.storage import Lease, Storage, StoreUnavailable

FORWARD_WAIT: Final = 1.5
"""Seconds a forwarded command waits for the owner's reply: an owner that does not answer in
that time is taken to be dead or frozen (its lease runs out within seconds, and the table is
taken over)."""


class Outcome(enum.Enum):
    """What became of a command at the table's owner."""

    DONE = "done"
    """Applied and logged: its event reaches every process through the log's notice, which
    is also this reply."""
    STALE = "stale"
    """Made on a position that has moved on (the client is sent the position again)."""
    ILLEGAL = "illegal"
    """Refused by the rules; nothing changed."""
    NOT_OWNER = "not_owner"
    """The process asked does not own the table (any more): ask the table's owner."""
    UNAVAILABLE = "unavailable"
    """The database could not be reached: nothing changed; try again."""


class Forwarder:
    """One process's forwarded commands waiting for their replies (``me``: the process id the
    owners answer to). Hand it every :class:`~hearts.server.storage.ReplyNotice` and
    :class:`~hearts.server.storage.ActionNotice` heard (:meth:`hear`); :meth:`send` forwards a command and returns its reply."""

    def __init__(self, store: Storage, me: str) -> None:
        self.store = store
        self.me = me
        self._waiting: dict[str, asyncio.Future[ReplyNotice]] = {}

    async def send(
        self, to: str, table_id: str, seat: int, seen: int, action: Action, by: str, wait: float = FORWARD_WAIT
    ) -> ReplyNotice | None:
        """Forward ``seat``'s ``action``, made at position ``seen``, to the process ``to`` (the
        table's owner); its reply, or ``None`` if none came within ``wait`` seconds. A failure
        to send (the database away) is raised."""
        return await self._ask(lambda request: CommandNotice(to, self.me, request, table_id, seat, seen,
                                                             to_dict(action), by), wait)

    async def hand(self, to: str, table_id: str, lease: Lease | None = None, seq: int = 0,
                   wait: float = FORWARD_WAIT) -> ReplyNotice | None:
        """Hand the table to process ``to`` (:class:`~hearts.server.storage.HandNotice`): have
        it load the table (no ``lease``), or own it under ``lease`` from position ``seq``; its
        reply (``done``: it did), or ``None`` if none came within ``wait`` seconds."""
        epoch = 0 if lease is None else lease.epoch
        return await self._ask(lambda request: HandNotice(to, self.me, request, table_id, epoch, seq), wait)

    async def _ask(self, notice: Callable[[str], Notice], wait: float) -> ReplyNotice | None:
        """Send the notice made for a new request id and wait ``wait`` seconds for its reply."""
        request = secrets.token_hex(8)
        reply: asyncio.Future[ReplyNotice] = asyncio.get_running_loop().create_future()
        self._waiting[request] = reply
        try:
            if not await self.store.notify(notice(request)):
                raise StoreUnavailable("the table's server could not be told: the database does not answer")
            with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                return await asyncio.wait_for(asyncio.shield(reply), wait)
            return None
        finally:
            self._waiting.pop(request, None)

    def hear(self, notice: ReplyNotice | ActionNotice) -> None:
        """A reply heard on the channel, or an action's notice (its command's reply ``done``, if
        it names one): handed to its command if it is this process's; any other, ignored."""
        if isinstance(notice, ReplyNotice) and notice.to != self.me:
            return
        reply = self._waiting.get(notice.request)
        if reply is None or reply.done():
            return
        if isinstance(notice, ActionNotice):
            notice = ReplyNotice(self.me, notice.request, Outcome.DONE.value, notice.seq)
        reply.set_result(notice)

    async def answer(self, command: CommandNotice | HandNotice, outcome: Outcome, seq: int, message: str = "") -> None:
        """Send the reply to a command this process handled (as its table's owner), or to a table handed to it."""
        await self.store.notify(ReplyNotice(command.sender, command.request, outcome.value, seq, message))
