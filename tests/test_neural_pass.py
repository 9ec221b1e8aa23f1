"""The pass of ``neural`` (issue 43): a shipped network (``pass-v1.nn``) chooses it where it was
trained (four players, the full deck, three cards), the heuristic pass elsewhere; always
``pass_count`` cards of the hand, the same from any seed, from the hand and the direction alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts import Rules
from hearts.bots import make_bot
from hearts.bots.heuristic import pass_mask
from hearts.bots.neural import NeuralBot
from hearts.bots.reader import (
    PASS_ENCODING,
    PASS_FEATURES,
    PASS_MODEL,
    Network,
    encode_network,
    pass_applies,
    pass_features,
    shipped,
)
from hearts.errors import HeartsError
from hearts.round import Round, deal_hands
from hearts.view import View


def pass_view(seed: int, round_number: int, seat: int, rules: Rules | None = None) -> View:
    """Seat ``seat``'s view of the pass of a fresh deal (round ``round_number``: its direction)."""
    rules = rules or Rules()
    return View.of(Round(rules, deal_hands(rules, seed), round_number=round_number), seat)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), number=st.integers(0, 2), seat=st.integers(0, 3))
def test_the_pass_is_three_cards_of_the_hand_in_every_direction(seed: int, number: int, seat: int) -> None:
    view = pass_view(seed, number, seat)
    assert pass_applies(view)
    cards = make_bot("neural", seed=seed).choose_pass(view)
    assert len(cards) == view.rules.pass_count == 3 and set(cards) <= set(view.hand)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([3, 5, 6]), count=st.integers(1, 4),
       number=st.integers(0, 5))
def test_other_tables_pass_as_the_heuristic_bot(seed: int, players: int, count: int, number: int) -> None:
    rules = Rules(players=players, pass_count=count)
    view = pass_view(seed, number, 0, rules)
    if not view.must_pass:
        return
    assert not pass_applies(view)
    cards = make_bot("neural", seed=seed).choose_pass(view)
    assert len(cards) == count and cards.mask == pass_mask(view.hand.mask, count)


def test_four_players_passing_other_counts_pass_as_the_heuristic_bot() -> None:
    view = pass_view(1, 0, 0, Rules(pass_count=2))
    assert not pass_applies(view) and make_bot("neural").choose_pass(view).mask == pass_mask(view.hand.mask, 2)


def test_the_pass_is_the_same_from_any_seed_with_numpy_or_plain_python() -> None:
    network = shipped(PASS_MODEL)
    for seed in range(6):
        view = pass_view(seed, seed % 3, seed % 4)
        passes = {make_bot("neural", seed=s).choose_pass(view) for s in range(3)}
        assert len(passes) == 1
        active, values = pass_features(view)
        pure, dense = network.pure(active, values), network(active, values)
        assert max(abs(a - b) for a, b in zip(pure, dense, strict=True)) < 1e-3
        assert passes == {NeuralBot(pass_network=network).choose_pass(view)}


def test_the_pass_reads_the_hand_and_the_direction_only() -> None:
    view = pass_view(4, 1, 2)
    active, values = pass_features(view)
    assert active == sorted([int(c) for c in view.hand] + [52 + 3 - 1]) and values == [1.0] * 14  # right: 3 seats on
    same_hand = [pass_features(pass_view(4, n, 2))[0] for n in range(3)]
    assert [a[-1] for a in same_hand] == [52, 54, 53]  # left, right, across
    assert shipped(PASS_MODEL).header["features"] == [PASS_ENCODING, PASS_FEATURES]


def test_neural_passes_with_the_network_it_is_given() -> None:
    """``pass_network``: a network (one preferring the lowest cards passes the three lowest),
    ``"heuristic"`` (the heuristic bot's pass), nothing else."""
    low = Network.from_bytes(encode_network({"name": "low"}, [[[0.0] * PASS_FEATURES] * 52], [[52.0 - c for c in range(52)]]))
    for seed in range(4):
        view = pass_view(seed, seed % 3, 1)
        assert list(NeuralBot(pass_network=low).choose_pass(view)) == sorted(view.hand)[:3]
        heuristic = NeuralBot(pass_network="heuristic").choose_pass(view)
        assert heuristic.mask == pass_mask(view.hand.mask, 3)
    with pytest.raises(HeartsError, match="pass_network must be"):
        NeuralBot(pass_network="search")  # type: ignore[arg-type]
    with pytest.raises(HeartsError, match="a seat to pass to"):
        pass_features(pass_view(1, 3, 0))  # a hold round
