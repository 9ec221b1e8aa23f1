"""The command line's rough edges (issue 27): what a demanding user expects of ``hearts``.

``--version``, a bare ``hearts``, end of input in the middle of a game, an unwritable
``--record``, the terminal table without a terminal on stderr, ``hearts selfplay`` into a
folder that is not empty. (The arena's are in ``tests/test_arena.py``.)
"""

from __future__ import annotations

import importlib.metadata
import io
import subprocess
import sys
from pathlib import Path

from hearts.cli import main


def _console_script() -> list[str]:
    script = Path(sys.executable).parent / "hearts"
    return [str(script)] if script.exists() else [sys.executable, "-m", "hearts"]


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``main`` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# --- --version and a bare `hearts` -----------------------------------------------------------


def test_version_prints_the_package_version_and_exits_0() -> None:
    """`hearts --version`: ``pyhearts 0.1.0`` (the installed metadata) on stdout, exit 0."""
    code, out, err = run(["--version"])
    assert (code, out, err) == (0, f"pyhearts {importlib.metadata.version('pyhearts')}\n", "")
    proc = subprocess.run(
        [*_console_script(), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "pyhearts 0.1.0\n", "")


def test_a_bare_hearts_prints_the_help_and_exits_0() -> None:
    """`hearts` alone is a request for help, as `hearts --help`: the usage and every
    subcommand on stdout, nothing on stderr, exit 0 (as git and pip do)."""
    code, out, err = run([])
    assert code == 0 and err == ""
    assert out.startswith("usage: hearts")
    for command in ("play", "tui", "replay", "analyze", "rules", "serve", "arena", "selfplay"):
        assert f"    {command} " in out
    assert out == run(["--help"])[1]


# --- end of input in the middle of a game ----------------------------------------------------


def test_end_of_input_mid_game_is_an_error_naming_the_record(tmp_path: Path) -> None:
    """`hearts play --plain --record F` with stdin closed mid-game: exit 1, and a clear
    message on stderr that the game was left unfinished and where it was saved."""
    path = tmp_path / "eof.json"
    code, out, err = run(["play", "--plain", "--seed", "344", "--record", str(path)], stdin="QS AH KH\n2C\n")
    assert code == 1
    assert "You lead 2♣" in out and "End of input: the game stops here, unfinished." in out
    assert err.splitlines()[-1] == (
        "hearts play: error: the input ended in round 1, before the game did: the game is unfinished; "
        f"saved to {path} (go on: hearts tui --resume {path})"
    )
    assert path.exists()
    code, _, err = run(["play", "--plain", "--seed", "344"])
    assert code == 1
    assert err.splitlines()[-1].endswith("the game is unfinished (--record FILE keeps it)")


def test_quit_still_exits_0() -> None:
    """`quit` is the player's choice: exit 0 (a game played to its end too: tests/test_cli.py)."""
    assert run(["play", "--plain", "--seed", "344"], stdin="QS AH KH\nquit\n")[0] == 0
