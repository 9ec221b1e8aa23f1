"""Records (DESIGN.md "A record is the event list"; RULES.md R1-R5 replayed): save, load and
replay rounds and games, finished or not, under every moon variant (R4.4); forged records are
refused with a RecordError that names the wrong event."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers import moon_deal, play_moon_round, random_step, round_state
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts import Card, CardSet, Game, Phase, RecordError, Round, Rules
from hearts.record import (
    GAME_FORMAT,
    ROUND_FORMAT,
    VERSION,
    dumps,
    game_to_record,
    load,
    load_game,
    load_round,
    loads,
    round_to_record,
    save,
)

MOONS = ["add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing"]

# --- helpers -------------------------------------------------------------------------------

def play_game(game: Game, rng: random.Random, limit: int = 100_000) -> None:
    for _ in range(limit):
        if game.is_over:
            return
        random_step(game, rng)


def game_state(game: Game) -> tuple[Any, ...]:
    return (
        game.rules,
        list(game.totals),
        list(game.history),
        game.winners,
        game.is_over,
        [round_state(r) for r in game.rounds],
    )


def game_roundtrip(game: Game) -> Game:
    loaded = loads(dumps(game))
    assert isinstance(loaded, Game)
    return loaded


def round_roundtrip(r: Round) -> Round:
    loaded = loads(dumps(r))
    assert isinstance(loaded, Round)
    return loaded


def finished_game(seed: int = 1, **options: Any) -> Game:
    game = Game(Rules(**{"target": 40, **options}), seed=seed)
    play_game(game, random.Random(seed))
    assert game.is_over
    return game


def seat_of_play(r: Round, k: int) -> int:
    """The seat that made play number ``k`` of the round."""
    tricks = (*r.tricks, r.current_trick)
    return tricks[k // r.players].plays[k % r.players][0]


# --- round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_round_roundtrip_finished_and_unfinished(players: int) -> None:
    """Record round trip of a round at every moment: the replay has the same state, and playing
    on from both with the same choices ends the same (R1-R4)."""
    rules = Rules(players=players, jack_of_diamonds=-10, no_tricks_bonus=-5)
    r = Round.deal(rules, seed=players, round_number=1, scores_before=tuple(range(players)))
    rng = random.Random(players)
    k = 0
    while True:
        if k % 7 == 0 or r.is_over:
            loaded = round_roundtrip(r)
            assert round_state(loaded) == round_state(r)
            assert round_to_record(loaded) == round_to_record(r)
            if not r.is_over:  # resume: the same choices lead to the same end
                a, b = r.clone(), loaded
                ra, rb = random.Random(k), random.Random(k)
                while not a.is_over:
                    random_step(a, ra)
                    random_step(b, rb)
                assert round_state(a) == round_state(b)
        if r.is_over:
            break
        random_step(r, rng)
        k += 1
    assert r.result is not None


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_game_roundtrip_finished(players: int) -> None:
    """Record round trip of a finished game: totals, history, winners and every round (R5)."""
    game = finished_game(seed=players, players=players)
    data = game_to_record(game)
    assert data["format"] == GAME_FORMAT and data["version"] == VERSION
    assert data["totals"] == game.totals and data["winners"] == list(game.winners or [])
    assert len(data["rounds"]) == len(game.rounds)
    loaded = game_roundtrip(game)
    assert game_state(loaded) == game_state(game)
    assert json.loads(dumps(loaded)) == json.loads(dumps(game))


@pytest.mark.parametrize("stop", [0, 1, 3, 30, 57, 120, 200])
def test_game_roundtrip_unfinished_resumes(stop: int) -> None:
    """An unfinished game's record loads to the same state and can be played on to its end;
    the current round played on identically ends identically (R5)."""
    game = Game(Rules(target=60), seed=stop)
    rng = random.Random(stop)
    for _ in range(stop):
        random_step(game, rng)
    assert not game.is_over
    loaded = game_roundtrip(game)
    assert game_state(loaded) == game_state(game)
    number = len(game.rounds)
    ra, rb = random.Random(99), random.Random(99)
    while len(game.rounds) == number and not game.is_over:
        random_step(game, ra)
        random_step(loaded, rb)
    assert loaded.results == game.results
    assert loaded.totals == game.totals
    play_game(loaded, random.Random(5))
    assert loaded.is_over
    assert loaded.winners == tuple(s for s, t in enumerate(loaded.totals) if t == min(loaded.totals))


@pytest.mark.parametrize("moon", MOONS)
def test_game_roundtrip_every_moon_variant(moon: str) -> None:
    """R4.4: a game with moon rounds under each variant records and replays the same scores;
    under shooter_chooses the recorded choice is replayed."""
    rules = Rules(pass_count=0, moon=moon, target=200)  # type: ignore[arg-type]
    game = Game(rules, seed=0, deals=[moon_deal(4, 1), moon_deal(4, 2), moon_deal(4, 3)])
    choices = iter(["subtract", "add", "subtract"])
    for shooter in (1, 2, 3):
        play_moon_round(game, shooter)
        if game.phase is Phase.MOON_CHOICE:
            game.choose_moon(shooter, next(choices))  # type: ignore[arg-type]
    assert [res.shooter for res in game.results] == [1, 2, 3]
    data = game_to_record(game)
    recorded = [entry["moon_choice"] for entry in data["rounds"][:3]]
    if moon == "shooter_chooses":
        assert recorded == ["subtract", "add", "subtract"]
        assert game.history[:3] == [(0, -26, 0, 0), (26, 0, 0, 26), (26, 0, 0, 0)]
    else:
        assert recorded == [None, None, None]
    loaded = game_roundtrip(game)
    assert game_state(loaded) == game_state(game)
    assert [res.moon_choice for res in loaded.results] == [res.moon_choice for res in game.results]


@pytest.mark.parametrize("choice", ["add", "subtract"])
def test_record_pending_moon_choice(choice: str) -> None:
    """R4.4 shooter_chooses: a record saved while the shooter has to choose loads in the
    MOON_CHOICE phase, and the choice can then be made on the loaded game or round."""
    rules = Rules(pass_count=0, moon="shooter_chooses")
    game = Game(rules, seed=0, deals=[moon_deal(4, 2)])
    play_moon_round(game, 2)
    assert game.phase is Phase.MOON_CHOICE
    data = game_to_record(game)
    assert data["rounds"][0]["moon_choice"] is None and data["rounds"][0]["scores"] is None
    loaded = game_roundtrip(game)
    assert loaded.phase is Phase.MOON_CHOICE and loaded.to_move == 2
    assert game_state(loaded) == game_state(game)
    loaded.choose_moon(2, choice)  # type: ignore[arg-type]
    game.choose_moon(2, choice)  # type: ignore[arg-type]
    assert loaded.totals == game.totals == ([26, 26, 0, 26] if choice == "add" else [0, 0, -26, 0])
    # The single round too.
    r = Round(rules, moon_deal(4, 0))
    while r.phase is Phase.PLAYING:
        legal = list(r.legal_plays())
        r.play(max(legal) if r.to_move == 0 else min(legal))
    lr = round_roundtrip(r)
    assert lr.phase is Phase.MOON_CHOICE and lr.to_move == 0
    lr.choose_moon(0, choice)  # type: ignore[arg-type]
    again = round_roundtrip(lr)
    assert again.result == lr.result and again.result is not None
    assert again.result.moon_choice == choice
    assert round_to_record(again)["moon_choice"] == choice


def test_save_and_load_files(tmp_path: Path) -> None:
    """Records go to UTF-8 JSON files and come back the same (rounds and games)."""
    game = finished_game(seed=7)
    path = tmp_path / "game.json"
    save(game, path, seats=["Ann", "Bob", "Cy", "Dee"])
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["seats"] == ["Ann", "Bob", "Cy", "Dee"]
    loaded = load(path)
    assert isinstance(loaded, Game) and game_state(loaded) == game_state(game)
    r = Round.deal(Rules(players=3), seed=7)
    rng = random.Random(7)
    for _ in range(20):
        random_step(r, rng)
    save(r, tmp_path / "round.json")
    loaded_round = load(str(tmp_path / "round.json"))
    assert isinstance(loaded_round, Round) and round_state(loaded_round) == round_state(r)
    assert json.loads((tmp_path / "round.json").read_text(encoding="utf-8"))["format"] == ROUND_FORMAT
    with pytest.raises(RecordError):
        load(tmp_path / "missing.json")


# --- forged records ------------------------------------------------------------------------


def test_forged_illegal_play_card_not_held() -> None:
    """R1.3/R3: a play of a card the mover does not hold is refused; the message names the
    round, the play's index, the seat and the card."""
    game = finished_game(seed=2)
    data = game_to_record(game)
    r = game.rounds[1]
    k = 6
    forged = copy.deepcopy(data)
    forged["rounds"][1]["plays"][k] = forged["rounds"][1]["plays"][k - 1]
    with pytest.raises(RecordError) as e:
        load_game(forged)
    seat = seat_of_play(r, k)
    card = data["rounds"][1]["plays"][k - 1]
    assert f"round 1, play {k} (seat {seat}, {card!r})" in str(e.value)


def test_forged_illegal_play_against_follow_suit() -> None:
    """R3: a held card that breaks the rules (here: not following suit, or not leading the
    lowest club) is refused, naming round, play, seat, card and the rule."""
    game = finished_game(seed=3)
    data = game_to_record(game)
    entry = data["rounds"][0]
    r = game.rounds[0]
    replay = Round(game.rules, r.dealt)
    for seat, cards in enumerate(entry["passes"] or []):
        replay.pass_cards(seat, cards)
    for k in range(len(entry["plays"])):
        mover = replay.to_move
        assert mover is not None
        illegal = [c for c in replay.hand(mover) if c not in replay.legal_plays()]
        if illegal:
            break
        replay.play(entry["plays"][k])
    else:
        raise AssertionError("no play with an illegal alternative")
    forged = copy.deepcopy(data)
    forged["rounds"][0]["plays"][k] = str(illegal[0])
    with pytest.raises(RecordError) as e:
        load_game(forged)
    message = str(e.value)
    assert f"round 0, play {k} (seat {mover}, '{illegal[0]}')" in message
    assert "R3." in message


def test_forged_play_in_round_record() -> None:
    """A round record with an illegal play names the play's index, the seat and the card."""
    r = Round.deal(Rules(), seed=4)
    rng = random.Random(4)
    while not r.is_over:
        random_step(r, rng)
    data = round_to_record(r)
    data["plays"][9] = "ZZ"
    with pytest.raises(RecordError) as e:
        load_round(data)
    assert f"play 9 (seat {seat_of_play(r, 9)}, 'ZZ')" in str(e.value)


def test_forged_wrong_score() -> None:
    """R4: a round's recorded scores that replaying does not give are refused, naming the round."""
    game = finished_game(seed=5)
    data = game_to_record(game)
    data["rounds"][1]["scores"][0] += 1
    with pytest.raises(RecordError, match=r"round 1: the recorded scores"):
        load_game(data)
    r = game.rounds[0]
    rd = round_to_record(r)
    rd["scores"] = [s + 1 for s in rd["scores"]]
    with pytest.raises(RecordError, match="recorded scores"):
        load_round(rd)


def test_forged_wrong_totals_and_winners() -> None:
    """R5: wrong totals or wrong winners are refused, naming which."""
    game = finished_game(seed=6)
    data = game_to_record(game)
    bad = copy.deepcopy(data)
    bad["totals"][2] -= 3
    with pytest.raises(RecordError, match="totals"):
        load_game(bad)
    bad = copy.deepcopy(data)
    assert game.winners is not None
    bad["winners"] = [(game.winners[0] + 1) % 4]
    with pytest.raises(RecordError, match="winners"):
        load_game(bad)


@pytest.mark.parametrize("round_index", [0, 1])
def test_forged_deal_duplicate_card(round_index: int) -> None:
    """R1.2: a deal with one card in two hands is refused, naming that round's deal."""
    game = finished_game(seed=8)
    data = game_to_record(game)
    deal = data["rounds"][round_index]["deal"]
    h0, h1 = deal[0].split(), deal[1].split()
    h1[0] = h0[0]
    deal[1] = " ".join(h1)
    with pytest.raises(RecordError) as e:
        load_game(data)
    assert f"round {round_index}, deal" in str(e.value)
    assert h0[0] in str(e.value)


def test_forged_deal_duplicate_within_hand_and_short_hand() -> None:
    """R1.2: a card twice in one hand, or a hand of the wrong size, is refused."""
    game = finished_game(seed=9)
    data = game_to_record(game)
    bad = copy.deepcopy(data)
    h = bad["rounds"][2]["deal"][3].split()
    h[1] = h[0]
    bad["rounds"][2]["deal"][3] = " ".join(h)
    with pytest.raises(RecordError, match="round 2, deal"):
        load_game(bad)
    bad = copy.deepcopy(data)
    bad["rounds"][0]["deal"][0] = " ".join(bad["rounds"][0]["deal"][0].split()[1:])
    with pytest.raises(RecordError, match="round 0"):
        load_game(bad)
    rd = round_to_record(game.rounds[0])
    rd["deal"][1] = rd["deal"][0]
    with pytest.raises(RecordError, match="deal"):
        load_round(rd)


def test_forged_pass() -> None:
    """R2.1: a pass of a card not held, or of the wrong number of cards, is refused, naming the
    round and the seat."""
    game = finished_game(seed=10)
    data = game_to_record(game)
    entry = data["rounds"][0]
    assert entry["passes"] is not None
    dealt = [CardSet.parse(h) for h in entry["deal"]]
    foreign = next(iter(dealt[3]))
    bad = copy.deepcopy(data)
    passed = bad["rounds"][0]["passes"][1].split()
    passed[0] = str(foreign)
    bad["rounds"][0]["passes"][1] = " ".join(passed)
    with pytest.raises(RecordError) as e:
        load_game(bad)
    assert "round 0, pass of seat 1" in str(e.value) and "R2.1" in str(e.value)
    bad = copy.deepcopy(data)
    bad["rounds"][0]["passes"][2] = " ".join(bad["rounds"][0]["passes"][2].split()[:2])
    with pytest.raises(RecordError, match="round 0, pass of seat 2"):
        load_game(bad)
    bad = copy.deepcopy(data)
    hold = next(i for i, r in enumerate(game.rounds) if r.pass_offset == 0)
    bad["rounds"][hold]["passes"] = [
        str(CardSet(list(CardSet.parse(h))[:3])) for h in bad["rounds"][hold]["deal"]
    ]
    with pytest.raises(RecordError, match=f"round {hold}, pass of seat 0"):
        load_game(bad)  # R2.2: nobody passes in a hold round


def test_forged_header_json_rules(tmp_path: Path) -> None:
    """Unknown format or version, malformed JSON, unknown rule option or bad value: refused."""
    game = finished_game(seed=11)
    data = game_to_record(game)
    for key, value, pattern in (
        ("format", "pyhearts.chess", "format"),
        ("version", VERSION + 1, "version"),
        ("version", None, "version"),
    ):
        bad = {**data, key: value}
        with pytest.raises(RecordError, match=pattern):
            loads(json.dumps(bad))
        with pytest.raises(RecordError, match=pattern):
            load_game(bad)
    for text in ("{", "", "[1, 2]", '"a game"', "{'format': 1}"):
        with pytest.raises(RecordError):
            loads(text)
    path = tmp_path / "broken.json"
    path.write_text(dumps(game)[:-20], encoding="utf-8")
    with pytest.raises(RecordError, match="JSON"):
        load(path)
    bad = copy.deepcopy(data)
    bad["rules"]["house_rule"] = True
    with pytest.raises(RecordError, match="house_rule"):
        load_game(bad)
    bad = copy.deepcopy(data)
    bad["rules"]["moon"] = "sometimes"
    with pytest.raises(RecordError, match="moon"):
        load_game(bad)
    rd = round_to_record(game.rounds[0])
    rd["rules"]["players"] = 7
    with pytest.raises(RecordError, match="players"):
        load_round(rd)
    rd = round_to_record(game.rounds[0])
    rd["version"] = 0
    with pytest.raises(RecordError, match="version"):
        load_round(rd)


def test_forged_moon_choice_and_round_structure() -> None:
    """R4.4: a moon choice other than add/subtract is refused; rounds after the end of the game,
    or after an unfinished round, are refused (R5.1)."""
    rules = Rules(pass_count=0, moon="shooter_chooses", target=26)
    game = Game(rules, seed=0, deals=[moon_deal(4, 1)])
    play_moon_round(game, 1)
    game.choose_moon(1, "subtract")
    assert not game.is_over  # -26 for the shooter: nobody at the target
    play_game(game, random.Random(1))
    data = game_to_record(game)
    bad = copy.deepcopy(data)
    bad["rounds"][0]["moon_choice"] = "double"
    bad["rounds"][0]["scores"] = None
    with pytest.raises(RecordError, match="round 0, moon choice"):
        load_game(bad)
    bad = copy.deepcopy(data)
    bad["rounds"].append(copy.deepcopy(bad["rounds"][-1]))
    bad["totals"] = None
    bad["winners"] = None
    with pytest.raises(RecordError, match=f"round {len(game.rounds)}: the game has ended"):
        load_game(bad)
    unfinished = Game(Rules(), seed=3)
    rng = random.Random(3)
    for _ in range(20):
        random_step(unfinished, rng)
    bad = game_to_record(unfinished)
    bad["rounds"].append(copy.deepcopy(bad["rounds"][0]))
    with pytest.raises(RecordError, match="round 0 is not finished"):
        load_game(bad)


# --- property ------------------------------------------------------------------------------


@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(3, 6),
    moon=st.sampled_from(MOONS),
    steps=st.integers(0, 400),
)
@settings(max_examples=25, deadline=None)
def test_record_roundtrip_property(seed: int, players: int, moon: str, steps: int) -> None:
    """Property: any game (finished or not) and its current round survive dumps -> loads with
    the same state; the replayed record is the same record."""
    rules = Rules(players=players, moon=moon, target=50, jack_of_diamonds=-10)  # type: ignore[arg-type]
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        random_step(game, rng)
    loaded = game_roundtrip(game)
    assert game_state(loaded) == game_state(game)
    assert game_to_record(loaded) == game_to_record(game)
    r = round_roundtrip(game.round)
    assert round_state(r) == round_state(game.round)
    for seat in range(players):  # the loaded round accepts the same next action
        assert r.hand(seat) == game.round.hand(seat)
    if r.phase is Phase.PLAYING:
        card = Card(min(r.legal_plays()))
        r.play(card)
        game.round.clone().play(card)
