"""The rule book over the table: :class:`RulesScreen`."""

from __future__ import annotations

from typing import ClassVar

from rich.markdown import Markdown
from textual.binding import Binding, BindingType

from hearts.book import markdown
from hearts.i18n import N_, _
from hearts.rules import Rules
from hearts.tui.screens.info import InfoScreen


class RulesScreen(InfoScreen):
    """The rule book (``hearts.book``: docs/rules.md, R-numbers kept) in the language in use, the
    table's own options first and beside each rule they belong to; it scrolls (arrows, Page Up
    and Page Down); b, Escape or Enter closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("b,f1", "close", N_("Close"), show=False)]

    def __init__(self, rules: Rules) -> None:
        self.text = markdown(rules)
        """The Markdown shown (the table's options, then every rule)."""
        super().__init__(
            _("The rules of Hearts"),
            Markdown(self.text),
            id="rules",
            closing=N_("Arrows or Page Up/Down scroll; b, Escape or Enter closes"),
        )
        self.rules = rules
