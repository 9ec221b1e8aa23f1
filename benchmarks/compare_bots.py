"""Two bot specs on the same deals against the same field, and their paired difference.

    .venv/bin/python benchmarks/compare_bots.py SPEC_A SPEC_B [--field random] [--deals 100]
        [--seed 500] [--jobs 2] [--head-to-head]

Each spec sits in every seat rotation of the same ``--deals`` deals against three ``--field``
bots with the same seeds, so the only difference between the two tournaments is the spec (the
tool for trying a change to a bot). Points per round, lower is better; 95% intervals over
deals. Expect wide intervals against random bots: 400 rounds give about ±0.35 points per round
for a bot and ±0.3–0.45 for a paired difference, because one different card changes the rest
of the round. Each spec's line gives its mean and 95th percentile of seconds per decision (wall
clock); the line before the last counts the rounds that went exactly alike (the same points,
tricks and queen in every seat: two specs that decide alike, such as a bot with and without
``fast=0``, play every round alike). The last line is ``a=A b=B a_minus_b=D [L,H]``.

With ``--head-to-head`` the two specs play each other instead, two seats each, alternating, on
``--deals`` duplicate deals (as ``strength.py``'s item 4 does, without a field); the paired
difference is then A's points per round minus B's at the same table.
"""

from __future__ import annotations

import argparse
import sys

from strength import head_to_head, head_to_head_difference

from hearts.arena import ArenaResult, interval_text, paired_difference, run_arena
from hearts.rules import Rules


def play(spec: str, field: str, deals: int, jobs: int, seed: int) -> ArenaResult:
    print(f"\n== {spec} vs 3 × {field}: {deals} deals × 4 rotations ==", file=sys.stderr)
    return run_arena([spec, field, field, field], Rules(), rounds=deals, jobs=jobs, seed=seed, progress=True)


def same_rounds(first: ArenaResult, second: ArenaResult) -> int:
    """How many rounds (deal and seat rotation) went exactly alike in both tournaments."""
    def outcome(result: ArenaResult) -> dict[tuple[int, int], tuple[object, ...]]:
        return {(r.unit, r.rotation): (r.points, r.scores, r.tricks_won, r.queen) for r in result.rounds}

    a, b = outcome(first), outcome(second)
    return sum(1 for key, value in a.items() if b.get(key) == value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", help="a bot spec, e.g. search:iterations=2500")
    parser.add_argument("b", help="the bot spec to compare it with")
    parser.add_argument("--field", default="random", help="the three opponents' spec (default random)")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=500, help="default 500: other deals than strength.py's")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--head-to-head", action="store_true", help="A against B, two seats each (no field)")
    args = parser.parse_args(argv)
    if args.head_to_head:
        result = head_to_head(args.a, args.b, args.deals, args.jobs, args.seed)
        diff, low, high = head_to_head_difference(result)
        for bot in result.bots:
            print(f"{bot.spec:<48} {bot.mean:6.2f} {interval_text(bot.ci_low, bot.ci_high)}  "
                  f"mean {bot.time_mean:.4f} s  p95 {bot.time_p95:.4f} s")
        a, b = result.bots
        print(f"a={a.mean:.2f} b={b.mean:.2f} a_minus_b={diff:.2f} {interval_text(low, high, compact=True)}")
        return 0
    first = play(args.a, args.field, args.deals, args.jobs, args.seed)
    second = play(args.b, args.field, args.deals, args.jobs, args.seed)
    diff, low, high = paired_difference(first, second)
    for result in (first, second):
        bot = result.bots[0]
        print(f"{bot.spec:<48} {bot.mean:6.2f} {interval_text(bot.ci_low, bot.ci_high)}  "
              f"mean {bot.time_mean:.4f} s  p95 {bot.time_p95:.4f} s")
    print(f"rounds played alike: {same_rounds(first, second)} of {len(first.rounds)}")
    ci = interval_text(low, high, compact=True)
    print(f"a={first.bots[0].mean:.2f} b={second.bots[0].mean:.2f} a_minus_b={diff:.2f} {ci}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
