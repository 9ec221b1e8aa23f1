"""Policy-gradient fine-tuning of ``neural`` against heuristic bots, a greedy replay of each
deal as the baseline; measured against the policy it started from.

    pip install -e '.[rl,fast,train]'          # train: PyTorch (CPU)
    nice -n 19 python examples/finetune_neural.py --start /tmp/neural/policy-dagger-1.nn --work /tmp/neural-pg
        [--deals 120000] [--batch 256] [--lr 1e-4] [--every 0] [--seed 2401] [--measure 1500] [--measure-seed 2501]

The shipped ``neural`` is two such runs (seeds 2401 and 2403, the second from the first's
weights) after ``examples/train_neural.py``; the commands: docs/notes/2026-12-06-neural-dagger.md.

Issue 43; docs/notes/2026-12-06-neural-dagger.md. Each deal ``k`` (seeded ``--seed``, round
number ``k``: the pass direction rotates) is played twice with the learner at seat 0 and three
``heuristic`` bots seeded alike: once sampling the learner's cards from its softmax (the
behaviour), once taking its most probable card (the baseline). The advantage of the sampled
round is the baseline's score minus its own (positive: the sampled cards did better), and each
``--batch`` deals make one Adam step on ``-mean(advantage × log π(card))`` over the sampled
round's decisions with a choice (REINFORCE with a self-critical baseline; Rennie et al., 2017).
The weights are written to ``--work`` (``policy-pg.nn``; with ``--every``, ``policy-pg-DEALS.nn``
on the way). Then the new and the starting policy play the same ``--measure`` fresh deals × 4
rotations against three heuristic bots (``train_neural.py``'s measurement).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from hearts.actions import Play
from hearts.arena import Progress, derive_seed, interval_text, paired_difference, progress_mode
from hearts.bots import reader
from hearts.bots.heuristic import HeuristicBot
from hearts.cards import CARDS
from hearts.round import Round, deal_hands
from hearts.rules import Rules
from hearts.view import View

sys.path.insert(0, str(Path(__file__).parent))
from train_neural import duel, load, seat
from train_reader import export, mlp


@dataclass
class Played:
    """One round of the learner at seat 0: its score, and at each of its decisions with a choice
    the features (dense), the legal cards and the card played."""

    score: int
    x: list[np.ndarray]
    legal: list[np.ndarray]
    action: list[int]


def play(net: nn.Sequential, rules: Rules, seed: int, k: int, rng: np.random.Generator | None) -> Played:
    """Deal ``k`` of ``seed`` with the learner (``net``) at seat 0, sampling its cards with ``rng``
    (its most probable card without), the other seats ``heuristic`` bots seeded from the deal."""
    r = Round(rules, deal_hands(rules, derive_seed(seed, "deal", k)), round_number=k)
    bots = [HeuristicBot(seed=derive_seed(seed, "bot", k, s)) for s in range(4)]
    out = Played(0, [], [], [])
    while actors := r.actors():
        for s in actors:
            view = View.of(r, s)
            if s != 0 or r.phase.value != "playing" or len(view.legal) == 1 or not reader.applies(view):
                r.apply(bots[s].act(view))
                continue
            x = np.zeros(reader.FEATURES, dtype=np.float32)
            active, values = reader.features(view)
            x[active] = values
            legal = np.zeros(52, dtype=bool)
            legal[[int(c) for c in view.legal]] = True
            with torch.no_grad():
                logits = net(torch.from_numpy(x)[None])[0].numpy()
            z = np.where(legal, logits, -np.inf)
            if rng is None:
                card = int(z.argmax())
            else:
                p = np.exp(z - z.max())
                card = int(rng.choice(52, p=p / p.sum()))
            out.x.append(x)
            out.legal.append(legal)
            out.action.append(card)
            r.apply(Play(0, CARDS[card]))
    assert r.result is not None
    out.score = r.result.scores[0]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--start", type=Path, required=True)
    p.add_argument("--work", type=Path, default=Path("/tmp/neural-pg"))
    p.add_argument("--deals", type=int, default=120000)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--seed", type=int, default=2401)
    p.add_argument("--every", type=int, default=0, help="also write the weights every so many deals")
    p.add_argument("--measure", type=int, default=1500)
    p.add_argument("--measure-seed", type=int, default=2501)
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    args.work.mkdir(parents=True, exist_ok=True)
    rules = Rules()
    start = reader.Network.from_bytes(args.start.read_bytes(), str(args.start))
    net = mlp(reader.FEATURES, start.layers[0][1], 52, 0.0)
    load(net, start)
    net.eval()
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    rng = np.random.default_rng(args.seed)
    bar = Progress(args.deals, "deal", progress_mode(True), name="pg")
    bar.begin(f"{args.deals} deals, batches of {args.batch}")
    began, gains = time.perf_counter(), []

    def note(deals: int) -> dict[str, Any]:
        return {"data": {"pg_deals": deals, "seed": args.seed, "start": start.header.get("data")},
                "hidden": start.layers[0][1], "lr": args.lr, "batch": args.batch}

    for first in range(0, args.deals, args.batch):
        xs, legals, actions, advantages = [], [], [], []
        for k in range(first, min(first + args.batch, args.deals)):
            baseline = play(net, rules, args.seed, k, None)
            sampled = play(net, rules, args.seed, k, rng)
            advantage = baseline.score - sampled.score
            gains.append(advantage)
            if advantage and sampled.action != baseline.action:
                xs += sampled.x
                legals += sampled.legal
                actions += sampled.action
                advantages += [float(advantage)] * len(sampled.action)
            bar.advance(1)
        if xs:
            logits = net(torch.from_numpy(np.stack(xs))).masked_fill(~torch.from_numpy(np.stack(legals)), -1e9)
            logp = torch.log_softmax(logits, dim=1)[torch.arange(len(actions)), torch.tensor(actions)]
            loss = -(torch.tensor(advantages) * logp).sum() / args.batch
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        done = min(first + args.batch, args.deals)
        if done % (args.batch * 20) == 0 or done == args.deals:
            recent = gains[-args.batch * 20:]
            print(f"{done} deals: sampled minus greedy {-float(np.mean(recent)):.3f} points a round "
                  f"(last {len(recent)}; {time.perf_counter() - began:.0f} s)", flush=True)
        if args.every and done % args.every == 0 and done < args.deals:
            export(net, args.work / f"policy-pg-{done}.nn", "policy", note(done))
    bar.end()
    current = export(net, args.work / "policy-pg.nn", "policy", note(args.deals))
    if args.measure:
        new = duel(seat("neural-new", current), args.measure, args.measure_seed, 1)
        old = duel(seat("neural-start", start), args.measure, args.measure_seed, 1)
        diff, low, high = paired_difference(new, old)
        for name, result in (("new", new), ("start", old)):
            bot = result.bots[0]
            print(f"{name}: {bot.mean:.2f} {interval_text(bot.ci_low, bot.ci_high)} ({bot.rounds} rounds)")
        print(f"new_minus_start={diff:.2f} {interval_text(low, high, compact=True)} over {args.measure} deals × 4")


if __name__ == "__main__":
    main()
