"""Another seat at the table: :class:`SeatPanel`, showing a :class:`SeatInfo`."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.reactive import reactive, var
from textual.widgets import Static

from hearts.i18n import _, ngettext
from hearts.round import Phase
from hearts.text import name_word, points_word
from hearts.tui.state import TableState


@dataclass(frozen=True)
class SeatInfo:
    """What a seat's panel shows: its name, its bot's level and cards held, whether it is to
    play, and while passing whether it has passed (``passing``; ``None`` once the tricks are
    played), else its points this round; and its total.

    >>> from hearts import Rules
    >>> from hearts.tui.session import Session
    >>> SeatInfo.of(TableState.of(Session.new(Rules(), seed=1, specs=["hard"])), 2)
    SeatInfo(name='North', level='hard', cards=13, turn=False, passing=True, points=0, total=0)
    """

    name: str
    level: str
    cards: int
    turn: bool
    passing: bool | None
    points: int
    total: int

    @classmethod
    def of(cls, state: TableState, seat: int) -> SeatInfo:
        view = state.view
        return cls(
            name=state.names[seat],
            level=state.levels[seat],
            cards=view.hand_sizes[seat],
            turn=state.turn(seat),
            passing=seat in state.passing if view.phase is Phase.PASSING else None,
            points=view.points_taken[seat],
            total=state.totals[seat],
        )


class SeatPanel(Static):
    """Another seat: its name (``▶`` and a heavy border when it is to play), its bot's level and
    cards held, its points this round (or whether it has passed) and its total.

    ``state`` is bound to the table screen's; the panel is redrawn only when its seat's
    :class:`SeatInfo` changes."""

    DEFAULT_CSS = """
    SeatPanel { width: 26; height: 5; border: round $secondary; padding: 0 1; }
    SeatPanel.to-move { border: heavy $warning; }
    """

    state: var[TableState | None] = var(None)
    info: reactive[SeatInfo | None] = reactive(None)

    def __init__(self, seat: int) -> None:
        super().__init__("", classes="seat", id=f"seat-{seat}")
        self.seat = seat

    def watch_state(self, state: TableState | None) -> None:
        self.info = None if state is None else SeatInfo.of(state, self.seat)

    def watch_info(self, info: SeatInfo | None) -> None:
        self.set_class(info is not None and info.turn, "to-move")

    def render(self) -> Text:
        info = self.info
        if info is None:
            return Text()
        name = Text(("▶ " if info.turn else "") + info.name, style="bold yellow" if info.turn else "bold")
        cards = ngettext("{n} card", "{n} cards", info.cards).format(n=info.cards)
        held = Text(f"{name_word(info.level)} · {cards}", style="italic")
        total = " · " + _("total {n}").format(n=info.total)
        if info.passing is not None:
            now = _("passing…") if info.passing else _("passed")
        else:
            now = points_word(info.points)
            if len(now + total) > self.content_size.width > 0:  # a narrow panel
                now = ngettext("{n} pt", "{n} pts", info.points).format(n=info.points)
        return Text("\n").join([name, held, Text(now + total, style="dim")])
