"""pyhearts: the card game Hearts, by the rule book in docs/rules.md.

>>> from hearts import Game, Rules, Card
>>> game = Game(Rules.preset("omnibus"), seed=3)
>>> game.round.phase.value
'passing'
"""

from hearts.cards import CARDS, Card, CardSet
from hearts.errors import (
    CardParseError,
    HeartsError,
    IllegalAction,
    IllegalMoonChoice,
    IllegalPass,
    IllegalPlay,
    RecordError,
    RulesError,
)
from hearts.game import Game, GameOver
from hearts.mechanics import RoundResult
from hearts.round import Phase, Round, Trick
from hearts.rules import PRESETS, Rules

__version__ = "0.1.0"

__all__ = [
    "CARDS",
    "PRESETS",
    "Card",
    "CardParseError",
    "CardSet",
    "Game",
    "GameOver",
    "HeartsError",
    "IllegalAction",
    "IllegalMoonChoice",
    "IllegalPass",
    "IllegalPlay",
    "Phase",
    "RecordError",
    "Round",
    "RoundResult",
    "Rules",
    "RulesError",
    "Trick",
]
