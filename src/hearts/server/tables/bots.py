"""A table's bots, and where a process's bots think — the service's one topology choice,
made once (:func:`thinking_for`): on SQLite, a cluster of one, in the process's own worker
processes (:class:`InProcess`: :mod:`hearts.server.botpool`), paced by ``bot_delay``, the bots
of all-bot tables in a lane of their own, so they never make a person wait; on PostgreSQL, as
jobs in the database for bot workers (:class:`AsJobs`: :mod:`hearts.server.turns`,
:mod:`hearts.server.botworker`). An away seat's stand-in plays the same way; hints and game
reviews are thought about in the same place."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Protocol

from hearts.actions import Action, from_dict, to_dict
from hearts.bots import Bot, make_bot
from hearts.game import Game
from hearts.server.botpool import BotPool, fallback
from hearts.server.logs import fields
from hearts.server.metrics import Actor, Metrics
from hearts.server.reviews import ReviewRunner
from hearts.server.storage import SeatRow, SeqConflict, Storage
from hearts.server.tables.commands import BotAct
from hearts.server.turns import bot_spec, bot_turns, new_bot_turns
from hearts.view import View

if TYPE_CHECKING:
    from hearts.server.storage.postgres import PgJobs
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
        """Make sure the bots (and the stand-ins of away seats) act if it is their turn: this
        process's (one runner task per table), or nothing to do when the bots are jobs."""
        self.table.thinking.kick(self)

    def run(self, pool: BotPool) -> None:
        """Play the bots' turns in ``pool`` as they come, if there are any (one runner task)."""
        table = self.table
        if bot_turns(table.game, table.seats) and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run(pool))

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


class Thinking(Protocol):
    """Where a process's bots, hints and game reviews think: :class:`InProcess` or :class:`AsJobs`."""

    def queued(self, game: Game, seats: Sequence[SeatRow], action: Action, before: Collection[int]) -> list[int]:
        """The seats whose bot turn ``action`` (just applied) opens, to queue as jobs with its row."""
        ...

    async def start(self, table: Table) -> None:
        """A table starts being served here: its bots act if it is their turn."""
        ...

    def kick(self, turns: BotTurns) -> None:
        """The bots of ``turns``' table act if it is their turn."""
        ...

    async def away(self, table: Table, seat: int) -> None:
        """``seat`` went away (stored) while it is to act: its stand-in is to play."""
        ...

    async def hint(self, table: Table, view: View, seat: int, start: int) -> None:
        """Compute the hint for ``seat``'s decision begun at position ``start`` (``view``:
        the seat's now), given to the table when ready."""
        ...

    async def reviews(self) -> None:
        """Compute the game reviews asked for, until cancelled (or nothing to do here)."""
        ...

    def review_asked(self) -> None:
        """A game review was asked for (queued)."""
        ...

    def shutdown(self) -> None:
        """This process stops."""
        ...


class InProcess:
    """SQLite: the bots and hints think in this process's ``pool``, and its ``reviewer``
    computes the game reviews."""

    def __init__(self, pool: BotPool, reviewer: ReviewRunner) -> None:
        self.pool = pool
        self.reviewer = reviewer

    def queued(self, game: Game, seats: Sequence[SeatRow], action: Action, before: Collection[int]) -> list[int]:
        return []

    async def start(self, table: Table) -> None:
        table.bots.kick()

    def kick(self, turns: BotTurns) -> None:
        turns.run(self.pool)

    async def away(self, table: Table, seat: int) -> None:
        pass  # (the stand-in is kicked with the others)

    async def hint(self, table: Table, view: View, seat: int, start: int) -> None:
        table.spawn(table.hints.think(self.pool, view, seat, start))

    async def reviews(self) -> None:
        await self.reviewer.run()

    def review_asked(self) -> None:
        self.reviewer.wake()

    def shutdown(self) -> None:
        self.pool.shutdown()


class AsJobs:
    """PostgreSQL: each bot turn, each hint and each review is a job in the database for bot
    workers."""

    def __init__(self, jobs: PgJobs) -> None:
        self.jobs = jobs

    def queued(self, game: Game, seats: Sequence[SeatRow], action: Action, before: Collection[int]) -> list[int]:
        return new_bot_turns(game, seats, action, before)

    async def start(self, table: Table) -> None:
        for seat in bot_turns(table.game, table.seats):  # (queued once, if no process has)
            await self.jobs.enqueue_bot_job(table.id, seat, table.seq)

    def kick(self, turns: BotTurns) -> None:
        pass  # (the bot workers claim the jobs)

    async def away(self, table: Table, seat: int) -> None:
        await self.jobs.enqueue_bot_job(table.id, seat, table.seq)

    async def hint(self, table: Table, view: View, seat: int, start: int) -> None:
        found = await self.jobs.ask_hint(table.id, seat, start)  # (else a HintNotice brings it)
        if found is not None:
            table.hints.give(seat, start, from_dict(found))

    async def reviews(self) -> None:
        pass  # (the bot workers compute them)

    def review_asked(self) -> None:
        pass  # (its job's notice wakes the bot workers)

    def shutdown(self) -> None:
        pass


def thinking_for(store: Storage, workers: int | None = None, metrics: Metrics | None = None) -> Thinking:
    """Where the bots of a process serving ``store`` think: as jobs if the store has a job
    queue (PostgreSQL), else in ``workers`` processes of its own (SQLite)."""
    return InProcess(BotPool(workers, metrics=metrics), ReviewRunner(store)) if store.jobs is None else AsJobs(store.jobs)
