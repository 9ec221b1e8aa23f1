"""What one seat may know (rule book R7): the only thing a bot, a client or a saved view gets.

>>> from hearts import Game, Rules
>>> from hearts.actions import Pass
>>> from hearts.view import View
>>> game = Game(Rules(), seed=2)
>>> v = View.of(game, 0)
>>> len(v.hand), v.pass_to, v.must_pass, v.received
(13, 1, True, None)
>>> game.apply(Pass(0, list(v.hand)[:3]))
>>> View.of(game, 0).passed == CardSet(list(v.hand)[:3])
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from hearts.cards import DISPLAY_SUIT_ORDER, SUIT_MASKS, Card, CardSet, cards_of
from hearts.game import Game
from hearts.mechanics import RoundResult
from hearts.round import Phase, Round, Trick
from hearts.rules import Rules


@dataclass(frozen=True)
class View:
    """One seat's knowledge at one moment (R7). Immutable; holds no other seat's unplayed card
    except those this seat passed to its receiver (which it knows, R7)."""

    seat: int
    rules: Rules
    round_number: int
    phase: Phase
    to_move: int | None
    """The seat to act (``None`` while passing or when the round is over)."""
    hand: CardSet
    """This seat's cards now (while passing: without the cards it has chosen to pass)."""
    legal: CardSet
    """Cards this seat may play now (empty unless it is this seat's turn to play)."""
    must_pass: bool
    """True while this seat still has to choose its pass."""
    pass_to: int | None
    """The seat that receives this seat's pass this round (``None``: a hold round)."""
    pass_from: int | None
    """The seat whose pass this seat receives."""
    passed: CardSet | None
    received: CardSet | None
    """Cards received, once every seat has passed (R2.1)."""
    trick: Trick
    """The trick in progress."""
    tricks: tuple[Trick, ...]
    """Completed tricks with their winners."""
    hearts_broken: bool
    points_taken: tuple[int, ...]
    """Penalty points taken this round, by seat."""
    tricks_won: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    """Cards each seat still holds."""
    voids: tuple[frozenset[int], ...]
    """Suits each seat has shown it lacks by not following suit."""
    played: CardSet
    """Every card played this round."""
    scores: tuple[int, ...]
    """Game totals before this round."""
    moon_choice_pending: bool
    """True when this seat shot the moon and must choose (R4.4 ``shooter_chooses``)."""
    result: RoundResult | None
    game_over: bool
    winners: tuple[int, ...] | None

    @classmethod
    def of(cls, source: Game | Round, seat: int) -> View:
        """The view of ``seat`` on a game (its current round) or a single round."""
        game, r = _game_and_round(source, seat)
        return cls(**_own(r, seat), **_shared(game, r), played=r.played)

    @staticmethod
    def private_of(source: Game | Round, seat: int) -> dict[str, Any]:
        """``View.of(source, seat).private_dict()``, without making the rest of the view (a
        server sends each seat its own part, and every seat the same public part).

        >>> from hearts import Game, Rules
        >>> game = Game(Rules(), seed=2)
        >>> View.private_of(game, 1) == View.of(game, 1).private_dict()
        True
        """
        return _private_text(_own(_game_and_round(source, seat)[1], seat))

    @staticmethod
    def private_after_play(source: Game | Round, seat: int, before: dict[str, Any]) -> dict[str, Any]:
        """:meth:`private_of` made from ``before``, ``seat``'s private dict made earlier in the
        play phase of the same round (R3): only its hand and legal plays are made again (the
        rest — its pass, what it received — is ``before``'s, the same objects).

        >>> from hearts import Game, Rules
        >>> from hearts.actions import Play
        >>> game = Game(Rules(pass_count=0), seed=2)
        >>> before = [View.private_of(game, s) for s in range(4)]
        >>> game.apply(Play(game.round.to_move, "2C"))
        >>> all(View.private_after_play(game, s, before[s]) == View.private_of(game, s) for s in range(4))
        True
        """
        r = _game_and_round(source, seat)[1]
        legal = r.legal_plays() if r.to_move == seat else None
        return {**before, "hand": cards_text(r.hand(seat)), "legal": [] if legal is None else cards_text(legal)}

    @staticmethod
    def public_of(source: Game | Round, tricks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """``View.of(source, seat).public_dict()`` (the same for every seat), without making a
        view. ``tricks``: the completed tricks of the round as :func:`trick_dict` gave them so
        far, extended in place (a server that sends the public part at every action then
        makes each trick's once; give a new list when a round begins).

        >>> from hearts import Game, Rules
        >>> game, made = Game(Rules(), seed=2), []
        >>> View.public_of(game, made) == View.of(game, 3).public_dict() and made == []
        True
        """
        return _public_text(_shared(*_game_and_round(source, 0)), tricks)

    @staticmethod
    def public_after_play(source: Game | Round, before: dict[str, Any],
                          tricks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """:meth:`public_of` made from ``before``, the public dict of the same round made before
        actions (passes, plays) that changed no phase (R2, R3): only the fields such an action
        can change are made again (the rest is ``before``'s, the same objects). Without
        ``tricks``, the actions ended no trick; with it (the round's completed tricks made so
        far, as :meth:`public_of` takes them), they may have, and the tricks, points and tricks
        taken are made again too.

        >>> from hearts import Game, Rules
        >>> from hearts.actions import Play
        >>> game = Game(Rules(pass_count=0), seed=2)
        >>> made = []
        >>> before = View.public_of(game, made)
        >>> game.apply(Play(game.round.to_move, "2C"))
        >>> View.public_after_play(game, before) == View.public_of(game)
        True
        >>> for _ in range(3):
        ...     game.apply(Play(game.round.to_move, next(iter(game.round.legal_plays()))))
        >>> View.public_after_play(game, before, made) == View.public_of(game)
        True
        """
        r = _game_and_round(source, 0)[1]
        after = {**before, **_in_trick_text(_in_trick(r))}
        if tricks is not None:
            after.update(_taken_text(r.tricks, r.points_taken, r.tricks_won, tricks))
        return after

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of this view (cards as text such as ``"QS"``, hands sorted by suit).

        It holds exactly what the view holds (R7): this seat's own cards, its pass, and played
        cards; never another seat's unplayed card. It is :meth:`private_dict` (what only this
        seat knows) merged with :meth:`public_dict` (the same for every seat).

        >>> from hearts import Game, Rules
        >>> d = View.of(Game(Rules(), seed=2), 1).to_dict()
        >>> d["seat"], len(d["hand"]), d["phase"], d["hand_sizes"]
        (1, 13, 'passing', [13, 13, 13, 13])
        """
        return {**self.private_dict(), **self.public_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> View:
        """The view a :meth:`to_dict` gave (the ``view`` of a seat's ``state`` message, kept up
        to date by :func:`apply_event`): what a client of the service plays from (R7: nothing
        the seat may not know is in it, nor made up). Keys of neither part are ignored.

        >>> from hearts import Game, Rules
        >>> game = Game(Rules(), seed=2)
        >>> View.from_dict(View.of(game, 1).to_dict()) == View.of(game, 1)
        True
        """
        rules = Rules.from_dict(data["rules"])
        trick, tricks = _trick_of(data["trick"], rules), tuple(_trick_of(t, rules) for t in data["tricks"])
        played = CardSet([c for t in (*tricks, trick) for c in t.cards])
        result = data["result"]
        winners = data["winners"]
        return cls(
            seat=int(data["seat"]), rules=rules, round_number=int(data["round_number"]), phase=Phase(data["phase"]),
            to_move=data["to_move"], hand=_cards_of(data["hand"]), legal=_cards_of(data["legal"]),
            must_pass=bool(data["must_pass"]), pass_to=data["pass_to"], pass_from=data["pass_from"],
            passed=_maybe_cards(data["passed"]), received=_maybe_cards(data["received"]), trick=trick, tricks=tricks,
            hearts_broken=bool(data["hearts_broken"]), points_taken=tuple(data["points_taken"]),
            tricks_won=tuple(data["tricks_won"]), hand_sizes=tuple(data["hand_sizes"]),
            voids=tuple(frozenset(v) for v in data["voids"]), played=played, scores=tuple(data["scores"]),
            moon_choice_pending=bool(data["moon_choice_pending"]),
            result=None if result is None else RoundResult(
                tuple(result["points"]), tuple(result["scores"]), tuple(result["tricks_won"]), result["shooter"],
                result["moon_choice"],
            ),
            game_over=bool(data["game_over"]), winners=None if winners is None else tuple(winners),
        )

    def private_dict(self) -> dict[str, Any]:
        """The part of :meth:`to_dict` that only this seat may know: its hand, legal plays, pass."""
        return _private_text({name: getattr(self, name) for name in _OWN})

    def public_dict(self) -> dict[str, Any]:
        """The part of :meth:`to_dict` that is the same for every seat (public facts, R7)."""
        return _public_text({name: getattr(self, name) for name in _SHARED})

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.rules.players

    @property
    def my_turn(self) -> bool:
        """True when this seat has to act (pass, play or choose)."""
        return self.must_pass or self.to_move == self.seat

    def won(self, seat: int) -> CardSet:
        """The cards in the tricks ``seat`` has taken this round (public, R7)."""
        mask = 0
        for t in self.tricks:
            if t.winner == seat:
                for c in t.cards:
                    mask |= 1 << c
        return CardSet.from_mask(mask)

    @property
    def unseen(self) -> CardSet:
        """Cards this seat has not seen: held by the others, in some order it cannot know
        (except its own passed cards, see :attr:`known_elsewhere`)."""
        deck = CardSet.from_mask(self.rules.deck_mask)
        return deck - self.hand - self.played - (self.passed or CardSet())

    @property
    def known_elsewhere(self) -> CardSet:
        """This seat's passed cards still unplayed: it knows the receiver holds them (R7)."""
        if self.passed is None or self.phase is Phase.PASSING:
            return CardSet()
        return self.passed - self.played


_TEXT = tuple(str(Card(i)) for i in range(52))

_OWN = ("seat", "hand", "legal", "must_pass", "pass_to", "pass_from", "passed", "received", "moon_choice_pending")
"""The fields of a view that depend on its seat: what only that seat knows (:meth:`View.private_dict`)."""

_OWN_CARDS = frozenset({"hand", "legal", "passed", "received"})

_SHARED = ("rules", "round_number", "phase", "to_move", "trick", "tricks", "hearts_broken", "points_taken", "tricks_won",
           "hand_sizes", "voids", "played", "scores", "result", "game_over", "winners")
"""The fields of a view that are the same for every seat (:meth:`View.public_dict`)."""


def _game_and_round(source: Game | Round, seat: int) -> tuple[Game | None, Round]:
    """The game (``None`` for a single round) and round of a view's ``source``, once ``seat``
    is known to be one of its seats."""
    game = source if isinstance(source, Game) else None
    r = source.round if isinstance(source, Game) else source
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < r.players:
        raise ValueError(f"there is no seat {seat!r} among {r.players} players")
    return game, r


def _own(r: Round, seat: int) -> dict[str, Any]:
    """The fields :data:`_OWN` of ``seat``'s view of round ``r``."""
    n = r.players
    hand = r.hand(seat)
    passed = r.passed(seat)
    passing = r.phase is Phase.PASSING
    if passing and passed is not None:
        hand = hand - passed
    return {
        "seat": seat,
        "hand": hand,
        "legal": r.legal_plays() if r.to_move == seat else CardSet.from_mask(0),
        "must_pass": passing and passed is None,
        "pass_to": r.pass_target(seat) if r.pass_offset else None,
        "pass_from": (seat - r.pass_offset) % n if r.pass_offset else None,
        "passed": passed,
        "received": r.received(seat),
        "moon_choice_pending": r.phase is Phase.MOON_CHOICE and r.to_move == seat,
    }


def _private_text(own: dict[str, Any]) -> dict[str, Any]:
    """:func:`_own`'s fields as :meth:`View.private_dict` gives them (cards as text)."""
    return {name: cards_text(value) if name in _OWN_CARDS else value for name, value in own.items()}


def _shared(game: Game | None, r: Round) -> dict[str, Any]:
    """The fields :data:`_SHARED` of every seat's view of round ``r`` (of ``game``, if any),
    but ``played`` (which the public dict does not hold: :meth:`View.of` adds it)."""
    return {
        "rules": r.rules,
        "round_number": r.round_number,
        "phase": r.phase,
        **_in_trick(r),
        "tricks": r.tricks,
        "points_taken": r.points_taken,
        "tricks_won": r.tricks_won,
        "scores": r.scores_before,
        "result": r.result,
        "game_over": game.is_over if game else r.is_over,
        "winners": game.winners if game else None,
    }


def _in_trick(r: Round) -> dict[str, Any]:
    """The fields of :func:`_shared` that a play can change without ending its trick (R3):
    whose turn, the trick, who broke hearts, the hands' sizes and the voids shown."""
    return {
        "to_move": r.to_move,
        "trick": r.current_trick,
        "hearts_broken": r.hearts_broken,
        "hand_sizes": r.hand_sizes,
        "voids": tuple(r.voids(s) for s in range(r.players)),
    }


def _in_trick_text(shared: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`_in_trick`'s fields as :meth:`View.public_dict` gives them."""
    return {
        "to_move": shared["to_move"],
        "trick": trick_dict(shared["trick"]),
        "hearts_broken": shared["hearts_broken"],
        "hand_sizes": list(shared["hand_sizes"]),
        "voids": [sorted(v) for v in shared["voids"]],
    }


def _public_text(shared: dict[str, Any], tricks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """:func:`_shared`'s fields as :meth:`View.public_dict` gives them (``tricks``: see
    :meth:`View.public_of`)."""
    rules, result = shared["rules"], shared["result"]
    winners = shared["winners"]
    return {
        "players": rules.players,
        "rules": rules.to_dict(),
        "round_number": shared["round_number"],
        "phase": shared["phase"].value,
        "pass_count": rules.pass_count,
        **_in_trick_text(shared),
        **_taken_text(shared["tricks"], shared["points_taken"], shared["tricks_won"], tricks),
        "scores": list(shared["scores"]),
        "result": None if result is None else {
            "points": list(result.points),
            "scores": list(result.scores),
            "tricks_won": list(result.tricks_won),
            "shooter": result.shooter,
            "moon_choice": result.moon_choice,
        },
        "game_over": shared["game_over"],
        "winners": None if winners is None else list(winners),
    }


def _taken_text(done: tuple[Trick, ...], points: tuple[int, ...], won: tuple[int, ...],
                tricks: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The fields of :meth:`View.public_dict` that a trick's end changes: the completed tricks
    ``done`` (``tricks``: see :meth:`View.public_of`), the points and the tricks taken."""
    tricks = [] if tricks is None else tricks
    tricks.extend(trick_dict(t) for t in done[len(tricks):])
    return {"tricks": tricks[:len(done)], "points_taken": list(points), "tricks_won": list(won)}


def cards_text(cs: CardSet | None) -> list[str] | None:
    """Cards as the JSON views give them: their text, grouped by suit (``None`` stays ``None``).

    >>> cards_text(CardSet.parse("AS 2C KH")), cards_text(None)
    (['2C', 'AS', 'KH'], None)
    """
    if cs is None:
        return None
    m = cs.mask
    return [*_suit_text(m & _BY_SUIT[0]), *_suit_text(m & _BY_SUIT[1]), *_suit_text(m & _BY_SUIT[2]),
            *_suit_text(m & _BY_SUIT[3])]


_BY_SUIT = tuple(SUIT_MASKS[s] for s in DISPLAY_SUIT_ORDER)


@cache  # (at most 4 × 2**13 keys: the cards of one suit)
def _suit_text(mask: int) -> tuple[str, ...]:
    """The text of the cards of ``mask``, all of one suit, low to high (a hand's text is made
    of these, suit by suit, as :meth:`CardSet.sorted_by_suit <hearts.cards.CardSet.sorted_by_suit>`
    orders it)."""
    return tuple(_TEXT[c] for c in cards_of(mask))


def trick_dict(t: Trick) -> dict[str, Any]:
    """A trick as the JSON views give it: its leader, its plays in order, its winner (``None``
    until it is complete) and its points.

    >>> from hearts.cards import Card
    >>> trick_dict(Trick(1, (Card.parse("QS"), Card.parse("2S")), None, 4))
    {'leader': 1, 'plays': [{'seat': 1, 'card': 'QS'}, {'seat': 2, 'card': '2S'}], 'winner': None, 'points': 13}
    """
    n = t.players
    leader = t.leader
    return {
        "leader": leader,
        "plays": [{"seat": (leader + i) % n, "card": _TEXT[c]} for i, c in enumerate(t.cards)],
        "winner": t.winner,
        "points": t.points,
    }


def _cards_of(texts: list[str]) -> CardSet:
    return CardSet(texts)


def _maybe_cards(texts: list[str] | None) -> CardSet | None:
    return None if texts is None else _cards_of(texts)


def _trick_of(data: Mapping[str, Any], rules: Rules) -> Trick:
    """A trick from :func:`trick_dict`, played under ``rules``."""
    cards = tuple(Card.parse(p["card"]) for p in data["plays"])
    return Trick(int(data["leader"]), cards, data["winner"], rules.players, rules.spade_penalties)


def apply_event(state: dict[str, Any], event: dict[str, Any]) -> dict[str, Any] | None:
    """The service's ``state`` message (a decoded dict: a ``view``, ``to_dict``'s, and the
    table's facts) that the ``event`` message after it makes of it: a new dict, ``state`` left
    as it was; ``None`` when the event does not follow it (its ``n`` is not ``state``'s plus
    one: ask to ``sync``). Every client of the protocol keeps its copy with this one function
    (the server's :mod:`hearts.server.wire` names it too; ``docs/protocol.md``).

    >>> state = {"type": "state", "reason": "welcome", "you": 1, "n": 4, "seq": 7,
    ...          "view": {"hand": ["2C", "QS"], "to_move": 1}, "table": {"online": [1]}, "event": None}
    >>> event = {"type": "event", "reason": "event", "n": 5, "seq": 8, "view": {"hand": ["QS"], "to_move": 2},
    ...          "table": {}, "event": {"type": "play", "seat": 1, "card": "2C", "seq": 8}}
    >>> after = apply_event(state, event)
    >>> after["view"], after["seq"], after["table"], after["reason"]
    ({'hand': ['QS'], 'to_move': 2}, 8, {'online': [1]}, 'event')
    >>> apply_event(state, {**event, "n": 6}) is None
    True

    A list field grown at its end comes as its new items, in ``more``:

    >>> apply_event(after, {**event, "n": 6, "view": {}, "more": {"hand": ["AS"]}})["view"]["hand"]
    ['QS', 'AS']
    """
    if event["n"] != state["n"] + 1:
        return None
    view = {**state["view"], **event["view"]}
    for field, items in event.get("more", {}).items():  # (lists grown at their end)
        view[field] = [*view[field], *items]
    return {
        **state, "reason": event["reason"], "n": event["n"], "seq": event["seq"], "event": event["event"],
        "view": view, "table": {**state["table"], **event["table"]},
    }
