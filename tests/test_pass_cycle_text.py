"""R2.2: a pass cycle as text has one separator that works everywhere, ``/`` (commas separate
an OpenSpiel game string's parameters); commas still work outside game strings (issue 27)."""

from __future__ import annotations

import io

import pytest

from hearts.cli import main
from hearts.errors import RulesError
from hearts.rules import Rules


@pytest.mark.parametrize(
    ("text", "cycle"),
    [
        ("left/hold", ("left", "hold")),
        ("left/2/hold", ("left", 2, "hold")),
        ("Right / Across", ("right", "across")),
        ("1/", (1,)),  # a lone offset as OpenSpiel's parameter keeps it
        ("left,hold", ("left", "hold")),  # the comma, where it worked before
    ],
)
def test_r2_2_pass_cycle_steps_are_separated_by_slashes_or_commas(text: str, cycle: tuple[object, ...]) -> None:
    assert Rules(players=3 if "across" not in text.lower() else 4).with_options([f"pass_cycle={text}"]).pass_cycle == cycle


def test_r2_2_describe_writes_what_every_parser_reads() -> None:
    """The rules' one-line description is ``--option`` text that also fits a game string."""
    rules = Rules(players=3, pass_cycle=("left", "hold"), moon="shooter_chooses")
    assert rules.describe() == "players=3 pass_cycle=left/hold moon=shooter_chooses"
    assert Rules().with_options(rules.describe().split()) == rules


def test_r2_2_bad_steps_say_how_to_write_a_cycle() -> None:
    with pytest.raises(RulesError) as info:
        Rules().with_options(["pass_cycle=left/sideways"])
    assert "R2.2: pass_cycle step 'sideways'" in str(info.value)
    assert "separated by '/' (e.g. left/hold)" in str(info.value)
    with pytest.raises(RulesError, match=r"R2\.2: pass_cycle step ''"):
        Rules().with_options(["pass_cycle=left//hold"])


def test_hearts_rules_takes_and_names_the_slash() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["rules", "--players", "3", "-o", "pass_cycle=left/hold"], stdout=out, stderr=err) == 0, err.getvalue()
    text = out.getvalue()
    assert "pass_cycle=left/hold" in text.splitlines()[0]
    assert "comma list" not in text
    assert "separated by '/' (or ',', but not in an OpenSpiel game string), e.g. left/hold" in text


def test_openspiel_game_strings_take_the_slash() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import hearts.rl.openspiel_game  # noqa: F401  (registers python_hearts)

    game = pyspiel.load_game("python_hearts(players=3,pass_cycle=left/hold)")
    assert game.rules.pass_cycle == ("left", "hold")
    rules = Rules().with_options(game.rules.describe().split())  # what our side prints, loaded back
    assert pyspiel.load_game(f"python_hearts(players=3,pass_cycle={rules.describe().split('=')[-1]})").rules == rules
