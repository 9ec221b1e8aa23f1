"""Refused actions: precise error, rule/seat/card in the message, and nothing changed.

DESIGN: "every entry point validates and raises a precise error (IllegalPlay, subclass of
ValueError) that names the rule (R-number) and the state; nothing changes on a refused move."
Each test cites the rule whose refusal it checks.
"""

from __future__ import annotations

import json
import pickle
import random
import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from helpers import random_step
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts.actions import Moon, Pass, Play
from hearts.actions import from_dict as action_from_dict
from hearts.actions import from_json as action_from_json
from hearts.cards import SUIT_LETTERS, Card, CardSet
from hearts.errors import (
    ActionError,
    CardParseError,
    HeartsError,
    IllegalAction,
    IllegalMoonChoice,
    IllegalPass,
    IllegalPlay,
    RulesError,
)
from hearts.game import Game, GameOver
from hearts.record import round_to_dict
from hearts.round import Phase, Round
from hearts.rules import Rules

NS = [3, 4, 5, 6]
LOWEST = {3: "2C", 4: "2C", 5: "3C", 6: "4C"}


# --- helpers -------------------------------------------------------------------------------------


def snapshot(r: Round) -> dict[str, Any]:
    """Everything observable about a round, plus its record as JSON."""
    n = r.players
    return {
        "repr": repr(r),
        "phase": r.phase,
        "to_move": r.to_move,
        "pass_offset": r.pass_offset,
        "round_number": r.round_number,
        "scores_before": r.scores_before,
        "dealt": r.dealt,
        "hands": [r.hand(s) for s in range(n)],
        "passed": [r.passed(s) for s in range(n)],
        "received": [r.received(s) for s in range(n)],
        "seats_to_pass": r.seats_to_pass(),
        "plays": r.plays,
        "tricks": r.tricks,
        "current_trick": r.current_trick,
        "points_taken": r.points_taken,
        "tricks_won": r.tricks_won,
        "won_cards": [r.won_cards(s) for s in range(n)],
        "voids": [r.voids(s) for s in range(n)],
        "legal_plays": r.legal_plays(),
        "hearts_broken": r.hearts_broken,
        "is_over": r.is_over,
        "result": r.result,
        "record": json.dumps(round_to_dict(r), sort_keys=True),
    }


def pick(legal: CardSet) -> Card:
    """A quiet filler move: the lowest non-point card if any, else the lowest card."""
    return min(legal, key=lambda c: (c.points > 0, int(c)))


def finish(r: Round) -> None:
    """Play a round to its end deterministically (passes, plays, moon choice)."""
    for s in r.seats_to_pass():
        r.pass_cards(s, list(r.hand(s))[: r.rules.pass_count])
    while r.phase is Phase.PLAYING:
        r.play(pick(r.legal_plays()))
    if r.phase is Phase.MOON_CHOICE:
        assert r.to_move is not None
        r.choose_moon(r.to_move, "add")
    assert r.is_over


def refused(
    r: Round,
    action: Callable[[Round], object],
    error: type[IllegalAction],
    *,
    rule: str | None = None,
    seat: int | None = None,
    names: tuple[str, ...] = (),
) -> IllegalAction:
    """Run ``action(r)``; it must raise ``error`` (exactly that class) whose message starts with
    its rule, names ``seat`` and every text in ``names``; the round must not change at all, and
    must go on to the same end as an untouched copy."""
    before = snapshot(r)
    twin = r.clone()
    with pytest.raises(error) as ei:
        action(r)
    e = ei.value
    assert type(e) is error
    assert isinstance(e, ValueError) and isinstance(e, HeartsError)
    msg = str(e)
    assert re.fullmatch(r"R\d(\.\d+)?", e.rule), e.rule
    assert msg.startswith(f"{e.rule}: "), msg
    if rule is not None:
        assert e.rule == rule, msg
    if seat is not None:
        assert e.seat == seat
        assert f"seat {seat} " in msg, msg
    for text in names:
        assert text in msg, (text, msg)
    assert snapshot(r) == before
    finish(r)
    finish(twin)
    assert json.dumps(round_to_dict(r)) == json.dumps(round_to_dict(twin))
    return e


def build_hands(n: int, fixed: Mapping[int, str], voids: Mapping[int, str] | None = None) -> list[CardSet]:
    """A deal with ``fixed`` cards per seat, the rest filled (no filler of the ``voids`` suits)."""
    voids = voids or {}
    rules = Rules(players=n)
    hands = {s: CardSet.parse(fixed.get(s, "")) for s in range(n)}
    used = CardSet()
    for h in hands.values():
        used |= h
    rest = list(CardSet.from_mask(rules.deck_mask) - used)
    random.Random(0).shuffle(rest)
    for s in sorted(range(n), key=lambda s: s not in voids):
        need = rules.hand_size - len(hands[s])
        take = [c for c in rest if SUIT_LETTERS[c.suit] not in voids.get(s, "")][:need]
        assert len(take) == need
        hands[s] |= CardSet(take)
        rest = [c for c in rest if c not in take]
    return [hands[s] for s in range(n)]


def round_of(n: int, fixed: Mapping[int, str], voids: Mapping[int, str] | None = None, **opts: Any) -> Round:
    """A round without passing from explicit hands."""
    return Round(Rules(players=n, **{"pass_count": 0, **opts}), build_hands(n, fixed, voids))


def passing_round(n: int = 4) -> Round:
    """A round in the pass phase where seat 1 has already passed."""
    r = Round.deal(Rules(players=n), seed=11)
    r.pass_cards(1, list(r.hand(1))[:3])
    assert r.phase is Phase.PASSING
    return r


def playing_round(n: int = 4) -> Round:
    """A round in play after the pass, a few cards into the first trick."""
    r = Round.deal(Rules(players=n), seed=12)
    for s in range(n):
        r.pass_cards(s, list(r.hand(s))[-3:])
    r.play(pick(r.legal_plays()))
    r.play(pick(r.legal_plays()))
    assert r.phase is Phase.PLAYING
    return r


def moon_round() -> Round:
    """Seat 0 (all clubs) takes every trick and shoots the moon; it must now choose (R4.4)."""
    hands = [
        " ".join(r + "C" for r in "23456789TJQKA"),
        " ".join(r + "H" for r in "23456789TJQKA"),
        " ".join(r + "S" for r in "23456789TJQKA"),
        " ".join(r + "D" for r in "23456789TJQKA"),
    ]
    r = Round(Rules(pass_count=0, moon="shooter_chooses"), hands)
    while r.phase is Phase.PLAYING:
        r.play(pick(r.legal_plays()))
    assert r.phase is Phase.MOON_CHOICE and r.to_move == 0
    return r


def over_round() -> Round:
    r = Round.deal(Rules(), seed=13)
    finish(r)
    return r


# --- illegal cards, per rule ----------------------------------------------------------------------


@pytest.mark.parametrize("n", NS)
def test_r3_1_first_lead_must_be_lowest_club(n: int) -> None:
    """R3.1: another card on the first lead is refused."""
    r = round_of(n, {0: f"{LOWEST[n]} KC AD"})
    for card in ("KC", "AD"):
        refused(
            r.clone(),
            lambda x, card=card: x.play(card),
            IllegalPlay,
            rule="R3.1",
            seat=0,
            names=(card, LOWEST[n]),
        )
    e = refused(r, lambda x: x.play("AD", seat=0), IllegalPlay, rule="R3.1", seat=0, names=("AD",))
    assert e.cards == "play AD"


@pytest.mark.parametrize("n", NS)
def test_r3_1_any_club_refuses_non_club(n: int) -> None:
    """R3.1 option any_club: a non-club first lead is refused."""
    r = round_of(n, {2: f"{LOWEST[n]} KC AD"}, first_lead="any_club")
    refused(r, lambda x: x.play("AD"), IllegalPlay, rule="R3.1", seat=2, names=("AD",))


@pytest.mark.parametrize("n", NS)
def test_r3_2_not_following_suit(n: int) -> None:
    """R3.2: a card off the led suit while holding it is refused."""
    r = round_of(n, {0: LOWEST[n], 1: "AC 5D"}, voids={1: "C"})
    r.play(LOWEST[n])
    refused(r, lambda x: x.play("5D"), IllegalPlay, rule="R3.2", seat=1, names=("5D", "clubs"))


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("card", ["QS", "AH"])
def test_r3_3_points_on_first_trick(n: int, card: str) -> None:
    """R3.3: a heart or the Q♠ on the first trick while holding other cards is refused."""
    r = round_of(n, {0: LOWEST[n], 1: "QS AH 7D"}, voids={1: "C"})
    r.play(LOWEST[n])
    refused(r, lambda x: x.play(card), IllegalPlay, rule="R3.3", seat=1, names=(card,))


def _seat1_leads(n: int, hand: str, **opts: Any) -> Round:
    """Seat 1 wins the first trick with its only club (AC), then leads."""
    r = round_of(n, {0: LOWEST[n], 1: "AC " + hand}, voids={1: "C"}, **opts)
    while r.tricks_played < 1:
        r.play(pick(r.legal_plays()))
    assert r.to_move == 1 and not r.hearts_broken
    return r


@pytest.mark.parametrize("n", NS)
def test_r3_4_heart_lead_before_broken(n: int) -> None:
    """R3.4: leading a heart before hearts are broken is refused."""
    r = _seat1_leads(n, "KD 2H")
    refused(r, lambda x: x.play("2H"), IllegalPlay, rule="R3.4", seat=1, names=("2H",))


@pytest.mark.parametrize("n", NS)
def test_r3_6_queen_lead_after_break(n: int) -> None:
    """R3.6 queen_lead=after_break: leading the Q♠ before hearts are broken is refused."""
    r = _seat1_leads(n, "KD QS 2H", queen_lead="after_break")
    refused(r, lambda x: x.play("QS"), IllegalPlay, rule="R3.6", seat=1, names=("QS",))


@pytest.mark.parametrize("n", [4, 5, 6])
def test_r3_7_heart_lead_with_only_hearts_and_queen(n: int) -> None:
    """R3.7: with only hearts + Q♠ and hearts unbroken, a heart lead is refused (the Q♠ is led)."""
    size = Rules(players=n).hand_size
    hearts = " ".join(r + "H" for r in "23456789TJQKA"[: size - 2])
    r = round_of(n, {0: LOWEST[n], 1: "AC QS " + hearts})
    while r.tricks_played < 1:
        r.play(pick(r.legal_plays()))
    assert r.to_move == 1 and str(r.legal_plays()) == "QS"
    refused(r, lambda x: x.play("2H"), IllegalPlay, rule="R3.7", seat=1, names=("2H",))


# --- not held, out of turn, wrong phase ---------------------------------------------------------------


@pytest.mark.parametrize("n", NS)
def test_r1_3_card_not_held(n: int) -> None:
    """R1.3: a card the seat does not hold (another seat's, or one already played) is refused."""
    r = playing_round(n)
    mover = r.to_move
    assert mover is not None
    other = next(iter(r.hand((mover + 1) % n)))
    refused(r.clone(), lambda x: x.play(other), IllegalPlay, seat=mover, names=(str(other),))
    gone = r.plays[0]
    refused(r, lambda x: x.play(gone), IllegalPlay, seat=mover, names=(str(gone),))


@pytest.mark.parametrize("n", NS)
def test_r1_4_out_of_turn(n: int) -> None:
    """R1.4: play goes clockwise; a seat acting out of turn is refused, even with a card that
    would be legal for the seat to move."""
    r = playing_round(n)
    mover = r.to_move
    assert mover is not None
    wrong = (mover + 1) % n
    good = next(iter(r.legal_plays()))
    refused(
        r.clone(),
        lambda x: x.play(good, seat=wrong),
        IllegalPlay,
        rule="R1.4",
        seat=wrong,
        names=(str(good), f"seat {mover}"),
    )
    own = next(iter(r.hand(wrong)))
    refused(
        r.clone(), lambda x: x.play(own, seat=wrong), IllegalPlay, rule="R1.4", seat=wrong, names=(str(own),)
    )
    refused(r, lambda x: x.play(good, seat=99), IllegalPlay, rule="R1.4", seat=99, names=(str(good),))


@pytest.mark.parametrize("n", NS)
def test_r2_1_playing_during_passing(n: int) -> None:
    """R2.1 / R2.3: no card is played before every seat has passed."""
    r = passing_round(n)
    low = LOWEST[n]
    refused(r.clone(), lambda x: x.play(low, seat=0), IllegalPlay, seat=0, names=(low, "passing"))
    refused(r, lambda x: x.play(low), IllegalPlay, names=(low, "passing"))


@pytest.mark.parametrize("n", NS)
def test_r2_1_passing_during_play(n: int) -> None:
    """R2.1: passing is refused once play has started."""
    r = playing_round(n)
    cards = list(r.hand(0))[:3]
    refused(
        r,
        lambda x: x.pass_cards(0, cards),
        IllegalPass,
        rule="R2.1",
        seat=0,
        names=(*map(str, cards), "playing"),
    )


@pytest.mark.parametrize("n", NS)
def test_r2_2_passing_in_a_hold_round(n: int) -> None:
    """R2.2: no pass in a hold round."""
    hold = {3: 2, 4: 3, 5: 2, 6: 3}[n]
    r = Round.deal(Rules(players=n), seed=1, round_number=hold)
    cards = list(r.hand(2))[:3]
    refused(
        r,
        lambda x: x.pass_cards(2, cards),
        IllegalPass,
        rule="R2.1",
        seat=2,
        names=(*map(str, cards), "nobody passes"),
    )


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("count", [0, 1, 2, 4])
def test_r2_1_wrong_pass_count(n: int, count: int) -> None:
    """R2.1: exactly pass_count (3) cards."""
    r = passing_round(n)
    cards = list(r.hand(0))[:count]
    refused(
        r,
        lambda x: x.pass_cards(0, cards),
        IllegalPass,
        rule="R2.1",
        seat=0,
        names=(*map(str, cards), f"3 cards are passed, not {count}"),
    )


@pytest.mark.parametrize("n", NS)
def test_r2_1_passing_cards_not_held(n: int) -> None:
    """R2.1: a seat passes only cards it holds."""
    r = passing_round(n)
    foreign = next(iter(r.hand(2)))
    cards = [*list(r.hand(0))[:2], foreign]
    refused(
        r,
        lambda x: x.pass_cards(0, cards),
        IllegalPass,
        rule="R2.1",
        seat=0,
        names=(str(foreign), "does not hold"),
    )


@pytest.mark.parametrize("n", NS)
def test_r2_1_double_pass(n: int) -> None:
    """R2.1: seat 1 has passed already; a second pass (other cards or the same) is refused."""
    r = passing_round(n)
    again = list(r.hand(1))[-3:]
    refused(
        r.clone(),
        lambda x: x.pass_cards(1, again),
        IllegalPass,
        rule="R2.1",
        seat=1,
        names=(*map(str, again), "already passed"),
    )
    same = r.passed(1)
    assert same is not None
    refused(r, lambda x: x.pass_cards(1, same), IllegalPass, rule="R2.1", seat=1, names=("already passed",))


# --- garbage ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["ZZ", "", "1X", "QSS", 99, 52, -1, None, 1.5, 43.0, True, ["QS"], b"QS"])
def test_r1_2_garbage_card_to_play(bad: object) -> None:
    """R1.2: what is not a card is refused as a play, quoting the input."""
    r = playing_round()
    mover = r.to_move
    refused(r, lambda x: x.play(bad), IllegalPlay, seat=mover, names=(repr(bad),))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        ("ZZ 2C 3C", "'ZZ'"),
        ("2C, 3C, QX", "'QX'"),
        (None, "None"),
        (1.5, "1.5"),
        ([None, 1, 2], "None"),
        ([0.5, 1, 2], "0.5"),
        (["2C", "2C", "3C"], "'2C' is given twice"),
        (object, "is not"),
    ],
)
def test_r2_1_garbage_cards_to_pass(bad: object, shown: str) -> None:
    """R2.1 / R1.2: garbage given as the cards to pass is an IllegalPass quoting it."""
    r = passing_round()
    refused(r, lambda x: x.pass_cards(0, bad), IllegalPass, seat=0, names=(shown,))  # type: ignore[arg-type]


@pytest.mark.parametrize("bad_seat", [4, -1, 99, None, "0", 1.0])
def test_r1_4_garbage_seat_to_pass(bad_seat: object) -> None:
    """R1.4: seats are 0..n-1; a pass from no such seat is an IllegalPass naming it."""
    r = passing_round()
    cards = list(r.hand(0))[:3]
    refused(
        r,
        lambda x: x.pass_cards(bad_seat, cards),
        IllegalPass,
        rule="R1.4",
        names=(repr(bad_seat),),
    )


# --- moon choice --------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [passing_round, playing_round, over_round])
def test_r4_4_moon_choice_when_not_asked(make: Callable[[], Round]) -> None:
    """R4.4: no moon decision outside the moon phase."""
    r = make()
    refused(r, lambda x: x.choose_moon(0, "add"), IllegalMoonChoice, rule="R4.4", seat=0, names=("no moon",))


@pytest.mark.parametrize("seat", [1, 2, 3])
def test_r4_4_moon_choice_by_wrong_seat(seat: int) -> None:
    """R4.4: only the shooter (seat 0) decides."""
    r = moon_round()
    refused(
        r,
        lambda x: x.choose_moon(seat, "add"),
        IllegalMoonChoice,
        rule="R4.4",
        seat=seat,
        names=("seat 0 shot the moon",),
    )


@pytest.mark.parametrize("bad", ["maybe", "", "ADD", None, 0, 26, ["add"]])
def test_r4_4_moon_choice_bad_value(bad: object) -> None:
    """R4.4: the choice is 'add' or 'subtract'."""
    r = moon_round()
    refused(
        r,
        lambda x: x.choose_moon(0, bad),
        IllegalMoonChoice,
        rule="R4.4",
        seat=0,
        names=(repr(bad), "'add'", "'subtract'"),
    )


def test_r4_4_play_or_pass_during_moon_choice() -> None:
    """R4.4: while the shooter decides, nothing else may happen."""
    r = moon_round()
    refused(r.clone(), lambda x: x.play("2C", seat=0), IllegalPlay, seat=0, names=("2C", "moon_choice"))
    refused(r, lambda x: x.pass_cards(0, "2C 3C 4C"), IllegalPass, seat=0, names=("2C 3C 4C",))


def test_r4_4_moon_choice_accepted_once() -> None:
    """R4.4: the shooter's valid choice ends the round; a second choice is refused."""
    r = moon_round()
    r.choose_moon(0, "subtract")
    assert r.is_over and r.result is not None
    assert r.result.scores == (-26, 0, 0, 0) and r.result.moon_choice == "subtract"
    refused(r, lambda x: x.choose_moon(0, "add"), IllegalMoonChoice, rule="R4.4", seat=0)


# --- after the end ----------------------------------------------------------------------------------


def test_r3_acting_after_the_round_is_over() -> None:
    """R3.8 / R4: after the last trick is scored nothing may be played, passed or chosen."""
    r = over_round()
    assert r.phase is Phase.OVER and r.to_move is None
    refused(r.clone(), lambda x: x.play("2C", seat=0), IllegalPlay, seat=0, names=("2C", "over"))
    refused(r.clone(), lambda x: x.play("AS"), IllegalPlay, names=("AS", "over"))
    refused(r.clone(), lambda x: x.pass_cards(0, "2C 3C 4C"), IllegalPass, seat=0, names=("2C 3C 4C", "over"))
    refused(r, lambda x: x.choose_moon(0, "add"), IllegalMoonChoice, seat=0)


def test_errors_are_value_errors() -> None:
    """R1–R4: every refusal class is a HeartsError and a ValueError."""
    for cls in (IllegalAction, IllegalPlay, IllegalPass, IllegalMoonChoice):
        assert issubclass(cls, HeartsError) and issubclass(cls, ValueError)
    assert not issubclass(IllegalPass, IllegalPlay) and not issubclass(IllegalPlay, IllegalPass)


# --- property: any refused play changes nothing -----------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    n=st.sampled_from(NS),
    seed=st.integers(0, 10_000),
    moves=st.integers(0, 60),
    card=st.integers(0, 51),
    seat=st.none() | st.integers(-1, 6),
)
def test_r3_any_refused_play_changes_nothing(
    n: int, seed: int, moves: int, card: int, seat: int | None
) -> None:
    """R1.3, R1.4, R3: at a random position, a random (card, seat) is accepted exactly when the
    card is legal and the seat is the one to move; a refusal leaves the round unchanged."""
    rng = random.Random(seed)
    r = Round.deal(Rules(players=n), rng)
    for s in r.seats_to_pass():
        r.pass_cards(s, rng.sample(list(r.hand(s)), 3))
    for _ in range(min(moves, r.hand_size * n - 1)):
        r.play(rng.choice(list(r.legal_plays())))
    ok = card in r.legal_plays() and (seat is None or seat == r.to_move)
    before = snapshot(r)
    if ok:
        r.play(card, seat=seat)
        assert len(r.plays) == len(before["plays"]) + 1 and r.plays[-1] == card
    else:
        with pytest.raises(IllegalPlay) as ei:
            r.play(card, seat=seat)
        assert ei.value.rule in str(ei.value) and Card(card).__str__() in str(ei.value)
        assert snapshot(r) == before


# --- the Game API: refused actions, malformed actions, bad construction -----------------------


def game_snapshot(game: Game) -> tuple[object, ...]:
    """Everything observable about a game: its actions, totals, winners and each round."""
    return (
        game.history,
        game.round_starts,
        tuple(game.totals),
        tuple(game.score_history),
        game.winners,
        tuple(json.dumps(round_to_dict(r), sort_keys=True) for r in game.rounds),
        tuple(snapshot(game.round).items()),
    )


ANY_ACTION = st.one_of(
    st.builds(Play, st.integers(0, 6), st.integers(0, 51)),
    st.builds(Moon, st.integers(0, 6), st.sampled_from(["add", "subtract"])),
    st.builds(
        Pass, st.integers(0, 6), st.lists(st.integers(0, 51), min_size=0, max_size=4, unique=True).map(CardSet)
    ),
)


@settings(max_examples=200, deadline=None)
@given(
    n=st.sampled_from(NS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 120),
    action=ANY_ACTION,
    moon=st.sampled_from(["add_to_others", "shooter_chooses"]),
)
def test_game_apply_is_legal_exactly_when_listed_and_a_refusal_changes_nothing(
    n: int, seed: int, steps: int, action: Pass | Play | Moon, moon: str
) -> None:
    """R1.4, R2.1, R3, R4.4: at a random position of a game, a random action is accepted
    exactly when it is in ``legal_actions(action.seat)`` of an actor; a refused one raises an
    IllegalAction and leaves ``history`` and the whole state unchanged."""
    game = Game(Rules(players=n, moon=moon, target=60), seed=seed)  # type: ignore[arg-type]
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        random_step(game, rng)
    legal = action.seat in game.actors() and action in game.legal_actions(action.seat)
    before = game_snapshot(game)
    if legal:
        game.apply(action)
        assert game.history[-1] == action
    else:
        with pytest.raises(IllegalAction) as ei:
            game.apply(action)
        assert re.match(r"R\d", str(ei.value)), str(ei.value)
        assert game_snapshot(game) == before


def test_a_refusal_at_a_rounds_last_card_leaves_the_hidden_state_too() -> None:
    """R1.4, R3: the game takes the next round's shuffle before a round's last play; when
    that play is refused, the shuffle is put back, so the whole game, its random generator
    and the next deal included (compared pickled), is as before."""
    game = Game(seed=12)
    rng = random.Random(12)
    while game.round.cards_left > 1:
        random_step(game, rng)
    mover = game.to_move
    assert mover is not None
    last = next(iter(game.legal_actions(mover)))
    before = pickle.dumps(game)
    for refused in (Play((mover + 1) % 4, last.card), Play(mover, "2C"), "no action"):  # type: ignore[arg-type]
        with pytest.raises(IllegalAction):
            game.apply(refused)  # type: ignore[arg-type]
        assert pickle.dumps(game) == before
    game.apply(last)
    assert len(game.rounds) == 2 and game.round.cards_left == 52


def test_game_refuses_what_is_not_an_action_and_after_the_end() -> None:
    """R1.4: apply() of something that is not an action; R5.1: any action once the game is
    over. Both are IllegalActions and change nothing."""
    game = Game(Rules(target=1), seed=4)
    before = game_snapshot(game)
    for bad in ("QS", ("play", "QS"), None, {"type": "play", "seat": 0, "card": "2C"}):
        with pytest.raises(IllegalAction, match=r"R1.4.*not an action"):
            game.apply(bad)  # type: ignore[arg-type]
        assert game_snapshot(game) == before
    rng = random.Random(1)
    while not game.is_over:
        random_step(game, rng)
    over = game_snapshot(game)
    with pytest.raises(GameOver, match=r"R5.1"):
        game.apply(Play(0, "2C"))
    assert game_snapshot(game) == over
    assert game.actors() == ()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "play", "seat": 0, "card": "1X"}, "R1.2"),
        ({"type": "play", "seat": -1, "card": "QS"}, "R1.4"),
        ({"type": "play", "seat": True, "card": "QS"}, "R1.4"),
        ({"type": "play", "seat": 0}, "needs its 'card'"),
        ({"type": "play", "seat": 0, "card": 43}, "R1.2"),
        ({"type": "pass", "seat": 0, "cards": "QS AH 2C"}, "R2.1"),
        ({"type": "pass", "seat": 0, "cards": ["QS", "QX"]}, "R2.1"),
        ({"type": "moon", "seat": 0, "choice": "both"}, "R4.4"),
        ({"type": "jump", "seat": 0}, "unknown action type"),
        ({"type": "play", "seat": 0, "card": "QS", "extra": 1}, "not 'extra'"),
        (["play", 0, "QS"], "JSON object"),
    ],
)
def test_malformed_actions_are_action_errors(data: object, message: str) -> None:
    """A malformed action in the codec is an ActionError (a ValueError) that says what is wrong."""
    with pytest.raises(ActionError, match=re.escape(message)):
        action_from_dict(data)
    with pytest.raises(ActionError):
        action_from_json("[" * 100_000 + "]" * 100_000)


def test_bad_rules_and_round_arguments_name_the_rule() -> None:
    """R6: an unknown option is a RulesError (not a TypeError) naming it; R1.1-R5 values name
    their rule; a round's number, totals and rules are checked (R2.2, R5, R6)."""
    with pytest.raises(RulesError, match=r"^R6: unknown option 'unknown_option'"):
        Rules(unknown_option=1)  # type: ignore[call-arg]
    with pytest.raises(RulesError, match=r"^R4.4: option 'moon'"):
        Rules(moon="sometimes")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match=r"^R2.1: option 'pass_count'"):
        Rules(players=6, pass_count=8)
    with pytest.raises(RulesError, match=r"^R2.2"):
        Rules(players=3, pass_cycle=("across",))
    with pytest.raises(CardParseError, match=r"^R1.2: "):
        Card.parse("1X")
    deal = Round.deal(Rules(), seed=1).dealt
    for kwargs, rule in (
        ({"round_number": "x"}, "R2.2"),
        ({"round_number": -1}, "R2.2"),
        ({"round_number": True}, "R2.2"),
        ({"scores_before": ["a", "b", "c", "d"]}, "R5"),
        ({"scores_before": [0, 0, 0]}, "R5"),
    ):
        with pytest.raises(RulesError, match=rf"^{rule}: "):
            Round(Rules(), deal, **kwargs)  # type: ignore[arg-type]
        with pytest.raises(RulesError, match=rf"^{rule}: "):
            Round.deal(Rules(), seed=1, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match=r"^R6: rules must be a Rules value"):
        Round.deal({"players": 4}, seed=1)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match=r"^R6: rules must be a Rules value"):
        Game({"players": 4})  # type: ignore[arg-type]
    for text in ("[" * 100_000 + "]" * 100_000, b"\xff", "{"):  # R6: rules as JSON
        with pytest.raises(RulesError, match=r"^R6: rules are not valid JSON"):
            Rules.from_json(text)
    for seed in ("x", 1.5, True):  # R1.3: a round's seed, as a game's
        with pytest.raises(RulesError, match=r"^R1.3: "):
            Round.deal(Rules(), seed=seed)  # type: ignore[arg-type]


def test_game_checks_every_explicit_deal_up_front_and_takes_start_totals() -> None:
    """R1.2: an invalid later deal is refused when the game is made, not at the end of the
    round before it; R5: a game starts from given totals, which are checked."""
    good = Round.deal(Rules(), seed=1).dealt
    bad = [good[0], good[0], good[2], good[3]]
    with pytest.raises(CardParseError, match=r"^R1.2: .* dealt twice"):
        Game(Rules(), seed=1, deals=[good, bad])
    for deals in (5, "2C 3C", object()):
        with pytest.raises(CardParseError, match=r"^R1.2: deals is a list of deals"):
            Game(Rules(), seed=1, deals=deals)  # type: ignore[arg-type]
    game = Game(Rules(target=110), seed=2, scores=[90, 95, 99, 80])
    assert game.totals == [90, 95, 99, 80] and game.start_scores == (90, 95, 99, 80)
    rng = random.Random(2)
    while not game.score_history:
        random_step(game, rng)
    assert [t - s for t, s in zip(game.totals, (90, 95, 99, 80), strict=True)] == list(game.results[0].scores)
    for scores in ([0, 0, 0], ["0", 0, 0, 0], "0000"):
        with pytest.raises(RulesError, match=r"^R5: "):
            Game(Rules(), seed=1, scores=scores)  # type: ignore[arg-type]
    for seed in ("7", 1.5, True):
        with pytest.raises(RulesError, match=r"^R1.3: "):
            Game(Rules(), seed=seed)  # type: ignore[arg-type]
