"""The bot ``neural``: a learned policy, no search — a network trained to play like ``hard``, then
to score fewer points against heuristic bots.

It scores every card with the shipped policy network (:data:`hearts.bots.reader.POLICY_MODEL`)
from the features of its view (:func:`hearts.bots.reader.features`: only what the seat may know,
R7), and plays the legal card scored highest. The network was trained in three steps (docs/bots.md,
*Reading the table*): imitation of ``hard``'s self-play (``examples/train_reader.py --policy``:
the card ``hard`` played from each position, a cross-entropy over the legal cards); DAgger
(``examples/train_neural.py``: the positions it reaches itself against three ``heuristic`` bots,
labelled with ``hard``'s cards); policy gradient against three ``heuristic`` bots
(``examples/finetune_neural.py``: a greedy replay of the deal as the baseline, then
``--method branch``, a baseline per position). It passes the three cards of its hand that a
second, small network scores highest (:data:`hearts.bots.reader.PASS_MODEL`, from the hand and the
direction, :func:`hearts.bots.reader.pass_features`), trained to pass as ``hard`` does
(``examples/train_pass.py``). Where a network does not apply (not four players, not the full
deck; for the pass, not three cards) it passes and plays as the heuristic bot does
(:func:`hearts.bots.heuristic.pass_mask`). The forward pass is numpy's where numpy is installed,
plain Python otherwise (:class:`hearts.bots.reader.Network`); it draws no random numbers: the same
view, the same card.

>>> from hearts import Game, Rules
>>> from hearts.bots import make_bot, run_bots
>>> game = Game(Rules(target=30), seed=3)
>>> run_bots(game, {s: make_bot("neural", seed=s) for s in range(4)})
>>> game.is_over
True
"""

from __future__ import annotations

from typing import Literal

from hearts.bots.base import Bot
from hearts.bots.heuristic import choose_card, pass_mask
from hearts.bots.reader import (
    PASS_MODEL,
    POLICY_MODEL,
    Network,
    applies,
    features,
    pass_applies,
    pass_features,
    shipped,
)
from hearts.cards import CARDS, Card, CardSet
from hearts.errors import HeartsError
from hearts.view import View


class NeuralBot(Bot):
    """The learned policy (the module docstring): the shipped networks, or ``network`` (e.g. a
    policy being trained, :meth:`Network.from_bytes <hearts.bots.reader.Network.from_bytes>`
    of its weights file) and ``pass_network`` (a pass network, or ``"heuristic"``: the
    heuristic bot's pass); not spec options."""

    name = "neural"

    def __init__(self, seed: int | None = None, *, network: Network | None = None,
                 pass_network: Network | Literal["heuristic"] | None = None) -> None:
        super().__init__(seed)
        if network is not None and not isinstance(network, Network):
            raise HeartsError(f"network must be a hearts.bots.reader.Network, not {network!r:.40}")
        if pass_network is not None and pass_network != "heuristic" and not isinstance(pass_network, Network):
            raise HeartsError(f"pass_network must be a hearts.bots.reader.Network or 'heuristic', "
                              f"not {pass_network!r:.40}")
        self.network = network
        self.pass_network = pass_network

    def choose_pass(self, view: View) -> CardSet:
        count = view.rules.pass_count
        if self.pass_network == "heuristic" or not pass_applies(view):
            return CardSet.from_mask(pass_mask(view.hand.mask, count))
        scores = (self.pass_network or shipped(PASS_MODEL))(*pass_features(view))
        return CardSet(sorted(view.hand, key=lambda c: (-scores[c], c))[:count])

    def choose_play(self, view: View) -> Card:
        legal = view.legal.mask
        if legal & (legal - 1) == 0:
            return CARDS[legal.bit_length() - 1]
        if not applies(view):
            return CARDS[choose_card(view, legal, True)]
        scores = (self.network or shipped(POLICY_MODEL))(*features(view))
        return max((c for c in view.legal), key=lambda c: (scores[c], -c))
