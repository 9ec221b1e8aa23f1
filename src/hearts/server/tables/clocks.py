"""A table's turn timer: each seat that is to act and is no bot has ``turn_timer`` seconds; a
seat whose time runs out is *away*, and the table's stand-in bot plays for it until its person
comes back (a ``hello``, an action or ``back``). The clocks start again when a table is
restored. Every process that serves the table runs its clocks (its clients see the time left),
but only the table's owner times a seat out."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from hearts.server.logs import fields
from hearts.server.turns import bot_turns

if TYPE_CHECKING:
    from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")


class Clocks:
    """The running clocks of one table's seats (none when the table has no timer)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._running: dict[int, asyncio.TimerHandle] = {}

    def start(self) -> None:
        """Give each seat that is to act (no bot, not away) ``turn_timer`` seconds, unless its
        clock runs already; stop the clocks of the seats not to act. Needs a running loop
        when the table has a timer."""
        table = self.table
        if table.turn_timer <= 0:
            return
        game = table.game
        people = set() if game.is_over else set(game.actors()) - set(bot_turns(game, table.seats))
        for seat in [s for s in self._running if s not in people]:
            self._running.pop(seat).cancel()
        loop = asyncio.get_running_loop()
        for seat in people - self._running.keys():
            self._running[seat] = loop.call_later(table.turn_timer, self._time_out, seat)

    def acted(self, seat: int) -> None:
        """``seat`` acted: its clock stops (:meth:`start` gives it a new one if it is to act again)."""
        clock = self._running.pop(seat, None)
        if clock is not None:
            clock.cancel()

    def time_left(self) -> list[float | None]:
        """Each seat's seconds left to act (``None``: no clock runs for it)."""
        left: list[float | None] = [None] * len(self.table.seats)
        if self._running:
            now = asyncio.get_running_loop().time()
            for seat, clock in self._running.items():
                left[seat] = round(max(0.0, clock.when() - now), 1)
        return left

    def stop(self) -> None:
        """Stop every clock (at shutdown)."""
        for clock in self._running.values():
            clock.cancel()
        self._running.clear()

    def _time_out(self, seat: int) -> None:
        """A seat's clock ran out: it is away, and the stand-in plays for it."""
        self._running.pop(seat, None)
        self.table.spawn(self._go_away(seat))

    async def _go_away(self, seat: int) -> None:
        table = self.table
        await table.mailbox.run(lambda: self._mark_away(seat))
        table.presence.tell()
        table.bots.kick()

    async def _mark_away(self, seat: int) -> None:
        """``seat`` is away if it is still to act (in the store too: its bot job is queued
        there, on a store with jobs). In the table's turn."""
        table = self.table
        game = table.game
        if game.is_over or seat not in game.actors() or table.seats[seat].away or not table.owned:
            return
        table.set_away(seat, True)
        if await table.store.log.set_away(table.id, seat, True):  # (else another process did)
            log.info("away", extra=fields(table=table.id, seat=seat, stand_in=table.stand_in))
            if table.store.jobs is not None:
                await table.store.jobs.enqueue_bot_job(table.id, seat, table.seq)
