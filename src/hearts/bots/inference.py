"""Policy-based inference: weighing sampled worlds by how likely the other seats' plays were in them.

Rebstock et al. ("Policy Based Inference in Trick-Taking Card Games", 2019): a world of hidden
hands (a sample of :class:`~hearts.bots.search.HiddenDeal`) is more likely when, in it, the other
seats' plays of this round are what a model of their play would have chosen. For each play an
other seat made this round, its hand then is its hidden hand in the world plus the cards it has
played since (that one included); the policy network (:data:`hearts.bots.reader.POLICY_MODEL`,
which imitates ``hard``) scores that seat's cards from the features of *its* view then
(:func:`hearts.bots.reader.features`, rebuilt by :func:`past_plays` from what the deciding seat
saw: the plays are public, the hand is the world's), and the play's probability is the softmax
over the cards legal for that hand (:func:`log_likelihoods`). A world's weight is the product of
these probabilities, each floored (:data:`FLOOR`: one surprising play does not rule a world out)
and raised to a power ``alpha`` (tempered: the policy is a model of ``hard``, not of the table;
:func:`world_weights`).

:func:`inferred_odds` turns a pool of worlds so weighed into the odds the search's sampler takes
(the form of :func:`hearts.bots.reader.card_odds`): each hidden card's share of the weight in each
seat's hand, mixed with the card-location model's probabilities (:func:`pool_odds`). Measured, it
did not make the search stronger (``docs/notes/2026-12-07-reader-policy-inference.md``): it is not
an option of the search; ``examples/policy_inference.py`` plays it and repeats the measurements.

The views rebuilt see only what the deciding seat may know (R7): the plays, and, of the passes,
the cards it passed (its receiver's ``received``) and received (its giver's ``passed``); the
passes it cannot know are left empty, as if the seat had not passed (an approximation). Only the
cards of the world's hands change from one world to another, so the network's first layer is
computed once per play and once per seat and world, the rest in numpy
(``hearts.fast.mlp.play_log_likelihoods``); without numpy there are no likelihoods.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from hearts import fast
from hearts.bots.reader import AT, ODDS_SCALE, POLICY_MODEL, N, Network, applies, holders, need_of, shipped
from hearts.bots.search import (
    KNOWN,
    MOONS,
    NEED,
    PLAIN,
    PLAYERS,
    POOL,
    SEAT,
    VOIDS,
    _cards_of,
    _unpack,
    sample_deal,
)
from hearts.cards import cards_of
from hearts.fast import ints, jit
from hearts.kernel import Ints
from hearts.mechanics import LegalConfig, legal_mask
from hearts.round import Trick
from hearts.view import View

FLOOR: Final = 0.1
"""The least probability a play counts for in a world's weight."""
PRIOR: Final = 16.0
"""How many worlds' worth of the card-location model's probabilities :func:`pool_odds` mixes in."""
SCALE: Final = 1 << 30
"""The weights are whole numbers: the likeliest world's is this, the others in proportion (0 below
a ``SCALE``-th of it)."""


@dataclass(frozen=True, slots=True)
class PastPlay:
    """One play another seat made this round, as the deciding seat saw it."""

    seat: int  # who played (absolute)
    card: int  # the card it played
    active: tuple[int, ...]  # the features of its view then (reader.features), but for its hand and hidden cards
    values: tuple[float, ...]
    rest: int  # its hand and hidden cards then: the cards unplayed then, less those it passed (where known)
    later: int  # the cards it played from then on, this one included
    led: int  # the suit led, or -1: it led
    first: bool  # the round's first trick
    broken: bool  # hearts broken then


def past_plays(view: View, last: int | None = None) -> list[PastPlay]:
    """The plays the other seats made this round before ``view`` (in order; of the ``last``
    tricks only, the trick in progress counting as one, when given), with the features of the
    player's view at each but its hand and hidden cards (those depend on the world)."""
    me, n, rules = view.seat, N, view.rules
    tricks = (*view.tricks, view.trick)
    offset = 0 if view.pass_to is None else (view.pass_to - me) % n
    pass_from = None if view.pass_to is None else (me - offset) % n
    plays = [(i, p, (t.leader + p) % n, int(c)) for i, t in enumerate(tricks) for p, c in enumerate(t.cards)]
    later = [0] * n
    after: list[int] = []  # per play: the cards its seat played from then on
    for _, _, seat, c in reversed(plays):
        later[seat] |= 1 << c
        after.append(later[seat])
    after.reverse()
    first_trick = 0 if last is None else max(0, len(tricks) - last)
    out = []
    for k, (i, p, s, card) in enumerate(plays):
        if s == me or i < first_trick:
            continue
        # What s passed and received, where the deciding seat knows it (R7).
        passed = view.received.mask if s == pass_from and view.received is not None else 0
        received = view.passed.mask if s == view.pass_to and view.passed is not None else 0
        on: dict[int, float] = {}
        played, sizes, voids, points = _history(on, plays[:k], tricks, i, s, view)
        for c in range(52):
            if passed >> c & 1:
                on[AT["passed"] + c] = 1.0
            if received >> c & 1:
                on[AT["received"] + c] = 1.0
        on[AT["pass_to"] + offset] = 1.0
        for seat in range(n):
            for suit in range(4):
                if voids[seat] >> suit & 1:
                    on[AT["voids"] + 4 * ((seat - s) % n) + suit] = 1.0
        on[AT["leader"] + (tricks[i].leader - s) % n] = 1.0
        on[AT["length"] + p] = 1.0
        on[AT["tricks"] + i] = 1.0
        for seat in range(n):
            if points[seat]:
                on[AT["points"] + (seat - s) % n] = points[seat] / 26
        broken = bool(played & (LegalConfig(rules).breaks_mask))
        if broken:
            on[AT["broken"]] = 1.0
        known = passed & ~played  # its pass, unplayed: it knows its receiver holds them
        sizes[s] = 0
        if offset:
            sizes[(s + offset) % n] -= known.bit_count()
        for seat in range(n):
            if sizes[seat] > 0:
                on[AT["need"] + (seat - s) % n] = sizes[seat] / 13
        active = sorted(on)
        rest = rules.deck_mask & ~played & ~passed
        led = int(tricks[i].cards[0]) & 3 if p else -1
        out.append(PastPlay(s, card, tuple(active), tuple(on[a] for a in active), rest, after[k], led, i == 0,
                            broken))
    return out


def _history(on: dict[int, float], plays: Sequence[tuple[int, int, int, int]], tricks: Sequence[Trick], i: int,
             s: int, view: View) -> tuple[int, list[int], list[int], list[int]]:
    """Flag in ``on`` what ``plays`` (``(trick, place, seat, card)``, those before seat ``s``'s
    play in trick ``i``) and the tricks before ``i`` say, seen from ``s``: the cards played, led,
    discarded, topped, won with and in the trick in progress. The cards played, each seat's hand
    size, voids (a bit a suit) and points then."""
    n, rules = N, view.rules

    def flag(block: str, seat: int, c: int) -> None:
        on[AT[block] + 52 * ((seat - s) % n) + c] = 1.0

    played = 0
    sizes = [rules.hand_size] * n
    voids = [0] * n
    points = [0] * n
    for ti, pj, seat, c in plays:
        t = tricks[ti]
        flag("played", seat, c)
        played |= 1 << c
        sizes[seat] -= 1
        lead = int(t.cards[0])
        if pj == 0:
            flag("led", seat, c)
        elif c & 3 != lead & 3:
            flag("discarded", seat, c)
            voids[seat] |= 1 << (lead & 3)
        elif c > max(int(x) for x in t.cards[:pj] if x & 3 == lead & 3):
            flag("topped", seat, c)
        if ti == i:
            flag("trick", seat, c)
    for t in tricks[:i]:
        if t.winner is not None:
            flag("won_with", t.winner, int(t.cards[(t.winner - t.leader) % n]))
            points[t.winner] += rules.points(sum(1 << c for c in t.cards))
    return played, sizes, voids, points


@jit
def legal_rows(worlds: Sequence[int], count: int, n: int, seats: Sequence[int], later: Sequence[int],
               led: Sequence[int], first: Sequence[int], broken: Sequence[int], cfg: LegalConfig,
               out: list[int]) -> None:
    """``out[w * P + k]``: the cards legal for the ``k``-th past play's seat (of ``P``) in world
    ``w`` (``worlds[w * n + seat]`` its hidden hand now, ``later[k]`` what it played since)."""
    plays = len(seats)
    for w in range(count):
        for k in range(plays):
            hand = worlds[w * n + seats[k]] | later[k]
            out[w * plays + k] = legal_mask(hand, led[k], first[k] != 0, broken[k] != 0, cfg)


def log_likelihoods(view: View, worlds: Sequence[int], count: int, cfg: LegalConfig, plays: list[PastPlay],
                    compiled: bool, floor: float = FLOOR, network: Network | None = None) -> list[float]:
    """Each world's log-likelihood of the past ``plays`` under the policy (the sum over the plays
    of the log of each play's probability, at least ``floor``); all 0 where numpy is missing."""
    dense = fast.networks()
    if dense is None or not plays:
        return [0.0] * count
    n = N
    legal = [0] * (count * len(plays))
    fast.call(compiled, legal_rows, list(worlds), count, n, [q.seat for q in plays], [q.later for q in plays],
              [q.led for q in plays], [int(q.first) for q in plays], [int(q.broken) for q in plays], cfg, legal)
    result: list[float] = dense.play_log_likelihoods(network or shipped(POLICY_MODEL), plays, worlds, count, n, legal,
                                                     floor, AT["hand"], AT["hidden"])
    return result


def world_weights(logs: Sequence[float], alpha: float) -> list[int]:
    """Cumulative whole-number weights of worlds from their log-likelihoods, tempered by
    ``alpha`` (the likeliest world's :data:`SCALE`)."""
    top = max(logs)
    out, total = [], 0
    for v in logs:
        total += int(SCALE * math.exp(alpha * (v - top)))
        out.append(total)
    return out


def pool_odds(view: View, worlds: Sequence[int], weights: Sequence[int], prior: float = PRIOR) -> list[int]:
    """The odds the search's sampler takes (:func:`hearts.bots.reader.card_odds`' form) from the
    weighed ``worlds``: each hidden card's share of the weight in each seat's hand, mixed with
    ``prior`` worlds' worth of the card-location model's probabilities; at least 1 wherever the
    hard facts allow the seat the card, 0 elsewhere (the facts stay exact)."""
    n, me = N, view.seat
    need = need_of(view)
    model = holders(view)
    count = len(weights)
    share = [[0.0] * n for _ in range(52)]
    hidden = view.unseen.mask & ~view.known_elsewhere.mask
    before = 0
    for i in range(count):
        w = weights[i] - before
        before = weights[i]
        if not w:
            continue
        for s in range(n):
            for card in cards_of(worlds[i * n + s] & hidden):
                share[card][s] += w
    total = float(before) or 1.0
    ess = effective_worlds(weights)
    out = [0] * (52 * n)
    for c in range(52):
        for s in range(n):
            if need[s] > 0 and c & 3 not in view.voids[s] and s != me:
                p = (share[c][s] / total * ess + prior * model[c][s]) / (ess + prior)
                out[n * c + s] = 1 + int(ODDS_SCALE * p / need[s])
    return out


@jit
def sample_worlds(pos: Ints, rng: Any, count: int, out: Ints) -> None:
    """``count`` deals of the hidden hands of the search's position record ``pos``
    (:func:`hearts.bots.search.position_record`; :func:`~hearts.bots.search.sample_deal`, with its
    odds if any), one after another into ``out`` (``n`` hands each)."""
    n, me = pos[PLAYERS], pos[SEAT]
    cards = _cards_of(pos[POOL])
    known, need, voids = _unpack(pos, KNOWN, ints(n)), _unpack(pos, NEED, ints(n)), _unpack(pos, VOIDS, ints(n))
    hands, pool, left, scratch = ints(n), ints(len(cards)), ints(n), ints(len(cards))
    odds = pos[MOONS + n * n * n :]
    for k in range(count):
        sample_deal(rng, known, cards, need, voids, pos[PLAIN] != 0, me, hands, pool, left, scratch, odds)
        for s in range(n):
            out[k * n + s] = hands[s]


def inferred_odds(view: View, pos: list[int], rng: fast.Stream, cfg: LegalConfig, compiled: bool, alpha: float,
                  count: int = 128, last: int | None = None) -> list[int] | None:
    """The sampler's odds for a play decision of ``view`` (its position record ``pos``): a pool
    of ``count`` worlds sampled from ``pos`` (drawing from ``rng``), weighed by the likelihood of
    the other seats' plays of the ``last`` tricks (all by default) tempered by ``alpha``
    (:func:`world_weights`), as odds (:func:`pool_odds`); ``None`` where there is nothing to read
    (not a four-player table of the full deck, no play of another seat yet, no numpy)."""
    if not applies(view) or fast.networks() is None:
        return None
    plays = past_plays(view, last)
    if not plays:
        return None
    worlds = [0] * (N * count)
    fast.call(compiled, sample_worlds, pos, rng, count, worlds)
    logs = log_likelihoods(view, worlds, count, cfg, plays, compiled)
    return pool_odds(view, worlds, world_weights(logs, alpha))


def effective_worlds(weights: Sequence[int]) -> float:
    """The effective number of worlds of cumulative ``weights`` (Kish: (Σw)² / Σw²)."""
    w = [b - a for a, b in zip((0, *weights), weights, strict=False)]
    return sum(w) ** 2 / max(1, sum(x * x for x in w))


__all__ = ["FLOOR", "PRIOR", "SCALE", "PastPlay", "effective_worlds", "inferred_odds", "legal_rows", "log_likelihoods",
           "past_plays", "pool_odds", "sample_worlds", "world_weights"]
