"""Opponent modelling: how likely each other seat is to be playing at random.

A search bot's rollouts must play the other seats somehow. Careful players duck, dump the Q♠
and void suits, which the rollouts' :func:`~hearts.bots.policies.greedy_policy` imitates; careless
players (beginners, random bots) do not, and a search that expects them to duck misjudges
them. :func:`careless_odds` weighs the two explanations of each seat's plays this round: the
likelihood of those plays under the greedy policy (softened by ``noise``: a careful player
does not play exactly like it) against their likelihood under uniformly random play, averaged
over hands sampled consistently with the view (so it uses nothing hidden, R7), from a prior
probability of carelessness.

>>> from hearts import Game, Rules
>>> from hearts.mechanics import LegalConfig
>>> from hearts.view import View
>>> game = Game(Rules(), seed=3)
>>> view = View.of(game, 0)
>>> careless_odds(view, [], LegalConfig(game.rules), prior=0.25)  # no plays yet: the prior
[None, 0.25, 0.25, 0.25]
"""

from __future__ import annotations

from hearts.bots.policies import greedy_policy
from hearts.cards import HEARTS, QS
from hearts.mechanics import LegalConfig, legal_mask
from hearts.view import View

_LEAD_DRAWS = tuple((j + 0.5) / 12 for j in range(12))
"""Values for the greedy policy's choice of suit to lead: 12 is divisible by 1–4 suits, so
counting how many of them lead a card gives its exact probability."""


def greedy_probability(card: int, legal: int, trick: list[int], players: int, queen_gone: bool) -> float:
    """The probability that :func:`~hearts.bots.policies.greedy_policy` plays ``card`` without
    its exploration (only its choice of suit to lead is random)."""
    if legal & (legal - 1) == 0:
        return 1.0
    if trick:
        return 1.0 if greedy_policy(legal, trick, players, lambda: 0.5, queen_gone) == card else 0.0
    hits = 0
    for x in _LEAD_DRAWS:
        draws = iter((0.5, x))
        hits += greedy_policy(legal, trick, players, draws.__next__, queen_gone) == card
    return hits / len(_LEAD_DRAWS)


def careless_odds(
    view: View, samples: list[list[int]], cfg: LegalConfig, noise: float = 0.3, prior: float = 0.25
) -> list[float | None]:
    """Each seat's probability of playing at random given its plays this round (``None`` for
    the view's own seat), marginalised over ``samples``: hands of every seat consistent with
    the view (as :func:`~hearts.bots.search.sample_hands` draws them). A careful seat plays the
    greedy policy's card with probability ``1 - noise`` and otherwise any legal card."""
    n, me = view.players, view.seat
    tricks = [(t.leader, [int(c) for c in t.cards]) for t in view.tricks]
    tricks.append((view.trick.leader, [int(c) for c in view.trick.cards]))
    at_random = [0.0] * n
    careful = [0.0] * n
    for sample in samples:
        hands = sample[:]
        for leader, cards in tricks:  # back to the hands the seats held at the first lead
            for i, c in enumerate(cards):
                hands[(leader + i) % n] |= 1 << c
        p_random = [1.0] * n
        p_careful = [1.0] * n
        broken, first, queen_gone = False, True, False
        for leader, cards in tricks:
            led = -1
            for i, c in enumerate(cards):
                s = (leader + i) % n
                legal = legal_mask(hands[s], led, first, broken, cfg)
                if s != me:
                    k = legal.bit_count()
                    p_random[s] /= k
                    p_careful[s] *= noise / k + (1 - noise) * greedy_probability(c, legal, cards[:i], n, queen_gone)
                hands[s] ^= 1 << c
                if led < 0:
                    led = c & 3
                if c & 3 == HEARTS:
                    broken = True
                elif c == QS:
                    queen_gone = True
                    broken = broken or cfg.queen_breaks
            first = False
        for s in range(n):
            at_random[s] += p_random[s]
            careful[s] += p_careful[s]
    odds: list[float | None] = []
    for s in range(n):
        a, b = prior * at_random[s], (1 - prior) * careful[s]
        odds.append(None if s == me else a / (a + b) if a + b > 0 else prior)
    return odds
