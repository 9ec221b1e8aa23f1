"""Waiting for a quick match: :class:`QueueScreen`, showing a :class:`Waiting`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer

from hearts.i18n import N_, _, ngettext
from hearts.tui.widgets import TextLine
from hearts.tui.words import translate_bindings


@dataclass(frozen=True)
class Waiting:
    """The queue as the service last said (a ``queued`` message): the rule set asked for,
    rated or not, the seconds waited then, the wait before bots fill the empty seats, the
    people waiting who could share the table; and when it was said (``time.monotonic``).

    >>> w = Waiting.of({"preset": "standard", "rated": False, "waited": 2.0, "fill_after": 20, "waiting": 1}, at=10.0)
    >>> w.lines(now=13.4)
    ['Quick match · standard · unrated', 'Waiting 5 s · 1 person waiting for these rules (you too)', 'Bots fill the empty seats in 15 s']
    """

    preset: str
    rated: bool
    waited: float
    fill_after: int
    waiting: int
    at: float

    @classmethod
    def of(cls, message: dict[str, Any], at: float | None = None) -> Waiting:
        return cls(
            str(message["preset"]), bool(message["rated"]), float(message["waited"]), int(message["fill_after"]),
            int(message["waiting"]), time.monotonic() if at is None else at,
        )

    def lines(self, now: float | None = None) -> list[str]:
        """What the screen says at ``now``: the request, the wait and who waits, the countdown."""
        waited = self.waited + ((time.monotonic() if now is None else now) - self.at)
        left = max(0, round(self.fill_after - waited))
        fill = _("Bots fill the empty seats in {n} s").format(n=left) if left else _("Bots are taking the empty seats…")
        return [
            _("Quick match") + f" · {self.preset} · " + (_("rated") if self.rated else _("unrated")),
            ngettext("Waiting {s} s · {n} person waiting for these rules (you too)",
                     "Waiting {s} s · {n} people waiting for these rules (you too)", self.waiting).format(
                s=int(waited), n=self.waiting),
            fill,
        ]


class QueueScreen(Screen[None]):
    """The wait for a quick match: what was asked, how long it has waited, the people waiting
    and the countdown to the bots; Escape or q leaves the queue (:class:`QueueScreen.Leave`)."""

    DEFAULT_CSS = """
    QueueScreen { align: center middle; }
    QueueScreen #queue { width: 64; height: auto; border: thick $primary; padding: 1 2; }
    QueueScreen #queue-said { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "leave", N_("Leave the queue"), tooltip=N_("leave the queue at once")),
    ]

    waiting: var[Waiting | None] = var(None)
    """The queue as last said (``None``: asking)."""

    class Leave(Message):
        """The person asked to leave the queue."""

    def __init__(self, service: str) -> None:
        super().__init__(id="queue-screen")
        translate_bindings(self)  # the footer in the language in use
        self.service = service

    def compose(self) -> ComposeResult:
        with Vertical(id="queue"):
            yield TextLine(id="queue-text")
            yield TextLine(id="queue-said")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(1.0, self._draw)
        self._draw()

    def watch_waiting(self) -> None:
        self._draw()

    def say(self, text: str) -> None:
        """A line under the wait (leaving, an error)."""
        self.query_one("#queue-said", TextLine).text = Text(text)

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        lines = [_("Asking {service} for a quick match…").format(service=self.service)] if self.waiting is None else self.waiting.lines()
        body = Text(lines[0], style="bold") + Text("\n" + "\n".join([*lines[1:], "", _("Esc or q leaves the queue")]))
        self.query_one("#queue-text", TextLine).text = body

    def action_leave(self) -> None:
        self.post_message(self.Leave())
