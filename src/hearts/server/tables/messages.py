"""What a table says to its clients: the ``state`` messages (each seat its own view, R7; each
spectator the public part), encoded with the parts that are the same for everyone made once,
and the small messages (an action as everyone may know it, chat lines, hints).

A state message is built from string pieces: the rules once per table, the round's completed
tricks once per trick, the public facts once per change of what they depend on, and the
whole shared tail once per broadcast (:class:`StateMessages`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from hearts.actions import Action, Moon, Pass, to_dict
from hearts.round import Trick
from hearts.server import wire
from hearts.server.storage import ChatLine
from hearts.server.tables.names import seat_name
from hearts.text import Style
from hearts.view import View

if TYPE_CHECKING:
    from hearts.server.tables.table import Table

_dumps: Final = json.JSONEncoder(separators=(",", ":")).encode
"""Compact JSON text of a value (the messages' encoding)."""


def public_event(action: Action, seq: int) -> dict[str, Any]:
    """What every seat may know of an accepted action (R7): its codec object without a pass's
    cards, and the ``seq`` it brought the table to.

    >>> from hearts.actions import Play
    >>> public_event(Pass(2, "2C 3C 4C"), 3), public_event(Play(1, "QS"), 9)
    ({'type': 'pass', 'seat': 2, 'seq': 3}, {'type': 'play', 'seat': 1, 'card': 'QS', 'seq': 9})
    """
    event = to_dict(action)
    event.pop("cards", None)
    event["seq"] = seq
    return event


def chat_message(lines: Iterable[ChatLine], history: bool = False) -> str:
    """A ``chat`` message: chat lines (``history``: the last ones, sent on connecting)."""
    return wire.encode(wire.ChatLines(lines=[wire.ChatLine(line.id, line.seat, line.text) for line in lines], history=history))


def hint_message(action: Action, seq: int) -> str:
    """A ``hint`` message: the action (in the codec) and its words, for position ``seq``."""
    return wire.encode(wire.Hint(seq=seq, action=to_dict(action), text=hint_text(action)))


def trick_dict(t: Trick | None) -> dict[str, Any] | None:
    """A completed trick as state messages carry it (``None``: no trick yet)."""
    if t is None:
        return None
    return {
        "leader": t.leader,
        "plays": [{"seat": s, "card": str(c)} for s, c in t.plays],
        "winner": t.winner,
        "points": t.points,
    }


def hint_text(action: Action) -> str:
    """A hint in words: "Hint: play Q♠", "Hint: pass A♠ K♠ Q♥" (highest first).

    >>> from hearts.actions import Play
    >>> hint_text(Play(0, "QS")), hint_text(Pass(0, "QH AS KS")), hint_text(Moon(0, "add"))
    ('Hint: play Q♠', 'Hint: pass A♠ K♠ Q♥', 'Hint: add 26 to everyone else')
    """
    style = Style()
    if isinstance(action, Pass):
        return "Hint: pass " + style.cards(sorted(action.cards, reverse=True))
    if isinstance(action, Moon):
        return "Hint: add 26 to everyone else" if action.choice == "add" else "Hint: take 26 off your own score"
    return "Hint: play " + style.card(action.card)


class StateMessages:
    """A table's ``state`` messages and the public facts they carry, with the encoded parts
    kept until what they depend on changes."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._rules_json: str | None = None
        """The rules as state messages carry them, encoded once."""
        self._tricks_json: tuple[Trick | None, str] | None = None
        """The round's completed tricks encoded, with the last of them (the key: a new trick, a
        new round or an undo makes another object)."""
        self._public_parts: tuple[tuple[Any, ...], tuple[str, str, str]] | None = None
        """Parts of :meth:`public` encoded, with what they were encoded for (:meth:`_public_json`)."""

    def public(self) -> dict[str, Any]:
        """What every seat (and the lobby, and a spectator) may know about the table."""
        return {**self._moment(), **self._who(), **self._scores(), "last_trick": trick_dict(self._last_trick())}

    def _moment(self) -> dict[str, Any]:
        """The part of :meth:`public` that may change at any time: presence, clocks."""
        return {
            "id": self.table.id,
            "online": self.table.presence.online(),
            "spectators": self.table.presence.spectator_count(),
            "spectators_allowed": self.table.spectators,
            "pass_offset": self.table.game.round.pass_offset,
            "turn_timer": self.table.turn_timer,
            "time_left": self.table.clocks.time_left(),
        }

    def _who(self) -> dict[str, Any]:
        """The part of :meth:`public` that changes with the seats."""
        return {
            "names": [seat_name(s) for s in self.table.seats],
            "kinds": [s.kind for s in self.table.seats],
            "bots": [s.bot if s.kind == "bot" else None for s in self.table.seats],
            "unnamed": self.table.unnamed(),
            "away": self.table.away,
        }

    def _scores(self) -> dict[str, Any]:
        """The part of :meth:`public` that changes when a round or the game ends."""
        g = self.table.game
        return {
            "target": self.table.rules.target,
            "totals": list(g.totals),
            "score_history": [list(h) for h in g.score_history],
            "results": [
                {"points": list(r.points), "scores": list(r.scores), "shooter": r.shooter,
                 "moon_choice": r.moon_choice}
                for r in g.results
            ],
            "finished": g.is_over,
            "winners": None if g.winners is None else list(g.winners),
        }

    def _public_json(self) -> str:
        """:meth:`public` encoded, its parts kept encoded until what they depend on changes
        (the seats; the rounds played; the last trick)."""
        g = self.table.game
        keys = (tuple(self.table.seats), (len(g.results), g.is_over), self._last_trick())
        parts = self._public_parts
        if parts is None or parts[0][0] != keys[0] or parts[0][1] != keys[1] or parts[0][2] is not keys[2]:
            parts = self._public_parts = (keys, (
                _dumps(self._who())[1:-1], _dumps(self._scores())[1:-1], _dumps(trick_dict(keys[2]))
            ))
        who, scores, last_trick = parts[1]
        return f'{_dumps(self._moment())[:-1]},{who},{scores},"last_trick":{last_trick}}}'

    def _last_trick(self) -> Trick | None:
        for r in reversed(self.table.game.rounds):
            tricks = r.tricks
            if tricks:
                return tricks[-1]
        return None

    def state(self, seat: int, reason: str, shared: str | None = None, view: View | None = None) -> str:
        """The ``state`` message for ``seat``: its view (R7) and the public table facts.

        The parts that are the same for every seat are encoded once per broadcast (``shared``);
        the seat's private part (:meth:`View.private_dict`) is encoded for it alone.
        """
        if view is None:
            view = View.of(self.table.game, seat)
        if shared is None:
            shared = self._shared(view)
        private = json.dumps(view.private_dict(), separators=(",", ":"))
        return f'{{"type":"state","reason":"{reason}","you":{seat},"view":{{{private[1:-1]},{shared}'

    def public_state(self, reason: str, shared: str | None = None) -> str:
        """The ``state`` message for a spectator: ``"you": null`` and the public part of the view
        only (:meth:`View.public_dict`, the same for every seat; R7), never a private field."""
        if shared is None:
            shared = self._shared(View.of(self.table.game, 0))
        return f'{{"type":"state","reason":"{reason}","you":null,"view":{{{shared}'

    def _shared(self, view: View) -> str:
        """The tail of a state message common to every seat and spectator: public view, table,
        event, seq (any seat's view gives the same: its public part only is used). The rules
        are encoded once per table, the round's completed tricks once per trick."""
        public = view.public_dict()
        tricks, rules = public.pop("tricks"), public.pop("rules")
        if self._rules_json is None:
            self._rules_json = _dumps(rules)
        last = view.tricks[-1] if view.tricks else None  # a trick object lives as long as its trick
        if self._tricks_json is None or self._tricks_json[0] is not last:
            self._tricks_json = (last, _dumps(tricks))
        return (
            f'{_dumps(public)[1:-1]},"rules":{self._rules_json},"tricks":{self._tricks_json[1]}}},'
            f'"seq":{self.table.seq},"table":{self._public_json()},"event":{_dumps(self.table.last_event)}}}'
        )

    def broadcast(self, reason: str = "event") -> None:
        """Send the new state to every client: each seat its own, every spectator the public one
        (the shared tail and the spectators' message are encoded once). Call in the table's turn."""
        shared: str | None = None
        public: str | None = None
        cache: dict[int, str] = {}
        for c in list(self.table.conns):
            if c.closed:
                continue
            if c.seat is None:
                if c.spectator:
                    if public is None:
                        if shared is None:
                            shared = self._shared(View.of(self.table.game, 0))
                        public = self.public_state(reason, shared)
                    c.push(public)
                continue
            if c.seat not in cache:
                view = View.of(self.table.game, c.seat)
                if shared is None:
                    shared = self._shared(view)
                cache[c.seat] = self.state(c.seat, reason, shared, view)
            c.push(cache[c.seat])

