"""The test session's setup: the bots' compiled kernel is compiled (or loaded from numba's disk
cache) once before any test, as ``hearts serve`` does while it starts, so that no server
process started by a test compiles it within its start-up deadline; and the locale asks for no
language (``LANG=C.UTF-8``), so that the commands, which follow the locale (``hearts play``,
``rules``, ``replay``, ``analyze``, ``tui``), speak English in every test that names no
language, whatever the locale of the machine running them."""

from __future__ import annotations

import os

from hearts import fast


def pytest_sessionstart() -> None:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        os.environ.pop(name, None)
    os.environ["LANG"] = "C.UTF-8"
    fast.available()
