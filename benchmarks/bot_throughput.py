"""How many bot decisions a bot worker makes per CPU-second, with and without the compiled kernel.

    .venv/bin/python benchmarks/bot_throughput.py [SPEC] [--decisions 120] [--seed 7] [--no-pool]

A bot worker (:mod:`hearts.server.botworker`) makes each move by building the seat's bot
from its spec and a seed, and handing it and the seat's view to the bot pool
(:class:`~hearts.server.botpool.BotPool`), whose worker process runs
:func:`~hearts.server.botpool.decide_and_return` on them, both pickled across. This benchmark
makes the same decisions the same way, for ``SPEC`` (default ``hard``) as it is and with
``fast=0`` (the pure kernel), on the decisions of ``benchmarks/levels.py`` (games of heuristic
bots: passes and plays with a choice):

* in this process, timing each pickle → ``decide_and_return`` → pickle round in CPU time
  (``time.process_time``): decisions per CPU-second, the figure that sets how many tables a
  worker serves, as bots think one decision at a time per core;
* then through a real :class:`BotPool` with one worker process (after a warm-up decision):
  decisions per wall-clock second, which a busy machine lowers (skip with ``--no-pool``).

The last line is ``SPEC_fast_per_cpu_s=A SPEC_pure_per_cpu_s=B SPEC_ratio=C`` (C = A / B: how
many times more tables a worker's core keeps up with).
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import sys
import time

from levels import decisions  # the same decisions as levels.py (run from benchmarks/, like cluster_load.py)

from hearts import fast
from hearts.bots import make_bot
from hearts.bots.registry import LEVELS
from hearts.server.botpool import BotPool, decide_and_return
from hearts.view import View


def pure(spec: str) -> str:
    """``spec`` on the pure kernel (``fast=0``)."""
    return spec + ("," if ":" in spec else ":") + "fast=0"


def cpu_seconds(spec: str, views: list[View]) -> float:
    """CPU seconds of this process for every decision of ``views`` made as the pool makes it:
    the bot and the view pickled, decided, the action and the bot pickled back."""
    total = 0.0
    for i, view in enumerate(views):
        start = time.process_time()
        bot, seen = pickle.loads(pickle.dumps((make_bot(spec, seed=i), view)))
        pickle.loads(pickle.dumps(decide_and_return(bot, seen)))
        total += time.process_time() - start
    return total


async def pool_seconds(spec: str, views: list[View]) -> float:
    """Wall-clock seconds for every decision of ``views`` through a :class:`BotPool` with one
    worker process, one after the other, after a warm-up decision (the worker's start)."""
    pool = BotPool(workers=1)
    try:
        await pool.decide(make_bot(spec, seed=0), views[0])
        start = time.perf_counter()
        for i, view in enumerate(views):
            await pool.decide(make_bot(spec, seed=i), view)
        return time.perf_counter() - start
    finally:
        pool.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("spec", nargs="?", default="hard", help="a level or bot spec of the search bot (default hard)")
    parser.add_argument("--decisions", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-pool", action="store_true", help="skip the run through a real BotPool")
    args = parser.parse_args(argv)
    if not fast.available():
        print("bot_throughput.py: numba is not installed (pip install -e '.[fast]')", file=sys.stderr)
        return 1
    spec = LEVELS.get(args.spec, args.spec)
    views = decisions(args.decisions, args.seed)
    cpu_seconds(spec, views[:1])  # load the compiled twin before timing
    rates = {}
    print(f"{len(views)} decisions ({sum(v.must_pass for v in views)} passes) of {args.spec} = {spec}")
    for kernel, full in (("fast", spec), ("pure", pure(spec))):
        cpu = cpu_seconds(full, views)
        rates[kernel] = len(views) / cpu
        line = f"{kernel:<5} {rates[kernel]:8.1f} decisions per CPU-second ({1000 * cpu / len(views):.1f} ms each)"
        if not args.no_pool:
            wall = asyncio.run(pool_seconds(full, views))
            line += f"; through a BotPool worker: {len(views) / wall:.1f} per wall-clock second"
        print(line)
    print(f"{args.spec}_fast_per_cpu_s={rates['fast']:.1f} {args.spec}_pure_per_cpu_s={rates['pure']:.1f} "
          f"{args.spec}_ratio={rates['fast'] / rates['pure']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
