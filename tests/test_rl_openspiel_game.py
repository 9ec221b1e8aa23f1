"""The ``python_hearts`` OpenSpiel game: OpenSpiel's own conformance test on several variants,
the same decisions as OpenSpiel's C++ ``hearts`` on shared options, game strings that load the
same game, and resampling from an information state (OpenSpiel's Python ISMCTS on every
variant)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from helpers import same_games

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from hearts.rl import openspiel_game  # noqa: E402  (registers python_hearts)
from hearts.rules import OptionSpec, Rules  # noqa: E402


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"players": 3, "queen_lead": "after_break"},
        {"players": 6, "moon": "shooter_chooses", "jack_of_diamonds": -10},
        {"pass_count": 0, "no_tricks_bonus": -5},
        {"round_number": 1, "pass_cycle": "left,hold"},
    ],
)
def test_random_sim_test(params: dict[str, object]) -> None:
    game = pyspiel.load_game("python_hearts", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize(
    "params",
    [
        {"pass_cycle": "right/hold/left"},
        {"players": 5, "pass_cycle": "2/"},
        {"players": 3, "pass_cycle": "left,right,hold", "round_number": 1},  # commas, as issue 18 found them
    ],
)
def test_random_sim_test_serializes_with_a_custom_pass_cycle(params: dict[str, object]) -> None:
    """R2.2: a state serialized and loaded back (with its game's string) is the same state."""
    game = pyspiel.load_game("python_hearts", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("pass_cards", [False, True])
def test_same_as_openspiel_hearts(pass_cards: bool) -> None:
    """R1–R4: the same deal and the same actions give the same legal actions and returns as
    OpenSpiel's hearts (pass step i of our rotation = OpenSpiel direction left/right/across/none)."""
    ours = pyspiel.load_game("python_hearts", {"pass_count": 3 if pass_cards else 0})
    theirs = pyspiel.load_game("hearts", {"pass_cards": pass_cards})
    same_games(ours, theirs, pass_cards, games=20, seed=5)


def test_observations() -> None:
    game = pyspiel.load_game("python_hearts")
    state = game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    player = state.current_player()
    assert len(state.observation_tensor(player)) == 622
    assert sum(state.observation_tensor(player)[:52]) == 13
    info = state.information_state_string(player)
    assert info.startswith(f"p{player} dealt:")
    other = (player + 1) % 4
    assert state.information_state_string(other) != info


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"pass_cycle": "left,right,hold", "players": 3, "jack_of_diamonds": -10},
        {"pass_cycle": "right/across/1", "players": 6, "ties": "share", "target": 50},
        {"pass_cycle": "2/", "players": 5, "moon": "shooter_chooses"},
        {"pass_cycle": "default", "first_lead": "any_club", "round_number": 2},
    ],
)
def test_load_game_of_its_own_string(params: dict[str, object]) -> None:
    """R2.2, R6: a game's string loads the same game (the pass cycle survives OpenSpiel's comma
    separated game strings), with the same rules and parameters."""
    game = pyspiel.load_game("python_hearts", params)
    again = pyspiel.load_game(str(game))
    assert again.rules == game.rules and again.get_parameters() == game.get_parameters()
    assert str(again) == str(game)
    assert "," not in again.get_parameters()["pass_cycle"]


def _values(spec: OptionSpec) -> list[object]:
    """Every value of an option worth a game string: both flags, every choice, a whole number's
    bounds, default and middle, pass cycles of words, offsets and both separators."""
    if spec.kind == "bool":
        return [False, True]
    if spec.kind == "choice":
        return list(spec.choices)
    if spec.kind == "int":
        assert spec.low is not None and spec.high is not None
        return sorted({spec.low, spec.high, spec.default, (spec.low + spec.high) // 2})
    return ["default", "hold", "1/", "3", "left/right/hold", "across,2,hold", "right/1/left/0"]


@pytest.mark.parametrize("spec", Rules.options(), ids=lambda spec: spec.name)
def test_every_option_value_survives_the_game_string(spec: OptionSpec) -> None:
    """R6: for every value of every option, ``load_game(str(game))`` is the same game."""
    for value in _values(spec):
        params: dict[str, Any] = {spec.name: value}
        if spec.name == "pass_count" and isinstance(value, int) and value > 13:
            params["players"] = 3  # 17 cards each
        if spec.name == "removed_for_three" and value != "two_of_diamonds":
            params["players"] = 3  # R1.2: a card out for three players only
        game = pyspiel.load_game("python_hearts", params)
        again = pyspiel.load_game(str(game))
        assert again.rules == game.rules and again.get_parameters() == game.get_parameters(), params
        assert str(again) == str(game)


def test_parameters_are_every_option_with_its_default() -> None:
    """R6: the game's parameters are the rule options of ``Rules.options()`` (plus the round
    number, and OpenSpiel's own names of its ``hearts``, tests/test_openspiel_drop_in.py), each
    defaulting to the option's default, so the default game plays ``Rules()``."""
    defaults = pyspiel.load_game("python_hearts").get_parameters()
    assert set(defaults) == {spec.name for spec in Rules.options()} | {"round_number"} | set(openspiel_game.OPENSPIEL_NAMES)
    for spec in Rules.options():
        expected = "default" if spec.kind == "pass_cycle" else spec.default
        assert defaults[spec.name] == expected, spec.name
    assert openspiel_game.rules_from_params(defaults) == Rules()
    assert pyspiel.load_game("python_hearts", {"pass_cycle": "1/"}).rules.pass_cycle == (1,)


# --- resampling from an information state ---------------------------------------------------

VARIANTS = [
    {},
    {"players": 3},
    {"players": 5, "pass_count": 2},
    {"players": 6, "pass_count": 1, "moon": "shooter_chooses"},
    {"first_lead": "any_club", "points_on_first_trick": True},
    {"must_break_hearts": False, "queen_lead": "after_break"},
    {"lead_hearts_instead_of_queen": True, "queen_breaks_hearts": False},
    {"pass_cycle": "hold/right", "round_number": 1},
    {"pass_count": 0},
]


def _random_state(game: Any, rng: random.Random, steps: int) -> Any:
    state = game.new_initial_state()
    while not state.is_terminal() and steps > 0:
        outcomes = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(outcomes))
        steps -= 1
    return state


@pytest.mark.parametrize("params", VARIANTS)
def test_resample_keeps_what_the_player_knows(params: dict[str, object]) -> None:
    """R7: a resampled state has the same information state for the player, the same player to
    move and legal actions, the same public plays; the hidden cards differ between draws; every
    past play stays legal (R3; the engine replays them)."""
    game = pyspiel.load_game("python_hearts", params)
    rng = random.Random(7)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hidden_differs = 0
    for _ in range(12):
        state = _random_state(game, rng, rng.randrange(1, 140))
        if state.is_terminal():
            continue
        for player in range(game.num_players()):
            again = state.resample_from_infostate(player, sampler)
            assert again.information_state_string(player) == state.information_state_string(player)
            assert again.current_player() == state.current_player()
            if state.current_player() == player:
                assert again.legal_actions() == state.legal_actions()
            if state.round is not None:
                r, s = state.round, again.round
                assert [t.cards for t in s.tricks] == [t.cards for t in r.tricks]
                assert s.hand_sizes == r.hand_sizes and s.hand(player) == r.hand(player)
                other = (player + 1) % game.num_players()
                hidden_differs += s.hand(other) != r.hand(other)
    assert hidden_differs > 0


@pytest.mark.parametrize(
    "params", [{"players": 3}, {}, {"players": 6}, {"pass_cycle": "right/across/hold", "round_number": 0}]
)
def test_openspiel_python_ismcts_plays_whole_rounds(params: dict[str, object]) -> None:
    """OpenSpiel's Python ISMCTS (it resamples the hidden cards at every decision) plays every
    seat of whole rounds, 3 to 6 players and a custom pass cycle (R1.1, R2.2)."""
    game = pyspiel.load_game("python_hearts", params)
    rng = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=3, random_state=rng)
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                state.apply_action(bot.step(state))
        assert sum(26 - r for r in state.returns()) in (26, 26 * (game.num_players() - 1))  # R4.1, R4.4
