# mypy: disallow-untyped-defs=False, disallow-untyped-calls=False, disallow-untyped-decorators=False
# mypy: check-untyped-defs=False
# (numba compiles the functions below into the kernel's: mypy sees them untyped. The Python
# interface at the end is typed and checked.)
"""What numba needs to compile the kernel's functions (:func:`hearts.fast.jit`): loaded by name.

Do not import it: :mod:`hearts.fast` loads it when numba is installed, and is the typed,
documented interface. It holds no logic of the kernel, the policies or the search, only what
Python and numba spell differently: the kernel's generator (:class:`hearts.fast.Stream`) on a
state array of one word, ``int.bit_length`` and ``int.bit_count``, the allocations of
:mod:`hearts.fast`, and :func:`run` (a Python call's lists, streams and rules as arrays and a
named tuple, and back).
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import sys
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core import types
from numba.cpython.unsafe.numbers import leading_zeros
from numba.extending import intrinsic, overload, overload_method, register_jitable

from hearts import fast
from hearts.fast import INLINE, KERNEL, Stream, floats, fresh, ints, stream_buffer
from hearts.mechanics import LegalConfig, legal_mask

try:
    numba.njit(cache=True)(lambda: 0)
    CACHED = True
    """Compiled functions are cached on disk (numba's ``cache=True``): the first process compiles."""
except RuntimeError:  # numba found no writable cache directory: compile in every process
    CACHED = False


# --- the kernel's generator (hearts.fast.Stream) on a state array -----------------------------


@register_jitable(forceinline=True)
def _random(state):
    """``Stream.random()``: the same step on the array's one word, in unsigned arithmetic, which
    wraps modulo 2**64 (masked to 63 bits: Python's product masked). Not in int64: numba marks
    signed arithmetic as never overflowing (LLVM's ``nsw``), and LLVM then computed the masked
    word wrong."""
    s = (np.uint64(state[0]) * np.uint64(fast.MULTIPLIER) + np.uint64(fast.INCREMENT)) & np.uint64(fast.MASK)
    state[0] = np.int64(s)
    return float(s >> np.uint64(10)) * (1.0 / 9007199254740992.0)


@register_jitable
def _shuffle(state, cards):
    """``Stream.shuffle(cards)``."""
    for i in range(len(cards) - 1, 0, -1):
        j = int(_random(state) * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


# --- one source: what numba is taught, and the compiled forms of the kernel's functions ------


@intrinsic
def _popcount(typingctx: Any, x: Any) -> Any:
    """``int.bit_count`` of any integer type."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return x(x), codegen


@overload_method(types.Integer, "bit_length", jit_options={"forceinline": True})  # type: ignore[call-arg]
def _bit_length(x):
    return lambda x: 64 - leading_zeros(x)


@overload_method(types.Integer, "bit_count", jit_options={"forceinline": True})  # type: ignore[call-arg]
def _bit_count(x):
    return lambda x: _popcount(x)


@overload_method(types.Array, "random", jit_options={"forceinline": True})  # type: ignore[call-arg]
def _array_random(state):
    return lambda state: _random(state)


@overload_method(types.Array, "shuffle")
def _array_shuffle(state, cards):
    return lambda state, cards: _shuffle(state, cards)


@overload(fresh)
def _fresh(seed, buffer):
    def impl(seed, buffer):
        bits = np.uint64(int(seed * 9007199254740992.0))
        buffer[0] = np.int64((bits * np.uint64(fast.SPREAD)) & np.uint64(fast.MASK))
        return buffer

    return impl


@overload(stream_buffer)
def _stream_buffer():
    return lambda: np.zeros(1, dtype=np.int64)


@overload(ints)
def _zeros(n):
    return lambda n: np.zeros(n, dtype=np.int64)


@overload(floats)
def _float_zeros(n):
    return lambda n: np.zeros(n, dtype=np.float64)


Config = namedtuple("Config", LegalConfig.__slots__)  # type: ignore[misc]  # fields from a tuple
"""A :class:`~hearts.mechanics.LegalConfig` as compiled code reads it (``cfg.queen_breaks``)."""

_REGISTERED: set[Any] = set()
_COMPILED: dict[Any, Any] = {}


def _stamp() -> str:
    """A digest of the sources of every module defining kernel functions: numba's cache looks
    only at the compiled function's own file, and would keep machine code of a callee changed
    in another."""
    digest = hashlib.sha256()
    names = sorted({f.__module__ for f in KERNEL} | {__name__, "hearts.mechanics", "hearts.cards"})
    for name in names:
        path = getattr(sys.modules[name], "__file__", None)
        if path:
            with open(path, "rb") as file:
                digest.update(file.read())
    return digest.hexdigest()


def compiled(function: Callable[..., Any]) -> Any:
    """The numba dispatcher of a :func:`hearts.fast.jit` function, every marked function it
    may call made callable from compiled code first."""
    dispatcher = _COMPILED.get(function)
    if dispatcher is None:
        for f in (legal_mask, *KERNEL):
            if f not in _REGISTERED:
                register_jitable(forceinline=f is legal_mask or f in INLINE)(f)
                _REGISTERED.add(f)
        try:
            dispatcher = numba.njit(cache=CACHED)(function)
        except RuntimeError:  # no file to cache it beside (a function of an interactive session)
            dispatcher = numba.njit(function)
        with contextlib.suppress(AttributeError):  # see _stamp
            dispatcher._cache._cache_file._source_stamp = _stamp()  # type: ignore[union-attr]
        _COMPILED[function] = dispatcher
    return dispatcher


def _array(value: list[Any]) -> Any:
    floats = any(isinstance(v, float) for v in (value[0] if value and isinstance(value[0], list) else value))
    return np.array(value, dtype=np.float64 if floats else np.int64)


def run(function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """:func:`hearts.fast.run`."""
    converted: list[Any] = []
    for value in args:
        if isinstance(value, (list, tuple)) and not isinstance(value, Config):
            converted.append(_array(list(value)))
        elif isinstance(value, Stream):
            converted.append(np.array([value.state], dtype=np.int64))
        elif isinstance(value, random.Random):
            raise TypeError("the compiled kernel draws from a hearts.fast.Stream, not a random.Random: "
                            "seed one from it, Stream(rng.getrandbits(63))")
        elif isinstance(value, LegalConfig):
            converted.append(Config(*(getattr(value, name) for name in LegalConfig.__slots__)))
        else:
            converted.append(value)
    result = compiled(function)(*converted)
    for value, array in zip(args, converted, strict=True):
        if isinstance(value, list) and value and isinstance(value[0], list):
            for row, values in zip(value, array.tolist(), strict=True):
                row[:] = values
        elif isinstance(value, list):
            value[:] = array.tolist()
        elif isinstance(value, Stream):
            value.state = int(array[0])
    return result
