"""Train a small policy against random opponents (numpy only): REINFORCE with a linear softmax
policy over the observation encoding, on the Gymnasium environment ``pyhearts/Hearts-v0``.

    .venv/bin/python examples/train_policy.py [--episodes N] [--eval N] [--seed S]

The learner sits at seat 0 against three ``random`` bots, one round per episode (the pass
direction rotating), reward = -points of the round (R4), per-trick shaping on. Before and after
training it plays the same ``--eval`` deals greedily (the most probable legal card), and
prints the mean points per round with a 95% confidence interval; the random policy scores
about 6.5 (a quarter of the 26 points, a little more after moons).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

import gymnasium
import numpy as np
from numpy.typing import NDArray

import hearts.rl  # registers pyhearts/Hearts-v0

Array = NDArray[np.float64]


class LinearPolicy:
    """``softmax(W @ obs + b)`` over the legal actions."""

    def __init__(self, obs_size: int, rng: np.random.Generator) -> None:
        self.w = rng.normal(0, 0.01, (52, obs_size))
        self.b = np.zeros(52)
        self.m = [np.zeros_like(self.w), np.zeros_like(self.b)]
        self.v = [np.zeros_like(self.w), np.zeros_like(self.b)]
        self.t = 0

    def probs(self, obs: Array, mask: NDArray[np.int8]) -> Array:
        logits = self.w @ obs + self.b
        logits = np.where(mask > 0, logits, -np.inf)
        logits -= logits.max()
        p: Array = np.exp(logits)
        out: Array = p / p.sum()
        return out

    def update(self, grads: tuple[Array, Array], lr: float) -> None:
        """One Adam step (ascent)."""
        self.t += 1
        for i, (param, g) in enumerate(zip((self.w, self.b), grads, strict=True)):
            self.m[i] = 0.9 * self.m[i] + 0.1 * g
            self.v[i] = 0.999 * self.v[i] + 0.001 * g * g
            m_hat = self.m[i] / (1 - 0.9**self.t)
            v_hat = self.v[i] / (1 - 0.999**self.t)
            param += lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def evaluate(policy: LinearPolicy, env: gymnasium.Env[Any, Any], episodes: int, seed: int) -> tuple[float, float]:
    """Mean points per round (greedy play) and the half-width of its 95% confidence interval."""
    points = []
    for ep in range(episodes):
        obs, _ = env.reset(seed=seed + ep)
        done = False
        total = 0.0
        while not done:
            p = policy.probs(obs["observation"], obs["action_mask"])
            obs, reward, done, _, _ = env.step(int(np.argmax(p)))
            total += float(reward)
        points.append(-total)
    arr = np.array(points)
    return float(arr.mean()), float(1.96 * arr.std(ddof=1) / math.sqrt(len(arr)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=6000)
    parser.add_argument("--eval", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32, help="episodes per update")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    env = gymnasium.make(hearts.rl.ENV_ID, opponents="random", shaping=True).unwrapped
    obs_size = env.observation_space["observation"].shape[0]  # type: ignore[index]
    policy = LinearPolicy(obs_size, rng)

    before = evaluate(policy, env, args.eval, 10**6)
    print(f"before: {before[0]:.2f} ± {before[1]:.2f} points per round (greedy, {args.eval} rounds)")
    start = time.time()
    baseline = 0.0
    grads = (np.zeros_like(policy.w), np.zeros_like(policy.b))
    recent: list[float] = []
    for ep in range(args.episodes):
        obs, _ = env.reset(seed=args.seed * 10**7 + ep)
        steps: list[tuple[Array, Array, int]] = []
        rewards: list[float] = []
        done = False
        while not done:
            x = obs["observation"].astype(np.float64)
            p = policy.probs(x, obs["action_mask"])
            a = int(rng.choice(52, p=p))
            steps.append((x, p, a))
            obs, reward, done, _, _ = env.step(a)
            rewards.append(float(reward))
        returns = np.cumsum(rewards[::-1])[::-1]  # reward-to-go
        total = float(returns[0])
        recent.append(-total)
        baseline += 0.01 * (total - baseline) if ep else total
        for (x, p, a), g in zip(steps, returns, strict=True):
            adv = (g - baseline) / 26
            d = -p
            d[a] += 1.0  # d log pi / d logits
            grads[0][:] += adv * np.outer(d, x)
            grads[1][:] += adv * d
        if (ep + 1) % args.batch == 0:
            policy.update((grads[0] / args.batch, grads[1] / args.batch), args.lr)
            grads[0][:] = 0
            grads[1][:] = 0
        if (ep + 1) % 1000 == 0:
            print(
                f"episode {ep + 1}: mean points (sampling) over the last 1000: {np.mean(recent[-1000:]):.2f}"
                f"  [{time.time() - start:.0f}s]",
                file=sys.stderr,
            )
    after = evaluate(policy, env, args.eval, 10**6)
    print(
        f"after {args.episodes} episodes ({time.time() - start:.0f}s): {after[0]:.2f} ± {after[1]:.2f} points per round"
    )
    print(f"improvement: {before[0] - after[0]:.2f} points per round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
