"""The compiled twin of the rollout kernel: the same rollouts, in machine code (numba).

An optional accelerator: ``pip install 'pyhearts[fast]'`` installs numba, and the search bot
(:mod:`hearts.bots.search`) then scores its samples here, in a seventeenth of the CPU; without
numba everything runs on the pure kernel (:mod:`hearts.kernel`), with the same results.

*The same results* means: given the same :class:`random.Random`, a compiled function draws the
same random numbers in the same order as its pure original (the interpreter's Mersenne Twister,
reproduced bit for bit), takes the same decisions and leaves the ``Random`` in the same state.
So the search bot's decisions for a seed do not depend on whether numba is installed.
:func:`available` checks that this interpreter draws what the twin draws before it is used.

The compiled code repeats the pure code one function for one function (each compiled function
names its original), and ``tests/test_fast.py`` compares them over thousands of rollouts. It
lives in ``hearts.fast.compiled``, loaded on first use (numba compiles it once, then caches
it on disk); this module imports neither numba nor numpy.

Rollout policies are given as codes, one per seat: :data:`RANDOM` (uniformly random legal
cards, a ``None`` policy of :class:`~hearts.kernel.Rollout`) and :data:`GREEDY`
(:func:`~hearts.bots.policies.greedy_policy`); a rollout with ``shoot_from`` uses the
shooter's and defenders' policies of :mod:`hearts.bots.policies`.

>>> import random
>>> from hearts import Rules
>>> available()  # numba is installed
True
>>> random_rounds(Rules(), random.Random(5), 3)  # hearts.kernel.random_round's scores
[(0, 7, 19, 0), (4, 7, 15, 0), (0, 18, 2, 6)]
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Sequence
from functools import cache
from types import ModuleType
from typing import Final, Protocol

from hearts.mechanics import LegalConfig
from hearts.rules import Rules

RANDOM: Final = 0
"""The code of a seat that plays uniformly random legal cards."""
GREEDY: Final = 1
"""The code of a seat that plays :func:`~hearts.bots.policies.greedy_policy`."""

Block = Callable[[int, Sequence[int]], list[list[int]]]
"""``block(samples, alive)``: the scores of the candidates ``alive`` (their indices) on
``samples`` new samples, one list per candidate of ``alive``: what the search bot compares
(:mod:`hearts.bots.search`, whose pure samplers are blocks too)."""


class Deal(Protocol):
    """The hidden hands to sample, as :class:`hearts.bots.search.HiddenDeal` gives them."""

    @property
    def seat(self) -> int: ...
    @property
    def hands(self) -> Sequence[int]: ...
    @property
    def pool(self) -> Sequence[int]: ...
    @property
    def need(self) -> Sequence[int]: ...
    @property
    def voids(self) -> Sequence[int]: ...
    @property
    def plain(self) -> bool: ...


@cache
def _load() -> tuple[ModuleType | None, str]:
    """``hearts.fast.compiled`` and ``""``, or ``None`` and why it cannot be used."""
    try:
        # Imported by name: the layers contract keeps numba and numpy out of the core's imports.
        module = importlib.import_module("hearts.fast.compiled")
    except ImportError as e:
        return None, f"numba is not installed ({e}); pip install 'pyhearts[web]' brings it"
    if not module.matches_interpreter():
        return None, "this interpreter's random.Random is not CPython's, which the compiled kernel reproduces"
    return module, ""


def _compiled() -> ModuleType | None:
    """``hearts.fast.compiled``, or ``None`` without numba or where the interpreter's random
    numbers are not the twin's."""
    return _load()[0]


def available() -> bool:
    """Whether the compiled twin can be used: numba is installed and this interpreter's
    ``random.Random`` draws what the twin draws. The first call loads (or compiles) it."""
    return _compiled() is not None


def unavailable_reason() -> str:
    """Why the compiled twin cannot be used here, in one line; ``""`` when it can (loading
    it, as :func:`available` does).

    >>> unavailable_reason()  # numba is installed
    ''
    """
    return _load()[1]


def prepare(say: Callable[[str], None]) -> bool:
    """Load the compiled kernel now, before a bot needs it, and tell ``say`` (one line at a
    time): numba compiles it on its first use on a machine (about half a minute, then cached
    on disk), so a front end calls this while it starts, not in the middle of a player's turn.
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
    say(f"Bots ready ({time.perf_counter() - start:.1f} s).")
    return True


class Unavailable(RuntimeError):
    """The compiled twin was asked to run where it cannot (see :func:`available`)."""


def _module() -> ModuleType:
    module = _compiled()
    if module is None:
        raise Unavailable("hearts.fast needs numba (pip install 'pyhearts[fast]') and an interpreter whose "
                          "random.Random is CPython's; see hearts.fast.available()")
    return module


def play_out(
    hands: list[int],
    leader: int,
    trick: list[int],
    broken: bool,
    first: bool,
    won: list[int],
    tricks_won: list[int],
    tricks_left: int,
    cfg: LegalConfig,
    rng: random.Random,
    policies: Sequence[int] = (),
    shoot_from: int = 0,
) -> None:
    """:func:`hearts.kernel.play_out`, compiled: the seats play by their codes ``policies``
    (empty: every seat at random) and, with ``shoot_from`` above 0, go for the moon and defend
    as :mod:`hearts.bots.policies` plays. ``hands``, ``won``, ``tricks_won`` and ``rng`` end as
    the pure kernel leaves them. ``rng`` must be a :class:`random.Random` (not a subclass).
    Raises :class:`Unavailable` unless :func:`available`."""
    _module().play_out(hands, leader, trick, broken, first, won, tricks_won, tricks_left, cfg, rng, policies,
                       shoot_from)


def random_rounds(rules: Rules, rng: random.Random, rounds: int, first_round: int = 0) -> list[tuple[int, ...]]:
    """The scores of ``rounds`` calls of :func:`hearts.kernel.random_round` with ``rng``, the
    round numbers counting from ``first_round``: the same scores, and ``rng`` left in the same
    state, in one compiled call."""
    scores: list[tuple[int, ...]] = _module().random_rounds(rules, rng, rounds, first_round)
    return scores


def play_block(
    rng: random.Random,
    deal: Deal,
    moves: Sequence[int],
    trick: Sequence[int],
    leader: int,
    won: Sequence[int],
    tricks_won: Sequence[int],
    tricks_left: int,
    first: bool,
    broken: bool,
    rules: Rules,
    scores_before: Sequence[int],
    policies: Sequence[int],
    shoot_from: int,
    side: random.Random | None = None,
    odds: Sequence[float | None] = (),
    infer: int = 0,
    noise: float = 0.0,
    plays: Sequence[int] = (),
    leaders: Sequence[int] = (),
    given: Sequence[int] = (),
) -> Block:
    """The search bot's play sampler, compiled: each sample draws ``deal`` from ``rng``, then a
    rollout seed, and plays each of ``moves`` into the trick in progress (``trick``, led by
    ``leader``; the position's ``won``, ``tricks_won``, ``tricks_left``, ``first`` and hearts
    ``broken``), followed by a rollout from that seed; a candidate's score is the deciding
    seat's (``deal.seat``) score of the round (``scores_before``: the game totals). With
    ``odds`` (one per seat, ``None`` for the deciding seat) each sample draws each other
    seat's policy from ``side``: random with that probability, else greedy. With ``infer``
    above 1 each sample draws ``infer`` deals and keeps one with odds in proportion to
    :func:`hearts.bots.opponents.play_likelihood` of the round's ``plays`` (``leaders``: the
    seat that led each trick) with ``noise``, times, with ``given`` (``giver, add, remove,
    received, count, top``), :func:`hearts.bots.opponents.pass_likelihood` of the giver's hand
    before the pass (``(hand | add) & ~remove``) and its pass ``received``."""
    block: Block = _module().play_block(rng, deal, moves, trick, leader, won, tricks_won, tricks_left, first,
                                        broken, rules, scores_before, policies, shoot_from, side, odds, infer,
                                        noise, plays, leaders, given)
    return block


def pass_block(
    rng: random.Random,
    deal: Deal,
    candidates: Sequence[int],
    rules: Rules,
    round_number: int,
    to: int,
    scores_before: Sequence[int],
    policies: Sequence[int],
    shoot_from: int,
) -> Block:
    """The search bot's pass sampler, compiled: each sample deals the other hands (``deal``)
    from ``rng``, the others pass like the heuristic bot (:func:`hearts.bots.heuristic.pass_mask`),
    then a rollout seed; each pass of ``candidates`` (masks) goes to seat ``to`` and the whole
    round is rolled out from that seed."""
    block: Block = _module().pass_block(rng, deal, candidates, rules, round_number, to, scores_before, policies,
                                        shoot_from)
    return block


def tree_visits(
    rng: random.Random,
    deal: Deal,
    trick: Sequence[int],
    leader: int,
    won: Sequence[int],
    tricks_won: Sequence[int],
    tricks_left: int,
    first: bool,
    broken: bool,
    rules: Rules,
    scores_before: Sequence[int],
    policies: Sequence[int],
    shoot_from: int,
    iterations: int,
    explore: float,
    follow: int = 0,
) -> list[int]:
    """:meth:`hearts.bots.search.SearchBot.tree_visits`, compiled: the same visits from the same random
    numbers."""
    visits: list[int] = _module().tree_visits(rng, deal, trick, leader, won, tricks_won, tricks_left, first, broken,
                                              rules, scores_before, policies, shoot_from, iterations, explore,
                                              follow)
    return visits


__all__ = [
    "GREEDY",
    "RANDOM",
    "Block",
    "Deal",
    "Unavailable",
    "available",
    "pass_block",
    "play_block",
    "play_out",
    "prepare",
    "random_rounds",
    "tree_visits",
    "unavailable_reason",
]
