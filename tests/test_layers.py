"""The architecture's layers (docs/architecture.md) are enforced by import-linter's contracts in
pyproject.toml; these tests show the contracts hold and that they do fail on an upward import."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

needs_lint_imports = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed")


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


@needs_lint_imports
def test_the_package_keeps_its_contracts() -> None:
    """Every contract of pyproject.toml is kept by the package as it is."""
    result = lint(ROOT, ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


@needs_lint_imports
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


def top_level_names(path: Path) -> set[str]:
    """The public names a module assigns at its top level (constants, not functions)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


def test_card_constants_live_only_in_cards() -> None:
    """R1.2, R4.1: the cards' constants (``QS``, ``JD``, the suit and point masks, ...) are
    defined once, in ``hearts.cards``; no other module of the package defines one of them again."""
    source = ROOT / "src" / "hearts"
    constants = top_level_names(source / "cards.py")
    assert {"QS", "JD", "QS_MASK", "HEARTS_MASK", "CLUBS_MASK", "POINTS_MASK", "SUIT_MASKS"} <= constants
    again = {
        str(path.relative_to(source)): sorted(top_level_names(path) & constants)
        for path in source.rglob("*.py")
        if path.name != "cards.py" or path.parent != source
    }
    assert not {module: names for module, names in again.items() if names}
