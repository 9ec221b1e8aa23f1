"""A bot that fails mid-game (issue 39): one policy in every command, ``--on-bot-error
substitute|stop`` (:mod:`hearts.bots.guard`). ``substitute`` (the default) plays a random legal
move for it and says so in one line; ``stop`` ends the game cleanly with one line naming the
bot, its seat and the error, exit code 1; the record is saved either way. Each command is run
as the user runs it: the installed ``hearts``, a bot of one's own as ``MODULE:CLASS``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hearts import record

BOTS = '''
import time

from hearts.actions import Pass, Play
from hearts.bots import RandomBot
from hearts.cards import CardSet


class Crashy(RandomBot):
    """Raises at its every move."""

    def act(self, view):
        raise ValueError("boom")


class Cheater(RandomBot):
    """Answers cards it does not hold."""

    def act(self, view):
        others = [c for c in CardSet.full() if c not in view.hand]
        return Pass(view.seat, others[:3]) if view.must_pass else Play(view.seat, others[0])


class Sleepy(RandomBot):
    """Sleeps a minute before each of its plays (its passes are quick)."""

    def choose_play(self, view):
        time.sleep(60)
        return super().choose_play(view)
'''


@pytest.fixture
def bots(tmp_path: Path) -> dict[str, str]:
    """The environment of a ``hearts`` process that finds the module ``failbots`` above."""
    folder = tmp_path / "botmodule"
    folder.mkdir()
    (folder / "failbots.py").write_text(BOTS)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}


def hearts(argv: list[str], env: dict[str, str], stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The installed ``hearts`` command, run to its end."""
    script = Path(sys.executable).parent / "hearts"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "hearts"]
    return subprocess.run([*command, *argv], input=stdin, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120, check=False)


# --- hearts play ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bot", "why"),
    [("Crashy", "ValueError: boom"), ("Cheater", "an illegal move (R2.1: seat 1 may not pass ")],
    ids=["raises", "illegal"],
)
def test_play_substitutes_a_random_legal_move_and_says_so(
    bots: dict[str, str], tmp_path: Path, bot: str, why: str
) -> None:
    path = tmp_path / "game.json"
    proc = hearts(["play", "--plain", "--seed", "344", "--bots", f"failbots:{bot}", "random", "random",
                   "--record", str(path)], bots, stdin="quit\n")
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stdout.splitlines() if "failed" in line]
    assert len(said) == 1 and said[0].startswith(f"the bot 'failbots:{bot}' at seat 1 (West) failed: {why}")
    assert said[0].endswith(" · a random legal move was made for it")
    assert "Traceback" not in proc.stderr
    loaded = record.load(path)
    assert isinstance(loaded, record.GameRecord) and loaded.game.round.passed(1) is not None
    again = hearts(["play", "--plain", "--seed", "344", "--bots", f"failbots:{bot}", "random", "random"], bots,
                   stdin="quit\n")
    assert again.stdout == proc.stdout.replace(f"Record saved to {path}.\n", "")  # the same substitute


def test_play_stop_ends_the_game_with_one_line_and_the_record_saved(bots: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    proc = hearts(["play", "--plain", "--seed", "344", "--bots", "failbots:Crashy", "random", "random",
                   "--record", str(path), "--on-bot-error", "stop"], bots, stdin="QS AH KH\n")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == (
        "hearts play: error: the bot 'failbots:Crashy' at seat 1 (West) failed: ValueError: boom; the game "
        f"stops here, unfinished; saved to {path} (go on: hearts tui --resume {path})"
    )
    assert "Traceback" not in proc.stderr
    loaded = record.load(path)
    assert isinstance(loaded, record.GameRecord) and loaded.seats[1].bot == "failbots:Crashy"
    assert not loaded.game.is_over and loaded.game.round.passed(1) is None


def test_a_bad_policy_is_a_usage_error(bots: dict[str, str]) -> None:
    proc = hearts(["play", "--plain", "--on-bot-error", "ignore"], bots)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1].endswith(
        "argument --on-bot-error: invalid choice: 'ignore' (choose from 'substitute', 'stop')"
    )


# --- hearts arena ---------------------------------------------------------------------------------


def test_arena_substitutes_by_default_and_says_so(bots: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    proc = hearts(["arena", "failbots:Crashy", "random", "random", "random", "--rounds", "2", "-q",
                   "--json", str(out)], bots)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "failed" in line]
    assert lines == [
        "arena: the bot '1:failbots:Crashy' failed 112 times, a random legal move was made for it each time "
        "(first: the bot '1:failbots:Crashy' at seat 0 (deal 0, rotation 0) failed: ValueError: boom)"
    ]
    data = json.loads(out.read_text())
    assert [bot["substituted"] for bot in data["bots"]] == [112, 0, 0, 0]
    assert data["config"]["on_bot_error"] == "substitute"


def test_arena_stop_is_one_line_and_exit_1(bots: dict[str, str]) -> None:
    proc = hearts(["arena", "random", "failbots:Cheater", "random", "random", "--rounds", "2", "-q",
                   "--on-bot-error", "stop"], bots)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.splitlines()[-1].startswith(
        "hearts arena: error: the bot '2:failbots:Cheater' at seat 1 (deal 0, rotation 0) failed: an illegal move ("
    )
    assert "Traceback" not in proc.stderr


def test_a_sleeping_bot_does_not_hang_a_tournament(bots: dict[str, str]) -> None:
    """--move-time: a bot that sleeps a minute a move runs out of time; the tournament ends."""
    started = time.monotonic()
    proc = hearts(["arena", "failbots:Sleepy", "random", "random", "random", "--rounds", "1", "--no-duplicate",
                   "-q", "--move-time", "0.05"], bots)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 30
    assert "arena: the bot '1:failbots:Sleepy' failed 13 times, a random legal move was made for it each time " \
        "(first: the bot '1:failbots:Sleepy' at seat 0 (deal 0, rotation 0) failed: no move within 0.05 s)" \
        in proc.stderr


# --- hearts selfplay --------------------------------------------------------------------------------


def test_selfplay_substitutes_and_writes_the_data(bots: dict[str, str], tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from hearts.rl import selfplay

    out = tmp_path / "data"
    proc = hearts(["selfplay", "random", "failbots:Crashy", "random", "random", "--rounds", "2", "--out", str(out),
                   "-q"], bots)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "failed" in line]
    assert lines == [
        "selfplay: the bot 'failbots:Crashy' failed 28 times, a random legal move was made for it each time "
        "(first: the bot 'failbots:Crashy' at seat 1 (round 0) failed: ValueError: boom)"
    ]
    manifest = selfplay.read_manifest(out)
    assert manifest["rounds"] == 2 and manifest["substituted"] == 28
    assert len(selfplay.load(out)["action"]) == manifest["decisions"]


def test_selfplay_stop_is_one_line_and_exit_1(bots: dict[str, str], tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    out = tmp_path / "data"
    proc = hearts(["selfplay", "random", "failbots:Crashy", "random", "random", "--rounds", "2", "--out", str(out),
                   "-q", "--on-bot-error", "stop"], bots)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.splitlines()[-1] == (
        "hearts selfplay: error: the bot 'failbots:Crashy' at seat 1 (round 0) failed: ValueError: boom; "
        "nothing is written"
    )
    assert "Traceback" not in proc.stderr
    assert not out.exists()  # no empty folder left behind
