"""A text panel over the table: :class:`InfoScreen`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from hearts.i18n import N_, _
from hearts.tui.look import score_history, trick_text
from hearts.tui.screens.dialog import Dialog
from hearts.view import View


class InfoScreen(Dialog[None]):
    """A text panel (last trick, score history, a round's summary, the keys); Escape, Enter,
    Space or the key that opened it closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,space,l,s,q,question_mark", "close", N_("Close")),
    ]

    def __init__(
        self,
        title: str,
        body: RenderableType,
        *,
        id: str | None = None,
        closing: str = N_("Escape or Enter to close"),
    ) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.body = body
        self.closing = _(closing)

    @classmethod
    def last_trick(cls, view: View, names: Sequence[str]) -> InfoScreen | None:
        """The last completed trick of the round ``view`` (a seat's) shows, or ``None``: none yet."""
        if not view.tricks:
            return None
        title = _("Trick {n} of round {round}").format(n=len(view.tricks), round=view.round_number + 1)
        return cls(title, trick_text(view.tricks[-1], names), id="last-trick")

    @classmethod
    def scores(cls, history: Sequence[Sequence[int]], view: View, names: Sequence[str]) -> InfoScreen:
        """The score history (:func:`~hearts.tui.look.score_history`)."""
        return cls(_("Score history"), score_history(history, view, names), id="scores")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text, style="bold"))
            with VerticalScroll(classes="info-scroll"):
                yield Static(self.body, classes="info-body")
            yield Label(Text(self.closing, style="dim"))

    def on_resize(self, event: events.Resize) -> None:
        """The text scrolls when the window is too short for it; the closing line stays."""
        self.query_one(".info-scroll").styles.max_height = max(3, event.size.height - 4)

    def action_close(self) -> None:
        self.dismiss(None)
