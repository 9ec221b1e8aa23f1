"""Helpers shared by the test modules: forced moon deals, random steps through a game, the
hold round's number and OpenSpiel's pass directions."""

from __future__ import annotations

import random
from typing import Any

from hearts import CardSet, Game, Phase, Round, Rules
from hearts.actions import Pass, Play
from hearts.cards import cards_of

# OpenSpiel's PassDir (0 none, 1 left, 2 across, 3 right) is our seat offset; the round number
# (mod 4) that gives that offset in the default 4-player rotation left, right, across, hold.
ROUND_OF_DIRECTION = {1: 0, 3: 1, 2: 2, 0: 3}

# A shooter's hand for each table size: the top cards of each suit it holds (R1.2 hand sizes),
# so it wins every trick once it follows with or leads its highest card.
SHOOTER_HANDS = {
    3: "AC KC QC JC TC AD KD QD JD AS KS QS JS AH KH QH JH",
    4: "AC KC QC JC AD KD QD AS KS QS AH KH QH",
    5: "AC AD AS KS QS AH KH QH JH TH",
    6: "AC AD AS KS QS AH KH QH",
}


def moon_deal(players: int, shooter: int) -> list[int]:
    """A deal in which ``shooter`` holds only top cards (R4.4 moon); the rest go round the
    other seats."""
    top = CardSet.parse(SHOOTER_HANDS[players]).mask
    rest = cards_of(Rules(players=players).deck_mask & ~top)
    others = [s for s in range(players) if s != shooter]
    hands = [0] * players
    hands[shooter] = top
    for i, c in enumerate(rest):
        hands[others[i % len(others)]] |= 1 << c
    return hands


def play_moon_round(game: Game, shooter: int) -> None:
    """Play the current round: the shooter plays its highest card, the others their lowest."""
    r = game.round
    while r.phase is Phase.PLAYING:
        legal = list(r.legal_plays())
        assert r.to_move is not None
        game.apply(Play(r.to_move, max(legal) if r.to_move == shooter else min(legal)))


def random_step(target: Game | Round, rng: random.Random) -> None:
    """One random action (a pass, a play or a moon choice) in a game or a single round."""
    r = target.round if isinstance(target, Game) else target
    seat = rng.choice(target.actors())
    if r.phase is Phase.PASSING:  # a random pass without listing every combination
        target.apply(Pass(seat, rng.sample(list(r.hand(seat)), r.rules.pass_count)))
    else:
        target.apply(rng.choice(list(target.legal_actions(seat))))


def round_state(r: Round) -> tuple[Any, ...]:
    """Everything observable about a round through its public API."""
    n = r.players
    return (
        r.rules,
        r.round_number,
        r.scores_before,
        r.pass_offset,
        r.phase,
        r.to_move,
        r.dealt,
        tuple(r.hand(s) for s in range(n)),
        tuple(r.passed(s) for s in range(n)),
        tuple(r.received(s) for s in range(n)),
        tuple(r.won_cards(s) for s in range(n)),
        r.plays,
        r.tricks,
        r.current_trick,
        r.tricks_won,
        r.points_taken,
        r.hearts_broken,
        r.legal_plays(),
        r.result,
    )


def hold_number(rules: Rules) -> int:
    """A round number in which nobody passes (R2.2), so play starts at once."""
    return next(i for i, offset in enumerate(rules.pass_offsets) if offset == 0)


DIRECTION_OF_STEP = [1, 3, 2, 0]
"""Our default rotation's pass step (left, right, across, hold) -> OpenSpiel's PassDir."""


def same_games(ours: Any, theirs: Any, passing: bool, games: int, seed: int, context: object = None) -> None:
    """R1–R4: ``games`` random rounds of our OpenSpiel game ``ours`` and OpenSpiel's ``hearts``
    ``theirs`` side by side: the same chance outcomes, players, legal actions and returns,
    decision by decision (``context`` is shown when they differ)."""
    rng = random.Random(seed)
    for _ in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        if passing:
            step = rng.randrange(4)
            a.apply_action(step)
            b.apply_action(DIRECTION_OF_STEP[step])
        else:
            b.apply_action(0)  # OpenSpiel's "no pass" direction; ours has no such node
        while not a.is_terminal():
            if a.is_chance_node():
                assert [o for o, _ in a.chance_outcomes()] == [o for o, _ in b.chance_outcomes()]
                action = rng.choice(a.chance_outcomes())[0]
            else:
                assert a.current_player() == b.current_player()
                assert a.legal_actions() == b.legal_actions(), context
                action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
        assert b.is_terminal() and a.returns() == b.returns(), context
