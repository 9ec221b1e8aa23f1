"""A table's actions, each handled by the table's owner (:mod:`~hearts.server.tables.ownership`):
a client's action is a command in the table's mailbox of the process that serves the client,
which owns the table (or takes it, if nobody does). A client whose table another process owns
now (this process's lease ran out, or it handed the table on) is sent to that process: its
connection is closed as a service restart, and it reconnects there. The command checks the
position the action was made at (stale → the client gets the position again), applies and logs
it (:meth:`Table.apply <hearts.server.tables.table.Table.apply>`) or refuses it (illegal:
nothing changes)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from hearts.actions import Action, Pass
from hearts.errors import IllegalAction
from hearts.server.limits import CLOSE_SERVICE_RESTART
from hearts.server.links import Outcome
from hearts.server.metrics import Actor
from hearts.server.outage import is_outage
from hearts.server.protocol import error_message
from hearts.server.storage import NotOwner, SeqConflict, StoreUnavailable
from hearts.server.tables.commands import Act, Resync
from hearts.server.tables.connection import Connection
from hearts.server.tables.effects import Effects
from hearts.server.turns import bot_turns, decision_start
from hearts.text import why_not

if TYPE_CHECKING:
    from hearts.server.tables.table import Table

Result = tuple[Outcome, int, str]
"""What became of an action: its outcome, the owner's position after it, words for the client."""

MOVED = "the table is served by another server now; reconnecting"
"""Why a client whose table another process owns now is sent there (the closing's reason)."""


class Moves:
    """The actions of one table, handled by its owner (:meth:`person`, :meth:`act`)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    async def person(self, conn: Connection, seat: int, seen: int, action: Action, arrived: float) -> None:
        """A client's ``action`` for its ``seat``, made at position ``seen``: handled here, the
        table's owner (:meth:`Table.own <hearts.server.tables.table.Table.own>`: taken if nobody
        owns it; a client whose table another process owns now is sent there); the client is
        answered a stale action with the position, an illegal one with an error (nothing
        changed), an outage with :class:`StoreUnavailable` (raised)."""
        table = self.table
        if not await table.own(conn):
            return
        outcome, _, message = await table.mailbox.run(Act(seat, seen, action, "person", arrived))
        if outcome is Outcome.STALE:
            await table.mailbox.run(Resync(conn))
        elif outcome is Outcome.ILLEGAL:
            conn.push(error_message(message, "illegal", table.seq, why_not(message)))  # the rule in words
        elif outcome is Outcome.NOT_OWNER:  # (the lease was lost or handed on, on the action's way)
            conn.kill(CLOSE_SERVICE_RESTART, MOVED)
        elif outcome is not Outcome.DONE:
            raise StoreUnavailable(message or "the table's owner cannot be reached")

    async def command(self, seat: int, seen: int, action: Action, by: Actor) -> Result:
        """:meth:`act` in the table's turn (a bot's move a bot worker sent this process, the owner)."""
        return await self.table.mailbox.run(Act(seat, seen, action, by, time.perf_counter()))

    async def act(self, command: Act) -> tuple[Result, Effects]:
        """An action made at position ``seen``, in the table's turn, by its owner: applied and
        logged (done), or refused (stale, illegal, not_owner; unavailable during an outage);
        then the bots act if it is their turn."""
        table = self.table
        seat, seen, action, by = command.seat, command.seen, command.action, command.by
        effects = Effects(kick=True)
        while True:
            if not self._fresh(seen, action) or (by != "person" and seat not in bot_turns(table.game, table.seats)):
                return (Outcome.STALE, table.seq, ""), effects
            try:
                await table.apply(action, by, command.arrived)
            except IllegalAction as e:
                return (Outcome.ILLEGAL, table.seq, str(e)), effects
            except NotOwner:
                return (Outcome.NOT_OWNER, table.seq, ""), effects
            except SeqConflict:  # logged by another process before this one owned the table
                effects |= await table.follower.catch_up()
                continue  # a pass of this pass phase still stands; anything else is now stale
            except Exception as e:
                if not is_outage(e):
                    raise
                return (Outcome.UNAVAILABLE, table.seq, str(e)[:300]), effects
            return (Outcome.DONE, table.seq, ""), effects

    def _fresh(self, seen: int, action: Action) -> bool:
        """Whether an action was made on the current state, or is a pass made within this pass
        phase (:func:`~hearts.server.turns.decision_start`: the others' passes do not change
        it); else it is stale, or a duplicate."""
        return seen == self.table.seq or (isinstance(action, Pass) and decision_start(self.table.game, action.seat, seen) is not None)
