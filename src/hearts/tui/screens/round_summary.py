"""A finished round, summed up before the next one: :class:`RoundSummaryScreen`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import BindingType

from hearts.i18n import N_, _
from hearts.round import Round
from hearts.text import round_summary
from hearts.tui.look import STYLE, trick_text
from hearts.tui.screens.info import InfoScreen
from hearts.tui.screens.review import REVIEW


class RoundSummaryScreen(InfoScreen):
    """A finished round: its last trick, the point cards each seat took, the moon if shot, the
    round's scores and the new totals (R4). The next round waits until it is closed; ``r``
    reviews your decisions in it (:class:`~hearts.tui.screens.review.ReviewScreen`)."""

    BINDINGS: ClassVar[list[BindingType]] = [REVIEW]

    def __init__(self, r: Round, names: Sequence[str]) -> None:
        lines = round_summary(r, names, STYLE)
        body = Text(_("Last trick") + "\n", style="bold") + trick_text(r.tricks[-1], names) + Text("\n\n")
        body += Text("\n".join(lines[1:]))
        super().__init__(
            lines[0], body, id="round-summary", closing=N_("Enter, Space or Escape: go on · r: review your play")
        )
