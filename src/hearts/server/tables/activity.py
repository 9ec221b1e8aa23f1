"""Which tables are in play, as any server process of a service can tell (PostgreSQL): the
tables whose actions it heard of lately (every process hears every action's notice), those with
a client connected through it or, as the presence notices say, through another process. A
dead owner's tables in play are taken over first, as soon as its leases run out; its idle
ones are left to be taken when someone opens them (:mod:`~hearts.server.tables.ownership`).

>>> heard = Activity()
>>> heard.action("t1", now=0.0)
>>> heard.action("t2", now=50.0)
>>> sorted(heard.recent(now=100.0))  # t1's last action is more than ACTIVE seconds old
['t2']
>>> heard.recent(now=200.0)
[]
"""

from __future__ import annotations

import time
from typing import Final

ACTIVE: Final = 90.0
"""Seconds after its last action a table still counts as in play (a person thinking, a
round's end shown), though nobody is connected to it."""


class Activity:
    """When this process last heard of an action at each table (:func:`time.monotonic`),
    for the tables with one in the last :data:`ACTIVE` seconds: record each action's notice
    with :meth:`action`, ask :meth:`recent` (which forgets the older ones)."""

    def __init__(self) -> None:
        self._heard: dict[str, float] = {}

    def action(self, table_id: str, now: float | None = None) -> None:
        """An action was logged at the table (its notice heard)."""
        self._heard[table_id] = time.monotonic() if now is None else now

    def recent(self, now: float | None = None) -> list[str]:
        """The tables with an action in the last :data:`ACTIVE` seconds (the others are forgotten)."""
        since = (time.monotonic() if now is None else now) - ACTIVE
        self._heard = {t: when for t, when in self._heard.items() if when >= since}
        return list(self._heard)
