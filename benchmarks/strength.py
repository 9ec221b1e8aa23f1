"""How strong are the bots? Duplicate deals, 95% confidence intervals (not a timed test).

    .venv/bin/python benchmarks/strength.py [--deals-fast 500] [--deals 50] [--jobs 2]

1. ``heuristic`` against three ``random`` bots, ``--deals-fast`` deals × 4 seat rotations.
2. ``hard`` against three ``random`` bots, ``--deals`` deals × 4 rotations.
3. ``hard`` against three ``heuristic`` bots, ``--deals`` deals × 4 rotations.

Points are per round (lower is better; an equal share is 6.5). The last line is
``heuristic_vs_random=A hard_vs_random=B hard_vs_heuristic=C hard_p95_s=D``, where D is the
95th percentile of the hard bot's seconds per decision over items 2 and 3.

The reference: OpenSpiel's C++ ISMCTS with ``--reference-simulations`` (default 1,000)
random-rollout simulations plays item 2's deals, in the same seats against the same random bots
(the same seeds), and the line before the last gives both and their paired difference per deal:
``reference ismcts_vs_random=R hard_minus_ismcts=X [L,H]``. It needs the ``openspiel`` extra;
without it, or with ``--reference-simulations 0``, the reference is skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from hearts.arena import ArenaResult, interval_text, paired_difference, run_arena
from hearts.bots.registry import LEVELS
from hearts.rules import Rules


def duel(spec: str, field: str, deals: int, jobs: int, seed: int) -> ArenaResult:
    """``spec`` against three ``field`` bots on duplicate deals."""
    print(f"\n== {spec} vs 3 × {field}: {deals} deals × 4 rotations ==", file=sys.stderr)
    return run_arena([spec, field, field, field], Rules(), rounds=deals, jobs=jobs, seed=seed,
                     progress=True)


def reference_line(hard: ArenaResult, reference: ArenaResult) -> str:
    """Both bots' points per round on the same deals, seats and opponents' seeds, and the
    paired difference hard − reference per deal with its 95% interval."""
    diff, low, high = paired_difference(hard, reference)
    return (f"reference ismcts_vs_random={reference.bots[0].mean:.2f} ({reference.bots[0].spec}) "
            f"hard_minus_ismcts={diff:.2f} {interval_text(low, high, compact=True)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals-fast", type=int, default=500, help="deals for item 1")
    parser.add_argument("--deals", type=int, default=50, help="deals for items 2 and 3")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--hard", default=LEVELS["hard"], help="the spec measured as 'hard'")
    parser.add_argument("--reference-simulations", type=int, default=1000,
                        help="ISMCTS simulations of the OpenSpiel reference on item 2's deals (0: skip)")
    args = parser.parse_args(argv)

    items = [
        ("heuristic_vs_random", duel("heuristic", "random", args.deals_fast, args.jobs, args.seed)),
        ("hard_vs_random", duel(args.hard, "random", args.deals, args.jobs, args.seed + 1)),
        ("hard_vs_heuristic", duel(args.hard, "heuristic", args.deals, args.jobs, args.seed + 2)),
    ]
    print(f"\n{'item':<22} {'pts/round':>9}  {'95% CI':>16}  {'rounds':>6}  {'p95 s/move':>10}")
    for name, result in items:
        bot = result.bots[0]
        ci = interval_text(bot.ci_low, bot.ci_high)
        print(f"{name:<22} {bot.mean:>9.2f}  {ci:>16}  {bot.rounds:>6}  {bot.time_p95:>10.3f}")
    if args.reference_simulations > 0 and importlib.util.find_spec("pyspiel") is None:
        print("reference skipped: pyspiel is not installed (pip install -e '.[openspiel]')", file=sys.stderr)
    elif args.reference_simulations > 0:
        spec = f"openspiel_ismcts:simulations={args.reference_simulations}"
        print(reference_line(items[1][1], duel(spec, "random", args.deals, args.jobs, args.seed + 1)))
    p95 = max(items[1][1].bots[0].time_p95, items[2][1].bots[0].time_p95)
    print(f"hard = {args.hard}")
    print(
        " ".join(f"{name}={result.bots[0].mean:.2f}" for name, result in items)
        + f" hard_p95_s={p95:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
