"""Opponent modelling (``hearts.bots.opponents``): the greedy policy's play probabilities and
the odds that a seat plays at random. R3: plays are judged among the legal ones; R7: only the
view and hands sampled consistently with it are used."""

from __future__ import annotations

import random

from helpers import hold_number
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts import Phase, Round, Rules
from hearts.bots.opponents import careless_odds, greedy_probability
from hearts.bots.policies import greedy_policy
from hearts.bots.search import sample_hands
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
