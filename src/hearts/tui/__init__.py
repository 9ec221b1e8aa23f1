"""The terminal table (Textual): ``hearts tui``, and ``hearts play`` at an interactive terminal.

Textual is an optional extra (``pip install 'pyhearts[tui]'``); it is imported only when the
table starts, so the engine and ``hearts play --plain`` work without it. The game logic the
screen drives (events, undo, resume, hints) is in :mod:`hearts.tui.session`, which needs no
Textual.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from hearts.errors import HeartsError

if TYPE_CHECKING:
    from hearts.tui.session import Session


def textual_available() -> bool:
    """True when Textual is installed (the ``tui`` extra)."""
    try:
        import textual  # noqa: F401
    except ImportError:
        return False
    return True


def tui_command(args: argparse.Namespace, errors: TextIO) -> int:
    """``hearts tui``: build the session from the command line and run the app."""
    if not textual_available():
        errors.write(
            "hearts tui: error: the terminal table needs Textual: pip install 'pyhearts[tui]' "
            "(or play in line mode: hearts play --plain)\n"
        )
        return 2
    from hearts.tui.app import HeartsApp

    try:
        session = make_session(args)
    except HeartsError as e:
        errors.write(f"hearts tui: error: {e}\n")
        return 2
    app = HeartsApp(session, record_path=getattr(args, "record", None))
    app.run()
    return app.return_code or 0


def make_session(args: argparse.Namespace) -> Session:
    """The session of ``hearts tui``/``hearts play`` arguments: ``--resume FILE`` or a new game."""
    from hearts.cli import build_rules
    from hearts.tui.session import Session

    delay = getattr(args, "delay", None)
    delay = 0.6 if delay is None else max(0.0, float(delay))
    specs = list(args.bots) if getattr(args, "bots", None) else [args.bot] if getattr(args, "bot", None) else None
    name = getattr(args, "name", None)
    resume = getattr(args, "resume", None)
    if resume:
        return Session.resume(resume, seed=args.seed, specs=specs, name=name, delay=delay)
    rules = build_rules(args)
    if specs is not None and len(specs) not in (1, rules.players - 1):
        raise HeartsError(
            f"--bots needs {rules.players - 1} specs (one per other seat) or one for all, got {len(specs)}"
        )
    return Session.new(rules, args.seed, specs, name=name or "You", delay=delay)

