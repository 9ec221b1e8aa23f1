"""DAgger for the policy ``neural``: play it against heuristic bots, label the states it visits
with ``hard``'s cards, fine-tune on them, measure it against the policy it started from.

    pip install -e '.[rl,fast,train]'          # train: PyTorch (CPU)
    nice -n 19 python examples/train_neural.py --work /tmp/neural [--start PATH] [--rounds 16000]
        [--iterations 1] [--seed 2201] [--expert hard] [--epochs 6] [--lr 5e-4] [--deals 2000]
        [--measure-seed 2301] [--jobs 1] [--export src/hearts/bots/models]

Issue 43; docs/notes/2026-12-06-neural-dagger.md. Plain imitation (``examples/train_reader.py
--policy``) learns ``hard``'s cards on the positions of four ``hard`` bots; playing among
``heuristic`` bots, ``neural`` meets positions no ``hard`` bot made, where its mistakes compound.
DAgger (Ross, Gordon & Bagnell, 2011) labels the positions the learner itself reaches:

1. Each iteration ``i`` (1, 2, …) plays ``--rounds`` rounds, seeded ``--seed + i - 1``, of the
   current policy at seat 0 against three ``heuristic`` bots; ``hard`` (``--expert``) says the
   card it would play at each of seat 0's decisions with a choice
   (:func:`hearts.rl.reading.generate` with ``expert``; files ``dagger-SEED`` in ``--work``).
2. The policy is fine-tuned from ``--start`` (the shipped ``policy-v1.nn`` by default; the weights
   of 2026-12-06 are those of commit 8bac980) on all the iterations' labelled positions so far
   (:func:`train_reader.train`: ``--epochs`` epochs, one-cycle to ``--lr``, the last tenth of the
   rounds to choose the epoch), and the next iteration plays the policy just trained.
3. Measurements: agreement with ``hard``'s card on the held-out rounds of ``train_reader.py``
   (400 rounds of four ``hard`` bots, seed 432, made if missing) and on the last tenth of the
   DAgger rounds; then the new and the starting policy each against three ``heuristic`` bots on
   the same ``--deals`` fresh duplicate deals × 4 rotations (seed ``--measure-seed``), their
   points per round and the paired difference (new − start; negative: the new one is stronger).

The new policy is written to ``--export`` as ``policy-v1.nn`` (half floats, numpy-readable) only
with ``--export``; by default to ``--work``. Everything runs under the seeds (PyTorch's generator
seeded, one thread).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn

from hearts.arena import ArenaResult, interval_text, paired_difference, run_arena
from hearts.bots import reader
from hearts.bots.base import Bot
from hearts.bots.neural import NeuralBot
from hearts.bots.registry import bot_names, register, unregister
from hearts.rules import Rules

sys.path.insert(0, str(Path(__file__).parent))
from train_reader import agreement, data, export, mlp, policy_loss, train

FIELD = "heuristic"
"""The opponents the policy is trained and measured against."""


def load(net: nn.Sequential, network: reader.Network) -> None:
    """Copy a weights file's layers (:class:`hearts.bots.reader.Network`) into ``net``'s linear
    layers (:func:`train_reader.mlp` of the same sizes)."""
    layers = [m for m in net if isinstance(m, nn.Linear)]
    if [(m.in_features, m.out_features) for m in layers] != list(network.layers):
        raise SystemExit(f"the start's layers {network.layers} are not the network's")
    with torch.no_grad():
        for m, w, b in zip(layers, network.weights, network.biases, strict=True):
            m.weight.copy_(torch.tensor(w, dtype=torch.float32))
            m.bias.copy_(torch.tensor(b, dtype=torch.float32))


def seat(name: str, network: reader.Network) -> str:
    """Register ``name`` as ``neural`` playing ``network`` and return it as a spec."""
    return register_spec(name, functools.partial(NeuralBot, network=network))


def register_spec(name: str, factory: Callable[..., Bot]) -> str:
    """Register ``name`` as ``factory`` (in this process and forked workers); return it as a spec."""
    if name in bot_names():
        unregister(name)
    register(name, factory)
    return name


def duel(spec: str, deals: int, seed: int, jobs: int) -> ArenaResult:
    """``spec`` against three :data:`FIELD` bots on ``deals`` duplicate deals × 4 rotations."""
    return run_arena([spec, FIELD, FIELD, FIELD], Rules(), rounds=deals, jobs=jobs, seed=seed, progress=True)


def measure(new: str, old: str, deals: int, seed: int, jobs: int = 1) -> None:
    """The specs ``new`` and ``old`` each against three :data:`FIELD` bots on the same ``deals``
    deals × 4 rotations (seed ``seed``): their points a round and the paired difference
    (negative: ``new`` is better)."""
    began = time.perf_counter()
    a, b = duel(new, deals, seed, jobs), duel(old, deals, seed, jobs)
    diff, low, high = paired_difference(a, b)
    for name, result in ((new, a), (old, b)):
        bot = result.bots[0]
        print(f"{name}: {bot.mean:.2f} {interval_text(bot.ci_low, bot.ci_high)} points a round against three "
              f"{FIELD} ({bot.rounds} rounds, {1000 * bot.time_mean:.3f} ms a decision)")
    print(f"new_minus_start={diff:.3f} {interval_text(low, high, compact=True)} over {deals} deals × 4 rotations, "
          f"seed {seed} ({time.perf_counter() - began:.0f} s)", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--work", type=Path, default=Path("/tmp/neural"))
    p.add_argument("--start", type=Path, default=Path(reader.__file__).parent / "models" / reader.POLICY_MODEL)
    p.add_argument("--rounds", type=int, default=16000, help="rounds of DAgger data an iteration")
    p.add_argument("--iterations", type=int, default=1)
    p.add_argument("--seed", type=int, default=2201)
    p.add_argument("--expert", default="hard")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--lr", type=float, default=5e-4, help="the one-cycle schedule's highest learning rate")
    p.add_argument("--dropout", type=float, default=0.3)
    p.add_argument("--decay", type=float, default=0.01)
    p.add_argument("--deals", type=int, default=2000, help="fresh deals to measure on (0: none)")
    p.add_argument("--measure-seed", type=int, default=2301)

    p.add_argument("--test-seed", type=int, default=432, help="train_reader.py's held-out rounds of hard")
    p.add_argument("--test-rounds", type=int, default=400)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--export", type=Path, default=None)
    args = p.parse_args()
    torch.set_num_threads(1)
    args.work.mkdir(parents=True, exist_ok=True)
    start = reader.Network.from_bytes(args.start.read_bytes(), str(args.start))
    hidden = start.layers[0][1]
    test_set = data(args.work, "test", ["hard"] * 4, args.test_rounds, args.test_seed, args.jobs)
    current, sets, rounds = start, [], 0
    for i in range(1, args.iterations + 1):
        seed = args.seed + i - 1
        learner = seat("neural-dagger", current)
        sets.append(data(args.work, f"dagger-{seed}", [learner, FIELD, FIELD, FIELD], args.rounds, seed, args.jobs,
                         expert=args.expert, labelled=(0,)))
        sets[-1]["round"] = sets[-1]["round"] + rounds
        rounds += args.rounds
        everything = {k: np.concatenate([s[k] for s in sets]) for k in sets[0]}
        valid = everything["round"] >= rounds * 0.9
        train_set = {k: v[~valid] for k, v in everything.items()}
        valid_set = {k: v[valid] for k, v in everything.items()}
        print(f"iteration {i}: {len(train_set['x'])} labelled positions to train on, {len(valid_set['x'])} to "
              f"validate; the start agrees with {args.expert} on {agreement(start, valid_set):.3f} of these, "
              f"{agreement(start, test_set):.3f} of the held-out rounds of hard", flush=True)
        net = mlp(reader.FEATURES, hidden, 52, args.dropout)
        load(net, start)
        train(net, train_set, valid_set, policy_loss, ("action", "legal"), args.epochs, args.seed, "policy",
              args.decay, max_lr=args.lr)
        note = {"data": {"dagger": [args.seed + j for j in range(i)], "rounds": rounds, "expert": args.expert,
                         "field": FIELD, "start": start.header.get("data")},
                "hidden": hidden, "epochs": args.epochs, "dropout": args.dropout, "decay": args.decay, "lr": args.lr}
        current = export(net, args.work / f"policy-dagger-{i}.nn", "policy", note)
        print(f"iteration {i}: agreement with {args.expert} {agreement(current, valid_set):.3f} (DAgger, validation), "
              f"{agreement(current, test_set):.3f} (held-out rounds of hard)", flush=True)
    if args.export is not None:
        args.export.joinpath(reader.POLICY_MODEL).write_bytes(current.to_bytes())
        print(f"wrote {args.export / reader.POLICY_MODEL}")
    if args.deals:
        measure(seat("neural-new", current), seat("neural-start", start), args.deals, args.measure_seed, args.jobs)

if __name__ == "__main__":
    main()
