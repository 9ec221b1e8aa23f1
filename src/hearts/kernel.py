"""The rollout kernel: whole rounds on bare int masks, for search bots and simulation.

It decides legality with the engine's own :func:`~hearts.mechanics.legal_mask` and scores with
:func:`~hearts.mechanics.score_round`, so it plays exactly the engine's rules; what it skips is
validation, events and objects. ``tests/test_properties.py`` checks it against :class:`Round`.

The kernel is only the loop. *How* each seat plays is a :class:`Rollout`: a policy per seat
(``None``: uniformly random), and the moon behaviour (a shooter's and its defenders' policies,
from ``shoot_from`` points). The strategies themselves live in :mod:`hearts.bots.policies`.

>>> import random
>>> from hearts import Rules
>>> result = random_round(Rules(), random.Random(5))
>>> sum(result.points)
26
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from hearts.cards import HEARTS, POINTS_MASK, QS, QS_MASK, mask_points
from hearts.mechanics import (
    LegalConfig,
    MoonChoice,
    RoundResult,
    legal_mask,
    score_round,
    trick_winner_offset,
)
from hearts.round import Round, deal_hands
from hearts.rules import Rules

Policy = Callable[[int, list[int], int, Callable[[], float], bool], int]
"""A rollout policy: ``(legal_mask, trick_so_far, players, random, queen_gone) -> card id``."""
ShooterPolicy = Callable[[int, list[int]], int]
"""How a seat going for the moon plays: ``(legal_mask, trick_so_far) -> card id``."""
DefenderPolicy = Callable[[int, list[int], bool], int]
"""How a seat stops a moon: ``(legal_mask, trick_so_far, shooter_winning) -> card id``."""


@dataclass(frozen=True, slots=True)
class Rollout:
    """How a rollout plays every seat: the setup :func:`play_out` is given.

    ``policies`` holds one :data:`Policy` per seat, ``None`` for a seat that plays uniformly at
    random; empty (the default) plays every seat at random. With ``shoot_from`` above 0, a seat
    that has taken every point so far, at least ``shoot_from``, goes for the moon with
    ``shooter`` and the seats with a policy defend with ``defender``; seats that play at random
    go on playing at random (they neither shoot nor defend).

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
"""Every seat plays uniformly random legal cards."""


def nth_card(mask: int, k: int) -> int:
    """The card id of the ``k``-th lowest set bit of ``mask`` (``0 <= k < mask.bit_count()``).

    >>> nth_card(0b101100, 1)
    3
    """
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def queen_gone(hands: Sequence[int]) -> bool:
    """Whether no hand holds the Q♠ any more (it was played, or is out of the deal): what the
    greedy policy's ``queen_gone`` is told.

    >>> queen_gone([1 << QS, 0, 0, 0]), queen_gone([0, 0, 0, 0])
    (False, True)
    """
    return not any(h & QS_MASK for h in hands)


def random_round(rules: Rules, rng: random.Random, round_number: int = 0) -> RoundResult:
    """Deal, pass uniformly random cards and play uniformly random legal cards to the end."""
    n = rules.players
    hands = deal_hands(rules, rng)
    offset = rules.pass_offset(round_number)
    if offset:
        rand = rng.random
        passed = []
        for s in range(n):
            hand, out = hands[s], 0
            for _ in range(rules.pass_count):
                bit = 1 << nth_card(hand, int(rand() * hand.bit_count()))
                hand ^= bit
                out |= bit
            passed.append(out)
        for s in range(n):
            hands[s] &= ~passed[s]
        for s in range(n):
            hands[(s + offset) % n] |= passed[s]
    club = 1 << rules.lowest_club
    leader = next(s for s in range(n) if hands[s] & club)
    won = [0] * n
    tricks_won = [0] * n
    play_out(hands, leader, [], False, True, won, tricks_won, rules.hand_size, LegalConfig(rules), rng)
    return score_round(won, tricks_won, rules, (0,) * n, "add")


def playout(
    state: Round, rng: random.Random, moon_choice: MoonChoice = "add", rollout: Rollout = UNIFORM
) -> RoundResult:
    """Finish a copy of ``state`` (in its play phase) as ``rollout`` plays (default: uniformly
    random). ``state`` is not changed. Under ``shooter_chooses`` the shooter's choice is
    ``moon_choice``."""
    trick = state._plays[len(state._plays) - state._in_trick :]
    won = state._won[:]
    tricks_won = state._tricks_won[:]
    play_out(
        state._hands[:],
        state._leader,
        trick,
        state._broken,
        not state._winners,
        won,
        tricks_won,
        state.hand_size - len(state._winners),
        state._cfg,
        rng,
        rollout,
    )
    return score_round(won, tricks_won, state.rules, state.scores_before, moon_choice)


def play_out(
    hands: list[int],
    leader: int,
    trick: list[int],
    broken: bool,
    first: bool,
    won: list[int],
    tricks_won: list[int],
    tricks_left: int,
    cfg: LegalConfig,
    rng: random.Random,
    rollout: Rollout = UNIFORM,
) -> None:
    """Play ``tricks_left`` tricks from a trick in progress (``trick``, led by ``leader``) as
    ``rollout`` plays; updates ``hands``, ``won`` and ``tricks_won`` in place.

    A uniformly random play takes the ``k``-th lowest legal card, ``k = int(rng.random() *
    count)``, so a rollout is the engine driven by the same random numbers."""
    n = len(hands)
    policies = rollout.policies or (None,) * n
    shoot_from = rollout.shoot_from
    shooter_card = rollout.shooter
    defender_card = rollout.defender
    # The seat holding every point so far: -1 nobody has points yet, -2 they are split.
    holder = -1
    if shoot_from:
        for s in range(n):
            if won[s] & POINTS_MASK:
                holder = s if holder == -1 else -2
    shooter = holder if shoot_from and holder >= 0 and mask_points(won[holder]) >= shoot_from else -1
    rand = rng.random
    queen_breaks = cfg.queen_breaks
    led = trick[0] & 3 if trick else -1
    seat = (leader + len(trick)) % n
    gone = queen_gone(hands)
    while tricks_left:
        while len(trick) < n:
            mask = legal_mask(hands[seat], led, first, broken, cfg)
            policy = policies[seat]
            if policy is None:
                k = int(rand() * mask.bit_count())  # nth_card, inlined: the hot path
                while k:
                    mask &= mask - 1
                    k -= 1
                card = (mask & -mask).bit_length() - 1
            elif shooter < 0:
                card = policy(mask, trick, n, rand, gone)
            elif seat == shooter:
                card = shooter_card(mask, trick)  # type: ignore[misc]  # set with shoot_from
            else:
                winning = (leader + trick_winner_offset(trick)) % n == shooter if trick else False
                card = defender_card(mask, trick, winning)  # type: ignore[misc]
            hands[seat] ^= 1 << card
            if not trick:
                led = card & 3
            trick.append(card)
            if card & 3 == HEARTS:
                broken = True
            elif card == QS:
                gone = True
                broken = broken or queen_breaks
            seat = seat + 1 if seat + 1 < n else 0
        leader = (leader + trick_winner_offset(trick)) % n
        mask = 0
        for c in trick:
            mask |= 1 << c
        won[leader] |= mask
        tricks_won[leader] += 1
        if shoot_from and holder != -2 and mask & POINTS_MASK:
            holder = leader if holder in (-1, leader) else -2
            shooter = holder if holder >= 0 and mask_points(won[holder]) >= shoot_from else -1
        trick = []
        led = -1
        first = False
        seat = leader
        tricks_left -= 1


__all__ = [
    "UNIFORM",
    "DefenderPolicy",
    "Policy",
    "Rollout",
    "ShooterPolicy",
    "nth_card",
    "play_out",
    "playout",
    "queen_gone",
    "random_round",
]
