"""Your hand along the bottom of the table: :class:`Hand`."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Grid
from textual.reactive import var

from hearts.cards import Card
from hearts.tui.state import TableState
from hearts.tui.widgets.card import CardFace, CardWidget


class Hand(Grid):
    """Your cards sorted by suit, ``columns`` to a row, illegal ones dimmed while you play, the
    marked ones raised, the one under the cursor reversed.

    ``state``, ``cursor`` and ``marked`` are bound to the table screen's (``data_bind``); each
    change gives every :class:`CardWidget` its new :class:`CardFace`, and only the cards whose
    face changed are redrawn (moving the cursor redraws two)."""

    DEFAULT_CSS = """
    Hand { height: auto; padding: 0 1; grid-gutter: 0 1; grid-columns: 3; grid-rows: 2; }
    """

    state: var[TableState | None] = var(None)
    cursor: var[int] = var(0)
    marked: var[frozenset[Card]] = var(frozenset())
    columns: var[int] = var(13)
    """Cards on one row (:func:`~hearts.tui.layout.cards_per_row` of the window's width)."""

    def __init__(self, slots: int) -> None:
        super().__init__(id="hand")
        self.slots = slots
        """The most cards a hand holds (the rules' hand size)."""

    def compose(self) -> ComposeResult:
        for i in range(self.slots):
            yield CardWidget(i)

    def on_mount(self) -> None:
        self._draw()

    def watch_columns(self, columns: int) -> None:
        self.styles.grid_size_columns = columns

    def watch_state(self) -> None:
        self._draw()

    def watch_cursor(self) -> None:
        self._draw()

    def watch_marked(self) -> None:
        self._draw()

    def _draw(self) -> None:
        state = self.state
        if state is None:
            return
        view = state.view
        cards = view.hand.sorted_by_suit()
        playing = state.turn(state.me)
        for w in self.query(CardWidget):
            card = cards[w.index] if w.index < len(cards) else None
            w.face = (
                None
                if card is None
                else CardFace(
                    card,
                    legal=not playing or card in view.legal,
                    marked=card in self.marked,
                    cursor=w.index == self.cursor,
                )
            )
