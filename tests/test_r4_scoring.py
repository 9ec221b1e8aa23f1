"""Scoring a round (the rule book R4): points, the J♦ bonus, the no-trick bonus and the moon variants.

Scoring is checked twice: directly through :func:`hearts.mechanics.score_round` with hand-built won
cards, and through play, with deals built so that one seat is forced to shoot the moon (it holds
the top cards of every suit it holds, so it wins every trick it can play to).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

import pytest
from helpers import moon_deal

from hearts import Card, CardSet, Game, IllegalMoonChoice, IllegalPlay, Phase, Round, Rules
from hearts.actions import Moon, Play
from hearts.cards import CARDS, HEARTS, QUEEN_OF_SPADES, cards_of
from hearts.mechanics import score_round

# --- helpers -------------------------------------------------------------------------------


def mask(text: str) -> int:
    return CardSet.parse(text).mask


def deck_cards(players: int) -> list[Card]:
    return cards_of(Rules(players=players).deck_mask)


def points_of(cards: Sequence[Card]) -> int:
    """R4.1 computed independently of the engine: 1 a heart, 13 the Q♠."""
    return sum(1 for c in cards if c.suit == HEARTS) + sum(13 for c in cards if c == QUEEN_OF_SPADES)


# 4 players: seat 2 wins the first trick (A♣) with the J♦ discarded to it by seat 3; seat 0 then
# wins every other trick, so it shoots the moon while seat 2 takes the J♦ (R4.2 with R4.4).
JD_ELSEWHERE_DEAL = [
    mask("3C AD KD QD AS KS QS AH KH QH JH TH 9H"),
    mask("2C 4C 5C 6C 7C 8C 9C TC JC QC KC 5S 6S"),
    mask("AC 2D 3D 4D 5D 6D 7D 8D 9D TD 2S 3S 4S"),
    mask("JD 7S 8S 9S TS JS 2H 3H 4H 5H 6H 7H 8H"),
]


def choose(r: Round, shooter: int | None, prefer: Collection[int] = ()) -> Card:
    """The scripted policy: a preferred card if legal, the shooter its highest, others their lowest."""
    legal = list(r.legal_plays())
    for c in legal:
        if c in prefer:
            return c
    return max(legal) if r.to_move == shooter else min(legal)


def play_round(r: Round, shooter: int | None, prefer: Collection[int] = ()) -> None:
    while r.phase is Phase.PLAYING:
        r.play(choose(r, shooter, prefer))


def play_game_round(game: Game, shooter: int | None, prefer: Collection[int] = ()) -> None:
    """Play the game's current round (no pass in these rules) up to its end or moon decision."""
    r = game.round
    while r.phase is Phase.PLAYING:
        game.apply(Play(game.to_move, choose(r, shooter, prefer)))


def random_play(r: Round, rng: random.Random) -> None:
    while r.phase is Phase.PASSING:
        for s in r.seats_to_pass():
            r.pass_cards(s, rng.sample(list(r.hand(s)), r.rules.pass_count))
    while r.phase is Phase.PLAYING:
        r.play(rng.choice(list(r.legal_plays())))
    if r.phase is Phase.MOON_CHOICE:
        assert r.to_move is not None
        r.choose_moon(r.to_move, "add")


JD = Card.parse("JD")


# --- R4.1 ----------------------------------------------------------------------------------


def test_r4_1_hearts_one_point_queen_thirteen() -> None:
    """R4.1: each heart 1, the Q♠ 13, the others 0; scores equal points with default options."""
    won = [
        mask("2H 3H 4H 5H 6H QS 2C 3C"),
        mask("7H 8H 9H AS KS 4C"),
        mask("TH JH QH KH AH JD 5C"),
        0,
    ]
    res = score_round(won, [2, 2, 2, 0], Rules(), [0, 0, 0, 0])
    assert res.points == (18, 3, 5, 0)
    assert res.scores == (18, 3, 5, 0)
    assert res.shooter is None and res.moon_choice is None
    assert res.tricks_won == (2, 2, 2, 0)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r4_1_round_holds_26_points_any_table(players: int) -> None:
    """R4.1 with R1.2: every deck holds all hearts and the Q♠, so a round is worth 26."""
    deck = deck_cards(players)
    assert points_of(deck) == 26
    won = [0] * players
    for i, c in enumerate(deck):  # spread the deck so nobody takes every point card
        won[i % players] |= 1 << c
    res = score_round(won, [1] * players, Rules(players=players), [0] * players)
    assert res.points == tuple(points_of(cards_of(w)) for w in won)
    assert sum(res.points) == 26
    assert res.shooter is None


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r4_1_points_through_random_play(players: int) -> None:
    """R4.1: after real play, each seat's points are its hearts plus 13 for the Q♠; 26 in all."""
    for seed in range(5):
        r = Round.deal(Rules(players=players), seed=seed)
        random_play(r, random.Random(seed))
        assert r.result is not None
        expected = tuple(points_of(list(r.won_cards(s))) for s in range(players))
        assert r.result.points == expected
        assert r.points_taken == expected
        assert sum(expected) == 26
        if r.result.shooter is None:
            assert r.result.scores == expected


# --- R4.2 ----------------------------------------------------------------------------------


def test_r4_2_jack_of_diamonds_bonus_to_taker() -> None:
    """R4.2: with jack_of_diamonds=-10, the seat that took the J♦ gets -10 on top of its points."""
    won = [mask("2H 3H JD 2C"), mask("QS 4H 3C"), mask("4C 5C"), mask("5H 6H 7H 8H 9H TH JH QH KH AH")]
    tricks = [1, 1, 1, 1]
    assert score_round(won, tricks, Rules(), [0] * 4).scores == (2, 14, 0, 10)  # default 0
    res = score_round(won, tricks, Rules(jack_of_diamonds=-10), [0] * 4)
    assert res.points == (2, 14, 0, 10)
    assert res.scores == (-8, 14, 0, 10)
    res = score_round(won, tricks, Rules(jack_of_diamonds=5), [0] * 4)
    assert res.scores == (7, 14, 0, 10)


def test_r4_2_omnibus_preset_is_minus_ten() -> None:
    """R4.2/R6: the omnibus preset gives the J♦ taker -10."""
    won = [mask("JD"), mask("QS"), mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"), 0]
    res = score_round(won, [1, 1, 1, 0], Rules.preset("omnibus"), [0] * 4)
    assert res.scores == (-10, 13, 13, 0)


@pytest.mark.parametrize("moon", ["add_to_others", "subtract_from_self"])
def test_r4_2_jack_of_diamonds_in_moon_round_other_seat(moon: str) -> None:
    """R4.2 with R4.4: the J♦ bonus still goes to whoever took the J♦ when another seat shoots."""
    all_points = mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS")
    won = [all_points, mask("JD 2C 3C 4C"), 0, mask("5C")]
    res = score_round(won, [3, 1, 0, 1], Rules(jack_of_diamonds=-10, moon=moon), [0] * 4)  # type: ignore[arg-type]
    assert res.shooter == 0
    if moon == "add_to_others":
        assert res.scores == (0, 16, 26, 26)
    else:
        assert res.scores == (-26, -10, 0, 0)


@pytest.mark.parametrize("moon", ["add_to_others", "subtract_from_self"])
def test_r4_2_jack_of_diamonds_to_the_shooter(moon: str) -> None:
    """R4.2 with R4.4: a shooter that also took the J♦ gets the bonus on top of its moon score."""
    won = [mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS JD"), mask("2C"), mask("3C"), mask("4C")]
    res = score_round(won, [10, 1, 1, 1], Rules(jack_of_diamonds=-10, moon=moon), [0] * 4)  # type: ignore[arg-type]
    assert res.shooter == 0
    assert res.scores == ((-10, 26, 26, 26) if moon == "add_to_others" else (-36, 0, 0, 0))


@pytest.mark.parametrize("moon", ["add_to_others", "subtract_from_self"])
def test_r4_2_jack_of_diamonds_through_play_in_moon_round(moon: str) -> None:
    """R4.2 with R4.4, by play: seat 2 takes the J♦ on trick 1, seat 0 shoots the moon after."""
    rules = Rules(pass_count=0, jack_of_diamonds=-10, no_tricks_bonus=-5, moon=moon)  # type: ignore[arg-type]
    r = Round(rules, JD_ELSEWHERE_DEAL)
    play_round(r, shooter=0, prefer={JD})
    assert r.result is not None
    assert r.tricks[0].winner == 2 and JD in r.tricks[0].cards
    assert JD in r.won_cards(2)
    assert r.result.shooter == 0
    assert r.result.tricks_won == (12, 0, 1, 0)
    # R4.3: seats 1 and 3 took no trick, but no bonus in a moon round.
    if moon == "add_to_others":
        assert r.result.scores == (0, 26, 16, 26)
    else:
        assert r.result.scores == (-26, 0, -10, 0)


# --- R4.3 ----------------------------------------------------------------------------------


def test_r4_3_no_tricks_bonus_each_seat_without_a_trick() -> None:
    """R4.3: no_tricks_bonus=-5 for each seat that took no trick, nothing for the others."""
    won = [mask("2H 3H QS 2C 3C 4C 5C"), mask("4H 5H 6H 7H 8H 9H TH JH QH KH AH 6C 7C 8C"), 0, 0]
    tricks = [2, 3, 0, 0]
    assert score_round(won, tricks, Rules(), [0] * 4).scores == (15, 11, 0, 0)
    res = score_round(won, tricks, Rules(no_tricks_bonus=-5), [0] * 4)
    assert res.scores == (15, 11, -5, -5)
    res = score_round(won, tricks, Rules(no_tricks_bonus=-5, jack_of_diamonds=-10), [0] * 4)
    assert res.scores == (15, 11, -5, -5)  # the J♦ was not taken by anyone here


@pytest.mark.parametrize("moon", ["add_to_others", "subtract_from_self", "add_unless_losing"])
def test_r4_3_no_tricks_bonus_not_in_moon_round(moon: str) -> None:
    """R4.3: the no-trick bonus does not apply in a round where someone shot the moon."""
    won = [mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS 2C"), 0, 0, mask("3C 4C")]
    res = score_round(won, [12, 0, 0, 1], Rules(no_tricks_bonus=-5, moon=moon), [0] * 4)  # type: ignore[arg-type]
    assert res.shooter == 0
    assert res.scores == ((0, 26, 26, 26) if res.moon_choice == "add" else (-26, 0, 0, 0))


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r4_3_no_tricks_bonus_through_play(players: int) -> None:
    """R4.3 by play: scores = points + bonus for each seat with no trick (when nobody shoots)."""
    rules = Rules(players=players, no_tricks_bonus=-5)
    seen_bonus = False
    for seed in [*range(10), 54, 67]:  # 54 and 67: a 3-player round with a trickless seat
        r = Round.deal(rules, seed=seed)
        random_play(r, random.Random(seed))
        assert r.result is not None
        if r.result.shooter is not None:
            continue
        expected = tuple(r.result.points[s] + (-5 if r.tricks_won[s] == 0 else 0) for s in range(players))
        assert r.result.scores == expected
        seen_bonus |= 0 in r.tricks_won
    assert seen_bonus, "no seat went without a trick in these seeds; pick others"


# --- R4.4: the moon through score_round ----------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("shooter", [0, 1, 2])
def test_r4_4_add_to_others(players: int, shooter: int) -> None:
    """R4.4 add_to_others (default): the shooter scores 0, every other player +26."""
    won = [0] * players
    won[shooter] = Rules(players=players).deck_mask
    res = score_round(won, [0] * players, Rules(players=players), [0] * players)
    assert res.shooter == shooter and res.moon_choice == "add"
    assert res.points[shooter] == 26
    assert res.scores == tuple(0 if s == shooter else 26 for s in range(players))
    assert sum(res.scores) == 26 * (players - 1)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r4_4_subtract_from_self(players: int) -> None:
    """R4.4 subtract_from_self: the shooter scores -26, the others 0."""
    shooter = players - 1
    won = [0] * players
    won[shooter] = mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS")
    won[0] |= mask("AC")
    res = score_round(won, [1] * players, Rules(players=players, moon="subtract_from_self"), [0] * players)
    assert res.shooter == shooter and res.moon_choice == "subtract"
    assert res.scores == tuple(-26 if s == shooter else 0 for s in range(players))


def test_r4_4_not_a_moon_without_queen_or_one_heart() -> None:
    """R4.4: all 13 hearts without the Q♠ (or the Q♠ and 12 hearts) is not a moon."""
    hearts = mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    res = score_round([hearts, mask("QS"), 0, 0], [4, 1, 0, 0], Rules(), [0] * 4)
    assert res.shooter is None and res.scores == (13, 13, 0, 0)
    almost = hearts & ~mask("2H") | mask("QS")
    res = score_round([almost, mask("2H"), 0, 0], [4, 1, 0, 0], Rules(), [0] * 4)
    assert res.shooter is None and res.scores == (25, 1, 0, 0)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r4_4_shooter_chooses_via_score_round(players: int) -> None:
    """R4.4 shooter_chooses: the choice decides add or subtract; no choice is an error."""
    rules = Rules(players=players, moon="shooter_chooses")
    won = [0] * players
    won[1] = rules.deck_mask
    add = score_round(won, [0] * players, rules, [0] * players, "add")
    sub = score_round(won, [0] * players, rules, [0] * players, "subtract")
    assert add.scores == tuple(0 if s == 1 else 26 for s in range(players))
    assert add.moon_choice == "add"
    assert sub.scores == tuple(-26 if s == 1 else 0 for s in range(players))
    assert sub.moon_choice == "subtract"
    with pytest.raises(ValueError):
        score_round(won, [0] * players, rules, [0] * players, None)


# --- R4.4: add_unless_losing ---------------------------------------------------------------


def _moon_won(players: int, shooter: int) -> list[int]:
    won = [0] * players
    won[shooter] = Rules(players=players).deck_mask
    return won


@pytest.mark.parametrize("ties", ["play_on", "share"])
@pytest.mark.parametrize(
    ("before", "shooter", "choice"),
    [
        # Far from the target: adding does not end the game.
        ([0, 0, 0, 0], 0, "add"),
        ([10, 20, 30, 40], 3, "add"),
        # Adding ends the game and the shooter is the single lowest: add.
        ([10, 30, 40, 80], 0, "add"),
        # Adding ends the game with another seat lowest: subtract.
        ([0, 50, 26, 80], 1, "subtract"),
        ([75, 60, 80, 5], 2, "subtract"),
        # Exactly reaching the target (R5.1: "or more") counts as ending the game.
        ([0, 40, 74, 74], 1, "subtract"),
    ],
)
def test_r4_4_add_unless_losing(before: list[int], shooter: int, choice: str, ties: str) -> None:
    """R4.4 add_unless_losing: add 26 to the others unless that ends the game (R5.1) with the
    shooter not winning; then subtract 26 from the shooter."""
    rules = Rules(moon="add_unless_losing", ties=ties)  # type: ignore[arg-type]
    res = score_round(_moon_won(4, shooter), [0] * 4, rules, before)
    assert res.shooter == shooter
    assert res.moon_choice == choice
    if choice == "add":
        assert res.scores == tuple(0 if s == shooter else 26 for s in range(4))
    else:
        assert res.scores == tuple(-26 if s == shooter else 0 for s in range(4))


@pytest.mark.parametrize(
    ("ties", "choice"),
    [("play_on", "add"), ("share", "subtract")],
)
def test_r4_4_add_unless_losing_others_tie_below_shooter(ties: str, choice: str) -> None:
    """R4.4 with R5.2: adding makes two other seats tie for lowest at the target. With play_on
    the game does not end (so the shooter adds); with share it ends with the shooter not among
    the winners (so the shooter subtracts)."""
    rules = Rules(moon="add_unless_losing", ties=ties)  # type: ignore[arg-type]
    res = score_round(_moon_won(4, 2), [0] * 4, rules, [10, 10, 50, 80])
    assert res.moon_choice == choice
    totals = [b + s for b, s in zip([10, 10, 50, 80], res.scores, strict=True)]
    if choice == "add":
        assert totals == [36, 36, 50, 106]
        assert rules.game_winners(totals) is None
    else:
        assert totals == [10, 10, 24, 80]


@pytest.mark.parametrize("ties", ["play_on", "share"])
def test_r4_4_add_unless_losing_shooter_ties_for_lowest(ties: str) -> None:
    """R4.4 with R5.2: adding leaves the shooter tied for lowest at the target. With play_on the
    game goes on, with share the shooter is among the winners: adding is kept either way."""
    rules = Rules(moon="add_unless_losing", ties=ties)  # type: ignore[arg-type]
    res = score_round(_moon_won(4, 1), [0] * 4, rules, [24, 50, 50, 80])
    assert res.moon_choice == "add"
    assert res.scores == (26, 0, 26, 26)
    totals = [50, 50, 76, 106]
    assert rules.game_winners(totals) == (None if ties == "play_on" else (0, 1))


@pytest.mark.parametrize("players", [3, 5, 6])
def test_r4_4_add_unless_losing_other_table_sizes(players: int) -> None:
    """R4.4 add_unless_losing with 3, 5 and 6 players: subtract exactly when adding would end
    the game with another seat lowest."""
    rules = Rules(players=players, moon="add_unless_losing", target=100)
    shooter = players - 1
    won = _moon_won(players, shooter)
    # Seat 0 is far ahead, a seat is close to the target: adding ends the game, seat 0 wins.
    before = [0] + [80] * (players - 1)
    res = score_round(won, [0] * players, rules, before)
    assert res.moon_choice == "subtract"
    assert res.scores == tuple(-26 if s == shooter else 0 for s in range(players))
    # Nobody close to the target: add.
    before = [0] * players
    res = score_round(won, [0] * players, rules, before)
    assert res.moon_choice == "add"
    assert sum(res.scores) == 26 * (players - 1)


def test_r4_4_add_unless_losing_counts_jack_of_diamonds() -> None:
    """R4.4 with R4.2: the J♦ bonus is part of the totals that adding would produce."""
    rules = Rules(moon="add_unless_losing", jack_of_diamonds=-10)
    won = [mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH QS"), mask("JD"), 0, 0]
    # Without the J♦, seat 1 would tie the shooter at 30 (play on); with it seat 1 is lowest.
    res = score_round(won, [12, 1, 0, 0], rules, [30, 4, 60, 80])
    assert res.moon_choice == "subtract"
    assert res.scores == (-26, -10, 0, 0)


# --- R4.4 through play ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("moon", ["add_to_others", "subtract_from_self", "add_unless_losing"])
def test_r4_4_moon_through_play(players: int, moon: str) -> None:
    """R4.4 by play: a seat that takes every heart and the Q♠ shoots; scores follow the variant."""
    shooter = 1
    rules = Rules(players=players, pass_count=0, moon=moon)  # type: ignore[arg-type]
    r = Round(rules, moon_deal(players, shooter))
    play_round(r, shooter)
    assert r.result is not None and r.phase is Phase.OVER
    assert r.won_cards(shooter).points == 26
    assert r.result.shooter == shooter
    assert r.result.points == tuple(26 if s == shooter else 0 for s in range(players))
    if moon == "subtract_from_self":
        assert r.result.scores == tuple(-26 if s == shooter else 0 for s in range(players))
    else:  # add_unless_losing adds at 0-0: the game is far from its end
        assert r.result.moon_choice == "add"
        assert r.result.scores == tuple(0 if s == shooter else 26 for s in range(players))


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r4_4_shooter_chooses_round_waits(players: int) -> None:
    """R4.4 shooter_chooses: after the last trick the round waits in MOON_CHOICE for the
    shooter; nothing else is accepted; each choice scores as it says."""
    shooter = 2
    rules = Rules(players=players, pass_count=0, moon="shooter_chooses")
    r = Round(rules, moon_deal(players, shooter))
    play_round(r, shooter)
    assert r.phase is Phase.MOON_CHOICE
    assert r.to_move == shooter
    assert not r.is_over and r.result is None
    assert r.tricks_played == rules.hand_size
    assert len(r.legal_plays()) == 0
    with pytest.raises(IllegalPlay):
        r.play(CARDS[0])
    other = (shooter + 1) % players
    with pytest.raises(IllegalMoonChoice):
        r.choose_moon(other, "add")
    with pytest.raises(IllegalMoonChoice):
        r.choose_moon(shooter, "double")  # type: ignore[arg-type]
    assert r.phase is Phase.MOON_CHOICE and r.to_move == shooter  # refused: nothing changed

    for choice, expected in (
        ("add", tuple(0 if s == shooter else 26 for s in range(players))),
        ("subtract", tuple(-26 if s == shooter else 0 for s in range(players))),
    ):
        c = r.clone()
        c.choose_moon(shooter, choice)  # type: ignore[arg-type]
        assert c.phase is Phase.OVER and c.to_move is None
        assert c.result is not None
        assert c.result.shooter == shooter
        assert c.result.moon_choice == choice
        assert c.result.scores == expected
        with pytest.raises(IllegalMoonChoice):
            c.choose_moon(shooter, "add")
    assert r.phase is Phase.MOON_CHOICE  # the clones did not touch the original


@pytest.mark.parametrize("choice", ["add", "subtract"])
def test_r4_4_shooter_chooses_game_does_not_advance(choice: str) -> None:
    """R4.4 shooter_chooses in a game: the game waits for the shooter (no new round, totals
    unchanged) and applies the choice once made."""
    shooter = 3
    rules = Rules(pass_count=0, moon="shooter_chooses")
    game = Game(rules, seed=0, deals=[moon_deal(4, shooter)])
    play_game_round(game, shooter)
    assert game.phase is Phase.MOON_CHOICE
    assert game.to_move == shooter
    assert len(game.rounds) == 1
    assert game.totals == [0, 0, 0, 0] and game.score_history == []
    assert not game.is_over
    with pytest.raises(IllegalPlay):
        game.apply(Play(game.to_move, CARDS[0]))
    with pytest.raises(IllegalMoonChoice):
        game.apply(Moon(0, "add"))
    assert len(game.rounds) == 1 and game.totals == [0, 0, 0, 0]
    game.apply(Moon(shooter, choice))  # type: ignore[arg-type]
    expected = [0, 26, 26, 26][::-1] if choice == "add" else [0, 0, 0, -26]
    assert game.totals == expected
    assert game.score_history == [tuple(expected)]
    assert len(game.rounds) == 2
    assert game.round.phase is Phase.PLAYING and game.round.scores_before == tuple(expected)
    assert game.results[0].moon_choice == choice


def test_r4_4_add_unless_losing_in_a_game() -> None:
    """R4.4 add_unless_losing across rounds of a game (target 60): seat 1 shoots twice (adding),
    then seat 2 shoots; adding would end the game with seat 1 winning, so seat 2 subtracts."""
    rules = Rules(pass_count=0, moon="add_unless_losing", target=60)
    game = Game(rules, seed=0, deals=[moon_deal(4, 1), moon_deal(4, 1), moon_deal(4, 2)])
    for shooter in (1, 1, 2):
        play_game_round(game, shooter)
    assert [res.moon_choice for res in game.results] == ["add", "add", "subtract"]
    assert game.score_history == [(26, 0, 26, 26), (52, 0, 52, 52), (52, 0, 26, 52)]
    assert not game.is_over


@pytest.mark.parametrize("ties", ["play_on", "share"])
def test_r4_4_add_unless_losing_in_a_game_tie_cases(ties: str) -> None:
    """R4.4 with R5.2 in a game (target 105). Seats 0, 0, 1, 1 shoot (adding each time): totals
    52, 52, 104, 104. Then seat 2 shoots: adding would give 78, 78, 104, 130, the target reached
    with seats 0 and 1 tied lowest. play_on: that does not end the game (R5.2), so seat 2 adds
    and play goes on; share: it would end with seats 0 and 1 winning, so seat 2 subtracts."""
    rules = Rules(pass_count=0, moon="add_unless_losing", target=105, ties=ties)  # type: ignore[arg-type]
    shooters = [0, 0, 1, 1, 2, 0]
    game = Game(rules, seed=0, deals=[moon_deal(4, s) for s in shooters])
    for s in shooters[:5]:
        play_game_round(game, s)
    assert game.score_history[:4] == [(0, 26, 26, 26), (0, 52, 52, 52), (26, 52, 78, 78), (52, 52, 104, 104)]
    assert [res.moon_choice for res in game.results[:4]] == ["add"] * 4
    if ties == "share":
        assert game.results[4].moon_choice == "subtract"
        assert game.score_history[4] == (52, 52, 78, 104)
        assert not game.is_over
        return
    assert game.results[4].moon_choice == "add"
    assert game.score_history[4] == (78, 78, 104, 130)
    assert not game.is_over and len(game.rounds) == 6  # R5.2: tied lowest at the target
    play_game_round(game, 0)
    assert game.results[5].moon_choice == "add"  # adding makes seat 0 the single lowest
    assert game.score_history[5] == (78, 104, 130, 156)
    assert game.is_over and game.winners == (0,)
