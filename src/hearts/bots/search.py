"""The search bot: determinized Monte Carlo (PIMC) on the engine's rollout kernel.

For each decision it repeatedly samples the hidden hands consistently with what its
:class:`~hearts.view.View` implies — each seat's hand size, the suits each seat has shown it
lacks, and the cards this seat passed (it knows who holds them) — and, on every sample, plays
each candidate move followed by a rollout to the end of the round with the kernel's
:func:`~hearts.kernel.greedy_policy`. All candidates share the same samples and rollout seeds
(common random numbers), and the move with the lowest mean score for this seat is chosen. With
``margin=m > 0`` it must beat the heuristic bot's choice by more than ``m`` standard errors of
the paired differences, otherwise the heuristic's choice stands (see :func:`pick`); measured
against both random and heuristic opponents, the plain best mean (``margin=0``, the default)
was the stronger.

Opponent model: the rollouts play the other seats with the greedy policy (``model=careful``,
the default) or uniformly at random (``model=random``, as OpenSpiel's ISMCTS does). Each model
wins against its own kind of player. Against three random bots (2,500 iterations, the same 400
rounds, seed 500) the random model scored 0.97 [0.69, 1.24] points per round and the careful
one 1.42 [1.09, 1.75], a paired difference of 0.45 ± 0.33 (1.08 [0.78, 1.39] since its random
seats no longer defend against moons in the rollouts); against three heuristic bots the
random model scored 5.82 [5.16, 6.48] (4,000 iterations, 400 rounds), where the careful model
scores 4.36 [3.91, 4.80] on the benchmark's 400 rounds. People play carefully, so the careful
model is the default. ``model=adaptive`` plays each other seat at random in a rollout with the
probability :func:`~hearts.bots.opponents.careless_odds` gives it from its plays this round
(careful when passing: no plays yet). It was neither better nor worse than the careful model:
1.50 [1.13, 1.86] against 1.42 against random bots (seed 500), 4.94 against 4.95 against
heuristic bots (seed 501, paired difference 0.01 ± 0.36), 400 rounds each, measured while its
careless seats still defended against moons: the evidence comes too late in the round, and not
at all for the pass (a higher prior, or pooling the seats' evidence, did not help either).

Moons: with ``shoot_from=P`` (default 10, 0 turns it off), a seat that has taken every point
so far in a rollout, at least ``P``, goes for the moon there and the others defend
(:func:`~hearts.kernel.shooter_card`, :func:`~hearts.kernel.defender_card`): the search sees a
moon coming, stops it by taking a point in time, and shoots itself when the rollouts say it
can make it against defenders. Seats the rollouts play at random (``model=random``, the
careless seats of ``model=adaptive``) neither shoot nor defend, as random players do not, so
the search does not count on them to stop a moon. Measured on the same 200 rounds (1,000
iterations): against three random bots 1.13 points per round without it, 0.81 with it; against
three heuristic bots 4.33 without, 4.56 with (within the noise of 200 rounds; thresholds 16
and rollouts where only the others shoot were no better).

The pass is chosen the same way: candidate passes built from the most dangerous cards are
compared on sampled deals, with the other seats passing like the heuristic bot, over whole
rounds. A pass is harder to judge than a play (some twenty candidates, each scored over a
whole round), so it gets ``pass_budget`` times the decision's budget (default 1.5) and races
its candidates (``pass_race``, default 2): every 16 samples, those worse than the best by more
than two standard errors of the paired differences stop being sampled, and the contenders share
the rest. On 40 pass positions, against values from 6,000 samples per candidate, the passes
chosen at 2,500 iterations cost 0.21 points per round more than the best (±0.06) when sampled
flat, and 0.11 (±0.04) raced with 1.5 times the budget, for 0.50 s instead of 0.44 s per
pass; play decisions at 2,500 iterations cost only 0.01, and racing them did not help.
The moon decision (R4.4 ``shooter_chooses``) is an evaluation of both totals.

Budget: ``iterations`` rollouts, or ``time`` seconds of thinking per decision (default 0.5 s).

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
import random
import time as _time
from collections.abc import Callable

from hearts.bots.base import Bot
from hearts.bots.heuristic import choose_card, pass_danger, pass_mask
from hearts.bots.opponents import careless_odds
from hearts.cards import CARDS, HEARTS, QS, Card, CardSet, cards_of
from hearts.errors import HeartsError
from hearts.kernel import Policy, greedy_policy, play_out
from hearts.mechanics import LegalConfig, score_round
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

    # --- playing ---------------------------------------------------------------------------

    def choose_play(self, view: View) -> Card:
        moves = cards_of(view.legal.mask)
        if len(moves) == 1:
            return moves[0]
        me, n = view.seat, view.players
        cfg = self._config(view.rules)
        trick = [int(c) for c in view.trick.cards]
        won = [view.won(s).mask for s in range(n)]
        tricks_won = list(view.tricks_won)
        tricks_left = view.rules.hand_size - len(view.tricks)
        first = not view.tricks
        rng = self.rng
        policies = self._policies(view)
        if self.model == "adaptive":
            side = random.Random(rng.random())
            odds = careless_odds(view, [sample_hands(view, side) for _ in range(16)], cfg)

        def draw() -> Sample:
            hands, seed = sample_hands(view, rng), rng.random()
            if self.model != "adaptive":
                return hands, seed, policies
            return hands, seed, [greedy_policy if o is None or side.random() >= o else None for o in odds]

        def score(sample: Sample, i: int) -> int:
            hands, seed, policies = sample
            card = moves[i]
            h = hands[:]
            h[me] ^= 1 << card
            broken = view.hearts_broken or card & 3 == HEARTS or (card == QS and cfg.queen_breaks)
            w, tw = won[:], tricks_won[:]
            play_out(
                h, view.trick.leader, [*trick, card], broken, first, w, tw, tricks_left,
                cfg, random.Random(seed), greedy_policy, policies, shoot_from=self.shoot_from,
            )
            return _my_score(w, tw, view)

        scores, alive = self._compare(len(moves), draw, score)
        heuristic = choose_card(view, view.legal.mask, True)
        prior = moves.index(CARDS[heuristic]) if view.legal.mask >> heuristic & 1 else 0
        return moves[self._choose(scores, alive, prior)]

    # --- passing ---------------------------------------------------------------------------

    def choose_pass(self, view: View) -> CardSet:
        hand = view.hand.mask
        count = view.rules.pass_count
        candidates = pass_candidates(hand, count, self.pass_candidates)
        if len(candidates) == 1:
            return CardSet.from_mask(candidates[0])
        me, n = view.seat, view.players
        to = view.pass_to
        assert to is not None
        offset = view.rules.pass_offset(view.round_number)
        giver = (me - offset) % n
        cfg = self._config(view.rules)
        rng = self.rng
        club = 1 << view.rules.lowest_club
        policies = self._policies(view)

        def draw() -> Sample:
            """A deal, the others' passes (the heuristic's) received, and a rollout seed."""
            dealt = sample_hands(view, rng)
            passes = [pass_mask(dealt[s], count) if s != me else 0 for s in range(n)]
            hands = [dealt[s] & ~passes[s] for s in range(n)]
            for s in range(n):
                if s != me:
                    hands[(s + offset) % n] |= passes[s]
            hands[me] = hand | passes[giver]
            return hands, rng.random(), policies

        def score(sample: Sample, i: int) -> int:
            received, seed, policies = sample
            mine = candidates[i]
            hands = received[:]
            hands[me] &= ~mine
            hands[to] |= mine
            leader = next(s for s in range(n) if hands[s] & club)
            w, tw = [0] * n, [0] * n
            play_out(hands, leader, [], False, True, w, tw, view.rules.hand_size, cfg,
                     random.Random(seed), greedy_policy, policies, shoot_from=self.shoot_from)
            return _my_score(w, tw, view)

        scores, alive = self._compare(
            len(candidates), draw, score, scale=self.pass_budget, z=self.pass_race, draw_cost=1
        )
        prior = candidates.index(pass_mask(hand, count))
        return CardSet.from_mask(candidates[self._choose(scores, alive, prior)])

    def _compare(
        self,
        count: int,
        draw: Callable[[], Sample],
        score: Callable[[Sample, int], int],
        scale: float = 1.0,
        z: float = 0.0,
        draw_cost: int = 0,
    ) -> tuple[list[list[int]], list[int]]:
        """Score ``count`` candidates on shared samples (common random numbers) within the
        budget times ``scale``, a draw counting as ``draw_cost`` rollouts. With ``z > 0``, every
        16 samples the candidates clearly worse than the best (:func:`race`) stop being
        sampled, and the rest share their budget. Returns every candidate's scores and the
        candidates still in the race."""
        rollouts, deadline = self._budget(scale)
        scores: list[list[int]] = [[] for _ in range(count)]
        alive = list(range(count))
        done = samples = 0
        while done < rollouts and (samples == 0 or _time.perf_counter() < deadline):
            sample = draw()
            for i in alive:
                scores[i].append(score(sample, i))
            done += len(alive) + draw_cost
            samples += 1
            if z > 0 and samples % 16 == 0 and len(alive) > 1:
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

    def _policies(self, view: View) -> list[Policy | None] | None:
        """Per-seat rollout policies when the others play at random (``model=random``): greedy
        for this seat, uniformly random (``None``) for the others; ``None`` when every seat plays
        the greedy policy (the rollouts' ``policy``): the careful model, and the adaptive one
        until it draws policies per sample from the plays it has seen."""
        if self.model != "random":
            return None
        return [greedy_policy if s == view.seat else None for s in range(view.players)]


Sample = tuple[list[int], float, list[Policy | None] | None]
"""What one draw gives every candidate: the seats' hands (masks), a rollout seed and the
seats' rollout policies (see :func:`~hearts.kernel.play_out`)."""

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
    diffs = [a - b for a, b in zip(scores[prior], scores[best], strict=True)]
    k = len(diffs)
    mean = sum(diffs) / k
    if k < 2:
        return prior
    var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
    return best if mean > margin * (var / k) ** 0.5 else prior


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
        mine = scores[i]
        k = len(mine)
        diffs = [a - b for a, b in zip(mine, ref, strict=True)]
        mean = sum(diffs) / k
        var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
        if mean <= z * (var / k) ** 0.5:
            out.append(i)
    return out


def _my_score(won: list[int], tricks_won: list[int], view: View) -> int:
    """This seat's score for a finished rollout (a shooter adds 26 to the others, R4.4)."""
    result = score_round(won, tricks_won, view.rules, view.scores, "add")
    return result.scores[view.seat]


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


def sample_hands(view: View, rng: random.Random) -> list[int]:
    """A deal of the hidden cards consistent with ``view``: hand sizes, revealed voids and
    the holder of this seat's passed cards. Returns every seat's hand as a mask."""
    n, me = view.players, view.seat
    hands = [0] * n
    hands[me] = view.hand.mask
    need = list(view.hand_sizes)
    need[me] = 0
    if view.phase.value == "passing":  # no voids known yet: a plain shuffle
        need = [view.rules.hand_size] * n
        need[me] = 0
        return _shuffle_out(hands, cards_of(view.unseen.mask), need, rng)
    known = view.known_elsewhere.mask
    if known and view.pass_to is not None:
        hands[view.pass_to] |= known
        need[view.pass_to] -= known.bit_count()
    pool = cards_of(view.unseen.mask)
    voids = [sum(1 << s for s in v) for v in view.voids]
    constrained = any(voids[s] for s in range(n) if s != me)
    for _attempt in range(40):
        rng.shuffle(pool)
        if constrained:  # place the cards fewest seats may hold first
            pool.sort(key=lambda c: sum(1 for s in range(n) if voids[s] >> (c & 3) & 1))
            pool.reverse()
        left = need[:]
        out = hands[:]
        ok = True
        for c in pool:
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
            return out
    # The voids could not be honoured (should not happen for consistent views): ignore them.
    return _shuffle_out(hands, pool, need, rng)


def _shuffle_out(hands: list[int], pool: list[Card], need: list[int], rng: random.Random) -> list[int]:
    """``hands`` with the cards of ``pool``, shuffled, dealt ``need[s]`` to each seat ``s``."""
    out = hands[:]
    rng.shuffle(pool)
    i = 0
    for s, count in enumerate(need):
        out[s] |= sum(1 << c for c in pool[i : i + count])
        i += count
    return out

