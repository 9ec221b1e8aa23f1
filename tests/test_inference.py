"""Policy-based inference (:mod:`hearts.bots.inference`; measured, not an option of the search):
the other seats' past views are rebuilt from the deciding seat's view only (R7) and agree with
their real views where that seat can know them, the weighed worlds and the worlds sampled with
their odds respect every hard fact, and the odds are the same from a seed, compiled or not."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearts import Rules, fast
from hearts.bots import SearchBot, make_bot
from hearts.bots.inference import (
    effective_worlds,
    inferred_odds,
    log_likelihoods,
    past_plays,
    sample_worlds,
    world_weights,
)
from hearts.bots.reader import AT, card_odds, features
from hearts.bots.search import HiddenDeal, position_record
from hearts.fast import Stream
from hearts.round import Round, deal_hands
from hearts.view import View

pytest.importorskip("numpy")

from test_reader import check_world, mover_view, played_round, same_views

SIZES = {"hand": 52, "hidden": 52, "passed": 52, "received": 52, "pass_to": 4, "voids": 16, "leader": 4, "length": 4,
         "tricks": 14, "points": 4, "broken": 1, "need": 4}


def block(i: int) -> str:
    return next(name for name in AT if name != "end" and AT[name] <= i < AT[name] + SIZES.get(name, 208))


def test_the_past_views_are_the_other_seats_real_views() -> None:
    """Each past play's features are those of the player's real view then, but for its hand and
    hidden cards (from the world) and the passes the deciding seat cannot know; with the real
    hands, the hand and the hidden cards are the real ones too."""
    checked = 0
    for seed in range(8):
        for round_number in range(4):
            r = played_round(seed, 9 + (5 * seed + 11 * round_number) % 40, round_number)
            if r.to_move is None:
                continue
            view = mover_view(r)
            plays = iter(past_plays(view))
            replay = played_round(seed, 0, round_number)
            giver = None if view.pass_to is None else (2 * view.seat - view.pass_to) % 4
            for card in r.plays:
                s = replay.to_move
                assert s is not None
                if s != view.seat:
                    real, q = View.of(replay, s), next(plays)
                    assert (q.seat, q.card) == (s, int(card))
                    unknown = {"hand", "hidden"}
                    if view.pass_to is not None and s != giver:
                        unknown |= {"passed", "need"}
                    if view.pass_to is not None and s != view.pass_to:
                        unknown.add("received")
                    mine = {i: x for i, x in zip(q.active, q.values, strict=True) if block(i) not in unknown}
                    assert mine == {i: x for i, x in zip(*features(real), strict=True) if block(i) not in unknown}
                    assert real.hand.mask == r.hand(s).mask | q.later
                    if view.pass_to is None or s == giver:
                        hidden = sum(1 << (i - AT["hidden"]) for i in features(real)[0] if block(i) == "hidden")
                        assert hidden == q.rest & ~real.hand.mask
                    checked += 1
                replay.play(card)
            assert next(plays, None) is None
    assert checked > 300


def test_the_past_views_see_only_the_seats_view() -> None:
    """R7: two rounds the deciding seat cannot tell apart give the same past plays and features."""
    checked = 0
    for view, other in same_views(range(10), lambda seed: 6 + 4 * seed):
        assert past_plays(other) == past_plays(view)
        checked += 1
    assert checked >= 6


def pool(seed: int, steps: int, round_number: int, alpha: float = 0.5, count: int = 48,
         compiled: bool = True) -> tuple[View, list[int], list[int], list[int] | None]:
    """A position of a round of heuristic bots, its pool of worlds (the reading sampler's), their
    weights, and the odds :func:`inferred_odds` makes of them."""
    view = mover_view(played_round(seed, steps, round_number))
    bot = SearchBot(seed=seed, read=True)
    pos = position_record(view, bot._codes(view), bot.shoot_from, card_odds(view))
    cfg = bot._config(view.rules)
    worlds = [0] * (4 * count)
    fast.call(compiled, sample_worlds, pos, Stream(seed), count, worlds)
    plays = past_plays(view)
    weights = world_weights(log_likelihoods(view, worlds, count, cfg, plays, compiled), alpha) if plays else []
    return view, worlds, weights, inferred_odds(view, pos, Stream(seed), cfg, compiled, alpha, count)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 51), round_number=st.integers(0, 3))
def test_the_weighed_worlds_respect_every_hard_fact(seed: int, steps: int, round_number: int) -> None:
    """The pool, and the worlds sampled with its odds, respect every fact of the view (R7): the
    weights only weigh them, and the odds are positive exactly where the facts allow a card."""
    if played_round(seed, steps, round_number).to_move is None:
        return
    view, worlds, weights, odds = pool(seed, steps, round_number)
    for w in range(len(worlds) // 4):
        check_world(view, worlds[4 * w : 4 * w + 4])
    if odds is None:  # no other seat has played yet: nothing to read
        assert not weights and not any(s != view.seat for t in (*view.tricks, view.trick) for s, _ in t.plays)
        return
    assert all(b >= a for a, b in zip((0, *weights), weights, strict=False)) and weights[-1] > 0
    assert [o > 0 for o in odds] == [o > 0 for o in card_odds(view)]
    deal = HiddenDeal.of(view).reading(odds)
    stream = Stream(seed + 1)
    for _ in range(10):
        check_world(view, deal.sample(stream))


def test_tempering_spreads_the_weights() -> None:
    """A smaller power keeps more worlds in play (0 weighs them all alike)."""
    logs = [0.0, -1.0, -3.0, -8.0]
    assert effective_worlds(world_weights(logs, 0.0)) == pytest.approx(4)
    assert effective_worlds(world_weights(logs, 0.25)) > effective_worlds(world_weights(logs, 1.0))


def test_the_odds_are_the_same_from_a_seed_compiled_or_not() -> None:
    """The same seed, the same pool, weights and odds, compiled or as Python (the likelihoods are
    numpy's either way)."""
    for seed in range(3):
        a = pool(seed, 12 + 9 * seed, seed, count=16)
        assert a == pool(seed, 12 + 9 * seed, seed, count=16)
        assert a == pool(seed, 12 + 9 * seed, seed, count=16, compiled=False)
        assert a[3] is not None and a[3] != card_odds(a[0])


def test_the_likely_worlds_hold_the_real_hands_more_often() -> None:
    """Rounds of ``hard`` (whom the policy imitates): weighed by the likelihood of the other
    seats' plays, the pool gives the real holder of a hidden card more weight than unweighed."""
    rules = Rules()
    plain = weighed = 0.0
    for seed in range(3):
        r = Round(rules, deal_hands(rules, seed), round_number=3)
        bots = [make_bot("search:iterations=300", seed=seed * 4 + s) for s in range(4)]
        while r.to_move is not None and len(r.tricks) < 7:
            r.apply(bots[r.to_move].act(View.of(r, r.to_move)))
        view = View.of(r, r.to_move)
        pos = position_record(view, [1] * 4, 10)
        worlds = [0] * (4 * 200)
        fast.call(True, sample_worlds, pos, Stream(seed), 200, worlds)
        cfg = SearchBot()._config(rules)
        weights = world_weights(log_likelihoods(view, worlds, 200, cfg, past_plays(view), True), 1.0)
        increments = [b - a for a, b in zip((0, *weights), weights, strict=False)]
        hidden = view.unseen.mask & ~view.known_elsewhere.mask
        for c in range(52):
            if hidden >> c & 1:
                holder = r.holder(c)
                assert holder is not None
                held = [worlds[4 * i + holder] >> c & 1 for i in range(200)]
                plain += sum(held) / 200
                weighed += sum(h * w for h, w in zip(held, increments, strict=True)) / weights[-1]
    assert weighed > plain


def test_the_past_plays_of_the_last_tricks() -> None:
    r = played_round(3, 30)
    view = mover_view(r)
    every, last = past_plays(view), past_plays(view, 2)
    assert last == every[len(every) - len(last) :] and 0 < len(last) <= 6
