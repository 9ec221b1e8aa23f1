"""Records (docs/architecture.md: a record is the action list; the rule book R1-R5 replayed): save, load and
replay rounds and games, finished or not, under every moon variant (R4.4), with their seats
(names, bot specs) and seed; forged records are refused with a RecordError that names the wrong
action; version 1 records still load."""

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
from hearts.actions import Moon, Pass, Play, to_dict, to_json
from hearts.record import (
    GAME_FORMAT,
    ROUND_FORMAT,
    VERSION,
    GameRecord,
    Seat,
    dumps,
    from_dict,
    game_to_dict,
    load,
    loads,
    round_to_dict,
    save,
)

MOONS = ["add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing"]
SEATS = [Seat("Ann"), Seat("Ben", bot="hard"), Seat("Cy", bot="search:iterations=900"), Seat("Di", bot="easy")]

# --- helpers -------------------------------------------------------------------------------


def play_game(game: Game, rng: random.Random, limit: int = 100_000) -> None:
    for _ in range(limit):
        if game.is_over:
            return
        random_step(game, rng)


def game_state(game: Game) -> tuple[Any, ...]:
    return (
        game.rules,
        game.seed,
        list(game.totals),
        list(game.score_history),
        game.history,
        game.winners,
        game.is_over,
        [round_state(r) for r in game.rounds],
    )


def named(game: Game) -> GameRecord:
    n = game.rules.players
    return GameRecord(game, [*SEATS, Seat("Eve"), Seat("Fay", bot="random")][:n])


def game_roundtrip(game: Game) -> GameRecord:
    loaded = loads(dumps(named(game)))
    assert isinstance(loaded, GameRecord)
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


def v1_record(game: Game, names: list[str] | None = None) -> dict[str, Any]:
    """The version 1 game record the previous release wrote: events per round, names only."""
    rounds = []
    for r in game.rounds:
        result = r.result
        rounds.append(
            {
                "deal": [str(h) for h in r.dealt],
                "passes": [None if (p := r.passed(s)) is None else str(p) for s in range(r.players)]
                if r.pass_offset
                else None,
                "plays": [str(c) for c in r.plays],
                "moon_choice": result.moon_choice if result and r.rules.moon == "shooter_chooses" else None,
                "scores": list(result.scores) if result else None,
            }
        )
    return {
        "format": GAME_FORMAT,
        "version": 1,
        "rules": game.rules.to_dict(),
        "seats": names or [f"Seat {s}" for s in range(game.rules.players)],
        "rounds": rounds,
        "totals": list(game.totals),
        "winners": list(game.winners) if game.winners is not None else None,
    }


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
            assert round_to_dict(loaded) == round_to_dict(r)
            assert dumps(loaded) == dumps(r)
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
    """Record round trip of a finished game: rules, seed, seats, deals, actions, totals, winners
    (R5); save -> load -> save gives the same bytes."""
    game = finished_game(seed=players, players=players)
    data = game_to_dict(named(game))
    assert data["format"] == GAME_FORMAT and data["version"] == VERSION == 2
    assert data["seed"] == players and data["scores"] == [0] * players
    assert data["totals"] == game.totals and data["winners"] == list(game.winners or [])
    assert len(data["deals"]) == len(game.rounds)
    assert data["actions"] == [to_dict(a) for a in game.history]
    assert data["seats"][:4] == [s.to_dict() for s in SEATS][:players]
    text = dumps(named(game))
    loaded = loads(text)
    assert isinstance(loaded, GameRecord)
    assert game_state(loaded.game) == game_state(game)
    assert loaded.seats == named(game).seats
    assert dumps(loaded) == text
    for a in game.history:  # one action a line, in the codec's text
        assert f"  {to_json(a)}" in text.splitlines() or f"  {to_json(a)}," in text.splitlines()


@pytest.mark.parametrize("stop", [0, 1, 3, 30, 57, 120, 200])
def test_game_roundtrip_unfinished_resumes(stop: int) -> None:
    """An unfinished game's record loads to the same state and plays on exactly as the
    original: the same choices give the same rounds, later deals included (R1.3, R5)."""
    game = Game(Rules(target=60), seed=stop)
    rng = random.Random(stop)
    for _ in range(stop):
        random_step(game, rng)
    assert not game.is_over
    loaded = game_roundtrip(game).game
    assert game_state(loaded) == game_state(game)
    ra, rb = random.Random(99), random.Random(99)
    while not game.is_over:
        random_step(game, ra)
        random_step(loaded, rb)
    assert game_state(loaded) == game_state(game)
    assert loaded.winners == tuple(s for s, t in enumerate(loaded.totals) if t == min(loaded.totals))


def test_resumed_game_deals_the_seeds_later_rounds() -> None:
    """R1.3: a game resumed from its record continues with the same seed, so every later
    round is dealt exactly as in the uninterrupted game, whatever is played."""
    seed = 3
    original = Game(Rules(target=100), seed=seed)
    play_game(original, random.Random(1))
    partial = Game(Rules(target=100), seed=seed)
    rng = random.Random(2)
    while len(partial.rounds) < 3:
        random_step(partial, rng)
    resumed = game_roundtrip(partial).game
    assert resumed.seed == seed
    play_game(resumed, random.Random(7))  # other choices than the original's
    k = min(len(original.rounds), len(resumed.rounds))
    assert k >= 4
    assert [r.dealt for r in resumed.rounds[:k]] == [r.dealt for r in original.rounds[:k]]


def test_game_with_start_scores_and_explicit_deals_roundtrips() -> None:
    """R5: a game started from given totals, its first deals explicit, records both."""
    deals = [moon_deal(4, 1), moon_deal(4, 2)]
    game = Game(Rules(pass_count=0, target=150), seed=5, deals=deals, scores=[10, 20, 30, 40])
    play_moon_round(game, 1)
    assert game.totals == [36, 20, 56, 66]
    loaded = game_roundtrip(game).game
    assert loaded.start_scores == (10, 20, 30, 40)
    assert game_state(loaded) == game_state(game)


@pytest.mark.parametrize("moon", MOONS)
def test_game_roundtrip_every_moon_variant(moon: str) -> None:
    """R4.4: a game with moon rounds under each variant records and replays the same scores;
    under shooter_chooses the recorded choice is a Moon action that is replayed."""
    rules = Rules(pass_count=0, moon=moon, target=200)  # type: ignore[arg-type]
    game = Game(rules, seed=0, deals=[moon_deal(4, 1), moon_deal(4, 2), moon_deal(4, 3)])
    choices = iter(["subtract", "add", "subtract"])
    for shooter in (1, 2, 3):
        play_moon_round(game, shooter)
        if game.phase is Phase.MOON_CHOICE:
            game.apply(Moon(shooter, next(choices)))  # type: ignore[arg-type]
    assert [res.shooter for res in game.results] == [1, 2, 3]
    moons = [a for a in game.history if isinstance(a, Moon)]
    if moon == "shooter_chooses":
        assert moons == [Moon(1, "subtract"), Moon(2, "add"), Moon(3, "subtract")]
        assert game.score_history[:3] == [(0, -26, 0, 0), (26, 0, 0, 26), (26, 0, 0, 0)]
    else:
        assert moons == []
    loaded = game_roundtrip(game).game
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
    loaded = game_roundtrip(game).game
    assert loaded.phase is Phase.MOON_CHOICE and loaded.to_move == 2
    assert game_state(loaded) == game_state(game)
    loaded.apply(Moon(2, choice))  # type: ignore[arg-type]
    game.apply(Moon(2, choice))  # type: ignore[arg-type]
    assert loaded.totals == game.totals == ([26, 26, 0, 26] if choice == "add" else [0, 0, -26, 0])
    # The single round too.
    r = Round(rules, moon_deal(4, 0))
    while r.phase is Phase.PLAYING:
        legal = list(r.legal_plays())
        r.play(max(legal) if r.to_move == 0 else min(legal))
    lr = round_roundtrip(r)
    assert lr.phase is Phase.MOON_CHOICE and lr.to_move == 0
    lr.apply(Moon(0, choice))  # type: ignore[arg-type]
    again = round_roundtrip(lr)
    assert again.result == lr.result and again.result is not None
    assert again.result.moon_choice == choice
    assert round_to_dict(again)["actions"][-1] == {"type": "moon", "seat": 0, "choice": choice}


def test_save_and_load_files(tmp_path: Path) -> None:
    """Records go to UTF-8 JSON files and come back the same (rounds and games)."""
    game = finished_game(seed=7)
    path = tmp_path / "game.json"
    save(named(game), path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [s["name"] for s in data["seats"]] == ["Ann", "Ben", "Cy", "Di"]
    assert [s["bot"] for s in data["seats"]] == [None, "hard", "search:iterations=900", "easy"]
    loaded = load(path)
    assert isinstance(loaded, GameRecord) and game_state(loaded.game) == game_state(game)
    save(loaded, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()
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


def test_a_bare_game_is_recorded_with_unnamed_seats_and_anything_else_is_refused() -> None:
    """R5: ``dumps(game)`` records a game without seats as GameRecord.unnamed does; what is no
    game, record or round is a RecordError, not an AttributeError."""
    game = finished_game(seed=8)
    assert dumps(game) == dumps(GameRecord.unnamed(game))
    assert [s.name for s in loads(dumps(game)).seats] == ["Seat 0", "Seat 1", "Seat 2", "Seat 3"]  # type: ignore[union-attr]
    for bad in (None, "a game", game.rules, [game]):
        with pytest.raises(RecordError, match="a GameRecord, a Game or a Round"):
            dumps(bad)  # type: ignore[arg-type]


# --- version 1 -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 6])
def test_version_1_records_still_load(players: int) -> None:
    """A version 1 record (per-round events, names only) replays to the same game; it loads
    with the names and no bot specs, and saves as version 2."""
    game = finished_game(seed=20 + players, players=players, moon="shooter_chooses")
    names = [f"P{s}" for s in range(players)]
    loaded = from_dict(v1_record(game, names))
    assert isinstance(loaded, GameRecord)
    assert [s.name for s in loaded.seats] == names and not any(s.is_bot for s in loaded.seats)
    assert loaded.game.totals == game.totals and loaded.game.winners == game.winners
    assert [r.dealt for r in loaded.game.rounds] == [r.dealt for r in game.rounds]
    assert [r.plays for r in loaded.game.rounds] == [r.plays for r in game.rounds]
    assert json.loads(dumps(loaded))["version"] == 2
    assert loaded.game.seed is None and dumps(loads(dumps(loaded))) == dumps(loaded)  # no seed made up


def test_version_1_forgeries_are_refused() -> None:
    """Version 1: an illegal play names round, play, seat and card (R3); wrong scores (R4);
    a moon choice in a round without a moon (R4.4); rounds after an unfinished one (R5)."""
    game = finished_game(seed=2)
    data = v1_record(game)
    bad = copy.deepcopy(data)
    bad["rounds"][1]["plays"][6] = bad["rounds"][1]["plays"][5]
    with pytest.raises(RecordError, match=r"round 1, play 6 \(seat \d, '\w\w'\)"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    bad["rounds"][1]["scores"][0] += 1
    with pytest.raises(RecordError, match=r"round 1: the recorded scores"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    bad["rounds"][0]["moon_choice"] = "add"
    with pytest.raises(RecordError, match=r"round 0, moon choice 'add': R4.4: no moon decision"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    bad["rounds"][0]["plays"] = bad["rounds"][0]["plays"][:10]
    bad["rounds"][0]["scores"] = None
    with pytest.raises(RecordError, match=r"round 0 is not finished"):
        from_dict(bad)


# --- forged records ------------------------------------------------------------------------


def test_forged_illegal_play_card_not_held() -> None:
    """R1.3/R3: a play of a card the seat does not hold is refused; the message names the
    action's index, the action and the rule."""
    game = finished_game(seed=2)
    data = game_to_dict(named(game))
    k = next(i for i, a in enumerate(data["actions"]) if a["type"] == "play") + 5
    forged = copy.deepcopy(data)
    forged["actions"][k]["card"] = forged["actions"][k - 1]["card"]
    with pytest.raises(RecordError) as e:
        from_dict(forged)
    assert str(e.value).startswith(f"action {k} ({forged['actions'][k]!r}): R")


def test_forged_illegal_play_against_follow_suit() -> None:
    """R3: a held card that breaks the rules (here: not following suit, or not leading the
    lowest club) is refused, naming the action and the rule."""
    game = finished_game(seed=3)
    data = game_to_dict(named(game))
    replay = Game(game.rules, game.seed)
    for action in game.history:
        mover = replay.to_move
        if isinstance(action, Play) and mover is not None:
            illegal = [c for c in replay.round.hand(mover) if c not in replay.round.legal_plays()]
            if illegal:
                break
        replay.apply(action)
    else:
        raise AssertionError("no play with an illegal alternative")
    k = len(replay.history)
    forged = copy.deepcopy(data)
    forged["actions"][k]["card"] = str(illegal[0])
    with pytest.raises(RecordError) as e:
        from_dict(forged)
    message = str(e.value)
    assert message.startswith(f"action {k} (") and f"'{illegal[0]}'" in message
    assert "R3." in message


def test_forged_wrong_seat_and_action_in_round_record() -> None:
    """R1.4: an action by the wrong seat, or a malformed one, in a round record names it."""
    r = Round.deal(Rules(), seed=4)
    rng = random.Random(4)
    while not r.is_over:
        random_step(r, rng)
    data = round_to_dict(r)
    data["actions"][9]["seat"] = (data["actions"][9]["seat"] + 1) % 4
    with pytest.raises(RecordError, match=r"action 9 .*R1.4"):
        from_dict(data)
    data = round_to_dict(r)
    data["actions"][9] = {"type": "play", "seat": 0, "card": "ZZ"}
    with pytest.raises(RecordError, match=r"action 9 .*'ZZ' is not a card"):
        from_dict(data)


def test_forged_wrong_totals_and_winners() -> None:
    """R5: wrong totals or wrong winners are refused, naming which."""
    game = finished_game(seed=6)
    data = game_to_dict(named(game))
    bad = copy.deepcopy(data)
    bad["totals"][2] -= 3
    with pytest.raises(RecordError, match=r"totals"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    assert game.winners is not None
    bad["winners"] = [(game.winners[0] + 1) % 4]
    with pytest.raises(RecordError, match=r"winners"):
        from_dict(bad)
    r = game.rounds[0]
    rd = round_to_dict(r)
    rd["scores"] = [s + 1 for s in rd["scores"]]
    with pytest.raises(RecordError, match=r"recorded scores"):
        from_dict(rd)


@pytest.mark.parametrize("round_index", [0, 1])
def test_forged_deal_duplicate_card(round_index: int) -> None:
    """R1.2: a deal with one card in two hands is refused, naming that deal and the card."""
    game = finished_game(seed=8)
    data = game_to_dict(named(game))
    deal = data["deals"][round_index]
    h0, h1 = deal[0].split(), deal[1].split()
    h1[0] = h0[0]
    deal[1] = " ".join(h1)
    with pytest.raises(RecordError) as e:
        from_dict(data)
    assert f"deal {round_index}" in str(e.value) and h0[0] in str(e.value) and "R1.2" in str(e.value)


def test_forged_deal_short_hand_and_deal_count() -> None:
    """R1.2: a hand of the wrong size is refused; so are more deals than the actions play."""
    game = finished_game(seed=9)
    data = game_to_dict(named(game))
    bad = copy.deepcopy(data)
    bad["deals"][0][0] = " ".join(bad["deals"][0][0].split()[1:])
    with pytest.raises(RecordError, match=r"deal 0"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    bad["deals"].append(bad["deals"][0])
    with pytest.raises(RecordError, match=r"deals"):
        from_dict(bad)
    rd = round_to_dict(game.rounds[0])
    rd["deal"][1] = rd["deal"][0]
    with pytest.raises(RecordError, match=r"deal"):
        from_dict(rd)


def test_forged_pass() -> None:
    """R2.1: a pass of a card not held, or of the wrong number of cards, is refused, naming the
    action; R2.2: nobody passes in a hold round."""
    game = finished_game(seed=10)
    data = game_to_dict(named(game))
    k = next(i for i, a in enumerate(data["actions"]) if a["type"] == "pass" and a["seat"] == 1)
    dealt = [CardSet.parse(h) for h in data["deals"][0]]
    bad = copy.deepcopy(data)
    bad["actions"][k]["cards"][0] = str(next(iter(dealt[3])))
    with pytest.raises(RecordError, match=rf"action {k} .*R2.1"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    bad["actions"][k]["cards"] = bad["actions"][k]["cards"][:2]
    with pytest.raises(RecordError, match=rf"action {k} .*R2.1"):
        from_dict(bad)
    hold = next(i for i, r in enumerate(game.rounds) if r.pass_offset == 0)
    start = game.round_starts[hold]
    bad = copy.deepcopy(data)
    bad["actions"].insert(start, to_dict(Pass(0, list(game.rounds[hold].dealt[0])[:3])))
    with pytest.raises(RecordError, match=rf"action {start} .*nobody passes"):
        from_dict(bad)


def test_forged_seats_and_seed() -> None:
    """Seats must be {name, bot} objects, one per player; the seed a whole number (R1.3: any
    int a game takes, negative too) or null."""
    data = game_to_dict(named(finished_game(seed=12)))
    for seats in (data["seats"][:3], [*data["seats"][:3], "Di"], [*data["seats"][:3], {"name": 3, "bot": None}],
                  [*data["seats"][:3], {"name": "Di", "bot": None, "x": 1}]):
        with pytest.raises(RecordError, match=r"seat"):
            from_dict({**data, "seats": seats})
    for seed in ("7", 1.5, True, [1]):
        with pytest.raises(RecordError, match=r"seed"):
            from_dict({**data, "seed": seed})


@pytest.mark.parametrize("seed", [-5, None], ids=["negative seed", "no seed"])
def test_save_load_save_is_byte_identical_for_any_seed_a_game_takes(seed: int | None) -> None:
    """R1.3: a game shuffled from a negative seed, or from a ``random.Random`` (no seed to
    record), saves, loads and saves again to the same bytes; the loaded game keeps the seed
    (or none: the record's ``"seed": null`` is not replaced by a made-up one)."""
    game = Game(Rules(target=40), seed=random.Random(3) if seed is None else seed)
    play_game(game, random.Random(3), limit=60)
    text = dumps(named(game))
    assert json.loads(text)["seed"] == seed
    loaded = loads(text)
    assert isinstance(loaded, GameRecord) and loaded.game.seed == seed
    assert loaded.game.history == game.history and dumps(loaded) == text


def test_forged_header_json_rules(tmp_path: Path) -> None:
    """Unknown format or version (also true or 1.0), malformed or too deeply nested JSON,
    unknown rule option or bad value: refused with a RecordError."""
    game = finished_game(seed=11)
    data = game_to_dict(named(game))
    for key, value, pattern in (
        ("format", "pyhearts.chess", "format"),
        ("version", VERSION + 1, "version"),
        ("version", None, "version"),
        ("version", True, "version"),
        ("version", 2.0, "version"),
        ("version", 1.0, "version"),
    ):
        bad = {**data, key: value}
        with pytest.raises(RecordError, match=pattern):
            loads(json.dumps(bad))
    for text in ("{", "", "[1, 2]", '"a game"', "{'format': 1}", "[" * 100_000 + "]" * 100_000):
        with pytest.raises(RecordError):
            loads(text)
    path = tmp_path / "broken.json"
    path.write_text(dumps(named(game))[:-20], encoding="utf-8")
    with pytest.raises(RecordError, match=r"JSON"):
        load(path)
    bad = copy.deepcopy(data)
    bad["rules"]["house_rule"] = True
    with pytest.raises(RecordError, match=r"house_rule"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    bad["rules"]["moon"] = "sometimes"
    with pytest.raises(RecordError, match=r"R4.4.*moon"):
        from_dict(bad)
    rd = round_to_dict(game.rounds[0])
    rd["rules"]["players"] = 7
    with pytest.raises(RecordError, match=r"R1.1.*players"):
        from_dict(rd)


def test_forged_scores() -> None:
    """R5: start totals or a round's scores_before must be whole numbers, one per seat."""
    data = game_to_dict(named(finished_game(seed=13)))
    for scores in (["0", "0", "0", "0"], [0, 0, 0], [0, 0, 0, True], "0000"):
        with pytest.raises(RecordError, match=r"R5"):
            from_dict({**data, "scores": scores})
    rd = round_to_dict(Round.deal(Rules(), seed=1))
    for scores in (["a", "b", "c", "d"], [1, 2]):
        with pytest.raises(RecordError, match=r"R5"):
            from_dict({**rd, "scores_before": scores})


def test_forged_moon_choice_and_actions_after_the_end() -> None:
    """R4.4: a moon choice other than add/subtract, or when no moon was shot, is refused; an
    action after the end of the game is refused (R5.1)."""
    rules = Rules(pass_count=0, moon="shooter_chooses", target=26)
    game = Game(rules, seed=0, deals=[moon_deal(4, 1)])
    play_moon_round(game, 1)
    game.apply(Moon(1, "subtract"))
    assert not game.is_over  # -26 for the shooter: nobody at the target
    play_game(game, random.Random(1))
    data = game_to_dict(named(game))
    k = next(i for i, a in enumerate(data["actions"]) if a["type"] == "moon")
    bad = copy.deepcopy(data)
    bad["actions"][k]["choice"] = "double"
    with pytest.raises(RecordError, match=rf"action {k} .*R4.4"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    bad["actions"].insert(k + 1, to_dict(Moon(1, "add")))
    with pytest.raises(RecordError, match=rf"action {k + 1} .*R4.4"):
        from_dict(bad)
    bad = copy.deepcopy(data)
    bad["actions"].append(bad["actions"][-1])
    with pytest.raises(RecordError, match=rf"action {len(game.history)} .*game is over"):
        from_dict(bad)


# --- property ------------------------------------------------------------------------------

NAMES = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
BOT_SPECS = st.none() | st.sampled_from(["random", "easy", "hard", "search:iterations=900", "heuristic:blunder=0.3"])


@given(
    seed=st.integers(-(2**63), 2**63 - 1),
    shuffled=st.booleans(),
    players=st.integers(3, 6),
    moon=st.sampled_from(MOONS),
    steps=st.integers(0, 400),
    seats=st.lists(st.tuples(NAMES, BOT_SPECS), min_size=6, max_size=6),
)
@settings(max_examples=25, deadline=None)
def test_record_roundtrip_property(
    seed: int, shuffled: bool, players: int, moon: str, steps: int, seats: list[tuple[str, str | None]]
) -> None:
    """Property: any game (finished or not) survives dumps -> loads with its names, bot specs,
    seed (none for a game shuffled from a ``random.Random``) and every action, and the same
    state; dumps of the loaded record is the same text."""
    rules = Rules(players=players, moon=moon, target=50, jack_of_diamonds=-10)  # type: ignore[arg-type]
    game = Game(rules, seed=random.Random(seed) if shuffled else seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        random_step(game, rng)
    source = GameRecord(game, [Seat(name, bot) for name, bot in seats[:players]])
    text = dumps(source)
    loaded = loads(text)
    assert isinstance(loaded, GameRecord)
    assert loaded.seats == source.seats and loaded.game.seed == (None if shuffled else seed)
    assert loaded.game.history == game.history
    assert game_state(loaded.game) == game_state(game)
    assert dumps(loaded) == text
    r = round_roundtrip(game.round)
    assert round_state(r) == round_state(game.round)
    if r.phase is Phase.PLAYING:  # the loaded round accepts the same next action
        assert r.to_move is not None
        play = Play(r.to_move, Card(min(r.legal_plays())))
        r.apply(play)
        game.round.clone().apply(play)
