"""The line at the top of the table: :class:`StatusLine`."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive, var
from textual.widgets import Static

from hearts.i18n import _
from hearts.round import Phase
from hearts.text import direction_name
from hearts.tui.state import TableState


def status_parts(state: TableState) -> tuple[str, ...]:
    """The round, the pass, the trick, hearts, the target and the seed, most important first.

    >>> from hearts import Rules
    >>> from hearts.tui.session import Session
    >>> status_parts(TableState.of(Session.new(Rules(), seed=4, specs=["easy"])))
    ('Round 1', 'pass 3 left→West', '♥ not broken', 'to 100', 'seed 4')
    """
    view = state.view
    parts = [_("Round {n}").format(n=view.round_number + 1)]
    if state.pass_offset:
        to = state.names[state.pass_target(state.me)]
        direction = direction_name(state.pass_offset, state.players)
        parts.append(_("pass {n} {direction}→{to}").format(n=view.rules.pass_count, direction=direction, to=to))
    else:
        parts.append(_("no passing (hold)"))
    if view.phase is Phase.PLAYING:
        parts.append(_("trick {n}/{of}").format(n=len(view.tricks) + 1, of=view.rules.hand_size))
    clock = state.clocks[view.to_move] if state.clocks and view.to_move is not None else None
    if view.must_pass and state.clocks:
        clock = state.clocks[state.me]
    if clock is not None:
        parts.append(f"⏱ {clock} s")
    parts.append(_("♥ broken") if view.hearts_broken else _("♥ not broken"))
    parts.append(_("to {n}").format(n=view.rules.target))
    if state.seed is not None:
        parts.append(_("seed {n}").format(n=state.seed))
    return tuple(parts)


class StatusLine(Static):
    """The :func:`status_parts` that fit in the line's width (at least the round and the pass).

    ``state`` is bound to the table screen's; the line is redrawn when its parts change (and
    when its width does)."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $primary-background; padding: 0 1; }
    """

    state: var[TableState | None] = var(None)
    parts: reactive[tuple[str, ...]] = reactive(())

    def __init__(self) -> None:
        super().__init__("", id="status")

    def watch_state(self, state: TableState | None) -> None:
        self.parts = () if state is None else status_parts(state)

    def render(self) -> Text:
        parts = list(self.parts)
        room = self.content_size.width
        while room and len(parts) > 2 and len(" · ".join(parts)) > room:
            parts.pop()
        return Text(" · ".join(parts), style="bold")
