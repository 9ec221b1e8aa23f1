"""Hints at a table: what the hint bot would do for a seat's decision, computed from the seat's
view only (R7), once per seat and decision, and sent to every connection of the seat that asked
while it was computed. A decision is one position, or a pass phase
(:func:`~hearts.server.turns.decision_start`): a hint at the pass holds through the others'
passes."""

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
from hearts.server.turns import decision_start
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
        """The hints given in this process, by seat and the position its decision began at (those
        of decisions past go)."""
        self._waiters: dict[tuple[int, int], set[Connection]] = {}
        """The connections waiting for a hint being computed, likewise."""

    async def ask(self, conn: Connection, seat: int, seq: int) -> None:
        """Send ``conn`` the hint for ``seat``'s decision that position ``seq`` lies within: from
        this process's bot pool (SQLite), or from a bot worker (PostgreSQL: a hint job; its
        result comes back as a :class:`~hearts.server.storage.HintNotice`). A position of
        another decision gets a resync; a hint whose decision is past by the time it is ready
        is dropped. :class:`~hearts.server.tables.errors.TableError` (``not_your_turn``) when
        the seat is not to act."""
        table = self.table
        asked = await table.mailbox.run(HintAt(conn, seat, seq))
        if asked is None:
            return
        view, start = asked
        key = (seat, start)
        known = self._given.get(key)
        if known is not None:
            conn.push(hint_message(known, table.seq, table.game.rules.round_points))
            return
        waiting = key in self._waiters
        self._waiters.setdefault(key, set()).add(conn)
        if waiting:
            return  # being computed: it is sent to every connection that asked
        await table.thinking.hint(table, view, seat, start)

    def position(self, seat: int, seq: int) -> tuple[View, int] | None:
        """``seat``'s view for a hint asked at ``seq``, and the position its decision began at,
        in the table's turn (:class:`HintAt`): ``None`` if ``seq`` is of another decision."""
        table = self.table
        if table.game.is_over or seat not in table.game.actors():
            raise TableError("a hint is given when it is your turn to act", code="not_your_turn")
        start = decision_start(table.game, seat, seq)
        return None if start is None else (View.of(table.game, seat), start)

    async def think(self, pool: BotPool, view: View, seat: int, start: int) -> None:
        """Compute the hint of ``seat``'s decision begun at ``start`` in ``pool`` (seeded by the
        decision, as a bot worker's: :func:`~hearts.server.botworker.job_seed`), then :meth:`give` it."""
        table = self.table
        try:
            action = await pool.hint(view, job_seed(table.game.seed or 0, seat, start))
            log.info("hint", extra=fields(table=table.id, seat=seat, seq=start))
        except Exception:
            log.exception("a hint failed", extra=fields(table=table.id, seat=seat))
            action = None
        self.give(seat, start, action)

    def give(self, seat: int, start: int, action: Action | None) -> None:
        """The hint of ``seat``'s decision begun at position ``start`` is ready: keep it, and
        send it, for the table's position, to the connections waiting for it if that decision
        is still to be made (else it is dropped)."""
        table = self.table
        waiters = self._waiters.pop((seat, start), set())
        for key in [k for k in self._given if decision_start(table.game, k[0], k[1]) is None]:
            del self._given[key]
        if action is None or decision_start(table.game, seat, start) is None:
            return
        self._given[seat, start] = action
        message = hint_message(action, table.seq, table.game.rules.round_points)
        for c in waiters:
            if c.seat == seat and c in table.conns:
                c.push(message)
