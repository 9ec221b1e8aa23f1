"""Bots: the :class:`Bot` protocol, the bots themselves and a registry by spec string.

>>> make_bot("random", seed=1).name
'random'
"""

from hearts.bots.base import Bot, RandomBot, run_bots
from hearts.bots.heuristic import HeuristicBot
from hearts.bots.registry import BOT_NAMES, LEVELS, bot_names, check_table, make_bot, register, unregister
from hearts.bots.search import SearchBot

__all__ = [
    "BOT_NAMES", "LEVELS", "Bot", "HeuristicBot", "RandomBot", "SearchBot", "bot_names", "check_table",
    "make_bot", "register", "run_bots", "unregister",
]
