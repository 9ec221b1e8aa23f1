"""Opponent modelling (``hearts.bots.opponents``): the greedy policy's play probabilities and
the odds that a seat plays at random. R3: plays are judged among the legal ones; R7: only the
view and hands sampled consistently with it are used."""

from __future__ import annotations

import random

import pytest
from helpers import hold_number
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts import Card, CardSet, Phase, Round, Rules
from hearts.bots.heuristic import pass_danger
from hearts.bots.opponents import (
    careless_odds,
    greedy_probability,
    pass_likelihood,
    play_likelihood,
    weighted_index,
)
from hearts.bots.policies import greedy_policy
from hearts.bots.search import pass_candidates, sample_hands
from hearts.cards import QS_MASK, cards_of
from hearts.mechanics import LegalConfig
from hearts.round import deal_hands
from hearts.view import View

RULES = Rules()
HOLD = hold_number(RULES)


def greedy_card(r: Round, rng: random.Random) -> int:
    """The greedy policy's card without its exploration (the lead's suit drawn at random)."""
    trick = [int(c) for c in r.current_trick.cards]
    queen_gone = not any(r.hand(s).mask & QS_MASK for s in range(RULES.players))
    draws = iter((0.5, rng.random()))
    return greedy_policy(r.legal_plays().mask, trick, RULES.players, lambda: next(draws), queen_gone)


def round_with(kinds: str, seed: int, tricks: int) -> Round:
    """A hold round after ``tricks`` tricks in which seat ``s`` plays greedily (``g``) or
    uniformly at random (``r``) as ``kinds[s]`` says."""
    rng = random.Random(seed)
    r = Round(RULES, deal_hands(RULES, rng), round_number=HOLD)
    while r.tricks_played < tricks:
        assert r.to_move is not None
        legal = cards_of(r.legal_plays().mask)
        r.play(greedy_card(r, rng) if kinds[r.to_move] == "g" else rng.choice(legal))
    return r


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 12))
def test_greedy_probabilities_sum_to_one_over_the_legal_cards(seed: int, tricks: int) -> None:
    r = round_with("rrrr", seed, tricks)
    while r.phase is Phase.PLAYING and r.current_trick.cards and seed % 3:  # also mid-trick
        r.play(next(iter(r.legal_plays())))
        seed //= 3
    if r.phase is not Phase.PLAYING:
        return
    legal = r.legal_plays().mask
    trick = [int(c) for c in r.current_trick.cards]
    queen_gone = not any(r.hand(s).mask & QS_MASK for s in range(RULES.players))
    probs = [greedy_probability(c, legal, trick, RULES.players, queen_gone) for c in cards_of(legal)]
    assert abs(sum(probs) - 1) < 1e-9 and all(0 <= p <= 1 for p in probs)
    assert sum(p > 0 for p in probs) <= (4 if not trick else 1)  # a lead: lowest of a suit


def test_careless_odds_tell_random_players_from_careful_ones() -> None:
    """Seats 1 and 3 play greedily, seat 2 at random; seat 0 judges them after six tricks."""
    cfg = LegalConfig(RULES)
    odds = []
    for seed in range(20):
        view = View.of(round_with("ggrg", seed, 6), 0)
        rng = random.Random(seed)
        odds.append(careless_odds(view, [sample_hands(view, rng) for _ in range(16)], cfg))
    assert all(o[0] is None for o in odds)
    mean = [sum(o[s] or 0.0 for o in odds) / len(odds) for s in range(4)]
    assert mean[2] > 0.5 > 0.25 > 0.1 > max(mean[1], mean[3])  # from the prior 0.25


def test_careless_odds_start_from_the_prior() -> None:
    view = View.of(round_with("gggg", 1, 0), 0)
    assert careless_odds(view, [sample_hands(view, random.Random(1))], LegalConfig(RULES), prior=0.4) == [
        None, 0.4, 0.4, 0.4
    ]


# --- inference: how likely the others' plays and pass are in a sampled world ---------------


def test_play_likelihood_favours_worlds_where_the_others_played_carefully() -> None:
    """Seat 0 led the 9♣ and seat 1 followed with the 5♣. Had seat 1 held the 8♣ too, a careful
    player would have ducked with it (its highest club under the 9♣): a world giving it the
    3♣ instead explains the 5♣ better, by the greedy policy's share of the odds."""
    cfg = LegalConfig(RULES)
    parse = CardSet.parse
    plays, leaders = [int(Card.parse("9C")), int(Card.parse("5C"))], [0]
    mine = parse("2D 3D").mask
    low = [mine, parse("3C 4H").mask, parse("6D").mask, parse("7D").mask]
    high = [mine, parse("8C 4H").mask, parse("6D").mask, parse("7D").mask]
    # Seat 1 held 5♣ and 3♣ (or 8♣): two legal clubs either way. Seat 0 (the judge) is not judged.
    assert play_likelihood(low, plays, leaders, 0, cfg, 0.3) == pytest.approx(0.3 / 2 + 0.7)
    assert play_likelihood(high, plays, leaders, 0, cfg, 0.3) == pytest.approx(0.3 / 2)
    assert play_likelihood(low, plays, leaders, 1, cfg, 0.3) == 1.0  # seat 1 judging: seat 0 led alone


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 11))
def test_play_likelihood_of_greedy_players_is_at_least_their_greedy_share(seed: int, tricks: int) -> None:
    """In the true world of seats that play exactly the greedy policy's cards (``g``), every
    play of another seat counts at least ``1 - noise`` times the greedy policy's probability;
    seats at random (``r``) can make the world unlikely."""
    r = round_with("gggg", seed, tricks)
    view = View.of(r, 0)
    hands = [r.hand(s).mask for s in range(4)]
    plays = [int(c) for t in view.tricks for c in t.cards] + [int(c) for c in view.trick.cards]
    leaders = [t.leader for t in view.tricks] + [view.trick.leader]
    p = play_likelihood(hands, plays, leaders, 0, LegalConfig(RULES), 0.3)
    others = sum(1 for i in range(len(plays)) if (leaders[i // 4] + i % 4) % 4 != 0)
    assert p >= (0.7 * 0.25) ** others  # a lead of a random suit among four at worst
    assert 0 < p <= 1


def test_pass_likelihood_counts_the_cards_below_the_top() -> None:
    """A pass of cards among the giver's ``top`` most dangerous ones (the search's candidates,
    :func:`~hearts.bots.search.pass_candidates`) is fully likely; each card ranked lower costs
    a factor ``noise``."""
    rng = random.Random(5)
    for _ in range(30):
        hand = deal_hands(RULES, rng)[0]
        top = ranked(hand)[:6]
        for candidate in pass_candidates(hand, 3, 6):  # the subsets of the top six, and the heuristic's
            if all(c in top for c in cards_of(candidate)):
                assert pass_likelihood(hand, candidate, 3, 6, 0.3) == 1.0
        worst = sum(1 << c for c in ranked(hand)[-3:])  # the three safest cards
        assert pass_likelihood(hand, worst, 3, 6, 0.3) == pytest.approx(0.3**3)


def ranked(hand: int) -> list[int]:
    """The cards of ``hand``, most dangerous first, as the search ranks its pass candidates."""
    return sorted(cards_of(hand), key=lambda c: (pass_danger(c, hand, 0, 3), c), reverse=True)


def test_weighted_index_draws_in_proportion_to_the_weights() -> None:
    rng = random.Random(1)
    weights = [1.0, 0.0, 3.0, 0.5]
    counts = [0] * 4
    for _ in range(9000):
        counts[weighted_index(weights, rng.random())] += 1
    assert counts[1] == 0
    assert [round(c / 9000, 1) for c in counts] == [0.2, 0.0, 0.7, 0.1]
