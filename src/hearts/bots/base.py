"""The bot protocol: a bot sees a :class:`~hearts.view.View` (docs/rules.md R7), never the round.

>>> from hearts import Game, Rules
>>> from hearts.bots import RandomBot, run_bots
>>> game = Game(Rules(target=30), seed=9)
>>> bots = {seat: RandomBot(seed=seat) for seat in range(4)}
>>> run_bots(game, bots)
>>> game.is_over
True
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping

from hearts.actions import Action, Moon, Pass, Play
from hearts.cards import JACK_OF_DIAMONDS, Card, CardSet
from hearts.game import Game
from hearts.mechanics import MoonChoice
from hearts.rules import Rules
from hearts.view import View


class Bot(ABC):
    """A player program. It is given views only, may keep memory across a round, and draws
    every random choice from its own seeded ``rng`` (same seed, same decisions)."""

    name = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    @classmethod
    def supports(cls, rules: Rules) -> str | None:
        """Why this kind of bot cannot play ``rules`` (``None``: it can; the default). The
        tables ask it when they are set (:func:`hearts.bots.registry.check_table`), so a bot that
        plays only some variants is refused with this reason instead of failing in the game.

        >>> RandomBot.supports(Rules(players=6)) is None
        True
        """
        return None

    def act(self, view: View) -> Action:
        """The bot's action for its seat in ``view``: its pass, its play or its moon choice.

        This is the one entry point every driver calls; a bot implements the three choices.
        """
        if view.must_pass:
            return Pass(view.seat, self.choose_pass(view))
        if view.moon_choice_pending:
            return Moon(view.seat, self.choose_moon(view))
        return Play(view.seat, self.choose_play(view))

    @abstractmethod
    def choose_pass(self, view: View) -> CardSet:
        """The cards to pass (``view.rules.pass_count`` of ``view.hand``)."""

    @abstractmethod
    def choose_play(self, view: View) -> Card:
        """A card of ``view.legal``."""

    def choose_moon(self, view: View) -> MoonChoice:
        """After shooting the moon under ``shooter_chooses`` (R4.4): ``"add"`` the round's
        points (26, or 43 under R4.5) to the others or ``"subtract"`` them from itself. Either way the gap to every opponent is the same, so
        the choice is about the game's length: add (bringing the end nearer) when that ends the
        game with this seat winning or leaves it in the lead; subtract otherwise (never add
        when that ends the game with this seat not winning), keeping time to catch up.
        """
        me = view.seat
        jd = view.rules.jack_of_diamonds  # R4.2: its bonus counts whichever way the moon goes
        before = [t + (jd if JACK_OF_DIAMONDS in view.won(s) else 0) for s, t in enumerate(view.scores)]
        worth = view.rules.round_points
        add = [t + (0 if s == me else worth) for s, t in enumerate(before)]
        winners = view.rules.game_winners(add)
        if winners is not None:
            return "add" if me in winners else "subtract"
        leading = add[me] < min(t for s, t in enumerate(add) if s != me)
        return "add" if leading else "subtract"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomBot(Bot):
    """Uniformly random over legal moves (and random passes)."""

    name = "random"

    def choose_pass(self, view: View) -> CardSet:
        return CardSet(self.rng.sample(list(view.hand), view.rules.pass_count))

    def choose_play(self, view: View) -> Card:
        return self.rng.choice(list(view.legal))


def run_bots(game: Game, bots: Mapping[int, Bot]) -> None:
    """Let the bots act until a seat without a bot must act, or the game is over.

    Passing is simultaneous (R2.1): every bot seat passes as soon as the round starts.
    """
    while not game.is_over:
        acted = False
        for seat in game.actors():
            bot = bots.get(seat)
            if bot is not None:
                game.apply(bot.act(View.of(game, seat)))
                acted = True
        if not acted:
            return
