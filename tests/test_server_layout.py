"""The server's code stays readable (issue 41, item 6): no function of ``hearts.server`` is over
80 lines and no class over 400, counted by the syntax tree (docstrings included)."""

from __future__ import annotations

import ast
from pathlib import Path

import hearts.server

SERVER = Path(hearts.server.__file__).parent


def spans(limit_function: int = 80, limit_class: int = 400) -> list[str]:
    """The functions and classes of the server over their limits, as ``path:line name (lines)``."""
    over = []
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            limit = limit_class if isinstance(node, ast.ClassDef) else limit_function
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    over.append(f"{path.relative_to(SERVER)}:{node.lineno} {node.name} ({lines})")
    return over


def test_no_server_function_is_over_80_lines_and_no_class_over_400() -> None:
    assert spans() == []


def test_the_scan_finds_what_is_over_a_limit() -> None:
    """The check can fail: with limits of 20 and 100 lines, the table's class and its longest
    function are found."""
    found = spans(limit_function=20, limit_class=100)
    assert any(entry.startswith("tables/table.py:") and " Table (" in entry for entry in found)
    assert len(found) > 10
