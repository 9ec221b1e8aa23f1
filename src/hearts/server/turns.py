"""Whose turn a bot plays, for the server processes and the bot workers alike.

A seat's turn is played by a bot when the seat is a bot (its own spec) or its person is away
(the table's stand-in). :func:`new_bot_turns` says which bot turns an action opens: the server
process (or bot worker) that logs the action queues a bot job for each, in the same
transaction (PostgreSQL), so no turn is ever left without a job.

>>> from hearts import Game, Rules
>>> from hearts.server.storage import SeatRow
>>> seats = [SeatRow(0, "human", "Ann", None, "h"), SeatRow(1, "bot", "Bot", "easy", None),
...          SeatRow(2, "human", "Bob", None, "h", away=True), SeatRow(3, "human", "Cy", None, "h")]
>>> [bot_spec(s, "medium") for s in seats]
[None, 'easy', 'medium', None]
>>> bot_turns(Game(Rules(), seed=1), seats)  # everyone passes at the start: seats 1 and 2 by bots
[1, 2]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from hearts.actions import Action
from hearts.game import Game
from hearts.round import Phase
from hearts.server.storage import SeatRow


def bot_spec(seat: SeatRow, stand_in: str) -> str | None:
    """The spec of the bot that plays for ``seat``: a bot seat's own, the ``stand_in`` level for
    an away person; ``None``: its person plays."""
    if seat.kind == "bot":
        return seat.bot or stand_in
    return stand_in if seat.away else None


def bot_turns(game: Game, seats: Sequence[SeatRow]) -> list[int]:
    """The seats to act now whose turn a bot plays (in the order of ``game.actors()``)."""
    if game.is_over:
        return []
    return [s for s in game.actors() if seats[s].kind == "bot" or seats[s].away]


def new_bot_turns(game: Game, seats: Sequence[SeatRow], action: Action, before: Collection[int]) -> list[int]:
    """The bot turns that ``action`` (just applied to ``game``) opened: the seats of
    :func:`bot_turns` that were not to act before it (``before``: ``game.actors()`` then) —
    the seat that acted included (a trick's winner leads the next one).

    >>> from hearts import Game, Rules
    >>> from hearts.actions import Pass
    >>> seats = [SeatRow(s, "bot", "Bot", "easy", None) for s in range(4)]
    >>> game = Game(Rules(), seed=1)
    >>> opened = []
    >>> for seat in range(4):  # the passes open no turn but the last, which opens the lead (2C)
    ...     before, action = game.actors(), Pass(seat, list(game.round.hand(seat))[:3])
    ...     game.apply(action)
    ...     opened.append(new_bot_turns(game, seats, action, before))
    >>> opened, game.actors()
    ([[], [], [], [3]], (3,))
    """
    was = set(before) - {action.seat}
    return [s for s in bot_turns(game, seats) if s not in was]


def decision_start(game: Game, seat: int, seen: int) -> int | None:
    """The position at which ``seat``'s decision now to be made began, if the position ``seen``
    (a client's) lies within it; ``None`` if ``seen`` is of another decision (or not the seat's
    turn). A pass is one decision through the pass phase: the others' passes, hidden until the
    exchange (R2.1), do not change it; any other is the decision of one position. A hint, an
    action, is of that decision, whenever within it it was asked or made.

    >>> from hearts import Game, Rules
    >>> from hearts.actions import Pass
    >>> game = Game(Rules(), seed=1)
    >>> game.apply(Pass(1, list(game.round.hand(1))[:3]))  # seat 1 passed: position 1
    >>> decision_start(game, 0, 0), decision_start(game, 0, 1), decision_start(game, 0, 2), decision_start(game, 1, 1)
    (0, 0, None, None)
    """
    if seat not in game.actors() or game.is_over:
        return None
    if game.phase is Phase.PASSING and game.round_starts[-1] <= seen <= game.ply:
        return game.round_starts[-1]
    return seen if seen == game.ply else None
