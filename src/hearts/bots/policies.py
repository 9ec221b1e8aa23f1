"""Rollout policies: how the kernel's rollouts play a seat, on bare card masks.

A :data:`~hearts.kernel.Policy` picks a card id from a legal mask in microseconds; the search
bot gives them to :func:`~hearts.kernel.play_out` in a :class:`~hearts.kernel.Rollout`:

* :func:`greedy_policy`, a careful club player (the search's model of a careful opponent);
* :func:`shooter_card` and :func:`defender_card`, a seat going for the moon and the seats
  stopping it (R4.4);
* :func:`random_card`, a uniformly random card (what a ``None`` policy plays).

>>> import random
>>> from hearts import Rules
>>> from hearts.kernel import Rollout, play_out
>>> from hearts.mechanics import LegalConfig
>>> from hearts.round import deal_hands
>>> rules = Rules()
>>> hands = deal_hands(rules, random.Random(1))
>>> leader = next(s for s in range(4) if hands[s] & 1)  # the 2♣ leads (R3.1)
>>> won, tricks_won = [0] * 4, [0] * 4
>>> careful = Rollout((greedy_policy,) * 4, shoot_from=10, shooter=shooter_card, defender=defender_card)
>>> play_out(hands, leader, [], False, True, won, tricks_won, 13, LegalConfig(rules), random.Random(2), careful)
>>> sum(tricks_won), hands
(13, [0, 0, 0, 0])
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from hearts.cards import HEARTS, HEARTS_MASK, POINTS_MASK, QS, QS_MASK, SPADES, SUIT_MASKS
from hearts.fast import GREEDY, RANDOM
from hearts.kernel import Policy, nth_card

AS_KS_MASK: Final = (1 << (12 * 4 + SPADES)) | (1 << (11 * 4 + SPADES))
"""The A♠ and K♠: the spades that take the Q♠."""
LOW_SPADES_MASK: Final = SUIT_MASKS[SPADES] & ((1 << QS) - 1)
"""The spades below the queen (they flush it out, or guard it)."""


def greedy_policy(
    legal: int, trick: list[int], players: int, rand: Callable[[], float], queen_gone: bool
) -> int:
    """A fast rollout policy that plays like a careful club player.

    Following, it ducks with the highest card that still loses, else plays its lowest (its
    highest when last to a clean trick); void, it dumps the Q♠, then the A♠/K♠ while the queen
    is out, then its highest heart, then its highest card. Leading, it flushes the Q♠ with a low
    spade when it holds no spade above the jack, else leads the lowest card of a random suit
    (spades only when it does not hold the queen). One play in ten is random, so rollouts
    explore.

    >>> from hearts.cards import Card, CardSet
    >>> legal = CardSet.parse("3C 9C KC").mask
    >>> Card(greedy_policy(legal, [Card.parse("TC")], 4, lambda: 0.5, False))  # ducks under the T♣
    Card('9C')
    """
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if rand() < 0.1:
        return nth_card(legal, int(rand() * legal.bit_count()))
    if trick:
        led = trick[0] & 3
        follow = legal & SUIT_MASKS[led]
        if follow:
            win = trick[0]
            for c in trick:
                if c & 3 == led and c > win:
                    win = c
            under = follow & ((1 << win) - 1)
            if under:
                return under.bit_length() - 1
            if len(trick) == players - 1:
                clean = True
                for c in trick:
                    if c & 3 == HEARTS or c == QS:
                        clean = False
                        break
                safe = follow & ~QS_MASK
                if clean and safe:
                    return safe.bit_length() - 1
            safe = follow & ~QS_MASK
            return (safe & -safe).bit_length() - 1 if safe else QS
        if legal & QS_MASK:
            return QS
        if not queen_gone and legal & AS_KS_MASK:
            return (legal & AS_KS_MASK).bit_length() - 1
        hearts = legal & HEARTS_MASK
        if hearts:
            return hearts.bit_length() - 1
        return legal.bit_length() - 1
    if not queen_gone and legal & LOW_SPADES_MASK and not legal & (AS_KS_MASK | QS_MASK):
        return (legal & LOW_SPADES_MASK).bit_length() - 1
    pool = legal & ~SUIT_MASKS[SPADES] if legal & QS_MASK and legal & ~SUIT_MASKS[SPADES] else legal
    suits = [s for s in range(4) if pool & SUIT_MASKS[s]]
    mine = pool & SUIT_MASKS[suits[int(rand() * len(suits))]]
    return (mine & -mine).bit_length() - 1


def shooter_card(legal: int, trick: list[int]) -> int:
    """How a seat going for the moon plays: it follows with its highest card, discards its
    lowest card that carries no points (else its lowest), and leads its highest card."""
    if trick:
        follow = legal & SUIT_MASKS[trick[0] & 3]
        if follow:
            return follow.bit_length() - 1
        safe = legal & ~POINTS_MASK or legal
        return (safe & -safe).bit_length() - 1
    return legal.bit_length() - 1


def defender_card(legal: int, trick: list[int], shooter_winning: bool) -> int:
    """How a seat stops another's moon: it follows with its highest card (to take the trick
    and its points), leads its highest card, and when void gives the shooter's tricks no
    points (its highest card without points) but dumps points on anyone else's (the Q♠, else
    its highest heart)."""
    if not trick:
        return legal.bit_length() - 1
    follow = legal & SUIT_MASKS[trick[0] & 3]
    if follow:
        return follow.bit_length() - 1
    if shooter_winning:
        safe = legal & ~POINTS_MASK or legal
        return safe.bit_length() - 1
    if legal & QS_MASK:
        return QS
    points = legal & HEARTS_MASK or legal
    return points.bit_length() - 1


def random_card(mask: int, rng: random.Random) -> int:
    """A uniformly random card id of a non-empty mask (as a ``None`` policy plays).

    >>> random_card(0b1000, random.Random(0))
    3
    """
    return nth_card(mask, int(rng.random() * mask.bit_count()))


COMPILED: Final[dict[Policy | None, int]] = {None: RANDOM, greedy_policy: GREEDY}
"""The policies with a compiled twin in :mod:`hearts.fast`, and their codes there (``None``:
uniformly random); :func:`shooter_card` and :func:`defender_card` have theirs too."""


__all__ = [
    "AS_KS_MASK",
    "COMPILED",
    "LOW_SPADES_MASK",
    "defender_card",
    "greedy_policy",
    "random_card",
    "shooter_card",
]
