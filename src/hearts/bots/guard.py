"""What every table does when a bot fails: one policy, shared by ``hearts play``, ``hearts tui``,
``hearts selfplay`` and ``hearts arena`` (``--on-bot-error substitute|stop``).

A bot fails when it raises, answers an action the rules refuse, or (with a time limit, as the
arena's ``--move-time``) takes longer than that to answer. Then, by :data:`BotErrorPolicy`:

* ``"substitute"`` (the default): a random legal action is made for it (:func:`substitute`:
  the same one for the same seed and position, so a replay is the same), and the table says so
  in one line (:attr:`BotFault.text`);
* ``"stop"``: :class:`BotFailure` is raised, whose message is the one line naming the bot, the
  seat and the error; the table stops the game cleanly (its record saved).

:func:`decide` is the one call a driver makes for a bot's turn.

>>> from hearts import Game, Rules
>>> from hearts.bots import Bot, RandomBot
>>> class Broken(RandomBot):
...     name = "broken"
...     def choose_play(self, view):
...         raise ValueError("boom")
>>> game = Game(Rules(pass_count=0), seed=3)
>>> seat = game.actors()[0]
>>> decision = decide(game, seat, Broken(seed=1), seed=3)
>>> decision.action in game.legal_actions(seat), decision.fault.text
(True, "the bot 'broken' at seat 1 failed: ValueError: boom · a random legal move was made for it")
>>> decide(game, seat, Broken(seed=1), policy="stop", label="crashy", where=" (West)")
Traceback (most recent call last):
hearts.bots.guard.BotFailure: the bot 'crashy' at seat 1 (West) failed: ValueError: boom
"""

from __future__ import annotations

import itertools
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, TypeVar, get_args

from hearts.actions import Action
from hearts.bots.base import Bot
from hearts.game import Game
from hearts.i18n import N_
from hearts.round import Round
from hearts.view import View

BotErrorPolicy = Literal["substitute", "stop"]
"""What a table does when a bot fails (the module docstring)."""

BOT_ERROR_POLICIES: Final[tuple[BotErrorPolicy, ...]] = get_args(BotErrorPolicy)
DEFAULT_BOT_ERROR: Final[BotErrorPolicy] = "substitute"
BOT_ERROR_HELP: Final = (
    "when a bot raises, answers an illegal move or runs out of time: 'substitute' plays a random legal "
    "move for it and says so in one line, 'stop' ends the game there with one line naming the bot, its "
    f"seat and the error (exit code 1; the record is saved either way); default {DEFAULT_BOT_ERROR}"
)
"""The help of ``--on-bot-error``, the same for every command."""

T = TypeVar("T")


class MoveTimeout(BaseException):
    """A bot's move ran past its time limit (a ``BaseException``, so that a bot's own
    ``except Exception`` does not swallow it)."""


@dataclass(frozen=True)
class BotFault:
    """A bot's failure on its turn: the seat, the bot (its spec or label), what went wrong, and
    what the table says of it."""

    seat: int
    bot: str
    error: str
    """``ValueError: boom``, ``an illegal move (R3.2: …)``, ``no move within 2 s``."""
    where: str = ""
    """More on where it happened, after the seat: `` (West)``, `` (deal 3, rotation 1)``."""

    @property
    def failure(self) -> str:
        """The one line naming the bot, the seat and the error (English: the arena's;
        :func:`hearts.text.bot_failure` says it in the language in use)."""
        return FAILED.format(bot=repr(self.bot), seat=self.seat, where=self.where, error=self.error)

    @property
    def text(self) -> str:
        """The one line a table says when it substitutes a random legal move (English;
        :func:`hearts.text.bot_stood_in` in the language in use)."""
        return STOOD_IN.format(failure=self.failure)


FAILED: Final = N_("the bot {bot} at seat {seat}{where} failed: {error}")
"""What :attr:`BotFault.failure` says (a message of the catalogs: the players' tables translate it)."""
STOOD_IN: Final = N_("{failure} · a random legal move was made for it")
"""What :attr:`BotFault.text` says."""


class BotFailure(RuntimeError):
    """A bot failed under the ``"stop"`` policy; the message is :attr:`BotFault.failure`."""

    def __init__(self, fault: BotFault) -> None:
        super().__init__(fault.failure)
        self.fault = fault

    def __reduce__(self) -> tuple[type[BotFailure], tuple[BotFault]]:
        """Pickled with its fault (from a worker process to the one that waits for it)."""
        return type(self), (self.fault,)


@dataclass(frozen=True)
class Decision:
    """A bot's turn, decided: the action to apply (always legal), the fault it stands in for
    (``None``: the bot's own action), and the seconds the bot took."""

    action: Action
    fault: BotFault | None
    seconds: float


def substitute(target: Game | Round, seat: int, seed: object = None) -> Action:
    """A random legal action of ``seat`` now, for a bot that failed: drawn from ``seed`` and
    the position, so the same game (the same seed, the same moves) gets the same one.

    >>> from hearts import Game, Rules
    >>> game = Game(Rules(), seed=5)
    >>> substitute(game, 1, 5) in game.legal_actions(1), substitute(game, 1, 5) == substitute(game, 1, 5)
    (True, True)
    """
    r = target.round if isinstance(target, Game) else target
    passed = sum(r.passed(s) is not None for s in range(r.players))
    position = f"{r.round_number}-{passed}-{len(r.plays)}-{r.phase.name}-{seat}"
    legal = target.legal_actions(seat)
    pick = random.Random(f"hearts-substitute-{seed}-{position}").randrange(len(legal))
    return next(itertools.islice(legal, pick, None))


def decide(
    target: Game | Round,
    seat: int,
    bot: Bot,
    *,
    policy: BotErrorPolicy = DEFAULT_BOT_ERROR,
    seed: object = None,
    time_limit: float | None = None,
    label: str | None = None,
    where: str = "",
    view: View | None = None,
) -> Decision:
    """``bot``'s turn at ``seat`` of ``target`` (a game or a round), nothing applied yet: its
    action if it answers a legal one (within ``time_limit`` seconds, when given), else by
    ``policy`` a :func:`substitute` drawn from ``seed`` with the fault, or :class:`BotFailure`.
    ``label`` names the bot (default its name), ``where`` says more after the seat; ``view``
    is the bot's view when the caller has it (default ``View.of(target, seat)``)."""
    view = view if view is not None else View.of(target, seat)
    start = time.perf_counter()
    error = ""
    try:
        action = call_with_limit(lambda: bot.act(view), time_limit)
    except MoveTimeout:
        error = f"no move within {time_limit:g} s"
    except Exception as e:  # a bot of one's own may fail in any way
        error = f"{type(e).__name__}: {e}"
    seconds = time.perf_counter() - start
    if not error:
        try:
            legal = action in target.legal_actions(seat)
        except Exception:  # not an action at all
            legal = False
        if legal:
            return Decision(action, None, seconds)
        error = f"an illegal move ({_illegal_reason(target, action)})"
    fault = BotFault(seat, label if label is not None else bot.name, error, where)
    if policy == "stop":
        raise BotFailure(fault)
    return Decision(substitute(target, seat, seed), fault, seconds)


def _illegal_reason(target: Game | Round, action: object) -> str:
    """Why the engine refuses ``action`` (on a copy: ``target`` is not changed)."""
    r = (target.round if isinstance(target, Game) else target).clone()
    try:
        r.apply(action)  # type: ignore[arg-type]  # anything a bot answered
    except Exception as e:
        return str(e) or type(e).__name__
    return repr(action)


def call_with_limit(fn: Callable[[], T], limit: float | None) -> T:
    """``fn()``, or :class:`MoveTimeout` once it has run ``limit`` seconds (``None`` or 0: no
    limit). In a process's main thread a timer signal interrupts it (a sleep, a Python loop;
    not a long call into C, which it interrupts once that returns); elsewhere ``fn`` runs in a
    thread of its own, which is left to finish on its own if it runs out of time.

    >>> call_with_limit(lambda: 7, 0.5)
    7
    >>> call_with_limit(lambda: time.sleep(5), 0.05)
    Traceback (most recent call last):
    hearts.bots.guard.MoveTimeout: no answer within 0.05 s
    """
    if not limit:
        return fn()
    timeout = MoveTimeout(f"no answer within {limit:g} s")
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):

        def ring(signum: int, frame: object) -> None:
            raise timeout

        before = signal.signal(signal.SIGALRM, ring)
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            return fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, before)
    answer: list[T] = []
    raised: list[BaseException] = []

    def run() -> None:
        try:
            answer.append(fn())
        except BaseException as e:  # handed to the caller
            raised.append(e)

    worker = threading.Thread(target=run, name="bot-move", daemon=True)
    worker.start()
    worker.join(limit)
    if raised:
        raise raised[0]
    if not answer:
        raise timeout
    return answer[0]


__all__ = [
    "BOT_ERROR_HELP",
    "BOT_ERROR_POLICIES",
    "DEFAULT_BOT_ERROR",
    "BotErrorPolicy",
    "BotFailure",
    "BotFault",
    "Decision",
    "MoveTimeout",
    "call_with_limit",
    "decide",
    "substitute",
]
