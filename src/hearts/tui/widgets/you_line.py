"""Your line above your hand: :class:`YouLine`."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import var

from hearts.cards import Card
from hearts.i18n import _
from hearts.round import Phase
from hearts.text import SEAT_NAMES, name_word, points_word
from hearts.tui.look import cards_text
from hearts.tui.state import TableState
from hearts.tui.widgets.text_line import TextLine


def you_text(state: TableState, marked: int) -> Text:
    """Your name (and seat), points and total, then what to do now: mark ``marked`` of the
    cards to pass, play, or wait; and the cards you received, until the first trick is over.

    >>> from hearts import Rules
    >>> from hearts.tui.session import Session
    >>> you_text(TableState.of(Session.new(Rules(), seed=4, specs=["easy"])), 1).plain
    '▶ You (South) · no points · total 0 · mark 3 to pass (1/3), Enter'
    """
    view = state.view
    t = Text()
    me = state.me
    mine = state.turn(me)
    name, seat_name = state.names[me], name_word(SEAT_NAMES[view.players][me])
    t.append(("▶ " if mine or view.must_pass else "") + name, style="bold yellow")
    if name != seat_name:
        t.append(f" ({seat_name})", style="yellow")
    t.append(" · " + points_word(view.points_taken[me]) + " · " + _("total {n}").format(n=state.totals[me]))
    if view.must_pass:
        count = view.rules.pass_count
        t.append(" · " + _("mark {n} to pass ({marked}/{n}), Enter").format(n=count, marked=marked), style="bold")
    elif mine:
        t.append(" · " + _("your turn: Enter plays"), style="bold")
    elif view.phase is Phase.PASSING:
        t.append(" · " + _("waiting for the others to pass"), style="dim")
    if view.received is not None and not view.tricks and view.phase is Phase.PLAYING:
        t.append(" · " + _("received") + " ")
        t.append_text(cards_text(view.received.sorted_by_suit()))
    return t


class YouLine(TextLine):
    """:func:`you_text`; ``state`` and ``marked`` are bound to the table screen's."""

    DEFAULT_CSS = """
    YouLine { height: auto; max-height: 2; padding: 0 1; }
    """

    state: var[TableState | None] = var(None)
    marked: var[frozenset[Card]] = var(frozenset())

    def __init__(self) -> None:
        super().__init__(id="you")

    def watch_state(self) -> None:
        self._draw()

    def watch_marked(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if self.state is not None:
            self.text = you_text(self.state, len(self.marked))
