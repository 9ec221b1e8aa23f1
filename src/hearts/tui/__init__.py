"""The terminal table (Textual): ``hearts tui``, and ``hearts play`` at an interactive terminal.

Textual is an optional extra (``pip install 'pyhearts[tui]'``); it is imported only by
:mod:`hearts.tui.app` (the game loop, :class:`~hearts.tui.app.HeartsApp`),
:mod:`hearts.tui.screens` and :mod:`hearts.tui.widgets` (one screen or widget a module), so
the engine and ``hearts play --plain`` work without it. The game the screens drive (seats,
bots, undo, save and resume, hints) is a :class:`~hearts.tui.session.Session`; what the table
shows of it is a :class:`~hearts.tui.state.TableState`; the layout's sizes
(:mod:`hearts.tui.layout`) and the texts (:mod:`hearts.tui.look`, :mod:`hearts.tui.review_text`)
need no Textual either. The table is given its session (rules included): it knows nothing of
command lines.

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
