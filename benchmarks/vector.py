"""Random rounds per second: the batched numpy simulator, the engine's rollout kernel and
OpenSpiel's ``hearts`` driven from Python.

    .venv/bin/python benchmarks/vector.py [--trials T] [--seconds S] [--seed N]

Every engine plays random rounds of standard 4-player Hearts: a shuffled deal, random passes
(the pass direction rotating with the round number; OpenSpiel draws it at random, a hold a
quarter of the time, as our rotation), then uniformly random legal plays to the end.

- ``vector``: :func:`hearts.rl.vector.simulate`, ``B`` rounds in lockstep on uint64 masks. A short
  sweep first picks the batch size with the most rounds per second.
- ``kernel``: :func:`hearts.kernel.random_round` (pure Python, bare int masks).
- ``openspiel``: ``pyspiel.load_game("hearts")``: a random chance outcome at chance nodes
  (direction, 52 deal steps), a random legal action elsewhere, until terminal.

The trials of the three are interleaved so that a noisy machine slows all of them alike; each
is timed in CPU time of this process (``time.process_time``) with the garbage collector paused.
Rates use the best trial of each. Peak memory is measured with ``tracemalloc`` (numpy reports
its buffers to it) over one ``simulate`` call at the chosen batch size. The last line is
``vector_vs_openspiel=X``, the ratio of rounds per second.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from hearts import Rules
from hearts.arena import Progress
from hearts.kernel import random_round
from hearts.rl.vector import simulate

BATCHES = (2048, 8192, 16384, 32768, 65536)


def timed(fn: Callable[[], int]) -> float:
    """Rounds per CPU second of one call of ``fn`` (which returns the rounds it played)."""
    gc.collect()
    gc.disable()
    start = time.process_time()
    rounds = fn()
    elapsed = time.process_time() - start
    gc.enable()
    return rounds / max(elapsed, 1e-9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=7, help="interleaved trials per engine (default 7)")
    parser.add_argument("--seconds", type=float, default=0.4, help="CPU seconds per trial (about)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    try:
        import pyspiel  # type: ignore[import-untyped]
    except ImportError:
        print("vector.py: OpenSpiel is not installed (pip install open-spiel)", file=sys.stderr)
        return 1
    rules = Rules()
    game = pyspiel.load_game("hearts")
    counter = iter(range(10**9))

    def run_vector(batch: int, reps: int) -> int:
        for _ in range(reps):
            i = next(counter)
            simulate(rules, batch, args.seed + i, round_number=i % 4)
        return batch * reps

    def run_kernel(rounds: int) -> int:
        rng = random.Random(args.seed + next(counter))
        for i in range(rounds):
            random_round(rules, rng, i)
        return rounds

    def run_openspiel(rounds: int) -> int:
        rng = random.Random(args.seed + next(counter))
        for _ in range(rounds):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
        return rounds

    sweep_steps = len(BATCHES) * 2
    progress = Progress(sweep_steps + 3 * args.trials + 1, "step", "bar")
    progress.advance(0, "sweeping batch sizes")
    sweep: dict[int, float] = {}
    for batch in BATCHES:  # sweep: a couple of batches of each size, best rate
        run_vector(batch, 1)
        progress.advance(1, f"sweep B={batch}")
        reps = max(1, int(100_000 // batch))
        sweep[batch] = max(timed(lambda b=batch, r=reps: run_vector(b, r)) for _ in range(2))  # type: ignore[misc]
        progress.advance(1)
    best_batch = max(sweep, key=sweep.__getitem__)

    # Calibrate each engine's trial to about --seconds of CPU time.
    kernel_rounds = max(20, int(args.seconds * timed(lambda: run_kernel(200))))
    os_rounds = max(20, int(args.seconds * timed(lambda: run_openspiel(100))))
    vector_reps = max(1, int(args.seconds * sweep[best_batch] / best_batch))
    engines: dict[str, Callable[[], int]] = {
        "vector": lambda: run_vector(best_batch, vector_reps),
        "kernel": lambda: run_kernel(kernel_rounds),
        "openspiel": lambda: run_openspiel(os_rounds),
    }
    rates: dict[str, list[float]] = {name: [] for name in engines}
    names = list(engines)
    for t in range(args.trials):
        order = names[t % 3 :] + names[: t % 3]
        for name in order:
            progress.advance(0, f"trial {t + 1}/{args.trials}: {name}")
            rates[name].append(timed(engines[name]))
            progress.advance(1)

    progress.advance(0, f"peak memory at B={best_batch}")
    gc.collect()
    tracemalloc.start()
    simulate(rules, best_batch, args.seed)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    progress.advance(1)
    progress.end()

    best = {name: max(r) for name, r in rates.items()}
    median = {name: statistics.median(r) for name, r in rates.items()}
    print(
        f"random rounds of standard Hearts, {args.trials} interleaved trials per engine (CPU time); "
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"pyspiel {getattr(pyspiel, '__version__', '?')}, {os.cpu_count()} CPUs"
    )
    print("batch size sweep (rounds/s): " + " ".join(f"B={b}:{r:.0f}" for b, r in sweep.items()))
    print(f"{'engine':<18} {'best r/s':>11} {'median r/s':>11} {'µs/round':>9} {'vs openspiel':>13}")
    ref = best["openspiel"]
    for name in names:
        label = f"{name} (B={best_batch})" if name == "vector" else name
        print(
            f"{label:<18} {best[name]:>11.0f} {median[name]:>11.0f} {1e6 / best[name]:>9.2f} "
            f"{best[name] / ref:>12.1f}x"
        )
    print(
        f"peak memory of one simulate() call at B={best_batch}: {peak / 2**20:.1f} MiB ({peak / best_batch:.0f} bytes/round)"
    )
    print(f"median ratio vector/openspiel={median['vector'] / median['openspiel']:.1f}")
    print(f"vector_vs_openspiel={best['vector'] / ref:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
