"""The trick in the middle of the table: :class:`TrickView`, showing a :class:`TrickInfo`."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Grid
from textual.reactive import reactive, var

from hearts.i18n import _
from hearts.round import Phase, Trick
from hearts.text import points_word, short_name, winning_card
from hearts.tui.layout import table_positions
from hearts.tui.look import card_text
from hearts.tui.state import TableState
from hearts.tui.widgets.text_line import TextLine


@dataclass(frozen=True)
class TrickInfo:
    """What the trick shows: the trick in progress, or the last one completed (``done``) until
    the next card; the seats' names, who is to move, the phase and how many tricks are done."""

    trick: Trick
    done: bool
    names: tuple[str, ...]
    to_move: int | None
    phase: Phase
    over: bool
    """The round is over (scored)."""
    completed: int
    """Tricks completed this round."""
    me: int = 0
    """The person's seat (at the bottom)."""

    @classmethod
    def of(cls, state: TableState) -> TrickInfo:
        view = state.view
        trick, done = view.trick, False
        if not trick.cards and view.tricks:
            trick, done = view.tricks[-1], True
        return cls(
            trick, done, state.names, view.to_move, view.phase, view.result is not None, len(view.tricks), state.me
        )

    @property
    def title(self) -> str:
        """``Trick 3`` (the one shown), or ``Trick`` before the first card."""
        if not (self.completed or self.trick.cards):
            return _("Trick")
        return _("Trick {n}").format(n=self.completed + (0 if self.done else 1))

    def middle(self) -> Text:
        """The centre: passing, who took the last trick, who leads, or the round is over."""
        trick = self.trick
        if self.phase is Phase.PASSING:
            return Text(_("passing"), style="dim")
        if self.done and trick.winner is not None:
            return Text(f"→ {self.names[trick.winner]}\n{points_word(trick.points)}", style="italic")
        if self.phase is Phase.PLAYING and not trick.cards:
            return Text(self.names[self.to_move or 0] + "\n" + _("to lead"), style="dim")
        if self.over:
            return Text(_("round\nover"), style="dim")
        return Text()

    def cell(self, seats: list[int], room: int) -> Text:
        """Names on one line, each seat's card centred under its name on the next (the winning
        card so far underlined); short names (``NW``) when the full ones do not fit ``room``."""
        if not seats:
            return Text()
        played = dict(self.trick.plays)
        best = winning_card(self.trick) if self.trick.cards else None
        full = [self.names[s] for s in seats]
        if sum(max(len(name), 3) + 2 for name in full) - 2 > room:
            full = [short_name(name) for name in full]
        names, faces = Text(), Text()
        for i, (s, name) in enumerate(zip(seats, full, strict=True)):
            if i:
                names.append("  ")
                faces.append("  ")
            width = max(len(name), 3)
            names.append(name.center(width), style="bold" if self.to_move == s and not self.done else "")
            card = played.get(s)
            face = Text("··", style="dim") if card is None else card_text(card)
            if card is not None and card == best:
                face.stylize("underline")
            pad = width - face.cell_len
            faces.append(" " * (pad // 2))
            faces.append_text(face)
            faces.append(" " * (pad - pad // 2))
        return Text("\n").join([names, faces])


class TrickView(Grid):
    """The trick: each seat's card on its side (across at the top, left, right, yours at the
    bottom), the centre saying what happens, the border titled with the trick's number.

    ``state`` is bound to the table screen's; the cells are redrawn when the
    :class:`TrickInfo` changes, and when the trick's width does (names get shorter)."""

    DEFAULT_CSS = """
    TrickView { grid-size: 3 3; grid-columns: auto 1fr auto; grid-rows: 1fr 1fr 1fr; width: 1fr;
                min-width: 18; border: round $success; }
    TrickView .trick-cell { content-align: center middle; width: 1fr; height: 1fr; min-height: 2; }
    TrickView #trick-tc, TrickView #trick-bc { column-span: 3; }
    TrickView #trick-ml { content-align: left middle; width: auto; }
    TrickView #trick-mr { content-align: right middle; width: auto; }
    """

    state: var[TableState | None] = var(None)
    info: reactive[TrickInfo | None] = reactive(None, repaint=False)

    def __init__(self) -> None:
        super().__init__(id="trick")

    def compose(self) -> ComposeResult:
        for name in ("tc", "ml", "mc", "mr", "bc"):
            yield TextLine(id=f"trick-{name}", classes="trick-cell")

    def watch_state(self, state: TableState | None) -> None:
        self.info = None if state is None else TrickInfo.of(state)

    def watch_info(self) -> None:
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        info = self.info
        if info is None or not self.is_mounted:
            return
        n = len(info.names)
        left, top, right = ([(info.me + p) % n for p in places] for places in table_positions(n))
        room = self.content_size.width or self.screen.size.width
        cells = {
            "tc": info.cell(top, room),
            "ml": info.cell(left, room // 4),
            "mr": info.cell(right, room // 4),
            "bc": info.cell([info.me], room),
            "mc": info.middle(),
        }
        for name, text in cells.items():
            self.query_one(f"#trick-{name}", TextLine).text = text
        self.border_title = info.title
