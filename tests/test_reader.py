"""The bots that read the table (issue 43): the card-location model sees only a seat's view (R7),
the worlds sampled from it respect every hard fact, the shipped weights load without PyTorch
(and without numpy), and the reading search and the learned policy decide the same from a seed."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearts import Rules
from hearts.actions import Pass
from hearts.bots import SearchBot, make_bot
from hearts.bots.heuristic import HeuristicBot
from hearts.bots.reader import (
    CARDS_MODEL,
    FEATURES,
    Network,
    applies,
    card_odds,
    encode_network,
    features,
    holders,
    need_of,
    shipped,
)
from hearts.bots.search import HiddenDeal
from hearts.errors import HeartsError
from hearts.fast import Stream
from hearts.round import Round, deal_hands
from hearts.view import View


def played_round(seed: int, steps: int, round_number: int = 0) -> Round:
    """A round of heuristic bots, ``steps`` plays into its play phase (its passes made)."""
    rules = Rules()
    r = Round(rules, deal_hands(rules, seed), round_number=round_number)
    bots = [HeuristicBot(seed=seed + s) for s in range(4)]
    for seat in r.seats_to_pass():
        r.apply(bots[seat].act(View.of(r, seat)))
    for _ in range(steps):
        if r.is_over or r.to_move is None:
            break
        r.apply(bots[r.to_move].act(View.of(r, r.to_move)))
    return r


def mover_view(r: Round) -> View:
    assert r.to_move is not None
    return View.of(r, r.to_move)


# --- R7: only the seat's view -------------------------------------------------------------------


def other_deal_same_view(r: Round, seed: int) -> Round | None:
    """The plays of ``r`` (a hold round) replayed on another deal: the mover's hand the same, the
    other seats' hidden cards drawn again among the deals its view allows (:class:`HiddenDeal`);
    ``None`` when no such deal in 20 draws differs and lets every play be made (R3.3, R3.4)."""
    view = mover_view(r)
    me = view.seat
    for attempt in range(20):
        hidden = HiddenDeal.of(view).sample(Stream(seed + attempt))
        if all(hidden[s] == r.hand(s).mask for s in range(4)):
            continue
        dealt = [hidden[s] | sum(1 << c for t in (*r.tricks, r.current_trick) for i, c in enumerate(t.cards)
                                 if (t.leader + i) % 4 == s) for s in range(4)]
        dealt[me] = r.dealt[me].mask
        other = Round(r.rules, dealt, round_number=r.round_number)
        try:
            for card in r.plays:
                other.play(card)
        except HeartsError:  # a lead or a discard the other deal does not allow: draw again
            continue
        return other
    return None


def same_views(seeds: range, steps: Callable[[int], int]) -> Iterator[tuple[View, View]]:
    """For each seed whose hold round (``steps(seed)`` plays in) has another deal the mover
    cannot tell from it (:func:`other_deal_same_view`): the mover's view of the round, and its
    view of the other deal."""
    for seed in seeds:
        r = played_round(seed, steps(seed), round_number=3)
        other = other_deal_same_view(r, seed)
        if other is not None:
            assert any(other.hand(s) != r.hand(s) for s in range(4))
            yield mover_view(r), View.of(other, mover_view(r).seat)


def test_the_model_reads_only_the_seats_view() -> None:
    """R7: the same plays from a deal whose hidden cards are elsewhere (a hold round, so that no
    pass tells) give the seat the same view, the same features and the same predictions, though
    the other hands differ."""
    checked = 0
    for view, other in same_views(range(12), lambda seed: 4 + 3 * seed):
        assert other == view
        assert features(other) == features(view)
        assert holders(other) == holders(view)
        checked += 1
    assert checked >= 8


def test_the_probabilities_respect_the_hard_facts() -> None:
    """A hidden card's probabilities sum to 1 over the seats that may hold it: never a seat void
    in its suit (R3.2), never this seat; a card this seat passed is its receiver's (R2)."""
    for seed in range(6):
        r = played_round(seed, 17 + seed)
        view = mover_view(r)
        p = holders(view)
        hidden = view.unseen.mask & ~view.known_elsewhere.mask
        for c in range(52):
            if hidden >> c & 1:
                assert abs(sum(p[c]) - 1) < 1e-9 and p[c][view.seat] == 0
                assert all(p[c][s] == 0 for s in range(4) if c & 3 in view.voids[s])
        for c in view.known_elsewhere:
            assert view.pass_to is not None and p[c][view.pass_to] == 1


# --- the sampled worlds ---------------------------------------------------------------------------


def check_world(view: View, hands: list[int]) -> None:
    """Every hard fact of ``view`` holds in the sampled ``hands`` (R7)."""
    me = view.seat
    assert hands[me] == view.hand.mask
    assert [h.bit_count() for h in hands] == list(view.hand_sizes)
    everything = 0
    for s, h in enumerate(hands):
        assert everything & h == 0  # a card in one hand only
        everything |= h
        for suit in view.voids[s]:  # R3.2: a seat that showed a void holds none of the suit
            assert not any(h >> c & 1 for c in range(suit, 52, 4))
    assert everything & view.played.mask == 0
    assert everything == view.hand.mask | view.unseen.mask | view.known_elsewhere.mask
    if view.pass_to is not None:  # R2: the cards this seat passed, unplayed, are its receiver's
        assert hands[view.pass_to] & view.known_elsewhere.mask == view.known_elsewhere.mask


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 51), round_number=st.integers(0, 3))
def test_worlds_sampled_from_the_model_respect_every_hard_fact(seed: int, steps: int, round_number: int) -> None:
    r = played_round(seed, steps, round_number)
    if r.to_move is None:
        return
    view = mover_view(r)
    deal = HiddenDeal.of(view).reading(card_odds(view))
    stream = Stream(seed)
    for _ in range(10):
        check_world(view, deal.sample(stream))


def test_the_odds_never_rule_out_what_the_facts_allow() -> None:
    """The odds are positive exactly where a seat may hold a card (the model only weighs them)."""
    view = mover_view(played_round(4, 23))
    odds, need = card_odds(view), need_of(view)
    for c in range(52):
        for s in range(4):
            allowed = s != view.seat and need[s] > 0 and c & 3 not in view.voids[s]
            assert (odds[4 * c + s] > 0) == allowed


def test_the_reading_sampler_follows_the_model() -> None:
    """Over many draws, the reading sampler gives a card more often to the seat the model favours
    than the uniform sampler does (the odds are used, in the right seats)."""
    view = mover_view(played_round(11, 25))
    p = holders(view)
    c, s = max(((c, s) for c in range(52) for s in range(4) if 0 < p[c][s] < 1), key=lambda cs: p[cs[0]][cs[1]])
    plain, reading = HiddenDeal.of(view), HiddenDeal.of(view).reading(card_odds(view))
    stream = Stream(5)
    uniform = sum(plain.sample(stream)[s] >> c & 1 for _ in range(400))
    read = sum(reading.sample(stream)[s] >> c & 1 for _ in range(400))
    assert read > uniform


def test_the_reading_sampler_is_measured_with_the_network_given() -> None:
    """``hearts.rl.reading.sampler_probabilities`` draws from the network it is given (a model
    just trained, not yet shipped), the shipped one by default."""
    reading = pytest.importorskip("hearts.rl.reading")
    rounds = [played_round(3, 52)]  # the whole round
    assert rounds[0].is_over
    shipped_odds = reading.sampler_probabilities(rounds, 30, 5, every=7, odds=True)
    again = reading.sampler_probabilities(rounds, 30, 5, every=7, odds=True, network=shipped(CARDS_MODEL))
    flat = Network.from_bytes(encode_network({"name": "flat"}, [[[0.0] * FEATURES] * 156], [[0.0] * 156]))
    other = reading.sampler_probabilities(rounds, 30, 5, every=7, odds=True, network=flat)
    assert shipped_odds.shape == other.shape and (shipped_odds == again).all() and (shipped_odds != other).any()


# --- the weights -----------------------------------------------------------------------------------


@pytest.mark.parametrize("blocked", [("torch",), ("torch", "numpy")])
def test_the_weights_load_without_pytorch(blocked: tuple[str, ...]) -> None:
    """In a process where importing PyTorch (and numpy) fails, the shipped networks load from the
    package and predict (numpy's forward pass, or plain Python's), as in this one; ``neural``
    passes with its pass network there."""
    view = mover_view(played_round(7, 21))
    expected = [round(x, 3) for x in shipped(CARDS_MODEL)(*features(view))[:20]]
    code = textwrap.dedent(f"""
        import sys
        for name in {blocked!r}:
            sys.modules[name] = None  # import fails
        from hearts import Rules
        from hearts.bots.reader import shipped, features, holders, CARDS_MODEL, POLICY_MODEL
        from hearts.bots import make_bot
        from hearts.round import Round, deal_hands
        from hearts.view import View
        sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r})
        from test_reader import played_round, mover_view
        view = mover_view(played_round(7, 21))
        shipped(POLICY_MODEL)(*features(view))
        assert len(make_bot("neural").choose_pass(View.of(Round(Rules(), deal_hands(Rules(), 3)), 0))) == 3
        print([round(x, 3) for x in shipped(CARDS_MODEL)(*features(view))[:20]])
        print(sorted(m for m in sys.modules if m.split('.')[0] in {blocked!r} and sys.modules[m]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[1] == "[]"
    got = eval(out[0])
    assert all(abs(a - b) <= 2e-3 for a, b in zip(got, expected, strict=True)), (got, expected)


def test_plain_python_and_numpy_agree() -> None:
    pytest.importorskip("numpy")
    network = shipped(CARDS_MODEL)
    for seed in range(3):
        active, values = features(mover_view(played_round(seed, 9 + 13 * seed)))
        a, b = network.pure(active, values), network(active, values)
        assert len(a) == len(b) == 156 and max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-3


def test_a_weights_file_round_trips_and_bad_ones_are_refused() -> None:
    network = Network.from_bytes(encode_network({"name": "t"}, [[[0.5, -1.0], [2.0, 0.25]]], [[0.0, 1.0]]))
    assert network.layers == ((2, 2),) and network.pure([0, 1], [1.0, 2.0]) == [-1.5, 3.5]
    assert Network.from_bytes(network.to_bytes()) == network
    blob = network.to_bytes()
    for bad, why in ((b"nonsense", "not a pyhearts weights file"), (blob[:-2], "not the size its header says"),
                     (blob[:14] + b"x" + blob[15:], "a bad header")):
        with pytest.raises(HeartsError, match=why):
            Network.from_bytes(bad)
    assert shipped(CARDS_MODEL).header["features"] == ["reader-v1", FEATURES]


def test_the_model_reads_four_player_play_only() -> None:
    r = Round(Rules(players=5), deal_hands(Rules(players=5), 1), round_number=3)
    assert not applies(View.of(r, 0))
    with pytest.raises(HeartsError, match="four-player views of play"):
        holders(View.of(r, 0))
    assert not applies(View.of(Round(Rules(), deal_hands(Rules(), 1)), 0))  # the pass


# --- decisions -------------------------------------------------------------------------------------


def test_the_reading_search_decides_the_same_from_a_seed_compiled_or_not() -> None:
    views = [mover_view(played_round(seed, 5 + 7 * seed)) for seed in range(4)]
    for view in views:
        picks = {SearchBot(seed=9, iterations=120, read=True, fast=f).choose_play(view) for f in (True, False, True)}
        assert len(picks) == 1 and picks <= set(view.legal)
    tree = [SearchBot(seed=9, iterations=120, read=True, tree=True).choose_play(v) for v in views]
    assert tree == [SearchBot(seed=9, iterations=120, read=True, tree=True).choose_play(v) for v in views]


def test_reading_changes_the_samples() -> None:
    """``read=1`` samples otherwise than ``read=0`` on the same seed (the odds reach the kernel)."""
    view = mover_view(played_round(2, 22))
    a = SearchBot(seed=1, read=True).play_scores(view, samples=30)[1]
    b = SearchBot(seed=1).play_scores(view, samples=30)[1]
    assert a != b


def test_neural_plays_legal_cards_the_same_way_every_time() -> None:
    for seed in range(4):
        r = played_round(seed, 3 + 11 * seed)
        view = mover_view(r)
        cards = {make_bot("neural", seed=s).choose_play(view) for s in range(3)}
        assert len(cards) == 1 and cards <= set(view.legal)
    r = Round(Rules(), deal_hands(Rules(), 3))
    action = make_bot("neural").act(View.of(r, 0))
    assert isinstance(action, Pass) and len(action.cards) == 3


def test_neural_plays_the_network_it_is_given() -> None:
    """``NeuralBot(network=...)`` (a policy being trained) plays that network: the shipped one
    decides as the default bot does, another as itself, the same way every time; what is not
    a network is refused."""
    from hearts.bots.neural import NeuralBot
    from hearts.bots.reader import POLICY_MODEL

    views = [mover_view(played_round(seed, 5 + 9 * seed)) for seed in range(4)]
    default = [make_bot("neural").choose_play(v) for v in views]
    assert [NeuralBot(network=shipped(POLICY_MODEL)).choose_play(v) for v in views] == default
    # a network that prefers the lowest card: its logit is the highest whatever the view
    low = Network.from_bytes(encode_network({"name": "low"}, [[[0.0] * FEATURES] * 52], [[52.0 - c for c in range(52)]]))
    picks = [NeuralBot(seed=s, network=low).choose_play(v) for s in range(2) for v in views]
    assert picks == [min(v.legal) for _ in range(2) for v in views]
    with pytest.raises(HeartsError, match="network must be"):
        NeuralBot(network="policy.nn")  # type: ignore[arg-type]


def test_dagger_data_label_the_learners_decisions_with_the_experts_cards(tmp_path: Path) -> None:
    """``generate(..., expert=, labelled=)`` records, for each play, the expert's card at the
    labelled seats' decisions with a choice (-1 elsewhere), the same from the same seed; the
    arrays then hold those decisions only, the expert's card as the action."""
    reading = pytest.importorskip("hearts.rl.reading")
    np = pytest.importorskip("numpy")
    specs = ("neural", "heuristic", "heuristic", "heuristic")
    expert = "search:iterations=30"
    paths = [tmp_path / f"{name}.jsonl.gz" for name in "ab"]
    for path in paths:
        header = reading.generate(path, specs, rounds=2, seed=7, expert=expert, labelled=[0])
    assert header["expert"] == expert and header["labelled"] == [0]
    labels = reading.expert_labels(paths[0])
    assert labels == reading.expert_labels(paths[1])
    _, rounds = reading.read(paths[0])
    for round_labels, r in zip(labels, rounds, strict=True):
        decisions = [(view.seat, len(view.legal)) for view, _, _ in reading.positions(r)]
        assert len(round_labels) == len(decisions) == 52
        for card, (seat, choices) in zip(round_labels, decisions, strict=True):
            assert (card >= 0) == (seat == 0 and choices > 1)
    data = reading.arrays(rounds, labels=labels)
    assert data["mover"].all() and list(data["action"]) == [c for cards in labels for c in cards if c >= 0]
    assert data["legal"][np.arange(len(data["action"])), data["action"]].all()
    with pytest.raises(HeartsError, match="no expert"):
        reading.generate(paths[0], specs, rounds=1, seed=7)
        reading.expert_labels(paths[0])


def test_a_bad_read_option_is_refused() -> None:
    with pytest.raises(HeartsError, match="read must be 1"):
        make_bot("search:read=2")
