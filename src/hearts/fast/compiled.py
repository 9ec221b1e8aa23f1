# mypy: disallow-untyped-defs=False, disallow-untyped-calls=False, disallow-untyped-decorators=False
# mypy: check-untyped-defs=False
# (numba compiles the functions below from the signatures given to _jit: mypy sees them untyped.
# The Python interface at the end is typed and checked.)
"""What numba needs to compile the kernel's functions (:func:`hearts.fast.jit`): loaded by name.

Do not import this module: :mod:`hearts.fast` loads it when numba is installed, and is the
typed, documented interface. It holds no logic of the kernel, the policies or the search (those
are written once, where they belong), only what Python and numba spell differently:

- the interpreter's random stream: :func:`_genrand` and its callers are CPython's Mersenne
  Twister (``Modules/_randommodule.c``) and ``random.Random.shuffle``, so compiled code given
  the state of a :class:`random.Random` draws exactly what the interpreter draws from it, and
  hands the state back. A state is an int64 array of 625: the 624 words and the index, as
  ``Random.getstate()[1]`` holds them; numba learns ``state.random()`` and
  ``state.shuffle(cards)``;
- ``int.bit_length`` and ``int.bit_count``, and the allocations of :mod:`hearts.fast`;
- :func:`run`: the lists, generators and rule configurations of a Python call as arrays,
  states and a named tuple, and back.
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
import numpy.typing as npt
from numba.core import types
from numba.cpython.unsafe.numbers import leading_zeros
from numba.extending import intrinsic, overload, overload_method, register_jitable

from hearts.fast import INLINE, KERNEL, floats, fresh, ints, rows, seeded, stream_buffer
from hearts.mechanics import LegalConfig, legal_mask

Ints = npt.NDArray[np.int64]

try:
    numba.njit(cache=True)(lambda: 0)
    CACHED = True
    """Compiled functions are cached on disk (numba's ``cache=True``): only the first process
    compiles them."""
except RuntimeError:  # numba found no writable cache directory: compile in every process
    CACHED = False


_TYPES = {
    "i8": types.int64,
    "f8": types.float64,
    "A": types.int64[::1],
    "F": types.float64[::1],
}
"""The types of the signatures: ints, doubles, and C arrays of int64 (``A``) and of doubles (``F``)."""


def _jit(signature: str, inline: bool = False) -> Callable[[Callable[..., Any]], Any]:
    """Compile a function for its one ``signature`` (``"i8(A, i8)"``, see :data:`_TYPES`), when
    the module loads. ``inline``: compiled into each caller (numba's ``forceinline``) rather
    than called, for the few-line helpers run for every random number."""
    result, _, args = signature.partition("(")
    arg_types = [_TYPES[a.strip()] for a in args.rstrip(")").split(",") if a.strip()]
    sig = (types.void if result == "void" else _TYPES[result])(*arg_types)
    compile_: Callable[[Callable[..., Any]], Any] = numba.njit(sig, cache=CACHED, forceinline=inline)
    return compile_


# --- the interpreter's random stream (CPython's Mersenne Twister) -----------------------------

_N = 624
_M = 397
_INDEX = _N
"""Where a state array keeps its index (``Random.getstate()[1][624]``)."""


@_jit("void(A)")
def _twist(mt):
    """The generation of 624 new words (``genrand_uint32``'s refill)."""
    for kk in range(_N - _M):
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7FFFFFFF)
        mt[kk] = mt[kk + _M] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    for kk in range(_N - _M, _N - 1):
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7FFFFFFF)
        mt[kk] = mt[kk + _M - _N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    y = (mt[_N - 1] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
    mt[_N - 1] = mt[_M - 1] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    mt[_INDEX] = 0


@_jit("i8(A)", inline=True)
def _genrand(mt):
    """``genrand_uint32``: the next 32 random bits."""
    i = mt[_INDEX]
    if i >= _N:
        _twist(mt)
        i = 0
    y = mt[i]
    mt[_INDEX] = i + 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


@_jit("i8(A)", inline=True)
def _random_bits(mt):
    """``Random.random()`` times 2**53: the 53-bit integer behind the next double."""
    a = _genrand(mt) >> 5
    b = _genrand(mt) >> 6
    return a * 67108864 + b


@_jit("f8(A)", inline=True)
def _random(mt):
    """``Random.random()``."""
    return _random_bits(mt) * (1.0 / 9007199254740992.0)


@_jit("i8(A, i8)")
def _randbelow(mt, n):
    """``Random._randbelow(n)`` (``n >= 2``): ``getrandbits(n.bit_length())`` until below ``n``."""
    shift = 32 - (64 - leading_zeros(n))
    r = _genrand(mt) >> shift
    while r >= n:
        r = _genrand(mt) >> shift
    return r


@_jit("void(A, A, i8)")
def _shuffle(mt, cards, length):
    """``Random.shuffle`` of ``cards[:length]``."""
    for i in range(length - 1, 0, -1):
        j = _randbelow(mt, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@_jit("void(A, i8)")
def _seed_from_random(mt, bits):
    """``random.Random(x)`` for ``x = bits / 2**53`` (a value of ``Random.random()``), refilled.

    A float seeds with its hash, which for ``bits / 2**53`` is ``bits * 2**8`` (the hash of a
    float is its value modulo the prime ``2**61 - 1``, and ``2**-53`` is ``2**8`` there), split
    into 32-bit key words (``init_by_array``)."""
    key = bits << 8
    words = 2 if key >> 32 else 1
    mt[0] = 19650218  # init_genrand(19650218)
    for i in range(1, _N):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
    i, j = 1, 0
    for _ in range(_N):
        prev = mt[i - 1]
        word = key & 0xFFFFFFFF if j == 0 else key >> 32
        mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + word + j) & 0xFFFFFFFF
        i += 1
        j += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
        if j >= words:
            j = 0
    for _ in range(_N - 1):
        prev = mt[i - 1]
        mt[i] = ((mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & 0xFFFFFFFF
        i += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
    mt[0] = 0x80000000
    _twist(mt)  # what the first draw would do: the seeded stream is shared by the candidates


@_jit("void(A, A, i8)")
def _copy(dst, src, length):
    """``dst[:length] = src[:length]`` (a plain loop: numba's slice assignment is slow to compile)."""
    for i in range(length):
        dst[i] = src[i]


@_jit("void(i8, A, F)")
def _stream_check(bits, cards, draws):
    """``Random(bits / 2**53)``: shuffle ``cards``, then fill ``draws`` with ``random()``."""
    mt = np.zeros(_N + 1, dtype=np.int64)
    _seed_from_random(mt, bits)
    _shuffle(mt, cards, len(cards))
    for i in range(len(draws)):
        draws[i] = _random(mt)


# --- the Python interface (hearts.fast) ------------------------------------------------------


def state_array(rng: random.Random) -> Ints:
    """The Mersenne Twister state of ``rng`` as the compiled functions draw from it."""
    return np.array(rng.getstate()[1], dtype=np.int64)


def set_state(rng: random.Random, mt: Ints) -> None:
    """Give ``rng`` the state ``mt`` (after the compiled functions drew from it)."""
    version, _, gauss_next = rng.getstate()
    rng.setstate((version, tuple(mt.tolist()), gauss_next))


def matches_interpreter() -> bool:
    """Whether this interpreter's ``random.Random`` draws what compiled code draws (CPython's
    does: the Mersenne Twister, a float seed hashed, ``shuffle`` on ``getrandbits``)."""
    source = random.Random(2024)
    for seed in (0.0, 0.5, *(source.random() for _ in range(6))):
        rng = random.Random(seed)
        cards = list(range(52))
        rng.shuffle(cards)
        expected = [*cards, *(rng.random() for _ in range(8))]
        compiled_cards = np.arange(52, dtype=np.int64)
        draws = np.zeros(8, dtype=np.float64)
        _stream_check(int(seed * 2**53), compiled_cards, draws)
        if [*compiled_cards.tolist(), *draws.tolist()] != expected:
            return False
    return True


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
def _array_random(mt):
    return lambda mt: _random(mt)


@overload_method(types.Array, "shuffle")
def _array_shuffle(mt, cards):
    return lambda mt, cards: _shuffle(mt, cards, len(cards))


@overload(seeded)
def _seeded(seed, buffer):
    def impl(seed, buffer):
        _seed_from_random(buffer, int(seed * 9007199254740992.0))
        return buffer

    return impl


@overload(fresh)
def _fresh(start, buffer):
    def impl(start, buffer):
        _copy(buffer, start, _N + 1)
        return buffer

    return impl


@overload(stream_buffer)
def _stream_buffer():
    return lambda: np.zeros(_N + 1, dtype=np.int64)


@overload(ints)
def _zeros(n):
    return lambda n: np.zeros(n, dtype=np.int64)


@overload(rows)
def _rows(k, n):
    return lambda k, n: np.zeros((k, n), dtype=np.int64)


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
        elif type(value) is random.Random:
            converted.append(state_array(value))
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
        elif type(value) is random.Random:
            set_state(value, array)
    return result
