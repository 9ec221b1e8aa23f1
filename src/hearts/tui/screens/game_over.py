"""The end of a game: :class:`GameOverScreen`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from hearts.game import Game
from hearts.i18n import N_, _
from hearts.text import game_over_lines
from hearts.tui.screens.dialog import Dialog
from hearts.tui.screens.review import REVIEW


class GameOverScreen(Dialog[str]):
    """Who won and the totals after each round, the last the final ones (R5); its result is
    what next: ``new`` (n), ``quit``, or ``close`` (Escape: look at the table); r reviews your
    play round by round."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", N_("New game")),
        REVIEW,
        Binding("escape", "choose('close')", N_("Back to the table")),
    ]

    def __init__(self, body: Text) -> None:
        super().__init__(id="game-over")
        self.body = body

    @classmethod
    def of(cls, game: Game, names: Sequence[str]) -> GameOverScreen:
        """The game over of ``game`` (over): the winner, then the totals after each round."""
        head, *rest = game_over_lines(game, names)
        return cls(Text(head + "\n\n", style="bold") + Text("\n".join(rest)))

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(_("Game over"), style="bold"))
            yield Static(self.body, id="game-over-body")
            with Horizontal(classes="buttons"):
                yield Button(_("New game (n)"), id="new", variant="primary")
                yield Button(_("Review (r)"), id="review")
                yield Button(_("Quit (ctrl+q)"), id="quit")

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "review":
            await self.run_action(REVIEW.action)
        else:
            self.dismiss(event.button.id or "close")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
