"""The test session's setup: the bots' compiled kernel is compiled (or loaded from numba's disk
cache) once before any test, as ``hearts serve`` does while it starts, so that no server
process started by a test compiles it within its start-up deadline."""

from __future__ import annotations

from hearts import fast


def pytest_sessionstart() -> None:
    fast.available()
