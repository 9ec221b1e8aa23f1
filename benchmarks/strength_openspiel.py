"""Our ``hard`` bot against OpenSpiel's ISMCTS, on the same deals against the same field.

    .venv/bin/python benchmarks/strength_openspiel.py [--deals 40] [--calibration-deals 10] [--jobs 1]

Both bots always sit at seat 0, with three ``heuristic`` bots at seats 1–3: for each deal ``d``
(round number ``d``, so the pass direction rotates with the deal index: left, right, across,
hold) the round is played once with ``hard`` at seat 0 and once with ISMCTS at seat 0, with the
same deal and the same seeds for the field. No seat rotation: many deals instead.

Time: the hard bot thinks a fixed time per decision. Its mean seconds per decision are measured
first on ``--calibration-deals`` deals (other deals than the match's), then ISMCTS on the same
deals with ``--probe-simulations``; its simulations are scaled so that its mean time per
decision is at least the hard bot's (plus ``--margin``). Both means are measured again in the
match and reported. A decision is a call of ``choose_pass`` or ``choose_play`` (OpenSpiel passes
one card per action, so an ISMCTS pass is three searches); both bots answer at once when only one
card is legal.

Points are per round, lower is better (an equal share is 6.5). The paired difference is per
deal, hard − ismcts: negative means the hard bot did better. 95% confidence intervals are over
deals (normal approximation). The last line is
``hard_vs_field=A ismcts_vs_field=B diff=C diff_ci=[L,H] hard_s_per_move=T1 ismcts_s_per_move=T2``.

OpenSpiel's ISMCTS is registered at run time as the spec ``openspiel_ismcts``; with ``--jobs``
above 1 the arena's worker processes inherit the registration by ``fork`` (the Linux default).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from hearts.arena import ArenaResult, interval_text, paired_difference, run_arena
from hearts.bots.registry import LEVELS
from hearts.rules import Rules

FIELD = "heuristic"
ISMCTS = "openspiel_ismcts"


def play(spec: str, deals: int, seed: int, jobs: int, label: str) -> ArenaResult:
    """``spec`` at seat 0 against three field bots on ``deals`` deals (no seat rotation)."""
    print(f"\n== {label}: {spec} at seat 0 vs 3 × {FIELD}, {deals} deals ==", file=sys.stderr)
    return run_arena([spec, FIELD, FIELD, FIELD], Rules(), rounds=deals, duplicate=False, jobs=jobs,
                     seed=seed, progress=True)


def ismcts_spec(simulations: int, uct_c: float) -> str:
    return f"{ISMCTS}:simulations={simulations},uct_c={uct_c}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=40, help="deals in the match (default 40)")
    parser.add_argument("--calibration-deals", type=int, default=10, help="deals to measure time (default 10)")
    parser.add_argument("--probe-simulations", type=int, default=2000,
                        help="ISMCTS simulations of the timing probe (default 2000)")
    parser.add_argument("--simulations", type=int, default=None,
                        help="ISMCTS simulations per search (default: calibrated to the hard bot's time)")
    parser.add_argument("--margin", type=float, default=0.10,
                        help="extra time share given to ISMCTS by the calibration (default 0.10)")
    parser.add_argument("--uct-c", type=float, default=2.0, help="ISMCTS exploration constant (default 2.0)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--hard", default=LEVELS["hard"], help="the spec measured as 'hard'")
    args = parser.parse_args(argv)
    started = time.perf_counter()

    # 1. Time per decision: the hard bot, then ISMCTS scaled to at least that.
    calib_seed = args.seed + 1_000_003  # other deals than the match's
    hard_probe = play(args.hard, args.calibration_deals, calib_seed, args.jobs, "timing the hard bot")
    target = hard_probe.bots[0].time_mean * (1 + args.margin)
    simulations = args.simulations
    if simulations is None:
        probe = play(ismcts_spec(args.probe_simulations, args.uct_c), args.calibration_deals, calib_seed,
                     args.jobs, f"timing ISMCTS at {args.probe_simulations} simulations")
        per_sim = probe.bots[0].time_mean / args.probe_simulations
        simulations = max(1, math.ceil(target / per_sim))
        print(
            f"hard: {hard_probe.bots[0].time_mean:.3f} s/decision; ISMCTS: {per_sim * 1e6:.1f} µs per "
            f"simulation per decision -> {simulations} simulations (target {target:.3f} s)",
            file=sys.stderr,
        )

    # 2. The match: the same deals and field seeds for both.
    ismcts = ismcts_spec(simulations, args.uct_c)
    hard_result = play(args.hard, args.deals, args.seed, args.jobs, "hard")
    ismcts_result = play(ismcts, args.deals, args.seed, args.jobs, "ismcts")

    diff, diff_low, diff_high = paired_difference(hard_result, ismcts_result)
    hard, ismcts_bot = hard_result.bots[0], ismcts_result.bots[0]

    print(f"\n{'bot':<44} {'pts/round':>9}  {'95% CI':>15}  {'rounds':>6}  {'s/move':>7}  {'p95 s':>6}")
    for bot in (hard, ismcts_bot):
        ci = interval_text(bot.ci_low, bot.ci_high, compact=True)
        print(f"{bot.spec:<44} {bot.mean:>9.2f}  {ci:>15}  {bot.rounds:>6}  "
              f"{bot.time_mean:>7.3f}  {bot.time_p95:>6.3f}")
    print(f"{'paired difference per deal (hard - ismcts)':<44} {diff:>9.2f}  {interval_text(diff_low, diff_high, compact=True):>15}  "
          f"{args.deals:>6}")
    print(f"field: 3 x {FIELD} at seats 1-3; both bots at seat 0; {args.deals} deals, seed {args.seed}; "
          f"{time.perf_counter() - started:.0f} s in all")
    if ismcts_bot.time_mean < hard.time_mean:
        print(f"note: ISMCTS used less time per decision than the hard bot in the match "
              f"({ismcts_bot.time_mean:.3f} < {hard.time_mean:.3f} s); raise --margin or --simulations",
              file=sys.stderr)
    print(
        f"hard_vs_field={hard.mean:.2f} ismcts_vs_field={ismcts_bot.mean:.2f} diff={diff:.2f} "
        f"diff_ci={interval_text(diff_low, diff_high, compact=True)} hard_s_per_move={hard.time_mean:.3f} "
        f"ismcts_s_per_move={ismcts_bot.time_mean:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
