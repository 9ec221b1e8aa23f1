"""Bots: the :class:`Bot` protocol, the bots themselves and a registry by spec string.

>>> make_bot("random", seed=1).name
'random'
"""

from hearts.bots.base import Bot, RandomBot, run_bots
from hearts.bots.registry import BOT_NAMES, make_bot

__all__ = ["BOT_NAMES", "Bot", "RandomBot", "make_bot", "run_bots"]
