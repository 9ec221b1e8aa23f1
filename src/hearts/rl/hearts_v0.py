"""A PettingZoo AEC environment for Hearts (``hearts_v0``), every rule option of docs/rules.md.

>>> from hearts.rl import hearts_v0
>>> env = hearts_v0.env(players=4)
>>> env.reset(seed=42)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     mask = obs["action_mask"]
...     action = None if termination or truncation else int(mask.nonzero()[0][0])
...     env.step(action)
>>> sorted(env.possible_agents)
['player_0', 'player_1', 'player_2', 'player_3']

- Agents ``player_0`` … ``player_{n-1}`` are seats 0 … n−1 (R1.4).
- Actions: ``Discrete(52)``, card ids (OpenSpiel's). Passing is **three single-card actions**
  per seat (``pass_count`` of them), seats in order 0, 1, …; the cards change hands after the
  last seat's last card. Under ``moon="shooter_chooses"`` the shooter's decision is action 0
  (add 26 to the others) or 1 (subtract 26 from itself). See :mod:`hearts.rl.driver`.
- Observations: ``{"observation": Box(float32), "action_mask": Box(int8, (52,))}``, the
  encoding of :mod:`hearts.rl.encoding` (a seat's :class:`~hearts.view.View` only, R7); the mask
  is all zeros for a seat that is not to act.
- Rewards: ``-scores`` at the end of each round (R4); ``shaping=True`` gives each trick's
  points to its taker at once (the round's total is unchanged); ``reward_scale`` multiplies.
- Episode: one round (``round_number`` sets the pass direction, R2.2), or ``whole_game=True``:
  rounds to the target (R5); ``info["totals"]`` holds the game totals.
- Rendering: ``render()`` returns the table as text (every hand), with ANSI colours under
  ``render_mode="ansi"``; ``"human"`` prints it after every step.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from hearts.rl import MissingExtra

try:
    import numpy as np
    from gymnasium import spaces
    from numpy.typing import NDArray
    from pettingzoo import AECEnv  # type: ignore[import-untyped]
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
except ModuleNotFoundError as e:
    raise MissingExtra.of(e, "rl", __name__) from None

from hearts.rl.driver import Driver
from hearts.rl.encoding import ObservationEncoder
from hearts.rl.gym_env import render
from hearts.rules import Rules

ObsType = dict[str, NDArray[Any]]


def env(**kwargs: Any) -> Any:
    """The environment wrapped in PettingZoo's order-enforcing and bounds-checking wrappers."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's naming
    """Hearts as an AEC game; ``rules`` (a :class:`Rules`) or its options as keyword arguments."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "hearts_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        whole_game: bool = False,
        round_number: int = 0,
        shaping: bool = False,
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.rules = rules.replace(**options) if rules is not None else Rules.from_dict(options)
        self.whole_game = whole_game
        self.round_number = round_number
        self.shaping = shaping
        self.reward_scale = reward_scale
        self.render_mode = render_mode
        self.encoder = ObservationEncoder(self.rules)
        n = self.rules.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(52,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(52) for a in self.possible_agents}
        self._rng = random.Random()
        self._driver: Driver | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def driver(self) -> Driver:
        if self._driver is None:
            raise RuntimeError("call reset() first")
        return self._driver

    def observe(self, agent: str) -> ObsType:
        seat = self.possible_agents.index(agent)
        d = self.driver
        mask = d.legal_mask(seat)
        action_mask = np.array([mask >> c & 1 for c in range(52)], dtype=np.int8)
        obs = self.encoder.encode(d.view(seat), d.pending[seat])
        return {"observation": obs, "action_mask": action_mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self._driver = Driver.deal(
            self.rules,
            self._rng,
            whole_game=self.whole_game,
            round_number=self.round_number,
            shaping=self.shaping,
        )
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._seat_agent()

    def _seat_agent(self) -> str:
        seat = self.driver.current_seat()
        return self.possible_agents[seat if seat is not None else 0]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: an action 0..51 from its action_mask")
        d = self.driver
        self._cumulative_rewards[agent] = 0.0
        rewards = d.apply(action)
        self.rewards = {a: r * self.reward_scale for a, r in zip(self.possible_agents, rewards, strict=True)}
        if d.last_result is not None and any(rewards):
            for a in self.agents:
                self.infos[a] = {"round_scores": d.last_result.scores}
                if d.game is not None:
                    self.infos[a]["totals"] = tuple(d.game.totals)
        if d.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self._seat_agent()
        if self.render_mode == "human":
            self.render()

    def text(self, ansi: bool = False) -> str:
        """The table as text (:meth:`Driver.render <hearts.rl.driver.Driver.render>`, the agents
        as names; ANSI colours with ``ansi``), whatever the render mode."""
        return self.driver.render(self.possible_agents, ansi=ansi)

    def render(self) -> str | None:
        """The table as text (:meth:`text`), as :func:`~hearts.rl.gym_env.render` shows it for
        the render mode (PettingZoo's convention is Gymnasium's)."""
        return render(self.render_mode, self.text, 'hearts_v0.env(render_mode="ansi")')

    def close(self) -> None:
        pass


__all__ = ["env", "raw_env"]
