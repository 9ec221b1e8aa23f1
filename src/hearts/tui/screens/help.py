"""Every key of the table: :class:`HelpScreen`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table as RichTable

from hearts.i18n import N_, _
from hearts.tui.screens.info import InfoScreen


class HelpScreen(InfoScreen):
    """Every key of the table, from the bindings themselves (so the list cannot go stale)."""

    TYPING: ClassVar[tuple[tuple[str, str], ...]] = (
        (N_("a card's name"), N_("jump to that card: a rank (2-9, 10 or t, j, q, k, a) then a suit (c, d, h, s)")),
        (N_("a rank alone"), N_("jump to your first card of that rank")),
        (N_("a click"), N_("on a card: play it (mark it while passing)")),
        (N_("Escape"), N_("close a dialog")),
    )

    def __init__(self, bindings: Sequence[tuple[str, str]]) -> None:
        rows = [*bindings, *((_(key), _(what)) for key, what in self.TYPING)]
        table = RichTable.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, what in rows:
            table.add_row(key, what)
        super().__init__(_("Keys"), table, id="help")
        self.rows = rows
        """(key, what it does): the bindings' keys first, then typing and clicking."""
