"""Research interfaces: an observation encoding, a PettingZoo AEC environment, a Gymnasium
single-seat environment, an OpenSpiel game, a batched numpy simulator and self-play data. The
core package never imports this one.

Each module needs only what it uses (a missing package is a :class:`MissingExtra` naming the
extra to install):

=================================  ======================================  ==================
module                             needs                                   extra
=================================  ======================================  ==================
:mod:`hearts.rl.encoding`          numpy                                   ``pyhearts[rl]``
:mod:`hearts.rl.vector`            numpy                                   ``pyhearts[rl]``
:mod:`hearts.rl.selfplay`          numpy                                   ``pyhearts[rl]``
:mod:`hearts.rl.reading`           numpy                                   ``pyhearts[rl]``
:mod:`hearts.rl.gym_env`           numpy, gymnasium                        ``pyhearts[rl]``
:mod:`hearts.rl.hearts_v0`         numpy, gymnasium, pettingzoo            ``pyhearts[rl]``
:mod:`hearts.rl.openspiel_game`    numpy, pyspiel                          ``pyhearts[openspiel]``
=================================  ======================================  ==================

Importing this package imports no third-party module except Gymnasium, and that only when it
is installed, to register the environment ``"pyhearts/Hearts-v0"``
(:class:`hearts.rl.gym_env.HeartsEnv`) with :func:`register`. In a fresh interpreter
``gymnasium.make("hearts.rl:pyhearts/Hearts-v0")`` imports this package first (Gymnasium's
``module:id`` form). The OpenSpiel game ``python_hearts`` is registered by importing
:mod:`hearts.rl.openspiel_game`.
"""

from __future__ import annotations

import importlib.util
from typing import Final

ENV_ID: Final = "pyhearts/Hearts-v0"
"""The Gymnasium id of :class:`hearts.rl.gym_env.HeartsEnv`."""


class MissingExtra(ModuleNotFoundError):
    """A package of an optional extra is not installed; the message says which extra to install."""

    @classmethod
    def of(cls, error: ModuleNotFoundError, extra: str, what: str) -> MissingExtra:
        """The error for ``what`` (a module or a feature) failing with ``error``.

        >>> print(MissingExtra.of(ModuleNotFoundError(name="gymnasium"), "rl", "hearts.rl.gym_env"))
        hearts.rl.gym_env needs gymnasium: install pyhearts[rl] (pip install 'pyhearts[rl]')
        """
        name = error.name or str(error)
        return cls(f"{what} needs {name}: install pyhearts[{extra}] (pip install 'pyhearts[{extra}]')", name=name)


def register() -> None:
    """Register :data:`ENV_ID` with Gymnasium (once; later calls do nothing)."""
    try:
        import gymnasium
    except ModuleNotFoundError as e:
        raise MissingExtra.of(e, "rl", "the Gymnasium environment") from None
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point="hearts.rl.gym_env:HeartsEnv")


if importlib.util.find_spec("gymnasium") is not None:
    register()

__all__ = ["ENV_ID", "MissingExtra", "register"]
