"""The command line's rough edges (issue 27): what a demanding user expects of ``hearts``.

``--version``, a bare ``hearts``, end of input in the middle of a game, an unwritable
``--record``, the terminal table without a terminal on stderr, ``hearts selfplay`` into a
folder that is not empty. (The arena's are in ``tests/test_arena.py``.)
"""

from __future__ import annotations

import importlib.metadata
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_bad_command_line_says_so_on_stderr_only() -> None:
    """A usage error: the usage and the error on stderr, nothing on stdout, exit 2."""
    code, out, err = run(["play", "--frobnicate"])
    assert (code, out) == (2, "")
    assert err.startswith("usage: hearts ") and err.endswith("error: unrecognized arguments: --frobnicate\n")


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


# --- a --record that cannot be written --------------------------------------------------------


@pytest.mark.parametrize("command", ["play", "tui"])
@pytest.mark.parametrize("where", ["missing/game.json", "."])
def test_an_unwritable_record_is_refused_before_play(tmp_path: Path, command: str, where: str) -> None:
    """`--record` into a folder that does not exist, or onto a folder: exit 2 with a clear
    error before the game starts (nothing played, nothing written), in both tables."""
    path = tmp_path / where
    code, out, err = run([command, "--plain", "--seed", "1", "--record", str(path)] if command == "play"
                         else [command, "--seed", "1", "--record", str(path)], stdin="QS AH KH\n")
    assert code == 2 and out == ""
    why = "it is a folder" if where == "." else f"no folder {str(path.parent)!r}"
    assert err == f"hearts {command}: error: cannot save the record to {str(path)!r}: {why}\n"
    assert sorted(tmp_path.iterdir()) == []


def test_a_read_only_record_is_refused(tmp_path: Path) -> None:
    """A read-only record file (or folder) is refused the same way (not as root: root may write)."""
    if os.geteuid() == 0:
        pytest.skip("root may write a read-only file")
    path = tmp_path / "game.json"
    path.write_text("{}")
    path.chmod(0o444)
    code, _, err = run(["play", "--plain", "--seed", "1", "--record", str(path)])
    assert code == 2 and err.endswith(": the file is read-only\n")


@pytest.mark.parametrize("command", ["play", "tui"])
def test_an_existing_record_is_refused_unless_overwrite(tmp_path: Path, command: str) -> None:
    """Issue 39: `--record FILE` onto a file that exists is refused (exit 2, the file unchanged)
    unless --overwrite, as `hearts selfplay` does; a file that is not a game record is refused
    even then; resuming a record into itself is allowed; --overwrite replaces a record."""
    from hearts import record

    path = tmp_path / "game.json"
    assert run(["play", "--plain", "--seed", "344", "--record", str(path)], stdin="QS AH KH\n2C\n")[0] == 1
    before = path.read_bytes()
    table = ["play", "--plain"] if command == "play" else ["tui"]
    code, out, err = run([*table, "--seed", "5", "--record", str(path)], stdin="quit\n")
    assert (code, out) == (2, "")
    assert err == (
        f"hearts {command}: error: cannot save the record to {str(path)!r}: it holds a game record already; "
        f"give --overwrite to replace it (or go on with it: hearts tui --resume {path})\n"
    )
    assert path.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    for overwrite in ([], ["--overwrite"]):
        code, out, err = run([*table, "--seed", "5", "--record", str(notes), *overwrite], stdin="quit\n")
        assert (code, out) == (2, "")
        assert err == (
            f"hearts {command}: error: cannot save the record to {str(notes)!r}: the file is not a game "
            "record (--overwrite replaces a game record only); name another file\n"
        )
        assert notes.read_text() == "mine"
    if command == "tui":  # resuming a record and saving it back in place is no overwrite
        code, _, err = run(["tui", "--resume", str(path), "--record", str(path)])
        assert code == 2 and "needs an interactive terminal" in err
        return
    assert run([*table, "--seed", "5", "--record", str(path), "--overwrite"], stdin="quit\n")[0] == 0
    loaded = record.load(path)
    assert isinstance(loaded, record.GameRecord) and loaded.game.seed == 5


def test_the_terminal_tables_autosave_error_is_shown(tmp_path: Path) -> None:
    """If saving after a round fails all the same (the folder went away), the terminal table
    says so to the player instead of swallowing the error."""
    pytest.importorskip("textual")
    import asyncio

    from hearts import Rules
    from hearts.actions import Pass, Play
    from hearts.tui.app import HeartsApp
    from hearts.tui.session import HUMAN, Session

    session = Session.new(Rules(), seed=5, specs=["random"], delay=0)
    while True:  # the person to play the last card of the first round
        session.run_bots_until_human()
        view = session.view
        if not view.must_pass and len(view.hand) == 1:
            break
        session.apply(Pass(HUMAN, list(view.hand)[:3]) if view.must_pass else Play(HUMAN, next(iter(view.legal))))
    gone = tmp_path / "gone"
    gone.mkdir()
    app = HeartsApp(session, record_path=gone / "game.json")
    gone.rmdir()

    async def go() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await pilot.press("enter")  # the one legal card
            for _ in range(50):
                await pilot.pause(0.05)
                if session.game.score_history:
                    break
            await pilot.pause(0.2)
            assert session.game.score_history
            assert f"Cannot save to {str(gone / 'game.json')!r}" in app.message

    asyncio.run(go())


# --- the terminal table when standard error is not the terminal -------------------------------


def _read_pty(fd: int, until: str, timeout: float) -> tuple[bytes, str]:
    """What is written to the terminal until ``until`` shows (or ``timeout`` seconds pass):
    the bytes, and the text without its escape sequences."""
    import re
    import select
    import time

    seen, text = b"", ""
    end = time.monotonic() + timeout
    while until not in text and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:  # the process closed the terminal
                break
            text = re.sub(r"\x1b\[[0-9;?$>]*[A-Za-z]", "", seen.decode("utf-8", "replace"))
    return seen, text


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_the_terminal_table_draws_on_the_terminal_with_stderr_elsewhere(tmp_path: Path) -> None:
    """`hearts tui 2>FILE` at a terminal: the table is drawn on the terminal (Textual draws on
    standard error, given the terminal while the table runs), nothing on the file."""
    pytest.importorskip("textual")
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    log = tmp_path / "stderr.txt"
    with log.open("wb") as errors:
        proc = subprocess.Popen(
            [*_console_script(), "tui", "--seed", "1", "--delay", "0"],
            stdin=slave, stdout=slave, stderr=errors, close_fds=True,
            env={**os.environ, "TERM": "xterm-256color", "PYTHONIOENCODING": "utf-8"},
        )
    os.close(slave)
    try:
        shown, text = _read_pty(master, "mark 3 to pass", timeout=60)
    finally:
        proc.kill()
        proc.wait(timeout=10)
        os.close(master)
    assert b"\x1b[?1049h" in shown  # the table took the screen
    assert "You (South)" in text and "mark 3 to pass" in text
    assert log.read_text() == ""


# --- hearts selfplay into a folder that is not empty ------------------------------------------


def test_selfplay_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    """A second `hearts selfplay` into the same folder is refused (exit 2, nothing changed)
    unless --overwrite, which removes the old shards: no stale shard beside the new manifest."""
    pytest.importorskip("numpy")
    from hearts.rl import selfplay

    argv = ["selfplay", "random", "--rounds", "3", "--shard-rounds", "1", "--out", str(tmp_path), "-q"]
    assert run(argv)[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json", *(selfplay.shard_name(i) for i in range(3))]
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    fewer = ["selfplay", "random", "--rounds", "3", "--shard-rounds", "2", "--out", str(tmp_path), "-q"]
    code, out, err = run(fewer)
    assert code == 2 and out == ""
    assert err == (
        f"hearts selfplay: error: the folder {str(tmp_path)!r} is not empty (manifest.json, shard-00000.npz, "
        "shard-00001.npz, ...): give --overwrite to replace its self-play data, or name a new or empty folder\n"
    )
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # nothing changed
    assert run([*fewer, "--overwrite"])[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json", "shard-00000.npz", "shard-00001.npz"]
    assert [s["file"] for s in selfplay.read_manifest(tmp_path)["shards"]] == ["shard-00000.npz", "shard-00001.npz"]
    (tmp_path / "notes.txt").write_text("mine")
    code, _, err = run([*fewer, "--overwrite"])
    assert code == 2 and "holds files that are not self-play data (notes.txt)" in err
    assert (tmp_path / "notes.txt").read_text() == "mine" and (tmp_path / "manifest.json").exists()
