"""What the card table shows at one moment, as one value: :class:`TableState`, made from any
:class:`TableSource` (the local game's :class:`~hearts.tui.session.Session`, or a seat at a
table of the service, :class:`~hearts.tui.remote.RemoteTable`); and where a game stands, for the
results of the table's workers: :class:`Position` (no Textual).

The app makes a new one from its source after every change of the game and hands it to the
table (:attr:`TableScreen.state <hearts.tui.screens.table.TableScreen.state>`, a Textual
``reactive``); each widget takes from it the part it shows, and is redrawn only when that part
changes. The person sits at the bottom, whatever their seat (``view.seat``, :attr:`TableState.me`).

>>> from hearts import Rules
>>> from hearts.tui.session import Session
>>> s = Session.new(Rules(), seed=3, specs=["easy"], delay=0)
>>> state = TableState.of(s)
>>> state.names, state.levels, state.passing, state.turn(1), state.me
(('You', 'West', 'North', 'East'), ('', 'easy', 'easy', 'easy'), frozenset({0, 1, 2, 3}), False, 0)
>>> state == TableState.of(s)  # the same position, the same state: nothing is redrawn
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from hearts.actions import Action
from hearts.game import Game
from hearts.round import Phase
from hearts.text import name_word
from hearts.view import View


class TableSource(Protocol):
    """Where the table's game comes from: what the person sees (their ``view``, R7) and the
    public facts around it, and where the person's actions go (:meth:`apply`). The one
    interface between a game and :class:`~hearts.tui.screens.table.TableScreen`: the local
    game (:class:`~hearts.tui.session.Session`) and a seat at the service
    (:class:`~hearts.tui.remote.RemoteTable`) both are one."""

    @property
    def view(self) -> View:
        """The person's view now (R7)."""
        ...

    @property
    def names(self) -> Sequence[str]:
        """Every seat's name."""
        ...

    @property
    def levels(self) -> Sequence[str]:
        """What plays each seat, in a word (a bot's level); ``""`` for the person."""
        ...

    @property
    def totals(self) -> Sequence[int]:
        """The game's totals."""
        ...

    @property
    def passing(self) -> frozenset[int]:
        """The seats still choosing their pass (as far as the person may know)."""
        ...

    @property
    def pass_offset(self) -> int:
        """How far clockwise this round's passes go (0: a hold round)."""
        ...

    @property
    def seed(self) -> int | None:
        """The game's seed, when the person may know it (a local game)."""
        ...

    @property
    def clocks(self) -> tuple[int | None, ...]:
        """Each seat's whole seconds left to act (``None``: no clock runs for it); empty: no clocks."""
        ...

    def apply(self, action: Action) -> None:
        """Carry out the person's action (a local game checks it at once: a refused one raises
        an :class:`~hearts.errors.IllegalAction` and changes nothing)."""
        ...


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
    seed: int | None
    """The game's seed (``None``: not the person's to know, a game of the service)."""
    clocks: tuple[int | None, ...] = ()
    """Each seat's whole seconds left to act (``None``: no clock runs for it); empty: no clocks."""

    @classmethod
    def of(cls, source: TableSource) -> TableState:
        """The state of ``source``'s game now, as the person sees it."""
        return cls(
            view=source.view,
            names=tuple(name_word(n) for n in source.names),  # shown in the language in use
            levels=tuple(source.levels),
            totals=tuple(source.totals),
            passing=source.passing,
            pass_offset=source.pass_offset,
            seed=source.seed,
            clocks=tuple(source.clocks),
        )

    @property
    def players(self) -> int:
        return self.view.players

    @property
    def me(self) -> int:
        """The person's seat (shown at the bottom; the others clockwise from their left)."""
        return self.view.seat

    def seat_at(self, place: int) -> int:
        """The seat ``place`` places clockwise from the person's (0: the person's own).

        >>> from hearts import Rules
        >>> from hearts.tui.session import Session
        >>> TableState.of(Session.new(Rules(), seed=3, specs=["easy"], delay=0)).seat_at(3)
        3
        """
        return (self.me + place) % self.players

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
