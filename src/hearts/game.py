"""A whole game: rounds until someone reaches the target, lowest total wins (RULES.md R5).

>>> from hearts import Game, Rules
>>> import random
>>> game = Game(Rules(target=30), seed=1)
>>> rng = random.Random(1)
>>> while not game.is_over:
...     r = game.round
...     if r.phase.value == "passing":
...         for seat in r.seats_to_pass():
...             game.pass_cards(seat, rng.sample(list(r.hand(seat)), 3))
...     elif r.phase.value == "moon_choice":
...         game.choose_moon(r.to_move, "add")
...     else:
...         game.play(rng.choice(list(game.legal_plays())))
>>> max(game.totals) >= 30 and len(game.winners) == 1
True
>>> game.history[-1] == tuple(game.totals)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence

from hearts.cards import Card, CardSet
from hearts.errors import IllegalAction
from hearts.mechanics import MoonChoice, RoundResult
from hearts.round import Hand, Phase, Round, deal_hands, validate_deal
from hearts.rules import Rules


class GameOver(IllegalAction):
    """An action after the game has ended (R5.1)."""


class Game:
    """Rounds of Hearts until a player reaches ``rules.target`` (R5), the pass rotation
    continuing across rounds (R5.3).

    Deals come from an explicit list of ``deals`` (records, duplicate play) while it lasts, then
    from ``seed`` (reproducible); a new round is dealt as soon as the previous one is scored.
    """

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int | random.Random | None = None,
        *,
        deals: Iterable[Sequence[Hand]] | None = None,
    ) -> None:
        self.rules = rules or Rules()
        self._rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        self._deals: Iterator[Sequence[Hand]] | None = iter(deals) if deals is not None else None
        self.totals = [0] * self.rules.players
        self.rounds: list[Round] = []
        self.history: list[tuple[int, ...]] = []
        self.winners: tuple[int, ...] | None = None
        self._next_deal: list[int] | None = None
        self._deal_next()

    # --- state -----------------------------------------------------------------------------

    @property
    def round(self) -> Round:
        """The round being played (the last one once the game is over)."""
        return self.rounds[-1]

    @property
    def is_over(self) -> bool:
        """True once a player has reached the target with a single lowest total (R5.1, R5.2)."""
        return self.winners is not None

    @property
    def phase(self) -> Phase:
        """The current round's phase."""
        return self.round.phase

    @property
    def to_move(self) -> int | None:
        """The seat to act (``None`` while passing, which is simultaneous, or when over)."""
        return None if self.is_over else self.round.to_move

    @property
    def results(self) -> list[RoundResult]:
        """The results of the finished rounds."""
        return [r.result for r in self.rounds if r.result is not None]

    def legal_plays(self) -> CardSet:
        """The legal plays of the seat to move in the current round."""
        return self.round.legal_plays()

    # --- actions ---------------------------------------------------------------------------

    def pass_cards(self, seat: int, cards: Iterable[Card | int | str] | CardSet | str) -> None:
        """Pass for ``seat`` in the current round (R2)."""
        self._check_not_over(seat)
        self.round.pass_cards(seat, cards)

    def play(self, card: Card | int | str, seat: int | None = None) -> None:
        """Play for the seat to move in the current round (R3)."""
        self._check_not_over(seat)
        if self.round.cards_left == 1:
            self._prefetch_deal()  # a bad next deal is refused before this play changes anything
        self.round.play(card, seat)
        self._after_action()

    def choose_moon(self, seat: int, choice: MoonChoice) -> None:
        """The shooter's moon decision (R4.4, ``shooter_chooses``)."""
        self._check_not_over(seat)
        self._prefetch_deal()
        self.round.choose_moon(seat, choice)
        self._after_action()

    # --- internals -------------------------------------------------------------------------

    def _check_not_over(self, seat: int | None) -> None:
        if self.winners is not None:
            raise GameOver("the game is over", rule="R5.1", seat=seat, cards="act")

    def _after_action(self) -> None:
        result = self.round.result
        if result is None:
            return
        for s, points in enumerate(result.scores):
            self.totals[s] += points
        self.history.append(tuple(self.totals))
        winners = self.rules.game_winners(self.totals)
        if winners is not None:
            self.winners = winners
        else:
            self._deal_next()

    def _prefetch_deal(self) -> None:
        """Take and check the next round's deal (from ``deals``, else shuffled from the seed)."""
        if self._next_deal is not None:
            return
        hands = next(self._deals, None) if self._deals is not None else None
        if hands is None:
            self._next_deal = deal_hands(self.rules, self._rng)
        else:
            self._next_deal = validate_deal(self.rules, hands)

    def _deal_next(self) -> None:
        self._prefetch_deal()
        hands, self._next_deal = self._next_deal, None
        assert hands is not None
        self.rounds.append(
            Round(
                self.rules,
                hands,
                round_number=len(self.rounds),
                scores_before=tuple(self.totals),
            )
        )

    def __repr__(self) -> str:
        state = f"winners={self.winners}" if self.is_over else f"round={len(self.rounds) - 1}"
        return f"<Game {state} totals={self.totals}>"
