"""A line (or a few) of text in a ``reactive``: the message under the hand, a trick's cell, …"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static


class TextLine(Static):
    """Shows :attr:`text`; setting it repaints the widget only when the text changes, and lays
    the screen out again only when its size changes (a longer name, another line)."""

    text: reactive[Text] = reactive(Text)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)

    def watch_text(self, old: Text, new: Text) -> None:
        if old.cell_len != new.cell_len or old.plain.count("\n") != new.plain.count("\n"):
            self.refresh(layout=True)

    def render(self) -> Text:
        return self.text
