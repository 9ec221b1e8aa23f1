"""The batched simulator against the engine (the rule book R1–R4): the same deals, passes and plays
give the same legal plays at every decision and the same round scores, over thousands of rounds
and many rule combinations."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hearts import Phase, Round, Rules
from hearts.cards import POINTS_MASK
from hearts.kernel import nth_card
from hearts.rl.vector import (
    RoundBatch,
    UnsupportedRules,
    deal,
    kth_bit,
    random_cards,
    random_passes,
    simulate,
)

NOT_POINTS = np.uint64(((1 << 64) - 1) ^ POINTS_MASK)


def cautious(legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random card avoiding points when it can (keeps hearts unbroken: R3.4–R3.7 corners)."""
    safe = legal & NOT_POINTS
    return random_cards(np.where(safe != 0, safe, legal), rng)


def run_both(rules: Rules, batch: int, seed: int, round_number: int, style: str) -> int:
    """Play ``batch`` rounds in the simulator, replay each in :class:`Round`; returns the number
    of rounds compared."""
    rng = np.random.default_rng(seed)
    hands = deal(rules, batch, rng)
    b = RoundBatch(rules, hands, round_number=round_number)
    passed = None
    if b.passing:
        passed = random_passes(hands, rules.pass_count, rng)
        b.pass_cards(passed)
    legals, plays, movers = [], [], []
    while not b.is_over:
        legal = b.legal().copy()
        cards = cautious(legal, rng) if style == "cautious" else random_cards(legal, rng)
        legals.append(legal)
        plays.append(cards.astype(np.int64))
        movers.append(b.to_move.copy())
        b.play(cards)
    scores = b.scores()
    points = b.points()
    for i in range(batch):
        r = Round(rules, [int(h) for h in hands[i]], round_number=round_number)
        if passed is not None:
            for seat in range(rules.players):
                r.pass_cards(seat, int(passed[i, seat]))
        assert r.phase is Phase.PLAYING
        for step, (legal, cards, mover) in enumerate(zip(legals, plays, movers, strict=True)):
            assert r.to_move == mover[i], (rules.describe(), i, step)
            assert r.legal_plays().mask == int(legal[i]), (rules.describe(), i, step)
            r.play(int(cards[i]))
        assert r.result is not None
        assert tuple(scores[i]) == r.result.scores, (rules.describe(), i)
        assert tuple(points[i]) == r.result.points, (rules.describe(), i)
    return batch


OPENSPIEL_FLAGS = list(itertools.product((False, True), repeat=7))


def test_standard_thousands_of_rounds() -> None:
    """R1–R4 with the standard preset over every pass direction: 2,400 rounds."""
    total = 0
    for round_number in range(4):
        total += run_both(Rules(), 400, 10 + round_number, round_number, "random")
        total += run_both(Rules(), 200, 20 + round_number, round_number, "cautious")
    assert total == 2400


def test_openspiel_option_set() -> None:
    """Every combination of OpenSpiel's rule flags (R3.1, R3.3–R3.7, R4.2, R4.3), 1,920 rounds."""
    for k, (pass_cards, nopts, anyclub, jd, avoid, qsbreak, mustbreak) in enumerate(OPENSPIEL_FLAGS):
        for instead in (False, True):
            rules = Rules(
                pass_count=3 if pass_cards else 0,
                points_on_first_trick=not nopts,
                first_lead="any_club" if anyclub else "lowest_club",
                jack_of_diamonds=-10 if jd else 0,
                no_tricks_bonus=-5 if avoid else 0,
                queen_breaks_hearts=qsbreak,
                must_break_hearts=mustbreak,
                lead_hearts_instead_of_queen=instead,
            )
            run_both(rules, 15, 1000 + 2 * k + instead, k % 4, "cautious" if k % 2 else "random")


@pytest.mark.parametrize("players", [3, 5, 6])
def test_other_table_sizes(players: int) -> None:
    """R1.1, R1.2, R2.2: 3, 5 and 6 players, every step of their pass rotation."""
    rules = Rules(players=players)
    for round_number in range(4):
        run_both(rules, 100, players * 10 + round_number, round_number, "random")
        run_both(rules, 50, players * 100 + round_number, round_number, "cautious")


@pytest.mark.parametrize(
    "options",
    [
        {"queen_lead": "after_break"},
        {"queen_lead": "after_break", "must_break_hearts": False},
        {"queen_lead": "after_break", "lead_hearts_instead_of_queen": True},
        {"moon": "subtract_from_self", "jack_of_diamonds": -10, "no_tricks_bonus": -5},
        {"pass_count": 1, "pass_cycle": ("right", "hold", 2)},
        {"players": 3, "removed_for_three": "two_of_clubs", "pass_cycle": ("right",), "spade_penalties": True},
        {"spade_penalties": True, "moon": "subtract_from_self"},
    ],
)
def test_other_options(options: dict[str, object]) -> None:
    """R3.6, R4.4, the pass options outside OpenSpiel's set, and Black Maria (R1.2's 2♣ out,
    R4.5's spades)."""
    rules = Rules(**options)  # type: ignore[arg-type]
    for round_number in range(3):
        run_both(rules, 120, 7 + round_number, round_number, "cautious")


def test_moons_are_scored() -> None:
    """R4.4: a deal where seat 0 holds every top card and plays its highest card shoots the moon."""
    top = sum(1 << c for c in (48, 49, 50, 51, 44, 45, 46, 47, 40, 41, 42, 43, 38))
    rest = [c for c in range(52) if not top >> c & 1]
    hands = np.array([[top, *(sum(1 << c for c in rest[s::3]) for s in range(3))]], dtype=np.uint64)
    for moon, expected in (("add_to_others", [0, 26, 26, 26]), ("subtract_from_self", [-26, 0, 0, 0])):
        b = RoundBatch(Rules(moon=moon, pass_count=0), hands)  # type: ignore[arg-type]
        while not b.is_over:
            legal = b.legal()
            high = np.array(
                [max(range(52), key=lambda c: (c >> 2, c) if int(legal[0]) >> c & 1 else (-1, 0))]
            )
            b.play(high if b.to_move[0] == 0 else random_cards(legal, np.random.default_rng(0)))
        assert b.scores()[0].tolist() == expected


def test_kth_bit_and_random_cards() -> None:
    rng = np.random.default_rng(3)
    masks = rng.integers(1, 1 << 52, 5000, dtype=np.uint64)
    counts = np.bitwise_count(masks)
    k = (rng.random(5000) * counts).astype(np.uint8)
    got = kth_bit(masks, k)
    for m, kk, g in zip(masks.tolist(), k.tolist(), got.tolist(), strict=True):
        bits = [i for i in range(52) if m >> i & 1]
        assert g == bits[kk] == nth_card(m, kk)  # the kernel's own k-th-bit rule
    # uniform: every card of a 4-card mask about equally often
    m4 = np.full(40_000, (1 << 3) | (1 << 17) | (1 << 33) | (1 << 51), dtype=np.uint64)
    seen = np.bincount(random_cards(m4, rng).astype(np.int64), minlength=52)[[3, 17, 33, 51]]
    assert (abs(seen - 10_000) < 500).all(), seen


def test_deal_is_uniform_and_valid() -> None:
    """R1.2, R1.3: whole decks, equal hands; each card lands at each seat about equally often."""
    for players in (3, 4, 5, 6):
        rules = Rules(players=players)
        hands = deal(rules, 4000, np.random.default_rng(players))
        assert (np.bitwise_count(hands) == rules.hand_size).all()
        assert (np.bitwise_or.reduce(hands, axis=1) == np.uint64(rules.deck_mask)).all()
    hands = deal(Rules(), 20_000, np.random.default_rng(9))
    has_qs = ((hands >> np.uint64(43)) & np.uint64(1)).astype(np.int64)
    assert (abs(has_qs.sum(axis=0) - 5000) < 300).all()


def test_illegal_plays_and_unsupported_rules() -> None:
    b = RoundBatch.deal(Rules(), 8, np.random.default_rng(1), round_number=3)
    legal = b.legal()
    wrong = np.array([(int(m) & -int(m)).bit_length() % 52 + 1 for m in legal])
    with pytest.raises(ValueError, match="illegal plays"):
        b.play(wrong)
    b.play(random_cards(legal, np.random.default_rng(2)))  # nothing changed: still playable
    with pytest.raises(UnsupportedRules, match="shooter_chooses"):
        simulate(Rules(moon="shooter_chooses"), 4)
    with pytest.raises(UnsupportedRules, match="add_unless_losing"):
        RoundBatch.deal(Rules(moon="add_unless_losing"), 4)


def test_simulate_with_policy() -> None:
    """A policy gets the batch and the legal masks; the always-lowest policy is deterministic."""

    def lowest(batch: RoundBatch, legal: np.ndarray) -> np.ndarray:
        return kth_bit(legal, np.zeros(len(legal), dtype=np.uint8))

    hands = deal(Rules(), 50, np.random.default_rng(4))
    a = simulate(Rules(), 50, 1, policy=lowest, hands=hands, round_number=3)
    b = simulate(Rules(), 50, 2, policy=lowest, hands=hands, round_number=3)
    assert (a == b).all() and (a.sum(axis=1) % 26 == 0).all()
