"""Rollout policies: how the kernel's rollouts play a seat, on bare card masks.

A policy picks a card id from a legal mask in microseconds: :func:`greedy_policy`, a careful
club player (the search's model of a careful opponent); :func:`shooter_card` and
:func:`defender_card`, a seat going for the moon and the seats stopping it (R4.4);
:func:`random_card`, a uniformly random card. :func:`play_rollout` is the search's rollout,
the same as a :class:`~hearts.kernel.Rollout` of them given to :func:`~hearts.kernel.play_out`:

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
from types import SimpleNamespace
from typing import Any, Final

from hearts.cards import HEARTS, HEARTS_MASK, POINTS_MASK, QS, QS_MASK, SPADES, SUIT_MASKS
from hearts.fast import jit
from hearts.kernel import GREEDY, GUARDS, RANDOM, SHOOTS, Ints, Policy, nth_card, play_tricks
from hearts.mechanics import LegalConfig

AS_KS_MASK: Final = (1 << (12 * 4 + SPADES)) | (1 << (11 * 4 + SPADES))
"""The A♠ and K♠: the spades that take the Q♠."""
LOW_SPADES_MASK: Final = SUIT_MASKS[SPADES] & ((1 << QS) - 1)
"""The spades below the queen (they flush it out, or guard it)."""


def greedy_policy(legal: int, trick: list[int], players: int, rand: Callable[[], float], queen_gone: bool) -> int:
    """A fast rollout policy that plays like a careful club player (:func:`greedy_card` as a
    :data:`~hearts.kernel.Policy`, drawing from ``rand``).

    Following, it ducks with the highest card that still loses, else plays its highest on a
    trick without points (not the A♠/K♠ on a spade trick the Q♠ may still fall on) and its
    lowest on one with points; void, it dumps the Q♠, then the A♠/K♠ while the queen is out,
    then its highest heart, then the highest card of its shortest suit. Leading, it flushes the
    Q♠ with a low spade when it holds no spade above the jack, else leads the lowest card of a
    random suit (spades only when it does not hold the queen). One play in ten is random, so
    rollouts explore. ``queen_gone`` is :func:`hearts.kernel.queen_gone`'s: under Black Maria's
    spades (R4.5) the A♠/K♠ stay dangerous, and are dumped, until all three top spades are out.

    >>> from hearts.cards import Card, CardSet
    >>> legal = CardSet.parse("3C 9C KC").mask
    >>> Card(greedy_policy(legal, [Card.parse("TC")], 4, lambda: 0.5, False))  # ducks under the T♣
    Card('9C')
    """
    return greedy_card(0, legal, trick, len(trick), players, SimpleNamespace(random=rand), queen_gone)


@jit
def greedy_card(seat: int, legal: int, trick: Ints, length: int, players: int, rng: Any, queen_gone: bool) -> int:
    """:func:`greedy_policy` as the kernel asks it (a :data:`~hearts.kernel.SeatPolicy`: the
    trick is ``trick[:length]``, ``rng.random()`` draws).

    >>> from hearts.cards import Card, CardSet
    >>> legal = CardSet.parse("3C 9C KC").mask
    >>> from hearts.fast import Stream
    >>> Card(greedy_card(0, legal, [Card.parse("TC"), 0, 0, 0], 1, 4, Stream(1), False))  # ducks
    Card('9C')
    """
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if rng.random() < 0.1:
        return nth_card(legal, int(rng.random() * legal.bit_count()))
    if not length:
        flush = flush_card(legal, queen_gone)
        if flush >= 0:
            return flush
        pool, suits = lead_pool(legal), 0
        for s in range(4):
            if pool & SUIT_MASKS[s]:
                suits += 1
        k = int(rng.random() * suits)
        for s in range(4):
            if pool & SUIT_MASKS[s]:
                if k == 0:
                    mine = pool & SUIT_MASKS[s]
                    return (mine & -mine).bit_length() - 1
                k -= 1
    led = trick[0] & 3
    follow = legal & SUIT_MASKS[led]
    if follow:
        win = trick[0]
        for c in trick[:length]:
            if c & 3 == led and c > win:
                win = c
        under = follow & ((1 << win) - 1)
        if under:
            return under.bit_length() - 1
        safe = follow & ~QS_MASK
        if not safe:
            return QS
        if led == SPADES and not queen_gone and not follow & QS_MASK and length < players - 1 and safe & ~AS_KS_MASK:
            return (safe & ~AS_KS_MASK).bit_length() - 1
        for c in trick[:length]:
            if c & 3 == HEARTS or c == QS:
                return (safe & -safe).bit_length() - 1
        return safe.bit_length() - 1
    if legal & QS_MASK:
        return QS
    if not queen_gone and legal & AS_KS_MASK:
        return (legal & AS_KS_MASK).bit_length() - 1
    return (legal & HEARTS_MASK).bit_length() - 1 if legal & HEARTS_MASK else short_suit_top(legal, legal)


@jit
def flush_card(legal: int, queen_gone: bool) -> int:
    """The low spade the greedy policy leads to flush the Q♠ out, or -1.

    >>> from hearts.cards import Card, CardSet
    >>> Card(flush_card(CardSet.parse("4S 9S 2H").mask, False)), flush_card(CardSet.parse("4S KS").mask, False)
    (Card('9S'), -1)
    """
    if not queen_gone and legal & LOW_SPADES_MASK and not legal & (AS_KS_MASK | QS_MASK):
        return (legal & LOW_SPADES_MASK).bit_length() - 1
    return -1


@jit
def lead_pool(legal: int) -> int:
    """The cards among which the greedy policy leads the lowest of a random suit: not spades
    while it holds the Q♠ (and another suit).

    >>> from hearts.cards import CardSet
    >>> CardSet.from_mask(lead_pool(CardSet.parse("QS 4S 2H").mask))
    CardSet.parse('2H')
    """
    return legal & ~SUIT_MASKS[SPADES] if legal & QS_MASK and legal & ~SUIT_MASKS[SPADES] else legal


@jit
def short_suit_top(legal: int, hand: int) -> int:
    """The highest card of ``legal`` in its suit shortest in ``hand`` (ties: higher, lower suit)."""
    best, least = -1, 1 << 10
    for s in range(4):
        mine = legal & SUIT_MASKS[s]
        key = (hand & SUIT_MASKS[s]).bit_count() * 16 - ((mine.bit_length() - 1) >> 2)
        if mine and key < least:
            best, least = mine.bit_length() - 1, key
    return best


@jit
def shooter_card(legal: int, trick: Ints, length: int = -1) -> int:
    """How a seat going for the moon plays (on ``trick[:length]``, all of it by default): it
    follows and leads with its highest card, and discards its lowest card without points (else
    its lowest)."""
    if length < 0:
        length = len(trick)
    if length:
        follow = legal & SUIT_MASKS[trick[0] & 3]
        if follow:
            return follow.bit_length() - 1
        safe = legal & ~POINTS_MASK
        if not safe:
            safe = legal
        return (safe & -safe).bit_length() - 1
    return legal.bit_length() - 1


@jit
def defender_card(legal: int, trick: Ints, shooter_winning: bool, length: int = -1) -> int:
    """How a seat stops another's moon: it follows and leads with its highest card, and when
    void gives the shooter's tricks no points (its highest card without) but dumps points on
    anyone else's (the Q♠, else its highest heart)."""
    if length < 0:
        length = len(trick)
    if not length:
        return legal.bit_length() - 1
    follow = legal & SUIT_MASKS[trick[0] & 3]
    if follow:
        return follow.bit_length() - 1
    if shooter_winning:
        safe = legal & ~POINTS_MASK
        return (safe if safe else legal).bit_length() - 1
    if legal & QS_MASK:
        return QS
    points = legal & HEARTS_MASK
    return (points if points else legal).bit_length() - 1


@jit
def moon_card(legal: int, trick: Ints, length: int, role: int) -> int:
    """The kernel's moon policy (a :data:`~hearts.kernel.MoonPolicy`): :func:`shooter_card` for
    the shooter, :func:`defender_card` for the others.

    >>> from hearts.cards import Card, CardSet
    >>> from hearts.kernel import DUMPS, GUARDS, SHOOTS
    >>> legal, nine = CardSet.parse("5D 9D QS 2H").mask, [Card.parse("9C"), 0, 0, 0]  # void in clubs
    >>> [Card(moon_card(legal, nine, 1, role)) for role in (SHOOTS, GUARDS, DUMPS)]
    [Card('5D'), Card('9D'), Card('QS')]
    """
    if role == SHOOTS:
        return shooter_card(legal, trick, length)
    return defender_card(legal, trick, role == GUARDS, length)


@jit
def play_rollout(hands: Ints, leader: int, trick: Ints, length: int, broken: bool, first: bool, won: Ints,
                 tricks_won: Ints, tricks_left: int, cfg: LegalConfig, rng: Any, codes: Ints, shoot_from: int) -> None:
    """:func:`~hearts.kernel.play_tricks` as the search rolls out: the seats of code
    :data:`~hearts.kernel.GREEDY` play :func:`greedy_card`, the moons :func:`moon_card`."""
    play_tricks(hands, leader, trick, length, broken, first, won, tricks_won, tricks_left, cfg, rng, codes, shoot_from,
                greedy_card, moon_card)


def random_card(mask: int, rng: random.Random) -> int:
    """A uniformly random card id of a non-empty mask (as a ``None`` policy plays).

    >>> random_card(0b1000, random.Random(0))
    3
    """
    return nth_card(mask, int(rng.random() * mask.bit_count()))


COMPILED: Final[dict[Policy | None, int]] = {None: RANDOM, greedy_policy: GREEDY}
"""The policies :func:`play_rollout` plays by code (``None``: uniformly random)."""


__all__ = [
    "AS_KS_MASK", "COMPILED", "LOW_SPADES_MASK", "defender_card", "flush_card", "greedy_card",
    "greedy_policy", "lead_pool", "moon_card", "play_rollout", "random_card", "shooter_card", "short_suit_top",
]
