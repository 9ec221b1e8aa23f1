"""The frame every dialog of the table shares: :class:`Dialog`."""

from __future__ import annotations

from typing import Any, TypeVar

from textual.screen import ModalScreen

from hearts.tui.words import translate_bindings

ResultType = TypeVar("ResultType")


class Dialog(ModalScreen[ResultType]):
    """A modal screen drawn as a bordered panel (``.dialog``) in the middle of the window,
    over the table, its buttons (``.buttons``) in a row; the base of every dialog's screen."""

    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog .dialog { width: 76; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
                     background: $surface; padding: 0 1; }
    Dialog .info-scroll { height: auto; }
    Dialog .info-body { height: auto; }
    Dialog .buttons { height: auto; align: center middle; }
    Dialog .buttons Button { margin: 0 1; min-width: 10; }
    Dialog .dim { color: $text-muted; }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        translate_bindings(self)  # the footer's words in the language in use
