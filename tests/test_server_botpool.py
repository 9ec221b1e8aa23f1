"""The web server's bot workers (hearts.server.botpool): decisions in other processes, with
the bot's state brought back, so a seed still reproduces every decision (issue: bots run off
the event loop; R7: a bot sees its View only)."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable

import pytest

pytest.importorskip("starlette")

from hearts import Card, CardSet, Game, Rules
from hearts.actions import Action, Pass
from hearts.bots import Bot, make_bot, run_bots
from hearts.server.botpool import BotPool, fallback
from hearts.view import View


def positions(count: int) -> list[View]:
    """Views of seat 0 at its first ``count`` decisions of a game among heuristic bots."""
    game = Game(Rules(), seed=11)
    others = {s: make_bot("medium", seed=s) for s in (1, 2, 3)}
    views: list[View] = []
    while len(views) < count:
        run_bots(game, others)
        view = View.of(game, 0)
        views.append(view)
        game.apply(next(iter(game.legal_actions(0))))
    return views


def test_worker_decisions_equal_local_ones_and_the_bot_state_comes_back() -> None:
    views = positions(4)
    local = make_bot("search:iterations=40", seed=3)
    expected = [local.act(v) for v in views]
    pool = BotPool(workers=1)

    async def remote() -> list[Action]:
        bot = make_bot("search:iterations=40", seed=3)
        out = []
        for v in views:
            action, bot = await pool.decide(bot, v)
            out.append(action)
        return out

    try:
        assert asyncio.run(remote()) == expected
    finally:
        pool.shutdown()


class Unpicklable(Bot):
    """A bot holding a lambda: it cannot go to a worker process."""

    name = "unpicklable"

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.pick: Callable[[CardSet], Card] = lambda cards: min(cards)
        self.pid = 0

    def choose_pass(self, view: View) -> CardSet:
        self.pid = os.getpid()
        return CardSet(list(view.hand)[:3])

    def choose_play(self, view: View) -> Card:
        return self.pick(view.legal)


def test_a_bot_that_cannot_be_pickled_thinks_in_a_thread() -> None:
    view = positions(1)[0]
    pool = BotPool(workers=1)
    bot = Unpicklable()
    try:
        action, back = asyncio.run(pool.decide(bot, view))
    finally:
        pool.shutdown()
    assert back is bot and bot.pid == os.getpid()
    assert action == Pass(0, list(view.hand)[:3])


class PidBot(Bot):
    """Notes the process it decided in."""

    name = "pid"

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.pid = 0

    def choose_pass(self, view: View) -> CardSet:
        self.pid = os.getpid()
        return CardSet(list(view.hand)[:3])

    def choose_play(self, view: View) -> Card:
        self.pid = os.getpid()
        return min(view.legal)


def test_bots_think_in_another_process() -> None:
    view = positions(1)[0]
    pool = BotPool(workers=1)
    try:
        action, back = asyncio.run(pool.decide(PidBot(), view))
    finally:
        pool.shutdown()
    assert isinstance(back, PidBot) and back.pid not in (0, os.getpid())
    assert isinstance(action, Pass) and action.seat == 0


def test_the_fallback_is_a_random_legal_action_of_the_seat() -> None:
    """When a bot fails, its seat acts at random among its legal actions (a pass, a play or a
    moon choice alike: whatever Game.legal_actions gives)."""
    game = Game(Rules(), seed=4)
    rng = random.Random(1)
    while not game.is_over:
        seat = game.actors()[0]
        picks = {fallback(game, seat, rng) for _ in range(3)}
        legal = game.legal_actions(seat)
        assert all(a in legal and a.seat == seat for a in picks)
        game.apply(picks.pop())
