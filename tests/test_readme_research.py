"""The README's "For researchers" section as written: every Python snippet runs, and every
``hearts`` command line parses (running them takes minutes: they are sized for real work)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hearts.arena import _parser as arena_parser
from hearts.cli import build_parser

README = Path(__file__).resolve().parents[1] / "README.md"


def research_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## For researchers")
    return text[start : text.index("\n## ", start + 1)]


def blocks(language: str) -> list[str]:
    """The fenced code blocks of the section in ``language`` (``""``: no language), dedented."""
    found: list[str] = []
    fence: str | None = None  # the language of the open block
    lines: list[str] = []
    for line in research_section().splitlines():
        stripped = line.strip()
        if fence is None and stripped.startswith("```"):
            fence, lines = stripped[3:], []
        elif fence is not None and stripped == "```":
            if fence == language:
                found.append(textwrap.dedent("\n".join(lines)))
            fence = None
        elif fence is not None:
            lines.append(line)
    return found


PYTHON = blocks("python")
COMMANDS = [line for block in blocks("") for line in block.splitlines() if line.startswith("hearts ")]


def test_the_section_has_snippets() -> None:
    assert len(PYTHON) >= 5 and len(COMMANDS) >= 3


@pytest.mark.parametrize("code", PYTHON, ids=[f"python{i}" for i in range(len(PYTHON))])
def test_python_snippet_runs(code: str, tmp_path: Path) -> None:
    """Each snippet in a fresh interpreter, as a reader pastes it: nothing imported before it
    (``gymnasium.make`` must find the environment by itself), in an empty folder (a snippet
    may write files)."""
    if "pyspiel" in code:
        pytest.importorskip("pyspiel")
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "every snippet prints what it shows"


@pytest.mark.parametrize("command", COMMANDS)
def test_command_parses(command: str) -> None:
    argv = shlex.split(command)[1:]
    parser = arena_parser() if argv[0] == "arena" else build_parser()
    parser.parse_args(argv[1:] if argv[0] == "arena" else argv)


def test_the_training_figures_are_what_the_example_prints() -> None:
    """The README's figures for ``examples/train_policy.py`` are what it prints at its
    defaults (a seeded run: the same figures on every machine; about 40 s of one core)."""
    pytest.importorskip("gymnasium")
    example = README.parent / "examples" / "train_policy.py"
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, timeout=600, check=True)
    before = re.search(r"^before: (\d+\.\d\d) ± (\d+\.\d\d)", done.stdout, re.M)
    after = re.search(r"^after 6000 episodes .*: (\d+\.\d\d) ± (\d+\.\d\d)", done.stdout, re.M)
    assert before and after, done.stdout
    claim = f"from {before[1]} ± {before[2]} to {after[1]} ± {after[2]} points per round after 6000 episodes"
    assert claim in " ".join(research_section().split()), (claim, done.stdout)
