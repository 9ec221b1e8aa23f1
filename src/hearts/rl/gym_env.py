"""A Gymnasium single-agent environment: one seat learns, the others are bots of the registry.

>>> import gymnasium
>>> env = gymnasium.make("hearts.rl:pyhearts/Hearts-v0", opponents="random")
>>> obs, info = env.reset(seed=3)
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((622,), True)

Actions, observations and rewards are those of :mod:`hearts.rl.hearts_v0` (see
:mod:`hearts.rl.driver`): card ids, the pass as single-card actions, ``{"observation",
"action_mask"}``, ``-scores`` at the end of each round (optionally shaped per trick). The
opponents (``opponents``: one bot spec for all, or one per other seat, e.g. ``"heuristic"``,
``"easy"``) act between the learner's turns, from their own views (R7), seeded from
``reset(seed=…)`` so that an episode is reproducible. (``"hearts.rl:"`` makes Gymnasium import
:mod:`hearts.rl`, which registers the id; after ``import hearts.rl`` the plain id works too.)

An action outside the mask does not crash a learner that samples the whole action space
(``env.action_space.sample()``, Gymnasium's ``check_env``): with ``illegal="random"`` (the
default) a uniformly random legal action, drawn from the episode's seeded generator, is taken
instead; ``info["illegal_action"]`` is then ``True``, ``info["played_action"]`` is the action
taken, and ``illegal_penalty`` (default ``0.0``; e.g. ``-1.0`` to teach the mask) is added to
the reward. Every ``info`` carries ``"action_mask"`` (as in the observation, the legal actions
of the next decision) and :meth:`HeartsEnv.action_masks` returns it as booleans (for masked
learners such as sb3-contrib's ``MaskablePPO``). ``illegal="raise"`` is the strict mode for
debugging a policy: ``step`` raises the engine's :class:`~hearts.errors.IllegalAction` naming
the rule (R2.1, R3), and nothing changes. Anything outside the action space (``99``, ``2.5``)
is an :class:`~hearts.errors.ActionError` in both modes.

>>> bad = int((obs["action_mask"] == 0).argmax())  # a card seat 0 does not hold
>>> obs, reward, terminated, truncated, info = env.step(bad)
>>> info["illegal_action"], info["played_action"] != bad, reward
(True, True, 0.0)
>>> env.step(99)
Traceback (most recent call last):
...
hearts.errors.ActionError: R1.2: 99 is not an action: expected an int 0..51 (a card id, or a moon choice)

``render()`` shows the table as text (every hand: it is for a person watching):
``render_mode="ansi"`` returns it with ANSI colours, ``"human"`` prints it after every step;
without a render mode ``render()`` warns and returns ``None``, as Gymnasium's environments do.
``text()`` is the table as plain text whatever the render mode.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from hearts.rl import MissingExtra

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from numpy.typing import NDArray
except ModuleNotFoundError as e:
    raise MissingExtra.of(e, "rl", __name__) from None

from hearts.bots import Bot, make_bot
from hearts.bots.policies import random_card
from hearts.rl.driver import Driver, action_index
from hearts.rl.encoding import ObservationEncoder
from hearts.rules import Rules

ObsType = dict[str, NDArray[Any]]


class HeartsEnv(gymnasium.Env[ObsType, np.int64]):
    """One seat of Hearts against bots."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 - gymnasium declares it so

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        seat: int = 0,
        opponents: str | Sequence[str] = "random",
        whole_game: bool = False,
        round_number: int = 0,
        shaping: bool = False,
        reward_scale: float = 1.0,
        illegal: str = "random",
        illegal_penalty: float = 0.0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.rules = rules.replace(**options) if rules is not None else Rules.from_dict(options)
        n = self.rules.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {seat!r}")
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"give one opponent spec or {n - 1} of them, not {len(specs)}")
        if illegal not in ("raise", "random"):
            raise ValueError(f"illegal must be 'raise' or 'random', not {illegal!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        for spec in dict.fromkeys(specs):  # fail early on a bad spec, or rules a bot cannot play
            make_bot(spec, 0, rules=self.rules)
        self.seat = seat
        self.specs = {s: specs[i] for i, s in enumerate(x for x in range(n) if x != seat)}
        self.whole_game = whole_game
        self.round_number = round_number
        self.shaping = shaping
        self.reward_scale = reward_scale
        self.illegal = illegal
        self.illegal_penalty = illegal_penalty
        self.render_mode = render_mode
        self.encoder = ObservationEncoder(self.rules)
        self.observation_space = spaces.Dict(  # type: ignore[assignment]
            {
                "observation": spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(52,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(52)
        self._rng = random.Random()
        self._driver: Driver | None = None
        self._bots: dict[int, Bot] = {}

    def _obs(self) -> ObsType:
        d = self._driver
        assert d is not None
        mask = d.legal_mask(self.seat)
        return {
            "observation": self.encoder.encode(d.view(self.seat), d.pending[self.seat]),
            "action_mask": np.array([mask >> c & 1 for c in range(52)], dtype=np.int8),
        }

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions of the learner's next decision, as 52 booleans (all ``False`` once
        the episode is over)."""
        d = self._driver
        if d is None:
            raise RuntimeError("call reset() first")
        mask = d.legal_mask(self.seat)  # 0 when it is not the learner's turn
        return np.array([mask >> c & 1 for c in range(52)], dtype=np.bool_)

    def _info(self, **extra: Any) -> dict[str, Any]:
        d = self._driver
        assert d is not None
        info: dict[str, Any] = {"seat": self.seat, "action_mask": self.action_masks().astype(np.int8), **extra}
        if d.last_result is not None:
            info["round_scores"] = d.last_result.scores
        if d.game is not None:
            info["totals"] = tuple(d.game.totals)
        return info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self._driver = Driver.deal(
            self.rules,
            self._rng,
            whole_game=self.whole_game,
            round_number=self.round_number,
            shaping=self.shaping,
        )
        self._bots = {s: make_bot(spec, self._rng.randrange(2**32)) for s, spec in self.specs.items()}
        self._run_bots()
        return self._obs(), self._info()

    def _run_bots(self) -> float:
        """Let the bots act until the learner must act or the episode ends; the learner's reward."""
        d = self._driver
        assert d is not None
        reward = 0.0
        while (seat := d.current_seat()) is not None and seat != self.seat:
            reward += d.act(self._bots[seat].act(d.view(seat)))[self.seat]
        return reward

    def step(self, action: np.int64 | int) -> tuple[ObsType, float, bool, bool, dict[str, Any]]:
        d = self._driver
        if d is None or d.is_over:
            raise RuntimeError("call reset() first: the episode is over")
        a = action_index(action)
        extra: dict[str, Any] = {}
        reward = 0.0
        if self.illegal == "random":
            mask = d.legal_mask(self.seat)
            if not mask >> a & 1:
                a = random_card(mask, self._rng)
                extra["illegal_action"] = True
                extra["played_action"] = a
                reward += self.illegal_penalty
        reward += d.apply(a)[self.seat]
        reward += self._run_bots()
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward * self.reward_scale, d.is_over, False, self._info(**extra)

    def text(self, ansi: bool = False) -> str | None:
        """The table as text (:meth:`Driver.render <hearts.rl.driver.Driver.render>`: every
        hand, the trick, the points; ANSI colours with ``ansi``), whatever the render mode;
        ``None`` before :meth:`reset`."""
        return None if self._driver is None else self._driver.render(you=self.seat, ansi=ansi)

    def render(self) -> str | None:
        """The table as text (:meth:`text`), as :func:`render` shows it for the render mode."""
        return render(self.render_mode, self.text, 'gymnasium.make("hearts.rl:pyhearts/Hearts-v0", render_mode="ansi")')


def render(render_mode: str | None, text: Callable[[bool], str | None], example: str) -> str | None:
    """Gymnasium's (and PettingZoo's) ``render()`` of a table drawn by ``text(ansi)``:
    returned with ANSI colours for ``render_mode="ansi"``, printed for ``"human"``; without
    a render mode, a warning (naming ``example``, a call that sets one) and ``None``."""
    if render_mode is None:
        gymnasium.logger.warn(
            "You are calling render method without specifying any render mode. You can specify the "
            f"render_mode at initialization, e.g. {example}"
        )
        return None
    shown = text(render_mode == "ansi")
    if render_mode == "human":
        if shown is not None:
            print(shown)
        return None
    return shown


__all__ = ["HeartsEnv"]
