"""Does the game review tell a weak player from a strong one? (not a timed test)

    .venv/bin/python benchmarks/review.py [--rounds 50] [--budget N] [--jobs 2] [--seed 2026]

``--rounds`` deals are played twice as single rounds (deal ``k`` is round number ``k``, so the
pass direction rotates as in a game): once with seat 0 ``easy``, once with seat 0 ``hard``,
against the same three ``medium`` bots with the same seeds. Seat 0 is then reviewed
(:func:`hearts.review.review_game`, ``--budget`` sampled deals per decision, ``--jobs`` worker
processes) in every round.

It prints, for each level, the mean expected points lost per round with its 95% interval over
deals, the points it actually scored, its accuracy and flags, the paired difference
easy − hard deal by deal, and the wall-clock seconds to review one seat's round. The last line
is ``easy_loss=X hard_loss=Y review_s=Z`` (Z: the mean seconds per round reviewed).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from hearts.arena import Progress, derive_seed, interval_text, percentile, ratio_ci
from hearts.bots import make_bot
from hearts.review import DEFAULT_BUDGET, RoundReview, review_game
from hearts.round import Round, deal_hands
from hearts.rules import Rules
from hearts.view import View


def play_round(rules: Rules, seed: int, deal: int, specs: list[str]) -> Round:
    """Deal ``deal`` played by ``specs`` (one per seat), the bots seeded by deal and seat."""
    r = Round(rules, deal_hands(rules, derive_seed(seed, "deal", deal)), round_number=deal)
    bots = [make_bot(spec, seed=derive_seed(seed, "bot", deal, s)) for s, spec in enumerate(specs)]
    while actors := r.actors():
        for seat in actors:
            r.apply(bots[seat].act(View.of(r, seat)))
    return r


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=50, help="deals, each played by both levels")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="sampled deals per decision")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes of each review")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--easy", default="easy", help="the spec measured as 'easy'")
    parser.add_argument("--hard", default="hard", help="the spec measured as 'hard'")
    parser.add_argument("--field", default="medium", help="the three opponents' spec")
    args = parser.parse_args(argv)
    rules = Rules()
    levels = {"easy": args.easy, "hard": args.hard}
    reviews: dict[str, list[RoundReview]] = {name: [] for name in levels}
    seconds: list[float] = []
    bar = Progress(2 * args.rounds, "round", "bar" if sys.stderr.isatty() else "lines")
    bar.begin(f"{args.rounds} deals x ({args.easy} | {args.hard}) vs 3 x {args.field}, "
              f"review budget {args.budget}, {args.jobs} jobs, seed {args.seed}")
    for deal in range(args.rounds):
        for name, spec in levels.items():
            r = play_round(rules, args.seed, deal, [spec] + [args.field] * 3)
            started = time.perf_counter()
            review = review_game(r, seats=[0], budget=args.budget, seed=derive_seed(args.seed, "review", deal),
                                 jobs=args.jobs)
            seconds.append(time.perf_counter() - started)
            reviews[name].append(review.rounds[0])
            bar.advance(1, f"{name} deal {deal + 1}")
    bar.end()

    print(f"\n{'level':<6} {'lost/round':>10}  {'95% CI':>14}  {'pts/round':>9}  {'95% CI':>14}  "
          f"{'accuracy':>8}  {'blunders':>8}  {'mistakes':>8}  spec")
    lost_means = {}
    for name, spec in levels.items():
        rounds = reviews[name]
        lost, low, high = ratio_ci([(rr.summary.points_lost, 1) for rr in rounds])
        lost_means[name] = lost
        points, p_low, p_high = ratio_ci([(float(rr.points or 0), 1) for rr in rounds])  # finished: never None
        accuracy = statistics.fmean(rr.summary.accuracy or 0.0 for rr in rounds)
        blunders = sum(rr.summary.blunders for rr in rounds) / len(rounds)
        mistakes = sum(rr.summary.mistakes for rr in rounds) / len(rounds)
        print(f"{name:<6} {lost:>10.2f}  {interval_text(low, high):>14}  {points:>9.2f}  "
              f"{interval_text(p_low, p_high):>14}  {accuracy:>7.1f}%  {blunders:>8.2f}  {mistakes:>8.2f}  {spec}")
    pairs = zip(reviews["easy"], reviews["hard"], strict=True)
    diff, d_low, d_high = ratio_ci([(e.summary.points_lost - h.summary.points_lost, 1) for e, h in pairs])
    print(f"easy - hard, paired by deal: {diff:.2f} {interval_text(d_low, d_high)} expected points lost per round")
    print(f"review of one seat's round: mean {statistics.fmean(seconds):.2f} s, p95 {percentile(seconds, 95):.2f} s, "
          f"max {max(seconds):.2f} s ({args.budget} sampled deals per decision, {args.jobs} jobs)")
    print(f"easy_loss={lost_means['easy']:.2f} hard_loss={lost_means['hard']:.2f} "
          f"review_s={statistics.fmean(seconds):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
