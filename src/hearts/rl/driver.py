"""One sequential decision process over the engine, shared by the PettingZoo and Gymnasium
environments: whose turn it is, the legal actions as card ids, applying one action, rewards.

Actions are card ids 0..51 (``Discrete(52)``):

- **passing** (R2): a seat passes its ``pass_count`` cards as that many single-card actions, the
  seats in order 0, 1, …, n−1 (as OpenSpiel's ``hearts``); the cards change hands after the
  last seat's last card (R2.1: no seat sees what it receives before choosing);
- **playing** (R3): the card to play; the turn follows the trick winner;
- **moon choice** (R4.4, ``moon="shooter_chooses"``): action 0 adds 26 to every other player,
  action 1 subtracts 26 from the shooter.

A round ends with rewards ``-scores`` (what each seat adds to its total, R4); with ``shaping``
each trick gives ``-points`` to its taker at once and the round's end the remainder, so the
sum over a round is the same. The episode is one round, or (``whole_game=True``) the rounds to
the target (R5).
"""

from __future__ import annotations

import random
from typing import Final

from hearts.cards import CardSet
from hearts.game import Game
from hearts.mechanics import RoundResult
from hearts.round import Phase, Round
from hearts.rules import Rules
from hearts.view import View

MOON_ADD: Final = 0
MOON_SUBTRACT: Final = 1


class Driver:
    """The engine behind the environments (a :class:`Game` or a single :class:`Round`)."""

    def __init__(
        self,
        rules: Rules,
        rng: random.Random,
        *,
        whole_game: bool = False,
        round_number: int = 0,
        shaping: bool = False,
    ) -> None:
        self.rules = rules
        self.whole_game = whole_game
        self.shaping = shaping
        self.game: Game | None = Game(rules, seed=rng) if whole_game else None
        self.single: Round | None = None if whole_game else Round.deal(rules, rng, round_number=round_number)
        self.pending = [0] * rules.players  # cards chosen so far in a one-card-at-a-time pass
        self.last_result: RoundResult | None = None

    @property
    def round(self) -> Round:
        return self.game.round if self.game is not None else self.single  # type: ignore[return-value]

    @property
    def source(self) -> Game | Round:
        return self.game if self.game is not None else self.single  # type: ignore[return-value]

    @property
    def is_over(self) -> bool:
        return self.game.is_over if self.game is not None else self.round.is_over

    def current_seat(self) -> int | None:
        """The seat to act (while passing: the first seat that has not finished its pass)."""
        if self.is_over:
            return None
        r = self.round
        if r.phase is Phase.PASSING:
            return r.seats_to_pass()[0]
        return r.to_move

    def view(self, seat: int) -> View:
        return View.of(self.source, seat)

    def legal_mask(self, seat: int) -> int:
        """Legal actions of ``seat`` as a 52-bit mask (0 when it is not its turn)."""
        if seat != self.current_seat():
            return 0
        r = self.round
        if r.phase is Phase.PASSING:
            return r.hand(seat).mask & ~self.pending[seat]
        if r.phase is Phase.MOON_CHOICE:
            return (1 << MOON_ADD) | (1 << MOON_SUBTRACT)
        return r.legal_plays().mask

    def pass_all(self, seat: int, mask: int) -> list[float]:
        """``seat`` passes a whole set at once (for bots); returns the rewards (all zero)."""
        self.source.pass_cards(seat, CardSet.from_mask(mask))
        self.pending[seat] = 0
        return [0.0] * self.rules.players

    def apply(self, action: int) -> list[float]:
        """The current seat takes ``action`` (validated by the engine); returns each seat's
        reward for this step."""
        seat = self.current_seat()
        if seat is None:
            raise ValueError("the episode is over")
        n = self.rules.players
        rewards = [0.0] * n
        r = self.round
        if r.phase is Phase.PASSING:
            if not (r.hand(seat).mask & ~self.pending[seat]) >> action & 1:
                raise ValueError(f"seat {seat} cannot pass card {action} (R2.1)")
            self.pending[seat] |= 1 << action
            if self.pending[seat].bit_count() == self.rules.pass_count:
                self.pass_all(seat, self.pending[seat])
            return rewards
        if r.phase is Phase.MOON_CHOICE:
            if action not in (MOON_ADD, MOON_SUBTRACT):
                raise ValueError(f"the moon choice is action 0 (add) or 1 (subtract), not {action}")
            self.source.choose_moon(seat, "add" if action == MOON_ADD else "subtract")
        else:
            before = r.tricks_played
            points_before = r.points_taken
            self.source.play(action, seat)
            if self.shaping and r.tricks_played > before:
                for s, (a, b) in enumerate(zip(r.points_taken, points_before, strict=True)):
                    rewards[s] -= a - b
        if r.result is not None:
            self.last_result = r.result
            taken = r.result.points if self.shaping else (0,) * n
            for s in range(n):
                rewards[s] -= r.result.scores[s] - taken[s]
        return rewards


__all__ = ["MOON_ADD", "MOON_SUBTRACT", "Driver"]
