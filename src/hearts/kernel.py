"""The rollout kernel: whole rounds on bare int masks, for search bots and simulation.

It decides legality with the engine's own :func:`~hearts.mechanics.legal_mask` and scores with
:func:`~hearts.mechanics.score_round`, so it plays exactly the engine's rules; what it skips is
validation, events and objects. ``tests/test_kernel.py`` checks it against :class:`Round`.

>>> import random
>>> from hearts import Rules
>>> result = random_round(Rules(), random.Random(5))
>>> sum(result.points)
26
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from hearts.cards import HEARTS, HEARTS_MASK, POINTS_MASK, QS, QS_MASK, SUIT_MASKS, mask_points
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

_AS_KS = (1 << 51) | (1 << 47)
_LOW_SPADES = SUIT_MASKS[3] & ((1 << QS) - 1)


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
    """
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if rand() < 0.1:
        k = int(rand() * legal.bit_count())
        while k:
            legal &= legal - 1
            k -= 1
        return (legal & -legal).bit_length() - 1
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
        if not queen_gone and legal & _AS_KS:
            return (legal & _AS_KS).bit_length() - 1
        hearts = legal & HEARTS_MASK
        if hearts:
            return hearts.bit_length() - 1
        return legal.bit_length() - 1
    if not queen_gone and legal & _LOW_SPADES and not legal & (_AS_KS | QS_MASK):
        return (legal & _LOW_SPADES).bit_length() - 1
    pool = legal & ~SUIT_MASKS[3] if legal & QS_MASK and legal & ~SUIT_MASKS[3] else legal
    suits = [s for s in range(4) if pool & SUIT_MASKS[s]]
    mine = pool & SUIT_MASKS[suits[int(rand() * len(suits))]]
    return (mine & -mine).bit_length() - 1


def _winner(trick: list[int], leader: int, players: int) -> int:
    """The seat winning a trick in progress so far (-1 before the lead)."""
    return (leader + trick_winner_offset(trick)) % players if trick else -1


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


def playout(
    state: Round, rng: random.Random, moon_choice: MoonChoice = "add", policy: Policy | None = None
) -> RoundResult:
    """Finish a copy of ``state`` (in its play phase) with ``policy`` (default: uniformly random).

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
        policy,
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
    policy: Policy | None = None,
    policies: Sequence[Policy | None] | None = None,
    shoot_from: int = 0,
) -> None:
    """Play ``tricks_left`` tricks from a trick in progress; updates ``hands``, ``won`` and
    ``tricks_won`` in place. Without a ``policy`` every play is uniformly random; ``policies``
    (one per seat, ``None`` for uniformly random) overrides it seat by seat. With ``shoot_from``
    above 0, a seat that has taken every point so far, at least ``shoot_from``, plays
    :func:`shooter_card` instead — it goes for the moon — and the others :func:`defender_card`;
    seats that play at random go on playing at random (they neither shoot nor defend)."""
    n = len(hands)
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
    queen_gone = not any(h & QS_MASK for h in hands)
    while tricks_left:
        while len(trick) < n:
            mask = legal_mask(hands[seat], led, first, broken, cfg)
            if policies is not None:
                policy = policies[seat]
            if shooter >= 0 and policy is not None:
                if seat == shooter:
                    card = shooter_card(mask, trick)
                else:
                    card = defender_card(mask, trick, _winner(trick, leader, n) == shooter)
            elif policy is not None:
                card = policy(mask, trick, n, rand, queen_gone)
            else:
                k = int(rand() * mask.bit_count())
                while k:
                    mask &= mask - 1
                    k -= 1
                card = (mask & -mask).bit_length() - 1
            hands[seat] ^= 1 << card
            if not trick:
                led = card & 3
            trick.append(card)
            if card & 3 == HEARTS:
                broken = True
            elif card == QS:
                queen_gone = True
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
