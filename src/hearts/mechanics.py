"""The mask-level mechanics of Hearts: legal plays, the trick's winner and a round's score.

These are the rules of R3 and R4 as functions on 52-bit card masks (bit *i* is card *i*). The
:class:`~hearts.round.Round` and the rollout kernel both decide with them, so they play exactly
the same rules.

>>> from hearts.cards import CardSet, SUIT_MASKS
>>> from hearts.rules import Rules
>>> cfg = LegalConfig(Rules())
>>> hand = CardSet.parse("2C 5C KH QS").mask
>>> CardSet.from_mask(legal_mask(hand, -1, True, False, cfg))  # R3.1: the 2♣ leads
CardSet.parse('2C')
>>> CardSet.from_mask(legal_mask(hand, 0, False, False, cfg))  # R3.2: follow clubs
CardSet.parse('2C 5C')
>>> trick_winner_offset([CardSet.parse(c).mask.bit_length() - 1 for c in ("5C", "AH", "9C")])
2
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from hearts.cards import CLUBS_MASK, HEARTS_MASK, JD, POINTS_MASK, QS_MASK, SUIT_MASKS
from hearts.rules import Rules

MoonChoice = Literal["add", "subtract"]
"""The shooter's decision under ``moon="shooter_chooses"`` (R4.4)."""
MOON_CHOICES: Final = ("add", "subtract")


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The outcome of a round (R4): points taken, bonuses, the moon and the round's scores."""

    points: tuple[int, ...]
    """Penalty points taken (the hearts and the Q♠, R4.1; the K♠ and A♠ too under R4.5)."""
    scores: tuple[int, ...]
    """What each seat adds to its total: points, bonuses and the moon applied (R4.2–R4.4)."""
    tricks_won: tuple[int, ...]
    shooter: int | None
    moon_choice: MoonChoice | None


class LegalConfig:
    """The rule options that decide legal plays, flattened for :func:`legal_mask`."""

    __slots__ = (
        "any_club",
        "breaks_mask",
        "lead_hearts_instead",
        "lead_restrict",
        "lowest_club_bit",
        "must_break",
        "no_points_first",
        "penalty",
        "queen_after_break",
        "queen_breaks",
    )

    def __init__(self, rules: Rules) -> None:
        self.lowest_club_bit = 1 << rules.lowest_club
        self.any_club = rules.first_lead == "any_club"
        self.no_points_first = not rules.points_on_first_trick
        self.must_break = rules.must_break_hearts
        self.lead_restrict = (HEARTS_MASK if rules.must_break_hearts else 0) | (
            QS_MASK if rules.queen_lead == "after_break" else 0
        )
        self.lead_hearts_instead = rules.lead_hearts_instead_of_queen
        self.queen_breaks = rules.queen_breaks_hearts
        self.breaks_mask = HEARTS_MASK | (QS_MASK if rules.queen_breaks_hearts else 0)
        """The cards whose play breaks hearts (R3.5)."""
        self.queen_after_break = rules.queen_lead == "after_break"
        self.penalty = rules.penalty_mask
        """The penalty cards (R4.1, R4.5), which the rollouts score and a moon takes (R4.4)."""


def legal_mask(hand: int, led: int, first: bool, broken: bool, cfg: LegalConfig) -> int:
    """The mask of legal plays from ``hand`` (R3); ``led`` is the suit led or -1 to lead.

    This one function decides legality for the :class:`Round` and the rollout kernel alike.
    """
    if led >= 0:
        follow = hand & SUIT_MASKS[led]  # R3.2
        if follow:
            return follow
        if first and cfg.no_points_first:  # R3.3 and its all-points exception
            safe = hand & ~POINTS_MASK
            if safe:
                return safe
        return hand
    if first:  # R3.1
        return hand & CLUBS_MASK if cfg.any_club else cfg.lowest_club_bit
    restrict = cfg.lead_restrict
    if broken or not restrict:
        return hand
    allowed = hand & ~restrict  # R3.4, R3.6
    if allowed:
        if allowed == QS_MASK and hand & HEARTS_MASK and cfg.lead_hearts_instead and cfg.must_break:
            return hand  # R3.7 option: hearts may be led instead of the Q♠
        if not cfg.must_break and not hand & ~POINTS_MASK:
            return hand  # R3.6: only hearts and the Q♠ (hearts free to lead, R3.4 off): the Q♠ too
        return allowed
    if (
        hand & QS_MASK
        and hand & HEARTS_MASK
        and cfg.must_break
        and not cfg.lead_hearts_instead
        and not cfg.queen_after_break
    ):
        return QS_MASK  # R3.7 (queen_lead = anytime): only hearts and the Q♠ left, hearts unbroken
    return hand  # R3.4, R3.6: nothing but point cards (after_break: any of them)


def trick_winner_offset(cards: Sequence[int]) -> int:
    """Index in ``cards`` of the highest card of the suit led (R3.8)."""
    best = cards[0]
    led = best & 3
    for c in cards:
        if c > best and c & 3 == led:
            best = c
    return cards.index(best)


def score_round(
    won: Sequence[int],
    tricks_won: Sequence[int],
    rules: Rules,
    scores_before: Sequence[int],
    choice: MoonChoice | None = None,
) -> RoundResult:
    """Score a finished round (R4) from the cards each seat won. A shooter takes every penalty
    card (:attr:`Rules.penalty_mask <hearts.rules.Rules.penalty_mask>`), and the moon is worth
    the round's points (:attr:`Rules.round_points <hearts.rules.Rules.round_points>`, R4.4, R4.5).

    ``choice`` is the shooter's decision under ``moon="shooter_chooses"``; it is ignored for
    the other variants, which decide by themselves.
    """
    n = len(won)
    points = tuple([rules.points(w) for w in won])
    jd_bonus = rules.jack_of_diamonds
    jd = [jd_bonus if w >> JD & 1 else 0 for w in won]  # R4.2
    shooter = None
    penalty, moon = rules.penalty_mask, rules.round_points
    for s in range(n):
        if won[s] & penalty == penalty:
            shooter = s
            break
    if shooter is None:
        bonus = rules.no_tricks_bonus  # R4.3
        scores = tuple([points[s] + jd[s] + (bonus if tricks_won[s] == 0 else 0) for s in range(n)])
        return RoundResult(points, scores, tuple(tricks_won), None, None)
    add = tuple((0 if s == shooter else moon) + jd[s] for s in range(n))  # R4.4
    subtract = tuple((-moon if s == shooter else 0) + jd[s] for s in range(n))
    if rules.moon == "add_to_others":
        choice = "add"
    elif rules.moon == "subtract_from_self":
        choice = "subtract"
    elif rules.moon == "add_unless_losing":
        # R4.4: subtract instead when adding would end the game with the shooter not winning.
        winners = rules.game_winners([b + a for b, a in zip(scores_before, add, strict=True)])
        choice = "subtract" if winners is not None and shooter not in winners else "add"
    elif choice not in MOON_CHOICES:
        raise ValueError(f"the shooter must choose 'add' or 'subtract', not {choice!r}")
    return RoundResult(points, add if choice == "add" else subtract, tuple(tricks_won), shooter, choice)


