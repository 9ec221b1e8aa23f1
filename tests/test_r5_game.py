"""The game (the rule book R5): the target, the lowest total wins, ties, pass rotation across rounds."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from helpers import moon_deal, play_moon_round
from helpers import random_step as step

from hearts import Game, GameOver, IllegalAction, Phase, Round, Rules
from hearts.actions import Moon, Pass, Play

# --- helpers -------------------------------------------------------------------------------

def play_game(game: Game, rng: random.Random, max_actions: int = 100_000) -> None:
    for _ in range(max_actions):
        if game.is_over:
            return
        step(game, rng)
    raise AssertionError("the game did not end")


def check_game_invariants(game: Game) -> None:
    """R5.1/R5.2 checked on a finished game, independently of Rules.game_winners."""
    rules = game.rules
    n = rules.players
    assert game.is_over and game.winners is not None
    assert len(game.score_history) == len(game.rounds) == len(game.results)
    running = [0] * n
    for k, res in enumerate(game.results):
        running = [t + s for t, s in zip(running, res.scores, strict=True)]
        assert game.score_history[k] == tuple(running)
        assert game.rounds[k].scores_before == (tuple(game.score_history[k - 1]) if k else (0,) * n)
        low = min(running)
        lowest = [s for s in range(n) if running[s] == low]
        ended = max(running) >= rules.target and (len(lowest) == 1 or rules.ties == "share")
        assert ended == (k == len(game.results) - 1), (k, running)
    assert game.totals == list(game.score_history[-1])
    assert max(game.totals) >= rules.target
    assert game.winners == tuple(s for s in range(n) if game.totals[s] == min(game.totals))
    if rules.ties == "play_on":
        assert len(game.winners) == 1


# --- R5.1 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r5_1_game_ends_at_target_lowest_wins(players: int) -> None:
    """R5.1: reaching the target exactly ends the game; the lowest total wins."""
    rules = Rules(players=players, pass_count=0, target=26)
    game = Game(rules, seed=0, deals=[moon_deal(players, 1)])
    play_moon_round(game, 1)
    assert game.is_over
    assert game.totals == [0 if s == 1 else 26 for s in range(players)]
    assert game.winners == (1,)
    assert len(game.rounds) == 1  # no new round is dealt after the end
    assert game.to_move is None


def test_r5_1_below_target_goes_on() -> None:
    """R5.1: below the target (27 > 26) the game deals a new round with the totals carried."""
    rules = Rules(pass_count=0, target=27)
    game = Game(rules, seed=0, deals=[moon_deal(4, 2), moon_deal(4, 2)])
    play_moon_round(game, 2)
    assert not game.is_over and game.winners is None
    assert game.totals == [26, 26, 0, 26]
    assert len(game.rounds) == 2
    assert game.round.round_number == 1
    assert game.round.scores_before == (26, 26, 0, 26)
    play_moon_round(game, 2)
    assert game.is_over and game.winners == (2,)
    assert game.totals == [52, 52, 0, 52]
    assert game.score_history == [(26, 26, 0, 26), (52, 52, 0, 52)]


def test_r5_1_lowest_wins_not_the_one_reaching_target() -> None:
    """R5.1: the game ends when a seat reaches the target, and the lowest total wins (not the
    seat that reached it). With subtract_from_self the shooter goes down, the others stay."""
    rules = Rules(pass_count=0, target=30)
    game = Game(rules, seed=0, deals=[moon_deal(4, 0)])
    play_moon_round(game, 0)
    assert game.totals == [0, 26, 26, 26] and not game.is_over
    # Finish with random play: whatever happens, the invariants of R5 hold at the end.
    play_game(game, random.Random(3))
    check_game_invariants(game)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("ties", ["play_on", "share"])
def test_r5_1_random_games_complete(players: int, ties: str) -> None:
    """R5.1/R5.2 with 3-6 players: random games end, with the lowest total(s) winning, every
    earlier round not ending the game, and the history the running sum of the round scores."""
    for seed in range(3):
        rules = Rules(players=players, target=60, ties=ties, moon="shooter_chooses")  # type: ignore[arg-type]
        game = Game(rules, seed=seed)
        play_game(game, random.Random(seed))
        check_game_invariants(game)


# --- R5.2 ----------------------------------------------------------------------------------


def test_r5_2_game_winners_unit() -> None:
    """R5.2: Rules.game_winners on totals; ties play on by default, are shared with ties=share."""
    assert Rules().game_winners([10, 20, 30, 99]) is None
    assert Rules().game_winners([10, 20, 30, 100]) == (0,)
    assert Rules().game_winners([10, 10, 30, 100]) is None
    assert Rules(ties="share").game_winners([10, 10, 30, 100]) == (0, 1)
    assert Rules(ties="share").game_winners([100, 100, 100, 100]) == (0, 1, 2, 3)
    assert Rules().game_winners([100, 100, 100, 100]) is None
    assert Rules(players=5, target=50).game_winners([60, 3, 3, 3, 2]) == (4,)
    assert Rules(players=6, ties="share").game_winners([-5, 120, -5, 0, 7, 9]) == (0, 2)


def test_r5_2_tie_for_lowest_plays_on() -> None:
    """R5.2 play_on: the target is reached (52 >= 50) with seats 0 and 1 tied lowest at 26: the
    game goes on to another round, until there is a single lowest."""
    rules = Rules(pass_count=0, target=50)
    game = Game(rules, seed=0, deals=[moon_deal(4, 0), moon_deal(4, 1), moon_deal(4, 0)])
    play_moon_round(game, 0)
    play_moon_round(game, 1)
    assert game.totals == [26, 26, 52, 52]
    assert not game.is_over and game.winners is None
    assert len(game.rounds) == 3 and game.round.phase is Phase.PLAYING
    play_moon_round(game, 0)
    assert game.totals == [26, 52, 78, 78]
    assert game.is_over and game.winners == (0,)


def test_r5_2_tie_for_lowest_shared() -> None:
    """R5.2 ties=share: the same totals end the game with both lowest seats winning."""
    rules = Rules(pass_count=0, target=50, ties="share")
    game = Game(rules, seed=0, deals=[moon_deal(4, 0), moon_deal(4, 1), moon_deal(4, 0)])
    play_moon_round(game, 0)
    play_moon_round(game, 1)
    assert game.totals == [26, 26, 52, 52]
    assert game.is_over and game.winners == (0, 1)
    assert len(game.rounds) == 2


def _random_games(rules: Rules, seeds: Sequence[int]) -> list[Game]:
    games = []
    for seed in seeds:
        game = Game(rules, seed=seed)
        play_game(game, random.Random(seed))
        games.append(game)
    return games


def test_r5_2_play_on_found_by_search() -> None:
    """R5.2 play_on by random play (fixed seeds): some game reaches the target with a tie for
    the lowest total and goes on; every game ends with a single winner."""
    rules = Rules(target=12)
    continued = 0
    for game in _random_games(rules, range(60)):
        check_game_invariants(game)
        for k, totals in enumerate(game.score_history[:-1]):
            low = min(totals)
            if max(totals) >= rules.target and list(totals).count(low) > 1:
                continued += 1
                assert len(game.rounds) > k + 1
    assert continued > 0


def test_r5_2_share_found_by_search() -> None:
    """R5.2 ties=share by random play (fixed seeds): some game ends with several winners."""
    rules = Rules(target=12, ties="share")
    shared = [g for g in _random_games(rules, range(60)) if g.winners is not None and len(g.winners) > 1]
    assert shared
    for game in shared:
        check_game_invariants(game)
        low = min(game.totals)
        assert game.winners == tuple(s for s, t in enumerate(game.totals) if t == low)


# --- R5.3 / R2.2 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "cycle", "offsets"),
    [
        (4, None, [1, 3, 2, 0]),
        (3, None, [1, 2, 0]),
        (5, None, [1, 4, 0]),
        (6, None, [1, 5, 3, 0]),
        (4, ("across", "hold", 1), [2, 0, 1]),
    ],
)
def test_r5_3_pass_rotation_across_rounds(
    players: int, cycle: tuple[str | int, ...] | None, offsets: list[int]
) -> None:
    """R5.3/R2.2: round k passes with rules.pass_offset(k); the rotation runs through the whole
    game; the received cards come from the seat `offset` places to the right."""
    rules = Rules(players=players, pass_cycle=cycle, target=80)
    game = Game(rules, seed=11)
    rng = random.Random(11)
    checked = set()
    exchanges = 0
    while not game.is_over:
        r = game.round
        k = r.round_number
        assert k == len(game.rounds) - 1
        if k not in checked:
            checked.add(k)
            assert r.pass_offset == rules.pass_offset(k) == offsets[k % len(offsets)]
            assert r.phase is (Phase.PASSING if r.pass_offset else Phase.PLAYING)
        if r.phase is Phase.PLAYING and r.tricks_played == 0 and not r.current_trick.cards and r.pass_offset:
            exchanges += 1
            for s in range(players):
                giver = (s - r.pass_offset) % players
                assert r.received(s) == r.passed(giver)
                assert r.pass_target(giver) == s
                passed = r.passed(s)
                assert passed is not None and len(passed) == rules.pass_count
                assert r.hand(s) == (r.dealt[s] - passed) | r.passed(giver)  # type: ignore[operator]
        step(game, rng)
    assert len(checked) > len(offsets), "the game was too short to see the rotation wrap"
    assert exchanges >= sum(1 for k in checked if rules.pass_offset(k))


def test_r5_3_hold_round_has_no_pass() -> None:
    """R2.2: in a hold round (4 players, round 3) nobody passes and play starts at once."""
    r = Round.deal(Rules(), seed=5, round_number=3)
    assert r.pass_offset == 0 and r.phase is Phase.PLAYING
    assert r.seats_to_pass() == ()
    with pytest.raises(IllegalAction):
        r.pass_cards(0, list(r.hand(0))[:3])


# --- acting after the end ------------------------------------------------------------------


def test_r5_1_acting_after_game_over_raises() -> None:
    """R5.1: once the game is over every action raises GameOver and changes nothing."""
    rules = Rules(pass_count=0, target=26, moon="shooter_chooses")
    game = Game(rules, seed=0, deals=[moon_deal(4, 1)])
    play_moon_round(game, 1)
    game.apply(Moon(1, "add"))
    assert game.is_over
    before = (list(game.totals), list(game.score_history), len(game.rounds), game.winners)
    with pytest.raises(GameOver):
        game.apply(Play(0, 0))
    with pytest.raises(GameOver):
        game.apply(Pass(0, ["2C", "3C", "4C"]))
    with pytest.raises(GameOver):
        game.apply(Moon(1, "subtract"))
    assert issubclass(GameOver, IllegalAction) and issubclass(GameOver, ValueError)
    assert (list(game.totals), list(game.score_history), len(game.rounds), game.winners) == before


def test_r5_1_acting_after_random_game_over_raises() -> None:
    """R5.1 with random play: after the end, a play of any card raises GameOver."""
    game = Game(Rules(players=5, target=40), seed=8)
    play_game(game, random.Random(8))
    check_game_invariants(game)
    for card in range(52):
        with pytest.raises(GameOver):
            game.apply(Play(0, card))
