"""The moon shooter's choice (R4.4 ``shooter_chooses``): :class:`MoonScreen`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from hearts.i18n import N_, _
from hearts.mechanics import MoonChoice
from hearts.tui.screens.dialog import Dialog


class MoonScreen(Dialog[MoonChoice]):
    """R4.4 ``shooter_chooses``: add 26 to everyone else, or subtract 26 from yourself (43 with
    Black Maria's spades, R4.5: ``worth``, the rules' ``round_points``); the choice is the
    screen's result."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a,plus", "choose('add')", N_("Add to the others")),
        Binding("s,minus", "choose('subtract')", N_("Subtract from you")),
    ]

    def __init__(self, totals: list[int], names: list[str], worth: int = 26) -> None:
        super().__init__(id="moon")
        self.totals = totals
        self.names = names
        self.worth = worth

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            took = _("all the hearts and the Q♠") if self.worth == 26 else _("every penalty card")
            yield Label(Text(_("☾ You shot the moon: {took}!").format(took=took), style="bold"))
            yield Static(
                _("Totals before this round:") + " "
                + " · ".join(f"{n} {t}" for n, t in zip(self.names, self.totals, strict=True))
            )
            with Horizontal(classes="buttons"):
                yield Button(_("Add {n} to the others (a)").format(n=self.worth), id="add", variant="primary")
                yield Button(_("Subtract {n} from me (s)").format(n=self.worth), id="subtract")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss("subtract" if event.button.id == "subtract" else "add")

    def action_choose(self, choice: MoonChoice) -> None:
        self.dismiss(choice)
