"""A table's bots in this process (SQLite): they think in the process's worker processes
(:mod:`hearts.server.botpool`), paced by ``bot_delay``; the bots of all-bot tables wait in a
lane of their own, so they never make a person wait. An away seat's stand-in plays the same
way. With PostgreSQL a bot's turn is a job in the database instead (:mod:`hearts.server.turns`,
:mod:`hearts.server.botworker`), and nothing here runs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from typing import TYPE_CHECKING

from hearts.actions import Action, to_dict
from hearts.bots import Bot, make_bot
from hearts.server.botpool import BotPool, fallback
from hearts.server.logs import fields
from hearts.server.metrics import Actor
from hearts.server.storage import SeqConflict
from hearts.server.tables.commands import BotAct
from hearts.server.turns import bot_spec, bot_turns
from hearts.view import View

if TYPE_CHECKING:
    from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")


class BotTurns:
    """One runner task per table that plays the bots' (and stand-ins') turns as they come."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._bots: dict[int, Bot] = {}
        """This process's bot for each seat it played (the seat's own bot, or the stand-in)."""
        self._task: asyncio.Task[None] | None = None

    def kick(self) -> None:
        """Make sure this process's bots (and the stand-ins of away seats) act if it is their
        turn (one runner task per table); nothing to do when the bots are jobs."""
        table = self.table
        if table.pool is None or not bot_turns(table.game, table.seats):
            return
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(table.pool))

    def stop(self) -> None:
        """Stop the runner (at shutdown)."""
        if self._task is not None:
            self._task.cancel()

    def _to_act(self) -> int | None:
        return next(iter(bot_turns(self.table.game, self.table.seats)), None)

    async def _run(self, pool: BotPool) -> None:
        table = self.table
        while True:
            seat = self._to_act()
            if seat is None:
                return
            view = View.of(table.game, seat)
            if table.bot_delay > 0:
                await asyncio.sleep(table.bot_delay)
                if self._to_act() != seat:
                    continue  # the person came back meanwhile
            by: Actor = "bot" if table.seats[seat].kind == "bot" else "stand_in"
            action = await self._decide(pool, seat, view)
            arrived = time.perf_counter()
            await table.mailbox.run(BotAct(seat, view, action, by, arrived))

    async def play(self, command: BotAct) -> None:
        """The bot's ``action`` for ``view``, in the table's turn: played if the position is
        still the one it thought about (else nothing: it thinks again); an illegal one, or
        none, is replaced by a random legal action."""
        table = self.table
        seat, view, action = command.seat, command.view, command.action
        if self._to_act() != seat or View.of(table.game, seat) != view:
            return  # the position moved on meanwhile (or the person is back)
        if action is not None and action not in table.game.legal_actions(seat):
            log.error("a bot chose an illegal action; it acts at random",
                      extra=fields(table=table.id, seat=seat, action=to_dict(action)))
            action = None
        with contextlib.suppress(SeqConflict):  # the position moved on: think again
            await table.apply(action if action is not None else fallback(table.game, seat), command.by, command.arrived)

    async def _decide(self, pool: BotPool, seat: int, view: View) -> Action | None:
        """The seat's bot's choice from its view (``None``: the bot failed, logged)."""
        table = self.table
        try:
            bot = self._bots.get(seat) or make_bot(bot_spec(table.seats[seat], table.stand_in) or table.stand_in,
                                                   seed=secrets.randbits(32))
            action, self._bots[seat] = await pool.decide(bot, view, table.lane)
            return action
        except Exception:
            log.exception("a bot failed; it acts at random", extra=fields(table=table.id, seat=seat))
            return None
