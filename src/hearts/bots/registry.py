"""Build bots from spec strings such as ``random`` or ``search:time=0.5``.

>>> make_bot("random", seed=3)
<RandomBot random>
>>> make_bot("nobody")
Traceback (most recent call last):
...
hearts.errors.HeartsError: unknown bot 'nobody'; known bots: random, heuristic, search, openspiel_ismcts, easy, medium, hard, expert
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hearts.bots.base import Bot, RandomBot
from hearts.bots.heuristic import HeuristicBot
from hearts.bots.search import SearchBot
from hearts.errors import HeartsError

BotFactory = Callable[..., Bot]

_FACTORIES: dict[str, BotFactory] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "search": SearchBot,
}


def _openspiel_ismcts(seed: int | None = None, **options: Any) -> Bot:
    """OpenSpiel's ISMCTS bot at our table (needs the ``openspiel`` extra)."""
    from hearts.bots.openspiel import make_ismcts  # lazy: the core never imports pyspiel

    return make_ismcts(seed=seed, **options)


_FACTORIES["openspiel_ismcts"] = _openspiel_ismcts  # e.g. "openspiel_ismcts:simulations=5000"
BOT_NAMES = tuple(_FACTORIES)

LEVELS: dict[str, str] = {
    "easy": "heuristic:blunder=0.3",
    "medium": "heuristic",
    "hard": "search:iterations=2500",
    "expert": "search:iterations=20000,tree=1,follow=16",
}
"""Difficulty levels for people, each a bot spec."""

HINT_BOT = "search:iterations=400"
"""The bot that gives people hints (the terminal table's and the web table's)."""


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from ``name``, ``name:key=value,key=value`` or a level (``easy`` … ``expert``);
    unknown names or keys are an error."""
    if not isinstance(spec, str) or not spec.strip():
        raise HeartsError(f"{spec!r} is not a bot spec; known bots: {', '.join([*_FACTORIES, *LEVELS])}")
    spec = LEVELS.get(spec.strip(), spec)
    name, _, args = spec.strip().partition(":")
    factory = _FACTORIES.get(name)
    if factory is None:
        known = ", ".join([*_FACTORIES, *LEVELS])
        raise HeartsError(f"unknown bot {name!r}; known bots: {known}")
    options: dict[str, Any] = {}
    for item in filter(None, (a.strip() for a in args.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise HeartsError(f"bot option {item!r} in {spec!r} is not key=value")
        options[key.strip()] = _number(value.strip())
    try:
        return factory(seed=seed, **options)
    except TypeError:
        raise HeartsError(f"bot {name!r} does not take options {sorted(options)}") from None


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
