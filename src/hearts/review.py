"""Game review: where a seat lost points, decision by decision, valued by the search from its view.

For each decision of a reviewed seat — its pass and each play with more than one legal card —
the search (:class:`~hearts.bots.search.SearchBot`) values every option *from that seat's
view at that moment* (:meth:`View.of <hearts.view.View.of>`, R7: never another seat's hidden
cards). An option's value is its expected points: the seat's mean score for the round (R4)
over ``budget`` deals of the hidden cards sampled consistently with the view, each played out
to the end of the round by the search's rollouts. Every option is scored on the same samples
and rollout seeds (common random numbers), so the differences between options are far more
precise than the values themselves.

A :class:`Decision` holds every option's value with its standard error, the option chosen, the
best one, and the **loss**: the expected points of the choice minus the best's, with the
standard error of that paired difference (cross-fitted, :func:`cross_fitted_loss`, so that the
luck of the best-looking among near-equal options is not counted as a loss). A loss is flagged
(:class:`Thresholds`) only when it is both large enough to matter and clearly above the
sampling noise. A :class:`RoundReview`
sums up one seat's round (:class:`Summary`: expected points lost, accuracy, worst decisions);
:func:`format_review` writes it for people and ``to_dict`` for programs.

Every number is an estimate from samples, and the search's model of the other players is
the search's (careful players, as :mod:`hearts.bots.policies` plays them): the reports say so
and give the uncertainty with each number. The shooter's moon choice (R4.4
``shooter_chooses``) is not reviewed: both choices leave the same gap to every opponent, so
they do not differ in the points this review measures, only in the game's length.

>>> from hearts import Game, Rules
>>> from hearts.bots import make_bot, run_bots
>>> game = Game(Rules(target=1), seed=7)
>>> run_bots(game, {s: make_bot("easy", seed=s) for s in range(4)})
>>> review = review_game(game, seats=[0], budget=24, seed=1)
>>> first = review.rounds[0]
>>> first.seat, first.summary.decisions == len(first.decisions) > 0
(0, True)
>>> d = first.decisions[0]
>>> d.chosen == game.history[d.index] and d.best in [o.action for o in d.options]
True
>>> format_review(review, ["Ann", "Ben", "Cy", "Di"]).splitlines()[0]
'Review of Ann (seat 0), round 1 (pass left to Ben): 24 sampled deals per decision, seed 1'
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final, Literal

from hearts.actions import Action, Pass, Play, to_dict
from hearts.bots.search import SearchBot, mean_stderr, pass_candidates
from hearts.cards import Card, CardSet
from hearts.errors import HeartsError
from hearts.game import Game
from hearts.i18n import _, ngettext
from hearts.record import round_actions
from hearts.round import Round
from hearts.view import View

Verdict = Literal["best", "ok", "inaccuracy", "mistake", "blunder"]
"""How a decision compares with the best option (see :meth:`Thresholds.verdict`)."""
VERDICTS: Final[tuple[Verdict, ...]] = ("best", "ok", "inaccuracy", "mistake", "blunder")
FLAGGED: Final[frozenset[Verdict]] = frozenset(("inaccuracy", "mistake", "blunder"))
"""The verdicts of decisions that lost points beyond the noise."""

DEFAULT_BUDGET: Final = 1500
"""Sampled deals per decision: a seat's round is reviewed in about 5 s with ``jobs=1`` and 3 to
4 s with ``jobs=2`` on a 2-core machine (``benchmarks/review.py`` measures it); the standard
error of a pass's loss is then about 0.2 points, of a play's a few hundredths."""
WORST: Final = 3
"""How many of a round's flagged decisions :attr:`RoundReview.worst` lists."""
FORMAT: Final = "pyhearts.review"
VERSION: Final = 1


class ReviewError(HeartsError):
    """A review that cannot be made as asked (no such seat or round, a bad budget or jobs)."""


@dataclass(frozen=True)
class Thresholds:
    """When a decision's loss is flagged: it must be at least ``z`` standard errors (clearly
    not sampling noise) *and* at least ``inaccuracy``, ``mistake`` or ``blunder`` points.
    (A decision whose choice has the lowest mean of its options is ``best``.)

    The defaults are in points of the seat's round score (R4). An even share of a round is
    6.5 points, and the ``easy`` and ``hard`` bots score under three points a round apart
    (``benchmarks/review.py``), so half a point lost in one decision is a real mistake, and
    two points (two hearts, or one chance in six of taking the Q♠) a blunder; 0.2 points is
    an inaccuracy, worth knowing but easy to forgive. A loss that is only noise reaches two
    standard errors about once in 44 decisions.

    >>> t = Thresholds()
    >>> t.verdict(-0.1, 0.1), t.verdict(0.1, 0.01), t.verdict(0.3, 0.1), t.verdict(1.2, 0.2)
    ('ok', 'ok', 'inaccuracy', 'mistake')
    >>> t.verdict(5.0, 0.5), t.verdict(5.0, 3.0)  # a big loss within the noise is not flagged
    ('blunder', 'ok')
    """

    inaccuracy: float = 0.2
    mistake: float = 0.5
    blunder: float = 2.0
    z: float = 2.0

    def __post_init__(self) -> None:
        levels = (self.inaccuracy, self.mistake, self.blunder, self.z)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in levels):
            raise ReviewError(f"thresholds are numbers, not {levels!r:.80}")
        if not 0 < self.inaccuracy <= self.mistake <= self.blunder or self.z < 0:
            raise ReviewError(
                "thresholds need 0 < inaccuracy <= mistake <= blunder (points) and z >= 0 "
                f"(standard errors), not {self.inaccuracy}, {self.mistake}, {self.blunder}, z={self.z}"
            )

    def verdict(self, loss: float, stderr: float) -> Verdict:
        """The verdict on a choice that is not the best-looking option: ``ok`` for a loss
        below ``z`` standard errors or below ``inaccuracy``, else the largest level it reaches."""
        if loss < self.z * stderr:
            return "ok"
        if loss >= self.blunder:
            return "blunder"
        if loss >= self.mistake:
            return "mistake"
        return "inaccuracy" if loss >= self.inaccuracy else "ok"


@dataclass(frozen=True)
class OptionValue:
    """One option of a decision and its expected points for the seat this round (R4; lower is
    better), with the standard error of that mean over the samples."""

    action: Action
    mean: float
    stderr: float

    def to_dict(self) -> dict[str, Any]:
        """``{"action": <the actions' codec>, "mean": ..., "stderr": ...}``."""
        return {"action": to_dict(self.action), "mean": self.mean, "stderr": self.stderr}


@dataclass(frozen=True)
class Decision:
    """One decision of a seat, valued from its view: its pass (R2) or a play (R3) with a choice.

    ``options`` holds every legal play, best first; for a pass, the chosen pass and the
    search's candidate passes (:func:`~hearts.bots.search.pass_candidates`: every 3-card
    subset of the six most dangerous cards, and the heuristic's pass), not all C(13,3) = 286,
    so a pass's loss is measured against the best of those candidates. ``best`` is the option
    with the lowest mean (the choice, on a tie). ``loss`` estimates the chosen option's
    expected points minus the best's, cross-fitted (:func:`cross_fitted_loss`: it is the plain
    difference of the two means when the best is clear, and about 0, either side, among
    near-equal options); ``loss_stderr`` is its standard error.
    """

    round: int
    """The round's number in the game (0 for the first)."""
    seat: int
    index: int
    """The chosen action's index in the game's :attr:`~hearts.game.Game.history` (for a
    single :class:`~hearts.round.Round`, in :func:`~hearts.record.round_actions`)."""
    trick: int | None
    """The trick's number in the round (0 for the first); ``None`` for the pass."""
    table: tuple[Play, ...]
    """The cards already played to this trick, in order (public, R7)."""
    chosen: Action
    options: tuple[OptionValue, ...]
    best: Action
    loss: float
    loss_stderr: float
    verdict: Verdict
    samples: int
    """Sampled deals (with one rollout per option each) behind every value."""

    @property
    def flagged(self) -> bool:
        """True for an inaccuracy, a mistake or a blunder."""
        return self.verdict in FLAGGED

    def value(self, action: Action) -> OptionValue:
        """The value of one of the options (:exc:`KeyError` for another action)."""
        for option in self.options:
            if option.action == action:
                return option
        raise KeyError(action)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; actions in the codec of :mod:`hearts.actions`."""
        return {
            "round": self.round,
            "seat": self.seat,
            "index": self.index,
            "trick": self.trick,
            "table": [to_dict(p) for p in self.table],
            "chosen": to_dict(self.chosen),
            "best": to_dict(self.best),
            "loss": self.loss,
            "loss_stderr": self.loss_stderr,
            "verdict": self.verdict,
            "samples": self.samples,
            "options": [o.to_dict() for o in self.options],
        }


def tenths(x: float) -> str:
    """``x`` with one decimal, a half rounded away from zero as the web page's ``toFixed(1)``
    does (Python's ``f"{x:.1f}"`` rounds an exact half to even), so that every front end
    shows the same number.

    >>> tenths(8.25), f"{8.25:.1f}", tenths(0.04)
    ('8.3', '8.2', '0.0')
    """
    return str(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


@dataclass(frozen=True)
class Summary:
    """Totals over decisions of one seat (a round, or a whole game).

    ``points_lost`` is the sum of the decisions' losses, with the standard error of that sum
    (the decisions are sampled independently); the losses being cross-fitted, the noise of
    near-equal options cancels out in the sum rather than adding up. Each loss is what one
    decision cost in the position it was made in, play going on carefully after it; the sum
    is not the gap to a flawless player's score (a weak player's decisions each cost points
    against careful play, which it then does not play either).
    ``accuracy`` is 100 times the share of decisions that are not flagged (``best`` or
    ``ok``: within the noise, or within the inaccuracy threshold, of the best), ``None``
    without decisions; a share rather than an average of losses, so that it does not move
    with the sampling noise of the decisions it cannot tell apart.
    """

    decisions: int
    points_lost: float
    points_lost_stderr: float
    accuracy: float | None
    inaccuracies: int
    mistakes: int
    blunders: int

    @classmethod
    def of(cls, decisions: Iterable[Decision]) -> Summary:
        """The summary of some decisions.

        >>> Summary.of([]).accuracy is None
        True
        """
        ds = tuple(decisions)
        verdicts = [d.verdict for d in ds]
        return cls(
            decisions=len(ds),
            points_lost=sum(d.loss for d in ds),
            points_lost_stderr=math.sqrt(sum(d.loss_stderr**2 for d in ds)),
            accuracy=100 * sum(v not in FLAGGED for v in verdicts) / len(ds) if ds else None,
            inaccuracies=verdicts.count("inaccuracy"),
            mistakes=verdicts.count("mistake"),
            blunders=verdicts.count("blunder"),
        )

    @property
    def accuracy_percent(self) -> int | None:
        """``accuracy`` in whole percent, a half rounded up as the web page's ``Math.round``
        does, so that every front end shows the same number.

        >>> Summary(8, 0.0, 0.0, 62.5, 3, 0, 0).accuracy_percent
        63
        """
        return None if self.accuracy is None else math.floor(self.accuracy + 0.5)

    def to_dict(self) -> dict[str, Any]:
        """The summary as a JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class RoundReview:
    """One seat's round: its reviewed decisions in order and the points it scored."""

    round: int
    seat: int
    pass_offset: int
    """Where the round's passes went (R2.2): the receiver is ``(seat + pass_offset) % players``;
    0 in a hold round."""
    decisions: tuple[Decision, ...]
    forced: int
    """Plays with a single legal card (not reviewed: there was nothing to choose)."""
    points: int | None
    """The seat's score for the round (R4), ``None`` while it is being played."""

    @property
    def summary(self) -> Summary:
        """Expected points lost, accuracy and the flags of this round."""
        return Summary.of(self.decisions)

    @property
    def worst(self) -> tuple[Decision, ...]:
        """The round's biggest flagged losses, largest first (at most :data:`WORST`)."""
        return tuple(sorted((d for d in self.decisions if d.flagged), key=lambda d: -d.loss)[:WORST])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; ``worst`` lists history indices of :attr:`worst`."""
        return {
            "round": self.round,
            "seat": self.seat,
            "pass_offset": self.pass_offset,
            "points": self.points,
            "forced": self.forced,
            "summary": self.summary.to_dict(),
            "worst": [d.index for d in self.worst],
            "decisions": [d.to_dict() for d in self.decisions],
        }


@dataclass(frozen=True)
class GameReview:
    """The review of some seats of a game: a :class:`RoundReview` per round and seat, in
    that order, and how it was made (the same seed and budget give the same review)."""

    rounds: tuple[RoundReview, ...]
    players: int
    seats: tuple[int, ...]
    budget: int
    seed: int
    thresholds: Thresholds

    def of_seat(self, seat: int) -> tuple[RoundReview, ...]:
        """The rounds of one reviewed seat."""
        return tuple(r for r in self.rounds if r.seat == seat)

    def summary(self, seat: int) -> Summary:
        """One seat's totals over every reviewed round."""
        return Summary.of(d for r in self.of_seat(seat) for d in r.decisions)

    def to_dict(self) -> dict[str, Any]:
        """The review as a JSON-ready dict: ``format``, ``version``, how it was made, a
        summary per seat and every round."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "players": self.players,
            "seats": list(self.seats),
            "budget": self.budget,
            "seed": self.seed,
            "thresholds": asdict(self.thresholds),
            "summaries": [{"seat": s, **self.summary(s).to_dict()} for s in self.seats],
            "rounds": [r.to_dict() for r in self.rounds],
        }


# --- the analysis ---------------------------------------------------------------------------


ProgressCallback = Callable[[int, int], None]
"""Called as ``on_progress(done, total)``: decisions valued so far, and in all."""


@dataclass(frozen=True)
class _Task:
    """One decision to value: everything a worker needs, and no hidden card (R7)."""

    view: View
    chosen: Action
    index: int
    samples: int
    seed: int
    thresholds: Thresholds


def review_game(
    game: Game | Round,
    seats: Sequence[int] | None = None,
    *,
    rounds: Sequence[int] | None = None,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    jobs: int = 1,
    thresholds: Thresholds = Thresholds(),
    on_progress: ProgressCallback | None = None,
) -> GameReview:
    """Review the decisions of ``seats`` (default: every seat) in ``game``, a game or a single
    round, finished or not (the decisions taken so far), in every round or in the round
    numbers ``rounds``.

    ``budget`` is the number of sampled deals per decision: the standard errors shrink as
    its square root, and the time grows with it. The review is a function of the game, the
    seats, ``budget``, ``seed`` and ``thresholds``: each decision draws from its own seed,
    so ``jobs`` worker processes (0: one per CPU) give the same result as one. With
    ``on_progress``, ``on_progress(done, total)`` is called at the start and after each
    decision is valued (in this process).

    Raises :class:`ReviewError` for a seat or round that does not exist, a budget below 4 or
    a negative ``jobs``.
    """
    players = game.rules.players
    chosen_seats = tuple(range(players)) if seats is None else tuple(seats)
    for s in chosen_seats:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < players:
            raise ReviewError(f"there is no seat {s!r} among {players} players")
    if len(set(chosen_seats)) != len(chosen_seats):
        raise ReviewError(f"seats are reviewed once each, not {list(chosen_seats)}")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 4:
        raise ReviewError(f"the budget is a whole number of sampled deals >= 4, not {budget!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise ReviewError(f"jobs is 0 (one per CPU) or more, not {jobs!r}")
    played = _played_rounds(game)
    if rounds is not None:
        numbers = [r.round_number for r, _, _ in played]
        unknown = [k for k in rounds if k not in numbers]
        if unknown:
            raise ReviewError(f"round {unknown[0]!r} has not been played (played: {numbers})")
        played = [p for p in played if p[0].round_number in rounds]

    tasks: list[_Task] = []
    shells: list[tuple[Round, int, list[int], int]] = []  # round, seat, its tasks, forced plays
    for r, actions, start in played:
        replayed = Round(r.rules, r.dealt, round_number=r.round_number, scores_before=r.scores_before)
        mine: dict[int, list[int]] = {s: [] for s in chosen_seats}
        forced = dict.fromkeys(chosen_seats, 0)
        for k, action in enumerate(actions, start):
            if action.seat in mine and isinstance(action, (Pass, Play)):
                view = View.of(replayed, action.seat)
                if isinstance(action, Play) and len(view.legal) == 1:
                    forced[action.seat] += 1
                else:
                    mine[action.seat].append(len(tasks))
                    tasks.append(_Task(view, action, k, budget, _seed(seed, r.round_number, k), thresholds))
            replayed.apply(action)
        shells.extend((r, s, mine[s], forced[s]) for s in chosen_seats)

    decisions = _run(tasks, jobs, on_progress)
    out = []
    for r, s, indices, forced_plays in shells:
        result = r.result
        out.append(
            RoundReview(
                round=r.round_number,
                seat=s,
                pass_offset=r.pass_offset,
                decisions=tuple(decisions[i] for i in indices),
                forced=forced_plays,
                points=None if result is None else result.scores[s],
            )
        )
    return GameReview(tuple(out), players, chosen_seats, budget, seed, thresholds)


def _played_rounds(game: Game | Round) -> list[tuple[Round, list[Action], int]]:
    """Each round with at least one action, its actions and the index of its first action."""
    if isinstance(game, Round):
        actions = round_actions(game)
        return [(game, actions, 0)] if actions else []
    history = game.history
    bounds = [*game.round_starts, len(history)]
    return [
        (r, list(history[bounds[k] : bounds[k + 1]]), bounds[k])
        for k, r in enumerate(game.rounds)
        if bounds[k + 1] > bounds[k]
    ]


def _seed(seed: int, round_number: int, index: int) -> int:
    """A decision's own seed: stable across runs, processes and platforms."""
    return random.Random(f"review:{seed}:{round_number}:{index}").getrandbits(64)


def _run(tasks: list[_Task], jobs: int, on_progress: ProgressCallback | None) -> list[Decision]:
    """Value every task, in this process or in ``jobs`` worker processes; in task order."""
    total = len(tasks)
    report = on_progress or (lambda done, total: None)
    report(0, total)
    jobs = min(jobs or os.cpu_count() or 1, total)
    if jobs <= 1:
        out = []
        for task in tasks:
            out.append(_value(task))
            report(len(out), total)
        return out
    results: dict[int, Decision] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: dict[Future[Decision], int] = {pool.submit(_value, t): i for i, t in enumerate(tasks)}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    results[pending.pop(future)] = future.result()
                    report(len(results), total)
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    return [results[i] for i in range(total)]


def _value(task: _Task) -> Decision:
    """Value one decision: every option on the same ``task.samples`` samples of the view."""
    view, chosen = task.view, task.chosen
    bot = SearchBot(seed=task.seed)
    actions: list[Action]
    if isinstance(chosen, Pass):
        candidates = pass_candidates(view.hand.mask, view.rules.pass_count, bot.pass_candidates)
        masks = sorted({*candidates, chosen.cards.mask})
        scores = bot.pass_scores(view, masks, task.samples)
        actions = [Pass(view.seat, CardSet.from_mask(m)) for m in masks]
    else:
        cards, scores = bot.play_scores(view, task.samples)
        actions = [Play(view.seat, c) for c in cards]
    values = [OptionValue(a, *mean_stderr(s)) for a, s in zip(actions, scores, strict=True)]
    mine = actions.index(chosen)
    best = _lowest(scores, mine)
    loss, loss_stderr = cross_fitted_loss(scores, mine)
    trick = view.trick
    return Decision(
        round=view.round_number,
        seat=view.seat,
        index=task.index,
        trick=None if isinstance(chosen, Pass) else len(view.tricks),
        table=tuple(Play(s, c) for s, c in trick.plays),
        chosen=chosen,
        options=tuple(sorted(values, key=lambda v: v.mean)),
        best=actions[best],
        loss=loss,
        loss_stderr=loss_stderr,
        verdict="best" if best == mine else task.thresholds.verdict(loss, loss_stderr),
        samples=task.samples,
    )


def _lowest(scores: Sequence[Sequence[int]], mine: int) -> int:
    """The option with the lowest mean score (``mine`` on a tie, else the first)."""
    total = min(sum(s) for s in scores)
    return mine if sum(scores[mine]) == total else min(i for i, s in enumerate(scores) if sum(s) == total)


def cross_fitted_loss(scores: Sequence[Sequence[int]], mine: int) -> tuple[float, float]:
    """How many points option ``mine`` loses against the best option, and its standard error,
    from every option's scores on the same samples (at least four).

    Measured on the samples that chose the best, the loss would be biased upwards: among
    options that are all but equal, the one that looks best is the luckiest, and the more
    options, the luckier (a pass has about twenty). So the samples are cut in two halves, and
    on each half the loss is measured against the option the *other* half finds best
    (two-fold cross-fitting); the loss is their mean. It is unbiased for what the choice cost
    against the option the review recommends, so it can come out slightly below 0 when the
    choice is as good as the best; against a clearly better option both halves agree and it
    is the plain paired difference.

    >>> cross_fitted_loss([[3, 5, 3, 5], [1, 3, 1, 3]], 0)  # option 1 is 2 points better
    (2.0, 0.0)
    >>> cross_fitted_loss([[1, 3, 1, 3], [3, 5, 3, 5]], 0)  # the choice is the best
    (0.0, 0.0)
    """
    halves = (slice(0, None, 2), slice(1, None, 2))
    parts = []
    for pick, judge in (halves, halves[::-1]):
        ref = _lowest([s[pick] for s in scores], mine)
        if ref == mine:
            parts.append((0.0, 0.0))
        else:
            parts.append(mean_stderr([a - b for a, b in zip(scores[mine][judge], scores[ref][judge], strict=True)]))
    (first, first_err), (second, second_err) = parts
    return (first + second) / 2, math.hypot(first_err, second_err) / 2


# --- the report -----------------------------------------------------------------------------


def format_review(
    review: GameReview, names: Sequence[str] | None = None, *, card: Callable[[Card], str] | None = None
) -> str:
    """The review as plain text, seat by seat and trick by trick: each reviewed decision with
    its verdict, each flagged one with the better option and the numbers behind it (``7♥ cost
    3.40 ± 0.60 points: 2♥ expected 1.20, 7♥ 4.60``), a summary per round and per seat, and a
    note on what the numbers are. ``names`` names the seats (default ``seat 0`` …); ``card``
    writes a card (default :attr:`Card.symbol <hearts.cards.Card.symbol>`, e.g. ``Q♠``).
    """
    who = list(names) if names is not None else [_("seat {n}").format(n=s) for s in range(review.players)]
    if len(who) != review.players:
        raise ReviewError(f"{review.players} players need {review.players} names, got {len(who)}")
    show = card or (lambda c: c.symbol)
    lines: list[str] = []
    for seat in review.seats:
        rounds = review.of_seat(seat)
        for rr in rounds:
            whose = who[seat] + (" (" + _("seat {n}").format(n=seat) + ")" if names else "")
            lines.append(_("Review of {name}, round {n} ({passing}): {budget} sampled deals per decision, seed {seed}").format(
                name=whose, n=rr.round + 1, passing=_direction(rr, who), budget=review.budget, seed=review.seed))
            lines.extend(_decision_line(d, who, show) for d in rr.decisions)
            took = "" if rr.points is None else _("scored {points}; ").format(points=rr.points)
            lines.append("  " + _("Round {n}").format(n=rr.round + 1) + f": {took}{summary_text(rr.summary)}")
            if rr.forced:
                lines.append("  (" + ngettext("{n} forced play not reviewed", "{n} forced plays not reviewed",
                                              rr.forced).format(n=rr.forced) + ")")
            lines.append("")
        if len(rounds) > 1:
            lines.append(ngettext("{name}, {n} round: {summary}", "{name}, {n} rounds: {summary}", len(rounds)).format(
                name=who[seat], n=len(rounds), summary=summary_text(review.summary(seat))))
            lines.append("")
    t = review.thresholds
    lines.append(_(
        "Expected points are the seat's mean score for the round over deals of the unseen cards "
        "sampled from what it knew (R7), each played out by the search; they are estimates, and "
        "± is one standard error. A loss is flagged when it is at least {z} standard errors "
        "and {inaccuracy} (inaccuracy), {mistake} (mistake) or {blunder} points "
        "(blunder). A pass is compared with the search's candidate passes, not all of them. "
        "Accuracy: the share of decisions not flagged."
    ).format(z=f"{t.z:g}", inaccuracy=f"{t.inaccuracy:g}", mistake=f"{t.mistake:g}", blunder=f"{t.blunder:g}"))
    return "\n".join(lines)


def _direction(rr: RoundReview, names: Sequence[str]) -> str:
    if not rr.pass_offset:
        return _("hold")
    n = len(names)
    to = names[(rr.seat + rr.pass_offset) % n]
    if rr.pass_offset == 1:
        return _("pass left to {name}").format(name=to)
    if rr.pass_offset == n - 1:
        return _("pass right to {name}").format(name=to)
    if 2 * rr.pass_offset == n:
        return _("pass across to {name}").format(name=to)
    return _("pass to {name}").format(name=to)


def _action_text(action: Action, show: Callable[[Card], str]) -> str:
    if isinstance(action, Pass):
        return " ".join(show(c) for c in action.cards.sorted_by_suit())
    assert isinstance(action, Play)
    return show(action.card)


def _decision_line(d: Decision, names: Sequence[str], show: Callable[[Card], str]) -> str:
    mine = _action_text(d.chosen, show)
    if d.trick is None:
        what = f"{_('Pass'):<8} {mine}"
    elif d.table:
        after = ", ".join(f"{names[p.seat]} {show(p.card)}" for p in d.table)
        what = _("Trick {n}").format(n=f"{d.trick + 1:<2}") + " " + _("after {cards}").format(cards=after) + f": {mine}"
    else:
        what = _("Trick {n}").format(n=f"{d.trick + 1:<2}") + " " + _("led") + f" {mine}"
    verdict = _(d.verdict)  # the verdicts' words: messages of hearts.tui.review_text
    if not d.flagged:
        return f"  {what}  {verdict}"
    best = _action_text(d.best, show)
    return f"  {what}  {verdict.upper()}: " + _("{card} cost {loss} ± {error} points: {best} expected {value}, {card} {chosen}").format(
        card=mine, loss=f"{d.loss:.2f}", error=f"{d.loss_stderr:.2f}", best=best,
        value=f"{d.value(d.best).mean:.2f}", chosen=f"{d.value(d.chosen).mean:.2f}")


def summary_text(s: Summary) -> str:
    """One line summing up a seat's decisions: points lost with their error, accuracy, flags."""
    if not s.decisions:
        return _("no decision to review")
    flags = [
        word.format(n=count)
        for count, word in (
            (s.blunders, ngettext("{n} blunder", "{n} blunders", s.blunders)),
            (s.mistakes, ngettext("{n} mistake", "{n} mistakes", s.mistakes)),
            (s.inaccuracies, ngettext("{n} inaccuracy", "{n} inaccuracies", s.inaccuracies)),
        )
        if count
    ]
    flags_text = "; " + ", ".join(flags) if flags else ""
    lost = ngettext(
        "expected points lost {lost} ± {error} over {n} decision; accuracy {accuracy}%",
        "expected points lost {lost} ± {error} over {n} decisions; accuracy {accuracy}%",
        s.decisions,
    ).format(lost=tenths(s.points_lost), error=tenths(s.points_lost_stderr), n=s.decisions, accuracy=s.accuracy_percent)
    return lost + flags_text


__all__ = [
    "DEFAULT_BUDGET",
    "FLAGGED",
    "VERDICTS",
    "Decision",
    "GameReview",
    "OptionValue",
    "ProgressCallback",
    "ReviewError",
    "RoundReview",
    "Summary",
    "Thresholds",
    "Verdict",
    "cross_fitted_loss",
    "format_review",
    "review_game",
    "summary_text",
]
