"""Quitting, with the offer to save first: :class:`QuitScreen`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from hearts.i18n import N_, _
from hearts.tui.screens.dialog import Dialog


class QuitScreen(Dialog[str]):
    """Quitting: save the game first (``save``, s), quit without saving (``quit``, q), or go
    back (``cancel``, Escape): the screen's result."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", N_("Save, then quit")),
        Binding("q", "choose('quit')", N_("Quit without saving")),
        Binding("escape", "choose('cancel')", N_("Cancel")),
    ]

    def __init__(self) -> None:
        super().__init__(id="quit")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(_("Save the game before quitting?"), style="bold"))
            yield Static(_("A saved game goes on with: hearts tui --resume FILE"), classes="dim")
            with Horizontal(classes="buttons"):
                yield Button(_("Save (s)"), id="save", variant="primary")
                yield Button(_("Don't save (q)"), id="quit", variant="error")
                yield Button(_("Cancel (Esc)"), id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "cancel")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
