"""A table's actions, each handled by the table's owner (:mod:`~hearts.server.tables.ownership`):
a client's action is a command in the table's mailbox when this process owns the table, else
forwarded to the owner (:mod:`hearts.server.forward`); an owner that does not answer is taken
over once its lease has run out, and the action handled here. The command checks the position
the action was made at (stale → the client gets the position again), applies and logs it
(:meth:`Table.apply <hearts.server.tables.table.Table.apply>`) or refuses it (illegal: nothing
changes)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from hearts.actions import Action, Pass
from hearts.errors import IllegalAction
from hearts.round import Phase
from hearts.server.forward import Outcome
from hearts.server.metrics import Actor
from hearts.server.outage import is_outage
from hearts.server.protocol import error_message
from hearts.server.storage import Lease, NotOwner, SeqConflict, StoreUnavailable
from hearts.server.tables.commands import Act, Resync
from hearts.server.tables.connection import Connection
from hearts.server.tables.ownership import TAKE_WAIT
from hearts.server.turns import bot_turns
from hearts.text import why_not

if TYPE_CHECKING:
    from hearts.server.tables.table import Table

Result = tuple[Outcome, int, str]
"""What became of an action: its outcome, the owner's position after it, words for the client."""

ROUTES = 4
"""How many times an action looks for the table's owner (an owner may change meanwhile)."""


class Moves:
    """The actions of one table: routed to its owner (:meth:`route`) and handled there
    (:meth:`command`)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    async def person(self, conn: Connection, seat: int, seen: int, action: Action, arrived: float) -> None:
        """A client's ``action`` for its ``seat``, made at position ``seen``: handled by the
        table's owner; the client is answered a stale action with the position, an illegal one
        with an error (nothing changed), an outage with :class:`StoreUnavailable` (raised)."""
        table = self.table
        outcome, seq, message = await self.route(seat, seen, action, "person", arrived)
        if outcome is Outcome.STALE:
            await table.follower.reach(seq)
            await table.mailbox.run(Resync(conn))
        elif outcome is Outcome.ILLEGAL:
            conn.push(error_message(message, "illegal", table.seq, why_not(message)))  # the rule in words
        elif outcome is not Outcome.DONE:
            raise StoreUnavailable(message or "the table's owner cannot be reached")

    async def route(self, seat: int, seen: int, action: Action, by: Actor, arrived: float) -> Result:
        """Handle an action at the table's owner: here, in the table's turn, when this process
        owns it (or takes it: nobody owns it, the owner handed it over, or did not answer and
        its lease ran out); else forwarded to the owner."""
        table = self.table
        own = table.ownership
        for _ in range(ROUTES):
            if own is not None:
                await own.taking(table.id)
            if own is None or own.owns(table.id):
                result = await table.mailbox.run(Act(seat, seen, action, by, arrived))
                if result[0] is not Outcome.NOT_OWNER:
                    return result
                continue
            owner = await own.owner_of(table.id)
            if owner is None or owner == own.me:
                own.unknown(table.id)
                await own.take(table)
                continue
            reply = await own.forwarder.send(owner, table.id, seat, seen, action, by)
            if reply is None:  # the owner is dead or frozen: take the table once its lease runs out
                own.unknown(table.id)
                if await own.take(table, wait=TAKE_WAIT, dead=owner) or await own.owner_of(table.id) != owner:
                    continue  # (owned here now, or by another process that took it over first)
                return Outcome.UNAVAILABLE, table.seq, "the table's server does not answer; try again"
            outcome = Outcome(reply.outcome)
            if outcome is Outcome.HANDED:
                await own.take(table, handed=(Lease(table.id, own.me, reply.epoch), reply.seq))
            elif outcome is Outcome.NOT_OWNER:
                own.unknown(table.id)
            else:
                return outcome, reply.seq, reply.message
        return Outcome.UNAVAILABLE, table.seq, "the table's owner keeps changing; try again"

    async def command(self, seat: int, seen: int, action: Action, by: Actor, request: str) -> Result:
        """:meth:`act` in the table's turn (a command forwarded to this process, the owner,
        as ``request``: its action's notice answers it if it is done)."""
        return await self.table.mailbox.run(Act(seat, seen, action, by, time.perf_counter(), request))

    async def act(self, command: Act) -> Result:
        """An action made at position ``seen``, in the table's turn, by its owner: applied and
        logged (done), or refused (stale, illegal, not_owner; unavailable during an outage)."""
        table = self.table
        seat, seen, action, by = command.seat, command.seen, command.action, command.by
        while True:
            if not self._fresh(seen, action) or (by != "person" and seat not in bot_turns(table.game, table.seats)):
                return Outcome.STALE, table.seq, ""
            try:
                await table.apply(action, by, command.arrived, command.request)
            except IllegalAction as e:
                return Outcome.ILLEGAL, table.seq, str(e)
            except NotOwner:
                return Outcome.NOT_OWNER, table.seq, ""
            except SeqConflict:  # logged by another process before this one owned the table
                await table.follower.catch_up()
                continue  # a pass of this pass phase still stands; anything else is now stale
            except Exception as e:
                if not is_outage(e):
                    raise
                return Outcome.UNAVAILABLE, table.seq, str(e)[:300]
            return Outcome.DONE, table.seq, ""

    def _fresh(self, seen: int, action: Action) -> bool:
        """Whether an action was made on the current state (else: stale or a duplicate)."""
        table = self.table
        if seen == table.seq:
            return True
        # A pass does not depend on the others' passes: one made during this pass phase stands.
        g = table.game
        return (
            isinstance(action, Pass)
            and g.phase is Phase.PASSING
            and action.seat in g.actors()
            and g.round_starts[-1] <= seen <= table.seq
        )
