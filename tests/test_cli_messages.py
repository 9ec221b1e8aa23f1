"""What the command line says, and its exit codes (issue 39): help that is not cut short, bad
bot specs pointing to where the bots are listed, the extra that brings numba named for the
command at hand, records refused with the field that is wrong, "known bots" that load, a
missing file exit code 2 everywhere, a failed save at quit not exit code 0, ``analyze --round``
counted from 1 as every screen counts rounds, and the terminal table's start-up notes shown on
the table. Real ``hearts`` processes where a person would meet them.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_cli_edges import _console_script, _read_pty
from test_custom_bots import _package

from hearts import Game, Rules
from hearts.bots import RandomBot, make_bot, run_bots, unregister
from hearts.cli import main
from hearts.errors import HeartsError, RecordError
from hearts.record import GameRecord, Seat, loads, save


def hearts(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``hearts ARGS`` in a process of its own."""
    return subprocess.run(
        [*_console_script(), *args], input=stdin, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A finished game's record (target 30) and its JSON object."""
    game = Game(Rules(target=30), seed=4)
    run_bots(game, {s: RandomBot(seed=s) for s in range(4)})
    path = tmp_path_factory.mktemp("messages") / "game.json"
    save(GameRecord(game, [Seat("Ann"), *(Seat(n, bot="random") for n in ("Ben", "Cy", "Di"))]), path)
    return path, json.loads(path.read_text(encoding="utf-8"))


# --- help ------------------------------------------------------------------------------------------


def test_serve_help_says_the_whole_limit_sentence() -> None:
    proc = hearts("serve", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert ("--limit NAME=VALUE change one of the server's limits, which each server process applies on its own "
            "(repeatable; e.g. --limit tables_rate=5/minute; every limit: docs/deployment.md)") in text


# --- bad bot specs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["play", "tui"])
def test_a_bad_bot_spec_points_to_where_the_bots_are_listed(command: str) -> None:
    proc = hearts(command, "--bot", "nobody", "--seed", "1")
    assert proc.returncode == 2
    assert proc.stderr == (
        f"hearts {command}: error: unknown bot 'nobody'; known bots: random, heuristic, search, openspiel_ismcts, "
        f"neural, easy, medium, hard, expert (every bot and its options: hearts {command} --help)\n"
    )


def test_a_bad_rule_option_still_points_to_hearts_rules() -> None:
    proc = hearts("play", "--option", "moon=sometimes", "--seed", "1")
    assert proc.returncode == 2 and proc.stderr.rstrip().endswith("(see 'hearts rules')")


# --- the extra that brings numba ---------------------------------------------------------------------


@pytest.fixture
def no_numba(tmp_path: Path) -> dict[str, str]:
    """The environment of a machine without numba: a ``numba`` package that cannot be imported
    first on the path (and numba's own switches cleared)."""
    fake = tmp_path / "no-numba" / "numba"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'numba'\", name='numba')\n")
    return {"PYTHONPATH": str(fake.parent), "PYHEARTS_PURE": "", "NUMBA_DISABLE_JIT": ""}


def test_play_without_numba_names_the_fast_extra_and_compiles_nothing(no_numba: dict[str, str]) -> None:
    proc = hearts("play", "--seed", "1", "--plain", stdin="quit\n", env=no_numba)
    assert proc.returncode == 0, proc.stderr
    assert "pip install 'pyhearts[fast]'" in proc.stderr
    assert "pyhearts[web]" not in proc.stderr and "Preparing the bots" not in proc.stderr + proc.stdout


NOTE = "Slow bots: numba is not installed; pip install 'pyhearts[tui]' brings it"
"""What the terminal table says first without numba."""


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_the_terminal_table_shows_its_start_up_note_on_the_table(no_numba: dict[str, str]) -> None:
    """`hearts tui` without numba: the note that the search bots are slow, with the extra that
    brings numba (``tui``), is on the table once the table has the screen, not hidden behind it;
    and nothing claims numba compiles."""
    pytest.importorskip("textual")
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 160, 0, 0))
    proc = subprocess.Popen(
        [*_console_script(), "tui", "--seed", "1", "--delay", "0"],
        stdin=slave, stdout=slave, stderr=slave, close_fds=True,
        env={**os.environ, **no_numba, "TERM": "xterm-256color", "PYTHONIOENCODING": "utf-8"},
    )
    os.close(slave)
    try:
        shown, _ = _read_pty(master, NOTE, timeout=60)
    finally:
        proc.kill()
        proc.wait(timeout=10)
        os.close(master)
    _, screen, after = shown.partition(b"\x1b[?1049h")  # the table takes the screen…
    assert screen
    said = re.sub(r"\x1b\[[0-9;?$>]*[A-Za-z]", "", after.decode("utf-8", "replace"))
    assert NOTE in said, said  # …and then says it
    assert b"Preparing the bots" not in shown and b"pyhearts[web]" not in shown


# --- records refused with the field that is wrong ----------------------------------------------------


def test_r5_1_starting_scores_past_the_target_are_blamed_not_an_action(saved: tuple[Path, dict[str, Any]]) -> None:
    """R5.1: starting totals that end the game after its first round: the record's 'scores'
    are named, not the first action of the next round."""
    _, data = saved
    with pytest.raises(RecordError) as info:
        loads(json.dumps({**data, "scores": [10**30, 0, 0, 0]}))
    message = str(info.value)
    assert message.startswith("the record's 'scores' [1000000000000000000000000000000, 0, 0, 0] end the game "
                              "after round 1 (target 30; totals [1000000000000000000000000000001, 7, 0, 18]), "
                              "yet 56 more actions follow (from action 56)"), message


def test_a_missing_rules_field_says_it_is_missing(saved: tuple[Path, dict[str, Any]]) -> None:
    _, data = saved
    for key, words in (("rules", "the record has no 'rules' (an object of rule options)"),
                       ("actions", "the record has no 'actions' (a list)")):
        with pytest.raises(RecordError) as info:
            loads(json.dumps({k: v for k, v in data.items() if k != key}))
        assert str(info.value) == words
    with pytest.raises(RecordError) as info:
        loads(json.dumps({**data, "rules": 5}))
    assert str(info.value) == "the record's 'rules' is not an object of rule options: 5"


# --- known bots that load ------------------------------------------------------------------------------


def test_known_bots_leave_out_entry_points_that_fail_to_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, "plug = plugbots:PlugBot\nbroken = plugbots:Missing")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(HeartsError) as info:
            make_bot("nobody")
        assert str(info.value) == (
            "unknown bot 'nobody'; known bots: random, heuristic, search, openspiel_ismcts, neural, plug, "
            "easy, medium, hard, expert"
        )
    finally:
        unregister("plug")
        sys.modules.pop("plugbots", None)


# --- exit codes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["replay"], ["analyze", "--no-progress"], ["tui", "--resume"]])
def test_a_missing_file_is_exit_code_2_everywhere(command: list[str], tmp_path: Path) -> None:
    """A file that cannot be read is a usage error, exit code 2, as everywhere (``--rules``)."""
    missing = str(tmp_path / "nowhere.json")
    args = [*command, missing] if command[0] != "analyze" else ["analyze", missing, "--no-progress"]
    proc = hearts(*args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"hearts {command[0]}: error: cannot read record {missing!r}: ")
    assert proc.stderr.count("\n") == 1


def test_a_forged_record_stays_exit_code_1(saved: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """A record that loads but is refused is what ``replay`` checks: exit code 1."""
    _, data = saved
    path = tmp_path / "forged.json"
    path.write_text(json.dumps({**data, "totals": [0, 0, 0, 0]}), encoding="utf-8")
    assert hearts("replay", str(path)).returncode == 1


def test_a_failed_save_at_quit_is_exit_code_1(tmp_path: Path) -> None:
    """`quit` with ``--record`` into a folder that went away: said, and exit code 1 (not 0)."""
    folder = tmp_path / "gone"
    folder.mkdir()

    class Typing(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            shutil.rmtree(folder, ignore_errors=True)  # the folder goes while the player thinks
            return "quit\n"

    out, err = io.StringIO(), io.StringIO()
    code = main(["play", "--plain", "--seed", "1", "--record", str(folder / "game.json")],
                stdin=Typing(), stdout=out, stderr=err)
    assert code == 1, (out.getvalue(), err.getvalue())
    assert f"cannot save the record to {str(folder / 'game.json')!r}" in out.getvalue() + err.getvalue()


# --- analyze --round counts from 1 ----------------------------------------------------------------------


def test_analyze_round_counts_from_1_as_every_screen(saved: tuple[Path, dict[str, Any]]) -> None:
    path, _ = saved
    out, err = io.StringIO(), io.StringIO()
    code = main(["analyze", str(path), "--seat", "0", "--round", "2", "--budget", "8", "--no-progress", "--ascii"],
                stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert "Round 2:" in out.getvalue() and "Round 1:" not in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert main(["analyze", str(path), "--round", "0", "--no-progress"], stdout=out, stderr=err) == 2
    assert err.getvalue() == ("hearts analyze: error: --round 0: there is no round 0; the record's rounds are "
                              "1 to 2 (numbered from 1, as the screens show them)\n")

