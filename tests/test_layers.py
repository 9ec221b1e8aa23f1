"""The architecture's layers (DESIGN.md) are enforced by import-linter's contracts in
pyproject.toml; these tests show the contracts hold and that they do fail on an upward import."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed")


def lint(project: Path, package_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(project / "pyproject.toml")],
        cwd=project,
        env={"PYTHONPATH": str(package_dir), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def copy_project(tmp_path: Path) -> Path:
    """A copy of the package and of the contracts (nothing else of the project)."""
    shutil.copytree(ROOT / "src" / "hearts", tmp_path / "src" / "hearts", symlinks=True)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert config["contracts"], "pyproject.toml declares no import contract"
    lines = ["[tool.importlinter]", f'root_package = "{config["root_package"]}"']
    lines.append(f"include_external_packages = {str(config.get('include_external_packages', False)).lower()}")
    for contract in config["contracts"]:
        lines.append("[[tool.importlinter.contracts]]")
        lines.extend(f"{key} = {_toml(value)}" for key, value in contract.items())
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_the_package_keeps_its_contracts() -> None:
    """Every contract of pyproject.toml is kept by the package as it is."""
    result = lint(ROOT, ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


@pytest.mark.parametrize(
    ("module", "upward", "contract"),
    [
        ("cards.py", "from hearts.bots import base", "hearts.cards is not allowed to import hearts.bots"),
        ("game.py", "import hearts.server", "hearts.game is not allowed to import hearts.server"),
        ("tui/__init__.py", "import hearts.server", "hearts.tui is not allowed to import hearts.server"),
        ("round.py", "import numpy", "hearts.round is not allowed to import numpy"),
    ],
)
def test_an_upward_import_breaks_the_contracts(tmp_path: Path, module: str, upward: str, contract: str) -> None:
    """The layers contract fails on an import of a higher layer (or between front ends), and
    the core contract on an import of an optional dependency."""
    project = copy_project(tmp_path)
    target = project / "src" / "hearts" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{upward}  # an upward import\n", encoding="utf-8")
    result = lint(project, project / "src")
    assert result.returncode != 0, result.stdout
    assert contract in result.stdout, result.stdout
