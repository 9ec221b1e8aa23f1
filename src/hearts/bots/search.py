"""The search bot: determinized Monte Carlo (PIMC) on the engine's rollout kernel.

For each decision it samples the hidden hands consistently with its :class:`~hearts.view.View`
(:func:`sample_hands`: hand sizes, revealed voids, the cards it passed; R7) and, on every sample,
plays each candidate followed by a rollout to the end of the round; all candidates share the
samples and the rollouts' random numbers, and the lowest mean score for this seat wins. With
``tree=1`` a tree search over the samples chooses instead. The levels ``hard`` and ``expert``
are this bot (:data:`~hearts.bots.registry.LEVELS`).

Options (``search:key=value,...`` as a spec, or keyword arguments):

``iterations`` / ``time``
    The budget per decision: rollouts (reproducible from the seed), or seconds (default 0.5).
``model``
    How the rollouts play the other seats (:data:`MODELS`): ``careful`` (the default: the greedy
    policy, :func:`~hearts.bots.policies.greedy_policy`) or ``random`` (as OpenSpiel's ISMCTS).
``shoot_from``
    In a rollout, a seat that has taken every point so far, at least this many, goes for the
    moon and the careful seats defend (:mod:`hearts.bots.policies`); default 10, 0: never.
``pass_candidates``, ``pass_budget``, ``pass_race``
    The pass compares the subsets of the ``pass_candidates`` most dangerous cards (default 6)
    and the heuristic's pass (:func:`pass_candidates`) over whole rounds, the others passing
    like the heuristic bot, with ``pass_budget`` times the budget (default 1.5); every 16
    samples the candidates worse than the best by more than ``pass_race`` standard errors
    stop being sampled (default 2; 0 samples flat).
``tree``, ``explore``, ``follow``
    ``tree=1``: the plays are chosen by information-set tree search (:meth:`SearchBot.tree_visits`),
    the later plays of every seat searched too; ``iterations`` is its budget, ``explore`` its
    UCB constant (default 0.3); with ``follow=k`` a node below the root plays the rollout's card
    until its ``k``-th visit (default 0). The pass is chosen as without it.
``read``
    1: the hidden hands of a play decision are sampled from the card-location model's
    probabilities (:mod:`hearts.bots.reader`: what the plays so far say of who holds what),
    still only among the deals the voids, hand sizes and passed cards allow; four players
    only (other tables, and the pass, sample as with 0, the default: every allowed deal alike).
    ``hard`` with ``read=1`` is "the reading bot" of ``benchmarks/strength.py`` (not a level: it
    did not win clearly; ``docs/bots.md``).
``fast``
    1 (the default): the samples are drawn and rolled out compiled (:func:`hearts.fast.run`)
    when numba is installed, some fifteen times faster; 0: as Python. It is the same code
    (:func:`play_block`, :func:`pass_block`, :func:`tree_search`) drawing the same numbers from
    a :class:`hearts.fast.Stream` seeded per decision from the bot's ``rng``: the same decisions.

``margin``, ``infer``, ``infer_noise`` and ``model=adaptive`` were removed (measured, they did
not make the search stronger). The moon decision (R4.4) is the :class:`~hearts.bots.base.Bot`
default. The measurements behind all of this are in ``docs/bots.md``.

>>> from hearts import Game, Rules
>>> from hearts.bots import make_bot, run_bots
>>> game = Game(Rules(target=26), seed=1)
>>> bots = {s: make_bot("search:iterations=60", seed=s) for s in range(4)}
>>> run_bots(game, bots)
>>> game.is_over
True
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import time as _time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from hearts import fast
from hearts.bots.base import Bot
from hearts.bots.heuristic import pass_danger, pass_mask
from hearts.bots.policies import greedy_card, play_rollout
from hearts.bots.reader import applies, card_odds
from hearts.cards import CARDS, HEARTS, QS, Card, CardSet, cards_of
from hearts.errors import HeartsError
from hearts.fast import floats, ints, jit
from hearts.kernel import (
    GREEDY,
    RANDOM,
    Ints,
    first_leader,
    nth_card,
    queen_gone,
    score_into,
    scoring,
    winner_offset,
)
from hearts.mechanics import LegalConfig, legal_mask
from hearts.round import Round
from hearts.rules import Rules
from hearts.view import View


class SearchBot(Bot):
    """Determinized Monte Carlo search (see the module docstring)."""

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int | None = None,
        time: float | None = None,
        pass_candidates: int = 6,
        model: str = "careful",
        shoot_from: int = 10,
        pass_budget: float = 1.5,
        pass_race: float = 2.0,
        fast: bool = True,
        tree: bool = False,
        explore: float = 0.3,
        follow: int = 0,
        read: bool = False,
        **unknown: object,
    ) -> None:
        super().__init__(seed)
        for option in sorted(unknown):  # the first unknown option, if any
            removed = " (removed: measured, it did not make the search stronger; see docs/bots.md)"
            raise HeartsError(f"search: unknown option {option!r}" + (removed if option in REMOVED else ""))
        _check(iterations is None or _whole(iterations, 1), "iterations", iterations, "a whole number >= 1")
        _check(time is None or (_real(time) and time > 0), "time", time, "a number of seconds > 0")
        _check(model in MODELS, "model", model, f"one of {', '.join(MODELS)}")
        _check(_whole(shoot_from, 0), "shoot_from", shoot_from, "a whole number of points >= 0")
        _check(_real(pass_budget) and pass_budget > 0, "pass_budget", pass_budget, "a number > 0")
        _check(_real(pass_race) and pass_race >= 0, "pass_race", pass_race, "a number of standard errors >= 0")
        _check(fast in (True, False), "fast", fast, "1 (use hearts.fast when installed) or 0")  # also 1 and 0
        _check(tree in (True, False), "tree", tree, "1 (information-set tree search) or 0")
        _check(_real(explore) and explore >= 0, "explore", explore, "a number >= 0")
        _check(_whole(follow, 0), "follow", follow, "a whole number of visits >= 0")
        _check(read in (True, False), "read", read, "1 (sample from the card-location model) or 0")
        if tree and iterations is None:
            raise HeartsError("search: tree=1 takes a budget in iterations (not in time)")
        if follow and not tree:
            raise HeartsError("search: follow is an option of the tree search (tree=1)")
        self.iterations, self.time = iterations, (0.5 if iterations is None and time is None else time)
        self.pass_candidates, self.model, self.shoot_from = pass_candidates, model, shoot_from
        self.pass_budget, self.pass_race, self.fast = float(pass_budget), float(pass_race), bool(fast)
        self.tree, self.explore, self.follow = bool(tree), float(explore), follow
        self.read = bool(read)
        self._cfg: tuple[Rules, LegalConfig] | None = None

    def _config(self, rules: Rules) -> LegalConfig:
        if self._cfg is None or self._cfg[0] != rules:
            self._cfg = (rules, LegalConfig(rules))
        return self._cfg[1]

    def _budget(self, scale: float = 1.0) -> tuple[int, float]:
        """(rollouts, deadline) for one decision."""
        rollouts = int(self.iterations * scale) if self.iterations is not None else 1 << 60
        deadline = _time.perf_counter() + self.time * scale if self.time is not None else float("inf")
        return rollouts, deadline

    @property
    def compiled(self) -> bool:
        """Whether this bot's samples are scored compiled (:func:`hearts.fast.run`): with ``fast``
        (the default) when numba is installed. Its decisions are the same either way."""
        return self.fast and fast.available()

    # --- playing ---------------------------------------------------------------------------

    def choose_play(self, view: View) -> Card:
        moves = cards_of(view.legal.mask)
        if len(moves) == 1:
            return moves[0]
        if self.tree:
            visits = self.tree_visits(view, self.iterations or 0)
            return max(moves, key=lambda c: (visits[c], -c))
        scores, alive = self._compare(len(moves), self._play_sampler(view, moves))
        return moves[self._choose(scores, alive)]

    def play_scores(self, view: View, samples: int) -> tuple[list[Card], list[list[int]]]:
        """Every legal card of ``view`` (in card order) and its scores for this seat on ``samples``
        samples (what :meth:`choose_play` compares, at a fixed number of samples).

        >>> from hearts import Round, Rules
        >>> r = Round.deal(Rules(), seed=3, round_number=3)  # a hold round: the 2♣ leads at once
        >>> r.play("2C")
        >>> moves, scores = SearchBot(seed=1).play_scores(View.of(r, r.to_move), samples=20)
        >>> [str(c) for c in moves], [len(s) for s in scores]
        (['3C', '7C'], [20, 20])
        """
        moves = cards_of(view.legal.mask)
        scores, _ = self._compare(len(moves), self._play_sampler(view, moves), exactly=samples)
        return moves, scores

    def tree_visits(self, view: View, iterations: int) -> list[int]:
        """How often an information-set tree search of ``iterations`` visits each card of the
        deciding seat (a list indexed by card id; ``tree=1`` plays the most visited).

        Single-observer ISMCTS (:func:`tree_search`): each iteration samples the hidden hands
        (:class:`HiddenDeal`) and walks down one tree shared by all samples, the plays of every
        seat from here on, each seat choosing among the cards legal in the sample by UCB on its
        own points (``explore``), and rolls out the rest of the round. With ``follow=k`` a node
        below the root plays the rollout's card until its ``k``-th visit. Compiled where it can
        (:attr:`compiled`), on the same random numbers.

        >>> from hearts import Round, Rules
        >>> r = Round.deal(Rules(), seed=3, round_number=3)
        >>> r.play("2C")
        >>> visits = SearchBot(seed=1).tree_visits(View.of(r, r.to_move), 200)
        >>> sum(visits), [str(CARDS[c]) for c, v in enumerate(visits) if v]  # its legal cards
        (200, ['3C', '7C'])
        """
        pos = position_record(view, self._codes(view), self.shoot_from, self._odds(view))
        out = [0] * len(CARDS)
        fast.call(self.compiled, tree_search, pos, self._config(view.rules), self._stream(), iterations,
                  self.explore, self.follow, out)
        return out

    def _play_sampler(self, view: View, moves: list[Card]) -> Block:
        """How the plays ``moves`` are compared: scores of the move on new samples."""
        pos = position_record(view, self._codes(view), self.shoot_from, self._odds(view))
        return self._block(play_block, (pos, self._config(view.rules), self._stream(), [int(c) for c in moves]))

    # --- passing ---------------------------------------------------------------------------

    def choose_pass(self, view: View) -> CardSet:
        hand, count = view.hand.mask, view.rules.pass_count
        candidates = pass_candidates(hand, count, self.pass_candidates)
        if len(candidates) == 1:
            return CardSet.from_mask(candidates[0])
        scores, alive = self._compare(len(candidates), self._pass_sampler(view, candidates), scale=self.pass_budget,
                                      z=self.pass_race, draw_cost=1)
        return CardSet.from_mask(candidates[self._choose(scores, alive)])

    def pass_scores(self, view: View, passes: Sequence[int], samples: int) -> list[list[int]]:
        """The scores for this seat of each pass in ``passes`` (card masks of ``view.hand``) on
        ``samples`` samples (what :meth:`choose_pass` compares for the :func:`pass_candidates`,
        racing them)."""
        return self._compare(len(passes), self._pass_sampler(view, passes), exactly=samples)[0]

    def _pass_sampler(self, view: View, candidates: Sequence[int]) -> Block:
        """How the passes ``candidates`` are compared: scores of the pass on new samples."""
        pos, rules = position_record(view, self._codes(view), self.shoot_from), view.rules
        return self._block(pass_block, (pos, self._config(rules), self._stream(), candidates, rules.pass_count,
                                        rules.pass_offset(view.round_number), view.pass_to, 1 << rules.lowest_club,
                                        rules.hand_size))

    def _block(self, sampler: Callable[..., None], args: tuple[Any, ...]) -> Block:
        """A :data:`Block` of ``sampler`` (:func:`play_block`, :func:`pass_block`), called with
        ``args``, the candidates alive and the rows of scores to fill, compiled where this bot
        is (:attr:`compiled`)."""
        compiled = self.compiled

        def block(samples: int, alive: Sequence[int]) -> list[list[int]]:
            out = [[0] * samples for _ in alive]
            fast.call(compiled, sampler, *args, list(alive), out)
            return out

        return block

    def _compare(self, count: int, block: Block, scale: float = 1.0, z: float = 0.0, draw_cost: int = 0,
                 exactly: int | None = None) -> tuple[list[list[int]], list[int]]:
        """Score ``count`` candidates on shared samples (``block``) within the budget times
        ``scale``, a draw costing ``draw_cost`` rollouts (or on ``exactly`` samples). With
        ``z > 0``, every :data:`RACE_EVERY` samples the candidates clearly worse than the best
        (:func:`race`) drop out. A budget in seconds is checked every :data:`CLOCK_EVERY`
        samples. Returns every candidate's scores and the candidates still in the race."""
        if exactly is None:
            rollouts, deadline = self._budget(scale)
        else:
            rollouts, deadline = exactly * (count + draw_cost), float("inf")
        scores: list[list[int]] = [[] for _ in range(count)]
        alive = list(range(count))
        done = samples = 0
        while done < rollouts and (samples == 0 or _time.perf_counter() < deadline):
            cost = len(alive) + draw_cost
            k = -(-(rollouts - done) // cost)  # the samples left in the budget
            if z > 0 and len(alive) > 1:
                k = min(k, RACE_EVERY - samples % RACE_EVERY)
            if deadline < float("inf"):
                k = min(k, CLOCK_EVERY)
            for i, row in zip(alive, block(k, alive), strict=True):
                scores[i].extend(row)
            done += k * cost
            samples += k
            if z > 0 and samples % RACE_EVERY == 0 and len(alive) > 1:
                alive = race(scores, alive, z)
                if len(alive) == 1:
                    break
        return scores, alive

    def _choose(self, scores: list[list[int]], alive: list[int]) -> int:
        """The candidate still in the race with the lowest mean score (the first of equals)."""
        return min(alive, key=lambda i: (sum(scores[i]), i))

    def _stream(self) -> fast.Stream:
        """The random stream of one decision, seeded from the bot's ``rng``: what the search
        draws from, compiled or not."""
        return fast.Stream(self.rng.getrandbits(63))

    def _odds(self, view: View) -> list[int]:
        """The card-location model's odds to sample a play decision's hidden hands with
        (:func:`hearts.bots.reader.card_odds`), with ``read`` where the model applies; else none."""
        return card_odds(view) if self.read and applies(view) else []

    def _codes(self, view: View) -> list[int]:
        """How the rollouts play each seat (see :data:`MODELS`; codes of
        :func:`~hearts.bots.policies.play_rollout`): this seat with the greedy policy, the
        others too (``model=careful``) or uniformly at random (``model=random``)."""
        others = RANDOM if self.model == "random" else GREEDY
        return [GREEDY if s == view.seat else others for s in range(view.players)]


Block = Callable[[int, Sequence[int]], list[list[int]]]
"""``block(samples, alive)``: the scores of the candidates ``alive`` (indices) on ``samples``
new samples, a list per candidate (:meth:`SearchBot._block`, for :meth:`SearchBot._compare`)."""

RACE_EVERY: Final = 16  # samples between two races of the candidates (pass_race)
CLOCK_EVERY: Final = 16  # samples between two looks at the clock, under a budget in seconds


def _check(ok: bool, option: str, value: object, what: str) -> None:
    """Refuse ``value`` for ``option`` unless ``ok``: "search: OPTION must be WHAT, not VALUE"."""
    if not ok:
        raise HeartsError(f"search: {option} must be {what}, not {value!r}")


def _whole(value: object, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


MODELS = ("careful", "random")
"""How the rollouts play the other seats: like the greedy policy, or uniformly at random."""

REMOVED = ("margin", "infer", "infer_noise")
"""Options the search had, measured not to make it stronger and removed (``docs/bots.md``)."""


def race(scores: list[list[int]], alive: list[int], z: float) -> list[int]:
    """The candidates in ``alive`` (scored on the same samples) not clearly worse than the one
    with the lowest mean: their mean paired difference from it is at most ``z`` standard errors.

    >>> race([[0, 1, 0, 1], [5, 6, 5, 6], [1, 0, 2, 0]], [0, 1, 2], z=2.0)
    [0, 2]
    """
    best = min(alive, key=lambda i: (sum(scores[i]), i))  # all have the same samples
    out = []
    for i in alive:  # the best itself differs by 0 on every sample: it stays
        mean, stderr = mean_stderr([a - b for a, b in zip(scores[i], scores[best], strict=True)])
        if mean <= z * stderr:
            out.append(i)
    return out


def mean_stderr(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` (at least two) and its standard error, the sample standard
    deviation over the square root of their number. Given the differences between two
    candidates' scores on the same samples, it is their paired difference and its error.

    >>> mean_stderr([1, 2, 3, 4])
    (2.5, 0.6454972243679028)
    """
    k = len(values)
    mean = sum(values) / k
    var = sum((v - mean) ** 2 for v in values) / (k - 1)
    return mean, (var / k) ** 0.5


(PLAYERS, SEAT, LEADER, LENGTH, TRICKS_LEFT, FIRST, BROKEN, SHOOT_FROM, JACK, NO_TRICKS, POOL,
 PLAIN) = range(12)
"""The fields of a position record (:func:`position_record`), then its per-seat blocks:"""
TRICK, WON, TAKEN, KNOWN, NEED, VOIDS, CODES = range(12, 54, 6)
"""the trick's cards, the cards won, the tricks won, the cards known in each hand, the cards it
needs, its voids and its rollout policy code, six entries each (the most seats, R1), then"""
MOONS: Final = 54
"""the scores of every moon (:func:`~hearts.kernel.scoring`), ``n ** 3`` entries, then the odds of
the card-location model to sample with (``search:read=1``: :func:`hearts.bots.reader.card_odds`), or
nothing."""


def position_record(view: View, codes: Sequence[int], shoot_from: int, odds: Sequence[int] = ()) -> list[int]:
    """A play decision of ``view`` as one list of ints, what the search's compiled functions
    take (an int64 array there): the position, the hidden deal to sample (:class:`HiddenDeal`,
    its pool as a mask), how the rollouts play (``codes``, ``shoot_from``) and score, then the
    odds of a card-location model to sample with, if any (``odds``: :func:`sample_deal`).

    >>> from hearts import Game, Rules
    >>> pos = position_record(View.of(Game(Rules(), seed=2), 0), [1, 1, 1, 1], 10)
    >>> pos[PLAYERS], pos[TRICKS_LEFT], pos[NEED:NEED + 4], len(pos)
    (4, 13, [0, 13, 13, 13], 118)
    """
    n, deal, trick = view.players, HiddenDeal.of(view), [int(c) for c in view.trick.cards]
    jack, no_tricks, _, moons = scoring(view.rules, tuple(view.scores))
    pos = [0] * MOONS + list(moons) + list(odds)
    pos[:POOL] = [n, view.seat, view.trick.leader, len(trick), view.rules.hand_size - len(view.tricks),
                  not view.tricks, view.hearts_broken, shoot_from, jack, no_tricks]
    pos[POOL], pos[PLAIN] = sum(1 << c for c in deal.pool), deal.plain
    won = [view.won(s).mask for s in range(n)]
    for at, values in ((TRICK, trick), (WON, won), (TAKEN, view.tricks_won), (KNOWN, deal.hands), (NEED, deal.need),
                       (VOIDS, deal.voids), (CODES, codes)):
        pos[at : at + len(values)] = values
    return pos


@jit
def _unpack(pos: Ints, at: int, out: Ints) -> Ints:
    """``out`` filled with the ``len(out)`` entries of ``pos`` from ``at``."""
    out[:] = pos[at : at + len(out)]
    return out


@jit
def _cards_of(mask: int) -> Ints:
    """The cards of ``mask``, in card order."""
    out = ints(mask.bit_count())
    for i in range(len(out)):
        out[i] = (mask & -mask).bit_length() - 1
        mask &= mask - 1
    return out


@jit
def tree_search(pos: Ints, cfg: LegalConfig, rng: Any, iterations: int, explore: float, follow: int,
                out: Ints) -> None:
    """:meth:`SearchBot.tree_visits` of the position record ``pos``: ``out[card]`` becomes the
    visits of the root's play ``card``. Node ``i`` of the tree (flat arrays) played ``card[i]``
    (seat ``mover[i]``), its first child is ``child[i]``, its next sibling ``sibling[i]``; its
    ``visits``, ``avail`` (iterations its card was legal) and ``reward`` (its mover's points/26)."""
    n, me = pos[PLAYERS], pos[SEAT]
    cap = iterations + 1
    card, mover, child, sibling = ints(cap), ints(cap), ints(cap), ints(cap)
    visits, avail, reward = floats(cap), floats(cap), floats(cap)
    for i in range(cap):
        card[i], mover[i], child[i], sibling[i] = -1, -1, -1, -1
    cards = _cards_of(pos[POOL])
    known, need, voids = _unpack(pos, KNOWN, ints(n)), _unpack(pos, NEED, ints(n)), _unpack(pos, VOIDS, ints(n))
    codes, moons = _unpack(pos, CODES, ints(n)), _unpack(pos, MOONS, ints(n * n * n))
    hands, pool, left, scratch, scores = ints(n), ints(len(cards)), ints(n), ints(len(cards)), ints(n)
    w, tw, t, path = ints(n), ints(n), ints(n), ints(53)  # a path holds at most a play per card
    tree = (card, mover, child, sibling, visits, avail, reward)
    nodes = 1
    odds = pos[MOONS + n * n * n :]
    for _ in range(iterations):
        sample_deal(rng, known, cards, need, voids, False, me, hands, pool, left, scratch, odds)
        _unpack(pos, WON, w)
        _unpack(pos, TAKEN, tw)
        _unpack(pos, TRICK, t)
        depth, nodes, leader, length, broken, first, tricks_left = _descend(pos, cfg, rng, explore, follow, hands, w,
                                                                            tw, t, tree, nodes, path)
        if tricks_left:
            play_rollout(hands, leader, t, length, broken, first, w, tw, tricks_left, cfg, rng, codes, pos[SHOOT_FROM])
        score_into(w, tw, pos[JACK], pos[NO_TRICKS], cfg.penalty, moons, scores)
        for i in range(depth):
            visits[path[i]] += 1.0
            reward[path[i]] += scores[mover[path[i]]] / 26.0
    c = child[0]
    while c >= 0:
        out[card[c]] = int(visits[c])
        c = sibling[c]


@jit
def play_block(pos: Ints, cfg: LegalConfig, rng: Any, moves: Ints, alive: Ints, out: list[Ints]) -> None:
    """:meth:`SearchBot.play_scores`' samples of the position record ``pos``: ``out[a][k]``
    becomes the score of the move ``moves[alive[a]]`` on sample ``k``. Each sample draws the
    hidden hands (:func:`sample_deal`), then a rollout seed; each move is played into the trick
    and rolled out on that seed."""
    n, me, length = pos[PLAYERS], pos[SEAT], pos[LENGTH]
    cards = _cards_of(pos[POOL])
    known, need, voids = _unpack(pos, KNOWN, ints(n)), _unpack(pos, NEED, ints(n)), _unpack(pos, VOIDS, ints(n))
    won, taken, trick = _unpack(pos, WON, ints(n)), _unpack(pos, TAKEN, ints(n)), _unpack(pos, TRICK, ints(n))
    seats, moons = _unpack(pos, CODES, ints(n)), _unpack(pos, MOONS, ints(n * n * n))
    hands, pool, left, scratch = ints(n), ints(len(cards)), ints(n), ints(len(cards))
    h, w, tw, t, scores = ints(n), ints(n), ints(n), ints(n), ints(n)
    stream = fast.stream_buffer()
    odds = pos[MOONS + n * n * n :]
    for k in range(len(out[0])):
        sample_deal(rng, known, cards, need, voids, pos[PLAIN] != 0, me, hands, pool, left, scratch, odds)
        start = rng.random()
        for a in range(len(alive)):
            card = moves[alive[a]]
            h[:] = hands[:]
            h[me] ^= 1 << card
            broken = pos[BROKEN] != 0 or card & 3 == HEARTS or (card == QS and cfg.queen_breaks)
            w[:] = won[:]
            tw[:] = taken[:]
            t[:] = trick[:]
            t[length] = card
            play_rollout(h, pos[LEADER], t, length + 1, broken, pos[FIRST] != 0, w, tw, pos[TRICKS_LEFT], cfg,
                         fast.fresh(start, stream), seats, pos[SHOOT_FROM])
            score_into(w, tw, pos[JACK], pos[NO_TRICKS], cfg.penalty, moons, scores)
            out[a][k] = scores[me]


@jit
def pass_block(pos: Ints, cfg: LegalConfig, rng: Any, candidates: Ints, count: int, offset: int, to: int, club: int,
               hand_size: int, alive: Ints, out: list[Ints]) -> None:
    """:meth:`SearchBot.pass_scores`' samples of the pass decision ``pos``: ``out[a][k]`` becomes
    the score of the pass ``candidates[alive[a]]`` (``count`` cards to the seat ``to``,
    ``offset`` on) on sample ``k``: a deal, the others passing like the heuristic bot, and a
    rollout seed, each candidate's round rolled out from the lowest club (``club``) on it."""
    n, me = pos[PLAYERS], pos[SEAT]
    cards = _cards_of(pos[POOL])
    known, need, voids = _unpack(pos, KNOWN, ints(n)), _unpack(pos, NEED, ints(n)), _unpack(pos, VOIDS, ints(n))
    codes, moons = _unpack(pos, CODES, ints(n)), _unpack(pos, MOONS, ints(n * n * n))
    dealt, passes, hands, pool, left, scratch = ints(n), ints(n), ints(n), ints(len(cards)), ints(n), ints(len(cards))
    h, w, tw, t, scores = ints(n), ints(n), ints(n), ints(n), ints(n)
    stream = fast.stream_buffer()
    giver = (me - offset) % n
    odds = pos[MOONS + n * n * n :]  # empty: the pass reads nothing yet
    for k in range(len(out[0])):
        sample_deal(rng, known, cards, need, voids, True, me, dealt, pool, left, scratch, odds)
        for s in range(n):
            passes[s] = pass_mask(dealt[s], count, True) if s != me else 0
        for s in range(n):
            hands[s] = dealt[s] & ~passes[s]
        for s in range(n):
            if s != me:
                hands[(s + offset) % n] |= passes[s]
        hands[me] = known[me] | passes[giver]
        start = rng.random()
        for a in range(len(alive)):
            mine = candidates[alive[a]]
            h[:] = hands[:]
            h[me] &= ~mine
            h[to] |= mine
            for s in range(n):
                w[s], tw[s] = 0, 0
            play_rollout(h, first_leader(h, club), t, 0, False, True, w, tw, hand_size, cfg, fast.fresh(start, stream),
                         codes, pos[SHOOT_FROM])
            score_into(w, tw, pos[JACK], pos[NO_TRICKS], cfg.penalty, moons, scores)
            out[a][k] = scores[me]


Tree = tuple[Ints, Ints, Ints, Ints, list[float], list[float], list[float]]
"""The arrays of :func:`tree_search`'s tree: card, mover, child, sibling, visits, avail, reward."""


@jit
def _descend(pos: Ints, cfg: LegalConfig, rng: Any, explore: float, follow: int, hands: Ints, w: Ints, tw: Ints,
             t: Ints, tree: Tree, nodes: int, path: Ints) -> tuple[int, int, int, int, bool, bool, int]:
    """One walk of :func:`tree_search` from ``pos`` in the sample ``hands`` down to a node it
    adds (or the round's end), playing into ``hands``, ``w``, ``tw`` and ``t``, the nodes into
    ``path``. Returns the path's length, the number of nodes, and the leader, trick length,
    hearts broken, first trick and tricks left reached."""
    card, mover, child, sibling, visits, avail, reward = tree
    n = pos[PLAYERS]
    leader, length, tricks_left = pos[LEADER], pos[LENGTH], pos[TRICKS_LEFT]
    first, broken = pos[FIRST] != 0, pos[BROKEN] != 0
    node = depth = 0
    while tricks_left:
        seat = (leader + length) % n
        mask = legal_mask(hands[seat], t[0] & 3 if length else -1, first, broken, cfg)
        tried = 0
        c = child[node]
        while c >= 0:
            if mask >> card[c] & 1:
                avail[c] += 1.0
                tried |= 1 << card[c]
            c = sibling[c]
        untried = mask & ~tried
        following = node > 0 and visits[node] < follow
        play = -1
        if following:  # not branched yet: the rollout policy's card
            if pos[CODES + seat] == RANDOM:
                play = nth_card(mask, int(rng.random() * mask.bit_count()))
            else:
                play = greedy_card(seat, mask, t, length, n, rng, queen_gone(hands, cfg.penalty))
            untried &= 1 << play
            if not untried:
                c = child[node]
                while card[c] != play:
                    c = sibling[c]
                node = c
        elif untried:
            play = nth_card(untried, int(rng.random() * untried.bit_count()))
        if untried:
            card[nodes], mover[nodes], sibling[nodes], avail[nodes] = play, seat, child[node], 1.0
            child[node] = node = nodes
            nodes += 1
        elif not following:
            best, best_value = -1, -1e300
            c = child[node]
            while c >= 0:
                if mask >> card[c] & 1:
                    value = -reward[c] / visits[c] + explore * math.sqrt(math.log(avail[c]) / visits[c])
                    if value > best_value:
                        best, best_value = c, value
                c = sibling[c]
            node = best
            play = card[node]
        path[depth] = node
        depth += 1
        hands[seat] ^= 1 << play
        t[length] = play
        length += 1
        if play & 3 == HEARTS:
            broken = True
        elif play == QS:
            broken = broken or cfg.queen_breaks
        if length == n:
            leader = (leader + winner_offset(t, length)) % n
            for i in range(length):
                w[leader] |= 1 << t[i]
            tw[leader] += 1
            length, first, tricks_left = 0, False, tricks_left - 1
        if untried:
            break
    return depth, nodes, leader, length, broken, first, tricks_left


def pass_candidates(hand: int, count: int, top: int) -> list[int]:
    """Passes to compare: every ``count``-subset of the ``top`` most dangerous cards, and the
    heuristic's own pass."""
    if count == 0:
        return [0]
    ranked = sorted(cards_of(hand), key=lambda c: (pass_danger(c, hand, 0, count), c), reverse=True)
    pool = ranked[: max(top, count)]
    out = {pass_mask(hand, count)}
    for combo in itertools.combinations(pool, count):
        mask = 0
        for c in combo:
            mask |= 1 << c
        out.add(mask)
    return sorted(out)


def sample_hands(view: View, rng: random.Random | fast.Stream) -> list[int]:
    """A deal of the hidden cards consistent with ``view``: hand sizes, revealed voids and
    the holder of this seat's passed cards. Returns every seat's hand as a mask."""
    return HiddenDeal.of(view).sample(rng)


@dataclass(frozen=True, slots=True)
class HiddenDeal:
    """What a deal of the hidden cards must respect, from one seat's view (R7). :meth:`sample`
    deals them; :func:`sample_hands` is ``HiddenDeal.of(view).sample(rng)``.

    >>> from hearts import Game, Rules
    >>> deal = HiddenDeal.of(View.of(Game(Rules(), seed=2), 0))
    >>> len(deal.pool), deal.need, deal.plain
    (39, (0, 13, 13, 13), True)
    """

    seat: int  # whose view it is
    hands: tuple[int, ...]  # the cards known in each hand (masks): its own, the ones it passed
    pool: tuple[int, ...]  # the cards to deal, in card order
    need: tuple[int, ...]  # how many of them each seat gets
    voids: tuple[int, ...]  # the suits each seat has shown it lacks (bit 1 << suit)
    plain: bool  # a plain shuffle (the pass phase: nothing is known of the others yet)
    odds: tuple[int, ...] = ()  # a card-location model's odds (hearts.bots.reader.card_odds), or none

    def reading(self, odds: Sequence[int]) -> HiddenDeal:
        """This deal drawn with a card-location model's ``odds``
        (:func:`hearts.bots.reader.card_odds`; :func:`sample_deal`)."""
        return dataclasses.replace(self, odds=tuple(odds))

    @classmethod
    def of(cls, view: View) -> HiddenDeal:
        """The hidden cards of ``view``."""
        n, me = view.players, view.seat
        hands = [0] * n
        hands[me] = view.hand.mask
        pool = tuple(cards_of(view.unseen.mask))
        if view.phase.value == "passing":  # no voids known yet: a plain shuffle
            need = [view.rules.hand_size] * n
            need[me] = 0
            return cls(me, tuple(hands), pool, tuple(need), (0,) * n, True)
        need = list(view.hand_sizes)
        need[me] = 0
        known = view.known_elsewhere.mask
        if known and view.pass_to is not None:
            hands[view.pass_to] |= known
            need[view.pass_to] -= known.bit_count()
        voids = tuple(sum(1 << s for s in v) for v in view.voids)
        return cls(me, tuple(hands), pool, tuple(need), voids, False)

    def sample(self, rng: random.Random | fast.Stream) -> list[int]:
        """A deal: every seat's hand as a mask (:func:`sample_deal`)."""
        n, m = len(self.need), len(self.pool)
        out = [0] * n
        sample_deal(rng, self.hands, self.pool, self.need, self.voids, self.plain, self.seat, out, [0] * m, [0] * n,
                    [0] * m, list(self.odds))
        return out


@jit
def sample_deal(rng: Any, known: Sequence[int], cards: Sequence[int], need: Sequence[int], voids: Sequence[int],
                plain: bool, me: int, out: Ints, pool: Ints, left: Ints, scratch: Ints, odds: Sequence[int]) -> None:
    """A deal of the hidden ``cards`` into ``out``, each seat holding its ``known`` cards and
    getting ``need`` more, never of a suit it lacks (``voids``, R7): shuffled, the cards fewest
    seats may hold first, each to a seat that may hold it with odds in proportion to the cards
    it still needs, drawn again when a card fits nobody (40 times; then the voids are ignored).
    With ``odds`` (``n * 52`` whole numbers, not empty: a card-location model's, from
    :func:`hearts.bots.reader.card_odds`), card ``c``'s odds for seat ``s`` are also multiplied
    by ``odds[n * c + s]``; still never to a seat the voids or the counts exclude.
    ``plain``: a plain shuffle. ``pool``, ``left``, ``scratch``: work space (cards, seats, cards).

    >>> out = [0, 0, 0]
    >>> sample_deal(random.Random(1), [0b1, 0, 0], [1, 2, 3, 6], [0, 2, 2], [0, 0, 4], False, 0, out, [0] * 4, [0] * 3,
    ...             [0] * 4, [])
    >>> out[0], sorted(c for s in (1, 2) for c in range(8) if out[s] >> c & 1), out[2] & 0b1000100  # seat 2: no hearts
    (1, [1, 2, 3, 6], 0)
    """
    n, m = len(need), len(cards)
    pool[:] = cards[:]
    if plain:
        _shuffle_out(rng, known, pool, need, out)
        return
    constrained = False
    void_seats = 0  # per suit, the number of seats void in it: a byte each
    for s in range(n):
        constrained = constrained or (voids[s] != 0 and s != me)
        for suit in range(4):
            void_seats += (voids[s] >> suit & 1) << (8 * suit)
    reading = len(odds) > 0
    for _attempt in range(40):
        rng.shuffle(pool)
        if constrained:
            _fewest_first(pool, void_seats, n, scratch)
        left[:] = need[:]
        out[:] = known[:]
        ok = True
        for i in range(m):
            c = pool[i]
            suit_bit = 1 << (c & 3)
            total = 0
            for s in range(n):
                if left[s] and not voids[s] & suit_bit:
                    total += left[s] * odds[n * c + s] if reading else left[s]
            if total == 0:
                ok = False
                break
            x = rng.random() * total
            pick = -1
            for s in range(n):
                if left[s] and not voids[s] & suit_bit:
                    pick = s
                    x -= left[s] * odds[n * c + s] if reading else left[s]
                    if x < 0:
                        break
            out[pick] |= 1 << c
            left[pick] -= 1
        if ok:
            return
    _shuffle_out(rng, known, pool, need, out)  # the voids cannot be honoured (inconsistent views): ignore them


@jit
def _fewest_first(pool: Ints, void_seats: int, n: int, scratch: Ints) -> None:
    """Order ``pool`` by the number of seats void in each card's suit (``void_seats``, a byte
    per suit), most first, the cards of a number in reverse order (a stable sort, reversed)."""
    counts = 0
    for suit in range(4):
        counts |= 1 << (void_seats >> (8 * suit) & 0xFF)
    k = 0
    for v in range(n, -1, -1):
        if counts >> v & 1:
            for i in range(len(pool) - 1, -1, -1):
                if void_seats >> (8 * (pool[i] & 3)) & 0xFF == v:
                    scratch[k] = pool[i]
                    k += 1
    pool[:] = scratch[:]


@jit
def _shuffle_out(rng: Any, known: Sequence[int], pool: Ints, need: Sequence[int], out: Ints) -> None:
    """``known`` with the cards of ``pool``, shuffled, dealt ``need[s]`` to each seat ``s``."""
    out[:] = known[:]
    rng.shuffle(pool)
    i = 0
    for s in range(len(need)):
        for _ in range(need[s]):
            out[s] |= 1 << pool[i]
            i += 1


@fast.on_prepare
def _warm() -> None:
    """Compile the search (for :func:`hearts.fast.prepare`): a pass, a play, a tree search."""
    r = Round.deal(Rules(), seed=3, round_number=0)
    SearchBot(seed=0, iterations=8).act(View.of(r, 0))
    r = Round.deal(Rules(), seed=3, round_number=3)
    r.play("2C")
    view = View.of(r, 2)  # seat 1 led the 2♣
    SearchBot(seed=0, iterations=8).act(view)
    SearchBot(seed=0, iterations=8, tree=True).act(view)
