"""The terminal table (Textual): ``hearts tui``, and ``hearts play`` at an interactive terminal.

Textual is an optional extra (``pip install 'pyhearts[tui]'``); it is imported only by
:mod:`hearts.tui.app`, so the engine and ``hearts play --plain`` work without it. The game
the screen drives (seats, bots, undo, save and resume, hints) is a
:class:`~hearts.tui.session.Session`, which needs no Textual. The table is given its session
(rules included): it knows nothing of command lines.

>>> isinstance(textual_available(), bool)
True
"""

from __future__ import annotations


def textual_available() -> bool:
    """True when Textual is installed (the ``tui`` extra)."""
    try:
        import textual  # noqa: F401
    except ImportError:
        return False
    return True
