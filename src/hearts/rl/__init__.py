"""Research interfaces (the ``rl`` extra: numpy, gymnasium, pettingzoo): an observation encoding,
a PettingZoo AEC environment, a Gymnasium single-seat environment, an OpenSpiel game and a
batched numpy simulator. The core package never imports this one.

Importing it registers the Gymnasium environment ``"pyhearts/Hearts-v0"``
(:class:`hearts.rl.gym_env.HeartsEnv`). The OpenSpiel game ``python_hearts`` is registered by
importing :mod:`hearts.rl.openspiel_game` (it needs ``pyspiel``).
"""

from __future__ import annotations

import gymnasium

ENV_ID = "pyhearts/Hearts-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="hearts.rl.gym_env:HeartsEnv")

__all__ = ["ENV_ID"]
