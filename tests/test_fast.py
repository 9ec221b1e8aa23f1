"""The kernel's functions compiled (``hearts.fast.run``) against the same functions run as
Python (and the Python policies of ``hearts.kernel.Rollout``): for the same seed of the kernel's
generator (``hearts.fast.Stream``), the same numbers and shuffles, the same rollouts (every table
size, rule option, moon behaviour and policy mix), the same rounds, the same samples and the same
search decisions, and the stream left in the same state. Without numba (or told so) the search
bot runs them as Python, and decides the same.

The compiled functions are compiled once and cached on disk by numba; a first run with an
empty cache spends some ten seconds compiling (``test_first_use_loads_the_twin`` times it)."""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_properties as props
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts import Game, Rules
from hearts.bots import make_bot
from hearts.bots.heuristic import pass_mask
from hearts.bots.policies import (
    AS_KS_MASK,
    COMPILED,
    defender_card,
    greedy_policy,
    play_rollout,
    shooter_card,
)
from hearts.bots.search import HiddenDeal, SearchBot, pass_candidates, sample_deal
from hearts.cards import HEARTS_MASK, QS_MASK
from hearts.kernel import GREEDY, RANDOM, Rollout, play_out, random_round, random_rounds, score_into, scoring
from hearts.mechanics import LegalConfig, legal_mask
from hearts.round import deal_hands
from hearts.view import View

numba = pytest.importorskip("numba")
fast = pytest.importorskip("hearts.fast")
compiled = pytest.importorskip("hearts.fast.compiled")

MOONS = ("add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing")


def any_rules(rng: random.Random) -> Rules:
    """Random rule options of the rule book (as ``test_properties.any_rules`` draws them)."""
    players = rng.randint(3, 6)
    hand_size = Rules(players=players).hand_size
    return Rules(
        players=players,
        pass_count=rng.randint(0, min(4, hand_size - 1)),
        first_lead=rng.choice(["lowest_club", "any_club"]),
        points_on_first_trick=rng.random() < 0.5,
        must_break_hearts=rng.random() < 0.5,
        queen_breaks_hearts=rng.random() < 0.5,
        queen_lead=rng.choice(["anytime", "after_break"]),
        lead_hearts_instead_of_queen=rng.random() < 0.5,
        jack_of_diamonds=rng.choice([0, -10, 7]),
        no_tricks_bonus=rng.choice([0, -5, 3]),
        moon=rng.choice(MOONS),
        target=rng.randint(1, 150),
    )


def position(rules: Rules, rng: random.Random) -> tuple[list[int], int, list[int], bool, bool, list[int], list[int], int]:
    """A random position of the play phase: (hands, leader, trick, broken, first, won,
    tricks_won, tricks_left), after some whole tricks and some cards of the next."""
    n = rules.players
    cfg = LegalConfig(rules)
    hands = deal_hands(rules, rng)
    leader = next(s for s in range(n) if hands[s] >> rules.lowest_club & 1)
    won, tricks_won = [0] * n, [0] * n
    done = rng.randint(0, rules.hand_size - 1)
    play_out(hands, leader, [], False, True, won, tricks_won, done, cfg, rng)
    if done:
        leader = max(range(n), key=lambda s: (tricks_won[s] > 0, rng.random()))  # some winner leads
    broken = any(w & (HEARTS_MASK | (QS_MASK if rules.queen_breaks_hearts else 0)) for w in won)
    trick: list[int] = []
    for i in range(rng.randint(0, n - 1)):
        seat = (leader + i) % n
        legal = legal_mask(hands[seat], trick[0] & 3 if trick else -1, done == 0, broken, cfg)
        card = rng.choice([c for c in range(52) if legal >> c & 1])
        hands[seat] ^= 1 << card
        trick.append(card)
        broken = broken or card & 3 == 2 or (card == 43 and rules.queen_breaks_hearts)
    return hands, leader, trick, broken, done == 0, won, tricks_won, rules.hand_size - done


def test_the_rollout_codes_are_the_policies() -> None:
    """The search's rollouts play by code (:func:`~hearts.bots.policies.play_rollout`): a random
    seat, and the greedy policy's."""
    assert {None: RANDOM, greedy_policy: GREEDY} == COMPILED


def test_first_use_loads_the_twin() -> None:
    """With numba installed the compiled kernel is used; loading it (compiling it when numba's
    cache is empty) takes seconds, not minutes."""
    start = time.perf_counter()
    assert fast.available()
    assert time.perf_counter() - start < 60


def _shuffle_and_draw(rng: Any, cards: Any, draws: Any) -> None:
    """Shuffle ``cards``, then fill ``draws`` with ``rng.random()`` (compiled by the test itself,
    not marked ``hearts.fast.jit``: the kernel's cache stamp stays the one of the kernel)."""
    rng.shuffle(cards)
    for i in range(len(draws)):
        draws[i] = rng.random()


def _fresh_draw(seed: float) -> float:
    """The first number of :func:`hearts.fast.fresh` of ``seed``."""
    return float(fast.fresh(seed, fast.stream_buffer()).random())


_COMPILED_STREAM = (numba.njit(_shuffle_and_draw), numba.njit(_fresh_draw))


@given(seed=st.integers(0, 2**63 - 1), size=st.integers(0, 52), count=st.integers(1, 8))
@settings(max_examples=300, deadline=None)
def test_streams_draw_alike_compiled_and_as_python(seed: int, size: int, count: int) -> None:
    """The kernel's generator (:class:`hearts.fast.Stream`) seeded alike, compiled and as
    Python: the same shuffle, the same doubles after it, the same state after them, and the
    same stream from :func:`hearts.fast.fresh` of a value of ``random()``."""
    import numpy as np

    pure = fast.Stream(seed)
    cards = list(range(size))
    pure.shuffle(cards)
    expected = [pure.random() for _ in range(count)]
    state, twin_cards, draws = np.array([seed], dtype=np.int64), np.arange(size, dtype=np.int64), np.zeros(count)
    _COMPILED_STREAM[0](state, twin_cards, draws)
    assert twin_cards.tolist() == cards and draws.tolist() == expected and int(state[0]) == pure.state
    assert sorted(cards) == list(range(size)) and all(0.0 <= x < 1.0 for x in expected)
    assert _COMPILED_STREAM[1](expected[0]) == fast.fresh(expected[0], None).random()


def test_a_stream_is_roughly_uniform() -> None:
    """A sanity check of the generator: 60,000 doubles fall evenly into ten bins, and a shuffle
    of 4 cards takes each of the 24 orders about equally often."""
    stream = fast.Stream(2026)
    bins = [0] * 10
    for _ in range(60_000):
        bins[int(stream.random() * 10)] += 1
    assert all(5_600 < b < 6_400 for b in bins), bins
    orders: dict[tuple[int, ...], int] = {}
    for _ in range(24_000):
        cards = [0, 1, 2, 3]
        stream.shuffle(cards)
        orders[tuple(cards)] = orders.get(tuple(cards), 0) + 1
    assert len(orders) == 24 and all(850 < v < 1_150 for v in orders.values()), orders


def test_the_compiled_kernel_refuses_a_random_random() -> None:
    """The compiled kernel draws from a stream of its own, never from a ``random.Random``."""
    with pytest.raises(TypeError, match="Stream"):
        fast.run(sample_deal, random.Random(1), [0], [1], [0], [0], True, 0, [0], [0], [0], [0], [])


def test_rollouts_equal_the_kernels() -> None:
    """4,000 rollouts from random positions of random rules (3-6 players, every legal-play
    option, moon variant and bonus), random per-seat mixes of the greedy policy and random
    play, with and without moons (``shoot_from``): the same cards won, tricks and final
    stream state as :func:`hearts.kernel.play_out`."""
    rng = random.Random(2024)
    moons_seen = 0
    for case in range(4000):
        rules = any_rules(rng) if case % 4 else Rules(players=rng.randint(3, 6))
        hands, leader, trick, broken, first, won, tricks_won, tricks_left = position(rules, rng)
        n = rules.players
        policies = tuple(rng.choice([greedy_policy, None]) for _ in range(n)) if case % 5 else ()
        shoot_from = rng.choice([0, 0, 1, 5, 10, 16])
        rollout = Rollout(policies, shoot_from, shooter_card, defender_card)
        seed = rng.getrandbits(63)
        pure = (hands[:], won[:], tricks_won[:])
        twin = (hands[:], won[:], tricks_won[:])
        pure_rng, twin_rng = fast.Stream(seed), fast.Stream(seed)
        play_out(pure[0], leader, trick[:], broken, first, pure[1], pure[2], tricks_left, LegalConfig(rules),
                 pure_rng, rollout)
        codes = [COMPILED[p] for p in policies] or [RANDOM] * n
        fast.run(play_rollout, twin[0], leader, trick + [0] * (n - len(trick)), len(trick), broken, first, twin[1],
                 twin[2], tricks_left, LegalConfig(rules), twin_rng, codes, shoot_from)
        assert twin == pure, (case, rules)
        assert twin_rng.state == pure_rng.state, case
        moons_seen += any(w & (HEARTS_MASK | QS_MASK) == HEARTS_MASK | QS_MASK for w in pure[1])
    assert moons_seen > 20  # the moon policies were exercised


def test_random_rounds_equal_the_kernels() -> None:
    """:func:`hearts.kernel.random_round` over 1,200 rounds of random rules (every pass
    direction and count, scoring option and moon variant, R2, R4): :func:`hearts.kernel.random_rounds`
    compiled gives the same scores on the same stream, and leaves it in the same state."""
    rng = random.Random(11)
    for _ in range(60):
        rules = any_rules(rng)
        seed = rng.getrandbits(63)
        first = rng.randint(0, 7)
        pure_rng, twin_rng = fast.Stream(seed), fast.Stream(seed)
        pure = [random_round(rules, pure_rng, first + i).scores for i in range(20)]
        assert random_rounds(rules, twin_rng, 20, first) == pure, rules
        assert twin_rng.state == pure_rng.state


def test_pass_mask_is_the_heuristics() -> None:
    """The heuristic's pass (``hearts.bots.heuristic.pass_mask``) for 4,000 random hands of
    every size and pass count, moon hands among them."""
    rng = random.Random(5)
    moon_cards = HEARTS_MASK & ~((1 << 24) - 1) | QS_MASK | AS_KS_MASK  # high hearts, top spades
    for case in range(4000):
        size = rng.randint(5, 17)
        pool = [c for c in range(52) if moon_cards >> c & 1] if case % 8 == 0 else list(range(52))
        hand = sum(1 << c for c in rng.sample(pool, min(size, len(pool))))
        count = rng.randint(1, min(4, hand.bit_count() - 1))
        assert fast.run(pass_mask, hand, count, True) == pass_mask(hand, count), (hand, count)


def test_hidden_deals_are_sampled_alike() -> None:
    """:meth:`HiddenDeal.sample` (:func:`~hearts.bots.search.sample_deal`) with voids (R7),
    including voids that cannot be honoured (40 failed attempts, then a plain deal), and with a
    card-location model's odds (``search:read=1``) one time in two, as Python and compiled: the
    same hands and stream state."""
    rng = random.Random(3)
    for case in range(400):
        n = rng.randint(3, 6)
        me = rng.randrange(n)
        pool = sorted(rng.sample(range(52), rng.randint(n, 40)))
        need = [0] * n
        for i in range(len(pool)):
            need[[s for s in range(n) if s != me][i % (n - 1)]] += 1
        voids = [rng.choice([0, 0, 1, 2, 4, 8, 5, 15 if case % 7 == 0 else 3]) for _ in range(n)]
        hands = [0] * n
        hands[me] = sum(1 << c for c in range(52) if c not in pool and rng.random() < 0.2)
        odds = [rng.randint(1, 1 << 20) for _ in range(52 * n)] if case % 2 else []
        deal = HiddenDeal(me, tuple(hands), tuple(pool), tuple(need), tuple(voids), case % 10 == 0, tuple(odds))
        seed = rng.getrandbits(63)
        pure_rng, twin_rng = fast.Stream(seed), fast.Stream(seed)
        expected = deal.sample(pure_rng)
        out = [0] * n
        fast.run(sample_deal, twin_rng, hands, pool, need, voids, deal.plain, me, out, [0] * len(pool), [0] * n,
                 [0] * len(pool), odds)
        assert out == expected, case
        assert twin_rng.state == pure_rng.state


def decision_views(rules: Rules, seed: int, every: int) -> list[View]:
    """Views of decisions (passes and plays with a choice) of a game of heuristic bots, one in
    ``every``."""
    game = Game(rules, seed=seed)
    bots = {s: make_bot("heuristic", seed=s) for s in range(rules.players)}
    views: list[View] = []
    step = 0
    while not game.is_over and len(game.results) < 2:
        seat = game.actors()[0]
        view = View.of(game, seat)
        if view.must_pass or (view.my_turn and len(view.legal) > 1):
            step += 1
            if step % every == 0:
                views.append(view)
        game.apply(bots[seat].act(view))
    return views


def views_of_games(rng: random.Random, games: int, every: int) -> Iterator[tuple[Rules, int, View]]:
    """:func:`decision_views` of ``games`` games (the standard rules first, then random ones
    drawn from ``rng``), each with its rules and its index in its game."""
    for g in range(games):
        rules = any_rules(rng) if g else Rules()
        for i, view in enumerate(decision_views(rules, rng.randrange(1000), every)):
            yield rules, i, view


@pytest.mark.parametrize("model", ["careful", "random"])
def test_search_scores_are_the_same(model: str) -> None:
    """``play_scores`` and ``pass_scores`` of the search, compiled and pure, on decisions of
    games with random rules: the same scores for every candidate and sample, and the bot's
    ``Random`` in the same state."""
    rng = random.Random(sum(map(ord, model)))  # not hash(): it differs between runs
    checked = 0
    for rules, i, view in views_of_games(rng, 4, every=3):
        twin, pure = SearchBot(seed=i, model=model), SearchBot(seed=i, model=model, fast=False)
        assert twin.compiled and not pure.compiled
        if view.must_pass:
            passes = pass_candidates(view.hand.mask, rules.pass_count, 5)
            assert twin.pass_scores(view, passes, 12) == pure.pass_scores(view, passes, 12)
        else:
            assert twin.play_scores(view, 12) == pure.play_scores(view, 12)
        assert twin.rng.getstate() == pure.rng.getstate()
        checked += 1
    assert checked > 40


@pytest.mark.parametrize(("model", "follow"), [("careful", 0), ("random", 0), ("careful", 4), ("random", 3)])
def test_tree_search_is_the_same(model: str, follow: int) -> None:
    """The information-set tree search (``tree=1``, and nodes not branched before ``follow``
    visits), compiled and pure, on play decisions of games with random rules and 3–6 players:
    the same visits of every card, and the bot's ``Random`` in the same state; the most
    visited card is legal."""
    rng = random.Random(sum(map(ord, model)) + 1 + follow)
    checked = 0
    for _, i, view in views_of_games(rng, 5, every=3):
        if view.must_pass:
            continue
        twin = SearchBot(seed=i, model=model, iterations=150, tree=True, follow=follow)
        pure = SearchBot(seed=i, model=model, iterations=150, tree=True, fast=False, follow=follow)
        visits = twin.tree_visits(view, 150)
        assert visits == pure.tree_visits(view, 150)
        assert twin.rng.getstate() == pure.rng.getstate()
        assert sum(visits) == 150 and not any(visits[c] for c in range(52) if not view.legal.mask >> c & 1)
        checked += 1
    assert checked > 40


@pytest.mark.parametrize("spec", ["search:iterations=300", "search:iterations=200,model=random",
                                  "search:iterations=1500,tree=1,follow=16"])
def test_search_decisions_are_the_same(spec: str) -> None:
    """Whole decisions (``act``: the raced pass, the plays; the tree search of
    ``expert`` on a smaller budget), compiled and as Python: the same actions for the same seed
    (R7: from the same view)."""
    for i, view in enumerate(decision_views(Rules(), 4, every=4)[:24]):
        twin, pure = make_bot(spec, seed=i), make_bot(spec + ",fast=0", seed=i)
        assert twin.act(view) == pure.act(view), i


def test_a_budget_in_seconds_works_compiled() -> None:
    """A budget in seconds looks at the clock between blocks of samples."""
    view = decision_views(Rules(), 5, every=5)[1]
    bot = SearchBot(seed=1, time=0.05)
    start = time.perf_counter()
    assert bot.act(view) is not None and time.perf_counter() - start < 1.0


def test_without_numba_the_search_falls_back(tmp_path: Path) -> None:
    """With numba impossible to import, ``hearts.fast`` says it is unavailable, refuses to run,
    and the search bot decides on the pure kernel exactly as it does compiled."""
    views = decision_views(Rules(), 6, every=6)[:6]
    expected = [make_bot("search:iterations=150", seed=i).act(v) for i, v in enumerate(views)]
    (tmp_path / "views.pickle").write_bytes(pickle.dumps(views))
    script = textwrap.dedent(
        """
        import pickle
        import sys

        class NoNumba:
            def find_spec(self, name, path=None, target=None):
                if name == "numba" or name.startswith("numba."):
                    raise ImportError("numba is blocked for this test")
                return None

        sys.meta_path.insert(0, NoNumba())
        from hearts import fast
        from hearts.bots import make_bot
        from hearts.kernel import nth_card

        assert not fast.available()
        try:
            fast.run(nth_card, 1, 0)
        except fast.Unavailable as error:
            assert "numba" in str(error)
        else:
            raise AssertionError("hearts.fast ran without numba")
        with open(sys.argv[1], "rb") as file:
            views = pickle.load(file)
        bots = [make_bot("search:iterations=150", seed=i) for i in range(len(views))]
        assert not any(bot.compiled for bot in bots)
        print([repr(bot.act(v)) for bot, v in zip(bots, views)])
        assert "numba" not in sys.modules
        """
    )
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "views.pickle")], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str([repr(a) for a in expected])


@given(
    rules=props.any_rules(),
    seed=st.integers(0, 2**32 - 1),
    plays=st.integers(0, 60),
    shoot_from=st.sampled_from([0, 1, 10]),
    greedy=st.lists(st.booleans(), min_size=6, max_size=6),
)
@settings(max_examples=120, deadline=None)
def test_compiled_rollouts_agree_with_the_round(rules: Rules, seed: int, plays: int, shoot_from: int,
                                                greedy: list[bool]) -> None:
    """R1-R4 (hypothesis, random positions of random rules): the kernel compiled plays as the
    :class:`~hearts.Round` does. Its random seats take the legal cards the engine, driven by the
    same random numbers, takes (R3), and :func:`~hearts.kernel.score_into` scores the round as
    the engine does (R4, moons of every variant, the shooter adding under ``shooter_chooses``);
    with greedy seats and moon play (R4.4) it wins what the kernel as Python wins, and leaves
    the stream in the same state."""
    rng = random.Random(seed)
    before = tuple(rng.randrange(0, rules.target + 30) for _ in range(rules.players))
    r = props.playing_position(rules, seed, plays, rng, before)
    if r is None:
        return
    n, trick = r.players, r.current_trick
    position = ([r.hand(s).mask for s in range(n)], trick.leader, [int(c) for c in trick.cards])
    jack, no_tricks, penalty, moons = scoring(rules, before)

    def rollout(codes: list[int], compiled: bool, rng: Any) -> tuple[list[int], list[int], list[int]]:
        hands, won, tricks_won = position[0][:], [r.won_cards(s).mask for s in range(n)], list(r.tricks_won)
        t = position[2] + [0] * (n - len(position[2]))
        args = (hands, position[1], t, len(position[2]), r.hearts_broken, r.tricks_played == 0, won, tricks_won,
                r.hand_size - r.tricks_played, LegalConfig(rules), rng, codes, shoot_from)
        fast.run(play_rollout, *args) if compiled else play_rollout(*args)
        scores = [0] * n
        fast.run(score_into, won, tricks_won, jack, no_tricks, penalty, list(moons), scores)
        return won, tricks_won, scores

    won, tricks_won, scores = rollout([RANDOM] * n, True, fast.Stream(seed))
    engine = r.clone()
    props.engine_finish(engine, fast.Stream(seed), "add")  # type: ignore[arg-type]  # draws random() only
    assert engine.result is not None
    assert won == [engine.won_cards(s).mask for s in range(n)] and tuple(tricks_won) == engine.tricks_won
    assert tuple(scores) == engine.result.scores
    codes = [GREEDY if g else RANDOM for g in greedy[:n]]
    twin_rng, pure_rng = fast.Stream(seed), fast.Stream(seed)
    assert rollout(codes, True, twin_rng) == rollout(codes, False, pure_rng)
    assert twin_rng.state == pure_rng.state


@pytest.mark.parametrize("variable", ["PYHEARTS_PURE", "NUMBA_DISABLE_JIT"])
def test_the_kernel_can_be_told_to_run_as_python(variable: str) -> None:
    """With ``PYHEARTS_PURE=1`` (or numba's ``NUMBA_DISABLE_JIT=1``) the kernel's functions run
    as Python, numba installed or not, and the search decides as it does compiled."""
    script = textwrap.dedent(
        """
        from hearts import Game, Rules, fast
        from hearts.bots import make_bot
        from hearts.view import View

        assert not fast.available() and "is set" in fast.unavailable_reason()
        bot = make_bot("search:iterations=100", seed=3)
        assert not bot.compiled
        print(repr(bot.act(View.of(Game(Rules(), seed=2), 0))))
        """
    )
    env = {**os.environ, variable: "1"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == repr(make_bot("search:iterations=100", seed=3).act(View.of(Game(Rules(), seed=2), 0)))
