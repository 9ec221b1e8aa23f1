"""The pass of ``neural``: a small network trained to pass as ``hard`` does; measured against the
heuristic pass ``neural`` made before, and ``hard``'s own pass as the upper bound.

    pip install -e '.[rl,fast,train]'          # train: PyTorch (CPU)
    nice -n 19 python examples/train_pass.py --work /tmp/neural-pass [--deals 4000] [--seed 4001]
        [--expert hard] [--hidden 128] [--epochs 40] [--lr 2e-3] [--measure 2000] [--measure-seed 4201]
        [--export src/hearts/bots/models]
    nice -n 19 python examples/train_pass.py --upper-bound --measure 2000 --measure-seed 4101
    nice -n 19 python examples/train_pass.py --candidate NEW.nn [--start OLD.nn] --measure 6000 --measure-seed S

Issue 43; docs/notes/2026-12-07-neural-pass.md. ``neural`` played its cards with a learned policy
but passed like the heuristic bot (:func:`hearts.bots.heuristic.pass_mask`); ``hard`` chooses its
pass by search (:meth:`hearts.bots.search.SearchBot.choose_pass`), some 25 ms of CPU. Here:

1. **Data.** Each deal ``k`` of ``--deals`` (seeded ``--seed``) gives 12 pass decisions: each
   seat's hand, passing left, right and across (round numbers 0, 1, 2); ``--expert`` (seeded from
   the deal, the seat and the direction) says its pass for each (``pass-data-SEED-DEALS.npz`` in
   ``--work``, made once).
2. **Training.** A :func:`train_reader.mlp` on :func:`hearts.bots.reader.pass_features` (the hand,
   the direction: 55 features → ``--hidden`` → ``--hidden`` → 52), a binary cross-entropy on
   each card of the hand (passed or kept), AdamW, one-cycle to ``--lr``, batches of 512, the last
   tenth of the deals held out to choose the epoch. It passes the three cards of the hand with
   the highest logits; the agreement with the expert (cards and whole passes) on the held-out
   deals is printed.
3. **Measurement.** ``neural`` passing with the new network and ``neural`` with ``--start``'s pass
   (the heuristic pass by default; a weights file: that pass network) against three ``heuristic``
   bots on the same ``--measure`` fresh duplicate deals × 4 rotations (``--measure-seed``), and the
   paired difference (negative: the new pass is better). ``--upper-bound`` measures instead
   ``neural`` passing as ``--expert`` does (a search each pass), and ``--candidate`` a given pass
   network (no training).

The network is written to ``--work`` (``pass.nn``) and, with ``--export``, as ``pass-v1.nn``
there. Everything runs under the seeds (PyTorch's generator seeded, one thread).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import numpy as np
import torch
from torch import nn

from hearts.arena import Progress, derive_seed, progress_mode
from hearts.bots import make_bot, reader
from hearts.bots.base import Bot
from hearts.bots.neural import NeuralBot
from hearts.cards import CardSet
from hearts.round import Round, deal_hands
from hearts.rules import Rules
from hearts.view import View

sys.path.insert(0, str(Path(__file__).parent))
from train_neural import measure, register_spec
from train_reader import export, mlp

DIRECTIONS = 3
"""Round numbers 0, 1, 2: passing left, right, across (:meth:`hearts.rules.Rules.pass_offset`)."""


def labels(work: Path, seed: int, deals: int, expert: str) -> dict[str, np.ndarray]:
    """The pass decisions of ``deals`` deals (the module docstring) as arrays: ``x`` the dense
    :func:`~hearts.bots.reader.pass_features`, ``hand`` and ``passed`` card flags (the expert's
    pass), ``deal`` the deal's number; made once and kept in ``work``."""
    path = work / f"pass-data-{seed}-{deals}.npz"
    if path.exists():
        with np.load(path) as f:
            return {k: f[k] for k in f.files}
    rules = Rules()
    n = deals * DIRECTIONS * 4
    out = {"x": np.zeros((n, reader.PASS_FEATURES), dtype=np.float32), "hand": np.zeros((n, 52), dtype=bool),
           "passed": np.zeros((n, 52), dtype=bool), "deal": np.zeros(n, dtype=np.int32)}
    bar = Progress(deals, "deal", progress_mode(True), name="pass data")
    bar.begin(f"{deals} deals × {DIRECTIONS} directions × 4 seats, passes of {expert}")
    i = 0
    for k in range(deals):
        hands = deal_hands(rules, derive_seed(seed, "deal", k))
        for number in range(DIRECTIONS):
            r = Round(rules, hands, round_number=number)
            for s in range(4):
                view = View.of(r, s)
                active, values = reader.pass_features(view)
                out["x"][i, active] = values
                out["hand"][i, [int(c) for c in view.hand]] = True
                chosen = make_bot(expert, seed=derive_seed(seed, "expert", k, number, s)).choose_pass(view)
                out["passed"][i, [int(c) for c in chosen]] = True
                out["deal"][i] = k
                i += 1
        bar.advance(1)
    bar.end()
    np.savez_compressed(path, **out)
    return out


def chosen(logits: np.ndarray, hand: np.ndarray, count: int = 3) -> np.ndarray:
    """The ``count`` cards of each hand (rows) with the highest logits, as card flags."""
    z = np.where(hand, logits, -np.inf)
    top = np.argsort(-z, axis=1, kind="stable")[:, :count]
    out = np.zeros_like(hand)
    np.put_along_axis(out, top, True, axis=1)
    return out


def agreement(net: nn.Sequential, data: dict[str, np.ndarray]) -> tuple[float, float]:
    """The share of the expert's passed cards the network passes, and of passes it makes whole."""
    with torch.no_grad():
        logits = net(torch.from_numpy(data["x"])).numpy()
    mine = chosen(logits, data["hand"])
    same = (mine & data["passed"]).sum(1)
    return float(same.mean() / 3), float((same == 3).mean())


def train(net: nn.Sequential, data: dict[str, np.ndarray], epochs: int, lr: float, seed: int) -> None:
    """Fit ``net`` to the expert's passes (the module docstring, step 2); the epoch with the
    lowest held-out loss is kept."""
    torch.manual_seed(seed)
    valid = data["deal"] >= data["deal"].max() * 0.9
    parts = [{k: v[m] for k, v in data.items()} for m in (~valid, valid)]
    x, hand, passed = (torch.from_numpy(parts[0][k]) for k in ("x", "hand", "passed"))
    xv, hv, pv = (torch.from_numpy(parts[1][k]) for k in ("x", "hand", "passed"))

    def loss_of(logits: torch.Tensor, h: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        each = nn.functional.binary_cross_entropy_with_logits(logits, p.float(), reduction="none")
        return (each * h).sum() / h.sum()

    optimizer = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.01)
    batches = (len(x) + 511) // 512
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=epochs * batches)
    best, kept = float("inf"), None
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(x))
        total = 0.0
        for b in range(batches):
            idx = order[b * 512 : (b + 1) * 512]
            loss = loss_of(net(x[idx]), hand[idx], passed[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item()
        net.eval()
        with torch.no_grad():
            held = loss_of(net(xv), hv, pv).item()
        if held < best:
            best, kept = held, {k: v.clone() for k, v in net.state_dict().items()}
        cards, whole = agreement(net, parts[1])
        print(f"epoch {epoch + 1}: train {total / batches:.4f} held out {held:.4f}, the expert's cards {cards:.3f}, "
              f"its whole pass {whole:.3f}", flush=True)
    assert kept is not None
    net.load_state_dict(kept)
    net.eval()


class ExpertPass(NeuralBot):
    """``neural`` passing as ``expert`` does (a search each pass): the upper bound of a learned pass."""

    def __init__(self, seed: int | None = None, *, expert: str = "hard") -> None:
        super().__init__(seed, pass_network="heuristic")
        self.expert: Bot = make_bot(expert, seed=seed)

    def choose_pass(self, view: View) -> CardSet:
        return self.expert.choose_pass(view)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--work", type=Path, default=Path("/tmp/neural-pass"))
    p.add_argument("--deals", type=int, default=4000, help="deals of expert passes (12 passes each)")
    p.add_argument("--seed", type=int, default=4001)
    p.add_argument("--expert", default="hard")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--measure", type=int, default=2000, help="fresh deals to measure on (0: none)")
    p.add_argument("--measure-seed", type=int, default=4201)
    p.add_argument("--start", type=Path, default=None, help="the pass network measured against (default: heuristic pass)")
    p.add_argument("--candidate", type=Path, default=None, help="measure this pass network; no training")
    p.add_argument("--upper-bound", action="store_true", help="measure neural passing as --expert does")
    p.add_argument("--export", type=Path, default=None)
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    args.work.mkdir(parents=True, exist_ok=True)

    def passing(path: Path | None) -> Callable[..., Bot]:
        network: reader.Network | Literal["heuristic"] = "heuristic"
        if path is not None:
            network = reader.Network.from_bytes(path.read_bytes(), str(path))
        return functools.partial(NeuralBot, pass_network=network)

    old = register_spec("neural-start", passing(args.start))
    if args.upper_bound:
        measure(register_spec("neural-expert-pass", functools.partial(ExpertPass, expert=args.expert)), old, args.measure,
                args.measure_seed)
        return
    if args.candidate is None:
        data = labels(args.work, args.seed, args.deals, args.expert)
        net = mlp(reader.PASS_FEATURES, args.hidden, 52, args.dropout)
        train(net, data, args.epochs, args.lr, args.seed)
        note = {"features": [reader.PASS_ENCODING, reader.PASS_FEATURES], "hidden": args.hidden,
                "data": {"deals": args.deals, "seed": args.seed, "expert": args.expert, "passes": len(data["x"])},
                "epochs": args.epochs, "lr": args.lr, "dropout": args.dropout}
        export(net, args.work / "pass.nn", "pass", note)
        args.candidate = args.work / "pass.nn"
        if args.export is not None:
            args.export.joinpath(reader.PASS_MODEL).write_bytes(args.candidate.read_bytes())
            print(f"wrote {args.export / reader.PASS_MODEL}")
    if args.measure:
        measure(register_spec("neural-new", passing(args.candidate)), old, args.measure, args.measure_seed)


if __name__ == "__main__":
    main()
