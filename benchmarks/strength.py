"""How strong are the bots? Duplicate deals, 95% confidence intervals (not a timed test).

    .venv/bin/python benchmarks/strength.py [--deals-fast 500] [--deals 50] [--deals-heuristic 1000]
        [--deals-h2h 1000] [--deals-reader 1000] [--deals-neural 1000] [--items ...] [--jobs 2]

1. ``heuristic`` against three ``random`` bots, ``--deals-fast`` deals × 4 seat rotations.
2. ``hard`` against three ``random`` bots, ``--deals`` deals × 4 rotations.
3. ``hard`` against three ``heuristic`` bots, ``--deals-heuristic`` deals × 4 rotations (default
   1,000: its limit, 4.5, is a few tenths from what ``hard`` scores there, and 50 deals give an
   interval of about ±0.7 points per round; 1,000 about ±0.16).
4. ``expert`` against ``hard`` head to head: two seats each, alternating (``expert`` at seats
   0 and 2, ``hard`` at 1 and 3, then swapped on the same deal), ``--deals-h2h`` duplicate
   deals × 2 rotations (default 1,000: at the same table the two bots' points move together
   with every card, and 200 deals give an interval of ±0.7 points per round, too wide to tell
   half a point from nothing; 1,000 give about ±0.33).

5. The reading bot (``--reader``: by default :data:`READER`, ``expert``'s tree search with
   50,000 iterations sampling the hidden hands from the card-location model, ``read=1``,
   :mod:`hearts.bots.reader`) against ``hard`` head to head, as item 4, ``--deals-reader``
   duplicate deals × 2 rotations (issue 43; about 130 minutes of CPU, 105 on two cores, for the
   default 1,000 deals).
6. ``neural`` (the learned policy, no search) against three ``heuristic`` bots,
   ``--deals-neural`` deals × 4 rotations.

``--items`` runs some of them only (e.g. ``--items 5,6``); the last line then holds the figures
of the items run.

Points are per round (lower is better; an equal share is 6.5). The last line is
``heuristic_vs_random=A hard_vs_random=B hard_vs_heuristic=C hard_p95_s=D hard_ms=E
expert_minus_hard=F expert_p95_s=G`` (one line), where D is the 95th percentile of the hard
bot's seconds per decision over items 2 and 3, E its mean in milliseconds of CPU, F the paired
difference of item 4 (``expert``'s points per round minus ``hard``'s, deal by deal; negative:
``expert`` is stronger; its 95% interval is on the line before) and G the 95th percentile of
``expert``'s seconds per decision there, then ``reader_minus_hard=H reader_p95_s=I
neural_vs_heuristic=J neural_ms=K``: item 5's paired difference (the reading bot's points minus
``hard``'s; its interval on the line before), the reading bot's 95th percentile of seconds per
decision there, item 6's points per round and ``neural``'s mean milliseconds per decision (wall
clock, around each decision). D, G and I are the arena's times, wall-clock seconds
around each decision, so a busy machine makes them longer, never shorter; E is CPU time, which
other work on the machine does not lengthen: all the CPU that items 2 and 3 took (this process
and its workers: the other seats' decisions, the engine and the workers' start included, so a
little more than ``hard``'s own) over ``hard``'s decisions there. ``--quick`` plays a handful
of deals with small budgets, to check the script in seconds.

The reference: OpenSpiel's C++ ISMCTS with ``--reference-simulations`` (default 1,000)
random-rollout simulations plays item 2's deals, in the same seats against the same random bots
(the same seeds), and the line before the last gives both and their paired difference per deal:
``reference ismcts_vs_random=R hard_minus_ismcts=X [L,H]``. It needs the ``openspiel`` extra;
without it, or with ``--reference-simulations 0``, the reference is skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import sys

from hearts.arena import ArenaResult, interval_text, paired_difference, ratio_ci, run_arena
from hearts.bots.registry import LEVELS
from hearts.rules import Rules

READER = "search:iterations=50000,tree=1,follow=16,read=1"
"""The reading bot measured (item 5), the best measured: the tree search of ``expert`` with two
and a half times its iterations, sampling from the card-location model (``hard`` with ``read=1``
gained some 0.2 points a round on ``hard``, ``expert`` with it 0.7–0.9, this one 1.2:
docs/bots.md)."""


def duel(spec: str, field: str, deals: int, jobs: int, seed: int) -> ArenaResult:
    """``spec`` against three ``field`` bots on duplicate deals."""
    print(f"\n== {spec} vs 3 × {field}: {deals} deals × 4 rotations ==", file=sys.stderr)
    return run_arena([spec, field, field, field], Rules(), rounds=deals, jobs=jobs, seed=seed,
                     progress=True)


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and its finished worker processes."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def head_to_head(spec: str, other: str, deals: int, jobs: int, seed: int) -> ArenaResult:
    """``spec`` in two seats against ``other`` in the other two, alternating, on duplicate
    deals (each deal played twice, the seats swapped)."""
    print(f"\n== {spec} vs {other}, two seats each: {deals} deals × 2 rotations ==", file=sys.stderr)
    return run_arena([spec, other], Rules(), rounds=deals, jobs=jobs, seed=seed, pairwise=True, progress=True)


def head_to_head_difference(result: ArenaResult) -> tuple[float, float | None, float | None]:
    """The first entrant's points per round minus the second's in a pairwise tournament
    (:func:`head_to_head`), paired deal by deal, with its 95% interval over deals.

    >>> result = run_arena(["heuristic", "random"], Rules(), rounds=4, seed=1, pairwise=True)
    >>> diff, low, high = head_to_head_difference(result)
    >>> round(diff, 9) == round(result.bots[0].mean - result.bots[1].mean, 9) and low < diff < high
    True
    """
    units: dict[int, list[float]] = {}
    for rec in result.rounds:
        unit = units.setdefault(rec.unit, [0.0, 0.0])
        for seat, entrant in enumerate(rec.seats):
            unit[0] += rec.scores[seat] if entrant == 0 else -rec.scores[seat]
            unit[1] += entrant == 0
    return ratio_ci([(x, n) for x, n in units.values()])


def reference_line(hard: ArenaResult, reference: ArenaResult) -> str:
    """Both bots' points per round on the same deals, seats and opponents' seeds, and the
    paired difference hard − reference per deal with its 95% interval."""
    diff, low, high = paired_difference(hard, reference)
    return (f"reference ismcts_vs_random={reference.bots[0].mean:.2f} ({reference.bots[0].spec}) "
            f"hard_minus_ismcts={diff:.2f} {interval_text(low, high, compact=True)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals-fast", type=int, default=500, help="deals for item 1")
    parser.add_argument("--deals", type=int, default=50, help="deals for item 2")
    parser.add_argument("--deals-heuristic", type=int, default=1000, help="deals for item 3")
    parser.add_argument("--deals-h2h", type=int, default=1000, help="deals for item 4, expert against hard")
    parser.add_argument("--deals-reader", type=int, default=1000, help="deals for item 5, reader against hard")
    parser.add_argument("--deals-neural", type=int, default=1000, help="deals for item 6, neural against heuristic")
    parser.add_argument("--items", default="1,2,3,4,5,6", help="the items to run, e.g. 5,6")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--hard", default=LEVELS["hard"], help="the spec measured as 'hard'")
    parser.add_argument("--expert", default=LEVELS["expert"], help="the spec measured as 'expert'")
    parser.add_argument("--reader", default=READER, help="the spec measured as the reading bot")
    parser.add_argument("--quick", action="store_true",
                        help="check the script in seconds: 2 and 3 deals, tiny budgets, no reference")
    parser.add_argument("--reference-simulations", type=int, default=1000,
                        help="ISMCTS simulations of the OpenSpiel reference on item 2's deals (0: skip)")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals_fast, args.deals, args.deals_heuristic, args.deals_h2h, args.reference_simulations = 2, 3, 3, 3, 0
        args.deals_reader, args.deals_neural = 3, 3
        args.hard, args.expert = "search:iterations=40", "search:iterations=60,tree=1,follow=4"
        args.reader = "search:iterations=40,read=1"
    run = {int(item) for item in args.items.split(",") if item.strip()}
    line: list[str] = []
    if run & {1, 2, 3, 4}:
        line.append(old_items(args, run))
    if 5 in run:
        duel_result = head_to_head(args.reader, args.hard, args.deals_reader, args.jobs, args.seed + 4)
        reader, hard = duel_result.bots
        diff, low, high = head_to_head_difference(duel_result)
        print(f"{'reader vs hard':<22} {reader.mean:>9.2f}  {interval_text(reader.ci_low, reader.ci_high):>16}  "
              f"{reader.rounds:>6}  {reader.time_p95:>10.3f}")
        print(f"reader_minus_hard={diff:.2f} {interval_text(low, high, compact=True)} over "
              f"{duel_result.config.count} deals (hard there: {hard.mean:.2f} pts/round); reader = {args.reader}")
        line.append(f"reader_minus_hard={diff:.2f} reader_p95_s={reader.time_p95:.2f}")
    if 6 in run:
        neural = duel("neural", "heuristic", args.deals_neural, args.jobs, args.seed + 5).bots[0]
        print(f"{'neural vs heuristic':<22} {neural.mean:>9.2f}  {interval_text(neural.ci_low, neural.ci_high):>16}  "
              f"{neural.rounds:>6}  {neural.time_p95:>10.4f}")
        line.append(f"neural_vs_heuristic={neural.mean:.2f} neural_ms={1000 * neural.time_mean:.2f}")
    print(" ".join(line))
    return 0


def old_items(args: argparse.Namespace, run: set[int]) -> str:
    """Items 1 to 4 (those of ``run``): their table, and their part of the last line."""
    items = []
    if 1 in run:
        items.append(("heuristic_vs_random", duel("heuristic", "random", args.deals_fast, args.jobs, args.seed)))
    start = cpu_seconds()
    hard_items = []
    if 2 in run:
        items.append(("hard_vs_random", duel(args.hard, "random", args.deals, args.jobs, args.seed + 1)))
        hard_items.append(items[-1][1].bots[0])
    if 3 in run:
        items.append(("hard_vs_heuristic", duel(args.hard, "heuristic", args.deals_heuristic, args.jobs,
                                                args.seed + 2)))
        hard_items.append(items[-1][1].bots[0])
    hard_cpu = cpu_seconds() - start
    print(f"\n{'item':<22} {'pts/round':>9}  {'95% CI':>16}  {'rounds':>6}  {'p95 s/move':>10}")
    for name, result in items:
        bot = result.bots[0]
        ci = interval_text(bot.ci_low, bot.ci_high)
        print(f"{name:<22} {bot.mean:>9.2f}  {ci:>16}  {bot.rounds:>6}  {bot.time_p95:>10.3f}")
    reference = args.reference_simulations if 2 in run else 0
    if reference > 0 and importlib.util.find_spec("pyspiel") is None:
        print("reference skipped: pyspiel is not installed (pip install -e '.[openspiel]')", file=sys.stderr)
    elif reference > 0:
        spec = f"openspiel_ismcts:simulations={reference}"
        print(reference_line(dict(items)["hard_vs_random"], duel(spec, "random", args.deals, args.jobs, args.seed + 1)))
    line = " ".join(f"{name}={result.bots[0].mean:.2f}" for name, result in items)
    if hard_items:
        p95 = max(bot.time_p95 for bot in hard_items)
        hard_ms = 1000 * hard_cpu / sum(bot.decisions for bot in hard_items)
        line += f" hard_p95_s={p95:.2f} hard_ms={hard_ms:.1f}"
    if 4 in run:
        duel_result = head_to_head(args.expert, args.hard, args.deals_h2h, args.jobs, args.seed + 3)
        expert, hard = duel_result.bots
        diff, low, high = head_to_head_difference(duel_result)
        print(f"{'expert vs hard':<22} {expert.mean:>9.2f}  {interval_text(expert.ci_low, expert.ci_high):>16}  "
              f"{expert.rounds:>6}  {expert.time_p95:>10.3f}")
        print(f"expert_minus_hard={diff:.2f} {interval_text(low, high, compact=True)} over {duel_result.config.count} "
              f"deals (hard there: {hard.mean:.2f} pts/round)")
        line += f" expert_minus_hard={diff:.2f} expert_p95_s={expert.time_p95:.2f}"
    print(f"hard = {args.hard}; expert = {args.expert}")
    return line.strip()


if __name__ == "__main__":
    sys.exit(main())
