"""A table's commands: everything that reads or changes a table's position, declared as one
union (:data:`TableCommand`) of small value types (each a :class:`Command`), each handled in the table's turn by
:meth:`Table.process <hearts.server.tables.table.Table.process>` — the one place that says what
a table does, as lila's ``RoundAsyncActor`` does for a game of chess.

A command is posted to the table's :class:`~hearts.server.tables.mailbox.Mailbox` and its
caller awaits the result the command's type declares (``Command[R]``: ``R``); what must follow
it (the clients told, the bots woken) the handling part returns as
:class:`~hearts.server.tables.effects.Effects`, carried out by the table:

>>> from hearts.actions import Play
>>> Act(seat=1, seen=9, action=Play(1, "QS"), by="person", arrived=0.0)
Act(seat=1, seen=9, action=Play(seat=1, card=Card('QS')), by='person', arrived=0.0)
>>> GoAway(2) == GoAway(2)  # (values: a command can be logged, compared, replayed in a test)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from hearts.actions import Action
from hearts.server.links import Outcome
from hearts.server.metrics import Actor
from hearts.server.storage import Lease
from hearts.view import View

if TYPE_CHECKING:
    from hearts.server.tables.connection import Connection

R = TypeVar("R")


class Command(Generic[R]):
    """A command of a table, whose handling answers an ``R``."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Act(Command[tuple[Outcome, int, str]]):
    """An action of ``seat`` made at position ``seen``, ``by`` a person, a bot or a stand-in,
    ``arrived`` at a :func:`time.perf_counter` reading: handled by the owner (:meth:`Moves.act
    <hearts.server.tables.moves.Moves.act>`); its outcome, the position after it and words."""

    seat: int
    seen: int
    action: Action
    by: Actor
    arrived: float


@dataclass(frozen=True, slots=True)
class BotAct(Command[None]):
    """This process's bot's ``action`` for ``seat``, thought about at ``view``: played if the
    position is still that one (:meth:`BotTurns.play <hearts.server.tables.bots.BotTurns.play>`)."""

    seat: int
    view: View
    action: Action | None
    by: Actor
    arrived: float


@dataclass(frozen=True, slots=True)
class Resync(Command[None]):
    """Send ``conn`` the whole position again (a ``state`` whose reason is ``resync``)."""

    conn: Connection


@dataclass(frozen=True, slots=True)
class Sit(Command[None]):
    """Seat ``conn`` at ``seat`` (an away seat's person is back) and welcome it."""

    conn: Connection
    seat: int


@dataclass(frozen=True, slots=True)
class Watch(Command[None]):
    """Let ``conn`` watch (a spectator) and welcome it."""

    conn: Connection


@dataclass(frozen=True, slots=True)
class ComeBack(Command[None]):
    """The person of an away ``seat`` plays again."""

    seat: int


@dataclass(frozen=True, slots=True)
class GoAway(Command[None]):
    """``seat``'s clock ran out: it is away if it is still to act (the stand-in plays for it)."""

    seat: int


@dataclass(frozen=True, slots=True)
class NameSeat(Command[None]):
    """``seat``'s person chose the ``name`` (already stored)."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class TakeSeat(Command[None]):
    """A person took the free ``seat`` (already stored) under ``name``, with ``token_hash``."""

    seat: int
    name: str | None
    token_hash: str


@dataclass(frozen=True, slots=True)
class ReadSeats(Command[None]):
    """Take the seats as stored (and tell the clients what changed)."""


@dataclass(frozen=True, slots=True)
class CatchUp(Command[None]):
    """Apply and broadcast what other processes logged after this table's position."""


@dataclass(frozen=True, slots=True)
class HandOver(Command[tuple[Lease | None, int]]):
    """Move the table's lease to the process ``to`` (this process stops or the peer's clients
    came): the new lease (``None``: not this process's to give) and the position handed."""

    to: str


@dataclass(frozen=True, slots=True)
class Facts(Command[dict[str, Any]]):
    """What ``GET /api/tables/{id}`` shows."""


@dataclass(frozen=True, slots=True)
class IsOver(Command[bool]):
    """Whether the game is over (as committed)."""


@dataclass(frozen=True, slots=True)
class HintAt(Command[tuple[View, int] | None]):
    """``seat``'s view for a hint asked by ``conn`` at position ``seq``, and the position its
    decision began at (:meth:`Hints.position <hearts.server.tables.hints.Hints.position>`;
    ``None``: ``seq`` is of another decision; ``conn`` was sent the position again)."""

    conn: Connection
    seat: int
    seq: int


TableCommand = (
    Act | BotAct | Resync | Sit | Watch | ComeBack | GoAway | NameSeat | TakeSeat | ReadSeats | CatchUp
    | HandOver | Facts | IsOver | HintAt
)
"""Every command of a table: what :meth:`Table.process <hearts.server.tables.table.Table.process>` matches on."""
