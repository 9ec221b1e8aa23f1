"""One source, compiled where it can be: the kernel's functions run as Python, or in machine code.

The rollout kernel (:mod:`hearts.kernel`), the rollout policies, the sampler and the search
(:mod:`hearts.bots`) are written once, in the plain-integer style numba compiles (ints, card
masks, flat lists, no objects), and marked :func:`jit`. Such a function stays the Python it is,
and runs so without numba, with ``PYHEARTS_PURE=1`` or ``NUMBA_DISABLE_JIT=1``, and for a search
bot with ``fast=0``; with numba, :func:`run` calls its compiled form, some 15 to 25 times faster,
the lists as int64 arrays. Both draw from a :class:`Stream`, the kernel's own generator, by the
same integer arithmetic: the same seed takes the same decisions compiled and as Python.

What Python and numba spell differently is taught to numba by ``hearts.fast.compiled`` (loaded
by name on first use: this module imports neither numba nor numpy), not written twice:
``int.bit_length``, ``int.bit_count``, the :class:`Stream` methods on its state array, and the
allocations of this module (:func:`ints`, :func:`floats`, :func:`fresh`, :func:`stream_buffer`).

>>> @jit
... def lowest(mask: int) -> int:
...     return (mask & -mask).bit_length() - 1
>>> lowest(0b1100), run(lowest, 0b1100)  # interpreted, and compiled (numba is installed)
(2, 2)
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from functools import cache
from types import ModuleType
from typing import Any, Final, TypeVar

from hearts.i18n import N_

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


MULTIPLIER: Final = 6364136223846793005
"""The multiplier of :class:`Stream`'s generator (Knuth's MMIX)."""
INCREMENT: Final = 1442695040888963407
"""Its increment."""
MASK: Final = (1 << 63) - 1
"""Its modulus, minus one: the state is 63 bits, a non-negative int64 when compiled."""
_UNIT: Final = 2.0**-53


class Stream:
    """The kernel's seeded generator: a linear congruential generator of 63 bits, ``state =
    (state * MULTIPLIER + INCREMENT) & MASK`` per draw, ``random()`` its top 53 bits as a double
    in [0, 1). Compiled, a stream is an int64 array of its one word, stepped in unsigned 64-bit
    arithmetic (which wraps modulo 2**64: masked, Python's product masked), and :func:`run`
    hands the state back: a seed draws the same numbers in both modes. The search seeds one per
    decision from the bot's :class:`random.Random` (``Stream(rng.getrandbits(63))``).

    >>> stream = Stream(1)
    >>> stream.random(), stream.state
    (0.8464183417454265, 7806831264735756412)
    >>> cards = list(range(6))
    >>> stream.shuffle(cards)
    >>> cards
    [2, 5, 4, 3, 1, 0]
    """

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def random(self) -> float:
        """The next double in [0, 1)."""
        state = self.state = (self.state * MULTIPLIER + INCREMENT) & MASK
        return (state >> 10) * _UNIT

    def shuffle(self, cards: list[int]) -> None:
        """Shuffle ``cards`` in place: Fisher–Yates from the end, swapping position ``i`` with
        ``int(random() * (i + 1))`` (the draws written out: a loop that draws for every card)."""
        state = self.state
        for i in range(len(cards) - 1, 0, -1):
            state = (state * MULTIPLIER + INCREMENT) & MASK
            j = int((state >> 10) * _UNIT * (i + 1))
            cards[i], cards[j] = cards[j], cards[i]
        self.state = state


SPREAD: Final = 0x9E3779B97F4A7C15
""":func:`fresh`'s factor (2**64 / golden ratio): no shifted copy of the parent stream's state."""


def fresh(seed: float, buffer: Any) -> Stream:
    """A new stream seeded from ``seed``, a value of ``random()`` (compiled: into ``buffer``, a
    :func:`stream_buffer`): each candidate of a sample rolls out on the same numbers.

    >>> fresh(0.5, None).state == Stream(2**52 * SPREAD).state
    True
    """
    return Stream(int(seed * 9007199254740992.0) * SPREAD)


def ints(n: int) -> list[int]:
    """``n`` zeros to fill (compiled: an int64 array)."""
    return [0] * n


def floats(n: int) -> list[float]:
    """``n`` zeros to fill, as floats (compiled: a float64 array)."""
    return [0.0] * n


def stream_buffer() -> Any:
    """Space for a stream of :func:`fresh` (compiled: a state array; here nothing)."""
    return None


@cache
def _load() -> tuple[ModuleType | None, str]:
    """``hearts.fast.compiled`` and ``""``, or ``None`` and why it cannot be used."""
    for variable in ("PYHEARTS_PURE", "NUMBA_DISABLE_JIT"):
        if os.environ.get(variable, "") not in ("", "0"):
            return None, f"{variable} is set: the kernel runs as Python"
    try:
        # Imported by name: the layers contract keeps numba and numpy out of the core's imports.
        module = importlib.import_module("hearts.fast.compiled")
    except ModuleNotFoundError as e:
        return None, _NOT_INSTALLED if e.name == "numba" else f"{_NOT_INSTALLED} ({e})"
    except ImportError as e:
        return None, f"{_NOT_INSTALLED} ({e})"
    return module, ""


_NOT_INSTALLED: Final = "numba is not installed"


def available() -> bool:
    """Whether the kernel runs compiled here: numba is installed, and neither ``PYHEARTS_PURE``
    nor ``NUMBA_DISABLE_JIT`` is set. The first call loads the compiled module."""
    return _load()[0] is not None


def unavailable_reason(extra: str = "fast") -> str:
    """Why the kernel cannot run compiled here, in one line; ``""`` when it can (loading it, as
    :func:`available` does). When numba is missing, the line says to install the extra
    ``extra``, the one that fits the command at hand (``fast`` for ``hearts play`` and the
    arena, ``tui`` for the terminal table, ``web`` for the web table)."""
    reason = _load()[1]
    if reason.startswith(_NOT_INSTALLED):
        return f"{reason}; pip install 'pyhearts[{extra}]' brings it"
    return reason


def prepare(say: Callable[[str], None], extra: str = "fast", translate: Callable[[str], str] | None = None) -> bool:
    """Load the compiled kernel now, before a bot needs it, and tell ``say`` (one line at a
    time): numba compiles it on its first use on a machine (about half a minute, then cached on
    disk), so a front end calls this while it starts, not in the middle of a player's turn.
    Without it the bots still play, on the pure kernel, and ``say`` hears once why they are
    slow (:func:`unavailable_reason`, naming the extra ``extra``), and nothing about compiling.
    ``translate`` puts the lines in a player's language (:func:`hearts.i18n._`: ``hearts play``
    and ``hearts tui`` pass it); without it they are English (``hearts serve``'s log, for its
    operator; the reason why the bots are slow is English either way). Returns :func:`available`.

    >>> prepare(print)  # doctest: +ELLIPSIS
    Preparing the bots (numba compiles them the first time, about half a minute)...
    Bots ready (... s).
    True
    """
    start = time.perf_counter()
    words = translate if translate is not None else str
    if _load()[0] is None:
        slow = N_("The search bots (hard, expert, hints) think 20 to 40 times slower here: {reason}.")
        say(words(slow).format(reason=unavailable_reason(extra)))
        return False
    say(words(N_("Preparing the bots (numba compiles them the first time, about half a minute)...")))
    for warm in PREPARE:
        warm()
    say(words(N_("Bots ready ({seconds} s).")).format(seconds=f"{time.perf_counter() - start:.1f}"))
    return True


def networks() -> ModuleType | None:
    """``hearts.fast.mlp``, numpy's forward pass of the bots' networks
    (:class:`hearts.bots.reader.Network`), or ``None`` where numpy is missing or the kernel is
    told to run as Python (``PYHEARTS_PURE``, ``NUMBA_DISABLE_JIT``): the networks then run as
    plain Python, on the same weights."""
    for variable in ("PYHEARTS_PURE", "NUMBA_DISABLE_JIT"):
        if os.environ.get(variable, "") not in ("", "0"):
            return None
    try:
        return importlib.import_module("hearts.fast.mlp")  # by name: the core imports no numpy
    except ImportError:
        return None


class Unavailable(RuntimeError):
    """The kernel was asked to run compiled where it cannot (see :func:`available`)."""


def _module() -> ModuleType:
    module = _load()[0]
    if module is None:
        raise Unavailable(f"hearts.fast needs numba, pip install 'pyhearts[fast]' ({_load()[1]}); "
                          "see hearts.fast.available()")
    return module


def call(compiled: bool, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, through :func:`run` when ``compiled``."""
    return run(function, *args) if compiled else function(*args)


def run(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` compiled (a :func:`jit` function): lists of ints or floats (and lists
    of such lists) travel as arrays and are written back, a :class:`Stream` as its state, handed
    back after (a :class:`random.Random` is refused), a :class:`~hearts.mechanics.LegalConfig` as
    a tuple of its fields. Raises :class:`Unavailable` unless :func:`available`."""
    return _module().run(function, args)


PREPARE: Final[list[Callable[[], None]]] = []
"""What :func:`prepare` runs to compile (or load from numba's cache) the kernel's entry points."""


def on_prepare(warm: Callable[[], None]) -> Callable[[], None]:
    """Register ``warm`` (a call of some entry points on a small position, through :func:`run`)
    with :func:`prepare`, which runs it where the kernel can run compiled."""
    PREPARE.append(warm)
    return warm


__all__ = [
    "INCREMENT", "INLINE", "KERNEL", "MASK", "MULTIPLIER", "PREPARE", "SPREAD", "Stream", "Unavailable",
    "available", "call", "floats", "fresh", "inline", "ints", "jit", "networks", "on_prepare", "prepare", "run",
    "stream_buffer", "unavailable_reason",
]
