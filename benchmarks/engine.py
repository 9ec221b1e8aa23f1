"""Random rounds per second: our public APIs, our rollout kernel, as Python and compiled, and OpenSpiel's ``hearts``.

    .venv/bin/python benchmarks/engine.py [--rounds N] [--trials T] [--seed S]

Each engine plays ``N`` random rounds of standard 4-player Hearts (deal, pass, 52 plays),
split into ``T`` short trials. The trials of the engines are interleaved (and their order
rotated) so that a noisy machine slows all of them alike; each trial is timed in CPU time of
this process (``time.process_time``) with the garbage collector paused, as ``timeit`` does.
The table reports the best and the median trial of each engine; the ratios on the last line,
``api_vs_openspiel=A kernel_vs_openspiel=B fast_vs_openspiel=C actions_vs_openspiel=D``
(ratios of rounds per second), use the best trials, the least disturbed by other processes
(``C`` is ``n/a`` without numba).

- ``api``: what a user would write with :class:`hearts.Round`: ``Round.deal``, each seat passes
  ``rng.sample(list(r.hand(seat)), 3)``, then ``r.play(rng.choice(list(r.legal_plays())))``
  until the round is over.
- ``actions``: the same rounds through the one-action API every driver of the project uses:
  for each seat of ``r.actors()``, a random pass or ``r.apply(rng.choice(list(r.legal_actions(seat))))``
  (the same rounds; the driver tests the phase and the seats are checked at every step, but the
  legal plays come as a plain list, where ``api`` iterates a ``CardSet``).
- ``kernel``: :func:`hearts.kernel.random_round` (bare int masks, the engine's own rules),
  drawing from the kernel's generator (:class:`hearts.fast.Stream`).
- ``fast``: :func:`hearts.kernel.random_rounds`, the kernel compiled (the ``fast`` extra,
  numba): the same rounds as ``kernel`` (the same seeds give the same scores), a trial's rounds
  in one call.
- ``openspiel``: ``pyspiel.load_game("hearts")`` driven from Python the same way: a random
  chance outcome (``rng.choice(state.chance_outcomes())``) at chance nodes (pass direction,
  52 deal steps), a random legal action elsewhere, until terminal.
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
from collections.abc import Callable
from typing import Any

from hearts import Phase, Round, Rules, fast
from hearts.actions import Pass
from hearts.arena import Progress
from hearts.kernel import random_round, random_rounds

Runner = Callable[[int, int], float]
"""``runner(rounds, seed)`` plays ``rounds`` random rounds and returns a checksum."""


def run_api(rounds: int, seed: int) -> float:
    """Random rounds through the per-phase :class:`Round` methods (``pass_cards``, ``play``)."""
    rules = Rules()
    rng = random.Random(seed)
    total = 0
    for i in range(rounds):
        r = Round.deal(rules, rng, round_number=i)
        if r.phase is Phase.PASSING:
            for seat in range(4):
                r.pass_cards(seat, rng.sample(list(r.hand(seat)), 3))
        while not r.is_over:
            r.play(rng.choice(list(r.legal_plays())))
        total += r.result.scores[0]  # type: ignore[union-attr]
    return total / rounds


def run_actions(rounds: int, seed: int) -> float:
    """:func:`run_api`'s rounds through the one-action API (:meth:`Round.actors`,
    :meth:`Round.legal_actions`, :meth:`Round.apply`), as every driver of the project plays."""
    rules = Rules()
    rng = random.Random(seed)
    total = 0
    for i in range(rounds):
        r = Round.deal(rules, rng, round_number=i)
        while not r.is_over:
            for seat in r.actors():
                if r.phase is Phase.PASSING:  # 286 legal passes: draw one rather than list them
                    r.apply(Pass(seat, rng.sample(list(r.hand(seat)), rules.pass_count)))
                else:
                    r.apply(rng.choice(list(r.legal_actions(seat))))
        total += r.result.scores[0]  # type: ignore[union-attr]
    return total / rounds


def run_kernel(rounds: int, seed: int) -> float:
    """Random rounds through the rollout kernel."""
    rules = Rules()
    rng = fast.Stream(seed)
    total = 0
    for i in range(rounds):
        total += random_round(rules, rng, i).scores[0]
    return total / rounds


def run_fast(rounds: int, seed: int) -> float:
    """Random rounds through the kernel compiled: :func:`run_kernel`'s rounds."""
    scores = random_rounds(Rules(), fast.Stream(seed), rounds)
    return sum(s[0] for s in scores) / rounds


def make_openspiel_runner(pyspiel: Any) -> Runner:
    """Random rounds of OpenSpiel's ``hearts`` (default parameters) driven from Python."""
    game = pyspiel.load_game("hearts")

    def run_openspiel(rounds: int, seed: int) -> float:
        rng = random.Random(seed)
        total = 0.0
        for _ in range(rounds):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    action = rng.choice(state.chance_outcomes())[0]
                else:
                    action = rng.choice(state.legal_actions())
                state.apply_action(action)
            total += 26 - state.returns()[0]  # points, as our engines report them
        return total / rounds

    return run_openspiel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20_000, help="rounds per engine (default 20000)")
    parser.add_argument("--trials", type=int, default=40, help="interleaved trials per engine (default 40)")
    parser.add_argument("--seed", type=int, default=2024, help="random seed (default 2024)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.trials < 1:
        parser.error("--rounds and --trials must be positive")
    try:
        import pyspiel
    except ImportError:
        print(
            "engine.py: OpenSpiel is not installed (`import pyspiel` failed); "
            "install it with `pip install open-spiel` (the `test` extra) to run this benchmark.",
            file=sys.stderr,
        )
        return 1

    engines: dict[str, Runner] = {"api": run_api, "actions": run_actions, "kernel": run_kernel}
    if fast.available():
        engines["fast"] = run_fast
    else:
        print("engine.py: numba is not installed (pip install -e '.[fast]'): no 'fast' row", file=sys.stderr)
    engines["openspiel"] = make_openspiel_runner(pyspiel)
    trials = min(args.trials, args.rounds)
    per_trial = [args.rounds // trials + (1 if t < args.rounds % trials else 0) for t in range(trials)]
    for runner in engines.values():  # warm up: imports, caches, first-call costs
        runner(20, args.seed - 1)

    rates: dict[str, list[float]] = {name: [] for name in engines}
    checks: dict[str, list[float]] = {name: [] for name in engines}
    names = list(engines)
    progress = Progress(args.rounds * len(engines), "round", "bar")
    progress.advance(0, "starting")
    for t, n in enumerate(per_trial):
        order = names[t % len(names) :] + names[: t % len(names)]  # rotate who goes first
        for name in order:
            progress.advance(0, f"trial {t + 1}/{trials}: {name}")
            gc.collect()
            gc.disable()
            start = time.process_time()  # CPU time: less sensitive to other processes
            checks[name].append(engines[name](n, args.seed + t))
            elapsed = time.process_time() - start
            gc.enable()
            rates[name].append(n / elapsed)
            progress.advance(n)
    progress.end()

    best = {name: max(r) for name, r in rates.items()}
    median = {name: statistics.median(r) for name, r in rates.items()}
    ref = best["openspiel"]
    print(
        f"{args.rounds} random rounds per engine in {trials} interleaved trials; "
        f"Python {platform.python_version()}, pyspiel {getattr(pyspiel, '__version__', '?')}, "
        f"{os.cpu_count()} CPUs"
    )
    print(
        f"{'engine':<10} {'best r/s':>10} {'median r/s':>11} {'µs/round':>9} {'vs openspiel':>13} {'mean pts':>9}"
    )
    for name in names:
        mean_points = sum(checks[name]) / len(checks[name])
        print(
            f"{name:<10} {best[name]:>10.0f} {median[name]:>11.0f} {1e6 / best[name]:>9.1f} "
            f"{best[name] / ref:>12.2f}x {mean_points:>9.2f}"
        )
    print(
        f"median ratios: api/openspiel={median['api'] / median['openspiel']:.2f} "
        f"actions/openspiel={median['actions'] / median['openspiel']:.2f} "
        f"kernel/openspiel={median['kernel'] / median['openspiel']:.2f} "
        f"kernel/api={median['kernel'] / median['api']:.2f}"
        + (f" fast/kernel={median['fast'] / median['kernel']:.1f}" if "fast" in median else "")
    )
    fast_ratio = f"{best['fast'] / ref:.2f}" if "fast" in best else "n/a"
    print(f"api_vs_openspiel={best['api'] / ref:.2f} kernel_vs_openspiel={best['kernel'] / ref:.2f} "
          f"fast_vs_openspiel={fast_ratio} actions_vs_openspiel={best['actions'] / ref:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
