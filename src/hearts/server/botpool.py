"""Bot decisions in worker processes, so a thinking bot never slows the event loop.

A search bot thinks for up to a second of pure Python: in a thread it would hold the
interpreter lock the event loop needs, and every table would wait. :class:`BotPool` sends the
bot and its :class:`~hearts.view.View` to a worker process and gets back its action
(:meth:`Bot.act <hearts.bots.Bot.act>`) and the bot itself (its random generator moved on, so
a seed still reproduces every decision). A bot that cannot be pickled, or a worker that died,
makes that decision in a thread instead.

>>> import asyncio
>>> from hearts import Game, Rules
>>> from hearts.bots import make_bot
>>> from hearts.view import View
>>> pool = BotPool(workers=0)  # 0: threads only
>>> action, bot = asyncio.run(pool.decide(make_bot("medium", seed=1), View.of(Game(Rules(), seed=1), 0)))
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

from hearts.actions import Action
from hearts.bots import Bot
from hearts.game import Game
from hearts.view import View

log = logging.getLogger("hearts.server")


def default_workers() -> int:
    """One worker per core, at most four."""
    return max(1, min(4, os.cpu_count() or 1))


class BotPool:
    """Worker processes for bot decisions (``workers=0``: a thread per decision instead)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = default_workers() if workers is None else workers
        self._pool: ProcessPoolExecutor | None = None

    async def decide(self, bot: Bot, view: View) -> tuple[Action, Bot]:
        """The bot's action for ``view``, and the bot to keep (its state after deciding)."""
        if self.workers > 0:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=watch_parent, initargs=(os.getpid(),),
                )
            try:
                return await asyncio.get_running_loop().run_in_executor(self._pool, decide_and_return, bot, view)
            except BrokenProcessPool:
                log.warning("a bot worker process died; starting new ones")
                self._pool = None
            except (pickle.PicklingError, TypeError, AttributeError):
                log.warning("bot %s cannot be sent to a worker process; it thinks in a thread", bot.name)
        return await asyncio.to_thread(decide_and_return, bot, view)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


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
