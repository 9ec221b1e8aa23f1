"""CPU per decision of bot levels, as Python and compiled (``hearts.fast``).

    .venv/bin/python benchmarks/levels.py [LEVEL_OR_SPEC ...] [--decisions 120] [--seed 7]

The decisions are those of games of heuristic bots (4 players, standard rules): the first
``--decisions`` passes and plays with a choice, every seat's. Each spec (default ``hard``)
decides each of them twice from the same seed, with ``fast=0`` (the pure kernel) and with the
kernel compiled (loaded first, :func:`hearts.fast.prepare`), in alternating order so that a noisy machine slows both alike; each decision is
timed in CPU time of this process (``time.process_time``). The two must decide the same (the
same functions draw the same random numbers); the table gives the mean, median and 95th percentile of
the milliseconds per decision, passes and plays apart, and the last line is
``SPEC_pure_ms=A SPEC_fast_ms=B SPEC_speedup=C identical=True`` per spec (means over all
decisions).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from hearts import Game, Rules, fast
from hearts.bots import make_bot
from hearts.bots.registry import LEVELS
from hearts.view import View


def decisions(count: int, seed: int) -> list[View]:
    """The first ``count`` decisions with a choice (passes, plays of two cards or more) of
    games of heuristic bots."""
    views: list[View] = []
    while len(views) < count:
        game = Game(Rules(), seed=seed + len(views))
        bots = {s: make_bot("heuristic", seed=s) for s in range(4)}
        while not game.is_over and len(views) < count:
            seat = game.actors()[0]
            view = View.of(game, seat)
            if view.must_pass or (view.my_turn and len(view.legal) > 1):
                views.append(view)
            game.apply(bots[seat].act(view))
    return views


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("specs", nargs="*", default=["hard"], help="levels or bot specs (default: hard)")
    parser.add_argument("--decisions", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if not fast.available():
        print("levels.py: numba is not installed (pip install -e '.[fast]')", file=sys.stderr)
        return 1
    fast.prepare(lambda line: None)  # load the compiled kernel first, as a front end does
    views = decisions(args.decisions, args.seed)
    summary = []
    identical = True
    print(f"{len(views)} decisions ({sum(v.must_pass for v in views)} passes); ms of CPU per decision")
    print(f"{'spec':<40} {'kernel':<6} {'kind':<5} {'mean':>7} {'median':>7} {'p95':>7}")
    for spec in args.specs:
        full = LEVELS.get(spec, spec)
        times: dict[tuple[str, bool], list[float]] = {}
        for i, view in enumerate(views):
            actions = {}
            for compiled in (i % 2 == 0, i % 2 == 1):  # alternate which goes first
                bot = make_bot(full + ("" if compiled else (":" if ":" not in full else ",") + "fast=0"), seed=i)
                start = time.process_time()
                actions[compiled] = bot.act(view)
                elapsed = time.process_time() - start
                times.setdefault(("pass" if view.must_pass else "play", compiled), []).append(elapsed * 1000)
            identical = identical and actions[True] == actions[False]
        means = {}
        for compiled in (False, True):
            every = [t for (kind, c), ts in times.items() if c == compiled for t in ts]
            means[compiled] = statistics.mean(every)
            for kind in ("pass", "play", "all"):
                ts = every if kind == "all" else times.get((kind, compiled), [])
                if ts:
                    print(f"{spec:<40} {'fast' if compiled else 'pure':<6} {kind:<5} {statistics.mean(ts):>7.1f} "
                          f"{statistics.median(ts):>7.1f} {percentile(ts, 0.95):>7.1f}")
        summary.append(f"{spec}_pure_ms={means[False]:.1f} {spec}_fast_ms={means[True]:.1f} "
                       f"{spec}_speedup={means[False] / means[True]:.1f}")
    print(" ".join(summary) + f" identical={identical}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
