"""What the card table shows at one moment, as one value: :class:`TableState`; and where a game
stands, for the results of the table's workers: :class:`Position` (no Textual).

The app makes a new one from its :class:`~hearts.tui.session.Session` after every change of the
game and hands it to the table (:attr:`TableScreen.state
<hearts.tui.screens.table.TableScreen.state>`, a Textual ``reactive``); each widget takes from it
the part it shows, and is redrawn only when that part changes.

>>> from hearts import Rules
>>> from hearts.tui.session import Session
>>> s = Session.new(Rules(), seed=3, specs=["easy"], delay=0)
>>> state = TableState.of(s)
>>> state.names, state.levels, state.passing, state.turn(1)
(('You', 'West', 'North', 'East'), ('', 'easy', 'easy', 'easy'), frozenset({0, 1, 2, 3}), False)
>>> state == TableState.of(s)  # the same position, the same state: nothing is redrawn
True
"""

from __future__ import annotations

from dataclasses import dataclass

from hearts.actions import Action
from hearts.game import Game
from hearts.round import Phase
from hearts.tui.session import HUMAN, Session
from hearts.view import View


@dataclass(frozen=True)
class TableState:
    """The person's view (R7) and the public facts around it: the seats' names and bots' levels,
    the game's totals, who is still choosing a pass, the pass direction and the game's seed."""

    view: View
    names: tuple[str, ...]
    levels: tuple[str, ...]
    """Each seat's bot level (``hard``, or what its spec stands for); ``""`` for the person."""
    totals: tuple[int, ...]
    """The game's totals (after the round, once it is scored)."""
    passing: frozenset[int]
    """The seats still choosing their pass (empty once the tricks are played)."""
    pass_offset: int
    """How far clockwise this round's passes go (0: a hold round)."""
    seed: int

    @classmethod
    def of(cls, session: Session) -> TableState:
        """The state of ``session``'s game now, as the person sees it."""
        game = session.game
        view = session.view
        return cls(
            view=view,
            names=tuple(session.names),
            levels=tuple("" if s == HUMAN else session.difficulty(s) for s in range(view.players)),
            totals=tuple(game.totals),
            passing=frozenset(game.actors()) if view.phase is Phase.PASSING else frozenset(),
            pass_offset=game.round.pass_offset,
            seed=session.seed,
        )

    @property
    def players(self) -> int:
        return self.view.players

    def turn(self, seat: int) -> bool:
        """True when ``seat`` is to play a card now."""
        return self.view.to_move == seat and self.view.phase is Phase.PLAYING

    def pass_target(self, seat: int) -> int:
        """The seat ``seat`` passes to this round (itself in a hold round)."""
        return (seat + self.pass_offset) % self.players


@dataclass(frozen=True, eq=False)
class Position:
    """Where a game stands: the game itself and every action taken in it so far. A bot's move
    or a hint worked out in a worker thread for one position is used only if the table's game
    is still there (:meth:`is_now`): not after an undo, a new game, or another move.

    >>> from hearts import Game, Rules
    >>> from hearts.actions import Pass
    >>> game = Game(Rules(), seed=1)
    >>> here = Position.of(game)
    >>> here.is_now(game), here.is_now(Game(Rules(), seed=1))  # the same game, not a new one
    (True, False)
    >>> game.apply(Pass(0, list(game.round.hand(0))[:3]))
    >>> here.is_now(game), Position.of(game).is_now(game)
    (False, True)
    """

    game: Game
    history: tuple[Action, ...]

    @classmethod
    def of(cls, game: Game) -> Position:
        return cls(game, game.history)

    def is_now(self, game: Game) -> bool:
        """True when ``game`` is this position's game and has neither moved on nor been taken
        back since (the same actions)."""
        return game is self.game and game.history == self.history
