"""Bot decisions in worker processes, so a thinking bot never slows the event loop.

A search bot thinks for up to a second of pure Python: in a thread it would hold the
interpreter lock the event loop needs, and every table would wait. :class:`BotPool` sends the
bot and its :class:`~hearts.view.View` to a worker process and gets back its action
(:meth:`Bot.act <hearts.bots.Bot.act>`) and the bot itself (its random generator moved on, so
a seed still reproduces every decision). A bot that cannot be pickled, or a worker that died,
makes that decision in a thread instead.

Decisions wait in two lanes, each with its own workers: ``people`` (tables where someone
plays, and the stand-ins of absent people) and ``bots_only`` (all-bot tables: fewer workers, at
a lower OS priority), so all-bot tables never make a person wait for a bot.

>>> import asyncio
>>> from hearts import Game, Rules
>>> from hearts.bots import make_bot
>>> from hearts.view import View
>>> pool = BotPool(workers=0)  # 0: threads only
>>> action, bot = asyncio.run(pool.decide(make_bot("medium", seed=1), View.of(Game(Rules(), seed=1), 0)))
>>> b'hearts_bot_wait_seconds_count{lane="people"} 1.0' in pool.metrics.render()
True
>>> type(action).__name__, action.seat, len(action.cards)
('Pass', 0, 3)
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import multiprocessing
import os
import pickle
import random
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final, Literal

from hearts.actions import Action
from hearts.bots import Bot, make_bot
from hearts.bots.registry import HINT_BOT
from hearts.game import Game
from hearts.server.metrics import Metrics
from hearts.view import View

log = logging.getLogger("hearts.server")

Lane = Literal["people", "bots_only"]
"""Where a decision waits: ``people`` (a table where someone plays) or ``bots_only``."""

BOTS_ONLY_NICE: Final = 10
"""How much lower the OS priority of the all-bot tables' workers is (``nice``)."""


def default_workers() -> int:
    """One worker per core, at most four."""
    return max(1, min(4, os.cpu_count() or 1))


class _Lane:
    """Worker processes (``workers`` of them, at ``nice``) and the slots decisions wait for."""

    def __init__(self, name: Lane, workers: int, processes: bool, nice: int) -> None:
        self.name = name
        self.workers = workers
        self.processes = processes
        self.nice = nice
        self.slots = asyncio.Semaphore(workers)
        self.pool: ProcessPoolExecutor | None = None

    async def run(self, bot: Bot, view: View) -> tuple[Action, Bot]:
        if self.processes:
            if self.pool is None:
                self.pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=start_worker, initargs=(os.getpid(), self.nice),
                )
            try:
                return await asyncio.get_running_loop().run_in_executor(self.pool, decide_and_return, bot, view)
            except BrokenProcessPool:
                log.warning("a bot worker process died; starting new ones")
                self.pool = None
            except (pickle.PicklingError, TypeError, AttributeError):
                log.warning("bot %s cannot be sent to a worker process; it thinks in a thread", bot.name)
        return await asyncio.to_thread(decide_and_return, bot, view)

    def shutdown(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


class BotPool:
    """Worker processes for bot decisions: ``workers`` for the ``people`` lane and
    ``bots_only_workers`` (at a lower priority) for the ``bots_only`` one; ``workers=0``:
    threads instead (as many at once as :func:`default_workers`, and one for all-bot tables).
    The queue depth and wait of each lane go to ``metrics``."""

    def __init__(self, workers: int | None = None, bots_only_workers: int = 1, metrics: Metrics | None = None) -> None:
        self.workers = default_workers() if workers is None else workers
        self.metrics = metrics or Metrics()
        processes = self.workers > 0
        self._lanes: dict[Lane, _Lane] = {
            "people": _Lane("people", self.workers or default_workers(), processes, 0),
            "bots_only": _Lane("bots_only", bots_only_workers, processes, BOTS_ONLY_NICE),
        }

    async def decide(self, bot: Bot, view: View, lane: Lane = "people") -> tuple[Action, Bot]:
        """The bot's action for ``view``, and the bot to keep (its state after deciding), once
        a worker of ``lane`` is free."""
        chosen = self._lanes[lane]
        queued = time.perf_counter()
        depth = self.metrics.bot_queue.labels(lane)
        depth.inc()
        try:
            await chosen.slots.acquire()
        finally:
            depth.dec()
        try:
            self.metrics.bot_wait.labels(lane).observe(time.perf_counter() - queued)
            return await chosen.run(bot, view)
        finally:
            chosen.slots.release()

    async def hint(self, view: View, seed: int) -> Action:
        """What the hint bot (:data:`~hearts.bots.registry.HINT_BOT`, the search) would do for
        ``view`` — the asking seat's view only (R7) — with ``seed``: the same view and seed
        give the same hint. It thinks in the ``people`` lane.

        >>> from hearts import Game, Rules
        >>> view = View.of(Game(Rules(), seed=2), 0)
        >>> pool = BotPool(workers=0)
        >>> asyncio.run(pool.hint(view, 5)) == asyncio.run(pool.hint(view, 5))
        True
        """
        action, _ = await self.decide(make_bot(HINT_BOT, seed=seed), view, "people")
        return action

    def shutdown(self) -> None:
        for lane in self._lanes.values():
            lane.shutdown()


def start_worker(parent: int, nice: int) -> None:
    """In a new worker: lower its priority by ``nice`` and :func:`watch_parent`."""
    if nice:
        os.nice(nice)
    watch_parent(parent)


def watch_parent(parent: int, interval: float = 1.0) -> None:
    """In a worker: exit when the server is gone (killed with SIGKILL, its workers would
    otherwise wait for work forever)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(0)

    threading.Thread(target=watch, name="watch-server", daemon=True).start()


def decide_and_return(bot: Bot, view: View) -> tuple[Action, Bot]:
    """Run in a worker: the bot's action for ``view``, and the bot with its new state."""
    return bot.act(view), bot


def fallback(game: Game, seat: int, rng: random.Random | None = None) -> Action:
    """A random legal action of ``seat`` (when its bot fails or errs), drawn from
    :meth:`Game.legal_actions <hearts.game.Game.legal_actions>`.

    >>> from hearts import Game, Rules
    >>> game = Game(Rules(), seed=1)
    >>> fallback(game, 2, random.Random(0)) in game.legal_actions(2)
    True
    """
    legal = game.legal_actions(seat)
    pick = (rng or random.Random()).randrange(len(legal))
    return next(itertools.islice(legal, pick, None))
