"""A whole game: rounds until someone reaches the target, lowest total wins (docs/rules.md R5).

Every front end drives a game the same way: ask who may act (:meth:`Game.actors`), what they may
do (:meth:`Game.legal_actions`), and :meth:`Game.apply` an :data:`~hearts.actions.Action`. The
accepted actions are the game's :attr:`~Game.history`; :meth:`Game.undo` takes the last one back.

>>> import random
>>> from hearts import Game, Rules
>>> game = Game(Rules(target=30), seed=1)
>>> rng = random.Random(1)
>>> while not game.is_over:
...     seat = game.actors()[0]
...     game.apply(rng.choice(list(game.legal_actions(seat))))
>>> max(game.totals) >= 30 and len(game.winners) == 1
True
>>> game.score_history[-1] == tuple(game.totals)
True
>>> last = game.undo()
>>> game.is_over, game.legal_actions(last.seat).__contains__(last)
(False, True)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final

from hearts.actions import Action
from hearts.errors import CardParseError, IllegalAction, RulesError
from hearts.mechanics import RoundResult
from hearts.round import (
    Hand,
    LegalActions,
    LegalPasses,
    Phase,
    Round,
    check_scores,
    check_seed,
    deal_hands,
    validate_deal,
)
from hearts.rules import Rules

MAX_DIGITS: Final = 100
"""A game's seed and starting totals have at most this many decimal digits, so that a record
can write them as JSON numbers and read them back (Python refuses to convert integers of
more than 4,300 digits)."""


class GameOver(IllegalAction):
    """An action after the game has ended (R5.1)."""


class Game:
    """Rounds of Hearts until a player reaches ``rules.target`` (R5), the pass rotation
    continuing across rounds (R5.3).

    Every round's deal is shuffled from ``seed`` (an ``int``; ``None`` draws one, kept in
    :attr:`seed` so the game can be replayed), unless an explicit deal is given for it in
    ``deals`` (records, duplicate play, puzzles); an explicit deal still takes its turn of the
    seed's stream, so the later rounds are the seed's whether or not earlier ones were given.
    Every explicit deal is checked up front (R1.2). ``scores`` starts the game from given totals.
    """

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int | random.Random | None = None,
        *,
        deals: Iterable[Sequence[Hand]] | None = None,
        scores: Sequence[int] | None = None,
    ) -> None:
        if rules is not None and not isinstance(rules, Rules):
            raise RulesError(f"R6: rules must be a Rules value, not {rules!r:.60}")
        self.rules = rules = rules or Rules()
        seed = check_seed(seed)
        _check_digits(seed, "R1.3: a game's seed")
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 63)
        self.seed: int | None = seed if isinstance(seed, int) else None
        """The seed the deals are shuffled from (``None`` when a ``random.Random`` was given)."""
        self._rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        if deals is not None and (isinstance(deals, (str, bytes)) or not isinstance(deals, Iterable)):
            raise CardParseError(f"R1.2: deals is a list of deals, one per round, not {deals!r:.60}")
        self._deals = [validate_deal(rules, hands) for hands in deals] if deals is not None else []
        self.totals = list(check_scores(rules, scores) or (0,) * rules.players)
        for total in self.totals:
            _check_digits(total, "R5: a starting total")
        self.start_scores = tuple(self.totals)
        """The totals the game started from (R5; usually all 0)."""
        self.rounds: list[Round] = []
        self.score_history: list[tuple[int, ...]] = []
        """The totals after each finished round."""
        self.winners: tuple[int, ...] | None = None
        self._history: list[Action] = []
        self._round_starts: list[int] = []  # the index in history where each round begins
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

    @property
    def history(self) -> tuple[Action, ...]:
        """Every accepted action, in order (the game is what replaying them gives)."""
        return tuple(self._history)

    @property
    def ply(self) -> int:
        """How many actions the game has accepted: ``len(game.history)`` without copying it.

        >>> from hearts import Rules
        >>> game = Game(Rules(), seed=1)
        >>> game.ply, game.ply == len(game.history)
        (0, True)
        """
        return len(self._history)

    @property
    def round_starts(self) -> tuple[int, ...]:
        """For each round, how many actions of :attr:`history` came before it."""
        return tuple(self._round_starts)

    def actors(self) -> tuple[int, ...]:
        """The seats that may act now (several while passing, R2.1; none once the game is over)."""
        return () if self.winners is not None else self.round.actors()

    def legal_actions(self, seat: int) -> LegalActions | LegalPasses:
        """What ``seat`` may do now (:meth:`Round.legal_actions`): iterate it; ``in`` is the
        legality test."""
        return self.round.legal_actions(seat)

    # --- actions ---------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply one action (R2–R5); a refused one raises an
        :class:`~hearts.errors.IllegalAction` subclass and changes nothing.

        A round's last play (or its moon choice) scores it and deals the next round.
        """
        if self.winners is not None:
            raise GameOver("the game is over", rule="R5.1", seat=getattr(action, "seat", None), cards="act")
        r = self.round
        if r.cards_left <= 1 and self._next_deal is None:
            # Take the next deal before the round ends, so its end cannot fail; a refused
            # action puts the shuffle back, so it changes nothing, hidden state included.
            rng_state = self._rng.getstate()
            self._prefetch_deal()
            try:
                r.apply(action)
            except Exception:
                self._rng.setstate(rng_state)
                self._next_deal = None
                raise
        else:
            r.apply(action)
        self._history.append(action)
        if r.is_over:
            self._score_round()

    def undo(self) -> Action:
        """Take back the last action and return it (R5: across a round's end, too).

        >>> game = Game(seed=2)
        >>> game.undo()
        Traceback (most recent call last):
        ...
        hearts.errors.IllegalAction: R5: the player may not undo: no action has been played
        """
        if not self._history:
            raise IllegalAction("no action has been played", rule="R5", cards="undo")
        if self.winners is None and self._round_starts[-1] == len(self._history) and len(self.rounds) > 1:
            self._next_deal = [h.mask for h in self.rounds.pop().dealt]  # dealt again, as it was
            self._round_starts.pop()
        if self.round.is_over:
            self.score_history.pop()
            self.totals = list(self.score_history[-1] if self.score_history else self.start_scores)
            self.winners = None
        action = self._history.pop()
        r = self.round
        rebuilt = Round(self.rules, r.dealt, round_number=r.round_number, scores_before=r.scores_before)
        for earlier in self._history[self._round_starts[-1] :]:
            rebuilt.apply(earlier)
        self.rounds[-1] = rebuilt
        return action

    # --- internals -------------------------------------------------------------------------

    def _score_round(self) -> None:
        result = self.round.result
        assert result is not None
        for s, points in enumerate(result.scores):
            self.totals[s] += points
        self.score_history.append(tuple(self.totals))
        winners = self.rules.game_winners(self.totals)
        if winners is not None:
            self.winners = winners
        else:
            self._deal_next()

    def _prefetch_deal(self) -> None:
        """Take the next round's deal: shuffled from the seed, or the explicit one for it."""
        if self._next_deal is not None:
            return
        shuffled = deal_hands(self.rules, self._rng)
        k = len(self.rounds)
        self._next_deal = self._deals[k] if k < len(self._deals) else shuffled

    def _deal_next(self) -> None:
        self._prefetch_deal()
        hands, self._next_deal = self._next_deal, None
        assert hands is not None
        self._round_starts.append(len(self._history))
        self.rounds.append(
            Round(self.rules, hands, round_number=len(self.rounds), scores_before=tuple(self.totals))
        )

    def __repr__(self) -> str:
        state = f"winners={self.winners}" if self.is_over else f"round={len(self.rounds) - 1}"
        return f"<Game {state} totals={self.totals}>"


def _check_digits(value: object, what: str) -> None:
    """Refuse an ``int`` of more than :data:`MAX_DIGITS` digits (a :class:`RulesError`).

    >>> _check_digits(10**5000, "R1.3: a game's seed")
    Traceback (most recent call last):
    ...
    hearts.errors.RulesError: R1.3: a game's seed has at most 100 digits, not 5001
    """
    if isinstance(value, int) and abs(value) >= 10**MAX_DIGITS:
        digits = int(abs(value).bit_length() * 0.30102999566398) + 1
        if abs(value) < 10 ** (digits - 1):
            digits -= 1
        raise RulesError(f"{what} has at most {MAX_DIGITS} digits, not {digits}")
