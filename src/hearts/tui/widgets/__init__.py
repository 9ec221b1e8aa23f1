"""The card table's widgets, one a module: each shows one part of a
:class:`~hearts.tui.state.TableState` and is redrawn only when that part changes.

=================================  ============================================================
:class:`TextLine`                  a line of text held in a ``reactive`` (the message line, …)
:class:`StatusLine`                the round, the pass, the trick, hearts, the target, the seed
:class:`SeatPanel`                 another seat: name, level, cards held, points, total
:class:`TrickView`                 the trick in the middle, each card on its seat's side
:class:`YouLine`                   your name, points and total, and what to do now
:class:`CardWidget`                one card of your hand (posts :class:`CardWidget.Clicked`)
:class:`Hand`                      your hand: a grid of :class:`CardWidget`
=================================  ============================================================
"""

from __future__ import annotations

from hearts.tui.widgets.card import CardFace, CardWidget
from hearts.tui.widgets.hand import Hand
from hearts.tui.widgets.seat_panel import SeatInfo, SeatPanel
from hearts.tui.widgets.status_line import StatusLine
from hearts.tui.widgets.text_line import TextLine
from hearts.tui.widgets.trick_view import TrickView
from hearts.tui.widgets.you_line import YouLine

__all__ = [
    "CardFace",
    "CardWidget",
    "Hand",
    "SeatInfo",
    "SeatPanel",
    "StatusLine",
    "TextLine",
    "TrickView",
    "YouLine",
]
