"""Where to save the game record: :class:`SaveScreen`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label

from hearts.i18n import N_, _
from hearts.tui.screens.dialog import Dialog


class SaveScreen(Dialog[str | None]):
    """Where to save the record: the path typed is the result (Enter), ``None`` cancels (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, default: str) -> None:
        super().__init__(id="save")
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(_("Save the game record to:"), style="bold"))
            yield Input(self.default, id="save-path")
            yield Label(
                Text(_("Enter to save · Escape to cancel · resume with hearts tui --resume FILE"), style="dim")
            )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
