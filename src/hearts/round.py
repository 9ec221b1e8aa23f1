"""One deal of Hearts: the pass, the tricks and the score (docs/rules.md R1–R4).

>>> from hearts import Round, Rules
>>> r = Round.deal(Rules(), seed=7)
>>> r.phase, r.pass_offset, len(r.hand(0))
(<Phase.PASSING: 'passing'>, 1, 13)
>>> for seat in range(4):
...     r.pass_cards(seat, list(r.hand(seat))[:3])
>>> r.phase, r.to_move == r.holder(r.rules.lowest_club)
(<Phase.PLAYING: 'playing'>, True)
>>> r.legal_plays()
CardSet.parse('2C')
>>> while not r.is_over:
...     r.play(next(iter(r.legal_plays())))
>>> sum(r.result.points)
26
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from hearts.actions import PLAY_TABLES, Action, Moon, Pass, Play, play_tables
from hearts.cards import (
    CARDS,
    QS,
    QS_MASK,
    SUIT_MASKS,
    SUIT_NAMES,
    Card,
    CardSet,
    mask_of,
    mask_points,
)
from hearts.errors import (
    CardParseError,
    IllegalAction,
    IllegalMoonChoice,
    IllegalPass,
    IllegalPlay,
    RulesError,
)
from hearts.mechanics import (
    MOON_CHOICES,
    LegalConfig,
    MoonChoice,
    RoundResult,
    legal_mask,
    score_round,
)
from hearts.rules import Rules

Hand = CardSet | Iterable[Card | int | str] | str | int
"""A hand as a :class:`CardSet`, cards, text such as ``"2C QS"``, or a mask."""

LegalActions = list[Action]
"""What :meth:`Round.legal_actions` gives a seat that plays or chooses (or may do nothing): a
plain list of its legal plays in card order (the shared values of
:data:`~hearts.actions.PLAYS`), of its moon choices, or empty, taken when asked. A plain list,
so ``list()``, ``len``, ``in`` and ``random.choice`` are the list's own, in C."""


class Phase(str, Enum):
    """Where a round is: passing (R2), playing (R3), the moon decision (R4.4), over."""

    PASSING = "passing"
    PLAYING = "playing"
    MOON_CHOICE = "moon_choice"
    OVER = "over"


_PASSING: Final = Phase.PASSING  # module constants: an enum class attribute is slow to read
_PLAYING: Final = Phase.PLAYING
_MOON_CHOICE: Final = Phase.MOON_CHOICE
_OVER: Final = Phase.OVER
_SOLO: Final = tuple((seat,) for seat in range(6))  # actors() of one seat, without a new tuple
_ALL: Final = tuple(tuple(range(n)) for n in range(7))  # seats_to_pass() before anyone has passed
_SUITS_OF: Final = tuple(frozenset(s for s in range(4) if mask >> s & 1) for mask in range(16))  # voids() by mask
_new: Final = object.__new__
_floor: Final = math.floor
_set_mask: Final = CardSet.__dict__["mask"].__set__


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led, the cards in the order played, who won (``None`` while open)."""

    leader: int
    cards: tuple[Card, ...]
    winner: int | None
    players: int
    spade_penalties: bool = False
    """Whether the K♠ and the A♠ are penalty cards (R4.5): the rules' ``spade_penalties``."""

    @property
    def plays(self) -> tuple[tuple[int, Card], ...]:
        """``(seat, card)`` pairs in the order played."""
        n = self.players
        return tuple(((self.leader + i) % n, c) for i, c in enumerate(self.cards))

    @property
    def led_suit(self) -> int | None:
        """The suit led, or ``None`` for an empty trick."""
        return self.cards[0].suit if self.cards else None

    @property
    def points(self) -> int:
        """Penalty points in the trick (R4.1, R4.5).

        >>> Trick(0, (Card.parse("KS"), Card.parse("3H"), Card.parse("2S")), 0, 3).points
        1
        >>> Trick(0, (Card.parse("KS"), Card.parse("3H"), Card.parse("2S")), 0, 3, spade_penalties=True).points
        11
        """
        return mask_points(sum(1 << c for c in self.cards), self.spade_penalties)

    def __str__(self) -> str:
        return " ".join(f"{seat}:{card}" for seat, card in self.plays)


class Round:
    """One deal: passing, thirteen tricks (fewer with 5 or 6 players) and scoring.

    Build one with :meth:`deal` (shuffled from a seed) or from explicit ``hands``. Every action
    validates its input and raises an :class:`~hearts.errors.IllegalAction` naming the rule;
    a refused action changes nothing.
    """

    __slots__ = (
        "_broken",
        "_cfg",
        "_dealt",
        "_first_leader",
        "_hands",
        "_high",
        "_in_trick",
        "_leader",
        "_led",
        "_legal",
        "_passed",
        "_plays",
        "_received",
        "_result",
        "_shooter",
        "_taker",
        "_trick",
        "_trick_objects",
        "_tricks_won",
        "_voids",
        "_winners",
        "_won",
        "hand_size",
        "is_over",
        "pass_offset",
        "phase",
        "players",
        "round_number",
        "rules",
        "scores_before",
        "to_move",
    )

    rules: Rules
    players: int
    hand_size: int
    round_number: int
    pass_offset: int
    scores_before: tuple[int, ...]
    phase: Phase
    to_move: int | None
    is_over: bool
    """True once the round is scored (a plain attribute: drivers read it on every move)."""

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Hand],
        *,
        round_number: int = 0,
        scores_before: Sequence[int] | None = None,
    ) -> None:
        _check_setup(rules, round_number)
        masks = validate_deal(rules, hands)
        self._setup(rules, masks, round_number, check_scores(rules, scores_before))

    def _setup(
        self, rules: Rules, masks: list[int], round_number: int, scores_before: Sequence[int] | None
    ) -> None:
        n = rules.players
        self.rules = rules
        self.players = n
        self.hand_size = rules.hand_size
        self.round_number = round_number
        self.scores_before = tuple(scores_before) if scores_before is not None else (0,) * n
        self.pass_offset = rules.pass_offset(round_number)
        self._cfg = LegalConfig(rules)
        self._dealt = tuple(masks)
        self._hands = masks
        self._passed: list[int | None] = [None] * n
        self._received: list[int | None] = [None] * n
        self._plays: list[int] = []  # every card played, in order
        self._winners: list[int] = []  # the winner of each completed trick
        self._trick_objects: list[Trick] = []
        self._in_trick = 0  # cards in the current trick
        self._won = [0] * n
        self._tricks_won = [0] * n
        self._voids = [0] * n
        self._leader = self._first_leader = 0
        self._led = -1
        self._high = self._taker = -1  # the current trick's highest card of the suit led, and its seat
        self._trick = 0  # the mask of the current trick's cards
        self._broken = False
        self._legal = -1  # the mover's legal plays: set by every play in the play phase (else -1)
        self._shooter: int | None = None
        self._result: RoundResult | None = None
        self.is_over = False
        if self.pass_offset:
            self.phase = _PASSING
            self.to_move = None
        else:
            self._start_play()

    @classmethod
    def deal(
        cls,
        rules: Rules | None = None,
        seed: int | random.Random | None = None,
        *,
        round_number: int = 0,
        scores_before: Sequence[int] | None = None,
    ) -> Round:
        """Shuffle and deal (R1.3) from a seed or a ``random.Random`` (:func:`check_seed`)."""
        rules = Rules() if rules is None else rules
        _check_setup(rules, round_number)
        check_seed(seed)
        scores = check_scores(rules, scores_before)
        r = object.__new__(cls)
        r._setup(rules, deal_hands(rules, seed), round_number, scores)  # a valid deal
        return r

    # --- reading the state -----------------------------------------------------------------

    @property
    def result(self) -> RoundResult | None:
        """The outcome once the round is over, else ``None``."""
        return self._result

    @property
    def hearts_broken(self) -> bool:
        """R3.5: a heart (or, with ``queen_breaks_hearts``, the Q♠) was played."""
        return self._broken

    @property
    def dealt(self) -> tuple[CardSet, ...]:
        """The hands as dealt, before the pass."""
        return tuple(CardSet.from_mask(m) for m in self._dealt)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds (public knowledge)."""
        return tuple(h.bit_count() for h in self._hands)

    @property
    def played(self) -> CardSet:
        """Every card played so far this round."""
        mask = 0
        for c in self._plays:
            mask |= 1 << c
        return CardSet.from_mask(mask)

    @property
    def cards_left(self) -> int:
        """Cards still to be played this round."""
        return self.hand_size * self.players - len(self._plays)

    @property
    def tricks_played(self) -> int:
        """Tricks completed so far."""
        return len(self._winners)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """Completed tricks, in order."""
        done = self._trick_objects  # built once per trick, on demand
        if len(done) < len(self._winners):
            n, plays, winners = self.players, self._plays, self._winners
            for k in range(len(done), len(winners)):
                leader = winners[k - 1] if k else self._first_leader
                cards = tuple([CARDS[c] for c in plays[k * n : k * n + n]])
                done.append(Trick(leader, cards, winners[k], n, self.rules.spade_penalties))
        return tuple(done)

    @property
    def current_trick(self) -> Trick:
        """The trick being played (possibly empty)."""
        cards = self._plays[len(self._plays) - self._in_trick :]
        return Trick(self._leader, tuple([CARDS[c] for c in cards]), None, self.players, self.rules.spade_penalties)

    @property
    def plays(self) -> tuple[Card, ...]:
        """Every card played so far, in order."""
        return tuple(CARDS[c] for c in self._plays)

    @property
    def points_taken(self) -> tuple[int, ...]:
        """Penalty points each seat has taken so far this round (R4.1, R4.5)."""
        return tuple(self.rules.points(w) for w in self._won)

    @property
    def tricks_won(self) -> tuple[int, ...]:
        """Tricks each seat has taken so far."""
        return tuple(self._tricks_won)

    def hand(self, seat: int) -> CardSet:
        """The cards ``seat`` holds now (before the exchange: the dealt hand)."""
        if type(seat) is not int or not 0 <= seat < self.players:
            self._seat(seat)  # raises
        cards = _new(CardSet)  # CardSet.from_mask, inlined: drivers read hands on every pass
        _set_mask(cards, self._hands[seat])
        return cards

    def won_cards(self, seat: int) -> CardSet:
        """The cards in the tricks ``seat`` has taken."""
        return CardSet.from_mask(self._won[self._seat(seat)])

    def passed(self, seat: int) -> CardSet | None:
        """The cards ``seat`` passed, or ``None`` if it has not passed (or nobody passes)."""
        m = self._passed[self._seat(seat)]
        return None if m is None else CardSet.from_mask(m)

    def received(self, seat: int) -> CardSet | None:
        """The cards ``seat`` received, once everyone has passed (R2.1), else ``None``."""
        m = self._received[self._seat(seat)]
        return None if m is None else CardSet.from_mask(m)

    def pass_target(self, seat: int) -> int:
        """The seat that receives ``seat``'s pass this round (R2.2)."""
        return (self._seat(seat) + self.pass_offset) % self.players

    def voids(self, seat: int) -> frozenset[int]:
        """Suits ``seat`` has shown it lacks by not following suit."""
        return _SUITS_OF[self._voids[self._seat(seat)]]

    def holder(self, card: Card | int | str) -> int | None:
        """Who holds ``card`` now (``None`` if played or not in the deck)."""
        c = Card.parse(card) if isinstance(card, str) else Card(card)
        return next((s for s, h in enumerate(self._hands) if h >> c & 1), None)

    def seats_to_pass(self) -> tuple[int, ...]:
        """Seats that still have to pass (R2.1: in any order)."""
        if self.phase is not _PASSING:
            return ()
        passed = self._passed
        if passed.count(None) == self.players:
            return _ALL[self.players]
        return tuple([s for s, p in enumerate(passed) if p is None])

    def legal_plays(self) -> CardSet:
        """The cards the seat to move may play (R3); empty outside the play phase."""
        if self.phase is not _PLAYING:
            return CardSet.from_mask(0)
        cards = _new(CardSet)  # CardSet.from_mask(self._legal), inlined: the hot path of user code
        _set_mask(cards, self._legal)
        return cards

    # --- actions ---------------------------------------------------------------------------

    def actors(self) -> tuple[int, ...]:
        """The seats that may act now: every seat yet to pass (R2.1: passing is simultaneous),
        else the seat to move (a play, or the shooter's moon choice), else none.

        >>> r = Round.deal(Rules(), seed=1)
        >>> r.actors()
        (0, 1, 2, 3)
        """
        phase = self.phase
        if phase is _PLAYING or phase is _MOON_CHOICE:
            return _SOLO[self.to_move]  # type: ignore[index]
        return self.seats_to_pass()

    def legal_actions(self, seat: int) -> LegalActions | LegalPasses:
        """What ``seat`` may do now: its plays (in card order) or its moon choices as a plain
        list (:data:`LegalActions`), or, while it has to pass, its passes as a lazy
        :class:`LegalPasses` (C(13, 3) = 286 of them). ``in`` tests legality.

        >>> r = Round.deal(Rules(), seed=1, round_number=3)  # no pass: the 2C leads
        >>> r.legal_actions(r.to_move), r.legal_actions((r.to_move + 1) % 4)
        ([Play(seat=2, card=Card('2C'))], [])
        """
        if seat is self.to_move and self.phase is _PLAYING:  # the hot path of every driver: no seat check
            # (the seat to move is an int, the same object, and a valid seat); plays_of(seat, m), inlined
            t0, t1, t2, t3, t4, t5, t6 = PLAY_TABLES[seat] or play_tables(seat)
            b0, b1, b2, b3, b4, b5, b6 = self._legal.to_bytes(7, "little")
            return [*t0[b0], *t1[b1], *t2[b2], *t3[b3], *t4[b4], *t5[b5], *t6[b6]]
        self._seat(seat)  # raises for anything but a seat
        if self.phase is _PASSING and self._passed[seat] is None:
            return LegalPasses(self, seat)
        if self.phase is _MOON_CHOICE and seat == self.to_move:
            return [Moon(seat, choice) for choice in MOON_CHOICES]
        return []

    def apply(self, action: Action) -> None:
        """Apply an :data:`~hearts.actions.Action` (R2–R4). It is validated first; a refused
        action raises an :class:`~hearts.errors.IllegalAction` and changes nothing.

        This is the one place that dispatches on the kind of action.
        """
        kind = type(action)
        if kind is Play:
            card: Card = action.card  # type: ignore[union-attr]
            mover: int = self.to_move  # type: ignore[assignment]
            # The seat to move (`is`: a Play's seat is a plain int, and ints this small are one
            # object) plays a card it may play: play()'s checks, the cheapest first. Anything
            # else goes through play(), which says why it is refused (or normalizes it).
            if (
                action.seat is not mover
                or self.phase is not _PLAYING
                or type(card) is not Card
                or not self._legal & (bit := _BITS[card])
            ):
                self.play(card, action.seat)
                return
            self._move(mover, card, bit)
        elif kind is Pass:
            self.pass_cards(action.seat, action.cards)  # type: ignore[union-attr]
        elif kind is Moon:
            self.choose_moon(action.seat, action.choice)  # type: ignore[union-attr]
        else:
            raise IllegalAction(
                f"{action!r:.60} is not an action (Pass, Play or Moon)", rule="R1.4", cards="act"
            )

    def pass_cards(self, seat: int, cards: Iterable[Card | int | str] | CardSet | str) -> None:
        """``seat`` passes ``cards`` (R2.1). Seats pass in any order; the cards change hands
        when the last seat has passed (R2.3)."""
        if self.phase is not _PASSING:
            why = (
                "nobody passes this round" if not self.pass_offset else f"it is the {self.phase.value} phase"
            )
            raise IllegalPass(why, rule="R2.1", seat=seat, cards=f"pass {_shown(cards)}")
        if type(seat) is not int or not 0 <= seat < self.players:
            try:
                self._seat(seat)  # raises
            except IllegalPlay as e:  # a pass is refused with an IllegalPass
                raise IllegalPass(e.reason, rule=e.rule, seat=None, cards=f"pass {_shown(cards)}") from None
        try:
            mask = cards.mask if type(cards) is CardSet else _hand_mask(cards)  # a Pass's cards: a CardSet
        except CardParseError as e:
            raise IllegalPass(str(e), rule="R2.1", seat=seat, cards="pass those cards") from None
        if self._passed[seat] is not None:
            shown = CardSet.from_mask(mask)
            raise IllegalPass("it has already passed", rule="R2.1", seat=seat, cards=f"pass {shown}")
        if mask.bit_count() != self.rules.pass_count:
            raise IllegalPass(
                f"{self.rules.pass_count} cards are passed, not {mask.bit_count()}",
                rule="R2.1",
                seat=seat,
                cards=f"pass {CardSet.from_mask(mask)}",
            )
        if mask & ~self._hands[seat]:
            missing = CardSet.from_mask(mask & ~self._hands[seat])
            shown = CardSet.from_mask(mask)
            raise IllegalPass(f"it does not hold {missing}", rule="R2.1", seat=seat, cards=f"pass {shown}")
        self._passed[seat] = mask
        if None not in self._passed:
            self._exchange()

    def play(self, card: Card | int | str, seat: int | None = None) -> None:
        """The seat to move plays ``card`` (R3). Pass ``seat`` to have it checked too."""
        if self.phase is not _PLAYING:
            raise IllegalPlay(f"it is the {self.phase.value} phase", rule="R3", seat=seat, cards=f"play {card}")
        mover: int = self.to_move  # type: ignore[assignment]
        if type(card) is not Card:
            try:
                card = Card.parse(card) if isinstance(card, str) else Card(card)
            except CardParseError as e:
                raise IllegalPlay(str(e), rule="R1.2", seat=mover, cards=f"play {card!r}") from None
        # `seat is mover` first: the seat of a real Play is a plain int, and ints this small are one object
        if seat is not mover and seat is not None and (seat != mover or isinstance(seat, bool)):
            raise IllegalPlay(f"it is seat {mover}'s turn", rule="R1.4", seat=seat, cards=f"play {card}")
        bit = _BITS[card]
        if not self._legal & bit:
            rule, why = self._why_illegal(card)
            raise IllegalPlay(why, rule=rule, seat=mover, cards=f"play {card}")
        self._move(mover, card, bit)

    def _move(self, mover: int, card: Card, bit: int) -> None:
        """Seat ``mover`` plays ``card`` (its ``bit``), checked legal already: the card leaves its
        hand for the trick (R3.5 breaks hearts, R3.8's taker kept as the trick is played, a
        void revealed), then the next seat's legal plays, or the trick's end."""
        hands = self._hands
        hands[mover] ^= bit
        self._plays.append(card)
        if not self._broken and bit & self._cfg.breaks_mask:  # R3.5
            self._broken = True
        k = self._in_trick + 1
        if k == 1:
            self._led = led = card & 3
            self._high, self._taker, self._trick = card, mover, bit
        else:
            self._trick |= bit
            led = self._led
            if card & 3 == led:
                if card > self._high:  # R3.8, kept as the trick is played (what trick_winner_offset finds)
                    self._high, self._taker = card, mover
            else:
                self._voids[mover] |= 1 << led
        if k < self.players:
            self._in_trick = k
            self.to_move = mover = (mover + 1) % self.players
            # The next seat's legal plays, now: each play needs them (R3.2 first, legal_mask's first case).
            hand = hands[mover]
            legal = hand & SUIT_MASKS[led]
            self._legal = legal or legal_mask(hand, led, not self._winners, self._broken, self._cfg)
        else:
            self._end_trick()

    def _end_trick(self) -> None:
        """The trick's last card is played: its winner takes it and leads next (R3.8)."""
        winner = self._taker
        self._won[winner] |= self._trick
        self._tricks_won[winner] += 1
        winners = self._winners
        winners.append(winner)
        self._in_trick = 0
        self._led = -1
        self._leader = self.to_move = winner
        if len(winners) == self.hand_size:
            self._legal = -1
            self._end_of_play()
        else:
            self._legal = legal_mask(self._hands[winner], -1, False, self._broken, self._cfg)

    def choose_moon(self, seat: int, choice: MoonChoice) -> None:
        """The shooter's decision under ``moon="shooter_chooses"`` (R4.4): ``"add"`` 26 to every
        other player, or ``"subtract"`` 26 from its own score."""
        if self.phase is not _MOON_CHOICE:
            raise IllegalMoonChoice("no moon decision is asked now", rule="R4.4", seat=seat, cards="choose")
        if seat != self._shooter:
            raise IllegalMoonChoice(
                f"seat {self._shooter} shot the moon and decides", rule="R4.4", seat=seat, cards="choose"
            )
        if choice not in MOON_CHOICES:
            raise IllegalMoonChoice(
                f"the choice is 'add' or 'subtract', not {choice!r}", rule="R4.4", seat=seat, cards="choose"
            )
        self._finish(choice)

    def clone(self) -> Round:
        """An independent copy (cheap: a few short lists)."""
        c = object.__new__(Round)
        for name in Round.__slots__:
            value = getattr(self, name)
            setattr(c, name, value[:] if type(value) is list else value)  # the rest is immutable
        return c

    # --- internals -------------------------------------------------------------------------

    def _seat(self, seat: int) -> int:
        if type(seat) is not int or not 0 <= seat < self.players:  # bool and other int types too
            raise IllegalPlay(f"there is no seat {seat!r}", rule="R1.4", seat=None, cards="act")
        return seat

    def _exchange(self) -> None:
        n, off = self.players, self.pass_offset
        passed: list[int] = self._passed  # type: ignore[assignment]
        for s in range(n):
            self._hands[s] &= ~passed[s]
        for s in range(n):
            to = (s + off) % n
            self._hands[to] |= passed[s]
            self._received[to] = passed[s]
        self._start_play()

    def _start_play(self) -> None:
        self.phase = _PLAYING
        bit = 1 << self.rules.lowest_club
        hands = self._hands
        leader = 0
        while not hands[leader] & bit:
            leader += 1
        self._leader = self._first_leader = self.to_move = leader
        self._legal = legal_mask(hands[leader], -1, True, False, self._cfg)

    def _end_of_play(self) -> None:
        penalty = self.rules.penalty_mask
        shooter = next((s for s, w in enumerate(self._won) if w & penalty == penalty), None)
        if shooter is not None and self.rules.moon == "shooter_chooses":
            self._shooter = shooter
            self.phase = _MOON_CHOICE
            self.to_move = shooter
            return
        self._finish(None)

    def _finish(self, choice: MoonChoice | None) -> None:
        self._result = score_round(self._won, self._tricks_won, self.rules, self.scores_before, choice)
        self._shooter = self._result.shooter
        self.phase = _OVER
        self.to_move = None
        self.is_over = True

    def _why_illegal(self, card: Card) -> tuple[str, str]:
        """The rule and reason that forbid ``card`` now (it is not in the legal set)."""
        hand = self._hands[self.to_move]  # type: ignore[index]
        if not hand >> card & 1:
            return "R1.3", f"{card} is not in its hand"
        legal = CardSet.from_mask(self._legal)
        if self._led >= 0:
            if hand & SUIT_MASKS[self._led]:
                return "R3.2", f"it must follow {SUIT_NAMES[self._led]} (legal: {legal})"
            return "R3.3", f"no points on the first trick while it holds other cards (legal: {legal})"
        if not self._winners:
            if self.rules.first_lead == "any_club":
                return "R3.1", f"the first lead is a club (legal: {legal})"
            return "R3.1", f"the first lead is the {self.rules.lowest_club} (legal: {legal})"
        if self._legal == QS_MASK:
            return "R3.7", "with only hearts and the Q♠ left and hearts unbroken, the Q♠ is led"
        if card == QS:
            return "R3.6", f"the Q♠ may not be led before hearts are broken (legal: {legal})"
        return "R3.4", f"hearts are not broken yet (legal: {legal})"

    def __repr__(self) -> str:
        return (
            f"<Round {self.round_number} {self.phase.value} players={self.players} "
            f"to_move={self.to_move} tricks={len(self._winners)}>"
        )


class LegalPasses:
    """The passes of one seat that has to pass, generated lazily (C(13, 3) = 286 of them; up
    to C(17, 8) = 24,310), and like python-chess's legal move generator a live view of the
    round: iterate it, take its ``len``, or test an action with ``in``.

    >>> r = Round.deal(Rules(), seed=1)
    >>> legal = r.legal_actions(0)
    >>> len(legal)  # C(13, 3) passes
    286
    >>> Pass(0, list(r.hand(0))[:3]) in legal, Pass(1, list(r.hand(1))[:3]) in legal
    (True, False)
    """

    __slots__ = ("_round", "seat")

    def __init__(self, r: Round, seat: int) -> None:
        self._round = r
        self.seat = seat

    def _pass_hand(self) -> int:
        r = self._round
        if r.phase is not _PASSING or r._passed[self.seat] is not None:
            return -1
        return r._hands[self.seat]

    def __contains__(self, action: object) -> bool:
        r, seat = self._round, self.seat
        if isinstance(action, Play):
            return (
                action.seat == seat
                and r.to_move == seat
                and r.phase is _PLAYING
                and bool(r._legal >> action.card & 1)
            )
        if isinstance(action, Pass):
            hand = self._pass_hand()
            mask = action.cards.mask
            return action.seat == seat and hand >= 0 and not mask & ~hand and mask.bit_count() == r.rules.pass_count
        if isinstance(action, Moon):
            return action.seat == seat and r.phase is _MOON_CHOICE and r.to_move == seat
        return False

    def __iter__(self) -> Iterator[Action]:
        r, seat = self._round, self.seat
        if r.to_move == seat and r.phase is _PLAYING:
            m = r._legal
            t0, t1, t2, t3, t4, t5, t6 = PLAY_TABLES[seat] or play_tables(seat)  # plays_of(seat, m), inlined
            b0, b1, b2, b3, b4, b5, b6 = m.to_bytes(7, "little")
            return iter([*t0[b0], *t1[b1], *t2[b2], *t3[b3], *t4[b4], *t5[b5], *t6[b6]])
        if r.phase is _MOON_CHOICE and r.to_move == seat:
            return iter([Moon(seat, choice) for choice in MOON_CHOICES])
        hand = self._pass_hand()
        if hand < 0:
            return iter(())
        combinations = itertools.combinations(CardSet.from_mask(hand), r.rules.pass_count)
        return (Pass(seat, CardSet(cards)) for cards in combinations)  # C(13, 3) = 286: lazily

    def __len__(self) -> int:
        r, seat = self._round, self.seat
        if r.to_move == seat and r.phase is _PLAYING:
            return r._legal.bit_count()
        if r.phase is _MOON_CHOICE and r.to_move == seat:
            return len(MOON_CHOICES)
        hand = self._pass_hand()
        return math.comb(hand.bit_count(), r.rules.pass_count) if hand >= 0 else 0

    def __bool__(self) -> bool:
        return len(self) > 0

    def __repr__(self) -> str:
        return f"<LegalPasses seat={self.seat} count={len(self)}>"


def _check_setup(rules: object, round_number: object) -> None:
    if not isinstance(rules, Rules):
        raise RulesError(f"R6: rules must be a Rules value (e.g. Rules.from_dict(...)), not {rules!r:.60}")
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 0:
        raise RulesError(f"R2.2: round_number counts rounds from 0, not {round_number!r:.40}")


def check_seed(seed: object) -> int | random.Random | None:
    """A seed of the deals (R1.3): a whole number, a ``random.Random``, or ``None`` (a fresh one).

    >>> check_seed("7")
    Traceback (most recent call last):
    ...
    hearts.errors.RulesError: R1.3: a seed is a whole number or a random.Random, not '7'
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, random.Random))):
        raise RulesError(f"R1.3: a seed is a whole number or a random.Random, not {seed!r:.60}")
    return seed


def check_scores(rules: Rules, scores: object) -> tuple[int, ...] | None:
    """Totals before a round or game (R5): one whole number per seat, or ``None`` (all 0).

    >>> check_scores(Rules(players=3), ["a", 1, 2])
    Traceback (most recent call last):
    ...
    hearts.errors.RulesError: R5: the totals are 3 whole numbers, one per seat, not ['a', 1, 2]
    """
    if scores is None:
        return None
    n = rules.players
    if (
        isinstance(scores, (str, bytes))
        or not isinstance(scores, Sequence)
        or len(scores) != n
        or not all(isinstance(t, int) and not isinstance(t, bool) for t in scores)
    ):
        raise RulesError(f"R5: the totals are {n} whole numbers, one per seat, not {scores!r:.80}")
    return tuple(scores)


def validate_deal(rules: Rules, hands: Sequence[Hand]) -> list[int]:
    """The hands of a deal as masks, checked to be the whole deck for ``rules`` (R1.2)."""
    n = rules.players
    if not isinstance(hands, Sequence) or isinstance(hands, str) or len(hands) != n:
        raise CardParseError(f"R1.2: a deal for {n} players needs {n} hands, got {hands!r:.80}")
    masks = [_hand_mask(h) for h in hands]
    seen = 0
    hand_size = rules.hand_size
    for seat, m in enumerate(masks):
        if m.bit_count() != hand_size:
            raise CardParseError(
                f"R1.2: seat {seat} is dealt {m.bit_count()} cards; each of {n} players gets "
                f"{rules.hand_size}"
            )
        if m & seen:
            raise CardParseError(f"R1.2: {CardSet.from_mask(m & seen)} dealt twice")
        seen |= m
    if seen != rules.deck_mask:
        raise CardParseError(
            f"R1.2: the deal is not the {rules.deck_size}-card deck for {n} players "
            f"(cards {CardSet.from_mask(seen & ~rules.deck_mask)} are not in it)"
        )
    return masks


def deal_hands(rules: Rules, seed: int | random.Random | None = None) -> list[int]:
    """Shuffle the deck for ``rules`` and deal it one card at a time clockwise (R1.3).

    The shuffle is a Fisher–Yates shuffle driven by ``Random.random()``, the same for the same
    seed on every platform.
    """
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    n = rules.players
    bits, steps = _BIT_DECKS.get(rules.deck_mask) or _bit_deck(rules.deck_mask)
    deck = list(bits)  # the cards as their bits: a hand is then a plain sum (in C)
    rand = rng.random
    for i in steps:
        j = _floor(rand() * (i + 1))  # int(rand() * (i + 1)): the same for a positive float, and faster
        deck[i], deck[j] = deck[j], deck[i]
    return [sum(deck[s::n]) for s in range(n)]  # card i to seat i % n


_BITS: Final = tuple(1 << c for c in range(52))


_BIT_DECKS: Final[dict[int, tuple[tuple[int, ...], tuple[int, ...]]]] = {}
"""By deck mask (R1.2): its cards as bits, in card order, and the steps of its shuffle."""


def _bit_deck(deck_mask: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:data:`_BIT_DECKS`' entry for ``deck_mask``, made (and kept) on first use."""
    bits = tuple(_BITS[c] for c in range(52) if deck_mask >> c & 1)
    entry = _BIT_DECKS[deck_mask] = (bits, tuple(range(len(bits) - 1, 0, -1)))
    return entry


def _hand_mask(cards: Hand) -> int:
    if type(cards) is int and 0 <= cards < 1 << 52:  # the common cases first: a valid mask,
        return cards
    if type(cards) is list or type(cards) is tuple:  # a list or tuple of cards
        return mask_of(cards)  # what CardSet(cards).mask does
    if isinstance(cards, CardSet):
        return cards.mask
    if isinstance(cards, int) and not isinstance(cards, bool):
        if not 0 <= cards < 1 << 52:
            raise CardParseError(f"R1.2: {cards!r} is not a 52-bit card mask")
        return cards
    if isinstance(cards, str):
        return CardSet.parse(cards).mask
    if not isinstance(cards, Iterable):
        raise CardParseError(f"R1.2: {cards!r} is not a list of cards")
    return CardSet(cards).mask


def _shown(cards: object) -> str:
    """The cards of a refused action as text for its message, whatever was given."""
    try:
        return str(CardSet.from_mask(_hand_mask(cards)))  # type: ignore[arg-type]
    except (CardParseError, TypeError):
        return repr(cards)


__all__ = [
    "Hand",
    "LegalActions",
    "LegalPasses",
    "Phase",
    "Round",
    "Trick",
    "check_scores",
    "check_seed",
    "deal_hands",
    "validate_deal",
]
