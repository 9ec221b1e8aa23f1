"""LowBot: a bot of one's own in twenty lines (docs/bots.md opens with it).

Seat it anywhere a bot spec is taken, as ``MODULE:CLASS`` with this folder on the path::

    PYTHONPATH=examples hearts arena lowbot:LowBot random random random --rounds 20
    PYTHONPATH=examples hearts play --bots lowbot:LowBot lowbot:LowBot:wild=0.5 easy
"""

from __future__ import annotations

from hearts import Card, CardSet
from hearts.bots import Bot
from hearts.view import View


class LowBot(Bot):
    """Passes its highest cards and plays its lowest legal card; with ``wild=p`` it plays a
    random legal card instead with probability ``p`` (drawn from ``self.rng``: reproducible)."""

    name = "lowbot"

    def __init__(self, seed: int | None = None, wild: float = 0.0) -> None:
        super().__init__(seed)  # self.rng = random.Random(seed)
        self.wild = wild

    def choose_pass(self, view: View) -> CardSet:
        highest = sorted(view.hand, key=lambda card: card.rank, reverse=True)
        return CardSet(highest[: view.rules.pass_count])

    def choose_play(self, view: View) -> Card:
        if self.rng.random() < self.wild:
            return self.rng.choice(list(view.legal))
        return min(view.legal, key=lambda card: card.rank)
