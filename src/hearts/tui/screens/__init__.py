"""The terminal table's screens, one a module.

=====================================  ============================================================
:class:`TableScreen`                   the card table (every game key)
:class:`Dialog`                        the frame every dialog shares (a modal panel in the middle)
:class:`InfoScreen`                    a text panel: the last trick, the score history
:class:`RoundSummaryScreen`            a finished round summed up (r: review it)
:class:`HelpScreen`                    every key, from the bindings
:class:`MoonScreen`                    the moon shooter's choice (R4.4)
:class:`GameOverScreen`                the winner and the final totals
:class:`QuitScreen`                    quit: save first, or not, or go back
:class:`SaveScreen`                    where to save the game record
:class:`NewGameScreen`                 a new game's rules, bots and seed
:class:`QueueScreen`                   the wait for a quick match of the service (Esc leaves)
:class:`ReviewScreen`                  the review of your decisions in a finished round
:class:`RulesScreen`                   the rule book, with the table's options (b; F1 in the new game's form)
=====================================  ============================================================

A dialog gives its answer as its result (``dismiss``); the table tells the app what the person
does by messages (:class:`TableScreen.Acted`, :class:`TableScreen.Asked`).
"""

from __future__ import annotations

from hearts.tui.screens.dialog import Dialog
from hearts.tui.screens.game_over import GameOverScreen
from hearts.tui.screens.help import HelpScreen
from hearts.tui.screens.info import InfoScreen
from hearts.tui.screens.moon import MoonScreen
from hearts.tui.screens.new_game import NewGameScreen
from hearts.tui.screens.queue import QueueScreen, Waiting
from hearts.tui.screens.quit import QuitScreen
from hearts.tui.screens.review import REVIEW, ReviewScreen
from hearts.tui.screens.round_summary import RoundSummaryScreen
from hearts.tui.screens.rules import RulesScreen
from hearts.tui.screens.save import SaveScreen
from hearts.tui.screens.table import TableScreen

__all__ = [
    "REVIEW",
    "Dialog",
    "GameOverScreen",
    "HelpScreen",
    "InfoScreen",
    "MoonScreen",
    "NewGameScreen",
    "QueueScreen",
    "QuitScreen",
    "ReviewScreen",
    "RoundSummaryScreen",
    "RulesScreen",
    "SaveScreen",
    "TableScreen",
    "Waiting",
]
