"""The rollout kernel: whole rounds on bare int masks, for search bots and simulation.

It decides legality with the engine's own :func:`~hearts.mechanics.legal_mask` and scores as
:func:`~hearts.mechanics.score_round` does, so it plays exactly the engine's rules, without
validation, events or objects (``tests/test_properties.py`` checks it against :class:`Round`).
The loop (:func:`play_tricks`) is written once in the style :mod:`hearts.fast` compiles, and
runs as Python or compiled; how each seat plays is given to it (a code per seat, a policy, a
moon policy: :mod:`hearts.bots.policies`). :class:`Rollout` and :func:`play_out` are the same
loop with Python callables per seat.

>>> import random
>>> from hearts import Rules
>>> result = random_round(Rules(), random.Random(5))
>>> sum(result.points)
26
>>> random_rounds(Rules(), fast.Stream(5), 3)  # three random_round calls on the stream, compiled
[(0, 0, 22, 4), (21, 0, 5, 0), (4, 2, 1, 19)]
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from hearts import fast
from hearts.cards import AS_MASK, HEARTS, HEARTS_MASK, JD, KS_MASK, POINTS_MASK, QS, QS_MASK
from hearts.fast import inline, ints, jit
from hearts.mechanics import LegalConfig, MoonChoice, RoundResult, legal_mask, score_round
from hearts.round import Round
from hearts.rules import Rules

Policy = Callable[[int, list[int], int, Callable[[], float], bool], int]
"""A rollout policy: ``(legal_mask, trick_so_far, players, random, queen_gone) -> card id``."""
ShooterPolicy = Callable[[int, list[int]], int]
"""How a seat going for the moon plays: ``(legal_mask, trick_so_far) -> card id``."""
DefenderPolicy = Callable[[int, list[int], bool], int]
"""How a seat stops a moon: ``(legal_mask, trick_so_far, shooter_winning) -> card id``."""

RANDOM: Final = 0
"""The code of a seat that plays uniformly random legal cards."""
GREEDY: Final = 1
"""The code of a seat that plays the rollout's policy (the search's: the greedy policy)."""
SHOOTS: Final = 0
"""The moon policy's role of the seat going for the moon."""
GUARDS: Final = 1
"""The moon policy's role of a defender while the shooter wins the trick."""
DUMPS: Final = 2
"""The moon policy's role of a defender while another seat wins the trick."""

Ints = list[int]
"""A list of ints (card masks, cards, counts): an int64 array when compiled."""
SeatPolicy = Callable[[int, int, Ints, int, int, Any, bool], int]
"""``(seat, legal, trick, length, players, rng, queen_gone) -> card id`` (``trick[:length]``)."""
MoonPolicy = Callable[[int, Ints, int, int], int]
"""``(legal, trick, length, role) -> card id``, the role :data:`SHOOTS`, :data:`GUARDS` or :data:`DUMPS`."""


@dataclass(frozen=True, slots=True)
class Rollout:
    """How a rollout plays every seat (:func:`play_out`): ``policies``, one :data:`Policy` per
    seat, ``None`` (or no policies at all) for uniformly random play; from ``shoot_from`` points
    (0: never) a seat that has taken every point so far goes for the moon with ``shooter`` and
    the seats with a policy defend with ``defender`` (random seats go on at random).

    >>> Rollout(shoot_from=10)
    Traceback (most recent call last):
    ...
    ValueError: a rollout with shoot_from=10 needs a shooter and a defender policy
    """

    policies: tuple[Policy | None, ...] = ()
    shoot_from: int = 0
    shooter: ShooterPolicy | None = None
    defender: DefenderPolicy | None = None

    def __post_init__(self) -> None:
        if isinstance(self.shoot_from, bool) or not isinstance(self.shoot_from, int) or self.shoot_from < 0:
            raise ValueError(f"shoot_from is a whole number of points >= 0, not {self.shoot_from!r}")
        if self.shoot_from and (self.shooter is None or self.defender is None):
            raise ValueError(f"a rollout with shoot_from={self.shoot_from} needs a shooter and a defender policy")


UNIFORM: Final = Rollout()
"""Every seat plays at random."""


@inline
def nth_card(mask: int, k: int) -> int:
    """The card id of the ``k``-th lowest set bit of ``mask`` (``0 <= k < mask.bit_count()``).

    >>> nth_card(0b101100, 1)
    3
    """
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


@inline
def queen_gone(hands: Sequence[int], penalty: int = POINTS_MASK) -> bool:
    """Whether no hand holds the Q♠ any more (it was played, or is out of the deal), nor, when
    ``penalty`` (the penalty cards, R4.5) holds them, the K♠ and A♠: what the greedy policy's
    ``queen_gone`` is told (the high spades are no danger any more).

    >>> queen_gone([1 << QS, 0, 0, 0]), queen_gone([0, 0, 0, 0]), queen_gone([AS_MASK, 0, 0, 0])
    (False, True, True)
    >>> queen_gone([AS_MASK, 0, 0, 0], Rules(spade_penalties=True).penalty_mask)  # Black Maria's A♠ is out
    False
    """
    held = 0
    for h in hands:
        held |= h
    return not held & penalty & (QS_MASK | KS_MASK | AS_MASK)


@inline
def winner_offset(trick: Ints, length: int) -> int:
    """:func:`~hearts.mechanics.trick_winner_offset` of ``trick[:length]`` (R3.8).

    >>> winner_offset([4, 12, 9, 0], 3)  # the 5♣ leads, the 3♦ (9) does not follow
    1
    """
    best = trick[0]
    at = 0
    led = best & 3
    for i, c in enumerate(trick[:length]):
        if c > best and c & 3 == led:
            best = c
            at = i
    return at


@inline
def points_of(mask: int, penalty: int = POINTS_MASK) -> int:
    """:func:`~hearts.cards.mask_points`: the points of a mask of cards (R4.1), ``penalty`` the
    penalty cards (:attr:`LegalConfig.penalty <hearts.mechanics.LegalConfig.penalty>`: with the
    K♠ and A♠ under ``spade_penalties``, R4.5).

    >>> points_of(QS_MASK | 1 << HEARTS)  # the Q♠ and the 2♥
    14
    >>> points_of(QS_MASK | KS_MASK | AS_MASK), points_of(QS_MASK | KS_MASK | AS_MASK, Rules(players=3, spade_penalties=True).penalty_mask)
    (13, 30)
    """
    taken = mask & penalty
    return ((taken & HEARTS_MASK).bit_count() + (13 if taken & QS_MASK else 0) + (10 if taken & KS_MASK else 0)
            + (7 if taken & AS_MASK else 0))


@jit
def play_tricks(hands: Ints, leader: int, trick: Ints, length: int, broken: bool, first: bool, won: Ints,
                tricks_won: Ints, tricks_left: int, cfg: LegalConfig, rng: Any, codes: Ints, shoot_from: int,
                policy: SeatPolicy, moon: MoonPolicy) -> None:
    """Play ``tricks_left`` tricks from ``trick[:length]`` (led by ``leader``; room for a whole
    trick), updating ``hands``, ``won`` and ``tricks_won``. A seat of code :data:`RANDOM` takes
    the ``k``-th lowest legal card, ``k = int(rng.random() * count)`` (the engine driven by the
    same numbers); one of code :data:`GREEDY` plays ``policy``, or ``moon`` while a seat that
    took every point so far, at least ``shoot_from`` (0: never), goes for the moon."""
    n = len(hands)
    penalty = cfg.penalty
    holder = -1  # the seat holding every point won so far (with shoot_from): -1 nobody yet, -2 split
    for s in range(n):
        if shoot_from and won[s] & penalty:
            holder = s if holder == -1 else -2
    shooter = holder if shoot_from and holder >= 0 and points_of(won[holder], penalty) >= shoot_from else -1
    queen_breaks = cfg.queen_breaks
    led = trick[0] & 3 if length else -1
    seat = (leader + length) % n
    gone = queen_gone(hands, penalty)
    while tricks_left:
        while length < n:
            mask = legal_mask(hands[seat], led, first, broken, cfg)
            if codes[seat] == RANDOM:
                k = int(rng.random() * mask.bit_count())  # nth_card, inlined: the hot path
                while k:
                    mask &= mask - 1
                    k -= 1
                card = (mask & -mask).bit_length() - 1
            elif shooter < 0:
                card = policy(seat, mask, trick, length, n, rng, gone)
            elif seat == shooter:
                card = moon(mask, trick, length, SHOOTS)
            else:
                winning = length > 0 and (leader + winner_offset(trick, length)) % n == shooter
                card = moon(mask, trick, length, GUARDS if winning else DUMPS)
            hands[seat] ^= 1 << card
            if not length:
                led = card & 3
            trick[length] = card
            length += 1
            if card & 3 == HEARTS:
                broken = True
            elif card == QS:
                gone = queen_gone(hands, penalty)  # (under R4.5 the K♠ or A♠ may be out still)
                broken = broken or queen_breaks
            elif (KS_MASK | AS_MASK) >> card & 1:
                gone = queen_gone(hands, penalty)
            seat = seat + 1 if seat + 1 < n else 0
        leader = (leader + winner_offset(trick, length)) % n
        mask = 0
        for c in trick[:length]:
            mask |= 1 << c
        won[leader] |= mask
        tricks_won[leader] += 1
        if shoot_from and holder != -2 and mask & penalty:
            holder = leader if holder == -1 or holder == leader else -2
            shooter = holder if holder >= 0 and points_of(won[holder], penalty) >= shoot_from else -1
        length = 0
        led = -1
        first = False
        seat = leader
        tricks_left -= 1


@jit
def score_into(won: Ints, tricks_won: Ints, jack: int, no_tricks: int, penalty: int, moons: Sequence[int],
               out: Ints) -> None:
    """:func:`~hearts.mechanics.score_round` of a finished round into ``out``, a shooter adding
    the round's points to the others where it has the choice (R4.4): ``jack`` and ``no_tricks``
    are the bonuses (R4.2, R4.3), ``penalty`` the penalty cards (R4.1, R4.5), ``moons`` the
    scores of every moon (:func:`scoring`, which gives all three).

    >>> out = [0] * 4
    >>> score_into([QS_MASK, 0, 0, 0], [1, 1, 1, 1], *scoring(Rules(), (0, 0, 0, 0)), out)
    >>> out
    [13, 0, 0, 0]
    """
    n = len(won)
    shooter = -1
    holder = 0
    for s in range(n):
        if won[s] & penalty == penalty and shooter < 0:
            shooter = s
        if won[s] >> JD & 1:
            holder = s
    for s in range(n):
        if shooter >= 0:
            out[s] = moons[(shooter * n + holder) * n + s]
        else:
            out[s] = points_of(won[s], penalty) + (jack if won[s] >> JD & 1 else 0) + (no_tricks if tricks_won[s] == 0 else 0)


@lru_cache(maxsize=256)
def scoring(rules: Rules, scores_before: tuple[int, ...]) -> tuple[int, int, int, tuple[int, ...]]:
    """What :func:`score_into` needs for ``rules`` and the game totals ``scores_before``: the
    J♦ and no-tricks bonuses, the penalty cards, and the scores of every moon, ``[(shooter * n
    + holder) * n + seat]`` with ``holder`` the seat that won the J♦ (from
    :func:`~hearts.mechanics.score_round`).

    >>> jack, no_tricks, penalty, moons = scoring(Rules(), (0, 0, 0, 0))
    >>> jack, no_tricks, moons[:4]
    (0, 0, (0, 26, 26, 26))
    >>> scoring(Rules.preset("black_maria"), (0, 0, 0))[3][:3]  # a moon takes all 43 (R4.5)
    (0, 43, 43)
    """
    n = rules.players
    moons: list[int] = []
    for shooter in range(n):
        for holder in range(n):
            won = [0] * n
            won[shooter] = rules.penalty_mask
            won[holder] |= 1 << JD
            moons += score_round(won, [1] * n, rules, scores_before, "add").scores
    return rules.jack_of_diamonds, rules.no_tricks_bonus, rules.penalty_mask, tuple(moons)


@jit
def deal_and_pass(deck: Ints, hands: Ints, passed: Ints, pass_count: int, offset: int, rng: Any) -> None:
    """Shuffle ``deck`` (the cards' bits) as :func:`~hearts.round.deal_hands` does, deal it
    (R1.3) into ``hands``, and pass ``pass_count`` random cards to the seat ``offset`` on.

    >>> hands, passed = [0] * 4, [0] * 4
    >>> deal_and_pass([1 << c for c in range(52)], hands, passed, 3, 1, random.Random(1))
    >>> [h.bit_count() for h in hands], [p.bit_count() for p in passed]
    ([13, 13, 13, 13], [3, 3, 3, 3])
    """
    n = len(hands)
    rand = rng.random
    for i in range(len(deck) - 1, 0, -1):
        j = math.floor(rand() * (i + 1))  # int(), for a positive float, and faster
        deck[i], deck[j] = deck[j], deck[i]
    for s in range(n):
        hands[s] = sum(deck[s::n])
    if not offset:
        return
    for s in range(n):
        hand, out = hands[s], 0
        for _ in range(pass_count):
            bit = 1 << nth_card(hand, int(rand() * hand.bit_count()))
            hand ^= bit
            out |= bit
        passed[s] = out
    for s in range(n):
        hands[s] &= ~passed[s]
    for s in range(n):
        hands[(s + offset) % n] |= passed[s]


@lru_cache(maxsize=8)
def _bits(deck_mask: int) -> tuple[int, ...]:
    return tuple(1 << c for c in range(52) if deck_mask >> c & 1)


def random_round(rules: Rules, rng: random.Random | fast.Stream, round_number: int = 0) -> RoundResult:
    """Deal, pass uniformly random cards and play uniformly random legal cards to the end,
    drawing from ``rng`` (as Python: a :class:`random.Random` draws as the engine's deal does)."""
    n = rules.players
    hands, passed, trick, won, tricks_won = [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
    deal_and_pass(list(_bits(rules.deck_mask)), hands, passed, rules.pass_count, rules.pass_offset(round_number), rng)
    leader = first_leader(hands, 1 << rules.lowest_club)
    play_tricks(hands, leader, trick, 0, False, True, won, tricks_won, rules.hand_size, LegalConfig(rules), rng,
                [RANDOM] * n, 0, _no_policy, _no_moon)
    return score_round(won, tricks_won, rules, (0,) * n, "add")


@jit
def first_leader(hands: Ints, club: int) -> int:
    """The seat holding the lowest club (R3.1), which leads.

    >>> first_leader([0b10, 0b1, 0], 0b1)  # seat 1 holds the 2♣
    1
    """
    leader = 0
    while not hands[leader] & club:
        leader += 1
    return leader


@jit
def _no_policy(seat: int, legal: int, trick: Ints, length: int, players: int, rng: Any, gone: bool) -> int:
    """The policy of rollouts whose seats all play at random (never asked)."""
    return (legal & -legal).bit_length() - 1


@jit
def _no_moon(legal: int, trick: Ints, length: int, role: int) -> int:
    """The moon policy of rollouts without moons (never asked)."""
    return (legal & -legal).bit_length() - 1


@jit
def _random_rounds(deck: Ints, offsets: Ints, pass_count: int, hand_size: int, club: int, cfg: LegalConfig,
                   rng: Any, jack: int, no_tricks: int, moons: Ints, out: list[Ints]) -> None:
    """:func:`random_round` for each pass offset of ``offsets``, its scores in the rows of ``out``."""
    n = len(out[0])
    cards = ints(len(deck))
    hands, passed, trick, won, tricks_won, codes = ints(n), ints(n), ints(n), ints(n), ints(n), ints(n)  # RANDOM
    for r in range(len(offsets)):
        cards[:] = deck[:]
        deal_and_pass(cards, hands, passed, pass_count, offsets[r], rng)
        for s in range(n):
            won[s], tricks_won[s] = 0, 0
        play_tricks(hands, first_leader(hands, club), trick, 0, False, True, won, tricks_won, hand_size, cfg, rng, codes,
                    0, _no_policy, _no_moon)
        score_into(won, tricks_won, jack, no_tricks, cfg.penalty, moons, out[r])


def random_rounds(rules: Rules, rng: fast.Stream, rounds: int, first_round: int = 0) -> list[tuple[int, ...]]:
    """The scores of ``rounds`` calls of :func:`random_round` with the stream ``rng``, the round
    numbers counting from ``first_round``: the same scores, and ``rng`` left in the same state,
    in one call, compiled where :func:`hearts.fast.available` (else as Python)."""
    jack, no_tricks, _, moons = scoring(rules, (0,) * rules.players)
    out = [[0] * rules.players for _ in range(rounds)]
    offsets = [rules.pass_offset(first_round + i) for i in range(rounds)]
    args = (list(_bits(rules.deck_mask)), offsets, rules.pass_count, rules.hand_size, 1 << rules.lowest_club,
            LegalConfig(rules), rng, jack, no_tricks, list(moons), out)
    fast.call(fast.available() and rounds > 0, _random_rounds, *args)
    return [tuple(row) for row in out]


def play_out(hands: list[int], leader: int, trick: list[int], broken: bool, first: bool, won: list[int],
             tricks_won: list[int], tricks_left: int, cfg: LegalConfig, rng: random.Random | fast.Stream,
             rollout: Rollout = UNIFORM) -> None:
    """Play ``tricks_left`` tricks from ``trick`` (led by ``leader``) as ``rollout`` plays, updating
    ``hands``, ``won`` and ``tricks_won``: :func:`play_tricks` with the seats' Python policies."""
    n = len(hands)
    policies = rollout.policies or (None,) * n
    shooter, defender = rollout.shooter, rollout.defender

    def policy(seat: int, legal: int, t: Ints, length: int, players: int, r: Any, gone: bool) -> int:
        return policies[seat](legal, t[:length], players, r.random, gone)  # type: ignore[misc]  # not RANDOM

    def moon(legal: int, t: Ints, length: int, role: int) -> int:
        if role == SHOOTS:
            return shooter(legal, t[:length])  # type: ignore[misc]  # set with shoot_from
        return defender(legal, t[:length], role == GUARDS)  # type: ignore[misc]

    codes = [RANDOM if p is None else GREEDY for p in policies]
    play_tricks(hands, leader, [*trick, *[0] * (n - len(trick))], len(trick), broken, first, won, tricks_won,
                tricks_left, cfg, rng, codes, rollout.shoot_from, policy, moon)


def playout(state: Round, rng: random.Random, moon_choice: MoonChoice = "add",
            rollout: Rollout = UNIFORM) -> RoundResult:
    """Finish a copy of ``state`` (in its play phase) as ``rollout`` plays (default: uniformly
    random). ``state`` is not changed. Under ``shooter_chooses`` the shooter's choice is
    ``moon_choice``."""
    trick = state._plays[len(state._plays) - state._in_trick :]
    won = state._won[:]
    tricks_won = state._tricks_won[:]
    play_out(state._hands[:], state._leader, trick, state._broken, not state._winners, won, tricks_won,
             state.hand_size - len(state._winners), state._cfg, rng, rollout)
    return score_round(won, tricks_won, state.rules, state.scores_before, moon_choice)


@fast.on_prepare
def _warm() -> None:
    """Compile the random rounds (for :func:`hearts.fast.prepare`)."""
    random_rounds(Rules(), fast.Stream(0), 1)


__all__ = [
    "DUMPS", "GREEDY", "GUARDS", "RANDOM", "SHOOTS", "UNIFORM", "DefenderPolicy", "Policy", "Rollout",
    "ShooterPolicy", "deal_and_pass", "first_leader", "nth_card", "play_out", "play_tricks", "playout",
    "points_of", "queen_gone", "random_round", "random_rounds", "score_into", "scoring", "winner_offset",
]
