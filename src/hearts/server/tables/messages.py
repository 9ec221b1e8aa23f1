"""What a table says to its clients: the position — a whole ``state`` on hello, watch and
sync, then numbered ``event`` messages carrying what changed, each seat its own view (R7), each
spectator the public part (:class:`StateMessages`) — and the small messages (an action as
everyone may know it, chat lines, hints).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from hearts.actions import Action, Moon, Pass, to_dict
from hearts.round import Phase, Round
from hearts.server import wire
from hearts.server.notices import ChatLine
from hearts.server.tables.names import seat_name
from hearts.text import Style
from hearts.view import View, trick_dict

if TYPE_CHECKING:
    from hearts.server.tables.connection import Connection
    from hearts.server.tables.table import Table



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


def hint_message(action: Action, seq: int, worth: int = 26) -> str:
    """A ``hint`` message: the action (in the codec) and its words, for position ``seq``
    (``worth``: a moon's points, :func:`hint_text`)."""
    return wire.encode(wire.Hint(seq=seq, action=to_dict(action), text=hint_text(action, worth)))


def hint_text(action: Action, worth: int = 26) -> str:
    """A hint in words: "Hint: play Q♠", "Hint: pass A♠ K♠ Q♥" (highest first); a moon's
    choice with ``worth``, the round's points (43 with Black Maria's spades, R4.5).

    >>> from hearts.actions import Play
    >>> hint_text(Play(0, "QS")), hint_text(Pass(0, "QH AS KS")), hint_text(Moon(0, "add"))
    ('Hint: play Q♠', 'Hint: pass A♠ K♠ Q♥', 'Hint: add 26 to everyone else')
    >>> hint_text(Moon(0, "subtract"), 43)
    'Hint: take 43 off your own score'
    """
    style = Style()
    if isinstance(action, Pass):
        return "Hint: pass " + style.cards(sorted(action.cards, reverse=True))
    if isinstance(action, Moon):
        return f"Hint: add {worth} to everyone else" if action.choice == "add" else f"Hint: take {worth} off your own score"
    return "Hint: play " + style.card(action.card)


_ABSENT: Final = object()
"""A field :func:`changed` finds in ``after`` only."""

Sent = tuple[dict[str, Any] | None, dict[str, Any], dict[str, Any]]
"""What a connection was last sent, as its viewer saw it: the seat's private view (``None`` for
a spectator), the public view and the table's public facts."""


def changed(before: dict[str, Any], after: dict[str, Any], grown: dict[str, Any] | None = None) -> dict[str, Any]:
    """The fields of ``after`` whose value is not the one in ``before`` (each whole: an event's
    patch); with ``grown``, a list whose new value is the old one with items added at its end
    goes there as those items instead (an event's ``more``: a trick's end sends that trick, not
    the round's tricks again).

    >>> changed({"a": 1, "b": [2], "c": None}, {"a": 1, "b": [3], "c": None})
    {'b': [3]}
    >>> grown = {}
    >>> changed({"a": 1, "b": [2]}, {"a": 2, "b": [2, 3]}, grown), grown
    ({'a': 2}, {'b': [3]})
    """
    if before is after:
        return {}
    patch = {k: v for k, v in after.items() if (old := before.get(k, _ABSENT)) is not v and old != v}
    if grown is not None:
        for k, v in list(patch.items()):
            old = before.get(k)
            if type(v) is list and type(old) is list and len(old) < len(v) and v[:len(old)] == old:
                grown[k] = v[len(old):]
                del patch[k]
    return patch


class StateMessages:
    """A table's messages of the position: a ``state`` (the whole of it as the viewer may see
    it, R7) when a client says hello, watches or asks to sync, and an ``event`` at every
    change after that — numbered ``n`` 1, 2, … per table, each carrying only the fields of the
    viewer's view and of the table's facts that changed since what that connection was last
    sent (:attr:`Connection.sent <hearts.server.tables.connection.Connection.sent>`), so a
    seat's event never holds another seat's cards. A client applies each event to its last
    state (:func:`hearts.server.wire.apply_event`); one that misses a number asks to sync."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.number = 0
        """The number of the table's last event (0: none yet)."""
        self._round: Round | None = None
        self._tricks: list[dict[str, Any]] = []
        """The completed tricks of ``_round`` as the public views give them, each made once."""
        self._privates: dict[int, tuple[Round, tuple[Any, ...], dict[str, Any]]] = {}
        """Each seat's private view as last made, with its round and what it was made from
        (:meth:`_private`)."""
        self._public: tuple[Round, tuple[Phase, bool], int, dict[str, Any]] | None = None
        """The public view as last made, with the round, phase, end and tricks it was made at."""
        self._parts: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        """The parts of :meth:`public` that change seldom (:meth:`_who`, :meth:`_scores`), each as
        last made with what it was made from."""

    def public(self) -> dict[str, Any]:
        """What every seat (and the lobby, and a spectator) may know about the table: the same
        dict as last time while none of it changed (a play changes none of it, most often), so
        that an event's patch of it is found empty at once (:func:`changed`)."""
        moment, who, scores, last = self._moment(), self._who(), self._scores(), self._last_trick()
        return self._kept("public", (moment, who, scores, last), lambda: {**moment, **who, **scores, "last_trick": last})

    def _moment(self) -> dict[str, Any]:
        """The part of :meth:`public` that may change at any time: presence, clocks."""
        online, spectators = self.table.presence.counts()
        return {
            "id": self.table.id,
            "online": online,
            "spectators": spectators,
            "spectators_allowed": self.table.spectators,
            "chat": self.table.chat,
            "pass_offset": self.table.game.round.pass_offset,
            "turn_timer": self.table.turn_timer,
            "pass_timer": self.table.pass_timer,
            "time_left": self.table.clocks.time_left(),
            "handed_over": self.table.clocks.handed_over(),
        }

    def _kept(self, part: str, made_of: tuple[Any, ...], make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The part of :meth:`public` named ``part`` as last made, the same dict, if what it is
        made of is equal to what it was last made of (each a value that is replaced, never
        changed, when what it says changes: found equal at once when it is the same object);
        else made again."""
        kept = self._parts.get(part)
        if kept is None or kept[0] != made_of:
            kept = self._parts[part] = (made_of, make())
        return kept[1]

    def _who(self) -> dict[str, Any]:
        """The part of :meth:`public` that changes with the seats (a seat's row is replaced
        when anything of it changes)."""
        return self._kept("who", tuple(self.table.seats), self._seats)

    def _seats(self) -> dict[str, Any]:
        return {
            "names": [seat_name(s) for s in self.table.seats],
            "kinds": [s.kind for s in self.table.seats],
            "bots": [s.bot if s.kind == "bot" else None for s in self.table.seats],
            "unnamed": self.table.unnamed(),
            "away": self.table.away,
        }

    def _scores(self) -> dict[str, Any]:
        """The part of :meth:`public` that changes when a round or the game ends (a round's
        result is set once, at its end)."""
        g = self.table.game
        return self._kept("scores", (g, g.round, g.round.result, g.is_over), self._totals)

    def _totals(self) -> dict[str, Any]:
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

    def _last_trick(self) -> dict[str, Any] | None:
        """The game's last completed trick (``None``: none yet): the public view's own dict
        when it is the current round's."""
        made = self._round_tricks()
        for r in reversed(self.table.game.rounds):
            tricks = r.tricks
            if tricks:
                return made[-1] if r is self._round and len(made) == len(tricks) else trick_dict(tricks[-1])
        return None

    def snapshot(self, conn: Connection, reason: str) -> str:
        """The ``state`` message for ``conn`` (its seat's view, or a spectator's public one),
        remembered as what it was sent: the next event patches it. Call in the table's turn."""
        private = None if conn.seat is None else self._private(conn.seat)
        conn.sent = (private, self._public_view(), self.public())
        return self._state(conn.sent, conn.seat, reason)

    def _state(self, sent: Sent, seat: int | None, reason: str) -> str:
        private, public, table = sent
        return wire.encode({
            "type": "state", "reason": reason, "you": seat, "n": self.number,
            "view": public if private is None else {**private, **public},
            "seq": self.table.seq, "table": table, "event": self.table.last_event,
        })

    def _private(self, seat: int) -> dict[str, Any]:
        """``seat``'s private view (:meth:`View.private_of <hearts.view.View.private_of>`),
        made again only when it may have changed: the seat is to act, or the round (a new one,
        or one an undo rebuilt), its phase, the seat's hand or its pass changed (else its legal
        plays are empty, and the rest of it is the round's); else the same dict as last time,
        which no event then patches. Within the play phase of a round, only its hand and legal
        plays are made again (:meth:`View.private_after_play
        <hearts.view.View.private_after_play>`)."""
        g = self.table.game
        r = g.round
        phase = r.phase
        made = (phase, r.hand(seat).mask, phase is Phase.PASSING and r.passed(seat) is None, r.to_move == seat)
        kept = self._privates.get(seat)
        if kept is not None and kept[0] is r:
            if kept[1] == made and not made[3]:
                return kept[2]
            playing = made[0] is Phase.PLAYING and kept[1][0] is Phase.PLAYING
            private = View.private_after_play(g, seat, kept[2]) if playing else View.private_of(g, seat)
        else:
            private = View.private_of(g, seat)
        self._privates[seat] = (r, made, private)
        return private

    def _public_view(self) -> dict[str, Any]:
        """The public view (:meth:`View.public_of <hearts.view.View.public_of>`), made again
        only in the fields plays can change (:meth:`View.public_after_play
        <hearts.view.View.public_after_play>`: with the tricks taken when a trick ended) while
        the round, its phase and whether the game is over are what they were when it was last
        made."""
        g = self.table.game
        r = g.round
        at, played = (r.phase, g.is_over), r.tricks_played
        kept = self._public
        if kept is not None and kept[0] is r and kept[1] == at:
            view = View.public_after_play(g, kept[3], None if kept[2] == played else self._round_tricks())
        else:
            view = View.public_of(g, self._round_tricks())
        self._public = (r, at, played, view)
        return view

    def _round_tricks(self) -> list[dict[str, Any]]:
        """The current round's completed tricks made so far (begun again with each round)."""
        r = self.table.game.round
        if self._round is not r:
            self._round, self._tricks = r, []
        return self._tricks

    def broadcast(self, reason: str = "event") -> None:
        """Send every attached client the event of what changed (:class:`StateMessages`):
        each seat's view made once, each patch and each message made once for the connections
        that were sent the same (a seat whose own part did not change gets the spectators'
        message). Call in the table's turn."""
        self.number += 1
        public, table = self._public_view(), self.public()
        fresh: dict[int | None, Sent] = {}
        made: dict[tuple[int, ...], tuple[Sent, str]] = {}
        """Each message made, by the ids of what it was made from (kept alive in it: no id is
        used again during the broadcast)."""
        diffs: dict[tuple[int, int], tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {}

        def diff(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
            """The patch of ``before`` to ``after`` and what their lists grew by (:func:`changed`;
            the table's facts grow none: their lists change once a round)."""
            known = diffs.get((id(before), id(after)))
            if known is None:
                grown: dict[str, Any] = {}
                patch = changed(before, after, grown if after is public else None)
                known = diffs[id(before), id(after)] = (before, patch, grown)
            return known[1], known[2]

        for c in list(self.table.conns):
            if c.closed or not c.attached:
                continue
            seat = c.seat
            if seat not in fresh:
                private = None if seat is None else self._private(seat)
                fresh[seat] = (private, public, table)
            now, sent = fresh[seat], c.sent
            if sent is None:
                c.sent = now
                c.push(self._state(now, seat, reason))
                continue
            own = now[0] if now[0] is not sent[0] else None  # (the seat's own part, if it changed)
            key = (id(sent[0]), id(own), id(sent[1]), id(sent[2])) if own is not None else (id(sent[1]), id(sent[2]))
            known = made.get(key)
            if known is None:
                view, grown = diff(sent[1], now[1])
                if own is not None:
                    view = {**changed(sent[0] or {}, own), **view}
                event = {
                    "type": "event", "reason": reason, "n": self.number, "seq": self.table.seq,
                    "view": view, "table": diff(sent[2], now[2])[0], "event": self.table.last_event,
                }
                if grown:
                    event["more"] = grown
                known = made[key] = (sent, wire.encode(event))
            c.sent = now
            c.push(known[1])
