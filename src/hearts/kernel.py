"""The rollout kernel: whole rounds on bare int masks, for search bots and simulation.

It decides legality with the engine's own :func:`~hearts.round.legal_mask` and scores with
:func:`~hearts.round.score_round`, so it plays exactly the engine's rules; what it skips is
validation, events and objects. ``tests/test_kernel.py`` checks it against :class:`Round`.

>>> import random
>>> from hearts import Rules
>>> result = random_round(Rules(), random.Random(5))
>>> sum(result.points)
26
"""

from __future__ import annotations

import random

from hearts.round import (
    HEARTS,
    QS,
    LegalConfig,
    MoonChoice,
    Round,
    RoundResult,
    deal_hands,
    legal_mask,
    score_round,
    trick_winner_offset,
)
from hearts.rules import Rules


def random_card(mask: int, rand: random.Random) -> int:
    """A uniformly random card id of a non-empty mask (the k-th lowest set bit)."""
    k = int(rand.random() * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def random_round(rules: Rules, rng: random.Random, round_number: int = 0) -> RoundResult:
    """Deal, pass uniformly random cards and play uniformly random legal cards to the end."""
    n = rules.players
    hands = deal_hands(rules, rng)
    offset = rules.pass_offset(round_number)
    if offset:
        passed = []
        for s in range(n):
            hand, out = hands[s], 0
            for _ in range(rules.pass_count):
                bit = 1 << random_card(hand, rng)
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


def playout(state: Round, rng: random.Random, moon_choice: MoonChoice = "add") -> RoundResult:
    """Finish a copy of ``state`` (in its play phase) with uniformly random legal plays.

    ``state`` is not changed. Under ``shooter_chooses`` the shooter's choice is ``moon_choice``.
    """
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
) -> None:
    """Play ``tricks_left`` tricks at random from a trick in progress; updates ``hands``,
    ``won`` and ``tricks_won`` in place."""
    n = len(hands)
    rand = rng.random
    queen_breaks = cfg.queen_breaks
    led = trick[0] & 3 if trick else -1
    seat = (leader + len(trick)) % n
    while tricks_left:
        while len(trick) < n:
            mask = legal_mask(hands[seat], led, first, broken, cfg)
            k = int(rand() * mask.bit_count())
            while k:
                mask &= mask - 1
                k -= 1
            card = (mask & -mask).bit_length() - 1
            hands[seat] ^= 1 << card
            if not trick:
                led = card & 3
            trick.append(card)
            if card & 3 == HEARTS or (card == QS and queen_breaks):
                broken = True
            seat = seat + 1 if seat + 1 < n else 0
        leader = (leader + trick_winner_offset(trick)) % n
        mask = 0
        for c in trick:
            mask |= 1 << c
        won[leader] |= mask
        tricks_won[leader] += 1
        trick = []
        led = -1
        first = False
        seat = leader
        tricks_left -= 1
