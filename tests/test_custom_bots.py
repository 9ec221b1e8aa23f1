"""Bots of one's own (issue 27): ``hearts.bots.register``, ``MODULE:CLASS`` specs, the
``pyhearts.bots`` entry points, the arena with such bots (the real command line too), and
docs/bots.md opening with the ``Bot`` protocol and the example of ``examples/lowbot.py``.

The bots only ever see a ``View`` (R7); their passes and plays are checked by the engine (R2.1, R3).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearts import Card, CardSet, Game, Rules
from hearts.arena import run_arena
from hearts.bots import Bot, RandomBot, bot_names, make_bot, register, run_bots, unregister
from hearts.errors import HeartsError
from hearts.view import View

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


class FirstBot(Bot):
    """Passes and plays its first cards (in card order)."""

    name = "first"

    def __init__(self, seed: int | None = None, skip: int = 0) -> None:
        super().__init__(seed)
        self.skip = skip

    def choose_pass(self, view: View) -> CardSet:
        return CardSet(list(view.hand)[: view.rules.pass_count])

    def choose_play(self, view: View) -> Card:
        legal = list(view.legal)
        return legal[min(self.skip, len(legal) - 1)]


@pytest.fixture
def first() -> Iterator[str]:
    register("first", FirstBot)
    try:
        yield "first"
    finally:
        unregister("first")


@pytest.fixture
def examples_path(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    return EXAMPLES


# --- register ----------------------------------------------------------------------------------


def test_a_registered_bot_is_a_spec_with_options(first: str) -> None:
    bot = make_bot("first:skip=2", seed=4)
    assert isinstance(bot, FirstBot) and bot.skip == 2
    assert "first" in bot_names()
    game = Game(Rules(target=40), seed=3)
    run_bots(game, {s: make_bot(first, seed=s) for s in range(4)})
    assert game.is_over


def test_a_registered_factory_function_is_called_with_seed_and_options() -> None:
    def factory(seed: int | None = None, **options: object) -> Bot:
        return FirstBot(seed, skip=int(str(options.get("skip", 0))))

    register("first_fn", factory)
    try:
        bot = make_bot("first_fn:skip=1", seed=2)
        assert isinstance(bot, FirstBot) and bot.skip == 1
    finally:
        unregister("first_fn")


@pytest.mark.parametrize("jobs", [1, 2])
def test_run_arena_takes_a_registered_bot(first: str, jobs: int) -> None:
    """The arena's workers (forked) find the registered name too; R2.1/R3 checked by the engine."""
    result = run_arena([first, "random", f"{first}:skip=1", "random"], Rules(), rounds=2, jobs=jobs, seed=5)
    assert result.bots[0].spec == first
    assert sum(b.rounds for b in result.bots) == 2 * 4 * 4


@pytest.mark.parametrize(
    ("name", "factory", "message"),
    [
        ("random", FirstBot, "bot name 'random' is taken"),
        ("hard", FirstBot, "bot name 'hard' is taken"),
        ("a:b", FirstBot, "a bot name is letters, digits"),
        ("", FirstBot, "a bot name is letters, digits"),
        ("x y", FirstBot, "a bot name is letters, digits"),
        ("nine", 9, "the factory of bot 'nine' must be a hearts.bots.Bot subclass or a callable, not 9"),
        ("rules", Rules, "the factory of bot 'rules' is the class Rules, which is not a hearts.bots.Bot subclass"),
    ],
)
def test_register_refuses_taken_names_and_bad_factories(name: str, factory: object, message: str) -> None:
    before = bot_names()
    with pytest.raises(HeartsError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        register(name, factory)  # type: ignore[arg-type]
    assert bot_names() == before  # nothing changed


def test_register_refuses_a_name_twice_and_unregister_only_takes_registered_names(first: str) -> None:
    with pytest.raises(HeartsError, match="bot name 'first' is taken"):
        register(first, RandomBot)
    with pytest.raises(HeartsError, match="'search' is not a registered bot"):
        unregister("search")


def test_a_factory_that_returns_no_bot_is_refused() -> None:
    register("nothing", lambda seed=None: None)
    try:
        with pytest.raises(HeartsError, match=r"bot 'nothing': its factory returned None, not a hearts\.bots\.Bot"):
            make_bot("nothing")
    finally:
        unregister("nothing")


# --- MODULE:CLASS ------------------------------------------------------------------------------


def test_module_class_specs_take_options_and_play(examples_path: Path) -> None:
    import lowbot

    bot = make_bot("lowbot:LowBot:wild=0.5", seed=1)
    assert isinstance(bot, lowbot.LowBot) and bot.wild == 0.5
    assert isinstance(make_bot("hearts.bots.base:RandomBot"), RandomBot)
    for players in (3, 4, 5):
        result = run_arena(["lowbot:LowBot", *["random"] * (players - 1)], Rules(players=players), rounds=1)
        assert result.bots[0].rounds == players


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:LowBot", "bot spec 'no_such_module_xyz:LowBot': no module 'no_such_module_xyz' to import"),
        ("lowbot:HighBot", "bot spec 'lowbot:HighBot': module 'lowbot' has no 'HighBot'"),
        ("hearts.rules:Rules", "bot spec 'hearts.rules:Rules': hearts.rules:Rules is the class Rules, which is not"),
        ("hearts.bots.base:run_bots", "hearts.bots.base:run_bots must be a hearts.bots.Bot subclass, not <function"),
        ("lowbot:LowBot:speed=2", "bot 'lowbot:LowBot' does not take options ['speed']"),
        ("lowbot:LowBot:wild", "bot option 'wild' in 'lowbot:LowBot:wild' is not key=value"),
        ("search:iterations", "bot option 'iterations' in 'search:iterations' is not key=value"),
    ],
)
def test_module_class_specs_refuse_what_is_not_a_bot(examples_path: Path, spec: str, message: str) -> None:
    with pytest.raises(HeartsError) as info:
        make_bot(spec, seed=1)
    assert message in str(info.value)


# --- entry points ------------------------------------------------------------------------------


def _package(root: Path, entry: str) -> None:
    """An installed package in ``root``: ``plugbots.py`` and its ``*.dist-info``."""
    (root / "plugbots.py").write_text(
        "from hearts.bots import RandomBot\n\nclass PlugBot(RandomBot):\n    name = 'plug'\n", encoding="utf-8"
    )
    info = root / "plugbots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugbots\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[pyhearts.bots]\n{entry}\n", encoding="utf-8")


def test_an_installed_package_declares_bots_loaded_when_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path, "plug = plugbots:PlugBot\nbroken = plugbots:Missing\nnotbot = hearts.rules:Rules")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert {"plug", "broken", "notbot"} <= set(bot_names())
    assert "plugbots" not in sys.modules  # not loaded until asked for
    try:
        bot = make_bot("plug", seed=2)
        assert type(bot).__name__ == "PlugBot"
        result = run_arena(["plug", "random", "random", "random"], Rules(), rounds=1)
        assert result.bots[0].spec == "plug"
        with pytest.raises(HeartsError, match=r"bot 'broken' .*cannot be loaded: AttributeError"):
            make_bot("broken")
        with pytest.raises(HeartsError, match=r"bot 'notbot' .* is the class Rules, which is not"):
            make_bot("notbot")
    finally:
        unregister("plug")
        sys.modules.pop("plugbots", None)


def test_built_in_names_come_before_entry_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, "random = plugbots:PlugBot")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert type(make_bot("random")) is RandomBot


# --- the command line and the page -------------------------------------------------------------


def _hearts(*args: str, path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(path)}
    return subprocess.run(
        [sys.executable, "-m", "hearts", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


def test_hearts_arena_seats_the_example_bot_from_the_path(tmp_path: Path) -> None:
    proc = _hearts(
        "arena", "lowbot:LowBot", "random", "random", "lowbot:LowBot:wild=0.5", "--rounds", "2", "--quiet",
        path=EXAMPLES, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "1:lowbot:LowBot " in proc.stdout and "4:lowbot:LowBot:wild=0.5" in proc.stdout
    proc = _hearts("arena", "examples.lowbot:LowBot", "random", "random", "random", "--rounds", "1", "--quiet",
                   path=ROOT, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_hearts_arena_says_which_module_is_missing(tmp_path: Path) -> None:
    proc = _hearts("arena", "lowbot:LowBot", "random", "random", "random", "--rounds", "1", "--quiet",
                   path=tmp_path, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "hearts arena: error: bot spec 'lowbot:LowBot': no module 'lowbot' to import (is its folder on PYTHONPATH?)"
    ]


def test_docs_bots_opens_with_the_protocol_and_the_example_bot() -> None:
    page = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    first_section = page.split("\n## ")[1]
    assert first_section.startswith("A bot of one's own: the `Bot` protocol")
    for name in ("act(view)", "choose_pass", "choose_play", "choose_moon", "supports(rules)", "register",
                 "pyhearts.bots", "MODULE:CLASS"):
        assert name in first_section
    code = first_section.split("```python\n")[1].split("```")[0]
    example = (EXAMPLES / "lowbot.py").read_text(encoding="utf-8")
    assert code == example[example.index("from __future__") :]
    assert len(code.splitlines()) <= 30
