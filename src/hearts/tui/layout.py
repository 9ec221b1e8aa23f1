"""How the card table is laid out in a window of a given size (no widget, no Textual).

You sit at the bottom; the other seats sit left, across and right in clockwise order (R1.4);
the hand wraps into rows when the window is narrow; below :data:`MIN_WIDTH` columns or the
:func:`needed_height` the table says it does not fit instead of being cut off.

>>> table_positions(4), cards_per_row(80), needed_height(4, 13, 80)
(([1], [2], [3]), 19, 19)
"""

from __future__ import annotations

CARD_WIDTH = 3
"""Cells of one card of the hand (``10♥``); one more separates it from the next."""

MIN_WIDTH = 60
"""The narrowest window the table is laid out for (side panels and the trick side by side)."""

NARROW = 80
"""Below this width the side panels are narrower and the trick shows short names."""


def table_positions(players: int) -> tuple[list[int], list[int], list[int]]:
    """Seats shown on the left, across (top, left to right) and right of the person: clockwise
    from the person's left (R1.4), so with four players West, North, East.

    >>> table_positions(4), table_positions(3)
    (([1], [2], [3]), ([1], [], [2]))
    """
    return [1], list(range(2, players - 1)), [players - 1]


def cards_per_row(width: int) -> int:
    """How many cards of the hand fit on one row of a window ``width`` cells wide (the hand
    has a cell of padding each side and a blank between cards).

    >>> cards_per_row(80), cards_per_row(60)
    (19, 14)
    """
    return max(1, (width - 2 + 1) // (CARD_WIDTH + 1))


def hand_rows(cards: int, width: int) -> int:
    """Rows of a hand of ``cards`` cards in a window ``width`` cells wide.

    >>> hand_rows(13, 120), hand_rows(17, 60), hand_rows(0, 60)
    (1, 2, 1)
    """
    return max(1, -(-cards // cards_per_row(width)))


def needed_height(players: int, hand_size: int, width: int) -> int:
    """The window height the table needs at ``width``: the status line, the seats across
    (if any), the middle row (seat panels and the trick), your line (two when narrow), the
    hand's rows, the message line and the footer.

    >>> needed_height(4, 13, 80), needed_height(3, 17, 60)
    (19, 17)
    """
    across = 5 if table_positions(players)[1] else 0
    you = 1 if width >= NARROW else 2
    return 1 + across + 8 + you + 2 * hand_rows(hand_size, width) + 1 + 1
