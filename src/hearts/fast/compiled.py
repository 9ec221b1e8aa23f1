# mypy: disallow-untyped-defs=False, disallow-untyped-calls=False, disallow-untyped-decorators=False
# mypy: check-untyped-defs=False
# (numba compiles the functions below from the signatures given to _jit: mypy sees them untyped.
# The Python interface at the end is typed and checked.)
"""The compiled twin (numba): the rollout kernel and the search bot's sampling loop in machine code.

Do not import this module: :mod:`hearts.fast` loads it when numba is installed, and is the
typed, documented interface. Every compiled function below repeats one function of the pure
Python code, one to one, on the same int masks, and draws the same random numbers in the same
order (its docstring names its original); a change to the original must be made here too, and
``tests/test_fast.py`` compares the two.

The random numbers are the interpreter's own: :func:`_genrand` and its callers are CPython's
Mersenne Twister (``Modules/_randommodule.c``) and ``random.Random.shuffle``, so a compiled
rollout given the state of a :class:`random.Random` draws exactly what the pure kernel draws
from it, and hands the state back. A state is an int64 array of 625: the 624 words and the
index, as ``Random.getstate()[1]`` holds them.

Arrays of card masks are int64 (52 bits), one entry per seat; tricks are int64 arrays of
``players`` entries with their length beside them.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import random
import sys
from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
from numba.core import types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic, overload, overload_method, register_jitable

from hearts.cards import (
    CARDS,
    CLUBS_MASK,
    HEARTS,
    HEARTS_MASK,
    JD,
    POINTS_MASK,
    QS,
    QS_MASK,
    SPADES,
    SUIT_MASKS,
)
from hearts.fast import INLINE, KERNEL, Deal, floats, fresh, ints, seeded, stream_buffer
from hearts.mechanics import LegalConfig, legal_mask, score_round
from hearts.rules import Rules

Ints = npt.NDArray[np.int64]
RANDOM, GREEDY = 0, 1
"""The codes of seats that play at random and greedily (``hearts.kernel.RANDOM``, ``GREEDY``)."""
_DECK = len(CARDS)
"""The number of card ids (52)."""

try:
    numba.njit(cache=True)(lambda: 0)
    CACHED = True
    """Compiled functions are cached on disk (numba's ``cache=True``): only the first process
    compiles them."""
except RuntimeError:  # numba found no writable cache directory: compile in every process
    CACHED = False


_TYPES = {
    "i8": types.int64,
    "f8": types.float64,
    "b1": types.boolean,
    "A": types.int64[::1],
    "A2": types.int64[:, ::1],
    "A3": types.int64[:, :, ::1],
    "F": types.float64[::1],
}
"""The types of the signatures: ints and masks (``i8``), doubles, bools, and C arrays of
int64 (``A``, ``A2``, ``A3``) and of doubles (``F``)."""


def _jit(signature: str, inline: bool = False) -> Callable[[Callable[..., Any]], Any]:
    """Compile a function for its one ``signature`` (``"i8(A, b1)"``, see :data:`_TYPES`), when
    the module loads: one machine-code version of each, whatever its callers pass. ``inline``:
    compiled into each caller (numba's ``forceinline``) rather than called, for the few-line
    helpers run for every card or random number; a call between compiled functions costs more
    than such a helper (random rounds took twice as long)."""
    result, _, args = signature.partition("(")
    arg_types = [_TYPES[a.strip()] for a in args.rstrip(")").split(",") if a.strip()]
    sig = (types.void if result == "void" else _TYPES[result])(*arg_types)
    compile_: Callable[[Callable[..., Any]], Any] = numba.njit(sig, cache=CACHED, forceinline=inline)
    return compile_


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    """``int.bit_count`` (LLVM's ``ctpop``)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


# --- the interpreter's random stream (CPython's Mersenne Twister) -----------------------------

_N = 624
_M = 397
_INDEX = _N
"""Where a state array keeps its index (``Random.getstate()[1][624]``)."""


@_jit("void(A)")
def _twist(mt):
    """The generation of 624 new words (``genrand_uint32``'s refill)."""
    for kk in range(_N - _M):
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7FFFFFFF)
        mt[kk] = mt[kk + _M] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    for kk in range(_N - _M, _N - 1):
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7FFFFFFF)
        mt[kk] = mt[kk + _M - _N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    y = (mt[_N - 1] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
    mt[_N - 1] = mt[_M - 1] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    mt[_INDEX] = 0


@_jit("i8(A)", inline=True)
def _genrand(mt):
    """``genrand_uint32``: the next 32 random bits."""
    i = mt[_INDEX]
    if i >= _N:
        _twist(mt)
        i = 0
    y = mt[i]
    mt[_INDEX] = i + 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


@_jit("i8(A)", inline=True)
def _random_bits(mt):
    """``Random.random()`` times 2**53: the 53-bit integer behind the next double."""
    a = _genrand(mt) >> 5
    b = _genrand(mt) >> 6
    return a * 67108864 + b


@_jit("f8(A)", inline=True)
def _random(mt):
    """``Random.random()``."""
    return _random_bits(mt) * (1.0 / 9007199254740992.0)


@_jit("i8(A, i8)")
def _randbelow(mt, n):
    """``Random._randbelow(n)`` (``n >= 2``): ``getrandbits(n.bit_length())`` until below ``n``."""
    shift = 32 - (64 - leading_zeros(n))
    r = _genrand(mt) >> shift
    while r >= n:
        r = _genrand(mt) >> shift
    return r


@_jit("void(A, A, i8)")
def _shuffle(mt, cards, length):
    """``Random.shuffle`` of ``cards[:length]``."""
    for i in range(length - 1, 0, -1):
        j = _randbelow(mt, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@_jit("void(A, i8)")
def _seed_from_random(mt, bits):
    """``random.Random(x)`` for ``x = bits / 2**53`` (a value of ``Random.random()``), refilled.

    A float seeds with its hash, which for ``bits / 2**53`` is ``bits * 2**8`` (the hash of a
    float is its value modulo the prime ``2**61 - 1``, and ``2**-53`` is ``2**8`` there), split
    into 32-bit key words (``init_by_array``)."""
    key = bits << 8
    words = 2 if key >> 32 else 1
    mt[0] = 19650218  # init_genrand(19650218)
    for i in range(1, _N):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
    i, j = 1, 0
    for _ in range(_N):
        prev = mt[i - 1]
        word = key & 0xFFFFFFFF if j == 0 else key >> 32
        mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + word + j) & 0xFFFFFFFF
        i += 1
        j += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
        if j >= words:
            j = 0
    for _ in range(_N - 1):
        prev = mt[i - 1]
        mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & 0xFFFFFFFF
        i += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
    mt[0] = 0x80000000
    _twist(mt)  # what the first draw would do: the seeded stream is shared by the candidates


# --- masks -----------------------------------------------------------------------------------


@_jit("i8(i8)")
def _top(mask):
    """``mask.bit_length() - 1``: the highest card of a non-empty mask."""
    return 63 - leading_zeros(mask)


@_jit("i8(i8, i8)", inline=True)
def _nth_card(mask, k):
    """:func:`hearts.kernel.nth_card`."""
    while k:
        mask &= mask - 1
        k -= 1
    return trailing_zeros(mask)


@_jit("b1(A)", inline=True)
def _queen_gone(hands):
    """:func:`hearts.kernel.queen_gone`."""
    held = 0
    for h in hands:
        held |= h
    return not held & QS_MASK


@_jit("void(A, A, i8)")
def _copy(dst, src, length):
    """``dst[:length] = src[:length]`` (a plain loop: numba's slice assignment is slow to compile)."""
    for i in range(length):
        dst[i] = src[i]


@_jit("void(A, i8)")
def _fill(dst, value):
    """``dst[:] = value``."""
    for i in range(len(dst)):
        dst[i] = value


# --- mechanics -------------------------------------------------------------------------------

CONFIG_FIELDS = (
    "lowest_club_bit",
    "any_club",
    "no_points_first",
    "must_break",
    "lead_restrict",
    "lead_hearts_instead",
    "queen_breaks",
    "queen_after_break",
)
"""The fields of a :class:`~hearts.mechanics.LegalConfig`, in the order of a config array."""
(_LOWEST_CLUB_BIT, _ANY_CLUB, _NO_POINTS_FIRST, _MUST_BREAK, _LEAD_RESTRICT, _LEAD_HEARTS_INSTEAD,
 _QUEEN_BREAKS, _QUEEN_AFTER_BREAK) = range(len(CONFIG_FIELDS))


def config_array(cfg: LegalConfig) -> Ints:
    """A :class:`~hearts.mechanics.LegalConfig` as the compiled functions take it."""
    return np.array([int(getattr(cfg, name)) for name in CONFIG_FIELDS], dtype=np.int64)


@_jit("i8(i8, i8, b1, b1, A)", inline=True)
def _legal_mask(hand, led, first, broken, cfg):
    """:func:`hearts.mechanics.legal_mask`."""
    if led >= 0:
        follow = hand & SUIT_MASKS[led]
        if follow:
            return follow
        if first and cfg[_NO_POINTS_FIRST]:
            safe = hand & ~POINTS_MASK
            if safe:
                return safe
        return hand
    if first:
        return hand & CLUBS_MASK if cfg[_ANY_CLUB] else cfg[_LOWEST_CLUB_BIT]
    restrict = cfg[_LEAD_RESTRICT]
    if broken or not restrict:
        return hand
    allowed = hand & ~restrict
    if allowed:
        if allowed == QS_MASK and hand & HEARTS_MASK and cfg[_LEAD_HEARTS_INSTEAD] and cfg[_MUST_BREAK]:
            return hand
        if not cfg[_MUST_BREAK] and not hand & ~POINTS_MASK:
            return hand
        return allowed
    if (
        hand & QS_MASK
        and hand & HEARTS_MASK
        and cfg[_MUST_BREAK]
        and not cfg[_LEAD_HEARTS_INSTEAD]
        and not cfg[_QUEEN_AFTER_BREAK]
    ):
        return QS_MASK
    return hand


@_jit("i8(A, i8)", inline=True)
def _trick_winner_offset(trick, length):
    """:func:`hearts.mechanics.trick_winner_offset` of ``trick[:length]``."""
    best = trick[0]
    at = 0
    led = best & 3
    for i in range(length):
        c = trick[i]
        if c > best and c & 3 == led:
            best = c
            at = i
    return at


@_jit("i8(i8)", inline=True)
def _points(mask):
    """:func:`hearts.cards.mask_points`."""
    return _ctpop(mask & HEARTS_MASK) + (13 if mask & QS_MASK else 0)


class Scoring:
    """What :func:`hearts.mechanics.score_round` needs to score a finished round, as
    :func:`_score_round` takes it: the bonuses, and the scores of every moon (``moons[shooter,
    holder]``, the J♦ won by ``holder``) as ``score_round`` gives them for ``rules`` and the
    totals ``scores_before``, the shooter adding 26 to the others where it has the choice (as
    the search and :func:`hearts.kernel.random_round` score)."""

    def __init__(self, rules: Rules, scores_before: Sequence[int]) -> None:
        n = rules.players
        self.jack = rules.jack_of_diamonds
        self.no_tricks = rules.no_tricks_bonus
        self.moons = np.zeros((n, n, n), dtype=np.int64)
        for shooter in range(n):
            for holder in range(n):
                won = [0] * n
                won[shooter] = POINTS_MASK
                won[holder] |= 1 << JD
                self.moons[shooter, holder] = score_round(won, [1] * n, rules, scores_before, "add").scores


@functools.lru_cache(maxsize=256)
def scoring_of(rules: Rules, scores_before: tuple[int, ...]) -> Scoring:
    """The :class:`Scoring` of ``rules`` and ``scores_before``, made once (its arrays are only read)."""
    return Scoring(rules, scores_before)


@_jit("void(A, A, i8, i8, A3, A)")
def _score_round(won, tricks_won, jack, no_tricks, moons, out):
    """:func:`hearts.mechanics.score_round` into ``out`` (its moons from :class:`Scoring`; every
    deck holds the J♦)."""
    n = len(won)
    shooter = -1
    holder = 0
    for s in range(n):
        if won[s] & POINTS_MASK == POINTS_MASK and shooter < 0:
            shooter = s
        if won[s] >> JD & 1:
            holder = s
    if shooter < 0:
        for s in range(n):
            out[s] = _points(won[s]) + (jack if won[s] >> JD & 1 else 0) + (no_tricks if tricks_won[s] == 0 else 0)
    else:
        for s in range(n):
            out[s] = moons[shooter, holder, s]


# --- the rollout policies (hearts.bots.policies) ---------------------------------------------

# The masks of the same names in hearts.bots.policies, which this layer may not import (the
# bots sit above it); tests/test_fast.py checks they are equal.
_AS_KS_MASK = (1 << (12 * 4 + SPADES)) | (1 << (11 * 4 + SPADES))
_LOW_SPADES_MASK = SUIT_MASKS[SPADES] & ((1 << QS) - 1)


@_jit("i8(i8, A, i8, i8, b1)")
def _greedy_follow(legal, trick, length, players, queen_gone):
    """:func:`hearts.bots.policies.greedy_policy` on a trick in progress (``length`` > 0),
    without its exploration: it draws nothing."""
    led = trick[0] & 3
    follow = legal & SUIT_MASKS[led]
    if follow:
        win = trick[0]
        for i in range(length):
            c = trick[i]
            if c & 3 == led and c > win:
                win = c
        under = follow & ((1 << win) - 1)
        if under:
            return _top(under)
        if length == players - 1:
            clean = True
            for i in range(length):
                c = trick[i]
                if c & 3 == HEARTS or c == QS:
                    clean = False
                    break
            safe = follow & ~QS_MASK
            if clean and safe:
                return _top(safe)
        safe = follow & ~QS_MASK
        return trailing_zeros(safe) if safe else QS
    if legal & QS_MASK:
        return QS
    if not queen_gone and legal & _AS_KS_MASK:
        return _top(legal & _AS_KS_MASK)
    hearts = legal & HEARTS_MASK
    if hearts:
        return _top(hearts)
    return _top(legal)


@_jit("i8(i8, A, i8, i8, A, b1)")
def _greedy(legal, trick, length, players, mt, queen_gone):
    """:func:`hearts.bots.policies.greedy_policy`."""
    if legal & (legal - 1) == 0:
        return _top(legal)
    if _random(mt) < 0.1:
        return _nth_card(legal, int(_random(mt) * _ctpop(legal)))
    if length:
        return _greedy_follow(legal, trick, length, players, queen_gone)
    if not queen_gone and legal & _LOW_SPADES_MASK and not legal & (_AS_KS_MASK | QS_MASK):
        return _top(legal & _LOW_SPADES_MASK)
    pool = legal & ~SUIT_MASKS[SPADES] if legal & QS_MASK and legal & ~SUIT_MASKS[SPADES] else legal
    suits = 0
    for s in range(4):
        if pool & SUIT_MASKS[s]:
            suits += 1
    k = int(_random(mt) * suits)
    for s in range(4):
        if pool & SUIT_MASKS[s]:
            if k == 0:
                return trailing_zeros(pool & SUIT_MASKS[s])
            k -= 1
    return -1  # not reached: pool holds a card


@_jit("f8(i8, i8, A, i8, i8, b1)")
def _greedy_probability(card, legal, trick, length, players, queen_gone):
    """:func:`hearts.bots.opponents.greedy_probability`."""
    if legal & (legal - 1) == 0:
        return 1.0
    if length:
        return 1.0 if _greedy_follow(legal, trick, length, players, queen_gone) == card else 0.0
    if not queen_gone and legal & _LOW_SPADES_MASK and not legal & (_AS_KS_MASK | QS_MASK):
        return 1.0 if _top(legal & _LOW_SPADES_MASK) == card else 0.0
    pool = legal & ~SUIT_MASKS[SPADES] if legal & QS_MASK and legal & ~SUIT_MASKS[SPADES] else legal
    suits = 0
    for s in range(4):
        if pool & SUIT_MASKS[s]:
            suits += 1
    if pool >> card & 1 and trailing_zeros(pool & SUIT_MASKS[card & 3]) == card:
        return (12 // suits) / 12.0  # the pure function counts 12 // suits of its 12 draws
    return 0.0


@_jit("f8(A, A, A, i8, A, f8, A, A)")
def _play_likelihood(hands, plays, leaders, me, cfg, noise, h, t):
    """:func:`hearts.bots.opponents.play_likelihood` (``h`` and ``t`` are work space)."""
    n = len(hands)
    count = len(plays)
    _copy(h, hands, n)
    for i in range(count):
        h[(leaders[i // n] + i % n) % n] |= 1 << plays[i]
    p = 1.0
    broken = False
    queen_gone = False
    queen_breaks = cfg[_QUEEN_BREAKS] != 0
    for start in range(0, count, n):
        leader = leaders[start // n]
        led = -1
        for i in range(start, min(start + n, count)):
            c = plays[i]
            s = (leader + i - start) % n
            legal = _legal_mask(h[s], led, start == 0, broken, cfg)
            if s != me:
                k = _ctpop(legal)
                p *= noise / k + (1 - noise) * _greedy_probability(c, legal, t, i - start, n, queen_gone)
            t[i - start] = c
            h[s] ^= 1 << c
            if led < 0:
                led = c & 3
            if c & 3 == HEARTS:
                broken = True
            elif c == QS:
                queen_gone = True
                broken = broken or queen_breaks
    return p


@_jit("i8(F, f8)")
def _weighted_index(weights, x):
    """:func:`hearts.bots.opponents.weighted_index`."""
    total = 0.0
    for w in weights:
        total += w
    x *= total
    for i in range(len(weights)):
        x -= weights[i]
        if x < 0:
            return i
    return len(weights) - 1


@_jit("i8(i8, A, i8)")
def _shooter_card(legal, trick, length):
    """:func:`hearts.bots.policies.shooter_card`."""
    if length:
        follow = legal & SUIT_MASKS[trick[0] & 3]
        if follow:
            return _top(follow)
        safe = legal & ~POINTS_MASK
        if not safe:
            safe = legal
        return trailing_zeros(safe)
    return _top(legal)


@_jit("i8(i8, A, i8, b1)")
def _defender_card(legal, trick, length, shooter_winning):
    """:func:`hearts.bots.policies.defender_card`."""
    if not length:
        return _top(legal)
    follow = legal & SUIT_MASKS[trick[0] & 3]
    if follow:
        return _top(follow)
    if shooter_winning:
        safe = legal & ~POINTS_MASK
        return _top(safe if safe else legal)
    if legal & QS_MASK:
        return QS
    points = legal & HEARTS_MASK
    return _top(points if points else legal)


# --- the rollout loop (hearts.kernel) --------------------------------------------------------


@_jit("void(A, i8, A, i8, b1, b1, A, A, i8, A, A, A, i8)")
def _play_out(hands, leader, trick, length, broken, first, won, tricks_won, tricks_left, cfg, mt,
              policies, shoot_from):
    """:func:`hearts.kernel.play_out`: ``trick[:length]`` is the trick in progress, ``policies``
    the seats' codes (:data:`RANDOM`, :data:`GREEDY`), the moon policies those of
    :mod:`hearts.bots.policies`."""
    n = len(hands)
    holder = -1
    if shoot_from:
        for s in range(n):
            if won[s] & POINTS_MASK:
                holder = s if holder == -1 else -2
    shooter = holder if shoot_from and holder >= 0 and _points(won[holder]) >= shoot_from else -1
    queen_breaks = cfg[_QUEEN_BREAKS] != 0
    led = trick[0] & 3 if length else -1
    seat = (leader + length) % n
    queen_gone = _queen_gone(hands)
    while tricks_left:
        while length < n:
            mask = _legal_mask(hands[seat], led, first, broken, cfg)
            policy = policies[seat]
            if policy == RANDOM:
                card = _nth_card(mask, int(_random(mt) * _ctpop(mask)))
            elif shooter < 0:
                card = _greedy(mask, trick, length, n, mt, queen_gone)
            elif seat == shooter:
                card = _shooter_card(mask, trick, length)
            else:
                winning = (leader + _trick_winner_offset(trick, length)) % n == shooter if length else False
                card = _defender_card(mask, trick, length, winning)
            hands[seat] ^= 1 << card
            if not length:
                led = card & 3
            trick[length] = card
            length += 1
            if card & 3 == HEARTS:
                broken = True
            elif card == QS:
                queen_gone = True
                broken = broken or queen_breaks
            seat = seat + 1 if seat + 1 < n else 0
        leader = (leader + _trick_winner_offset(trick, length)) % n
        mask = 0
        for i in range(length):
            mask |= 1 << trick[i]
        won[leader] |= mask
        tricks_won[leader] += 1
        if shoot_from and holder != -2 and mask & POINTS_MASK:
            holder = leader if holder == -1 or holder == leader else -2
            shooter = holder if holder >= 0 and _points(won[holder]) >= shoot_from else -1
        length = 0
        led = -1
        first = False
        seat = leader
        tricks_left -= 1


# --- the search bot's samples (hearts.bots.search, hearts.bots.heuristic) ---------------------


@_jit("void(A, A, A, i8, A, A)")
def _shuffle_out(mt, hands, pool, length, need, out):
    """``hearts.bots.search._shuffle_out`` into ``out``."""
    _copy(out, hands, len(hands))
    _shuffle(mt, pool, length)
    i = 0
    for s in range(len(need)):
        for _ in range(need[s]):
            out[s] |= 1 << pool[i]
            i += 1


@_jit("void(A, A, A, A, A, b1, i8, A, A, A, A)")
def _sample_hidden(mt, deal_hands, deal_pool, need, voids, plain, me, out, pool, left, scratch):
    """:meth:`hearts.bots.search.HiddenDeal.sample` into ``out`` (``pool``, ``left`` and
    ``scratch`` are work space)."""
    m = len(deal_pool)
    _copy(pool, deal_pool, m)
    if plain:
        _shuffle_out(mt, deal_hands, pool, m, need, out)
        return
    n = len(need)
    constrained = False
    for s in range(n):
        if voids[s] and s != me:
            constrained = True
    void_seats = 0  # per suit, the number of seats void in it: a byte each (no array made per sample)
    for s in range(n):
        for suit in range(4):
            void_seats += (voids[s] >> suit & 1) << (8 * suit)
    for _attempt in range(40):
        _shuffle(mt, pool, m)
        if constrained:  # a stable sort on the number of seats void in the suit, reversed
            k = 0
            for v in range(n, -1, -1):
                for i in range(m - 1, -1, -1):
                    c = pool[i]
                    if void_seats >> (8 * (c & 3)) & 0xFF == v:
                        scratch[k] = c
                        k += 1
            _copy(pool, scratch, m)
        _copy(left, need, n)
        _copy(out, deal_hands, n)
        ok = True
        for i in range(m):
            c = pool[i]
            suit_bit = 1 << (c & 3)
            total = 0
            for s in range(n):
                if left[s] and not voids[s] & suit_bit:
                    total += left[s]
            if total == 0:
                ok = False
                break
            x = _random(mt) * total
            pick = -1
            for s in range(n):
                if left[s] and not voids[s] & suit_bit:
                    pick = s
                    x -= left[s]
                    if x < 0:
                        break
            out[pick] |= 1 << c
            left[pick] -= 1
        if ok:
            return
    _shuffle_out(mt, deal_hands, pool, m, need, out)


@_jit("f8(i8, i8, i8, i8)")
def _pass_danger(card, hand, chosen, count):
    """:func:`hearts.bots.heuristic.pass_danger`."""
    suit, rank = card & 3, card >> 2
    spades_low = _ctpop(hand & _LOW_SPADES_MASK)
    if card == QS:
        return 100.0 if spades_low < 4 else 0.0
    if suit == SPADES and rank > 10:
        holds_queen = (hand & QS_MASK) != 0 and not chosen & QS_MASK
        return 0.0 if spades_low >= 4 else (70.0 + rank if not holds_queen else 40.0 + rank)
    if suit == SPADES:
        return rank * 0.5 - (30.0 if hand & QS_MASK else 0.0)
    if suit == HEARTS:
        return 20.0 + rank * 4.0 if rank >= 7 else rank * 1.5
    length = _ctpop(hand & SUIT_MASKS[suit])
    void_bonus = 30.0 - length * 5.0 if length <= count - _ctpop(chosen) else 0.0
    return rank * 2.5 + void_bonus


@_jit("b1(i8)")
def _moon_potential(hand):
    """:func:`hearts.bots.heuristic.moon_potential`."""
    hearts = hand & HEARTS_MASK
    high_hearts = _ctpop(hearts >> (8 * 4))
    top_spades = hand & (_AS_KS_MASK | QS_MASK)
    low_cards = _ctpop(hand & ((1 << (6 * 4)) - 1))  # ranks below 6
    return _ctpop(hearts) >= 6 and high_hearts >= 4 and _ctpop(top_spades) >= 2 and low_cards <= 2


@_jit("i8(i8, i8)")
def _pass_mask(hand, count):
    """:func:`hearts.bots.heuristic.pass_mask` (``try_moon=True``)."""
    chosen = 0
    if _moon_potential(hand):
        for _ in range(count):
            rest = hand & ~chosen
            pool = rest & ~HEARTS_MASK & ~(SUIT_MASKS[SPADES] & ~_LOW_SPADES_MASK)
            if not pool:
                pool = rest
            chosen |= pool & -pool  # its lowest (rank, suit)
        return chosen
    for _ in range(count):
        rest = hand & ~chosen
        best = -1
        best_danger = 0.0
        cards = rest
        while cards:  # the most dangerous, the highest card among equals
            c = trailing_zeros(cards)
            cards &= cards - 1
            danger = _pass_danger(c, rest, chosen, count)
            if best < 0 or danger >= best_danger:
                best, best_danger = c, danger
        chosen |= 1 << best
    return chosen


@_jit("f8(i8, i8, i8, i8, f8)")
def _pass_likelihood(hand, received, count, top, noise):
    """:func:`hearts.bots.opponents.pass_likelihood`."""
    p = 1.0
    rest = received
    while rest:
        y = trailing_zeros(rest)
        rest &= rest - 1
        danger = _pass_danger(y, hand, 0, count)
        above = 0
        others = hand & ~(1 << y)
        while others:
            x = trailing_zeros(others)
            others &= others - 1
            d = _pass_danger(x, hand, 0, count)
            if d > danger or (d == danger and x > y):
                above += 1
        if above >= top:
            p *= noise
    return p


@_jit("void(A, i8, A, A, A, A, A, A, b1, i8, A, i8, i8, A, A, i8, b1, b1, A, A, i8, A, F, i8, f8, A, A, "
      "A, i8, i8, A3, A2)")
def _play_block(mt, samples, alive, moves, deal_hands, deal_pool, need, voids, plain, me,
                trick, length, leader, won, tricks_won, tricks_left, first, broken, cfg, policies, shoot_from,
                side, odds, infer, noise, plays, leaders, given, jack, no_tricks, moons, out):
    """``hearts.bots.search.SearchBot._play_sampler``'s draws and scores: ``out[a, k]`` is the
    score of move ``moves[alive[a]]`` on sample ``k``. With ``odds`` (``model=adaptive``; NaN
    for this seat) the seats' policies are drawn from ``side`` for each sample. With ``infer``
    above 1 each sample is one of ``infer`` deals, drawn in proportion to
    :func:`_play_likelihood` of the round's ``plays`` times, with ``given`` (``giver, add,
    remove, received, count, top``), :func:`_pass_likelihood` of the giver's pass
    (``search:infer``)."""
    n = len(won)
    worlds = np.zeros((max(infer, 1), n), dtype=np.int64)
    weights = np.zeros(max(infer, 1), dtype=np.float64)
    lh = np.zeros(n, dtype=np.int64)
    lt = np.zeros(n, dtype=np.int64)
    hands = np.zeros(n, dtype=np.int64)
    pool = np.zeros(len(deal_pool), dtype=np.int64)
    scratch = np.zeros(len(deal_pool), dtype=np.int64)
    left = np.zeros(n, dtype=np.int64)
    h = np.zeros(n, dtype=np.int64)
    w = np.zeros(n, dtype=np.int64)
    tw = np.zeros(n, dtype=np.int64)
    t = np.zeros(n, dtype=np.int64)
    scores = np.zeros(n, dtype=np.int64)
    seeded = np.zeros(_N + 1, dtype=np.int64)
    stream = np.zeros(_N + 1, dtype=np.int64)
    seats = policies.copy()
    queen_breaks = cfg[_QUEEN_BREAKS] != 0
    for k in range(samples):
        if infer > 1:
            for j in range(infer):
                _sample_hidden(mt, deal_hands, deal_pool, need, voids, plain, me, worlds[j], pool, left, scratch)
                weights[j] = _play_likelihood(worlds[j], plays, leaders, me, cfg, noise, lh, lt)
                if len(given):
                    weights[j] *= _pass_likelihood((worlds[j][given[0]] | given[1]) & ~given[2], given[3],
                                                   given[4], given[5], noise)
            _copy(hands, worlds[_weighted_index(weights, _random(mt))], n)
        else:
            _sample_hidden(mt, deal_hands, deal_pool, need, voids, plain, me, hands, pool, left, scratch)
        bits = _random_bits(mt)
        if len(odds):
            for s in range(n):
                seats[s] = GREEDY if math.isnan(odds[s]) or _random(side) >= odds[s] else RANDOM
        _seed_from_random(seeded, bits)
        for a in range(len(alive)):
            card = moves[alive[a]]
            _copy(h, hands, n)
            h[me] ^= 1 << card
            b = broken or card & 3 == HEARTS or (card == QS and queen_breaks)
            _copy(w, won, n)
            _copy(tw, tricks_won, n)
            _copy(t, trick, length)
            t[length] = card
            _copy(stream, seeded, _N + 1)
            _play_out(h, leader, t, length + 1, b, first, w, tw, tricks_left, cfg, stream, seats, shoot_from)
            _score_round(w, tw, jack, no_tricks, moons, scores)
            out[a, k] = scores[me]


@_jit("void(A, i8, A, A, A, A, A, A, i8, i8, i8, i8, i8, i8, A, A, i8, i8, i8, A3, A2)")
def _pass_block(mt, samples, alive, candidates, deal_hands, deal_pool, need, voids, me, count, offset, to,
                lowest_club_bit, hand_size, cfg, policies, shoot_from, jack, no_tricks, moons, out):
    """``hearts.bots.search.SearchBot._pass_sampler``'s draws and scores: ``out[a, k]`` is the
    score of the pass ``candidates[alive[a]]`` on sample ``k``."""
    n = len(need)
    dealt = np.zeros(n, dtype=np.int64)
    pool = np.zeros(len(deal_pool), dtype=np.int64)
    scratch = np.zeros(len(deal_pool), dtype=np.int64)
    left = np.zeros(n, dtype=np.int64)
    passes = np.zeros(n, dtype=np.int64)
    hands = np.zeros(n, dtype=np.int64)
    h = np.zeros(n, dtype=np.int64)
    w = np.zeros(n, dtype=np.int64)
    tw = np.zeros(n, dtype=np.int64)
    t = np.zeros(n, dtype=np.int64)
    scores = np.zeros(n, dtype=np.int64)
    seeded = np.zeros(_N + 1, dtype=np.int64)
    stream = np.zeros(_N + 1, dtype=np.int64)
    giver = (me - offset) % n
    for k in range(samples):
        _sample_hidden(mt, deal_hands, deal_pool, need, voids, True, me, dealt, pool, left, scratch)
        for s in range(n):
            passes[s] = _pass_mask(dealt[s], count) if s != me else 0
        for s in range(n):
            hands[s] = dealt[s] & ~passes[s]
        for s in range(n):
            if s != me:
                hands[(s + offset) % n] |= passes[s]
        hands[me] = deal_hands[me] | passes[giver]
        _seed_from_random(seeded, _random_bits(mt))
        for a in range(len(alive)):
            mine = candidates[alive[a]]
            _copy(h, hands, n)
            h[me] &= ~mine
            h[to] |= mine
            leader = 0
            while not h[leader] & lowest_club_bit:
                leader += 1
            _fill(w, 0)
            _fill(tw, 0)
            _copy(stream, seeded, _N + 1)
            _play_out(h, leader, t, 0, False, True, w, tw, hand_size, cfg, stream, policies, shoot_from)
            _score_round(w, tw, jack, no_tricks, moons, scores)
            out[a, k] = scores[me]


@_jit("void(i8, A, F)")
def _stream_check(bits, cards, draws):
    """``Random(bits / 2**53)``: shuffle ``cards``, then fill ``draws`` with ``random()``."""
    mt = np.zeros(_N + 1, dtype=np.int64)
    _seed_from_random(mt, bits)
    _shuffle(mt, cards, len(cards))
    for i in range(len(draws)):
        draws[i] = _random(mt)


# --- the Python interface (hearts.fast) ------------------------------------------------------


def state_array(rng: random.Random) -> Ints:
    """The Mersenne Twister state of ``rng`` as the compiled functions draw from it."""
    return np.array(rng.getstate()[1], dtype=np.int64)


def set_state(rng: random.Random, mt: Ints) -> None:
    """Give ``rng`` the state ``mt`` (after the compiled functions drew from it)."""
    version, _, gauss_next = rng.getstate()
    rng.setstate((version, tuple(mt.tolist()), gauss_next))


def matches_interpreter() -> bool:
    """Whether this interpreter's ``random.Random`` draws what the compiled twin draws (CPython's
    does: the Mersenne Twister, a float seed hashed, ``shuffle`` on ``getrandbits``)."""
    source = random.Random(2024)
    for seed in (0.0, 0.5, *(source.random() for _ in range(6))):
        rng = random.Random(seed)
        cards = list(range(52))
        rng.shuffle(cards)
        expected = [*cards, *(rng.random() for _ in range(8))]
        compiled_cards = np.arange(52, dtype=np.int64)
        draws = np.zeros(8, dtype=np.float64)
        _stream_check(int(seed * 2**53), compiled_cards, draws)
        if [*compiled_cards.tolist(), *draws.tolist()] != expected:
            return False
    return True


class Block:
    """A :data:`hearts.fast.Block` on compiled draws: ``kernel`` (:func:`_play_block` or
    :func:`_pass_block`) with its arguments after the candidates (``args``); each call hands it
    the state of ``rng`` and gives the state back."""

    def __init__(self, kernel: Any, rng: random.Random, candidates: Sequence[int], args: tuple[Any, ...]) -> None:
        self.kernel = kernel
        self.rng = rng
        self.candidates = np.array(candidates, dtype=np.int64)
        self.args = args

    def __call__(self, samples: int, alive: Sequence[int]) -> list[list[int]]:
        out = np.zeros((len(alive), samples), dtype=np.int64)
        mt = state_array(self.rng)
        self.kernel(mt, samples, np.array(alive, dtype=np.int64), self.candidates, *self.args, out)
        set_state(self.rng, mt)
        rows: list[list[int]] = out.tolist()
        return rows


def _ints(values: Sequence[int]) -> Ints:
    return np.array(values, dtype=np.int64)


def _deal_args(deal: Deal) -> tuple[Any, ...]:
    return _ints(deal.hands), _ints(deal.pool), _ints(deal.need), _ints(deal.voids)


def play_block(rng: random.Random, deal: Deal, moves: Sequence[int], trick: Sequence[int], leader: int,
               won: Sequence[int], tricks_won: Sequence[int], tricks_left: int, first: bool, broken: bool,
               rules: Rules, scores_before: Sequence[int], policies: Sequence[int], shoot_from: int,
               side: random.Random | None, odds: Sequence[float | None], infer: int, noise: float,
               plays: Sequence[int], leaders: Sequence[int], given: Sequence[int]) -> Block:
    """:func:`hearts.fast.play_block`."""
    n = rules.players
    t = np.zeros(n, dtype=np.int64)
    t[: len(trick)] = trick
    scoring = scoring_of(rules, tuple(scores_before))
    side_mt = state_array(side) if side is not None else np.zeros(0, dtype=np.int64)
    odds_array = np.array([math.nan if o is None else o for o in odds], dtype=np.float64)
    args = (*_deal_args(deal), deal.plain, deal.seat, t, len(trick), leader, _ints(won), _ints(tricks_won),
            tricks_left, first, broken, config_array(LegalConfig(rules)), _ints(policies), shoot_from,
            side_mt, odds_array, infer, float(noise), _ints(plays), _ints(leaders), _ints(given), scoring.jack, scoring.no_tricks,
            scoring.moons)
    return Block(_play_block, rng, moves, args)


def pass_block(rng: random.Random, deal: Deal, candidates: Sequence[int], rules: Rules, round_number: int,
               to: int, scores_before: Sequence[int], policies: Sequence[int], shoot_from: int) -> Block:
    """:func:`hearts.fast.pass_block`."""
    scoring = scoring_of(rules, tuple(scores_before))
    args = (*_deal_args(deal), deal.seat, rules.pass_count, rules.pass_offset(round_number), to,
            1 << rules.lowest_club, rules.hand_size, config_array(LegalConfig(rules)), _ints(policies), shoot_from,
            scoring.jack, scoring.no_tricks, scoring.moons)
    return Block(_pass_block, rng, candidates, args)



# --- one source: what numba is taught, and the compiled forms of the kernel's functions ------


@intrinsic
def _popcount(typingctx: Any, x: Any) -> Any:
    """``int.bit_count`` of any integer type."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return x(x), codegen


@overload_method(types.Integer, "bit_length", jit_options={"forceinline": True})  # type: ignore[call-arg]
def _bit_length(x):
    return lambda x: 64 - leading_zeros(x)


@overload_method(types.Integer, "bit_count", jit_options={"forceinline": True})  # type: ignore[call-arg]
def _bit_count(x):
    return lambda x: _popcount(x)


@overload_method(types.Array, "random", jit_options={"forceinline": True})  # type: ignore[call-arg]
def _array_random(mt):
    return lambda mt: _random(mt)


@overload_method(types.Array, "shuffle")
def _array_shuffle(mt, cards):
    return lambda mt, cards: _shuffle(mt, cards, len(cards))


@overload(seeded)
def _seeded(seed, buffer):
    def impl(seed, buffer):
        _seed_from_random(buffer, int(seed * 9007199254740992.0))
        return buffer

    return impl


@overload(fresh)
def _fresh(start, buffer):
    def impl(start, buffer):
        _copy(buffer, start, _N + 1)
        return buffer

    return impl


@overload(stream_buffer)
def _stream_buffer():
    return lambda: np.zeros(_N + 1, dtype=np.int64)


@overload(ints)
def _zeros(n):
    return lambda n: np.zeros(n, dtype=np.int64)


@overload(floats)
def _float_zeros(n):
    return lambda n: np.zeros(n, dtype=np.float64)


Config = namedtuple("Config", LegalConfig.__slots__)  # type: ignore[misc]  # fields from a tuple
"""A :class:`~hearts.mechanics.LegalConfig` as compiled code reads it (``cfg.queen_breaks``)."""

_REGISTERED: set[Any] = set()
_COMPILED: dict[Any, Any] = {}


def _stamp() -> str:
    """A digest of the sources of every module defining kernel functions: numba's cache looks
    only at the compiled function's own file, and would keep machine code of a callee changed
    in another."""
    digest = hashlib.sha256()
    names = sorted({f.__module__ for f in KERNEL} | {__name__, "hearts.mechanics", "hearts.cards"})
    for name in names:
        path = getattr(sys.modules[name], "__file__", None)
        if path:
            with open(path, "rb") as file:
                digest.update(file.read())
    return digest.hexdigest()


def compiled(function: Callable[..., Any]) -> Any:
    """The numba dispatcher of a :func:`hearts.fast.jit` function, every marked function it
    may call made callable from compiled code first."""
    dispatcher = _COMPILED.get(function)
    if dispatcher is None:
        for f in (legal_mask, *KERNEL):
            if f not in _REGISTERED:
                register_jitable(forceinline=f is legal_mask or f in INLINE)(f)
                _REGISTERED.add(f)
        try:
            dispatcher = numba.njit(cache=CACHED)(function)
        except RuntimeError:  # no file to cache it beside (a function of an interactive session)
            dispatcher = numba.njit(function)
        with contextlib.suppress(AttributeError):  # see _stamp
            dispatcher._cache._cache_file._source_stamp = _stamp()  # type: ignore[union-attr]
        _COMPILED[function] = dispatcher
    return dispatcher


def _array(value: list[Any]) -> Any:
    floats = any(isinstance(v, float) for v in (value[0] if value and isinstance(value[0], list) else value))
    return np.array(value, dtype=np.float64 if floats else np.int64)


def run(function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """:func:`hearts.fast.run`."""
    converted: list[Any] = []
    for value in args:
        if isinstance(value, (list, tuple)) and not isinstance(value, Config):
            converted.append(_array(list(value)))
        elif type(value) is random.Random:
            converted.append(state_array(value))
        elif isinstance(value, LegalConfig):
            converted.append(Config(*(getattr(value, name) for name in LegalConfig.__slots__)))
        else:
            converted.append(value)
    result = compiled(function)(*converted)
    for value, array in zip(args, converted, strict=True):
        if isinstance(value, list) and value and isinstance(value[0], list):
            for row, values in zip(value, array.tolist(), strict=True):
                row[:] = values
        elif isinstance(value, list):
            value[:] = array.tolist()
        elif type(value) is random.Random:
            set_state(value, array)
    return result
