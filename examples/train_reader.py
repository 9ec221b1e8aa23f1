"""Data → models → measurements for the bots that read the table, from a seed, on one machine.

    pip install -e '.[rl,fast,train]'          # train: PyTorch (CPU)
    nice -n 19 python examples/train_reader.py --work /tmp/reader [--rounds 2400] [--more 2400]
        [--sets 5] [--test-rounds 400] [--jobs 2] [--seed 431] [--epochs 3] [--hidden 256]
        [--dropout 0.5] [--decay 0.1] [--policy] [--export src/hearts/bots/models]

The defaults make the shipped card-location model and, with ``--policy``, the imitation policy
the shipped ``neural`` was fine-tuned from (``examples/train_neural.py``, then
``examples/finetune_neural.py``): 14,400 training rounds, seeds 431 to 441 (2026-12-06;
docs/notes/2026-12-06-reader.md, docs/notes/2026-12-06-reader-more-data.md,
docs/notes/2026-12-06-neural-dagger.md).

1. Data (:mod:`hearts.rl.reading`): ``--rounds`` rounds of four ``--specs`` bots (default ``hard``)
   seeded ``--seed`` and ``--sets`` sets of ``--more`` rounds each, seeded ``--seed + 2``,
   ``--seed + 4``, … (``more-SEED``), for training (every seat's view at each play; the last
   tenth of all the rounds to choose the epoch), ``--test-rounds`` fresh rounds seeded
   ``--seed + 1`` held out; files in ``--work`` (kept: a second run reuses them, and files made
   apart, e.g. several at a time, with :func:`hearts.rl.reading.generate` and the same seeds).
2. The card-location model (:mod:`hearts.bots.reader`): an MLP, features → ``--hidden`` → ``--hidden``
   → 52 × 3 logits, trained with Adam on the cross-entropy of each hidden card's holder over the
   seats that may hold it; written as ``cards-v1.nn`` to ``--export`` (half floats).
3. The measurements on the held-out rounds: log-loss, Brier score, accuracy and calibration of the
   model, against the marginals of the search's uniform sampler (``--samples`` deals per position,
   every ``--every``-th position) and of the sampler drawing from the model just trained.
4. With ``--policy``: the policy ``neural`` (imitation of the data's plays; ``--policy-hidden``,
   ``--policy-epochs``, …), ``policy-v1.nn``.

Everything runs under the seed: PyTorch's generator is seeded, and the data are reproducible
(:mod:`hearts.rl.reading`); the training threads are one (``torch.set_num_threads``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from hearts import fast
from hearts.arena import Progress, progress_mode
from hearts.bots import reader
from hearts.rl import reading


def data(work: Path, name: str, specs: list[str], rounds: int, seed: int, jobs: int,
         every_seat: bool = False, expert: str | None = None, labelled: tuple[int, ...] = ()) -> dict[str, Any]:
    """The arrays of a data file, generated (and its arrays cached) if missing; ``every_seat``:
    every seat's view at each play (:func:`hearts.rl.reading.positions`); ``expert``: the seats
    ``labelled`` have their decisions labelled with that bot's cards, and the arrays hold those
    decisions only, the expert's card as ``action`` (:func:`hearts.rl.reading.generate`)."""
    played, cached = work / f"{name}.jsonl.gz", work / f"{name}{'-all' if every_seat else ''}.npz"
    if not played.exists():
        reading.generate(played, specs, rounds=rounds, seed=seed, jobs=jobs, progress=True, expert=expert,
                         labelled=labelled)
    if not cached.exists():
        start = time.perf_counter()
        header, rounds_read = reading.read(played)
        labels = reading.expert_labels(played) if "expert" in header else None
        stored: dict[str, Any] = reading.arrays(rounds_read, every_seat=every_seat, labels=labels)
        np.savez_compressed(cached, **stored)
        print(f"{name}: {header['rounds']} rounds of {', '.join(header['specs'])} (seed {header['seed']}) as arrays "
              f"in {time.perf_counter() - start:.0f} s")
    with np.load(cached) as arrays:
        return dict(arrays)


def mlp(inputs: int, hidden: int, outputs: int, dropout: float) -> nn.Sequential:
    """Features → hidden → hidden → outputs, ReLU between, dropout while training (the export
    keeps the linear layers: :func:`export`)."""
    return nn.Sequential(nn.Dropout(dropout / 2), nn.Linear(inputs, hidden), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, outputs))


def location_loss(logits: torch.Tensor, holder: torch.Tensor, allowed: torch.Tensor, prior: torch.Tensor
                  ) -> torch.Tensor:
    """Mean cross-entropy of the hidden cards' holders over their allowed seats, the logits added
    to the log of the cards each seat holds (:func:`hearts.rl.reading.prior`)."""
    z = (logits.view(-1, 52, 3) + prior).masked_fill(~allowed, -1e9)
    hidden = holder >= 0
    return nn.functional.cross_entropy(z[hidden], holder[hidden].long())


def policy_loss(logits: torch.Tensor, action: torch.Tensor, legal: torch.Tensor, prior: torch.Tensor
                ) -> torch.Tensor:
    return nn.functional.cross_entropy(logits.masked_fill(~legal, -1e9), action.long())


def train(net: nn.Sequential, train_set: dict[str, Any], valid_set: dict[str, Any], loss_of: Any,
          keys: tuple[str, str], epochs: int, seed: int, label: str, decay: float, max_lr: float = 2e-3) -> None:
    """AdamW (one-cycle schedule up to ``max_lr``, batches of 512) for ``epochs``; the weights of
    the epoch with the lowest loss on ``valid_set`` (rounds apart from the training rounds) are kept."""
    torch.manual_seed(seed)
    scale = torch.from_numpy(reading.SCALE)
    x = torch.from_numpy(train_set["x"])
    a, b = (torch.from_numpy(train_set[k]) for k in keys)
    xt = torch.from_numpy(valid_set["x"]).float() * scale
    at, bt = (torch.from_numpy(valid_set[k]) for k in keys)
    pt = torch.from_numpy(reading.prior(valid_set["x"]))
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=decay)
    best, kept = float("inf"), None
    batches = (len(x) + 511) // 512
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, total_steps=epochs * batches)
    for epoch in range(epochs):
        start = time.perf_counter()
        net.train()
        order = torch.randperm(len(x))
        bar = Progress(batches, "batch", progress_mode(True), name=label)
        bar.begin(f"epoch {epoch + 1}")
        total = 0.0
        for i in range(batches):
            idx = order[i * 512 : (i + 1) * 512]
            xb = x[idx]
            loss = loss_of(net(xb.float() * scale), a[idx], b[idx], torch.from_numpy(reading.prior(xb.numpy())))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item()
            bar.advance(1, f"loss {total / (i + 1):.4f}")
        bar.end()
        net.eval()
        with torch.no_grad():
            held = loss_of(net(xt), at, bt, pt).item()
        if held < best:
            best, kept = held, {k: v.clone() for k, v in net.state_dict().items()}
        print(f"{label} epoch {epoch + 1}: train {total / batches:.4f} validation {held:.4f} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)
    assert kept is not None
    net.load_state_dict(kept)
    net.eval()


def export(net: nn.Sequential, path: Path, name: str, note: dict[str, Any]) -> reader.Network:
    layers = [m for m in net if isinstance(m, nn.Linear)]
    weights = [m.weight.detach().double().tolist() for m in layers]
    biases = [m.bias.detach().double().tolist() for m in layers]
    header = {"name": name, "features": [reader.ENCODING, reader.FEATURES], **note}
    blob = reader.encode_network(header, weights, biases)
    path.write_bytes(blob)
    print(f"wrote {path} ({len(blob) / 1e6:.2f} MB)")
    return reader.Network.from_bytes(blob)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--work", type=Path, default=Path("/tmp/reader"))
    p.add_argument("--specs", default="hard")
    p.add_argument("--rounds", type=int, default=2400)
    p.add_argument("--test-rounds", type=int, default=400)
    p.add_argument("--seed", type=int, default=431)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--decay", type=float, default=0.1, help="AdamW's weight decay")
    p.add_argument("--more", type=int, default=2400, help="training rounds in each further set (0: none)")
    p.add_argument("--sets", type=int, default=5, help="further training sets, seeded --seed + 2, --seed + 4, …")
    p.add_argument("--policy-epochs", type=int, default=16)
    p.add_argument("--policy-hidden", type=int, default=256)
    p.add_argument("--policy-dropout", type=float, default=0.3)
    p.add_argument("--policy-decay", type=float, default=0.01)
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--every", type=int, default=10)
    p.add_argument("--policy", action="store_true")
    p.add_argument("--export", type=Path, default=Path(reader.__file__).parent / "models")
    args = p.parse_args()
    torch.set_num_threads(1)
    args.work.mkdir(parents=True, exist_ok=True)
    specs = [args.specs] * 4
    test_set = data(args.work, "test", specs, args.test_rounds, args.seed + 1, args.jobs)
    seeds = [args.seed + 2 * k for k in range(1 + (args.sets if args.more else 0))]
    sets, rounds = [], 0
    for seed in seeds:
        first = seed == args.seed
        count = args.rounds if first else args.more
        sets.append(data(args.work, "train" if first else f"more-{seed}", specs, count, seed, args.jobs,
                         every_seat=True))
        sets[-1]["round"] = sets[-1]["round"] + rounds  # the rounds' indices over all the sets
        rounds += count
    everything = {k: np.concatenate([s[k] for s in sets]) for k in sets[0]}
    del sets
    valid = everything["round"] >= rounds * 0.9  # the last tenth of the rounds: to choose the epoch
    train_set = {k: v[~valid] for k, v in everything.items()}
    valid_set = {k: v[valid & everything["mover"]] for k, v in everything.items()}
    del everything
    print(f"positions: {len(train_set['x'])} to train on (every seat's view), {len(valid_set['x'])} to validate, "
          f"{len(test_set['x'])} held out (fresh deals)")
    note = {"data": {"specs": specs, "rounds": rounds, "seed": args.seed, "seeds": seeds}, "hidden": args.hidden,
            "epochs": args.epochs, "dropout": args.dropout, "decay": args.decay}

    net = mlp(reader.FEATURES, args.hidden, reader.OUTPUTS, args.dropout)
    train(net, train_set, valid_set, location_loss, ("holder", "allowed"), args.epochs, args.seed, "cards",
          args.decay)
    cards = export(net, args.export / reader.CARDS_MODEL, "cards", note)

    probabilities = reading.model_probabilities(cards, test_set["x"], test_set["allowed"])
    print(reading.score_line("model (all held out)", reading.scores(probabilities, test_set["holder"])))
    _, rounds_read = reading.read(args.work / "test.jsonl.gz")
    every = slice(args.every - 1, None, args.every)
    for name, odds in (("uniform sampler", False), ("reading sampler", True)):
        start = time.perf_counter()
        sampled = reading.sampler_probabilities(rounds_read, args.samples, args.seed, every=args.every, odds=odds,
                                                network=cards)
        print(reading.score_line(name, reading.scores(sampled, test_set["holder"][every]))
              + f" ({args.samples} deals a position, every {args.every}th, {time.perf_counter() - start:.0f} s)")
    print(reading.score_line("model (same positions)", reading.scores(probabilities[every], test_set["holder"][every])))

    if args.policy:
        net = mlp(reader.FEATURES, args.policy_hidden, 52, args.policy_dropout)
        movers = {k: v[train_set["mover"]] for k, v in train_set.items()}
        train(net, movers, valid_set, policy_loss, ("action", "legal"), args.policy_epochs, args.seed, "policy",
              args.policy_decay)
        note = {**note, "hidden": args.policy_hidden, "epochs": args.policy_epochs, "dropout": args.policy_dropout,
                "decay": args.policy_decay}
        policy = export(net, args.export / reader.POLICY_MODEL, "policy", note)
        print(f"policy: held-out agreement with the data's plays {agreement(policy, test_set):.3f}")


def agreement(policy: reader.Network, positions: dict[str, Any]) -> float:
    """The share of ``positions`` (:func:`hearts.rl.reading.arrays`) where ``policy``'s most
    probable legal card is the data's ``action`` (numpy's forward pass)."""
    dense = fast.networks()
    assert dense is not None
    logits = dense.forward_batch(policy, positions["x"].astype(np.float32) * reading.SCALE)
    chosen = np.where(positions["legal"], logits, -np.inf).argmax(axis=1)
    return float((chosen == positions["action"]).mean())


if __name__ == "__main__":
    main()
