"""The docs pages as written (the README is the landing page; the reference is in ``docs/``):
every ``hearts`` command line shown in a code block of any page parses (running them takes
minutes: they are sized for real work), and every Python snippet of the research page runs in a
fresh interpreter (``docs/engine.md``'s examples are doctests, run by pytest's doctest glob).
A usage synopsis (``hearts play [--seed N] …``) is not a command line and is skipped."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hearts.cli import build_parser
from hearts.cli.arena import parser as arena_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RESEARCH = ROOT / "docs" / "research.md"
SYNOPSIS = re.compile(r"\[|\.\.\.|…|SPEC SPEC|FILE\b|\bN\b")
"""What only a usage synopsis holds: optional parts, ellipses, placeholders."""


def blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of ``text`` in ``language`` (``""``: no language), dedented."""
    found: list[str] = []
    fence: str | None = None  # the language of the open block
    lines: list[str] = []
    for line in text.splitlines():
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


def research_section() -> str:
    return RESEARCH.read_text(encoding="utf-8")


def command_lines(page: Path) -> list[str]:
    """The ``hearts`` command lines of a page's shell blocks (a comment after ``#`` dropped)."""
    text = page.read_text(encoding="utf-8")
    found = []
    for language in ("", "sh", "bash", "console"):
        for block in blocks(text, language):
            for line in block.splitlines():
                line = line.removeprefix("$ ").split("  #")[0].strip()
                if line.startswith("hearts ") and not SYNOPSIS.search(line):
                    found.append(line)
    return found


PYTHON = blocks(research_section(), "python")
COMMANDS = [(page.relative_to(ROOT).as_posix(), line) for page in PAGES for line in command_lines(page)]


def test_the_pages_have_snippets() -> None:
    pages = {page for page, _ in COMMANDS}
    assert len(PYTHON) >= 5 and len(COMMANDS) >= 5 and {"docs/research.md", "docs/arena.md"} <= pages, COMMANDS


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


@pytest.mark.parametrize(("page", "command"), COMMANDS, ids=[f"{p}:{c[:40]}" for p, c in COMMANDS])
def test_command_parses(page: str, command: str) -> None:
    """The command line parses (``--version`` and ``--help`` exit 0 at once)."""
    argv = shlex.split(command)[1:]
    parser = arena_parser() if argv[0] == "arena" else build_parser()
    try:
        parser.parse_args(argv[1:] if argv[0] == "arena" else argv)
    except SystemExit as e:
        assert e.code == 0 and argv[0] in ("--version", "--help"), (page, command)


def test_the_training_figures_are_what_the_example_prints() -> None:
    """The research page's figures for ``examples/train_policy.py`` are what it prints at its
    defaults (a seeded run: the same figures on every machine; about 40 s of one core)."""
    pytest.importorskip("gymnasium")
    example = ROOT / "examples" / "train_policy.py"
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, timeout=600, check=True)
    before = re.search(r"^before: (\d+\.\d\d) ± (\d+\.\d\d)", done.stdout, re.M)
    after = re.search(r"^after 6000 episodes .*: (\d+\.\d\d) ± (\d+\.\d\d)", done.stdout, re.M)
    assert before and after, done.stdout
    claim = f"from {before[1]} ± {before[2]} to {after[1]} ± {after[2]} points per round after 6000 episodes"
    assert claim in " ".join(research_section().split()), (claim, done.stdout)
