"""The web service's code stays in pieces one can read (issue 25): no function or method of
``hearts.server`` over :data:`MAX_FUNCTION` lines and no class over :data:`MAX_CLASS` lines (the
``def`` or ``class`` line to the last line, a docstring included), the storage layer included;
and a table's parts ask for what follows a command as effects rather than doing it to each
other (issue 41, item 2)."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "src" / "hearts" / "server"
MAX_FUNCTION = 80
MAX_CLASS = 400
PARTS = ("moves", "clocks", "follow", "talk", "hints", "presence", "messages")
"""The modules of a table's parts (:mod:`hearts.server.tables`)."""
FOLLOW_UPS = {("presence", "tell"), ("bots", "kick"), ("messages", "broadcast"), ("clocks", "start")}
"""What follows a command: asked for as :class:`~hearts.server.tables.effects.Effects`, done by
``Table.perform`` only."""


def modules() -> list[Path]:
    return sorted(SERVER.rglob("*.py"))


def too_long(path: Path, root: Path = SERVER) -> list[str]:
    """Every function and class of a module longer than allowed: ``module:line name (n lines)``,
    the module named from ``root``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            limit = MAX_CLASS if isinstance(node, ast.ClassDef) else MAX_FUNCTION
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({length} lines, at most {limit})")
    return found


def test_no_function_or_class_of_the_server_is_too_long() -> None:
    checked = modules()
    assert len(checked) > 10 and {"http", "tables"} <= {p.parts[-2] for p in checked}
    assert [line for path in checked for line in too_long(path)] == []


def test_the_check_finds_a_long_function(tmp_path: Path) -> None:
    long = tmp_path / "long.py"
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION))
    long.write_text(f"def short():\n    pass\n\n\nasync def long():\n{body}", encoding="utf-8")
    assert too_long(long, tmp_path) == [f"long.py:5 long ({MAX_FUNCTION + 1} lines, at most {MAX_FUNCTION})"]


def follow_ups(path: Path) -> list[str]:
    """The calls ``table.<part>.<follow-up>()`` of :data:`FOLLOW_UPS` in a module, as ``line part.method``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Attribute):
            owner = node.func.value
            if (owner.attr, node.func.attr) in FOLLOW_UPS and not (isinstance(owner.value, ast.Name) and owner.value.id == "self"):
                found.append(f"{node.lineno} {owner.attr}.{node.func.attr}")
    return found


def test_a_tables_parts_return_what_follows_a_command_instead_of_doing_it_to_each_other(tmp_path: Path) -> None:
    """A part (moves, clocks, the follower, talk, hints, presence, messages) never makes the
    table's clocks start, broadcast, tell who is there or wake the bots itself: it returns
    :class:`~hearts.server.tables.effects.Effects`, and ``Table.perform`` does it."""
    parts = [SERVER / "tables" / f"{name}.py" for name in PARTS]
    assert all(p.exists() for p in parts)
    assert {p.name: follow_ups(p) for p in parts} == {p.name: [] for p in parts}
    sideways = tmp_path / "part.py"
    sideways.write_text("def done(self):\n    self.table.presence.tell()\n    self.tell()\n", encoding="utf-8")
    assert follow_ups(sideways) == ["2 presence.tell"]
