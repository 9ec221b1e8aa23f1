"""A seat at a table of the service, as the terminal keeps it: :class:`RemoteTable`, the
:class:`~hearts.tui.state.TableSource` of ``hearts tui --quick`` (no Textual, no network: the
app gives it the server's messages and sends what it hands out).

It holds the last ``state`` message the server sent this seat (its R7 ``view`` and the table's
public facts), brought up to date by each ``event`` with :func:`hearts.view.apply_event` (the
one function every client of the protocol uses; ``docs/protocol.md``), and makes the person's
actions into the protocol's messages, with the ``seq`` the person saw.

>>> from hearts import Game, Rules
>>> from hearts.actions import Pass
>>> from hearts.tui.state import TableState
>>> from hearts.view import View
>>> game = Game(Rules(), seed=2)
>>> facts = {"names": ["Ann", "Bob", "Cy", "Di"], "kinds": ["bot", "human", "bot", "bot"],
...          "bots": ["easy", None, "easy", "easy"], "away": [], "totals": [0, 0, 0, 0],
...          "pass_offset": 1, "time_left": [None, 44.6, None, None], "score_history": [], "winners": None}
>>> table = RemoteTable()
>>> table.take({"type": "state", "n": 0, "seq": 0, "view": View.of(game, 1).to_dict(), "table": facts})
True
>>> state = TableState.of(table)
>>> state.me, state.names[state.me], state.levels, state.clocks, state.seed
(1, 'Bob', ('easy', '', 'easy', 'easy'), (None, 44, None, None), None)
>>> table.apply(Pass(1, list(state.view.hand)[:3]))
>>> table.outbox.pop()["type"], table.take({"type": "event", "n": 2, "seq": 1, "view": {}, "table": {}})
('pass', False)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hearts.actions import Action, to_dict
from hearts.round import Phase
from hearts.text import bot_label, default_names, final_lines
from hearts.view import View, apply_event


@dataclass
class RemoteTable:
    """The person's seat at a table of the service: what the server said last (:meth:`take`),
    as a :class:`~hearts.tui.state.TableSource`; the person's actions wait in ``outbox`` as the
    protocol's messages, for the app to send."""

    clock: Callable[[], float] = time.monotonic
    """Where the seconds since the last message come from (the clocks count down between messages)."""
    outbox: list[dict[str, Any]] = field(default_factory=list)
    """Messages to send to the table, oldest first."""
    message: dict[str, Any] | None = None
    """The last ``state`` the server sent, with every ``event`` since applied."""
    _view: View | None = None
    _at: float = 0.0

    @property
    def seated(self) -> bool:
        """True once the server's first ``state`` has come."""
        return self.message is not None

    def take(self, message: dict[str, Any]) -> bool:
        """Take a ``state`` or ``event`` message (others are not the position's): True when the
        position is now the server's; False when an event does not follow the last message —
        the app then asks to ``sync`` (the server answers with a whole ``state``)."""
        if message.get("type") == "state":
            composed: dict[str, Any] | None = message
        elif message.get("type") == "event" and self.message is not None:
            composed = apply_event(self.message, message)
        else:
            composed = None
        if composed is None:
            return False
        self.message, self._at = composed, self.clock()
        self._view = None
        return True

    def _facts(self) -> dict[str, Any]:
        if self.message is None:
            raise LookupError("no state from the table yet")
        table: dict[str, Any] = self.message["table"]
        return table

    # --- the table source ------------------------------------------------------------------

    @property
    def view(self) -> View:
        if self._view is None:
            if self.message is None:
                raise LookupError("no state from the table yet")
            self._view = View.from_dict(self.message["view"])
        return self._view

    @property
    def seq(self) -> int:
        """The table's position the person saw (what their actions carry)."""
        return int(self.message["seq"]) if self.message is not None else 0

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names (a seat without one: its place's name, West…)."""
        given = self._facts()["names"]
        fallback = default_names(len(given), "You")
        return tuple(name or fallback[s] for s, name in enumerate(given))

    @property
    def levels(self) -> tuple[str, ...]:
        """A bot's level, ``person`` (``away``: the table's stand-in plays for them), ``open``;
        ``""`` for the person."""
        facts, me = self._facts(), self.view.seat
        away = set(facts.get("away", ()))

        def level(s: int, kind: str, bot: str | None) -> str:
            if s == me:
                return ""
            if kind == "bot":
                return bot_label(bot or "")
            if kind == "open":
                return "open seat"
            return "away" if s in away else "person"

        return tuple(level(s, k, b) for s, (k, b) in enumerate(zip(facts["kinds"], facts["bots"], strict=True)))

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._facts()["totals"])

    @property
    def passing(self) -> frozenset[int]:
        """While passing: the others (the person may not know who has passed), and the person
        until they have."""
        view = self.view
        if view.phase is not Phase.PASSING:
            return frozenset()
        others = frozenset(range(view.players)) - {view.seat}
        return others | {view.seat} if view.must_pass else others

    @property
    def pass_offset(self) -> int:
        return int(self._facts()["pass_offset"])

    @property
    def seed(self) -> None:
        """The service keeps its tables' seeds to itself."""
        return None

    @property
    def clocks(self) -> tuple[int | None, ...]:
        """Each seat's whole seconds left, counted down since the last message; empty when the
        table has no clocks."""
        left = self._facts().get("time_left") or []
        spent = self.clock() - self._at
        return tuple(None if t is None else max(0, int(t - spent)) for t in left)

    def apply(self, action: Action) -> None:
        """The person's action, as the protocol's message (with the ``seq`` they saw) put in
        the :attr:`outbox`; the server checks it (an ``error`` says why not)."""
        self.outbox.append({**to_dict(action), "seq": self.seq})

    # --- the end ----------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """The game is over (R5)."""
        return self.seated and self.view.game_over

    def final_lines(self) -> list[str]:
        """Who won, then the totals after each round, as a local game's end shows them."""
        facts = self._facts()
        return final_lines(self.names, facts["winners"] or [], facts["totals"], facts["score_history"])
