"""A table's turn clocks: each seat that is to act and is no bot has ``pass_timer`` seconds to
pass, ``turn_timer`` seconds to play (or to choose how a shot moon scores); a seat whose time
runs out is *away*, and the table's stand-in bot plays for it until its person comes back (a
``hello``, an action or ``back``). After ``missed_turns`` of its turns in a row played by the
stand-in, the seat is *handed over* to it for the rest of the game: a reconnection (``hello``)
alone no longer takes it back, ``back`` or an action does. Which tables have clocks is
:func:`clocks_for`'s policy; a table waiting for players (a free seat) times nobody out: its
clocks start once every seat is taken. The clocks start again when a table is restored (the missed turns
are counted anew). Every process that serves the table runs its clocks (its clients see the
time left), but only the table's owner times a seat out and counts its missed turns."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from hearts.round import Phase
from hearts.server.limits import Limits
from hearts.server.logs import fields
from hearts.server.metrics import Actor
from hearts.server.tables.commands import GoAway
from hearts.server.tables.effects import NOTHING, Effects
from hearts.server.turns import bot_turns

if TYPE_CHECKING:
    from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")


def clocks_for(turn_timer: int, public: bool, limits: Limits) -> tuple[int, int]:
    """A table's clocks, ``(turn_timer, pass_timer)`` in seconds (0: none): the creator's
    ``turn_timer`` for plays and passes alike when one was chosen; else, at a ``public`` table
    (listed in the lobby, or a quick match's) the service's ``limits.play_clock`` and
    ``limits.pass_clock``, so that no such game waits for a leaver; else (a friends' table:
    the creator's choice) none.

    >>> limits = Limits(play_clock=30, pass_clock=45)
    >>> clocks_for(0, True, limits), clocks_for(20, True, limits), clocks_for(0, False, limits), clocks_for(20, False, limits)
    ((30, 45), (20, 20), (0, 0), (20, 20))
    """
    if turn_timer > 0:
        return turn_timer, turn_timer
    return (limits.play_clock, limits.pass_clock) if public else (0, 0)


class Clocks:
    """The running clocks of one table's seats (none when the table has no timer), and each
    seat's missed turns in a row (counted by the table's owner)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._running: dict[int, asyncio.TimerHandle] = {}
        self._missed: dict[int, tuple[str | None, int]] = {}
        """Each seat's turns in a row played by the stand-in (absent: none), with the token
        hash of the seat's person then (a seat given a new invite link starts anew)."""

    def seconds(self) -> int:
        """The clock of the position's turns: the pass clock while the seats pass, else the
        turn clock (0: no clock)."""
        table = self.table
        return table.pass_timer if table.game.round.phase is Phase.PASSING else table.turn_timer

    def start(self) -> None:
        """Give each seat that is to act (no bot, not away) the position's clock
        (:meth:`seconds`), unless its clock runs already, once no seat is free; stop the clocks
        of the seats not to act. Needs a running loop when the table has a clock."""
        table = self.table
        seconds = self.seconds()
        if seconds <= 0 and not self._running:  # (no clock at this position, and none runs)
            return
        game = table.game
        waiting = any(s.kind == "open" for s in table.seats)  # for players, not for a leaver
        people = set() if game.is_over or seconds <= 0 or waiting else set(game.actors()) - set(bot_turns(game, table.seats))
        for seat in [s for s in self._running if s not in people]:
            self._running.pop(seat).cancel()
        if not people:
            return
        loop = asyncio.get_running_loop()
        for seat in people - self._running.keys():
            self._running[seat] = loop.call_later(seconds, self._time_out, seat)

    def acted(self, seat: int) -> None:
        """``seat`` acted: its clock stops (:meth:`start` gives it a new one if it is to act again)."""
        clock = self._running.pop(seat, None)
        if clock is not None:
            clock.cancel()

    def counted(self, seat: int, by: Actor) -> bool:
        """Count an action of ``seat`` made ``by`` whom: the stand-in's is one more missed turn,
        the person's own clears them. Whether the seat was handed over by it (its
        ``missed_turns``-th missed turn in a row)."""
        if by == "person":
            self._missed.pop(seat, None)
            return False
        if by != "stand_in":
            return False
        token = self.table.seats[seat].token_hash
        held, missed = self._missed.get(seat, (token, 0))
        missed = missed + 1 if held == token else 1
        self._missed[seat] = (token, missed)
        return missed == self.table.missed_turns

    def back(self, seat: int) -> None:
        """``seat``'s person takes the seat back: no missed turns."""
        self._missed.pop(seat, None)

    def handed_over(self) -> list[int]:
        """The seats handed to the stand-in for the rest of the game: away, with at least
        ``missed_turns`` turns in a row played by it."""
        seats = self.table.seats
        return [s for s, (token, n) in sorted(self._missed.items())
                if n >= self.table.missed_turns and seats[s].away and seats[s].token_hash == token]

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
        await self.table.mailbox.run(GoAway(seat))

    async def go_away(self, seat: int) -> Effects:
        """``seat`` is away if it is still to act (in the store too), and its stand-in is to
        play (:meth:`Thinking.away <hearts.server.tables.bots.Thinking.away>`): everyone is
        told, and the bots woken. In the table's turn."""
        table = self.table
        game = table.game
        if game.is_over or seat not in game.actors() or table.seats[seat].away or not table.owned:
            return NOTHING
        table.set_away(seat, True)
        if await table.store.log.set_away(table.id, seat, True):  # (else another process did)
            log.info("away", extra=fields(table=table.id, seat=seat, stand_in=table.stand_in))
            await table.thinking.away(table, seat)
        return Effects(tell=True, kick=True)
