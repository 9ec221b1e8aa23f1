"""Policy-gradient fine-tuning of ``neural`` against heuristic bots, a greedy replay of each
deal (or of each card at a position) as the baseline; measured against the policy it started from.

    pip install -e '.[rl,fast,train]'          # train: PyTorch (CPU)
    nice -n 19 python examples/finetune_neural.py --start /tmp/neural/policy-dagger-1.nn --work /tmp/neural-pg
        [--method replay|branch] [--deals 120000] [--batch 256] [--lr 1e-4] [--schedule constant|cosine]
        [--branches 2] [--kl 0] [--target expected|softmax] [--tau 1] [--every 0] [--seed 2401]
        [--measure 1500] [--measure-seed 2501]
    nice -n 19 python examples/finetune_neural.py --start OLD.nn --candidate NEW.nn --measure 2000 --measure-seed S

The shipped ``neural`` is two such runs (seeds 2401 and 2403, the second from the first's
weights) after ``examples/train_neural.py``, then four runs of ``--method branch`` (seeds 3401 to
3404), then one of ``--method branch --target softmax --tau 4`` (seed 3502); the commands:
docs/notes/2026-12-06-neural-dagger.md, docs/notes/2026-12-06-neural-policy-gradient-2.md, then
docs/notes/2026-12-07-neural-advantage-target.md.

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

``--method branch`` (docs/notes/2026-12-06-neural-policy-gradient-2.md) gives each decision its
own baseline instead of the round's: deal ``k`` is played once, the learner greedy; at
``--branches`` of its decisions with a choice (drawn with the seeded generator) every other legal
card is played instead and the round finished from there as before (the learner greedy, the
heuristic bots draw no random numbers: only that card differs). Each card's score minus the
greedy round's is its advantage at that position, and the step descends the expected advantage
under the policy, ``mean(Σ π(card) × advantage(card))`` (the exact policy gradient at the
position, for a greedy continuation), plus ``--kl`` times the divergence KL(π ‖ π_start) from the
starting policy on the same positions. ``--target softmax`` (docs/notes/2026-12-07-neural-advantage-target.md)
descends instead the cross-entropy ``-mean(Σ q(card) × log π(card))`` toward the target
``q ∝ π(card) × exp(-advantage(card) / --tau)`` (π as it is before the step, held fixed; the
advantage in points, lower is better): an advantage-weighted target whose pull on a better card
is not damped by that card's small probability as the expected advantage's is. ``--schedule
cosine`` lowers the learning rate from ``--lr`` to 0 over the run. ``--candidate`` trains
nothing: it measures a weights file against ``--start``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from hearts.actions import Play
from hearts.arena import Progress, derive_seed, progress_mode
from hearts.bots import reader
from hearts.bots.heuristic import HeuristicBot
from hearts.cards import CARDS
from hearts.round import Round, deal_hands
from hearts.rules import Rules
from hearts.view import View

sys.path.insert(0, str(Path(__file__).parent))
from train_neural import load, measure, seat
from train_reader import export, mlp


@dataclass
class Played:
    """One round of the learner at seat 0: its score, and at each of its decisions with a choice
    the features (dense), the legal cards and the card played."""

    score: int
    x: list[np.ndarray]
    legal: list[np.ndarray]
    action: list[int]


def learner_turns(r: Round, bots: list[HeuristicBot]) -> Iterator[tuple[list[int], list[float], np.ndarray]]:
    """Play ``r`` to its end: every seat by ``bots``, but at each decision with a choice of the
    learner (seat 0, where the network applies) its features (active, values) and legal cards are
    yielded, and the caller plays its card before the next."""
    while actors := r.actors():
        for s in actors:
            view = View.of(r, s)
            if s != 0 or r.phase.value != "playing" or len(view.legal) == 1 or not reader.applies(view):
                r.apply(bots[s].act(view))
                continue
            active, values = reader.features(view)
            legal = np.zeros(52, dtype=bool)
            legal[[int(c) for c in view.legal]] = True
            yield active, values, legal


def play(net: nn.Sequential, rules: Rules, seed: int, k: int, rng: np.random.Generator | None) -> Played:
    """Deal ``k`` of ``seed`` with the learner (``net``) at seat 0, sampling its cards with ``rng``
    (its most probable card without), the other seats ``heuristic`` bots seeded from the deal."""
    r = Round(rules, deal_hands(rules, derive_seed(seed, "deal", k)), round_number=k)
    bots = [HeuristicBot(seed=derive_seed(seed, "bot", k, s)) for s in range(4)]
    out = Played(0, [], [], [])
    for active, values, legal in learner_turns(r, bots):
        x = np.zeros(reader.FEATURES, dtype=np.float32)
        x[active] = values
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


class Forward:
    """The forward pass of a :func:`train_reader.mlp`'s linear layers in numpy (float32) on the
    weights it has when made (:meth:`refresh` after each step): the logits for a view's features."""

    def __init__(self, net: nn.Sequential) -> None:
        self.refresh(net)

    def refresh(self, net: nn.Sequential) -> None:
        layers = [m for m in net if isinstance(m, nn.Linear)]
        self.w = [m.weight.detach().numpy().T.copy() for m in layers]
        self.b = [m.bias.detach().numpy().copy() for m in layers]

    def __call__(self, active: list[int], values: list[float]) -> np.ndarray:
        h = self.b[0] + np.asarray(values, dtype=np.float32) @ self.w[0][active]
        for w, b in zip(self.w[1:], self.b[1:], strict=True):
            h = np.maximum(h, 0.0) @ w + b
        return h


@dataclass
class Position:
    """A decision of the learner with a choice in a greedy round: the round there, the features
    (dense), the legal cards, the greedy card."""

    round: Round
    x: np.ndarray
    legal: np.ndarray
    card: int


def finish(r: Round, forward: Forward, bots: list[HeuristicBot], record: list[Position] | None = None) -> int:
    """Play ``r`` to its end, the learner (seat 0) taking its most probable card, the other seats
    ``bots``; the learner's score. With ``record``, each of the learner's decisions with a choice
    is appended to it (before its card is played)."""
    for active, values, legal in learner_turns(r, bots):
        card = int(np.where(legal, forward(active, values), -np.inf).argmax())
        if record is not None:
            x = np.zeros(reader.FEATURES, dtype=np.float32)
            x[active] = values
            record.append(Position(r.clone(), x, legal, card))
        r.apply(Play(0, CARDS[card]))
    assert r.result is not None
    return r.result.scores[0]


def branch(forward: Forward, rules: Rules, seed: int, k: int, rng: np.random.Generator, branches: int
           ) -> tuple[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """Deal ``k`` of ``seed`` played greedily by the learner against three ``heuristic`` bots
    (seeded as :func:`play` seeds them), and at ``branches`` of its decisions with a choice
    (drawn with ``rng``) each other legal card played instead, the round finished greedily: the
    greedy round's score, and for each such position its features, its legal cards and each
    card's score minus the greedy round's (0 where not legal)."""
    r = Round(rules, deal_hands(rules, derive_seed(seed, "deal", k)), round_number=k)
    bots = [HeuristicBot(seed=derive_seed(seed, "bot", k, s)) for s in range(4)]
    positions: list[Position] = []
    greedy = finish(r, forward, bots, positions)
    out = []
    if positions:
        for i in sorted(rng.choice(len(positions), size=min(branches, len(positions)), replace=False)):
            at = positions[i]
            advantage = np.zeros(52, dtype=np.float32)
            for card in np.flatnonzero(at.legal):
                if card != at.card:
                    other = at.round.clone()
                    other.apply(Play(0, CARDS[int(card)]))
                    advantage[card] = finish(other, forward, bots) - greedy
            out.append((at.x, at.legal, advantage))
    return greedy, out


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
    p.add_argument("--method", choices=("replay", "branch"), default="replay",
                   help="replay: the round's advantage over a greedy replay; branch: each card's at a position")
    p.add_argument("--branches", type=int, default=2, help="positions branched a deal (--method branch)")
    p.add_argument("--kl", type=float, default=0.0, help="weight of KL(π ‖ π_start) (--method branch)")
    p.add_argument("--target", choices=("expected", "softmax"), default="expected",
                   help="expected: descend Σ π × advantage; softmax: cross-entropy toward π × exp(-advantage/τ) (--method branch)")
    p.add_argument("--tau", type=float, default=1.0, help="τ of --target softmax, in points")
    p.add_argument("--schedule", choices=("constant", "cosine"), default="constant")
    p.add_argument("--candidate", type=Path, default=None, help="measure this weights file against --start; no training")
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    args.work.mkdir(parents=True, exist_ok=True)
    rules = Rules()
    start = reader.Network.from_bytes(args.start.read_bytes(), str(args.start))
    if args.candidate is not None:
        measure(seat("neural-new", reader.Network.from_bytes(args.candidate.read_bytes(), str(args.candidate))),
                seat("neural-start", start),
                args.measure, args.measure_seed)
        return
    net = mlp(reader.FEATURES, start.layers[0][1], 52, 0.0)
    load(net, start)
    net.eval()
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    steps = (args.deals + args.batch - 1) // args.batch
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda i: 1.0 if args.schedule == "constant" else 0.5 * (1 + math.cos(math.pi * i / steps)))
    rng = np.random.default_rng(args.seed)
    forward = Forward(net)
    frozen = mlp(reader.FEATURES, start.layers[0][1], 52, 0.0)  # the starting policy, for --kl
    load(frozen, start)
    frozen.eval()
    bar = Progress(args.deals, "deal", progress_mode(True), name="pg")
    bar.begin(f"{args.deals} deals, batches of {args.batch}")
    began, gains = time.perf_counter(), []
    log: list[tuple[float, float, float, float, int]] = []  # --method branch, a line per step

    def note(deals: int) -> dict[str, Any]:
        out = {"data": {"pg_deals": deals, "seed": args.seed, "start": start.header.get("data")},
               "hidden": start.layers[0][1], "lr": args.lr, "batch": args.batch}
        if args.method == "branch":
            out.update(method="branch", branches=args.branches, kl=args.kl, schedule=args.schedule)
            if args.target != "expected":
                out.update(target=args.target, tau=args.tau)
        return out

    for first in range(0, args.deals, args.batch) if args.method == "branch" else ():
        xs, legals, advantages, greedy = [], [], [], []
        for k in range(first, min(first + args.batch, args.deals)):
            score, found = branch(forward, rules, args.seed, k, rng, args.branches)
            greedy.append(score)
            for x, legal, advantage in found:
                xs.append(x)
                legals.append(legal)
                advantages.append(advantage)
            bar.advance(1)
        if xs:
            x, legal, advantage = (torch.from_numpy(np.stack(v)) for v in (xs, legals, advantages))
            logp = torch.log_softmax(net(x).masked_fill(~legal, -1e9), dim=1)
            p = logp.exp()
            expected = (p * advantage).sum(1)
            if args.target == "softmax":
                q = torch.softmax(logp.detach() - advantage / args.tau, dim=1)
                loss = -(q * logp).sum(1).mean()
            else:
                loss = expected.mean()
            if args.kl:
                with torch.no_grad():
                    old = torch.log_softmax(frozen(x).masked_fill(~legal, -1e9), dim=1)
                kl = (p * (logp - old)).masked_fill(~legal, 0.0).sum(1).mean()
                loss = loss + args.kl * kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            forward.refresh(net)
            log.append((float(np.mean(greedy)), float(expected.detach().mean()), float(advantage.min(1).values.mean()),
                          float((advantage.min(1).values < 0).float().mean()), len(xs)))
        schedule.step()
        done = min(first + args.batch, args.deals)
        if done % (args.batch * 20) == 0 or done == args.deals:
            recent = np.array(log[-20:])
            print(f"{done} deals: greedy {recent[:, 0].mean():.3f} points a round; at the branched positions "
                  f"π's cards {recent[:, 1].mean():+.3f}, the best card {recent[:, 2].mean():+.3f} against greedy, "
                  f"a better card at {recent[:, 3].mean():.2f} of them ({int(recent[:, 4].sum())} positions; "
                  f"lr {schedule.get_last_lr()[0]:.2g}; {time.perf_counter() - began:.0f} s)", flush=True)
        if args.every and done % args.every == 0 and done < args.deals:
            export(net, args.work / f"policy-pg-{done}.nn", "policy", note(done))

    for first in range(0, args.deals, args.batch) if args.method == "replay" else ():
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
        schedule.step()
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
        measure(seat("neural-new", current), seat("neural-start", start), args.measure, args.measure_seed)


if __name__ == "__main__":
    main()
