"""Imports of the kernel, the bots, the arena and the research adapters, beyond the layers
contract that import-linter checks on the code (``tests/test_layers.py``): every name comes
from the module that defines it (not through a module that merely imports it, such as a
constant of ``hearts.cards`` through ``hearts.round``), and the doctest examples, which
import-linter does not see, follow the layers too.

The kernel is only the rollout loop: it knows nothing of the bots (their strategies live in
``hearts.bots.policies``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "hearts"

LAYERS = [
    "errors", "cards", "rules", "mechanics", "actions", "round", "game", "view", "record",
    "fast", "kernel", "bots", "arena", "rl",
]
"""Bottom to top; a module may import only modules of layers before its own (and its own
package's modules); ``a | b`` would be siblings, which may not import each other (``fast``, the
compiler of the kernel's functions, sits below the ``kernel``, which marks them). ``hearts``
itself (the package's public names) stands at ``game``."""
FRONT_ENDS = ("cli", "tui", "server")

CHECKED = sorted([SRC / "kernel.py", SRC / "arena.py", *SRC.glob("fast/*.py"), *SRC.glob("bots/*.py"),
                  *SRC.glob("rl/*.py")])

DOCTEST_IMPORT = re.compile(r">>> from (hearts(?:\.\w+)*) import (.+)")


def layer(module: str) -> str:
    """The layer of a module name such as ``hearts.bots.search``."""
    parts = module.split(".")
    return "game" if parts == ["hearts"] else parts[1]


def rank(name: str) -> int:
    """The height of a layer in :data:`LAYERS` (siblings share it)."""
    return next(i for i, names in enumerate(LAYERS) if name in names.split(" | "))


def doctest_imports(path: Path) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every ``from hearts... import`` of the file's doctest examples."""
    text = path.read_text(encoding="utf-8")
    found = DOCTEST_IMPORT.findall(text)
    return [(module, [n.strip() for n in names.partition("#")[0].split(",")]) for module, names in found]


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every ``hearts`` import in the file, code and doctests alike."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "hearts":
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names if a.name.split(".")[0] == "hearts"]
    return found + doctest_imports(path)


def defined(module: str) -> set[str] | None:
    """The names a plain module defines at its top level (``None`` for a package, whose
    ``__init__`` re-exports on purpose)."""
    path = SRC.joinpath(*module.split(".")[1:]).with_suffix(".py")
    if not path.is_file():
        return None
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):  # (``A, B = range(2)`` defines both)
            names |= {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(SRC)))
def test_doctest_examples_follow_the_layers(path: Path) -> None:
    """docs/architecture.md: a module's examples import only the layers below it (and never a front end)."""
    mine = layer("hearts." + ".".join(path.relative_to(SRC).with_suffix("").parts))
    for module, _ in doctest_imports(path):
        theirs = layer(module)
        assert theirs not in FRONT_ENDS, f"{path.name} imports the front end {module}"
        assert theirs == mine or rank(theirs) < rank(mine), f"{path.name} imports {module}"


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(SRC)))
def test_names_come_from_where_they_live(path: Path) -> None:
    """A name is imported from the module that defines it (``QS`` from ``hearts.cards``,
    ``LegalConfig`` from ``hearts.mechanics``), never through another module's imports."""
    for module, names in imports(path):
        here = defined(module)
        if here is not None:
            missing = [n for n in names if n not in here]
            assert not missing, f"{path.name}: {missing} are not defined in {module}"


def test_the_compiled_twin_is_loaded_by_name() -> None:
    """``hearts.fast`` imports its compiled module (numba, numpy) only by name, on first use, so
    the core's imports (the bots import ``hearts.fast``) never reach numba."""
    facade = SRC / "fast" / "__init__.py"
    assert all(not module.startswith("hearts.fast.") for module, _ in imports(facade))
    assert '"hearts.fast.compiled"' in facade.read_text(encoding="utf-8")


def test_the_kernel_knows_no_bot() -> None:
    """The rollout kernel is only the loop: no strategy, no import of ``hearts.bots``."""
    kernel = SRC / "kernel.py"
    assert all(layer(module) != "bots" for module, _ in imports(kernel))
    assert {"greedy_policy", "shooter_card", "defender_card", "random_card"}.isdisjoint(defined("hearts.kernel") or ())
