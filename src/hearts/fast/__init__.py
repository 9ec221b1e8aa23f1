"""One source, compiled where it can be: the kernel's functions run as Python, or in machine code.

The rollout kernel (:mod:`hearts.kernel`), the rollout policies, the sampler and the search
(:mod:`hearts.bots`) are written once, in the plain-integer style numba compiles: ints and card
masks, flat lists indexed by ints, no objects. :func:`jit` marks such a function; it stays the
plain Python function it is, and that is what runs without numba, with ``PYHEARTS_PURE=1`` (or
numba's ``NUMBA_DISABLE_JIT=1``) and for a search bot with ``fast=0``. With numba installed
(``pip install 'pyhearts[fast]'``) :func:`run` calls the compiled form of the same function,
some 15 to 25 times faster: the lists become int64 arrays, and the :class:`random.Random` the
state of its Mersenne Twister, which the compiled code draws from exactly as the interpreter
does (CPython's generator, reproduced bit for bit), handing the state back after. So the same
function on the same seed takes the same decisions in both modes.

What Python and numba spell differently is taught to numba, not written twice: the compiled
module (``hearts.fast.compiled``, loaded by name on first use, so that this module imports
neither numba nor numpy) gives numba ``int.bit_length``, ``int.bit_count`` and the
``Random`` methods ``random`` and ``shuffle`` on a state array, and the two helpers of this
module that seed a rollout's stream (:func:`seeded`, :func:`fresh`).

>>> @jit
... def lowest(mask: int) -> int:
...     return (mask & -mask).bit_length() - 1
>>> lowest(0b1100), run(lowest, 0b1100)  # interpreted, and compiled (numba is installed)
(2, 2)
"""

from __future__ import annotations

import importlib
import os
import random
import time
from collections.abc import Callable
from functools import cache
from types import ModuleType
from typing import Any, Final, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

KERNEL: Final[list[Callable[..., Any]]] = []
"""The functions marked :func:`jit`, in the order they were defined."""


INLINE: Final[list[Callable[..., Any]]] = []
"""The functions marked :func:`inline`."""


def jit(function: F) -> F:
    """Mark ``function`` as written in the compilable style: it is returned unchanged (the
    pure form), and numba compiles it, and the marked functions it calls, for :func:`run`."""
    KERNEL.append(function)
    return function


def inline(function: F) -> F:
    """:func:`jit`, compiled into each caller rather than called: for the few-line helpers run
    for every card (a call between compiled functions costs more than such a helper)."""
    INLINE.append(function)
    return jit(function)


def seeded(seed: float, buffer: Any) -> Any:
    """What :func:`fresh` restarts from: the stream of ``random.Random(seed)``, ``seed`` a value of
    ``Random.random()`` (compiled: the seeded state, in ``buffer``; here the seed itself).

    >>> fresh(seeded(0.5, None), None).random() == random.Random(0.5).random()
    True
    """
    return seed


def fresh(start: Any, buffer: Any) -> random.Random:
    """A new stream that draws what ``random.Random(seed)`` draws, from :func:`seeded`'s
    ``start`` (compiled: its copy, into ``buffer``): each candidate of a sample rolls out on
    the same numbers."""
    return random.Random(start)


def ints(n: int) -> list[int]:
    """``n`` zeros to fill (compiled: an int64 array).

    >>> ints(3)
    [0, 0, 0]
    """
    return [0] * n


def rows(k: int, n: int) -> list[list[int]]:
    """``k`` rows of ``n`` zeros (compiled: a 2-d int64 array).

    >>> rows(2, 3)
    [[0, 0, 0], [0, 0, 0]]
    """
    return [[0] * n for _ in range(k)]


def floats(n: int) -> list[float]:
    """``n`` zeros to fill, as floats (compiled: a float64 array)."""
    return [0.0] * n


def stream_buffer() -> Any:
    """Space for a seeded stream (compiled: a state array; here nothing)."""
    return None


@cache
def _load() -> tuple[ModuleType | None, str]:
    """``hearts.fast.compiled`` and ``""``, or ``None`` and why it cannot be used."""
    if os.environ.get("PYHEARTS_PURE", "") not in ("", "0"):
        return None, "PYHEARTS_PURE is set: the kernel runs as Python"
    if os.environ.get("NUMBA_DISABLE_JIT", "") not in ("", "0"):
        return None, "NUMBA_DISABLE_JIT is set: the kernel runs as Python"
    try:
        # Imported by name: the layers contract keeps numba and numpy out of the core's imports.
        module = importlib.import_module("hearts.fast.compiled")
    except ImportError as e:
        return None, f"numba is not installed ({e}); pip install 'pyhearts[web]' brings it"
    if not module.matches_interpreter():
        return None, "this interpreter's random.Random is not CPython's, which the compiled kernel reproduces"
    return module, ""


def available() -> bool:
    """Whether the kernel runs compiled here: numba is installed, neither ``PYHEARTS_PURE`` nor
    ``NUMBA_DISABLE_JIT`` is set, and this interpreter's ``random.Random`` draws what the
    compiled code draws. The first call loads the compiled module."""
    return _load()[0] is not None


def unavailable_reason() -> str:
    """Why the kernel cannot run compiled here, in one line; ``""`` when it can (loading it, as
    :func:`available` does).

    >>> unavailable_reason()  # numba is installed
    ''
    """
    return _load()[1]


def prepare(say: Callable[[str], None]) -> bool:
    """Load the compiled kernel now, before a bot needs it, and tell ``say`` (one line at a
    time): numba compiles it on its first use on a machine (about half a minute, then cached on
    disk), so a front end calls this while it starts, not in the middle of a player's turn.
    Without it the bots still play, on the pure kernel, and ``say`` hears once why they are
    slow. Returns :func:`available`.

    >>> prepare(print)  # doctest: +ELLIPSIS
    Preparing the bots (numba compiles them the first time, about half a minute)...
    Bots ready (... s).
    True
    """
    say("Preparing the bots (numba compiles them the first time, about half a minute)...")
    start = time.perf_counter()
    module, reason = _load()
    if module is None:
        say(f"The search bots (hard, expert, hints) think 20 to 40 times slower here: {reason}.")
        return False
    for warm in PREPARE:
        warm()
    say(f"Bots ready ({time.perf_counter() - start:.1f} s).")
    return True


class Unavailable(RuntimeError):
    """The kernel was asked to run compiled where it cannot (see :func:`available`)."""


def _module() -> ModuleType:
    module = _load()[0]
    if module is None:
        raise Unavailable("hearts.fast needs numba (pip install 'pyhearts[fast]') and an interpreter whose "
                          f"random.Random is CPython's ({_load()[1]}); see hearts.fast.available()")
    return module


def call(compiled: bool, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, through :func:`run` when ``compiled``.

    >>> call(False, max, 2, 3)
    3
    """
    return run(function, *args) if compiled else function(*args)


def run(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` compiled (a :func:`jit` function): lists of ints or floats (and lists
    of such lists) travel as arrays and are written back, a :class:`random.Random` as its state,
    handed back after, a :class:`~hearts.mechanics.LegalConfig` as a tuple of its fields.
    Raises :class:`Unavailable` unless :func:`available`."""
    return _module().run(function, args)


PREPARE: Final[list[Callable[[], None]]] = []
"""What :func:`prepare` runs to compile (or load from numba's cache) the kernel's entry points."""


def on_prepare(warm: Callable[[], None]) -> Callable[[], None]:
    """Register ``warm`` (a call of some entry points on a small position, through :func:`run`)
    with :func:`prepare`, which runs it where the kernel can run compiled."""
    PREPARE.append(warm)
    return warm


__all__ = [
    "INLINE",
    "KERNEL",
    "PREPARE",
    "Unavailable",
    "available",
    "call",
    "floats",
    "fresh",
    "inline",
    "ints",
    "jit",
    "on_prepare",
    "prepare",
    "rows",
    "run",
    "seeded",
    "stream_buffer",
    "unavailable_reason",
]
