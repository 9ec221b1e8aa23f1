"""The strength benchmark's output: the issue fixes its last line, and the OpenSpiel reference
line must report a paired difference that matches both bots' means (tiny budgets here: this
checks the script, not the bots' strength)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


LAST_LINE = re.compile(
    r"^heuristic_vs_random=-?\d+\.\d\d hard_vs_random=-?\d+\.\d\d hard_vs_heuristic=-?\d+\.\d\d "
    r"hard_p95_s=\d+\.\d\d$"
)


def test_strength_last_line_and_reference(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    strength = load("strength")
    args = ["--deals-fast", "2", "--deals", "3", "--jobs", "1", "--hard", "search:iterations=40",
            "--reference-simulations", "40"]
    assert strength.main(args) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert LAST_LINE.match(lines[-1]), lines[-1]
    reference = next(line for line in lines if line.startswith("reference "))
    match = re.search(r"ismcts_vs_random=(-?\d+\.\d\d) .* hard_minus_ismcts=(-?\d+\.\d\d) \[", reference)
    assert match, reference
    hard = re.search(r"hard_vs_random=(-?\d+\.\d\d)", lines[-1])
    assert hard
    ismcts, diff = float(match.group(1)), float(match.group(2))
    # Every deal is played in all four rotations by both, so the paired mean is the difference of means.
    assert diff == pytest.approx(float(hard.group(1)) - ismcts, abs=0.011)
