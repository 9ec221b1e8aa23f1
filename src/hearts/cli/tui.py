"""``hearts tui``: the full-screen terminal table (Textual, the ``tui`` extra).

This module turns the command line into a :class:`~hearts.tui.session.Session` (new, or
resumed from a record) and starts :class:`~hearts.tui.app.HeartsApp` on it; the table itself
knows nothing of command lines. ``hearts play`` at an interactive terminal comes here too.

The table needs an interactive terminal: without one (a pipe, a script, ``</dev/null``)
``hearts tui`` says so and exits with code 2 at once, rather than guess; line mode
(``hearts play``) is the table for scripts. Standard error may go elsewhere
(``hearts tui 2>log``): the table is drawn on the terminal all the same
(:func:`drawing_on_the_terminal`).

>>> p = argparse.ArgumentParser(prog="hearts tui")
>>> register(p.add_subparsers())
>>> make_session(p.parse_args(["tui", "--seed", "2", "--bot", "easy", "--delay", "0"])).specs
['easy', 'easy', 'easy']
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from hearts import fast
from hearts.cli.common import (
    Streams,
    add_table_args,
    bot_args,
    build_rules,
    check_record_path,
    choose_language,
    isatty,
    options_help,
    rules_args_given,
    table_refusal,
    usage_error,
)
from hearts.errors import HeartsError
from hearts.i18n import _

if TYPE_CHECKING:
    from hearts.tui.session import Session


def seconds(text: str) -> float:
    """A ``--delay``: a number of seconds, 0 or more (else an argparse error)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"a delay is 0 seconds or more, not {text}")
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts tui`` to the command's subparsers."""
    from hearts.tui.session import DEFAULT_DELAY  # no Textual: the session's default

    p = sub.add_parser(
        "tui",
        help="play at the full-screen terminal table (Textual; the 'tui' extra)",
        description="Play a game of Hearts against bots at a full-screen terminal table (Textual). "
        "Keys: arrows or a card's name (qs, 10h) to choose, Enter to play, Space to mark a pass card; "
        "? lists every key; ctrl+q quits, offering to save the game first. It needs an interactive "
        "terminal: for scripts and pipes, use 'hearts play'.",
        epilog=options_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_table_args(p)
    p.add_argument(
        "--resume",
        metavar="FILE",
        help="go on with a saved game record (ctrl+s or --record): its rules, seed and bots",
    )
    p.add_argument(
        "--delay",
        type=seconds,
        default=DEFAULT_DELAY,
        metavar="SECONDS",
        help=f"how long each bot move stays on screen (default {DEFAULT_DELAY})",
    )
    p.add_argument(
        "--guide",
        action="store_true",
        help="a guided first game: each part of the game explained the first time it happens "
        "(the pass, the first trick, following suit, hearts broken, the Q♠, the moon); easy bots unless --bots",
    )
    add_quick_args(p)
    p.set_defaults(run=run)


def add_quick_args(p: argparse.ArgumentParser) -> None:
    """The flags of ``hearts tui --quick``: the service's quick match instead of a local game.
    ``--preset`` also takes the quick match's ``three`` (black_maria's older name) and ``any``."""
    from hearts.tui.service import DEFAULT_SERVER, QUICK_PRESETS

    preset = next(a for a in p._actions if a.dest == "preset")
    preset.choices = [*(preset.choices or ()), *(q for q in QUICK_PRESETS if q not in (preset.choices or ()))]
    quick = p.add_argument_group(
        "quick match of a service (hearts serve)",
        "--quick plays a quick match with strangers at a service instead of a local game: "
        f"--preset {', '.join(QUICK_PRESETS)} (default standard); the player profile is made once and its key "
        "kept in $XDG_CONFIG_HOME/pyhearts/profiles.json (~/.config/pyhearts) for the next time",
    )
    quick.add_argument("--quick", action="store_true", help="queue for a quick match at the service --server")
    quick.add_argument(
        "--server", default=DEFAULT_SERVER, metavar="URL", help=f"the service's address (default {DEFAULT_SERVER})"
    )
    quick.add_argument("--rated", action="store_true", help="a rated game (the profile's rating counts it)")
    quick.add_argument(
        "--fill-after",
        type=fill_seconds,
        default=20,
        metavar="S",
        help="seconds to wait for people before bots fill the empty seats (3 to 300, default 20)",
    )
    quick.add_argument("--key", metavar="KEY", help="play as the profile of this key (instead of the one kept)")


def fill_seconds(text: str) -> int:
    """A ``--fill-after``: whole seconds, 3 to 300 (else an argparse error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds") from None
    if not 3 <= value <= 300:
        raise argparse.ArgumentTypeError(f"bots fill the seats after 3 to 300 seconds, not {value}")
    return value


def run(args: argparse.Namespace, streams: Streams) -> int:
    """Start the table for ``hearts tui`` (or ``hearts play`` at a terminal)."""
    from hearts.tui import textual_available

    refused = choose_language(args, streams.stderr, "tui")  # before any word is drawn
    if refused is not None:
        return refused
    if not textual_available():
        return usage_error(
            streams.stderr,
            "tui",
            "the terminal table needs Textual: pip install 'pyhearts[tui]' (or play in line mode: hearts play --plain)",
        )
    if args.quick:
        return run_quick(args, streams)
    if args.preset in QUICK_ONLY:
        return usage_error(streams.stderr, "tui", f"--preset {args.preset} is a quick match's (--quick)")
    try:
        session = make_session(args)
        # before the table is set, not when the first round ends; resuming a record into itself is no overwrite
        check_record_path(args.record, args.overwrite, getattr(args, "resume", None))  # hearts play has no --resume
    except HeartsError as e:
        return usage_error(streams.stderr, "tui", table_refusal("tui", e))
    if not (isatty(streams.stdin) and isatty(streams.stdout)):
        return usage_error(
            streams.stderr,
            "tui",
            "the terminal table needs an interactive terminal for its input and output; "
            "for a script or a pipe, play in line mode: hearts play",
        )
    from hearts.tui.app import HeartsApp

    ready = fast.prepare(lambda line: print(line, file=streams.stdout, flush=True), extra="tui", translate=_)  # before the screen
    # the screen hides what was printed: the table says why its bots are slow too, in a line that fits
    notes = () if ready else (f"Slow bots: {fast.unavailable_reason('tui')}",)
    app = HeartsApp(session, record_path=args.record, notes=notes, guide=args.guide)
    with drawing_on_the_terminal():
        app.run()
    return app.return_code or 0


LOCAL_ONLY = ("seed", "resume", "bot", "bots", "record")
"""The flags of a local game, which a quick match of the service has no use for."""
QUICK_ONLY = ("three", "any")
"""The ``--preset`` names that only a quick match knows."""


def run_quick(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts tui --quick``: check the flags, the service and the profile's key (one line and
    exit code 2 for a bad flag or address, 1 when the service fails or refuses), then play its
    quick match at the terminal table (:class:`~hearts.tui.quick.QuickApp`)."""
    from hearts.tui.service import (
        QUICK_PRESETS,
        BadServer,
        Service,
        ServiceError,
        keep_seat,
        kept_seat,
        profile_key,
    )

    local = [f"--{name}" for name in LOCAL_ONLY if getattr(args, name, None) is not None]
    local += [flag for flag in rules_args_given(args) if flag != "--preset"]
    if local:
        return usage_error(streams.stderr, "tui", f"--quick plays the service's rules and seats: drop {', '.join(local)}")
    preset = args.preset or "standard"
    if preset not in QUICK_PRESETS:
        return usage_error(
            streams.stderr, "tui", f"--quick --preset is one of {', '.join(QUICK_PRESETS)}, not {preset}"
        )
    try:
        service = Service.parse(args.server)
        key = profile_key(service, args.name or "Player", args.key)
        resume = kept_seat(service, key)
    except BadServer as e:
        return usage_error(streams.stderr, "tui", str(e))
    except ServiceError as e:
        streams.stderr.write(f"hearts tui: error: {e}\n")
        return 1
    if not (isatty(streams.stdin) and isatty(streams.stdout)):
        return usage_error(streams.stderr, "tui", "the terminal table needs an interactive terminal for its input and output")
    from hearts.tui.quick import QuickApp, QuickRequest

    def keep(seated: dict[str, Any] | None) -> None:
        with contextlib.suppress(OSError, ServiceError):  # the game goes on; only the next run's way back is lost
            keep_seat(service, key, seated)

    app = QuickApp(service, QuickRequest(key, preset, args.rated, args.fill_after), resume=resume, keep=keep)
    with drawing_on_the_terminal():
        app.run()
    if app.failure is not None:
        streams.stderr.write(f"hearts tui: error: {app.failure}\n")
    return app.return_code or 0


@contextlib.contextmanager
def drawing_on_the_terminal(stdout_fd: int = 1, stderr_fd: int = 2) -> Iterator[bool]:
    """Textual draws on the process's standard error: when that is not the terminal
    (``hearts tui 2>/dev/null``, ``2>log``) but standard output is, standard error is the
    terminal for as long as this lasts (and is given back after, so later errors still go where
    they were sent). Yields whether it had to.

    >>> with drawing_on_the_terminal() as moved:  # doctest's streams are not terminals
    ...     moved
    False
    """
    if os.isatty(stderr_fd) or not os.isatty(stdout_fd):
        yield False
        return
    saved = os.dup(stderr_fd)
    try:
        os.dup2(stdout_fd, stderr_fd)
        yield True
    finally:
        os.dup2(saved, stderr_fd)
        os.close(saved)


def make_session(args: argparse.Namespace) -> Session:
    """The session of ``hearts tui`` / ``hearts play`` arguments: ``--resume FILE`` (with the
    record's rules, seed and bots; ``--bot``/``--bots`` and ``--name`` may replace them), or a
    new game. A :class:`~hearts.errors.HeartsError` says what is wrong."""
    from hearts.tui.session import DEFAULT_DELAY, Session

    delay = getattr(args, "delay", DEFAULT_DELAY)  # hearts play has no --delay
    resume = getattr(args, "resume", None)
    if resume:
        fixed = rules_args_given(args) + (["--seed"] if args.seed is not None else [])
        if fixed:
            raise HeartsError(f"a resumed game keeps its record's rules and seed: drop {', '.join(fixed)}")
        session = Session.resume(resume, specs=bot_args(args), name=args.name, delay=delay)
    else:
        bots = bot_args(args) or (["easy"] if getattr(args, "guide", False) else None)  # a guided game: easy bots
        session = Session.new(build_rules(args), args.seed, bots, name=args.name or "You", delay=delay)
    session.on_bot_error = args.on_bot_error  # --on-bot-error (hearts.bots.guard)
    return session
