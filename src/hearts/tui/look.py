"""How cards look at the terminal table: in their suits' colours on a white face.

Shared by the table (:mod:`hearts.tui.app`) and the review (:mod:`hearts.tui.review_screen`);
Rich only, no widget.

>>> card_text(Card.parse("TH")).plain, cards_text([Card.parse("2C"), Card.parse("QS")]).plain
('10♥', '2♣ Q♠')
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from hearts.cards import DIAMONDS, HEARTS, Card
from hearts.text import Style

STYLE = Style()
"""Cards on the table: ``Q♠``, ``10♥`` (as in line mode)."""


def card_style(card: Card, *, dim: bool = False) -> str:
    """Red for hearts and diamonds, black for clubs and spades, on a white card; grey when dim."""
    red = card.suit in (HEARTS, DIAMONDS)
    if dim:
        return ("#b06060" if red else "#808080") + " on #3a3a3a"
    return ("bold #c00000" if red else "bold #000000") + " on #f0f0f0"


def card_text(card: Card, *, dim: bool = False) -> Text:
    """One card in its colours."""
    return Text(STYLE.card(card), style=card_style(card, dim=dim))


def cards_text(cards: Sequence[Card]) -> Text:
    """Cards in their colours, separated by blanks."""
    return Text(" ").join(card_text(c) for c in cards)
