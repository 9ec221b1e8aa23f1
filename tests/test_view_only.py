"""R7: a bot decides from its :class:`~hearts.view.View` alone. Two rounds that differ only in
what one seat cannot see (the other seats' unplayed cards, dealt again among them) give that
seat the same view, and every bot, its sampler and its rollouts, compiled or as Python, then
takes the same decision from the same seed."""

from __future__ import annotations

import random

import pytest
from helpers import hold_number

from hearts import IllegalPlay, Phase, Round, Rules
from hearts.actions import Play
from hearts.bots import make_bot
from hearts.bots.search import HiddenDeal, position_record
from hearts.cards import SUIT_MASKS
from hearts.view import View

SPECS = [
    "heuristic",
    "search:iterations=120",
    "search:iterations=120,model=random",
    "search:iterations=150,tree=1,follow=4",
]


def redealt(r: Round, seat: int, rng: random.Random) -> Round | None:
    """``r`` (a hold round in its play phase) with the cards ``seat`` cannot see dealt again
    among the other seats: the same hand sizes, none of a suit a seat has shown it lacks (R7:
    what the view tells), the same plays replayed. ``None`` when no such deal was drawn or a
    past play would not be legal in it."""
    n = r.players
    view = View.of(r, seat)
    others = [s for s in range(n) if s != seat]
    hidden = [c for s in others for c in r.hand(s)]
    for _ in range(50):
        rng.shuffle(hidden)
        hands = [r.hand(s).mask for s in range(n)]
        at, ok = 0, True
        for s in others:
            hands[s] = 0
            for c in hidden[at : at + len(r.hand(s))]:
                ok = ok and not any(SUIT_MASKS[v] >> c & 1 for v in view.voids[s])
                hands[s] |= 1 << c
            at += len(r.hand(s))
        if ok:
            break
    else:
        return None
    plays = [(t.leader + i) % n for t in (*view.tricks, view.trick) for i in range(len(t.cards))]
    cards = [c for t in (*view.tricks, view.trick) for c in t.cards]
    for s, c in zip(plays, cards, strict=True):
        hands[s] |= 1 << c
    other = Round(r.rules, hands, round_number=r.round_number, scores_before=r.scores_before)
    try:
        for s, c in zip(plays, cards, strict=True):
            other.apply(Play(s, c))
    except IllegalPlay:  # e.g. a point card on the first trick that the new hand could have avoided
        return None
    return other


def positions(rules: Rules, seed: int) -> list[tuple[Round, Round, int]]:
    """Pairs of rounds at play decisions of heuristic bots that one seat cannot tell apart, and that seat."""
    rng = random.Random(seed)
    r = Round.deal(rules, seed=seed, round_number=hold_number(rules))
    bots = {s: make_bot("heuristic", seed=s) for s in range(rules.players)}
    pairs = []
    while r.phase is Phase.PLAYING:
        seat = r.actors()[0]
        if len(r.legal_plays()) > 1 and rng.random() < 0.3:
            other = redealt(r, seat, rng)
            if other is not None and any(other.hand(s) != r.hand(s) for s in range(rules.players)):
                pairs.append((r.clone(), other, seat))
        r.apply(bots[seat].act(View.of(r, seat)))
    return pairs


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_sampler_and_the_record_see_only_the_view(players: int) -> None:
    """R7: what the search samples from (:class:`HiddenDeal`) and rolls out from
    (:func:`position_record`) is the same for two rounds the deciding seat cannot tell apart."""
    checked = 0
    for seed in range(3):
        for r, other, seat in positions(Rules(players=players), seed):
            view = View.of(r, seat)
            assert View.of(other, seat) == view
            assert HiddenDeal.of(View.of(other, seat)) == HiddenDeal.of(view)
            assert position_record(View.of(other, seat), [1] * players, 10) == position_record(view, [1] * players, 10)
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("fast", [True, False])
def test_bots_decide_from_the_view_alone(spec: str, fast: bool) -> None:
    """R7: every bot, compiled and as Python, takes the same decision from the same seed in two
    rounds that differ only in the cards the deciding seat cannot see."""
    checked = 0
    for players, seed in ((4, 1), (3, 2), (5, 3)):
        for r, other, seat in positions(Rules(players=players), seed)[:3]:
            suffix = "" if fast or spec == "heuristic" else ",fast=0"
            first = make_bot(spec + suffix, seed=seat).act(View.of(r, seat))
            assert make_bot(spec + suffix, seed=seat).act(View.of(other, seat)) == first
            checked += 1
    assert checked >= 5
