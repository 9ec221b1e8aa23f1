"""One sequential decision process over the engine, shared by the PettingZoo, Gymnasium and
OpenSpiel adapters: whose turn it is, the legal actions as ints, applying one, rewards.

Actions are ints 0..51 (``Discrete(52)``):

- **passing** (R2): a seat passes its ``pass_count`` cards as that many single-card actions
  (card ids), the seats in order 0, 1, …, n−1 (as OpenSpiel's ``hearts``); the cards change
  hands after the last seat's last card (R2.1: no seat sees what it receives before choosing);
- **playing** (R3): the card id to play; the turn follows the trick winner;
- **moon choice** (R4.4, ``moon="shooter_chooses"``): action 0 adds 26 to every other player,
  action 1 subtracts 26 from the shooter.

Every action reaches the engine as an :data:`~hearts.actions.Action` through ``apply`` (a bot's
comes whole from :meth:`~hearts.bots.Bot.act`: :meth:`Driver.act`). A round ends with rewards
``-scores`` (what each seat adds to its total, R4); with ``shaping`` each trick gives
``-points`` to its taker at once and the round's end the remainder, so the sum over a round
is the same. The episode is one round, or (``whole_game=True``) the rounds to the target (R5).

>>> import random
>>> from hearts import Rules
>>> d = Driver.deal(Rules(), random.Random(1))
>>> d.current_seat(), bin(d.legal_mask(0)).count("1")  # seat 0 passes first, any of 13 cards
(0, 13)
>>> card = d.round.hand(0).mask.bit_length() - 1  # its highest card
>>> d.apply(card), d.pending[0] == 1 << card
([0.0, 0.0, 0.0, 0.0], True)
>>> d.apply(card)
Traceback (most recent call last):
...
hearts.errors.IllegalPass: R2.1: seat 0 may not pass ...: it does not hold it, or has chosen it already
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from typing import Final

from hearts.actions import Action, Moon, Pass, Play
from hearts.cards import CARDS, QUEEN_OF_SPADES, Card, CardSet
from hearts.errors import ActionError, IllegalAction, IllegalMoonChoice, IllegalPass
from hearts.game import Game
from hearts.mechanics import MOON_CHOICES, RoundResult
from hearts.round import Phase, Round
from hearts.rules import Rules
from hearts.text import Style, direction_name
from hearts.view import View

MOON_ADD: Final = MOON_CHOICES.index("add")
MOON_SUBTRACT: Final = MOON_CHOICES.index("subtract")


def action_index(action: object) -> int:
    """``action`` as an int of the action space ``Discrete(52)``; an :class:`~hearts.errors.ActionError`
    for anything else (a float, a string, an int outside 0..51).

    >>> action_index(7), action_index(51)
    (7, 51)
    >>> action_index(2.5)
    Traceback (most recent call last):
    ...
    hearts.errors.ActionError: R1.2: 2.5 is not an action: expected an int 0..51 (a card id, or a moon choice)
    """
    try:
        index = operator.index(action)  # type: ignore[arg-type]  # anything with __index__
    except TypeError:
        index = -1
    if isinstance(action, bool) or not 0 <= index < 52:
        raise ActionError(f"R1.2: {action!r} is not an action: expected an int 0..51 (a card id, or a moon choice)")
    return index


def action_id(action: Play | Moon) -> int:
    """The int of a play (its card id) or a moon choice (:data:`MOON_ADD`, :data:`MOON_SUBTRACT`).

    >>> action_id(Play(0, "QS")), action_id(Moon(2, "subtract"))
    (43, 1)
    """
    return int(action.card) if isinstance(action, Play) else MOON_CHOICES.index(action.choice)


class Driver:
    """The engine behind the environments: a :class:`Game` or a single :class:`Round`, driven
    with int actions (see the module docstring)."""

    def __init__(self, source: Game | Round, *, shaping: bool = False) -> None:
        self.source = source
        self.game = source if isinstance(source, Game) else None
        self.rules = source.rules
        self.shaping = shaping
        self.pending = [0] * self.rules.players
        """The cards each seat has chosen so far in a one-card-at-a-time pass (masks)."""
        self.last_result: RoundResult | None = None

    @classmethod
    def deal(
        cls,
        rules: Rules,
        rng: random.Random,
        *,
        whole_game: bool = False,
        round_number: int = 0,
        shaping: bool = False,
    ) -> Driver:
        """A new episode dealt from ``rng``: a whole game, or the round ``round_number``."""
        source = Game(rules, seed=rng) if whole_game else Round.deal(rules, rng, round_number=round_number)
        return cls(source, shaping=shaping)

    @property
    def round(self) -> Round:
        """The round being played."""
        return self.game.round if self.game is not None else self.source  # type: ignore[return-value]

    @property
    def is_over(self) -> bool:
        """True once nobody may act: the round (or the game) is over."""
        return not self.source.actors()

    def current_seat(self) -> int | None:
        """The seat to act (while passing: the first seat that has not finished its pass)."""
        actors = self.source.actors()
        return actors[0] if actors else None

    def view(self, seat: int) -> View:
        """What ``seat`` may know (R7)."""
        return View.of(self.source, seat)

    def legal_mask(self, seat: int) -> int:
        """Legal actions of ``seat`` as a 52-bit mask (0 when it is not its turn)."""
        if seat != self.current_seat():
            return 0
        if self.round.phase is Phase.PASSING:
            return self.round.hand(seat).mask & ~self.pending[seat]
        mask = 0
        for action in self.source.legal_actions(seat):
            mask |= 1 << action_id(action)  # type: ignore[arg-type]  # a Play or a Moon
        return mask

    def to_action(self, seat: int, action: int) -> Play | Moon:
        """The engine's action for int ``action`` of ``seat`` outside the pass phase."""
        if self.round.phase is Phase.MOON_CHOICE:
            if action not in (MOON_ADD, MOON_SUBTRACT):
                raise IllegalMoonChoice(
                    f"the choice is action {MOON_ADD} (add) or {MOON_SUBTRACT} (subtract), not {action}",
                    rule="R4.4",
                    seat=seat,
                    cards="choose",
                )
            return Moon(seat, MOON_CHOICES[action])
        return Play(seat, action)

    def apply(self, action: int) -> list[float]:
        """The current seat takes int ``action``; returns each seat's reward for this step. An
        illegal action raises an :class:`~hearts.errors.IllegalAction` (or, for anything outside
        the action space, an :class:`~hearts.errors.ActionError`: :func:`action_index`) and
        changes nothing."""
        action = action_index(action)
        seat = self.current_seat()
        if seat is None:
            raise IllegalAction("the episode is over", rule="R5.1", cards="act")
        if self.round.phase is not Phase.PASSING:
            return self.act(self.to_action(seat, action))
        chosen = self.pending[seat]
        if not (self.round.hand(seat).mask & ~chosen) >> action & 1:
            raise IllegalPass("it does not hold it, or has chosen it already", rule="R2.1", seat=seat,
                              cards=f"pass {CARDS[action]}")
        chosen |= 1 << action
        if chosen.bit_count() < self.rules.pass_count:
            self.pending[seat] = chosen
            return [0.0] * self.rules.players
        return self.act(Pass(seat, CardSet.from_mask(chosen)))

    def act(self, action: Action) -> list[float]:
        """Apply a whole :data:`~hearts.actions.Action` (a bot's, from :meth:`~hearts.bots.Bot.act`);
        returns each seat's reward for this step."""
        n = self.rules.players
        r = self.round
        tricks, points = r.tricks_played, r.points_taken
        self.source.apply(action)
        if isinstance(action, Pass):
            self.pending[action.seat] = 0
        rewards = [0.0] * n
        if self.shaping and r.tricks_played > tricks:
            for s, (a, b) in enumerate(zip(r.points_taken, points, strict=True)):
                rewards[s] -= a - b
        if r.result is not None:
            self.last_result = r.result
            taken = r.result.points if self.shaping else (0,) * n
            for s in range(n):
                rewards[s] -= r.result.scores[s] - taken[s]
        return rewards

    def render(self, names: Sequence[str] | None = None, *, you: int | None = None, ansi: bool = False) -> str:
        """The table as text for a person watching (every hand shown): the round, each seat's
        hand and points, the trick, the game's totals; with ``ansi``, red diamonds and hearts
        and a bold Q♠ in ANSI colours. ``names`` label the seats (default ``seat 0``…) and
        ``you`` marks one of them.

        >>> d = Driver.deal(Rules(), random.Random(1))
        >>> print(d.render(you=0))
        Round 1: passing left (3 cards each)
          seat 0 (you)   0 pts  5♣ A♣ 3♦ 6♦ 8♦ 4♠ 5♠ 10♠ K♠ 2♥ 8♥ Q♥ A♥   <- to pass
          seat 1         0 pts  6♣ 8♣ 9♣ 10♣ K♣ 9♦ 3♠ 9♠ J♠ 5♥ 10♥ J♥ K♥
          seat 2         0 pts  2♣ J♣ 2♦ 4♦ 7♦ 10♦ J♦ Q♦ K♦ 6♠ 8♠ Q♠ 6♥
          seat 3         0 pts  3♣ 4♣ 7♣ Q♣ 5♦ A♦ 2♠ 7♠ A♠ 3♥ 4♥ 7♥ 9♥
        """
        r = self.round
        n = r.players
        style = _AnsiStyle() if ansi else Style()
        labels = list(names) if names is not None else [f"seat {s}" for s in range(n)]
        rows = [f"{label} (you)" if s == you else label for s, label in enumerate(labels)]
        width = max(map(len, rows))
        to_act = self.current_seat()
        head = f"Round {r.round_number + 1}: "
        if r.phase is Phase.PASSING:
            head += f"passing {direction_name(r.pass_offset, n)} ({self.rules.pass_count} cards each)"
        elif r.result is not None:
            head += "over, scores " + " ".join(map(str, r.result.scores))
            if r.result.shooter is not None:
                head += f" ({labels[r.result.shooter]} shot the moon)"
        else:
            head += f"trick {r.tricks_played + 1} of {self.rules.hand_size}"
            head += ", hearts broken" if r.hearts_broken else ""
        lines = [head]
        for s in range(n):
            line = f"  {rows[s]:<{width}}  {r.points_taken[s]:>2} pts  {_cards(style, r.hand(s))}"
            if self.pending[s]:
                line += f"  chosen {_cards(style, CardSet.from_mask(self.pending[s]))}"
            if s == to_act:
                verb = {Phase.PASSING: "pass", Phase.MOON_CHOICE: "choose (moon)"}.get(r.phase, "play")
                line += f"   <- to {verb}"
            lines.append(line)
        trick = r.current_trick
        if trick.cards:
            lines.append("  trick: " + ", ".join(f"{style.card(c)} ({labels[s]})" for s, c in trick.plays))
        if self.game is not None:
            lines.append("  totals: " + " ".join(map(str, self.game.totals)))
        return "\n".join(lines)


class _AnsiStyle(Style):
    """Cards in ANSI colours: diamonds and hearts red, the Q♠ bold."""

    def card(self, card: Card) -> str:
        text = super().card(card)
        if card == QUEEN_OF_SPADES:
            return f"\x1b[1m{text}\x1b[0m"
        return f"\x1b[31m{text}\x1b[0m" if card.suit in (1, 2) else text


def _cards(style: Style, cards: CardSet) -> str:
    return style.sorted_cards(cards) or "-"


__all__ = ["MOON_ADD", "MOON_SUBTRACT", "Driver", "action_id", "action_index"]
