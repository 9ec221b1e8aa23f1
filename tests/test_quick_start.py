"""The README's quick start brings the fast bots (issue 26, item 2).

The quick start installs ``.[web]``: it must bring numba, so that the bots think on the compiled
kernel (:mod:`hearts.fast`) with no extra step, and ``hearts serve`` compiles that kernel while it
starts, saying so, instead of in the middle of a player's turn. Where numba is missing the levels
still play, and ``hearts serve`` says once why they are slow.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def serve_output(tmp_path: Path, block_numba: bool) -> str:
    """What ``hearts serve`` prints until it gives its address (then it is stopped)."""
    code = "import sys; sys.modules['numba'] = None\n" if block_numba else ""
    code += "import sys; from hearts.cli import main; sys.exit(main(sys.argv[1:]))"
    db = tmp_path / "tables.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--port", "0", "--db", f"sqlite:///{db}", "--log-level", "error"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("pyhearts web table on"):
                break
    finally:
        proc.terminate()
        proc.wait(30)
    return "".join(lines)


def test_hearts_serve_prepares_the_compiled_bots_before_giving_its_address(tmp_path: Path) -> None:
    out = serve_output(tmp_path, block_numba=False)
    lines = out.splitlines()
    assert lines[0].startswith("Preparing the bots (numba compiles them the first time"), out
    assert lines[1].startswith("Bots ready ("), out
    assert lines[2].startswith("pyhearts web table on http://127.0.0.1:"), out


def test_without_numba_hearts_serve_says_once_that_the_bots_are_slow_and_why(tmp_path: Path) -> None:
    out = serve_output(tmp_path, block_numba=True)
    assert out.count("think 20 to 40 times slower") == 1, out
    assert "numba is not installed" in out and "pip install 'pyhearts[web]'" in out, out
    assert "pyhearts web table on http://127.0.0.1:" in out, out


def test_without_numba_the_levels_still_play() -> None:
    """The same decisions on the pure kernel: an ``expert`` and a ``hard`` bot act with numba
    blocked (slowly, but legally)."""
    code = textwrap.dedent(
        """
        import sys; sys.modules['numba'] = None
        from hearts import Game, Rules, fast
        from hearts.bots import make_bot
        from hearts.view import View
        assert not fast.available() and "numba is not installed" in fast.unavailable_reason()
        game = Game(Rules(), seed=2)
        for spec in ("hard", "search:iterations=200,tree=1"):
            action = make_bot(spec, seed=1).act(View.of(game, 0))
            assert action in game.legal_actions(0), action
        print("ok")
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]
