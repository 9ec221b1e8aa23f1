"""The ``python_hearts`` OpenSpiel game: OpenSpiel's own conformance test on several variants,
and the same decisions as OpenSpiel's C++ ``hearts`` on shared options."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from hearts.rl import openspiel_game  # noqa: E402  (registers python_hearts)
from hearts.rules import Rules  # noqa: E402


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


@pytest.mark.parametrize("pass_cards", [False, True])
def test_same_as_openspiel_hearts(pass_cards: bool) -> None:
    """R1–R4: the same deal and the same actions give the same legal actions and returns as
    OpenSpiel's hearts (pass step i of our rotation = OpenSpiel direction left/right/across/none)."""
    ours = pyspiel.load_game("python_hearts", {"pass_count": 3 if pass_cards else 0})
    theirs = pyspiel.load_game("hearts", {"pass_cards": pass_cards})
    direction_of_step = [1, 3, 2, 0]  # left, right, across, hold -> OpenSpiel's PassDir
    rng = random.Random(5)
    for _ in range(20):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        step = rng.randrange(4)
        if pass_cards:
            a.apply_action(step)
            b.apply_action(direction_of_step[step])
        else:
            b.apply_action(0)
        while not a.is_terminal():
            if a.is_chance_node():
                assert [o for o, _ in a.chance_outcomes()] == [o for o, _ in b.chance_outcomes()]
                action = rng.choice(a.chance_outcomes())[0]
            else:
                assert a.current_player() == b.current_player()
                assert a.legal_actions() == b.legal_actions()
                action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
        assert b.is_terminal() and a.returns() == b.returns()


def test_observations() -> None:
    game = pyspiel.load_game("python_hearts")
    state = game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    player = state.current_player()
    assert len(state.observation_tensor(player)) == 621
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


def test_parameters_are_every_option_with_its_default() -> None:
    """R6: the game's parameters are the rule options of ``Rules.options()`` (plus the round
    number), each defaulting to the option's default, so the default game plays ``Rules()``."""
    defaults = pyspiel.load_game("python_hearts").get_parameters()
    assert set(defaults) == {spec.name for spec in Rules.options()} | {"round_number"}
    for spec in Rules.options():
        expected = "default" if spec.kind == "pass_cycle" else spec.default
        assert defaults[spec.name] == expected, spec.name
    assert openspiel_game.rules_from_params(defaults) == Rules()
    assert pyspiel.load_game("python_hearts", {"pass_cycle": "1/"}).rules.pass_cycle == (1,)
