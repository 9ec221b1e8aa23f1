"""Hints at a table: what the hint bot would do for a seat at a position, computed from the
seat's view only (R7), once per seat and position, and sent to every connection of the seat
that asked while it was computed."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from hearts.actions import Action
from hearts.server.botpool import BotPool
from hearts.server.botworker import job_seed
from hearts.server.logs import fields
from hearts.server.tables.commands import HintAt
from hearts.server.tables.errors import TableError
from hearts.server.tables.messages import hint_message
from hearts.view import View

if TYPE_CHECKING:
    from hearts.server.tables.connection import Connection
    from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")


class Hints:
    """One table's hints: those given in this process, and the connections waiting for one."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._given: dict[tuple[int, int], Action] = {}
        """The hints given in this process, by seat and position (those of past positions go)."""
        self._waiters: dict[tuple[int, int], set[Connection]] = {}
        """The connections waiting for a hint being computed, by seat and position."""

    async def ask(self, conn: Connection, seat: int, seq: int) -> None:
        """Send ``conn`` the hint for ``seat`` at position ``seq``: from this process's bot
        pool (SQLite), or from a bot worker (PostgreSQL: a hint job; its result comes back as
        a :class:`~hearts.server.storage.HintNotice`). A stale ``seq`` gets a resync; a hint
        whose position has moved on by the time it is ready is dropped.
        :class:`~hearts.server.tables.errors.TableError` (``not_your_turn``) when the seat is
        not to act."""
        table = self.table
        view = await table.mailbox.run(HintAt(conn, seat, seq))
        if view is None:
            return
        key = (seat, seq)
        known = self._given.get(key)
        if known is not None:
            conn.push(hint_message(known, seq, table.game.rules.round_points))
            return
        waiting = key in self._waiters
        self._waiters.setdefault(key, set()).add(conn)
        if waiting:
            return  # being computed: it is sent to every connection that asked
        await table.thinking.hint(table, view, seat, seq)

    def position(self, seat: int, seq: int) -> View | None:
        """``seat``'s view for a hint asked at ``seq``, in the table's turn (:class:`HintAt`):
        ``None`` if the position moved on."""
        table = self.table
        if table.game.is_over or seat not in table.game.actors():
            raise TableError("a hint is given when it is your turn to act", code="not_your_turn")
        return View.of(table.game, seat) if seq == table.seq else None

    async def think(self, pool: BotPool, view: View, seat: int, seq: int) -> None:
        table = self.table
        try:
            action = await pool.hint(view, job_seed(table.game.seed or 0, seat, seq))
            log.info("hint", extra=fields(table=table.id, seat=seat, seq=seq))
        except Exception:
            log.exception("a hint failed", extra=fields(table=table.id, seat=seat))
            action = None
        self.give(seat, seq, action)

    def give(self, seat: int, seq: int, action: Action | None) -> None:
        """A hint is ready: keep it, and send it to the connections waiting for it if its
        position is still the table's (else it is dropped)."""
        table = self.table
        waiters = self._waiters.pop((seat, seq), set())
        for key in [k for k in self._given if k[1] < table.seq]:
            del self._given[key]
        if action is None or seq != table.seq or seat not in table.game.actors():
            return
        self._given[seat, seq] = action
        message = hint_message(action, seq, table.game.rules.round_points)
        for c in waiters:
            if c.seat == seat and c in table.conns:
                c.push(message)
