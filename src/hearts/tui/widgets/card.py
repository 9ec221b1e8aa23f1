"""One card of your hand (:class:`CardWidget`) and how it is shown (:class:`CardFace`)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from hearts.cards import Card
from hearts.tui.layout import CARD_WIDTH
from hearts.tui.look import STYLE, card_style


@dataclass(frozen=True)
class CardFace:
    """How a card of the hand is shown: dimmed when it may not be played, raised when marked to
    pass, reversed under the cursor.

    >>> face = CardFace(Card.parse("QS"), legal=True, marked=True, cursor=False)
    >>> face.text().plain.splitlines()
    [' Q♠', '   ']
    """

    card: Card
    legal: bool
    marked: bool
    cursor: bool

    def text(self) -> Text:
        """Two rows: the card on the lower one (on the upper one when marked)."""
        face = Text(STYLE.card(self.card).rjust(CARD_WIDTH), style=card_style(self.card, dim=not self.legal))
        if self.cursor:
            face.stylize("reverse")
        blank = Text(" " * CARD_WIDTH)
        return Text("\n").join([face, blank] if self.marked else [blank, face])


class CardWidget(Static):
    """One slot of your hand: the :class:`CardFace` in :attr:`face` (``None``: hidden, the hand
    has fewer cards). A click posts :class:`Clicked` to the hand's screen."""

    DEFAULT_CSS = """
    CardWidget { width: 3; height: 2; }
    """

    face: reactive[CardFace | None] = reactive(None)

    class Clicked(Message):
        """A card of the hand was clicked (``index`` in the hand as shown)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__("", classes="card")
        self.index = index
        self.display = False

    @property
    def card(self) -> Card | None:
        """The card shown, if any."""
        return None if self.face is None else self.face.card

    def watch_face(self, face: CardFace | None) -> None:
        self.display = face is not None
        self.set_class(face is not None and not face.legal, "illegal")
        self.set_class(face is not None and face.marked, "marked")

    def render(self) -> Text:
        return Text() if self.face is None else self.face.text()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.index))
