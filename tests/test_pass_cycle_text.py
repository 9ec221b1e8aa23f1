"""R2.2: a pass cycle as text has one separator that works everywhere, ``/`` (commas separate
an OpenSpiel game string's parameters); commas still work outside game strings (issue 27)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from test_cli_edges import _console_script
from test_properties import any_rules

from hearts.cli import main
from hearts.errors import RulesError
from hearts.rules import Rules, option_text, parse_option_value


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


# --- one parser, one printed form, everywhere (issue 39) ------------------------------------

ENTRIES = ["Rules", "Rules.from_dict", "Rules.from_json", "replace", "gymnasium.make"]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("text", ["left/hold", "left,hold", "Left / Hold"])
def test_r2_2_every_entry_takes_the_cycle_as_text(entry: str, text: str) -> None:
    """R2.2: the text the command line and OpenSpiel take (``left/hold``, ``left,hold``) is taken
    by the constructor, ``from_dict``, ``--rules`` JSON and ``gymnasium.make`` alike."""
    if entry == "Rules":
        rules = Rules(players=3, pass_cycle=text)  # type: ignore[arg-type]
    elif entry == "Rules.from_dict":
        rules = Rules.from_dict({"players": 3, "pass_cycle": text})
    elif entry == "Rules.from_json":
        rules = Rules.from_json(json.dumps({"players": 3, "pass_cycle": text}))
    elif entry == "replace":
        rules = Rules(players=3).replace(pass_cycle=text)
    else:
        gymnasium = pytest.importorskip("gymnasium")
        env = gymnasium.make("hearts.rl:pyhearts/Hearts-v0", players=3, pass_cycle=text)
        rules = env.unwrapped.rules
        env.close()
    assert rules == Rules(players=3, pass_cycle=("left", "hold"))
    assert rules.pass_cycle == ("left", "hold")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("left/sideways", "R2.2: pass_cycle step 'sideways'"),
        ("left//hold", "R2.2: pass_cycle step ''"),
        ("across", "R2.2: pass_cycle step 'across' needs an even number of players, not 3"),
        ("3", "R2.2: pass_cycle offset 3; allowed: 0..2"),
    ],
)
def test_r2_2_bad_cycle_text_is_the_same_error_everywhere(value: str, words: str) -> None:
    """R2.2: bad text is refused with the parser's one message, from every entry."""
    messages = set()
    for build in (
        lambda: Rules(players=3, pass_cycle=value),  # type: ignore[arg-type]
        lambda: Rules.from_dict({"players": 3, "pass_cycle": value}),
        lambda: Rules(players=3).with_options([f"pass_cycle={value}"]),
    ):
        with pytest.raises(RulesError) as info:
            build()
        messages.add(str(info.value))
    assert len(messages) == 1 and words in messages.pop()


def test_r2_2_the_rules_json_of_the_command_line_takes_the_text(tmp_path: Path) -> None:
    """R2.2: ``--rules`` JSON (a real ``hearts`` process) reads the cycle as ``--option`` does,
    and ``hearts rules`` prints it one way, ``/``, in its summary and in its table."""
    proc = subprocess.run(
        [*_console_script(), "rules", "--rules", '{"players": 3, "pass_cycle": "left,hold"}'],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "pass_cycle=left/hold" in proc.stdout.splitlines()[0]
    assert "  pass_cycle = left/hold " in proc.stdout
    assert "left,hold" not in proc.stdout


def test_r2_2_hearts_rules_prints_the_default_cycle_with_slashes() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["rules", "--players", "3"], stdout=out, stderr=err) == 0, err.getvalue()
    assert "pass_cycle = default (left/right/hold)" in out.getvalue()
    assert "left,right" not in out.getvalue()


@given(any_rules())
def test_r2_2_every_cycle_round_trips_through_its_printed_form(rules: Rules) -> None:
    """R2.2: the one printed form of a cycle (:func:`hearts.rules.option_text`) is read back
    by the one parser as the same cycle, wherever it is given: ``--option``, the constructor,
    a dict, and an OpenSpiel game string."""
    text = option_text(rules.pass_cycle)
    assert "," not in text
    assert parse_option_value("pass_cycle", text) == rules.pass_cycle
    assert Rules(players=rules.players).with_options([f"pass_cycle={text}"]).pass_cycle == rules.pass_cycle
    assert rules.replace(pass_cycle=text) == rules
    assert Rules.from_dict({**rules.to_dict(), "pass_cycle": text}) == rules
    assert Rules().with_options(rules.describe().split()) == rules


@settings(max_examples=25, deadline=None)
@given(any_rules())
def test_r2_2_openspiel_keeps_the_printed_form(rules: Rules) -> None:
    """R2.2: the OpenSpiel game's ``pass_cycle`` parameter is the same printed form, and its
    game string loads the same rules."""
    pyspiel = pytest.importorskip("pyspiel")
    import hearts.rl.openspiel_game  # noqa: F401  (registers python_hearts)

    params = {k: v for k, v in rules.to_dict().items() if k != "pass_cycle"}
    game = pyspiel.load_game("python_hearts", {**params, "pass_cycle": option_text(rules.pass_cycle)})
    assert game.get_parameters()["pass_cycle"] == option_text(rules.pass_cycle)
    assert pyspiel.load_game(str(game)).rules == rules == game.rules
