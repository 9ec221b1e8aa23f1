"""The search bot: determinized Monte Carlo (PIMC) on the engine's rollout kernel.

For each decision it repeatedly samples the hidden hands consistently with what its
:class:`~hearts.view.View` implies (:func:`sample_hands`: each seat's hand size, the suits each
seat has shown it lacks, and the cards this seat passed, R7) and, on every sample, plays each
candidate followed by a rollout to the end of the round (:func:`~hearts.kernel.play_out`). All
candidates share the same samples and rollout seeds (common random numbers); the one with the
lowest mean score for this seat is chosen (:func:`pick`); with ``tree=1`` a tree search over
the samples chooses instead. The levels ``hard`` and ``expert`` are this bot (see
:data:`~hearts.bots.registry.LEVELS`).

Options (``search:key=value,...`` as a spec, or keyword arguments):

``iterations`` / ``time``
    The budget per decision: rollouts, or seconds of thinking (default 0.5 s). A budget in
    rollouts is reproducible from the seed; a budget in seconds depends on the machine.
``model``
    How the rollouts play the other seats (:data:`MODELS`): ``careful`` (the default: the
    greedy policy, :func:`~hearts.bots.policies.greedy_policy`), ``random`` (uniformly at random,
    as OpenSpiel's ISMCTS does) or ``adaptive`` (each at random with the probability
    :func:`~hearts.bots.opponents.careless_odds` gives it from its plays this round).
``shoot_from``
    In a rollout, a seat that has taken every point so far, at least this many, goes for the
    moon and the careful seats defend (:func:`~hearts.bots.policies.shooter_card`,
    :func:`~hearts.bots.policies.defender_card`); default 10, 0 turns it off.
``margin``
    With ``margin=m > 0`` the best candidate must beat the heuristic bot's choice by more
    than ``m`` standard errors of the paired differences, else the heuristic's choice stands
    (default 0: the plain best mean).
``pass_candidates``, ``pass_budget``, ``pass_race``
    The pass compares every ``pass_count``-subset of the ``pass_candidates`` most dangerous
    cards (default 6) and the heuristic's pass (:func:`pass_candidates`) over whole rounds, the other seats
    passing like the heuristic bot. It gets ``pass_budget`` times the decision's budget
    (default 1.5) and races its candidates: every 16 samples, those worse than the best by
    more than ``pass_race`` standard errors stop being sampled (default 2; 0 samples flat).
``infer``, ``infer_noise``
    Inference from the others' actions (0 or 1, the default 0: off): each sample of a play decision
    draws ``infer`` deals of the hidden cards and keeps one with odds in proportion to how
    likely the other seats' plays this round are in it, had they played carefully
    (:func:`~hearts.bots.opponents.play_likelihood`: each play the greedy policy's card with
    probability ``1 - infer_noise``, else any legal card; default noise 0.3) and the pass it
    received (:func:`~hearts.bots.opponents.pass_likelihood`: the giver passed some of its
    ``pass_candidates`` most dangerous cards). A seat that ducked under the winner then
    probably holds no card between its card and the winner; a void seat that did not drop the
    Q♠ probably lacks it. Measured against ``hard`` it did not make the search stronger
    (``docs/bots.md``).
``tree``, ``explore``, ``follow``
    ``tree=1``: the plays are chosen by information-set tree search (:meth:`SearchBot.tree_visits`,
    ISMCTS) rather than by comparing the legal cards on rollouts; the later plays of every
    seat are then searched too, in one tree shared by the samples, and the rollouts start
    below it. ``iterations`` is its budget (one sample and one rollout each); ``explore`` its
    UCB exploration constant (default 0.3); ``follow=k``: a node below the root visited fewer
    than ``k`` times does not branch yet, its seat plays the rollout's card (default 0: every
    node branches at once). The pass is chosen as without it. The level
    ``expert`` is ``search:iterations=20000,tree=1,follow=16``: measured head to head against
    ``hard``, about half a point per round better (``docs/bots.md``).
``fast``
    1 (the default): the samples are drawn and rolled out compiled (:func:`hearts.fast.run`,
    the ``fast`` extra) when numba is installed, some fifteen times faster; 0: as Python. It
    is the same code either way (:func:`play_block`, :func:`pass_block`, :func:`tree_search`),
    drawing the same random numbers from a :class:`hearts.fast.Stream` seeded per decision from
    the bot's ``rng``, so the decisions are the same (:attr:`SearchBot.compiled` says which runs).

The moon decision (R4.4 ``shooter_chooses``) is the :class:`~hearts.bots.base.Bot` default, an
evaluation of both totals. The measurements behind these defaults are in ``docs/bots.md``.

>>> from hearts import Game, Rules
>>> from hearts.bots import make_bot, run_bots
>>> game = Game(Rules(target=26), seed=1)
>>> bots = {s: make_bot("search:iterations=60", seed=s) for s in range(4)}
>>> run_bots(game, bots)
>>> game.is_over
True
"""

from __future__ import annotations

import itertools
import math
import random
import time as _time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from hearts import fast
from hearts.bots.base import Bot
from hearts.bots.heuristic import choose_card, pass_danger, pass_mask
from hearts.bots.opponents import careless_odds, pass_likelihood, play_likelihood, weighted_index
from hearts.bots.policies import greedy_card, play_rollout
from hearts.cards import CARDS, HEARTS, QS, Card, CardSet, cards_of
from hearts.errors import HeartsError
from hearts.fast import floats, ints, jit, rows
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
        margin: float = 0.0,
        model: str = "careful",
        shoot_from: int = 10,
        pass_budget: float = 1.5,
        pass_race: float = 2.0,
        fast: bool = True,
        infer: int = 0,
        infer_noise: float = 0.3,
        tree: bool = False,
        explore: float = 0.3,
        follow: int = 0,
    ) -> None:
        super().__init__(seed)
        if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
            raise HeartsError(f"search: iterations must be a whole number >= 1, not {iterations!r}")
        if time is not None and (not isinstance(time, (int, float)) or time <= 0):
            raise HeartsError(f"search: time must be a number of seconds > 0, not {time!r}")
        if iterations is None and time is None:
            time = 0.5
        self.iterations = iterations
        self.time = time
        self.pass_candidates = pass_candidates
        self.margin = float(margin)
        if model not in MODELS:
            raise HeartsError(f"search: model must be one of {', '.join(MODELS)}, not {model!r}")
        self.model = model
        if isinstance(shoot_from, bool) or not isinstance(shoot_from, int) or shoot_from < 0:
            raise HeartsError(f"search: shoot_from must be a whole number of points >= 0, not {shoot_from!r}")
        self.shoot_from = shoot_from
        if isinstance(pass_budget, bool) or not isinstance(pass_budget, (int, float)) or pass_budget <= 0:
            raise HeartsError(f"search: pass_budget must be a number > 0, not {pass_budget!r}")
        self.pass_budget = float(pass_budget)
        if isinstance(pass_race, bool) or not isinstance(pass_race, (int, float)) or pass_race < 0:
            raise HeartsError(f"search: pass_race must be a number of standard errors >= 0, not {pass_race!r}")
        self.pass_race = float(pass_race)
        if fast not in (True, False):  # also 1 and 0, as a spec writes them
            raise HeartsError(f"search: fast must be 1 (use hearts.fast when installed) or 0, not {fast!r}")
        self.fast = bool(fast)
        if isinstance(infer, bool) or not isinstance(infer, int) or infer < 0:
            raise HeartsError(f"search: infer must be a whole number of deals per sample >= 0, not {infer!r}")
        self.infer = infer
        if isinstance(infer_noise, bool) or not isinstance(infer_noise, (int, float)) or not 0 < infer_noise <= 1:
            raise HeartsError(f"search: infer_noise must be a number in (0, 1], not {infer_noise!r}")
        self.infer_noise = float(infer_noise)
        if tree not in (True, False):
            raise HeartsError(f"search: tree must be 1 (information-set tree search) or 0, not {tree!r}")
        if tree and (iterations is None or infer or model == "adaptive"):
            raise HeartsError("search: tree=1 takes a budget in iterations (not in time), without infer or "
                              "model=adaptive")
        self.tree = bool(tree)
        if isinstance(explore, bool) or not isinstance(explore, (int, float)) or explore < 0:
            raise HeartsError(f"search: explore must be a number >= 0, not {explore!r}")
        self.explore = float(explore)
        if isinstance(follow, bool) or not isinstance(follow, int) or follow < 0:
            raise HeartsError(f"search: follow must be a whole number of visits >= 0, not {follow!r}")
        if follow and not tree:
            raise HeartsError("search: follow is an option of the tree search (tree=1)")
        self.follow = follow
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
        heuristic = choose_card(view, view.legal.mask, True)
        prior = moves.index(CARDS[heuristic]) if view.legal.mask >> heuristic & 1 else 0
        return moves[self._choose(scores, alive, prior)]

    def play_scores(self, view: View, samples: int) -> tuple[list[Card], list[list[int]]]:
        """Every legal card of ``view`` (in card order) and its scores for this seat, one per
        sample: ``samples`` draws of the hidden hands (:func:`sample_hands`), each followed by
        a rollout to the end of the round, shared by every card (common random numbers). The
        scores are what :meth:`choose_play` compares, at a fixed number of samples.

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

        Single-observer ISMCTS: each iteration samples the hidden hands (:class:`HiddenDeal`)
        and walks down one tree shared by all samples, the plays of every seat from here on,
        each node keyed by the cards played so far. At each node the seat to move takes a card
        legal in this sample that the tree has not tried yet, and the iteration ends with a
        rollout from there; when every legal card has been tried, it takes the one with the
        best UCB value among them: ``-mean + explore * sqrt(ln(available) / visits)``, the mean
        being that seat's own points over 26 and ``available`` the iterations in which the
        card was legal. Each node on the way adds the round's points of the seat that played
        it. So later decisions, this seat's and the others', are searched rather than played by
        the rollout policy, and no seat's choice depends on cards it cannot see. With
        ``follow=k``, a node below the root is not branched before its ``k``-th visit: until
        then its seat plays as the rollout would (the greedy policy, or a random card with
        ``model=random``), through the nodes already there or adding one, so the few visits
        of a new node follow the plays the rollouts expect rather than every legal card. The rollouts
        draw from the search's own random stream: unlike PIMC's candidates, no two of them need
        to share one, so none pays for seeding a generator of its own. It runs
        :func:`tree_search`, compiled where it can (:attr:`compiled`), on the same random numbers.

        >>> from hearts import Round, Rules
        >>> r = Round.deal(Rules(), seed=3, round_number=3)
        >>> r.play("2C")
        >>> visits = SearchBot(seed=1).tree_visits(View.of(r, r.to_move), 200)
        >>> sum(visits), [str(CARDS[c]) for c, v in enumerate(visits) if v]  # its legal cards
        (200, ['3C', '7C'])
        """
        pos = position_record(view, self._codes(view), self.shoot_from)
        out = [0] * len(CARDS)
        fast.call(self.compiled, tree_search, pos, self._config(view.rules), self._stream(), iterations,
                  self.explore, self.follow, out)
        return out

    def _play_sampler(self, view: View, moves: list[Card]) -> Block:
        """How the plays ``moves`` are compared: scores of the move on new samples."""
        me, n = view.seat, view.players
        cfg = self._config(view.rules)
        rng = self._stream()
        side = fast.Stream(0)  # without odds never drawn from
        odds: list[float] = []
        if self.model == "adaptive":
            side = self._stream()
            deal = HiddenDeal.of(view)
            odds = [math.nan if o is None else o for o in careless_odds(view, [deal.sample(side) for _ in range(16)],
                                                                         cfg)]
        plays = [int(c) for t in [*view.tricks, view.trick] for c in t.cards]
        leaders = [t.leader for t in view.tricks] + [view.trick.leader]
        given = self._given(view, plays, leaders)
        seen = given or any((leaders[i // n] + i % n) % n != me for i in range(len(plays)))
        infer = self.infer if seen and self.infer > 1 else 0  # nothing to infer from before the others act
        pos = position_record(view, self._codes(view), self.shoot_from)
        return self._block(play_block, (pos, cfg, rng, [int(c) for c in moves]),
                           (side, odds, infer, self.infer_noise, plays, leaders, given))

    def _given(self, view: View, plays: list[int], leaders: list[int]) -> list[int]:
        """What the pass this seat received says, for :func:`pass_likelihood`: ``[giver, add,
        remove, received, count, top]``, the giver's hand before the pass being its hand now
        with ``add`` (the cards it passed and played) and without ``remove`` (this seat's
        pass, when the giver received it; the cards it received from another seat are not
        known). Empty in a hold round."""
        if not view.received or view.pass_from is None:
            return []
        n, giver = view.players, view.pass_from
        add = view.received.mask
        for i, c in enumerate(plays):
            if (leaders[i // n] + i % n) % n == giver:
                add |= 1 << c
        remove = view.passed.mask if view.passed is not None and view.pass_to == giver else 0
        return [giver, add, remove, view.received.mask, view.rules.pass_count, self.pass_candidates]

    # --- passing ---------------------------------------------------------------------------

    def choose_pass(self, view: View) -> CardSet:
        hand = view.hand.mask
        count = view.rules.pass_count
        candidates = pass_candidates(hand, count, self.pass_candidates)
        if len(candidates) == 1:
            return CardSet.from_mask(candidates[0])
        scores, alive = self._compare(
            len(candidates), self._pass_sampler(view, candidates), scale=self.pass_budget, z=self.pass_race,
            draw_cost=1,
        )
        prior = candidates.index(pass_mask(hand, count))
        return CardSet.from_mask(candidates[self._choose(scores, alive, prior)])

    def pass_scores(self, view: View, passes: Sequence[int], samples: int) -> list[list[int]]:
        """The scores for this seat of each pass in ``passes`` (card masks of ``view.hand``),
        one per sample: ``samples`` deals of the other hands, the others passing like the
        heuristic bot, each followed by a rollout of the whole round, shared by every pass
        (common random numbers). :meth:`choose_pass` compares the same scores for the
        :func:`pass_candidates`, racing them within its budget.
        """
        return self._compare(len(passes), self._pass_sampler(view, passes), exactly=samples)[0]

    def _pass_sampler(self, view: View, candidates: Sequence[int]) -> Block:
        """How the passes ``candidates`` are compared: scores of the pass on new samples."""
        to = view.pass_to
        assert to is not None
        pos = position_record(view, self._codes(view), self.shoot_from)
        rules = view.rules
        return self._block(pass_block, (pos, self._config(rules), self._stream(), candidates),
                           (rules.pass_count, rules.pass_offset(view.round_number), to, 1 << rules.lowest_club,
                            rules.hand_size))

    def _block(self, sampler: Callable[..., None], before: tuple[Any, ...], after: tuple[Any, ...]) -> Block:
        """A :data:`Block` of ``sampler`` (:func:`play_block`, :func:`pass_block`), called with
        ``before``, the candidates alive, ``after`` and the rows of scores to fill, compiled
        where this bot is (:attr:`compiled`)."""
        compiled = self.compiled

        def block(samples: int, alive: Sequence[int]) -> list[list[int]]:
            out = [[0] * samples for _ in alive]
            fast.call(compiled, sampler, *before, list(alive), *after, out)
            return out

        return block

    def _compare(
        self,
        count: int,
        block: Block,
        scale: float = 1.0,
        z: float = 0.0,
        draw_cost: int = 0,
        exactly: int | None = None,
    ) -> tuple[list[list[int]], list[int]]:
        """Score ``count`` candidates on shared samples (common random numbers, drawn by
        ``block``) within the budget times ``scale``, a draw counting as ``draw_cost``
        rollouts (or on ``exactly`` that many samples). With ``z > 0``, every
        :data:`RACE_EVERY` samples the candidates clearly worse than the best (:func:`race`)
        stop being sampled, and the rest share their budget. A budget in seconds is checked
        every :data:`CLOCK_EVERY` samples. Returns every candidate's scores and the
        candidates still in the race."""
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

    def _choose(self, scores: list[list[int]], alive: list[int], prior: int) -> int:
        """The candidate :func:`pick` takes among those still in the race (the plain best when
        the race dropped the ``prior``)."""
        if prior not in alive:
            return alive[pick([scores[i] for i in alive], 0, 0.0)]
        return alive[pick([scores[i] for i in alive], alive.index(prior), self.margin)]

    def _stream(self) -> fast.Stream:
        """The random stream of one decision, seeded from the bot's ``rng``: what the search
        draws from, compiled or not."""
        return fast.Stream(self.rng.getrandbits(63))

    def _codes(self, view: View) -> list[int]:
        """How the rollouts play each seat (see :data:`MODELS`; codes of
        :func:`~hearts.bots.policies.play_rollout`): this seat with the greedy policy, the
        others too (``model=careful``, and ``model=adaptive`` until it draws them per sample
        from the plays it has seen) or uniformly at random (``model=random``)."""
        others = RANDOM if self.model == "random" else GREEDY
        return [GREEDY if s == view.seat else others for s in range(view.players)]


Block = Callable[[int, Sequence[int]], list[list[int]]]
"""``block(samples, alive)``: the scores of the candidates ``alive`` (their indices) on
``samples`` new samples, one list per candidate of ``alive``: what :meth:`SearchBot._compare`
compares (:meth:`SearchBot._block`)."""

RACE_EVERY: Final = 16
"""Samples between two races of the candidates (``pass_race``)."""
CLOCK_EVERY: Final = 16
"""Samples between two looks at the clock, under a budget in seconds."""


MODELS = ("careful", "random", "adaptive")
"""How the rollouts play the other seats: like the greedy policy, uniformly at random, or each
at random with the probability its plays this round give it."""


def pick(scores: list[list[int]], prior: int, margin: float) -> int:
    """The candidate with the lowest mean score, if it beats the ``prior`` (the heuristic's
    choice) by more than ``margin`` standard errors of the paired differences (all candidates
    were scored on the same samples); otherwise the prior. This keeps sampling noise from
    overruling sound play when the search sees no real difference."""
    best = min(range(len(scores)), key=lambda i: (sum(scores[i]), i))
    if best == prior or margin <= 0:
        return best
    if len(scores[prior]) < 2:
        return prior
    mean, stderr = mean_stderr([a - b for a, b in zip(scores[prior], scores[best], strict=True)])
    return best if mean > margin * stderr else prior


def race(scores: list[list[int]], alive: list[int], z: float) -> list[int]:
    """The candidates in ``alive`` (all scored on the same samples) not clearly worse than the
    one with the lowest mean: those whose mean paired difference from it is at most ``z``
    standard errors.

    >>> race([[0, 1, 0, 1], [5, 6, 5, 6], [1, 0, 2, 0]], [0, 1, 2], z=2.0)
    [0, 2]
    """
    best = min(alive, key=lambda i: (sum(scores[i]), i))  # all have the same samples
    ref = scores[best]
    out = []
    for i in alive:
        if i == best:
            out.append(i)
            continue
        mean, stderr = mean_stderr([a - b for a, b in zip(scores[i], ref, strict=True)])
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


def _position(view: View) -> tuple[list[int], list[int], list[int], int, bool]:
    """The position of a play decision as the kernel takes it: the trick in progress (card
    ids), every seat's won cards (masks) and tricks, the tricks left and whether it is the
    first trick."""
    won = [view.won(s).mask for s in range(view.players)]
    tricks_left = view.rules.hand_size - len(view.tricks)
    return [int(c) for c in view.trick.cards], won, list(view.tricks_won), tricks_left, not view.tricks


(PLAYERS, SEAT, LEADER, LENGTH, TRICKS_LEFT, FIRST, BROKEN, SHOOT_FROM, JACK, NO_TRICKS, POOL,
 PLAIN) = range(12)
"""The fields of a position record (:func:`position_record`), then its per-seat blocks:"""
TRICK, WON, TAKEN, KNOWN, NEED, VOIDS, CODES = range(12, 54, 6)
"""the trick's cards, the cards won, the tricks won, the cards known in each hand, the cards it
needs, its voids and its rollout policy code, six entries each (the most seats, R1), then"""
MOONS: Final = 54
"""the scores of every moon (:func:`~hearts.kernel.scoring`)."""


def position_record(view: View, codes: Sequence[int], shoot_from: int) -> list[int]:
    """A play decision of ``view`` as one list of ints, what the search's compiled functions
    take (an int64 array there): the position, the hidden deal to sample (:class:`HiddenDeal`,
    its pool as a mask), how the rollouts play (``codes``, ``shoot_from``) and score.

    >>> from hearts import Game, Rules
    >>> pos = position_record(View.of(Game(Rules(), seed=2), 0), [1, 1, 1, 1], 10)
    >>> pos[PLAYERS], pos[TRICKS_LEFT], pos[NEED:NEED + 4], len(pos)
    (4, 13, [0, 13, 13, 13], 118)
    """
    n = view.players
    deal = HiddenDeal.of(view)
    trick, won, tricks_won, tricks_left, first = _position(view)
    jack, no_tricks, moons = scoring(view.rules, tuple(view.scores))
    pos = [0] * MOONS + list(moons)
    pos[:POOL] = [n, view.seat, view.trick.leader, len(trick), tricks_left, first, view.hearts_broken, shoot_from,
                  jack, no_tricks]
    pos[POOL], pos[PLAIN] = sum(1 << c for c in deal.pool), deal.plain
    for at, values in ((TRICK, trick), (WON, won), (TAKEN, tricks_won), (KNOWN, deal.hands), (NEED, deal.need),
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
    visits of the root's play ``card``. The tree is flat arrays: node ``i`` played ``card[i]``
    (by seat ``mover[i]``), ``child[i]`` is its first child and ``sibling[i]`` the next child
    of its parent; ``visits``, ``avail`` (the iterations in which its card was legal) and
    ``reward`` (the points of its mover over 26, summed) are its statistics."""
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
    for _ in range(iterations):
        sample_deal(rng, known, cards, need, voids, False, me, hands, pool, left, scratch)
        _unpack(pos, WON, w)
        _unpack(pos, TAKEN, tw)
        _unpack(pos, TRICK, t)
        depth, nodes, leader, length, broken, first, tricks_left = _descend(pos, cfg, rng, explore, follow, hands, w,
                                                                            tw, t, tree, nodes, path)
        if tricks_left:
            play_rollout(hands, leader, t, length, broken, first, w, tw, tricks_left, cfg, rng, codes, pos[SHOOT_FROM])
        score_into(w, tw, pos[JACK], pos[NO_TRICKS], moons, scores)
        for i in range(depth):
            visits[path[i]] += 1.0
            reward[path[i]] += scores[mover[path[i]]] / 26.0
    c = child[0]
    while c >= 0:
        out[card[c]] = int(visits[c])
        c = sibling[c]


@jit
def play_block(pos: Ints, cfg: LegalConfig, rng: Any, moves: Ints, alive: Ints, side: Any, odds: list[float],
               infer: int, noise: float, plays: Ints, leaders: Ints, given: Ints, out: list[Ints]) -> None:
    """:meth:`SearchBot.play_scores`' samples of the position record ``pos``: ``out[a][k]``
    becomes the score of the move ``moves[alive[a]]`` on sample ``k``. Each sample draws the
    hidden hands (:func:`sample_deal`), then a rollout seed; each move is played into the trick
    and rolled out on that seed. With ``odds`` (``model=adaptive``: a probability of random play
    per seat, NaN for this one) each sample draws the others' policies from ``side``. With
    ``infer`` above 1 each sample is one of ``infer`` deals, drawn in proportion to
    :func:`~hearts.bots.opponents.play_likelihood` of the round's ``plays`` (``leaders``: the seat
    that led each trick) with ``noise``, times, with ``given`` (``giver, add, remove, received,
    count, top``), :func:`~hearts.bots.opponents.pass_likelihood` of the giver's hand before the
    pass, ``(hand | add) & ~remove``, and its pass ``received``."""
    n, me, length = pos[PLAYERS], pos[SEAT], pos[LENGTH]
    cards = _cards_of(pos[POOL])
    known, need, voids = _unpack(pos, KNOWN, ints(n)), _unpack(pos, NEED, ints(n)), _unpack(pos, VOIDS, ints(n))
    won, taken, trick = _unpack(pos, WON, ints(n)), _unpack(pos, TAKEN, ints(n)), _unpack(pos, TRICK, ints(n))
    seats, moons = _unpack(pos, CODES, ints(n)), _unpack(pos, MOONS, ints(n * n * n))
    worlds, weights = rows(max(infer, 1), n), floats(max(infer, 1))
    hands, pool, left, scratch = ints(n), ints(len(cards)), ints(n), ints(len(cards))
    h, w, tw, t, scores = ints(n), ints(n), ints(n), ints(n), ints(n)
    stream = fast.stream_buffer()
    for k in range(len(out[0])):
        if infer > 1:
            for j in range(infer):
                sample_deal(rng, known, cards, need, voids, pos[PLAIN] != 0, me, worlds[j], pool, left, scratch)
                weights[j] = play_likelihood(worlds[j], plays, leaders, me, cfg, noise, rng)
                if len(given):
                    weights[j] *= pass_likelihood((worlds[j][given[0]] | given[1]) & ~given[2], given[3], given[4],
                                                  given[5], noise)
            hands[:] = worlds[weighted_index(weights, rng.random())][:]
        else:
            sample_deal(rng, known, cards, need, voids, pos[PLAIN] != 0, me, hands, pool, left, scratch)
        start = rng.random()
        for s in range(len(odds)):
            seats[s] = GREEDY if math.isnan(odds[s]) or side.random() >= odds[s] else RANDOM
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
            score_into(w, tw, pos[JACK], pos[NO_TRICKS], moons, scores)
            out[a][k] = scores[me]


@jit
def pass_block(pos: Ints, cfg: LegalConfig, rng: Any, candidates: Ints, alive: Ints, count: int, offset: int,
               to: int, club: int, hand_size: int, out: list[Ints]) -> None:
    """:meth:`SearchBot.pass_scores`' samples of the position record ``pos`` (a pass decision):
    ``out[a][k]`` becomes the score of the pass ``candidates[alive[a]]`` (a mask of ``count``
    cards, to the seat ``to``; ``offset`` seats on) on sample ``k``. Each sample deals the other
    hands, the others pass like the heuristic bot (:func:`~hearts.bots.heuristic.pass_mask`),
    then a rollout seed; each candidate's round is rolled out from the lowest club (``club``)
    on that seed."""
    n, me = pos[PLAYERS], pos[SEAT]
    cards = _cards_of(pos[POOL])
    known, need, voids = _unpack(pos, KNOWN, ints(n)), _unpack(pos, NEED, ints(n)), _unpack(pos, VOIDS, ints(n))
    codes, moons = _unpack(pos, CODES, ints(n)), _unpack(pos, MOONS, ints(n * n * n))
    dealt, passes, hands, pool, left, scratch = ints(n), ints(n), ints(n), ints(len(cards)), ints(n), ints(len(cards))
    h, w, tw, t, scores = ints(n), ints(n), ints(n), ints(n), ints(n)
    stream = fast.stream_buffer()
    giver = (me - offset) % n
    for k in range(len(out[0])):
        sample_deal(rng, known, cards, need, voids, True, me, dealt, pool, left, scratch)
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
            score_into(w, tw, pos[JACK], pos[NO_TRICKS], moons, scores)
            out[a][k] = scores[me]


Tree = tuple[Ints, Ints, Ints, Ints, list[float], list[float], list[float]]
"""The arrays of :func:`tree_search`'s tree: card, mover, child, sibling, visits, avail, reward."""


@jit
def _descend(pos: Ints, cfg: LegalConfig, rng: Any, explore: float, follow: int, hands: Ints, w: Ints, tw: Ints,
             t: Ints, tree: Tree, nodes: int, path: Ints) -> tuple[int, int, int, int, bool, bool, int]:
    """One walk of :func:`tree_search` down its tree from the position of ``pos`` in the
    sample ``hands``, to a node it adds (or the end of the round), playing the cards into
    ``hands``, ``w``, ``tw`` and ``t``; the nodes on the way go to ``path``. Returns the
    path's length, the tree's new number of nodes and the position reached: the leader, the
    cards in the trick, whether hearts are broken, whether it is the first trick, and the
    tricks left."""
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
                play = greedy_card(seat, mask, t, length, n, rng, queen_gone(hands))
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
    """What a deal of the hidden cards must respect, from one seat's view (R7): the cards
    known to lie in each hand, the cards to deal, how many each seat gets and the suits it has
    shown it lacks. :meth:`sample` deals them; :func:`sample_hands` is ``HiddenDeal.of(view).sample(rng)``.

    >>> from hearts import Game, Rules
    >>> deal = HiddenDeal.of(View.of(Game(Rules(), seed=2), 0))
    >>> len(deal.pool), deal.need, deal.plain
    (39, (0, 13, 13, 13), True)
    """

    seat: int
    """The seat whose view it is."""
    hands: tuple[int, ...]
    """The cards known to be in each seat's hand (masks): this seat's own, and the cards it
    passed at their receiver."""
    pool: tuple[int, ...]
    """The cards to deal, in card order."""
    need: tuple[int, ...]
    """How many of them each seat gets."""
    voids: tuple[int, ...]
    """The suits each seat has shown it lacks (bit ``1 << suit``)."""
    plain: bool
    """A plain shuffle (the pass phase: nothing is known of the others yet)."""

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
                    [0] * m)
        return out


@jit
def sample_deal(rng: Any, known: Sequence[int], cards: Sequence[int], need: Sequence[int], voids: Sequence[int],
                plain: bool, me: int, out: Ints, pool: Ints, left: Ints, scratch: Ints) -> None:
    """A deal of the hidden ``cards`` into ``out``, each seat holding its ``known`` cards and
    getting ``need`` more, never of a suit it has shown it lacks (``voids``, R7), with
    :class:`HiddenDeal`'s odds: the cards are shuffled and given one by one, the cards fewest
    seats may hold first, each to a seat that may hold it with odds in proportion to the cards
    it still needs; a deal that runs into a card nobody may hold is drawn again (40 times at
    most; then the voids are ignored). ``plain``: a plain shuffle. ``pool``, ``left`` and
    ``scratch`` are work space of the sizes of ``cards``, ``need`` and ``cards``.

    >>> out = [0, 0, 0]
    >>> sample_deal(random.Random(1), [0b1, 0, 0], [1, 2, 3, 6], [0, 2, 2], [0, 0, 4], False, 0, out, [0] * 4, [0] * 3,
    ...             [0] * 4)
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
                    total += left[s]
            if total == 0:
                ok = False
                break
            x = rng.random() * total
            pick = -1
            for s in range(n):
                if left[s] and not voids[s] & suit_bit:
                    pick = s
                    x -= left[s]
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
    """Compile the search (for :func:`hearts.fast.prepare`): a pass, a play and a tree search
    of a small budget."""
    r = Round.deal(Rules(), seed=3, round_number=0)
    SearchBot(seed=0, iterations=8).act(View.of(r, 0))
    r = Round.deal(Rules(), seed=3, round_number=3)
    r.play("2C")
    view = View.of(r, 2)  # seat 1 led the 2♣
    SearchBot(seed=0, iterations=8).act(view)
    SearchBot(seed=0, iterations=8, tree=True).act(view)
