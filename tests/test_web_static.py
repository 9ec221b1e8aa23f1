"""The browser client's files (``hearts/server/static``) as ES modules (issue 25).

``index.html`` loads one module script, ``app.js``; every other client file is a module it
imports (directly or not), with no IIFE and no global namespace (one deliberate test hook in
``app.js``); each module opens with a comment saying what it is; none is over 400 lines; an
imported name is one its module exports; the seats' layout is ``layout.js``'s alone, shared by
the table and the replay. The server sends each module as JavaScript (a module script of
another type is refused by the browser under ``nosniff``) with a policy that allows scripts
from the server itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parent.parent / "src" / "hearts" / "server" / "static"
MODULES = sorted(p.name for p in STATIC.glob("*.js"))
IMPORT = re.compile(r'^import (?:\* as \w+|\{([^}]*)\}) from "\./([\w-]+\.js)";$', re.M)
EXPORT_LIST = re.compile(r"^export \{([^}]*)\};$", re.M)
EXPORT_ONE = re.compile(r"^export (?:async )?(?:function|const|let) ([\w$]+)", re.M)


def text(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def exports(name: str) -> set[str]:
    src = text(name)
    names = set(EXPORT_ONE.findall(src))
    for group in EXPORT_LIST.findall(src):
        names |= {x.strip() for x in group.split(",") if x.strip()}
    return names


def imports(name: str) -> list[tuple[str, list[str]]]:
    """The modules ``name`` imports, each with the names it takes (none: ``* as``)."""
    found = []
    for names, module in IMPORT.findall(text(name)):
        taken = [x.strip().split(" as ")[0].strip() for x in names.split(",") if x.strip()]
        found.append((module, taken))
    return found


def test_index_loads_one_module_script() -> None:
    html = text("index.html")
    assert re.findall(r"<script\b[^>]*>", html) == ['<script type="module" src="/static/app.js">']
    assert "</script>" in html and not re.search(r"<script[^>]*>[^<]+</script>", html)  # nothing inline


def test_index_preloads_every_module_app_js_imports() -> None:
    """Every module is fetched as the page opens (``modulepreload``), not one level of imports
    at a time: a page on a slow connection waits one round trip, not five."""
    preloaded = re.findall(r'<link rel="modulepreload" href="/static/([\w-]+\.js)">', text("index.html"))
    assert sorted(preloaded) == [m for m in MODULES if m != "app.js"]


def test_every_client_file_is_a_module_imported_from_app_js() -> None:
    reached, todo = set(), ["app.js"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        for module, taken in imports(name):
            assert module in MODULES, f"{name} imports {module}, which is not there"
            missing = set(taken) - exports(module)
            assert not missing, f"{name} imports {sorted(missing)} that {module} does not export"
            todo.append(module)
    assert reached == set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_a_module_has_no_iife_nor_global_namespace(name: str) -> None:
    src = text(name)
    assert src.startswith("// pyhearts web table: "), "a module opens with what it is"
    assert '"use strict"' not in src and not re.search(r"^\(function", src, re.M)
    hook = len(re.findall(r"^window\.pyhearts = ", src, re.M))  # the entry's test hook, nothing else
    assert hook == (name == "app.js") and src.count("window.pyhearts") == 2 * hook  # its comment and itself
    assert exports(name) or name == "app.js"
    assert src.count("\n") <= 400


def test_the_seats_layout_is_shared() -> None:
    for name in MODULES:
        src = text(name)
        if name != "layout.js":
            assert "SEAT_POS" not in src and "TRICK_AT" not in src, name
    users = {name for name in MODULES for module, _ in imports(name) if module == "layout.js"}
    assert {"table.js", "replay.js"} <= users


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("starlette")
    from test_server_support import ServerProcess

    s = ServerProcess(tmp_path_factory.mktemp("static") / "tables.db").start()
    yield s.url
    s.stop()


def test_modules_are_served_as_javascript_under_the_policy(server: str) -> None:
    from test_server_support import request

    for name in MODULES:
        status, headers, _ = request("GET", f"{server}/static/{name}")
        assert status == 200, name
        assert headers["Content-Type"].split(";")[0] in {"text/javascript", "application/javascript"}, name
        csp = headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
