"""``python_hearts`` as a drop-in for OpenSpiel's ``hearts`` (issue 39): it takes OpenSpiel's own
parameter names (read from ``pyspiel.load_game("hearts")``) with OpenSpiel's defaults and
meanings — the same legal actions and returns as OpenSpiel's game under the same parameters,
game after game — refuses a parameter that contradicts one of ours, and the research
environments' ``render()`` without a render mode follows Gymnasium (``None``, and a warning).
"""

from __future__ import annotations

import itertools
import random
import warnings
from typing import Any

import pytest
from helpers import same_games

pyspiel = pytest.importorskip("pyspiel")

import hearts.rl.openspiel_game  # noqa: E402, F401  (registers python_hearts)
from hearts.bots.openspiel import FLAGS  # noqa: E402
from hearts.errors import RulesError  # noqa: E402
from hearts.rules import Rules  # noqa: E402

THEIRS = pyspiel.load_game("hearts")
SPEC: dict[str, Any] = dict(THEIRS.get_type().parameter_specification)


def test_every_openspiel_hearts_parameter_is_one_of_ours_with_its_default() -> None:
    ours = dict(pyspiel.load_game("python_hearts").get_type().parameter_specification)
    assert SPEC and set(SPEC) <= set(ours)
    for name, default in SPEC.items():
        assert ours[name] == default and type(ours[name]) is type(default), name
    assert set(SPEC) == set(FLAGS)  # the one mapping (hearts.bots.openspiel.FLAGS) names them all


def openspiel_games(params: dict[str, Any], games: int, seed: int) -> None:
    """R1–R4: ours and OpenSpiel's hearts under ``params`` play the same (:func:`helpers.same_games`)."""
    ours, theirs = pyspiel.load_game("python_hearts", params), pyspiel.load_game("hearts", params)
    same_games(ours, theirs, params.get("pass_cards", True), games, seed, params)


@pytest.mark.parametrize("name", sorted(SPEC))
def test_each_openspiel_parameter_plays_as_openspiel_plays_it(name: str) -> None:
    """Each of OpenSpiel's parameters set away from its default, alone."""
    openspiel_games({name: not SPEC[name]}, games=12, seed=len(name))


@pytest.mark.parametrize("values", [tuple(not v for v in SPEC.values()),
                                    *random.Random(39).sample(list(itertools.product((False, True), repeat=8)), 6)])
def test_openspiel_parameters_together_play_as_openspiel_plays_them(values: tuple[bool, ...]) -> None:
    openspiel_games(dict(zip(SPEC, values, strict=True)), games=8, seed=sum(values))


def test_openspiel_names_set_our_options_and_a_game_string_keeps_them() -> None:
    game = pyspiel.load_game("python_hearts", {"jd_bonus": True, "pass_cards": False, "no_pts_on_first_trick": False})
    assert game.rules == Rules(jack_of_diamonds=-10, pass_count=0, points_on_first_trick=True)
    assert pyspiel.load_game(str(game)).rules == game.rules
    same = pyspiel.load_game("python_hearts", {"jd_bonus": True, "jack_of_diamonds": -10})  # the same thing twice
    assert same.rules == Rules(jack_of_diamonds=-10)


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"pass_cards": False, "pass_count": 2}, "OpenSpiel's pass_cards=False is pass_count=0, but pass_count=2 is given"),
        ({"jd_bonus": True, "jack_of_diamonds": 7}, "OpenSpiel's jd_bonus=True is jack_of_diamonds=-10, but jack_of_diamonds=7 is given"),
        ({"avoid_all_tricks_bonus": True, "no_tricks_bonus": -3, "players": 3},
         "OpenSpiel's avoid_all_tricks_bonus=True is no_tricks_bonus=-5, but no_tricks_bonus=-3 is given"),
    ],
)
def test_a_parameter_that_contradicts_one_of_ours_is_refused(params: dict[str, Any], words: str) -> None:
    """Two names for one option that disagree: refused, naming both (an option of ours at its
    default is no contradiction: OpenSpiel's parameter sets it)."""
    with pytest.raises(RulesError, match=words):
        pyspiel.load_game("python_hearts", params)


def test_a_parameter_with_no_equivalent_is_refused_by_name() -> None:
    with pytest.raises(pyspiel.SpielError, match=r"Unknown parameter 'jd_bonus_value'\. Available parameters are: "):
        pyspiel.load_game("python_hearts", {"jd_bonus_value": 5})


# --- render() without a render mode -------------------------------------------------------------


def test_render_without_a_render_mode_is_none_and_a_warning_as_in_gymnasium() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    from hearts.rl import hearts_v0

    env = gymnasium.make("hearts.rl:pyhearts/Hearts-v0")
    env.reset(seed=1)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.unwrapped.render() is None
    aec = hearts_v0.env()
    aec.reset(seed=1)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert aec.unwrapped.render() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make("hearts.rl:pyhearts/Hearts-v0", render_mode="ansi")
        env.reset(seed=1)
        assert "♥" in env.render() or "H" in env.render()
