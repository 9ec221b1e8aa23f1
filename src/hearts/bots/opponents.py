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

from typing import Any

from hearts.bots.heuristic import pass_danger
from hearts.bots.policies import flush_card, greedy_card, lead_pool, suit_count
from hearts.cards import HEARTS, QS, SUIT_MASKS
from hearts.fast import ints, jit
from hearts.kernel import Ints
from hearts.mechanics import LegalConfig, legal_mask
from hearts.view import View


@jit
def greedy_probability(card: int, legal: int, trick: Ints, players: int, queen_gone: bool, length: int = -1,
                       rng: Any = None) -> float:
    """The probability that :func:`~hearts.bots.policies.greedy_policy` plays ``card`` without
    its exploration (only its choice of suit to lead is random), on ``trick[:length]`` (all of
    it by default). ``rng`` is never drawn from (compiled code needs one of the search's type).

    >>> from hearts.cards import CardSet
    >>> from hearts.cards import Card
    >>> legal = CardSet.parse("3C 9C KC").mask
    >>> greedy_probability(Card.parse("9C"), legal, [Card.parse("TC")], 4, False)  # it ducks under the T♣
    1.0
    >>> greedy_probability(0, CardSet.parse("2C 2D").mask, [], 4, False)  # leads one suit of two
    0.5
    """
    if length < 0:
        length = len(trick)
    if legal & (legal - 1) == 0:
        return 1.0
    if length:
        return 1.0 if greedy_card(-1, legal, trick, length, players, rng, queen_gone) == card else 0.0
    flush = flush_card(legal, queen_gone)
    if flush >= 0:
        return 1.0 if flush == card else 0.0
    pool = lead_pool(legal)
    suit = pool & SUIT_MASKS[card & 3]
    if pool >> card & 1 and (suit & -suit).bit_length() - 1 == card:
        return (12 // suit_count(pool)) / 12  # the lowest of its suit: led with odds one in the suits
    return 0.0


def careless_odds(
    view: View, samples: list[list[int]], cfg: LegalConfig, noise: float = 0.3, prior: float = 0.25
) -> list[float | None]:
    """Each seat's probability of playing at random given its plays this round (``None`` for
    the view's own seat), marginalised over ``samples``: hands of every seat consistent with
    the view (as :func:`~hearts.bots.search.sample_hands` draws them). A careful seat plays the
    greedy policy's card with probability ``1 - noise`` and otherwise any legal card."""
    n, me = view.players, view.seat
    tricks = [*view.tricks, view.trick]
    plays = [int(c) for t in tricks for c in t.cards]
    leaders = [t.leader for t in tricks]
    at_random = [0.0] * n
    careful = [0.0] * n
    legal, gone = [0] * len(plays), [0] * len(plays)
    for sample in samples:
        p_random = [1.0] * n
        p_careful = [1.0] * n
        plays_faced(sample, plays, leaders, cfg, legal, gone, [0] * n)
        for i, c in enumerate(plays):
            s = (leaders[i // n] + i % n) % n
            if s != me:
                k = legal[i].bit_count()
                p_random[s] /= k
                g = greedy_probability(c, legal[i], plays[i - i % n : i], n, gone[i] != 0)
                p_careful[s] *= noise / k + (1 - noise) * g
        for s in range(n):
            at_random[s] += p_random[s]
            careful[s] += p_careful[s]
    odds: list[float | None] = []
    for s in range(n):
        a, b = prior * at_random[s], (1 - prior) * careful[s]
        odds.append(None if s == me else a / (a + b) if a + b > 0 else prior)
    return odds


@jit
def play_likelihood(hands: Ints, plays: Ints, leaders: Ints, me: int, cfg: LegalConfig, noise: float,
                    rng: Any = None) -> float:
    """How likely the other seats' plays this round are, had they held ``hands`` (their hands
    now, as masks: a world sampled consistently with the view) and played carefully: the
    product over every play of a seat other than ``me`` of ``noise / k + (1 - noise) * g``,
    where ``k`` is the number of legal cards it had and ``g`` :func:`greedy_probability`
    (``rng`` as it takes it).

    ``plays`` are the round's cards in the order played (every trick, the one in progress
    last) and ``leaders[i]`` the seat that led trick ``i``. A world in which the others
    followed the careful player's habits (ducked with their highest card under the winner,
    dumped the Q♠ when void, ...) is likelier than one in which they held a card they would
    have played instead: the search weighs its sampled worlds by this (``search:infer``).
    Uses nothing hidden (R7): only the view's plays and a sampled world.

    >>> from hearts import Rules
    >>> cfg = LegalConfig(Rules())
    >>> play_likelihood([0, 0, 0, 0], [], [], 0, cfg, 0.3)  # nothing played yet
    1.0
    """
    n, count = len(hands), len(plays)
    legal, gone = ints(count), ints(count)
    plays_faced(hands, plays, leaders, cfg, legal, gone, ints(n))
    p = 1.0
    for i in range(count):
        start = i - i % n
        if (leaders[i // n] + i % n) % n != me:
            k = legal[i].bit_count()
            p *= noise / k + (1 - noise) * greedy_probability(plays[i], legal[i], plays[start:i], n, gone[i] != 0,
                                                              i - start, rng)
    return p


@jit
def plays_faced(hands: Ints, plays: Ints, leaders: Ints, cfg: LegalConfig, legal: Ints, gone: Ints,
                h: Ints) -> None:
    """What each play of the round faced, had the seats held ``hands`` now (masks; the cards
    played are put back first): ``legal[i]``, the legal cards of the seat that played
    ``plays[i]``, and ``gone[i]``, whether the Q♠ had gone (1) then. ``plays`` and ``leaders``
    as :func:`play_likelihood` takes them; ``h`` is work space of a hand per seat.

    >>> from hearts import Rules
    >>> legal, gone = [0, 0], [0, 0]
    >>> plays_faced([0b10000, 0, 0, 0b10], [0, 1], [3], LegalConfig(Rules()), legal, gone, [0] * 4)
    >>> legal  # seat 3 led the 2♣; seat 0, holding the 3♣ in this world, had to follow with it
    [1, 16]
    """
    n = len(hands)
    h[:] = hands[:]
    for i in range(len(plays)):
        h[(leaders[i // n] + i % n) % n] |= 1 << plays[i]
    broken = queen_gone = False
    for i in range(len(plays)):
        c, start = plays[i], i - i % n
        s = (leaders[i // n] + i % n) % n
        legal[i] = legal_mask(h[s], plays[start] & 3 if i > start else -1, start == 0, broken, cfg)
        gone[i] = 1 if queen_gone else 0
        h[s] ^= 1 << c
        if c & 3 == HEARTS:
            broken = True
        elif c == QS:
            queen_gone = True
            broken = broken or cfg.queen_breaks


@jit
def weighted_index(weights: list[float], x: float) -> int:
    """The index drawn by ``x`` (uniform in [0, 1)) with odds in proportion to ``weights``
    (non-negative, not all zero): the first index at which the running sum passes
    ``x * sum(weights)``.

    >>> weighted_index([1.0, 0.0, 3.0], 0.2), weighted_index([1.0, 0.0, 3.0], 0.3)
    (0, 2)
    """
    total = 0.0
    for w in weights:
        total += w
    x *= total
    for i, w in enumerate(weights):
        x -= w
        if x < 0:
            return i
    return len(weights) - 1


@jit
def pass_likelihood(hand: int, received: int, count: int, top: int, noise: float) -> float:
    """How likely a seat that held ``hand`` before the pass (a mask) was to pass ``received``,
    had it passed like the search bot: some of its ``top`` most dangerous cards (ranked as
    :func:`~hearts.bots.search.pass_candidates` ranks them, by
    :func:`~hearts.bots.heuristic.pass_danger`). Each received card ranked below the ``top``
    counts a factor ``noise``.

    >>> from hearts.cards import CardSet
    >>> hand = CardSet.parse("QS 2S 3S AH KH QH JH TH 9H 2C 3C 4C 5C").mask
    >>> pass_likelihood(hand, CardSet.parse("QS AH KH").mask, 3, 6, 0.3)
    1.0
    >>> round(pass_likelihood(hand, CardSet.parse("2C 3C 4C").mask, 3, 6, 0.3), 6)  # low clubs, kept Q♠
    0.027
    """
    p = 1.0
    rest = received
    while rest:
        y = (rest & -rest).bit_length() - 1
        rest &= rest - 1
        danger = pass_danger(y, hand, 0, count)
        above = 0
        others = hand & ~(1 << y)
        while others:
            x = (others & -others).bit_length() - 1
            others &= others - 1
            d = pass_danger(x, hand, 0, count)
            if d > danger or (d == danger and x > y):
                above += 1
        if above >= top:
            p *= noise
    return p
