"""Tournaments between bots: duplicate deals, seat rotation, statistics, parallel workers on
this machine or on a Ray cluster.

Bots are given as spec strings (``"random"``, ``"search:time=0.5"``) and identified by their
position in the list (``"1:random"``, ``"2:random"``…), since the same spec may appear twice.

* **Rounds mode** (``rounds=N``): ``N`` deals, each a single :class:`~hearts.round.Round`; deal
  ``k`` is round number ``k``, so the pass direction rotates as in a game.
* **Games mode** (``games=N``): ``N`` whole games to the target; wins are counted (a shared win
  counts ``1/len(winners)``).
* **Duplicate** (the default): each deal (or each game's sequence of deals) is played once per
  seat rotation — bot ``i`` sits at seat ``(i + k) % n`` in rotation ``k`` — so every bot holds
  every hand. The confidence intervals then treat the deal (or game) as the unit of
  independence, averaging each bot over its rotations.
* **Pairwise** (``pairwise=True``): two specs A and B with four players, A at seats 0 and 2, B
  at 1 and 3; with duplicate the second rotation swaps them. Points are then per seat.

Everything is derived from ``seed``: the results do not depend on ``jobs``, nor on where the
deals are played. The deals are cut into chunks (:func:`chunked`) and the chunks played in this
process, in ``jobs`` worker processes, or as Ray tasks (``ray="local"``: a Ray instance started
here; ``ray="auto"`` or ``"ray://HOST:10001"``: an existing cluster; Ray is the ``cluster``
extra, imported only then): :func:`run_chunks`, which :mod:`hearts.rl.selfplay` uses too.

>>> from hearts import Rules
>>> result = run_arena(["random"] * 4, Rules(), rounds=3, seed=1)
>>> [bot.label for bot in result.bots]
['1:random', '2:random', '3:random', '4:random']
>>> result.bots[0].rounds  # 3 deals, each played in 4 seat rotations
12
>>> all(sum(record.points) == 26 for record in result.rounds)
True
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import math
import multiprocessing
import os
import queue
import random
import socket
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from types import ModuleType
from typing import Any, Final, Literal, TextIO, TypeVar

from hearts import fast
from hearts.bots import Bot, check_table, make_bot
from hearts.bots.guard import BOT_ERROR_POLICIES, DEFAULT_BOT_ERROR, BotErrorPolicy, BotFailure, decide
from hearts.cards import QUEEN_OF_SPADES
from hearts.errors import HeartsError
from hearts.game import Game
from hearts.round import Round, deal_hands
from hearts.rules import Rules

Mode = Literal["rounds", "games"]
ProgressMode = Literal["bar", "lines", "off"]

Z95: Final = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""
DEFAULT_ROUNDS: Final = 100
JSON_VERSION: Final = 1
LOCAL_RAY: Final = "local"
"""The Ray address that starts a Ray instance on this machine (``ray.init(address="local")``)."""
DEFAULT_MOVE_TIME: Final = 60.0
"""Seconds a bot may think about one move before it counts as failed (``--move-time``;
:mod:`hearts.bots.guard`): a bot that sleeps or loops does not hang a tournament."""
RAY_CONNECT_TIMEOUT: Final = 3.0
"""Seconds to wait for a Ray address to answer before giving up (:func:`check_ray_address`)."""

T = TypeVar("T")
R = TypeVar("R")


class ArenaError(RuntimeError):
    """A bot failed during a match (an exception, an illegal move, no move in time) under the
    ``"stop"`` policy; the message says which, where and why, in one line."""


# --- configuration and results ------------------------------------------------------------------


@dataclass(frozen=True)
class ArenaConfig:
    """What a tournament plays: the entrants, the rules, the mode and the seeding."""

    specs: tuple[str, ...]
    rules: Rules
    mode: Mode
    count: int
    """Deals (rounds mode) or games (games mode), before seat rotation."""
    duplicate: bool = True
    pairwise: bool = False
    seed: int = 0
    jobs: int = 1
    """Worker processes, or the CPUs of the Ray cluster."""
    ray: str | None = None
    """The Ray address the deals were played on (:data:`LOCAL_RAY`: a local instance), or ``None``."""
    on_bot_error: BotErrorPolicy = DEFAULT_BOT_ERROR
    """What a bot's failure does (:mod:`hearts.bots.guard`): a random legal move made for it, or the end."""
    move_time: float | None = DEFAULT_MOVE_TIME
    """Seconds a bot may take for one move (``None``: no limit)."""

    @property
    def players(self) -> int:
        """Seats at the table."""
        return self.rules.players

    @property
    def labels(self) -> tuple[str, ...]:
        """Names of the entrants by position: ``"1:random"``, ``"2:search:time=0.5"``…"""
        return tuple(f"{i + 1}:{spec}" for i, spec in enumerate(self.specs))

    @property
    def rotations(self) -> int:
        """Seat rotations each deal (or game) is played in: 1 without duplicate."""
        if not self.duplicate:
            return 1
        return 2 if self.pairwise else self.players

    @property
    def unit_name(self) -> str:
        """``"deal"`` or ``"game"``: the unit of independence."""
        return "deal" if self.mode == "rounds" else "game"

    def seating(self, rotation: int) -> tuple[int, ...]:
        """The entrant (index into :attr:`specs`) at each seat in ``rotation``.

        >>> ArenaConfig(("a", "b", "c", "d"), Rules(), "rounds", 1).seating(1)  # bot i at seat i+1
        (3, 0, 1, 2)
        >>> ArenaConfig(("a", "b"), Rules(), "rounds", 1, pairwise=True).seating(1)
        (1, 0, 1, 0)
        """
        n = self.players
        if self.pairwise:
            return tuple((s + rotation) % 2 for s in range(n))
        return tuple((s - rotation) % n for s in range(n))

    def to_dict(self) -> dict[str, Any]:
        """The configuration as a JSON-ready dict."""
        return {
            "specs": list(self.specs),
            "labels": list(self.labels),
            "rules": self.rules.to_dict(),
            "mode": self.mode,
            "count": self.count,
            "duplicate": self.duplicate,
            "pairwise": self.pairwise,
            "seed": self.seed,
            "jobs": self.jobs,
            "ray": self.ray,
            "on_bot_error": self.on_bot_error,
            "move_time": self.move_time,
            "players": self.players,
            "rotations": self.rotations,
            "seating": [list(self.seating(k)) for k in range(self.rotations)],
        }


@dataclass(frozen=True)
class RoundRecord:
    """One round played: which entrant sat where, and the outcome (seat-indexed tuples)."""

    unit: int
    """The deal (rounds mode) or game (games mode) index."""
    rotation: int
    round_number: int
    """The round number (decides the pass direction); in games mode the round's index in the game."""
    seats: tuple[int, ...]
    """The entrant at each seat."""
    points: tuple[int, ...]
    scores: tuple[int, ...]
    tricks_won: tuple[int, ...]
    shooter: int | None
    queen: int
    """The seat that took the Q♠."""
    moon_choice: str | None
    dealt: tuple[int, ...]
    """The hand dealt to each seat, as a card mask (bit ``i`` is card id ``i``)."""


@dataclass(frozen=True)
class GameRecord:
    """One game played: seating, final totals, winners and length."""

    unit: int
    rotation: int
    seats: tuple[int, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int


@dataclass(frozen=True)
class BotStats:
    """The results of one entrant. Points are per seat per round, using the round ``scores``
    (bonuses and the moon applied); lower is better."""

    index: int
    spec: str
    label: str
    rounds: int
    """Rounds played (counted per seat: in pairwise mode each of its two seats counts)."""
    points_total: int
    mean: float
    """Mean points per round."""
    ci_low: float | None
    """Lower end of the 95% confidence interval of :attr:`mean` (``None`` with fewer than two units)."""
    ci_high: float | None
    moons_shot: int
    moons_suffered: int
    """Rounds in which a seat of another entrant shot the moon."""
    queens_taken: int
    games: int
    """Games played (games mode), else 0."""
    wins: float
    """Games won, a shared win counting ``1/len(winners)``."""
    win_rate: float | None
    win_ci_low: float | None
    """Lower end of the 95% Wilson score interval of :attr:`win_rate` over the games played
    (:func:`wilson_interval`), ``None`` outside games mode."""
    win_ci_high: float | None
    decisions: int
    time_mean: float
    """Mean seconds per decision (``choose_pass``, ``choose_play``, ``choose_moon``)."""
    time_p95: float
    """95th percentile of the seconds per decision."""
    substituted: int = 0
    """Moves this entrant failed to make (it raised, answered an illegal move or ran out of
    time), each replaced by a random legal move (:mod:`hearts.bots.guard`)."""
    first_failure: str | None = None
    """The first of those failures, in one line (``None``: none)."""


@dataclass(frozen=True)
class ArenaResult:
    """Everything a tournament produced: per-entrant statistics and per-round/per-game records."""

    config: ArenaConfig
    bots: tuple[BotStats, ...]
    rounds: tuple[RoundRecord, ...]
    games: tuple[GameRecord, ...] = ()
    elapsed: float = 0.0

    def bot(self, label_or_index: str | int) -> BotStats:
        """The statistics of an entrant by label (``"1:random"``) or 0-based index."""
        if isinstance(label_or_index, int):
            return self.bots[label_or_index]
        for b in self.bots:
            if b.label == label_or_index:
                return b
        raise KeyError(label_or_index)

    def difference(self, first: int, second: int) -> tuple[float, float | None, float | None]:
        """Entrant ``first``'s points per round minus entrant ``second``'s (0-based), paired
        deal by deal (game by game): on duplicate deals both held the same hands, so the
        difference of their means over each deal cancels the luck of the deal. With its 95%
        interval (Student's t over the deals, within what points allow); negative: ``first``
        did better. :func:`paired_difference` compares one entrant across two tournaments.

        >>> result = run_arena(["heuristic", "random"], Rules(), rounds=3, seed=4, pairwise=True)
        >>> diff, low, high = result.difference(0, 1)
        >>> abs(diff - (result.bots[0].mean - result.bots[1].mean)) < 1e-9 and low < diff < high
        True
        """
        units: dict[int, list[float]] = {}
        for rec in self.rounds:
            unit = units.setdefault(rec.unit, [0.0, 0.0])
            for seat, e in enumerate(rec.seats):
                if e == first:
                    unit[0] += rec.scores[seat]
                    unit[1] += 1
                elif e == second:
                    unit[0] -= rec.scores[seat]
        low, high = round_score_bounds(self.config.rules)
        return ratio_ci([(x, n) for x, n in units.values()], bounds=(low - high, high - low))

    def difference_line(self, first: int, second: int) -> str:
        """:meth:`difference` as the line ``hearts arena`` prints (``--diff``, ``--pairwise``)."""
        cfg = self.config
        a, b = cfg.labels[first], cfg.labels[second]
        diff, low, high = self.difference(first, second)
        return (f"difference {a} - {b}: {diff:.3f} {interval_text(low, high, 3)} points per round, paired by "
                f"{cfg.unit_name} (95% CI over {counted(cfg.count, cfg.unit_name)}; negative: {a} did better)")

    def failure_lines(self) -> list[str]:
        """One line for each entrant that failed moves (:attr:`BotStats.substituted`): how many,
        and the first failure."""
        return [
            f"the bot {b.label!r} failed {counted(b.substituted, 'time')}, a random legal move was made for it "
            f"each time (first: {b.first_failure})"
            for b in self.bots
            if b.substituted
        ]

    def table(self) -> str:
        """A plain-text table of the results, one line per entrant."""
        cfg = self.config
        games_mode = cfg.mode == "games"
        columns: list[tuple[str, list[str]]] = [("bot", [b.label for b in self.bots])]
        columns.append(("pts/round", [f"{b.mean:.3f}" for b in self.bots]))
        columns.append(("95% CI", [interval_text(b.ci_low, b.ci_high, 3) for b in self.bots]))
        if games_mode:
            columns.append(("games", [str(b.games) for b in self.bots]))
            columns.append(("wins", [_number(b.wins) for b in self.bots]))
            columns.append(("win %", [_percent(b.win_rate) for b in self.bots]))
            columns.append(
                ("win % 95% CI", [interval_text(b.win_ci_low, b.win_ci_high, 1, 100) for b in self.bots])
            )
        columns.append(("moons", [str(b.moons_shot) for b in self.bots]))
        columns.append(("suffered", [str(b.moons_suffered) for b in self.bots]))
        columns.append(("Q♠", [str(b.queens_taken) for b in self.bots]))
        columns.append(("rounds", [str(b.rounds) for b in self.bots]))
        columns.append(("ms/move", [f"{b.time_mean * 1e3:.3f}" for b in self.bots]))
        columns.append(("p95 ms", [f"{b.time_p95 * 1e3:.3f}" for b in self.bots]))
        widths = [max(len(h), *(len(v) for v in vals)) for h, vals in columns]

        def line(cells: Sequence[str]) -> str:
            parts = [cells[0].ljust(widths[0])]
            parts += [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
            return "  ".join(parts).rstrip()

        played = len(self.games) if games_mode else len(self.rounds)
        what = "game" if games_mode else "round"
        kind = "duplicate" if cfg.duplicate else "no duplicate"
        if cfg.pairwise:
            kind += ", pairwise"
        head = [
            f"arena: {counted(cfg.count, cfg.unit_name)} x {counted(cfg.rotations, 'seat rotation')} ({kind}) "
            f"= {counted(played, what)}; seed {cfg.seed}; {self.elapsed:.1f} s on {workers_text(cfg.jobs, cfg.ray)}",
            f"rules: {cfg.rules.describe()}",
            "",
            line([h for h, _ in columns]),
            line(["-" * w for w in widths]),
        ]
        body = [line([vals[i] for _, vals in columns]) for i in range(len(self.bots))]
        unit = cfg.unit_name
        foot = [
            "",
            f"pts/round: mean round score per seat (lower is better); 95% CI over "
            f"{counted(cfg.count, unit)}" + (f", each {unit} averaged over its rotations" if cfg.rotations > 1 else "")
            + " (Student's t, within what a round's points allow)",
            "moons: shot / suffered (shot by another entrant); Q♠: times taken; ms/move: per decision",
        ]
        if games_mode:
            foot.append("win % 95% CI: Wilson score interval over the games played")
        return "\n".join(head + body + foot)

    def to_dict(self) -> dict[str, Any]:
        """All results as a JSON-ready dict: ``version``, ``config``, ``elapsed``, ``bots``
        (per-entrant statistics), ``rounds`` (one record per round played) and ``games``."""
        return {
            "version": JSON_VERSION,
            "config": self.config.to_dict(),
            "elapsed": self.elapsed,
            "bots": [asdict(b) for b in self.bots],
            "rounds": [asdict(r) for r in self.rounds],
            "games": [asdict(g) for g in self.games],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)


# --- statistics ---------------------------------------------------------------------------------


def ratio_ci(
    units: Sequence[tuple[float, float]], level: float = 0.95, bounds: tuple[float, float] | None = None
) -> tuple[float, float | None, float | None]:
    """The ratio ``sum(x) / sum(n)`` over independent units ``(x, n)`` and its ``level``
    confidence interval: Student's t with ``U - 1`` degrees of freedom over the ``U`` units
    (delta method for unequal ``n``), so that a few deals get the wide interval they deserve;
    cut to ``bounds`` (what a round's points allow: :func:`round_score_bounds`) when given. With
    equal ``n`` this is the plain mean of ``x / n`` and its usual ``t * s / sqrt(U)`` interval.
    The interval is ``None`` with fewer than two units.

    >>> mean, low, high = ratio_ci([(6, 1), (8, 1), (7, 1)])
    >>> mean, round(low, 3), round(high, 3)
    (7.0, 4.516, 9.484)
    >>> ratio_ci([(12, 2), (16, 2), (14, 2)])[0]  # per-unit means 6, 8, 7
    7.0
    >>> ratio_ci([(0, 1), (0, 1), (3, 1)], bounds=(0, 26))[1]  # not below what points allow
    0.0
    >>> ratio_ci([(5, 1)])
    (5.0, None, None)
    """
    total_n = sum(n for _, n in units)
    if not units or total_n <= 0:
        return 0.0, None, None
    mean = sum(x for x, _ in units) / total_n
    count = len(units)
    if count < 2:
        return mean, None, None
    mean_n = total_n / count
    var = sum((x - mean * n) ** 2 for x, n in units) / (count * (count - 1))
    half = t_quantile((1 + level) / 2, count - 1) * math.sqrt(var) / mean_n
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(low, float(bounds[0])), min(high, float(bounds[1]))
    return mean, low, high


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of freedom, in pure
    Python: the root of its distribution function (:func:`_t_tail`, by the regularized
    incomplete beta function), or for ``df`` over 1000 the Cornish-Fisher expansion around
    the normal quantile. Raises :class:`ValueError` unless ``0 < p < 1`` and ``df > 0``.

    >>> round(t_quantile(0.975, 2), 3), round(t_quantile(0.975, 9), 3), round(t_quantile(0.975, 29), 3)
    (4.303, 2.262, 2.045)
    """
    if not 0 < p < 1 or not df > 0:
        raise ValueError(f"a t quantile needs 0 < p < 1 and df > 0, not p={p}, df={df}")
    if p < 0.5:
        return -t_quantile(1 - p, df)
    if p == 0.5:
        return 0.0
    if df > 1000:
        z = statistics.NormalDist().inv_cdf(p)
        return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
                + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))
    tail = 1 - p
    low, high = 0.0, 1.0
    while _t_tail(high, df) > tail:
        low, high = high, high * 2
    for _ in range(200):  # bisection: the tail falls as t grows
        mid = (low + high) / 2
        if _t_tail(mid, df) > tail:
            low = mid
        else:
            high = mid
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2


def _t_tail(t: float, df: float) -> float:
    """``P(T > t)`` for ``t >= 0``: half the regularized incomplete beta ``I_x(df/2, 1/2)`` at
    ``x = df / (df + t²)``."""
    return 0.5 * _beta_regularized(df / 2, 0.5, df / (df + t * t))


def _beta_regularized(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` (its continued fraction, evaluated
    by Lentz's method, on the side of ``x`` where it converges fast)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def round_score_bounds(rules: Rules) -> tuple[int, int]:
    """The lowest and the highest score a seat can make in one round under ``rules`` (R4):
    what its points per round (and an interval of them) may be. The point cards make 0 to 26
    (43 with Black Maria's spades, R4.5), the J♦ (R4.2) and taking no trick (R4.3) add their
    bonus, and a moon shot (R4.4) gives the others those points or, where the shooter may
    subtract, the shooter minus them.

    >>> round_score_bounds(Rules()), round_score_bounds(Rules(jack_of_diamonds=-10, moon="subtract_from_self"))
    ((0, 26), (-36, 26))
    """
    jack, worth = rules.jack_of_diamonds, rules.round_points
    low = min(0, jack, rules.no_tricks_bonus)
    if rules.moon != "add_to_others":
        low = min(low, -worth + min(0, jack))
    return low, max(worth + max(0, jack), rules.no_tricks_bonus)


def paired_difference(
    first: ArenaResult, second: ArenaResult, entrant: int = 0
) -> tuple[float, float | None, float | None]:
    """Entrant ``entrant``'s points per round in ``first`` minus in ``second``, paired deal by
    deal, with its 95% confidence interval: for two tournaments that differ only in that
    entrant's spec, with the same seed, so both played the same deals in the same seats against
    opponents drawing the same random numbers. Negative: ``first`` did better.

    Raises :class:`~hearts.errors.HeartsError` unless both played the same deals (rounds mode,
    the same rules, number of deals, seed and seating).

    >>> a = run_arena(["random"] * 4, Rules(), rounds=3, seed=5)
    >>> b = run_arena(["heuristic", "random", "random", "random"], Rules(), rounds=3, seed=5)
    >>> diff, low, high = paired_difference(a, b)
    >>> abs(diff - (a.bots[0].mean - b.bots[0].mean)) < 1e-9 and low < diff < high
    True
    """
    a, b = first.config, second.config
    same = (a.mode, a.rules, a.count, a.seed, a.duplicate, a.pairwise) == (
        b.mode, b.rules, b.count, b.seed, b.duplicate, b.pairwise)
    if a.mode != "rounds" or not same:
        raise HeartsError("a paired difference needs two tournaments of the same deals: rounds mode, "
                          "the same rules, number of deals, seed and seating")
    sums: dict[int, list[float]] = {}
    dealt: dict[tuple[int, int], tuple[int, ...]] = {}
    for sign, result in ((1, first), (-1, second)):
        for rec in result.rounds:
            if dealt.setdefault((rec.unit, rec.rotation), rec.dealt) != rec.dealt:
                raise HeartsError(f"deal {rec.unit} differs between the two tournaments")
            unit = sums.setdefault(rec.unit, [0.0, 0.0])
            for seat, e in enumerate(rec.seats):
                if e == entrant:
                    unit[0] += sign * rec.scores[seat]
                    unit[1] += sign == 1
    low, high = round_score_bounds(a.rules)
    return ratio_ci([(sums[u][0], sums[u][1]) for u in sorted(sums)], bounds=(low - high, high - low))


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of the proportion ``successes / trials`` (95% by default):
    unlike the normal approximation it stays within [0, 1] and is never a point at 0 or at
    every trial (``successes`` may be fractional: a shared win). Raises :class:`ValueError`
    unless ``0 <= successes <= trials`` and ``trials > 0``.

    >>> [round(x, 3) for x in wilson_interval(0, 8)], [round(x, 3) for x in wilson_interval(4, 4)]
    ([0.0, 0.324], [0.51, 1.0])
    >>> [round(x, 3) for x in wilson_interval(50, 100)]
    [0.404, 0.596]
    """
    if not 0 <= successes <= trials or trials <= 0:
        raise ValueError(f"a proportion needs 0 <= successes <= trials, trials > 0: not {successes} of {trials}")
    p, zz = successes / trials, z * z / trials
    centre = (p + zz / 2) / (1 + zz)
    half = z * math.sqrt(p * (1 - p) / trials + zz / (4 * trials)) / (1 + zz)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 for no values).

    >>> percentile([5, 1, 4, 2, 3], 95), percentile([5, 1, 4, 2, 3], 50), percentile([], 95)
    (5, 3, 0.0)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


# --- playing ------------------------------------------------------------------------------------


def derive_seed(*parts: object) -> int:
    """A 64-bit seed from the parts (stable across runs and platforms, unlike ``hash()``).

    >>> derive_seed(0, "deal", 3) == derive_seed(0, "deal", 3) != derive_seed(0, "deal", 4)
    True
    """
    return random.Random(":".join(map(str, parts))).getrandbits(64)


@dataclass
class _ChunkResult:
    rounds: list[RoundRecord] = field(default_factory=list)
    games: list[GameRecord] = field(default_factory=list)
    times: list[list[float]] = field(default_factory=list)
    """Seconds per decision, by entrant."""
    failures: dict[int, tuple[int, tuple[int, int, int], str]] = field(default_factory=dict)
    """By entrant: how many moves it failed, and the first failure (its place, its line)."""


def _drive(
    target: Game | Round,
    bots: Sequence[Bot],
    seats: Sequence[int],
    out: _ChunkResult,
    place: tuple[ArenaConfig, int, int],
    on_round: Callable[[], None] = lambda: None,
) -> None:
    """Let the bots play ``target`` to its end, timing every decision (``bot.act``), calling
    ``on_round`` once each round is over. ``place`` is the tournament, the unit and the
    rotation: a bot that fails (raises, answers an illegal move, runs past the move time) is
    stood in for by a random legal move and counted, or (``"stop"``) is an :class:`ArenaError`
    (:func:`hearts.bots.guard.decide`)."""
    cfg, unit, rotation = place
    where = f" ({cfg.unit_name} {unit}, rotation {rotation})"
    seed = derive_seed(cfg.seed, "substitute", unit, rotation)
    rounds_over = 0
    while actors := target.actors():
        for seat in actors:
            entrant = seats[seat]
            try:
                decision = decide(target, seat, bots[seat], policy=cfg.on_bot_error, seed=seed,
                                  time_limit=cfg.move_time, label=cfg.labels[entrant], where=where)
            except BotFailure as e:
                raise ArenaError(str(e)) from None
            out.times[entrant].append(decision.seconds)
            if decision.fault is not None:
                count, first, line = out.failures.get(entrant, (0, (unit, rotation, len(out.times[entrant])),
                                                                decision.fault.failure))
                out.failures[entrant] = (count + 1, first, line)
            target.apply(decision.action)
        now_over = len(target.score_history) if isinstance(target, Game) else int(target.is_over)
        if now_over != rounds_over:
            rounds_over = now_over
            on_round()


def _record(unit: int, rotation: int, seats: tuple[int, ...], r: Round) -> RoundRecord:
    result = r.result
    assert result is not None
    queen = next(s for s in range(r.players) if QUEEN_OF_SPADES in r.won_cards(s))
    return RoundRecord(
        unit=unit,
        rotation=rotation,
        round_number=r.round_number,
        seats=seats,
        points=result.points,
        scores=result.scores,
        tricks_won=result.tricks_won,
        shooter=result.shooter,
        queen=queen,
        moon_choice=result.moon_choice,
        dealt=tuple(h.mask for h in r.dealt),
    )


def _play_unit(cfg: ArenaConfig, unit: int, out: _ChunkResult) -> None:
    """Play deal (or game) ``unit`` in every rotation."""
    rules = cfg.rules
    hands = deal_hands(rules, derive_seed(cfg.seed, "deal", unit)) if cfg.mode == "rounds" else None
    for rotation in range(cfg.rotations):
        seats = cfg.seating(rotation)
        bots = [
            make_bot(cfg.specs[e], seed=derive_seed(cfg.seed, "bot", unit, rotation, s)) for s, e in enumerate(seats)
        ]
        if hands is not None:
            r = Round(rules, hands, round_number=unit)
            _drive(r, bots, seats, out, (cfg, unit, rotation), lambda: report_progress(1 / cfg.rotations))
            out.rounds.append(_record(unit, rotation, seats, r))
        else:
            game = Game(rules, derive_seed(cfg.seed, "game", unit))
            _drive(game, bots, seats, out, (cfg, unit, rotation), _GameProgress(game, 1 / cfg.rotations))
            out.rounds.extend(_record(unit, rotation, seats, r) for r in game.rounds)
            assert game.winners is not None
            out.games.append(GameRecord(unit, rotation, seats, tuple(game.totals), game.winners, len(game.rounds)))


@dataclass
class _GameProgress:
    """Called at the end of each round of ``game``: reports how far the game has gone, as the
    leader's total over the target (all of ``share`` once it is over); a game's length is not
    known before it ends."""

    game: Game
    share: float
    done: float = 0.0

    def __call__(self) -> None:
        game = self.game
        now = 1.0 if game.is_over else min(1.0, max(self.done, max(game.totals) / game.rules.target))
        report_progress((now - self.done) * self.share)
        self.done = now


def _play_chunk(job: tuple[ArenaConfig, Sequence[int]]) -> _ChunkResult:
    """Worker entry point: play some units of a tournament (bots are built here, from their
    specs). The compiled kernel is loaded first (:func:`hearts.fast.prepare`, once a process),
    so that no bot's decision is timed with numba loading or compiling it."""
    cfg, units = job
    fast.prepare(lambda line: None)  # else the first decision of a search bot counts ~0.1-30 s more
    out = _ChunkResult(times=[[] for _ in cfg.specs])
    for unit in units:
        _play_unit(cfg, unit, out)
    return out


# --- where the chunks run -----------------------------------------------------------------------


def chunked(count: int, jobs: int) -> list[range]:
    """Units ``0 … count-1`` cut into chunks for ``jobs`` workers: about four a worker (at least
    50 chunks when there are that many units), so that the load balances and progress shows.

    >>> chunked(10, 2)
    [range(0, 1), range(1, 2), range(2, 3), range(3, 4), range(4, 5), range(5, 6), range(6, 7), range(7, 8), range(8, 9), range(9, 10)]
    >>> [len(c) for c in chunked(1000, 4)][:3], len(chunked(1000, 4))
    ([20, 20, 20], 50)
    """
    size = max(1, math.ceil(count / max(4 * jobs, min(count, 50))))
    return [range(i, min(i + size, count)) for i in range(0, count, size)]


_progress_sink: Callable[[float], None] | None = None
"""Where :func:`report_progress` sends what it is told in this process (set by :func:`run_chunks`)."""


def report_progress(amount: float) -> None:
    """Called by a task of :func:`run_chunks` as it goes: ``amount`` more of the work is done
    (in the caller's units), for the caller's ``on_progress``; nothing when no one listens.

    >>> report_progress(0.25)  # outside run_chunks: no one listens
    """
    if _progress_sink is not None:
        _progress_sink(amount)


def _listen(queue: Any) -> None:
    """A worker process's initializer: its :func:`report_progress` goes to the parent by ``queue``."""
    global _progress_sink
    _progress_sink = queue.put


def connect_ray(address: str, cpus: int | None = None) -> ModuleType:
    """The ``ray`` module, connected: to the Ray this process already uses, else with
    ``ray.init(address=address)`` (:data:`LOCAL_RAY`: a new instance here, of ``cpus`` CPUs, all
    by default; ``"auto"``, ``"HOST:6379"`` or ``"ray://HOST:10001"``: an existing cluster).
    Raises :class:`~hearts.errors.HeartsError` when Ray is not installed or cannot connect."""
    try:
        ray = importlib.import_module("ray")  # the cluster extra; never imported otherwise
    except ModuleNotFoundError:
        raise HeartsError("--ray needs Ray: install pyhearts[cluster] (pip install 'pyhearts[cluster]')") from None
    if not ray.is_initialized():
        check_ray_address(address)  # ray.init waits minutes on an address where nothing answers
        options: dict[str, Any] = {"num_cpus": cpus} if address == LOCAL_RAY else {}
        try:
            ray.init(address=address, include_dashboard=False, logging_level=logging.ERROR, **options)
        except (ConnectionError, RuntimeError, ValueError) as e:
            what = "start" if address == LOCAL_RAY else "reach"
            raise HeartsError(f"cannot {what} Ray at {address!r}: {ray_reason(e)}; {RAY_ADVICE}") from None
    return ray


RAY_ADVICE: Final = (
    "give the address of a running Ray cluster's head (HOST:6379, ray://HOST:10001), or --ray alone for a Ray "
    "instance here"
)
"""What to do when ``--ray ADDRESS`` leads nowhere, in the words of hearts's own flags."""


def ray_reason(error: BaseException) -> str:
    """Ray's message for ``error`` without its advice on flags and settings of its own
    (``--address``, ``RAY_ADDRESS``), which hearts does not have: the sentences that name none.

    >>> ray_reason(ConnectionError("Could not find any running Ray instance. Please specify the one to "
    ...                            "connect to by setting `--address` flag or `RAY_ADDRESS` environment variable."))
    'Could not find any running Ray instance'
    >>> ray_reason(RuntimeError("--address only"))
    'RuntimeError'
    """
    sentences = [part.strip().rstrip(".") for part in str(error).replace("\n", " ").split(". ")]
    kept = [part for part in sentences if part and not any(w in part for w in ("--", "RAY_", "flag", "ray."))]
    return ". ".join(kept) or type(error).__name__


HTTP2_PREFACE: Final = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""What a gRPC client (Ray's) says first: HTTP/2's preface and an empty SETTINGS frame."""


def check_ray_address(address: str, timeout: float = RAY_CONNECT_TIMEOUT) -> None:
    """Raise :class:`~hearts.errors.HeartsError` at once (within about ``timeout`` seconds)
    when no Ray answers at a Ray address ``HOST:PORT`` or ``ray://HOST:PORT``, where ``ray.init``
    would wait for minutes: when nothing accepts a connection there, or what does is not Ray
    (it does not answer HTTP/2's preface with a SETTINGS frame, as Ray's gRPC servers do). Other
    addresses (:data:`LOCAL_RAY`, ``"auto"``, one without a port) are left to Ray, which
    reports them at once.

    >>> import socket
    >>> with socket.socket() as s:  # a port nothing listens on
    ...     s.bind(("127.0.0.1", 0))
    ...     port = s.getsockname()[1]
    >>> check_ray_address(f"127.0.0.1:{port}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hearts.errors.HeartsError: cannot reach Ray at '127.0.0.1:...': nothing answers there (...); ...
    >>> with socket.create_server(("127.0.0.1", 0)) as server:  # accepts, never answers
    ...     check_ray_address(f"127.0.0.1:{server.getsockname()[1]}", timeout=0.2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hearts.errors.HeartsError: cannot reach Ray at '127.0.0.1:...': something answers there, but not as Ray does (no answer to its protocol within 0.2 s); ...
    >>> check_ray_address(LOCAL_RAY), check_ray_address("auto")
    (None, None)
    """
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit() or not host:
        return
    try:
        sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
    except OSError as e:
        reason = "timed out" if isinstance(e, TimeoutError) else e.strerror or str(e)
        raise HeartsError(
            f"cannot reach Ray at {address!r}: nothing answers there ({reason}); {RAY_ADVICE}"
        ) from None
    with sock:
        try:
            sock.sendall(HTTP2_PREFACE)
            head = b""
            while len(head) < 9 and (more := sock.recv(9 - len(head))):
                head += more
            answer = "" if len(head) == 9 and head[3] == 4 else "its answer is not Ray's"
            if not head:
                answer = "it closed the connection"
        except TimeoutError:
            answer = f"no answer to its protocol within {timeout:g} s"
        except OSError as e:
            answer = e.strerror or str(e)
    if answer:
        raise HeartsError(
            f"cannot reach Ray at {address!r}: something answers there, but not as Ray does ({answer}); {RAY_ADVICE}"
        )


def ray_cpus(ray: ModuleType) -> int:
    """The CPUs of the cluster ``ray`` is connected to."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_chunks(
    task: Callable[[T], R],
    chunks: Sequence[T],
    jobs: int = 1,
    ray: ModuleType | None = None,
    on_progress: Callable[[float], None] | None = None,
) -> Iterator[tuple[int, R]]:
    """``(i, task(chunks[i]))`` for every chunk, as each finishes (in any order): computed in this
    process (``jobs`` 1), in ``jobs`` worker processes, or as Ray tasks (``ray``: the module,
    connected by :func:`connect_ray`). ``task`` must be a module-level function (the workers
    import it by name); an exception it raises is raised here as itself (not wrapped by Ray).
    Closing the iterator early cancels the chunks not started.

    With ``on_progress``, what the tasks say with :func:`report_progress` while they run is
    passed to it here, in this process and from the worker processes (about ten times a
    second); not from Ray tasks, which only finish."""
    if ray is not None:
        remote = ray.remote(task)
        refs = {remote.remote(chunk): i for i, chunk in enumerate(chunks)}
        waiting = list(refs)
        try:
            while waiting:
                ready, waiting = ray.wait(waiting, num_returns=1)
                for ref in ready:
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:
                        raise (e.cause if isinstance(e.cause, Exception) else e) from None
                    yield refs[ref], result
        finally:
            for ref in waiting:
                ray.cancel(ref)
    elif jobs == 1:
        yield from _run_here(task, chunks, on_progress)
    else:
        yield from _run_in_processes(task, chunks, jobs, on_progress)


def _run_here(
    task: Callable[[T], R], chunks: Sequence[T], on_progress: Callable[[float], None] | None
) -> Iterator[tuple[int, R]]:
    global _progress_sink
    for i, chunk in enumerate(chunks):
        before, _progress_sink = _progress_sink, on_progress
        try:
            result = task(chunk)
        finally:
            _progress_sink = before
        yield i, result


def _run_in_processes(
    task: Callable[[T], R], chunks: Sequence[T], jobs: int, on_progress: Callable[[float], None] | None
) -> Iterator[tuple[int, R]]:
    context = multiprocessing.get_context()
    said = context.Queue() if on_progress is not None else None
    listen: dict[str, Any] = {"initializer": _listen, "initargs": (said,)} if said is not None else {}

    def hear() -> None:
        while said is not None and on_progress is not None:
            try:
                on_progress(said.get_nowait())
            except queue.Empty:
                return

    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, **listen) as pool:
        pending: dict[Future[R], int] = {pool.submit(task, chunk): i for i, chunk in enumerate(chunks)}
        try:
            while pending:
                finished, _ = wait(pending, timeout=0.1 if said else None, return_when=FIRST_COMPLETED)
                hear()
                for fut in finished:
                    yield pending.pop(fut), fut.result()
            hear()
        finally:
            for fut in pending:
                fut.cancel()
            if said is not None:
                said.close()


def default_jobs(jobs: int | None, ray: str | None) -> int:
    """``--jobs`` as given; else one worker process, or on Ray every CPU (``0``).

    >>> default_jobs(None, None), default_jobs(None, LOCAL_RAY), default_jobs(2, LOCAL_RAY)
    (1, 0, 2)
    """
    return jobs if jobs is not None else 0 if ray is not None else 1


def counted(count: int, noun: str) -> str:
    """A count and a regular noun that agree: ``1 deal``, ``3 deals`` (the arena's own, below
    :func:`hearts.text.plural`'s layer).

    >>> counted(1, "deal"), counted(3, "seat rotation")
    ('1 deal', '3 seat rotations')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def workers_text(jobs: int, ray: str | None) -> str:
    """Where the work runs, as text: ``"2 jobs"``, or ``"Ray (local, 2 CPUs)"``.

    >>> workers_text(1, None), workers_text(8, "auto")
    ('1 job', 'Ray (auto, 8 CPUs)')
    """
    if ray is not None:
        return f"Ray ({ray}, {counted(jobs, 'CPU')})"
    return counted(jobs, "job")


# --- aggregation --------------------------------------------------------------------------------


def _aggregate(
    cfg: ArenaConfig,
    rounds: Sequence[RoundRecord],
    games: Sequence[GameRecord],
    times: list[list[float]],
    failures: dict[int, tuple[int, tuple[int, int, int], str]] | None = None,
) -> tuple[BotStats, ...]:
    failures = failures or {}
    k = len(cfg.specs)
    points: list[dict[int, list[float]]] = [{} for _ in range(k)]  # unit -> [points, rounds]
    shot, suffered, queens, totals = [0] * k, [0] * k, [0] * k, [0] * k
    for rec in rounds:
        for seat, e in enumerate(rec.seats):
            acc = points[e].setdefault(rec.unit, [0.0, 0.0])
            acc[0] += rec.scores[seat]
            acc[1] += 1
            totals[e] += rec.scores[seat]
            if rec.shooter == seat:
                shot[e] += 1
            elif rec.shooter is not None and rec.seats[rec.shooter] != e:
                suffered[e] += 1
            if rec.queen == seat:
                queens[e] += 1
    wins: list[dict[int, list[float]]] = [{} for _ in range(k)]  # unit -> [wins, games]
    for g in games:
        share = 1 / len(g.winners)
        for e in set(g.seats):
            acc = wins[e].setdefault(g.unit, [0.0, 0.0])
            acc[0] += share * sum(1 for s in g.winners if g.seats[s] == e)
            acc[1] += 1
    stats = []
    bounds = round_score_bounds(cfg.rules)
    for e in range(k):
        mean, low, high = ratio_ci([(x, n) for x, n in points[e].values()], bounds=bounds)
        games_played = int(sum(n for _, n in wins[e].values()))
        won = sum(x for x, _ in wins[e].values())
        win_rate: float | None = None
        win_low = win_high = None
        if games_played:
            win_rate = won / games_played
            win_low, win_high = wilson_interval(won, games_played)
        t = times[e]
        stats.append(
            BotStats(
                index=e,
                spec=cfg.specs[e],
                label=cfg.labels[e],
                rounds=int(sum(n for _, n in points[e].values())),
                points_total=totals[e],
                mean=mean,
                ci_low=low,
                ci_high=high,
                moons_shot=shot[e],
                moons_suffered=suffered[e],
                queens_taken=queens[e],
                games=games_played,
                wins=won,
                win_rate=win_rate,
                win_ci_low=win_low,
                win_ci_high=win_high,
                decisions=len(t),
                time_mean=sum(t) / len(t) if t else 0.0,
                time_p95=percentile(t, 95),
                substituted=failures[e][0] if e in failures else 0,
                first_failure=failures[e][2] if e in failures else None,
            )
        )
    return tuple(stats)


# --- progress -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProgressWords:
    """What a :class:`Progress` says besides its numbers: ``count(n)``, a number of its units
    (``None``: the arena's English, :func:`counted`), and its last line's and the time left's
    words, with ``{count}`` and ``{seconds}`` (given as text). A player's command (``hearts
    analyze``) gives them in the player's language."""

    count: Callable[[int], str] | None = None
    done: str = "done, {count} in {seconds} s"
    eta: str = "eta {seconds} s"


class Progress:
    """A progress report on a text stream: a bar redrawn in place (``"bar"``), a start and an
    end line (``"lines"``, for logs and pipes, each starting with ``name:``) or nothing (``"off"``),
    in the arena's English or in ``words``."""

    def __init__(
        self, total: int, unit: str, mode: ProgressMode, stream: TextIO | None = None, name: str = "arena",
        words: ProgressWords = ProgressWords(),
    ) -> None:
        self.total = total
        self.unit = unit
        self.mode = mode
        self.stream = stream if stream is not None else sys.stderr
        self.name = name
        self.words = words
        self.done: float = 0
        self.label = ""
        self.start = time.perf_counter()
        self._last = 0.0

    def begin(self, what: str) -> None:
        """Announce the run."""
        if self.mode == "lines":
            self._write(f"{self.name}: {what}\n")
        elif self.mode == "bar":
            self._draw(force=True)

    def advance(self, n: float, label: str | None = None) -> None:
        """``n`` more units are done, a fraction of one too (a round of a deal's rotations, of
        a game), and, optionally, what is being done now."""
        self.done += n
        if label is not None:
            self.label = label
        if self.mode == "bar":
            self._draw(force=self.done >= self.total)

    def end(self) -> None:
        """Finish the report."""
        elapsed = time.perf_counter() - self.start
        if self.mode == "bar":
            self._draw(force=True)
            self._write("\n")
        elif self.mode == "lines":
            done = self.words.done.format(count=self.count(round(self.done)), seconds=f"{elapsed:.1f}")
            self._write(f"{self.name}: {done}\n")

    def count(self, n: int) -> str:
        """``n`` of the units counted, in words."""
        return self.words.count(n) if self.words.count is not None else counted(n, self.unit)

    def _draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        elapsed = now - self.start
        frac = self.done / self.total if self.total else 1.0
        width = 30
        filled = int(frac * width)
        eta = self.words.eta.format(seconds=f"{elapsed / frac - elapsed:5.1f}") if 0 < frac < 1 else " " * 11
        self._write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {math.floor(self.done + 1e-9)}/{self.count(self.total)} "
            f"{frac:4.0%} {elapsed:6.1f} s {eta} {self.label:<30.30}"
        )

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def progress_mode(progress: bool | ProgressMode) -> ProgressMode:
    """The mode of a ``progress`` argument: ``True`` is a bar on a terminal (stderr) and lines
    otherwise, ``False`` is off.

    >>> progress_mode(False), progress_mode("lines")
    ('off', 'lines')
    """
    if progress is True:
        return "bar" if sys.stderr.isatty() else "lines"
    return "off" if progress is False else progress


# --- the API ------------------------------------------------------------------------------------


def check_specs(specs: Sequence[str], rules: Rules) -> None:
    """Build each bot once to check its spec, and check that it can play ``rules``
    (:func:`~hearts.bots.check_table`); raise :class:`HeartsError` naming a bad one."""
    for spec in specs:
        try:
            make_bot(spec, seed=0)
        except HeartsError:
            raise
        except (TypeError, ValueError) as e:
            raise HeartsError(f"bot spec {spec!r}: {e}") from None
    check_table(list(specs), rules)


def _checked(
    specs: tuple[str, ...],
    rules: Rules,
    rounds: int | None,
    games: int | None,
    pairwise: bool,
    jobs: int,
    on_bot_error: BotErrorPolicy,
    move_time: float | None,
) -> tuple[Mode, int]:
    """:func:`run_arena`'s arguments checked (:class:`~hearts.errors.HeartsError` for a bad
    one): what it counts (rounds or games) and how many."""
    if rounds is not None and games is not None:
        raise HeartsError("give either rounds or games, not both")
    mode: Mode = "games" if games is not None else "rounds"
    count = games if games is not None else rounds if rounds is not None else DEFAULT_ROUNDS
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise HeartsError(f"the number of {mode} must be a positive whole number, not {count!r}")
    if pairwise:
        if len(specs) != 2:
            raise HeartsError(f"pairwise play takes exactly two bot specs, not {len(specs)}")
        if rules.players != 4:
            raise HeartsError(f"pairwise play is for 4 players, not {rules.players}")
    elif len(specs) != rules.players:
        raise HeartsError(f"{rules.players} players need {rules.players} bot specs, got {len(specs)}")
    check_specs(specs, rules)
    if jobs < 0:
        raise HeartsError(f"jobs must be 0 (one per CPU) or more, not {jobs}")
    if on_bot_error not in BOT_ERROR_POLICIES:
        raise HeartsError(f"on_bot_error must be one of {', '.join(BOT_ERROR_POLICIES)}, not {on_bot_error!r}")
    if move_time is not None and not move_time >= 0:  # nan too
        raise HeartsError(f"move_time must be a number of seconds, 0 (no limit) or more, not {move_time!r}")
    return mode, count


def run_arena(
    specs: Sequence[str],
    rules: Rules | None = None,
    rounds: int | None = None,
    games: int | None = None,
    duplicate: bool = True,
    jobs: int = 1,
    seed: int = 0,
    progress: bool | ProgressMode = False,
    pairwise: bool = False,
    ray: str | None = None,
    on_bot_error: BotErrorPolicy = DEFAULT_BOT_ERROR,
    move_time: float | None = DEFAULT_MOVE_TIME,
) -> ArenaResult:
    """Play a tournament and return its results.

    ``specs`` has one bot spec per seat (``rules.players`` of them), or two with ``pairwise``
    (four players). Give ``rounds`` (deals; the default mode, 100 deals) or ``games``. With
    ``duplicate`` each deal is played in every seat rotation. ``jobs`` worker processes share
    the work (``0``: one per CPU); or, with ``ray`` (an address for :func:`connect_ray`, e.g.
    :data:`LOCAL_RAY`), Ray tasks do (``jobs``: the CPUs of a local instance, ``0`` all). The
    results do not depend on either. ``progress`` shows progress on stderr: ``True`` draws a
    bar on a terminal and prints a start and an end line otherwise. A bot that fails a move
    (raises, answers an illegal move, or thinks longer than ``move_time`` seconds; ``None`` or
    0: no limit) gets a random legal move made for it, counted in :attr:`BotStats.substituted`,
    or with ``on_bot_error="stop"`` ends the tournament (:mod:`hearts.bots.guard`).

    Raises :class:`~hearts.errors.HeartsError` for a bad configuration or bot spec, and
    :class:`ArenaError` when a bot fails during play under ``"stop"``.

    >>> result = run_arena(["random", "random"], Rules(target=30), games=2, pairwise=True, seed=3)
    >>> [b.games for b in result.bots], sum(b.wins for b in result.bots)
    ([4, 4], 4.0)
    """
    rules = rules if rules is not None else Rules()
    specs = tuple(specs)
    mode, count = _checked(specs, rules, rounds, games, pairwise, jobs, on_bot_error, move_time)
    cluster = connect_ray(ray, jobs or None) if ray is not None else None
    jobs = ray_cpus(cluster) if cluster is not None else jobs or os.cpu_count() or 1
    jobs = min(jobs, count)
    cfg = ArenaConfig(specs, rules, mode, count, duplicate, pairwise, seed, jobs, ray, on_bot_error, move_time or None)

    bar = Progress(count, cfg.unit_name, progress_mode(progress))
    bar.begin(
        f"{counted(count, cfg.unit_name)} x {counted(cfg.rotations, 'seat rotation')}, "
        f"{', '.join(cfg.labels)}, {workers_text(jobs, ray)}, seed {seed}"
    )
    started = time.perf_counter()
    chunks, parts = chunked(count, jobs), []
    each_round = cluster is None  # a Ray task only says when it is done: progress by chunk
    work = [(cfg, chunk) for chunk in chunks]
    for i, part in run_chunks(_play_chunk, work, jobs, cluster, bar.advance if each_round else None):
        parts.append(part)
        if not each_round:
            bar.advance(len(chunks[i]))
    bar.advance(count - bar.done)  # what the sum of the rounds' fractions leaves
    bar.end()
    elapsed = time.perf_counter() - started

    round_records = sorted(
        (r for p in parts for r in p.rounds), key=lambda r: (r.unit, r.rotation, r.round_number)
    )
    game_records = sorted((g for p in parts for g in p.games), key=lambda g: (g.unit, g.rotation))
    times: list[list[float]] = [[] for _ in specs]
    for p in parts:
        for e, t in enumerate(p.times):
            times[e].extend(t)
    failures: dict[int, tuple[int, tuple[int, int, int], str]] = {}
    for p in parts:
        for e, (n, first, line) in p.failures.items():
            before = failures.get(e, (0, first, line))
            failures[e] = (before[0] + n, *min(before[1:], (first, line)))
    stats = _aggregate(cfg, round_records, game_records, times, failures)
    return ArenaResult(cfg, stats, tuple(round_records), tuple(game_records), elapsed)


# --- the command line ---------------------------------------------------------------------------


def add_distribution_args(p: argparse.ArgumentParser, work: str, outcome: str) -> None:
    """Add ``--jobs`` and ``--ray`` (where the deals run: :func:`run_chunks`) to a parser."""
    p.add_argument(
        "--jobs", "-j", type=int, metavar="J",
        help="worker processes (0: one per CPU; default 1); with --ray alone, the CPUs of the local "
        "Ray instance (default: all)",
    )
    p.add_argument(
        "--ray", nargs="?", const=LOCAL_RAY, metavar="ADDRESS",
        help=f"{work} as Ray tasks: on a local Ray instance, or on the cluster at ADDRESS "
        f"(auto, HOST:6379, ray://HOST:10001); needs pyhearts[cluster]. The {outcome} are the same",
    )


def interval_text(
    low: float | None, high: float | None, digits: int = 2, scale: float = 1.0, compact: bool = False
) -> str:
    """A confidence interval as text: ``[L, H]`` (``[L,H]`` when ``compact``), ``n/a`` without one.

    >>> interval_text(1.234, 2.5), interval_text(-0.5, 0.25, compact=True), interval_text(None, None)
    ('[1.23, 2.50]', '[-0.50,0.25]', 'n/a')
    """
    if low is None or high is None:
        return "n/a"
    sep = "," if compact else ", "
    return f"[{low * scale:.{digits}f}{sep}{high * scale:.{digits}f}]"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}"


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.2f}"


__all__ = [
    "LOCAL_RAY",
    "ArenaConfig",
    "ArenaError",
    "ArenaResult",
    "BotStats",
    "GameRecord",
    "Progress",
    "ProgressWords",
    "RoundRecord",
    "check_ray_address",
    "check_specs",
    "chunked",
    "connect_ray",
    "counted",
    "default_jobs",
    "derive_seed",
    "interval_text",
    "paired_difference",
    "percentile",
    "progress_mode",
    "ratio_ci",
    "ray_cpus",
    "report_progress",
    "round_score_bounds",
    "run_arena",
    "run_chunks",
    "t_quantile",
    "wilson_interval",
    "workers_text",
]
