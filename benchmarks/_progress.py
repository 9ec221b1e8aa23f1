"""A tiny progress bar on stderr, without dependencies (for the benchmark scripts)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``Progress(total, "label")``; call :meth:`advance` as work is done, :meth:`close` at the end.

    The bar is redrawn in place (carriage return) at most every ``interval`` seconds, so calling
    :meth:`advance` often costs little; it writes nothing when ``stream`` is ``None``.
    """

    def __init__(
        self,
        total: int,
        label: str = "",
        *,
        width: int = 30,
        stream: TextIO | None = sys.stderr,
        interval: float = 0.1,
    ) -> None:
        self.total = max(total, 1)
        self.label = label
        self.width = width
        self.stream = stream
        self.interval = interval
        self.done = 0
        self._start = time.perf_counter()
        self._last = 0.0
        self._draw()

    def advance(self, steps: int = 1, label: str | None = None) -> None:
        """Record ``steps`` more units of work (and optionally change the label)."""
        self.done = min(self.done + steps, self.total)
        if label is not None:
            self.label = label
        now = time.perf_counter()
        if now - self._last >= self.interval or self.done == self.total:
            self._draw(now)

    def close(self) -> None:
        """Draw the final state and end the line."""
        self._draw()
        if self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float | None = None) -> None:
        if self.stream is None:
            return
        now = time.perf_counter() if now is None else now
        self._last = now
        filled = self.width * self.done // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        pct = 100 * self.done // self.total
        elapsed = now - self._start
        self.stream.write(f"\r[{bar}] {pct:3d}% {elapsed:5.1f}s {self.label:<40.40}")
        self.stream.flush()
