"""The bot ``neural``: a learned policy, no search — a network that imitates ``hard``'s plays.

It scores every card with the shipped policy network (:data:`hearts.bots.reader.POLICY_MODEL`,
trained by ``examples/train_reader.py --policy`` on ``hard``'s self-play: the card ``hard`` played
from each position, a cross-entropy over the legal cards) from the features of its view
(:func:`hearts.bots.reader.features`: only what the seat may know, R7), and plays the legal card
scored highest. It passes like the heuristic bot (:func:`hearts.bots.heuristic.pass_mask`), and
plays as the heuristic bot does where the network does not apply (not four players, or not the
full deck). The forward pass is numpy's where numpy is installed, plain Python otherwise
(:class:`hearts.bots.reader.Network`); it draws no random numbers: the same view, the same card.

>>> from hearts import Game, Rules
>>> from hearts.bots import make_bot, run_bots
>>> game = Game(Rules(target=30), seed=3)
>>> run_bots(game, {s: make_bot("neural", seed=s) for s in range(4)})
>>> game.is_over
True
"""

from __future__ import annotations

from hearts.bots.base import Bot
from hearts.bots.heuristic import choose_card, pass_mask
from hearts.bots.reader import POLICY_MODEL, applies, features, shipped
from hearts.cards import CARDS, Card, CardSet
from hearts.view import View


class NeuralBot(Bot):
    """The learned policy (the module docstring)."""

    name = "neural"

    def choose_pass(self, view: View) -> CardSet:
        return CardSet.from_mask(pass_mask(view.hand.mask, view.rules.pass_count))

    def choose_play(self, view: View) -> Card:
        legal = view.legal.mask
        if legal & (legal - 1) == 0:
            return CARDS[legal.bit_length() - 1]
        if not applies(view):
            return CARDS[choose_card(view, legal, True)]
        scores = shipped(POLICY_MODEL)(*features(view))
        return max((c for c in view.legal), key=lambda c: (scores[c], -c))
