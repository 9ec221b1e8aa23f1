"""Train PPO with RLlib on the PettingZoo environment ``hearts_v0`` (CPU only): one policy
shared by the four seats (self-play), its illegal actions masked out.

    pip install -e '.[rl,cluster]' 'ray[rllib]' torch==2.13.0
    python examples/rllib_pettingzoo.py [--iterations N] [--eval N] [--seed S]

RLlib steps the AEC environment through its ``PettingZooEnv`` wrapper; the observations are
renamed for its action-masking module (``{"observations", "action_mask"}``, the mask as
floats). The rewards are the round's points, negated and per trick (``shaping=True``), / 26.

Self-play returns say nothing (the four seats share 26 points whatever they play), so the
policy is measured before and after training the way ``examples/train_policy.py`` measures its
own: at seat 0 against three ``random`` bots of the registry, greedy (its most probable legal
card), on the same ``--eval`` deals, as mean points per round with a 95% confidence interval
(lower is better; a random player scores about 6.5).
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import time
from typing import Any

import numpy as np
import ray
import torch
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper  # type: ignore[import-untyped]
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from hearts.rl import hearts_v0
from hearts.rl.gym_env import HeartsEnv

POLICY = "shared"


class MaskedObservations(BaseWrapper):  # type: ignore[misc]
    """``hearts_v0`` with the observation keys of RLlib's action-masking module."""

    def observation_space(self, agent: str) -> spaces.Dict:
        inner = self.env.observation_space(agent)
        mask = spaces.Box(0.0, 1.0, (52,), np.float32)
        return spaces.Dict({"observations": inner["observation"], "action_mask": mask})

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return rename(self.env.observe(agent))


def rename(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Our observation as the masking module reads it."""
    return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def make_env(_: Any = None) -> PettingZooEnv:
    return PettingZooEnv(MaskedObservations(hearts_v0.env(shaping=True, reward_scale=1 / 26)))


def evaluate(module: Any, deals: int) -> tuple[float, float]:
    """Mean points per round of the greedy policy at seat 0 against three random bots, on deals
    seeded 10**6 … 10**6 + deals - 1, and the half-width of its 95% confidence interval."""
    env = HeartsEnv(opponents="random")
    points = []
    for deal in range(deals):
        obs, _ = env.reset(seed=10**6 + deal)
        done, total = False, 0.0
        while not done:
            batch = {k: torch.from_numpy(v[None]) for k, v in rename(obs).items()}
            with torch.no_grad():
                logits = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
            obs, reward, done, _, _ = env.step(int(torch.argmax(logits[0])))  # masked: only legal cards
            total += float(reward)
        points.append(-total)
    arr = np.array(points)
    return float(arr.mean()), float(1.96 * arr.std(ddof=1) / math.sqrt(len(arr)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=10, help="PPO training iterations")
    parser.add_argument("--batch", type=int, default=4000, help="environment steps per iteration")
    parser.add_argument("--eval", type=int, default=500, help="deals to evaluate on, before and after")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR)
    register_env("hearts", make_env)
    config = (
        PPOConfig()
        .environment("hearts", disable_env_checking=True)  # its checker plays unmasked random actions
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    POLICY: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"head_fcnet_hiddens": [256, 256], "head_fcnet_activation": "relu"},
                    )
                }
            )
        )
        .env_runners(num_env_runners=1)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=250, num_epochs=5, lr=3e-4, gamma=1.0)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    before = evaluate(algo.get_module(POLICY), args.eval)
    print(f"before: {before[0]:.2f} ± {before[1]:.2f} points per round (greedy, {args.eval} rounds vs 3 random bots)")
    start = time.time()
    steps = 0
    for i in range(args.iterations):
        result = algo.train()
        steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
        print(f"iteration {i + 1}: {steps} steps  [{time.time() - start:.0f}s]", file=sys.stderr)
    after = evaluate(algo.get_module(POLICY), args.eval)
    print(
        f"after {args.iterations} PPO iterations ({steps} steps of self-play, {time.time() - start:.0f}s): "
        f"{after[0]:.2f} ± {after[1]:.2f} points per round"
    )
    print(f"improvement: {before[0] - after[0]:.2f} points per round")
    algo.stop()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
