"""Build bots from spec strings such as ``random``, ``search:time=0.5`` or ``mybots:LowBot``.

A spec is one of

* ``NAME`` or ``NAME:key=value,key=value``: a bot of the registry — a built-in one
  (:data:`BOT_NAMES`), one added with :func:`register`, or one an installed package declares
  in the ``pyhearts.bots`` entry-point group (looked up when an unknown name is asked for);
* a level: ``easy`` … ``expert`` (:data:`LEVELS`, each a spec of a built-in bot);
* ``MODULE:CLASS`` or ``MODULE:CLASS:key=value,...``: the :class:`~hearts.bots.base.Bot`
  subclass ``CLASS`` of the importable module ``MODULE`` (its folder on ``sys.path``, e.g.
  through ``PYTHONPATH``).

Every bot is made the same way: ``factory(seed=seed, **options)``, the option values read as
numbers where they are numbers. Whether a bot can play some rules is asked of its factory
(``supports(rules)``, e.g. :meth:`Bot.supports <hearts.bots.base.Bot.supports>`):
``make_bot(spec, rules=rules)`` and :func:`check_table` refuse a bot with its reason.

>>> make_bot("random", seed=3)
<RandomBot random>
>>> make_bot("nobody")
Traceback (most recent call last):
...
hearts.errors.BotError: unknown bot 'nobody'; known bots: random, heuristic, search, openspiel_ismcts, neural, easy, medium, hard, expert
>>> make_bot("hearts.bots.base:RandomBot", seed=3)
<RandomBot random>
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from collections.abc import Callable, Iterable
from typing import Any, cast

from hearts.bots.base import Bot, RandomBot
from hearts.bots.heuristic import HeuristicBot
from hearts.bots.neural import NeuralBot
from hearts.bots.search import SearchBot
from hearts.errors import BotError, HeartsError
from hearts.rules import Rules

BotFactory = Callable[..., Bot]
"""Makes a bot: called as ``factory(seed=seed, **options)``. A :class:`Bot` subclass is one; a
factory may also have a ``supports(rules) -> str | None`` attribute: why it cannot play them."""

ENTRY_POINT_GROUP = "pyhearts.bots"
"""The entry-point group in which installed packages declare bots: ``name = module:Class``."""


class _OpenSpielISMCTS:
    """OpenSpiel's ISMCTS bot at our table (needs the ``openspiel`` extra), as a factory that
    can say which rules it plays without importing ``pyspiel``."""

    def __call__(self, seed: int | None = None, **options: Any) -> Bot:
        from hearts.bots.openspiel import make_ismcts  # lazy: the core never imports pyspiel

        return make_ismcts(seed=seed, **options)

    @staticmethod
    def supports(rules: Rules) -> str | None:
        from hearts.bots.openspiel import OpenSpielBot  # imports without pyspiel

        return OpenSpielBot.supports(rules)


_BUILT_IN: dict[str, BotFactory] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "search": SearchBot,
    "openspiel_ismcts": _OpenSpielISMCTS(),  # e.g. "openspiel_ismcts:simulations=5000"
    "neural": NeuralBot,  # the learned policy (hearts.bots.neural), no search
}
BOT_NAMES = tuple(_BUILT_IN)
"""The built-in bots' names (:func:`bot_names` adds the registered ones)."""
_FACTORIES: dict[str, BotFactory] = dict(_BUILT_IN)

LEVELS: dict[str, str] = {
    "easy": "heuristic:blunder=0.3",
    "medium": "heuristic",
    "hard": "search:iterations=2500,pass_budget=3",
    "expert": "search:iterations=20000,tree=1,follow=16",
}
"""Difficulty levels for people, each a bot spec."""

HINT_BOT = "search:iterations=400"
"""The bot that gives people hints (the terminal table's and the web table's)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_QUALNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


def register(name: str, factory: BotFactory) -> None:
    """Make ``name`` a bot spec everywhere one is taken (this process; worker processes of the
    arena started by ``fork`` too — on Ray, or to be found in every process, use a
    ``MODULE:CLASS`` spec or the ``pyhearts.bots`` entry points).

    ``factory`` is a :class:`Bot` subclass, or a callable taking ``seed=`` and the spec's
    options that returns a bot. A taken name, or a name a spec cannot hold, is an error.

    >>> register("cautious", RandomBot)
    >>> make_bot("cautious", seed=1)
    <RandomBot random>
    >>> register("random", RandomBot)
    Traceback (most recent call last):
    ...
    hearts.errors.BotError: bot name 'random' is taken (built-in bots and levels cannot be replaced; unregister('random') a registered one first)
    >>> unregister("cautious")
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise BotError(
            f"a bot name is letters, digits, '_' and '-', starting with a letter or '_', not {name!r}"
        )
    if name in _FACTORIES or name in LEVELS:
        raise BotError(
            f"bot name {name!r} is taken (built-in bots and levels cannot be replaced; "
            f"unregister({name!r}) a registered one first)"
        )
    _check_factory(factory, f"the factory of bot {name!r}", classes_only=False)
    _FACTORIES[name] = factory


def unregister(name: str) -> None:
    """Forget a bot :func:`register` added (a built-in one stays).

    >>> unregister("random")
    Traceback (most recent call last):
    ...
    hearts.errors.BotError: 'random' is not a registered bot (the built-in ones stay)
    """
    if name not in _FACTORIES or name in _BUILT_IN:
        raise BotError(f"{name!r} is not a registered bot (the built-in ones stay)")
    del _FACTORIES[name]


def registered(specs: Iterable[str]) -> tuple[tuple[str, BotFactory], ...]:
    """The names :func:`register` added (or an entry point loaded) that ``specs`` use, with
    their factories: what another process needs to make the same bots, given to :func:`adopt`
    there (a server sends them to its worker processes; a factory must then be picklable, e.g.
    a class of an importable module).

    >>> register("cautious", RandomBot)
    >>> registered(["cautious:x=1", "random", "hard"])
    (('cautious', <class 'hearts.bots.base.RandomBot'>),)
    >>> unregister("cautious")
    """
    out: dict[str, BotFactory] = {}
    for spec in specs:
        head = LEVELS.get(spec.strip(), spec).partition(":")[0].strip()
        if head in _FACTORIES and head not in _BUILT_IN:
            out[head] = _FACTORIES[head]
    return tuple(out.items())


def adopt(factories: Iterable[tuple[str, BotFactory]]) -> None:
    """Register, in this process, each of :func:`registered`'s names not known here yet (a
    worker process does this with what its server sent it).

    >>> adopt([("cautious", RandomBot)]); adopt([("cautious", RandomBot)])
    >>> make_bot("cautious", seed=1)
    <RandomBot random>
    >>> unregister("cautious")
    """
    for name, factory in factories:
        if name not in _FACTORIES:
            register(name, factory)


def bot_names() -> tuple[str, ...]:
    """The names of the bots of the registry: built-in, registered, and those installed
    packages declare (not loaded; levels not included).

    >>> bot_names()[:3]
    ('random', 'heuristic', 'search')
    """
    return tuple(dict.fromkeys([*_FACTORIES, *(ep.name for ep in _entry_points())]))


def make_bot(spec: str, seed: int | None = None, *, rules: Rules | None = None) -> Bot:
    """A bot from a spec (see the module's docstring); unknown names or keys are an error.

    With ``rules``, a bot that cannot play them is refused with its reason (as :func:`check_table`).

    >>> make_bot("search:iterations=60", seed=1).iterations
    60
    >>> make_bot("openspiel_ismcts", rules=Rules(players=5))
    Traceback (most recent call last):
    ...
    hearts.errors.BotError: bot 'openspiel_ismcts' cannot play these rules: players=5 (OpenSpiel: 4)
    """
    name, factory, options = _resolve(spec)
    if rules is not None:
        _check_rules(spec, factory, rules)
    try:
        bot = factory(seed=seed, **options)
    except BotError:
        raise
    except HeartsError as e:  # the bot's own refusal of an option: a bot spec's error all the same
        raise BotError(str(e)) from None
    except TypeError as e:
        if options and "argument" in str(e):
            raise BotError(f"bot {name!r} does not take options {sorted(options)}") from None
        raise BotError(f"bot {name!r} cannot be made with seed={seed!r}: {e}") from None
    if not isinstance(bot, Bot):
        raise BotError(f"bot {name!r}: its factory returned {bot!r:.60}, not a hearts.bots.Bot")
    return bot


def check_table(specs: list[str] | tuple[str, ...], rules: Rules) -> None:
    """Refuse, with the reason, the first bot of ``specs`` that cannot play ``rules`` (a
    :class:`HeartsError`; every spec is checked as :func:`make_bot` does, nothing is built).

    >>> check_table(["hard", "openspiel_ismcts"], Rules(players=3))
    Traceback (most recent call last):
    ...
    hearts.errors.BotError: bot 'openspiel_ismcts' cannot play these rules: players=3 (OpenSpiel: 4)
    """
    for spec in specs:
        _check_rules(spec, _resolve(spec)[1], rules)


# --- resolving a spec --------------------------------------------------------------------------


def _resolve(spec: object) -> tuple[str, BotFactory, dict[str, Any]]:
    """The name (for messages), the factory and the options of a spec."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotError(f"{spec!r} is not a bot spec; known bots: {_known()}")
    text = LEVELS.get(spec.strip(), spec).strip()
    head, _, rest = (part.strip() for part in text.partition(":"))
    attr, _, more = (part.strip() for part in rest.partition(":"))
    module_form = head not in _FACTORIES and _QUALNAME.match(head) and _QUALNAME.match(attr)
    if module_form and not any(ep.name == head for ep in _entry_points()):  # registry names first
        return f"{head}:{attr}", _imported(head, attr, spec), _options(more, spec)
    return head, _named(head), _options(rest, spec)


def _named(name: str) -> BotFactory:
    factory = _FACTORIES.get(name)
    if factory is None:
        factory = _from_entry_point(name)
    if factory is None:
        raise BotError(f"unknown bot {name!r}; known bots: {_known()}")
    return factory


def _known() -> str:
    """The bots a refusal offers: those of the registry that make bots here (an entry point
    that fails to load is left out), then the levels."""
    names = []
    for name in bot_names():
        if name not in _FACTORIES:
            try:
                _from_entry_point(name)
            except BotError:
                continue
        names.append(name)
    return ", ".join([*names, *LEVELS])


def _options(args: str, spec: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in filter(None, (a.strip() for a in args.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise BotError(f"bot option {item!r} in {spec!r} is not key=value")
        options[key.strip()] = _number(value.strip())
    return options


def _imported(module: str, attr: str, spec: str) -> BotFactory:
    """The :class:`Bot` subclass ``attr`` of ``module`` (imported now)."""
    try:
        found: Any = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and (module == e.name or module.startswith(e.name + ".")):
            raise BotError(
                f"bot spec {spec!r}: no module {module!r} to import (is its folder on PYTHONPATH?)"
            ) from None
        raise BotError(f"bot spec {spec!r}: importing {module!r} failed: {e}") from None
    except Exception as e:  # the module's own error, e.g. a SyntaxError
        raise BotError(f"bot spec {spec!r}: importing {module!r} failed: {type(e).__name__}: {e}") from None
    for part in attr.split("."):
        if not hasattr(found, part):
            raise BotError(f"bot spec {spec!r}: module {module!r} has no {attr!r}")
        found = getattr(found, part)
    _check_factory(found, f"bot spec {spec!r}: {module}:{attr}", classes_only=True)
    return cast(BotFactory, found)


def _entry_points() -> tuple[importlib.metadata.EntryPoint, ...]:
    return tuple(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def _from_entry_point(name: str) -> BotFactory | None:
    """The factory an installed package declares for ``name`` (loaded and registered now)."""
    points = [ep for ep in _entry_points() if ep.name == name]
    if not points:
        return None
    point = points[0]
    what = f"bot {name!r} (entry point {point.value!r} of {ENTRY_POINT_GROUP!r})"
    try:
        factory = point.load()
    except Exception as e:
        raise BotError(f"{what} cannot be loaded: {type(e).__name__}: {e}") from None
    _check_factory(factory, what, classes_only=False)
    if _NAME.match(name) and name not in LEVELS:
        _FACTORIES[name] = factory
    return cast(BotFactory, factory)


def _check_factory(factory: object, what: str, *, classes_only: bool) -> None:
    """Refuse what is not a :class:`Bot` subclass (or, unless ``classes_only``, a callable)."""
    if isinstance(factory, type):
        if not issubclass(factory, Bot):
            raise BotError(f"{what} is the class {factory.__name__}, which is not a hearts.bots.Bot subclass")
        return
    if classes_only or not callable(factory):
        kind = "a hearts.bots.Bot subclass" if classes_only else "a hearts.bots.Bot subclass or a callable"
        raise BotError(f"{what} must be {kind}, not {factory!r:.60}")


def _reason(factory: BotFactory, rules: Rules) -> str | None:
    supports = getattr(factory, "supports", None)
    if not callable(supports):
        return None
    reason = supports(rules)
    return None if reason is None else str(reason)


def _check_rules(spec: str, factory: BotFactory, rules: Rules) -> None:
    reason = _reason(factory, rules)
    if reason is not None:
        raise BotError(f"bot {spec.strip()!r} cannot play these rules: {reason}")


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
