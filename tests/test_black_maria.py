"""Black Maria (docs/rules.md R6 ``black_maria``): the 2♣ out for three (R1.2, R3.1), the K♠
and A♠ as penalty cards (R4.5) and the moon that takes all 43 points (R4.4) — in the engine,
the compiled kernel, the bots, the text and the OpenSpiel adapter."""

from __future__ import annotations

import random

import pytest
from helpers import random_step
from helpers import round_state as snapshot
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fast import decision_views

from hearts import Card, CardSet, Game, Phase, Round, Rules
from hearts.bots import LEVELS, make_bot, run_bots
from hearts.bots.openspiel import openspiel_parameters, unplayable
from hearts.cards import HEARTS_MASK, QS_MASK, SUIT_MASKS, mask_points
from hearts.errors import BotError, HeartsError, RulesError
from hearts.kernel import random_round, random_rounds
from hearts.mechanics import score_round
from hearts.text import Style, default_names, moon_effect, round_summary

BLACK_MARIA = Rules.preset("black_maria")
KS, AS = Card.parse("KS"), Card.parse("AS")


def test_r6_black_maria_preset() -> None:
    """R6: three players, the 2♣ out (R1.2), passing right every round (R2.2), the spades
    (R4.5); everything else standard."""
    rules = BLACK_MARIA
    assert (rules.players, rules.removed_for_three, rules.pass_cycle, rules.spade_penalties) == (3, "two_of_clubs", ("right",), True)
    assert rules.deck_size == 51 and rules.hand_size == 17
    assert not rules.deck_mask & 1 << Card.parse("2C") and rules.deck_mask >> Card.parse("2D") & 1
    assert [rules.pass_offset(i) for i in range(4)] == [2, 2, 2, 2]  # to the right: seat i - 1
    assert rules.round_points == 43
    assert rules == Rules(**{**Rules(players=3).to_dict(), "removed_for_three": "two_of_clubs", "pass_cycle": "right",
                             "spade_penalties": True})


def test_r1_2_r3_1_the_3c_leads_without_the_2c() -> None:
    """R1.2, R3.1: with the 2♣ out, the deal has 51 cards and whoever holds the 3♣ leads it."""
    r = Round.deal(Rules.preset("black_maria", pass_count=0), seed=3)
    assert sum(len(r.hand(s)) for s in range(3)) == 51
    assert Card.parse("2C") not in CardSet.from_mask(BLACK_MARIA.deck_mask)
    assert r.phase is Phase.PLAYING and r.legal_plays() == CardSet.parse("3C")
    assert Card.parse("3C") in r.hand(r.to_move)  # type: ignore[arg-type]


def _spade_trick_round() -> Round:
    """A Black Maria round (no passing) whose second trick is the rule book's example of R4.5:
    seat 2 leads the ♠5, seat 0 plays the ♠K and seat 1 the ♠A."""
    spades = [c for c in range(52) if SUIT_MASKS[3] >> c & 1 and c not in (KS, AS)]
    others = [c for c in range(52) if BLACK_MARIA.deck_mask >> c & 1 and c & 3 != 3
              and c not in (Card.parse("3C"), Card.parse("4C"), Card.parse("5C"))]
    seat2 = [Card.parse("5C"), *spades, *others[:5]]
    seat0 = [Card.parse("3C"), KS, *others[5:20]]
    seat1 = [Card.parse("4C"), AS, *others[20:35]]
    r = Round(Rules.preset("black_maria", pass_count=0), [seat0, seat1, seat2])
    for card in ("3C", "4C", "5C", "5S", "KS", "AS"):
        r.play(Card.parse(card))
    return r


def test_r4_5_king_and_ace_of_spades_score() -> None:
    """R4.5 (the rule book's example): the trick of the ♠5, ♠K and ♠A gives its winner 17
    points, 10 for the K♠ and 7 for the A♠; without the option it is worth nothing (R4.1)."""
    r = _spade_trick_round()
    trick = r.tricks[1]
    assert trick.winner == 1 and trick.points == 17
    assert r.points_taken == (0, 17, 0)
    plain = Rules(players=3, removed_for_three="two_of_clubs", pass_count=0)
    assert plain.points(CardSet.parse("KS AS 5S").mask) == 0 and BLACK_MARIA.points(CardSet.parse("KS AS 5S").mask) == 17
    rng = random.Random(1)
    while not r.is_over:
        random_step(r, rng)
    assert r.result is not None and sum(r.result.points) == 43 and r.result.points[1] >= 17


def test_r4_5_scores_and_the_moon_of_43() -> None:
    """R4.5, R4.4: points count the K♠ 10 and the A♠ 7; the moon takes every penalty card, the
    spades too, and is worth 43 (added to the others, or taken off the shooter)."""
    spades = 1 << KS | 1 << AS
    everything = HEARTS_MASK | QS_MASK | spades
    assert mask_points(everything, True) == 43 and mask_points(everything) == 26
    res = score_round([everything, 0, 0], [5, 6, 6], BLACK_MARIA, (0, 0, 0))
    assert res.shooter == 0 and res.scores == (0, 43, 43) and res.points == (43, 0, 0)
    sub = score_round([everything, 0, 0], [5, 6, 6], BLACK_MARIA.replace(moon="subtract_from_self"), (0, 0, 0))
    assert sub.scores == (-43, 0, 0)
    # All the hearts and the Q♠ but not the A♠: no moon, the points as they fall (R4.5).
    near = score_round([HEARTS_MASK | QS_MASK | 1 << KS, 1 << AS, 0], [5, 6, 6], BLACK_MARIA, (0, 0, 0))
    assert near.shooter is None and near.scores == (36, 7, 0)
    # Without the spades, the same cards are a moon of 26 (R4.4).
    assert score_round([HEARTS_MASK | QS_MASK, 0, 0], [5, 6, 6], Rules(players=3), (0, 0, 0)).scores == (0, 26, 26)


@given(seed=st.integers(0, 2**32 - 1), moon=st.sampled_from(["add_to_others", "subtract_from_self",
                                                              "shooter_chooses", "add_unless_losing"]))
@settings(max_examples=60, deadline=None)
def test_r4_5_random_games_score_43_a_round(seed: int, moon: str) -> None:
    """R4.5 (hypothesis): in random legal games of Black Maria each round's points sum to 43,
    and so do its scores unless the moon is shot (then 86 added, or -43)."""
    rules = Rules.preset("black_maria", moon=moon, target=60)
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not game.is_over and len(game.results) < 4:
        random_step(game, rng)
    for result in game.results:
        assert sum(result.points) == 43
        if result.shooter is None:
            assert sum(result.scores) == 43
        else:
            assert sorted(result.scores) in ([0, 43, 43], [-43, 0, 0])


def test_r4_5_kernel_compiled_and_pure_agree() -> None:
    """R4.5: the rollout kernel scores Black Maria compiled (``random_rounds``) as it does in
    Python (``random_round``, which ``test_properties`` checks against the engine for random
    rules, the spades among them): 43 points a round, or a moon's."""
    from hearts import fast

    compiled = random_rounds(BLACK_MARIA, fast.Stream(5), 30)
    stream = fast.Stream(5)
    pure = [random_round(BLACK_MARIA, stream, i) for i in range(30)]
    assert compiled == [result.scores for result in pure]
    assert all(sum(result.points) == 43 for result in pure)
    assert all(sum(row) in (43, 86, -43) for row in compiled)


@pytest.mark.parametrize("spec", ["search:iterations=200", "search:iterations=600,tree=1,follow=16"])
def test_r4_5_search_compiled_and_pure_agree(spec: str) -> None:
    """R4.5: the search bots score rollouts with the spades, compiled and as Python alike (the
    same decisions for the same seed)."""
    for i, view in enumerate(decision_views(BLACK_MARIA, 4, every=5)[:12]):
        twin, pure = make_bot(spec, seed=i), make_bot(spec + ",fast=0", seed=i)
        assert twin.act(view) == pure.act(view), i


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_r6_a_game_of_black_maria_plays_to_the_end(level: str) -> None:
    """R6, R5.1: a whole game under the preset, every seat a bot of one level, ends with a
    winner and 43 points in every round (R4.5)."""
    rules = Rules.preset("black_maria", target=50 if level in ("hard", "expert") else 100)
    game = Game(rules, seed=11)
    run_bots(game, {s: make_bot(level, seed=s, rules=rules) for s in range(3)})
    assert game.is_over and game.winners
    assert all(sum(result.points) == 43 for result in game.results)


@pytest.mark.parametrize(("spades", "dumped"), [(True, "AS"), (False, "AH")])
def test_r4_5_heuristic_dumps_the_spades_when_void(spades: bool, dumped: str) -> None:
    """R4.5: void in the suit led, with the Q♠ already gone, the heuristic bot gets rid of the
    A♠ on another seat's trick when it is a penalty card, and its top heart when it is not."""
    from hearts.bots.heuristic import choose_card
    from hearts.view import View

    hands = ["3C 2S 6C 7C 8C 9C TC JC QC KC AC 9D TD JD QD KD AD",
             "4C 3S AS KS " + " ".join(f"{rank}H" for rank in "23456789TJQKA"),
             "5C QS 4S 5S 6S 7S 8S 9S TS JS 2D 3D 4D 5D 6D 7D 8D"]
    r = Round(Rules(players=3, removed_for_three="two_of_clubs", pass_count=0, spade_penalties=spades), hands)
    for card in ("3C", "4C", "5C", "QS", "2S", "3S", "2D", "9D"):
        r.play(Card.parse(card))
    view = View.of(r, 1)
    assert view.my_turn and not view.hand.mask & SUIT_MASKS[1]  # void in diamonds
    assert choose_card(view, view.legal.mask, False) == Card.parse(dumped)


def test_bad_options_are_refused_and_change_nothing() -> None:
    """R1.2, R4.5, R6: a bad value of the new options is a clear error, and the rules (and a
    game under them) are left as they were."""
    game = Game(BLACK_MARIA, seed=2)
    before = (BLACK_MARIA.to_dict(), snapshot(game.round))
    with pytest.raises(RulesError, match=r"R4.5: option 'spade_penalties' is 'yes'; allowed: true \| false"):
        BLACK_MARIA.replace(spade_penalties="yes")
    with pytest.raises(RulesError, match=r"R1.2: option 'removed_for_three' is '2C'; allowed: 'two_of_diamonds', 'two_of_clubs'"):
        BLACK_MARIA.replace(removed_for_three="2C")  # the card, not the option's word for it
    with pytest.raises(RulesError, match=r"R1.2: option 'removed_for_three' is 'two_of_clubs' with 4 players"):
        BLACK_MARIA.replace(players=4)
    with pytest.raises(RulesError, match=r"R4.5: option 'spade_penalties' is 'maybe'; allowed: true, false"):
        BLACK_MARIA.with_options(["spade_penalties=maybe"])
    assert (BLACK_MARIA.to_dict(), snapshot(game.round)) == before
    assert game.rules is BLACK_MARIA


def test_openspiel_refuses_black_maria() -> None:
    """R4.5, R1.2: OpenSpiel's hearts has neither the spades nor the 2♣ out; its adapter says so."""
    assert unplayable(Rules(spade_penalties=True)) == "spade_penalties=True (OpenSpiel: False)"
    with pytest.raises(HeartsError, match="spade_penalties=True"):
        openspiel_parameters(BLACK_MARIA)
    assert "removed_for_three='two_of_clubs' (OpenSpiel: 'two_of_diamonds')" in (unplayable(BLACK_MARIA) or "")
    with pytest.raises(BotError, match=r"cannot play these rules: spade_penalties=True \(OpenSpiel: False\)"):
        make_bot("openspiel_ismcts", rules=Rules(spade_penalties=True))


def test_r4_5_text_lists_the_spades() -> None:
    """R4.5: the end-of-round summary lists the K♠ and A♠ among the cards that scored, and a
    moon says 43."""
    r = _spade_trick_round()
    rng = random.Random(4)
    while not r.is_over:
        random_step(r, rng)
    lines = round_summary(r, default_names(3), Style(ascii_only=True))
    took = next(line for line in lines if "KS" in line)
    assert "AS" in took
    hearts = [f"{rank}H" for rank in "AKQJT98765432"]
    rules = Rules.preset("black_maria", pass_count=0)
    moon = Round(rules, [" ".join(["AC", "AS", "KS", "QS", *hearts]),
                         "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D 3D 4D 5D 6D 7D",
                         "8D 9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS"])
    mine = iter(["AC", "AS", "KS", "QS", *hearts])
    while not moon.is_over:
        moon.play(Card.parse(next(mine)) if moon.to_move == 0 else min(moon.legal_plays()))
    assert moon.result is not None and moon.result.shooter == 0 and moon.result.scores == (0, 43, 43)
    assert moon_effect(moon) == "every other player +43"
    assert any("shot the moon (every other player +43)" in line for line in round_summary(moon, default_names(3), Style()))


def test_r4_5_our_openspiel_game_plays_black_maria() -> None:
    """R4.5, R6: the ``python_hearts`` OpenSpiel game takes the preset's options in its game
    string and returns ``43 - score`` per seat (86 in all without a moon)."""
    pyspiel = pytest.importorskip("pyspiel")
    import hearts.rl.openspiel_game  # noqa: F401  (registers python_hearts)

    game = pyspiel.load_game("python_hearts(players=3,removed_for_three=two_of_clubs,pass_cycle=right,spade_penalties=true)")
    assert game.rules == BLACK_MARIA and (game.min_utility(), game.max_utility()) == (0.0, 86.0)
    rng = random.Random(3)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) in (86.0, 43.0)


def test_r4_5_a_record_of_black_maria_replays() -> None:
    """R4.5, R6: a game of Black Maria saved as a record loads (every action replayed, the
    totals checked) and saves to the same bytes; its rules come back whole."""
    from hearts.bots import RandomBot
    from hearts.record import GameRecord, Seat, dumps, loads

    game = Game(Rules.preset("black_maria", target=60), seed=8)
    run_bots(game, {s: RandomBot(seed=s) for s in range(3)})
    text = dumps(GameRecord(game, [Seat("Ann"), Seat("Ben", bot="random"), Seat("Cy", bot="random")]))
    loaded = loads(text)
    assert loaded.game.rules == game.rules and loaded.game.totals == game.totals
    assert dumps(loaded) == text
    assert '"spade_penalties": true' in text and '"removed_for_three": "two_of_clubs"' in text


def test_r4_5_the_terminal_hint_counts_the_spades() -> None:
    """R4.5: the terminal table's reason for a discard of the A♠ names its 7 points under Black
    Maria (none in Hearts)."""
    from hearts.tui.session import play_reason
    from hearts.view import View

    hands = ["3C 2S 6C 7C 8C 9C TC JC QC KC AC 9D TD JD QD KD AD",
             "4C 3S AS KS " + " ".join(f"{rank}H" for rank in "23456789TJQKA"),
             "5C QS 4S 5S 6S 7S 8S 9S TS JS 2D 3D 4D 5D 6D 7D 8D"]
    for spades, words in ((True, "dumps 7 points on another player"), (False, "a discard")):
        r = Round(Rules(players=3, removed_for_three="two_of_clubs", pass_count=0, spade_penalties=spades), hands)
        for card in ("3C", "4C", "5C", "QS", "2S", "3S", "2D", "9D"):
            r.play(Card.parse(card))
        assert play_reason(View.of(r, 1), AS).startswith(words)
