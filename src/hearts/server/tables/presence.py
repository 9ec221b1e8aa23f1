"""Who is at a table: the seats with a connected client and the spectators, through every
server process of a service.

Each process announces its own connections at a table when they change (a
:class:`~hearts.server.storage.PresenceNotice`) and adds the others' (:class:`Roster`); a
process that stops being heard of (:class:`~hearts.server.storage.AliveNotice`) counts no
more. A table's :class:`Presence` tells its clients, and the other processes.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import TYPE_CHECKING, Final

from hearts.server import wire
from hearts.server.notices import PresenceNotice
from hearts.server.tables.names import seat_name

if TYPE_CHECKING:
    from hearts.server.tables.table import Table


ALIVE_EVERY: Final = 10.0
"""Seconds between a server process's alive notices (:class:`~hearts.server.storage.AliveNotice`); the
presence announced by a process not heard of for three times as long is forgotten."""


class Roster:
    """Who is connected to each table through the *other* server processes of a service, as
    their presence notices told (:class:`~hearts.server.storage.PresenceNotice`; SQLite: nobody).
    A process not heard of for ``3 * ALIVE_EVERY`` seconds counts no more.

    >>> roster = Roster("me")
    >>> roster.heard(PresenceNotice("t1", "other", [2], 1), now=0.0)
    True
    >>> roster.at("t1", now=1.0)
    ([2], 1)
    >>> roster.at("t1", now=100.0)  # "other" has not been heard of since: gone
    ([], 0)
    """

    def __init__(self, process: str | None = None) -> None:
        self.process = process or secrets.token_hex(6)
        """This process's id in its notices."""
        self._seen: dict[str, float] = {}
        """When each other process was last heard of (:func:`time.monotonic`)."""
        self._tables: dict[str, dict[str, tuple[tuple[int, ...], int]]] = {}
        """Each table's presence through each other process: (seats online, spectators)."""
        self._gone: set[str] = set()
        """The processes that said they are stopping (a process's id is its run's own)."""
        self.link = ""
        """Where this process takes relayed clients (:mod:`hearts.server.relay`; empty: nowhere)."""
        self.links: dict[str, str] = {}
        """Where each other process takes relayed clients, as its alive notices said."""

    def alive(self, process: str, now: float | None = None, link: str | None = None) -> None:
        """``process`` was heard of (at ``now``, a :func:`time.monotonic` reading), saying
        where it takes relayed clients (``link``; ``None``: not said)."""
        if process != self.process and process not in self._gone:
            self._seen[process] = time.monotonic() if now is None else now
            if link:
                self.links[process] = link
            elif link is not None:
                self.links.pop(process, None)

    def heard(self, notice: PresenceNotice, now: float | None = None) -> bool:
        """Take another process's presence at a table; whether that changed what it shows
        (this process's own notices change nothing)."""
        if notice.process == self.process:
            return False
        self.alive(notice.process, now)
        entry = (tuple(sorted(set(notice.online))), notice.spectators)
        procs = self._tables.setdefault(notice.table_id, {})
        before = procs.pop(notice.process, None)
        if entry != ((), 0):
            procs[notice.process] = entry
        elif not procs:
            del self._tables[notice.table_id]
        return before != procs.get(notice.process)

    def _present(self, table_id: str, now: float | None) -> list[tuple[tuple[int, ...], int]]:
        procs = self._tables.get(table_id)
        if not procs:
            return []
        alive = self._alive(now)
        return [entry for p, entry in procs.items() if p in alive]

    def _alive(self, now: float | None) -> set[str]:
        """The processes heard of in the last ``3 * ALIVE_EVERY`` seconds."""
        since = (time.monotonic() if now is None else now) - 3 * ALIVE_EVERY
        return {p for p, seen in self._seen.items() if seen >= since}

    def at(self, table_id: str, now: float | None = None) -> tuple[list[int], int]:
        """The seats with a client at another process, and the spectators there."""
        present = self._present(table_id, now)
        if not present:
            return [], 0
        return sorted({seat for seats, _ in present for seat in seats}), sum(count for _, count in present)

    def tables(self, now: float | None = None) -> list[str]:
        """The tables with a client (seated or watching) at another process.

        >>> roster = Roster("me")
        >>> _ = roster.heard(PresenceNotice("t1", "other", [], 1), now=0.0)
        >>> roster.tables(now=1.0), roster.tables(now=100.0)
        (['t1'], [])
        """
        alive = self._alive(now)
        return [table_id for table_id, procs in self._tables.items() if not alive.isdisjoint(procs)]

    def gone(self, process: str) -> None:
        """``process`` said it is stopping: no longer one of the :meth:`peers`, whatever it
        sends from then on (its presence is forgotten at the next :meth:`forget_gone`)."""
        if process != self.process:
            self._gone.add(process)
            self._seen[process] = float("-inf")

    def peers(self, now: float | None = None) -> list[str]:
        """The other server processes heard of in the last ``3 * ALIVE_EVERY`` seconds (those
        a stopping process may hand its tables to), in a fixed order.

        >>> roster = Roster("me")
        >>> roster.alive("b", now=0.0); roster.alive("a", now=5.0)
        >>> roster.peers(now=6.0), roster.peers(now=31.0)  # (not heard of for 30 s: gone)
        (['a', 'b'], ['a'])
        >>> roster.gone("a"); roster.alive("a", now=7.0)  # (said it stops: what it sends after counts for nothing)
        >>> roster.peers(now=8.0)
        ['b']
        """
        return sorted(self._alive(now))

    def forget_gone(self, now: float | None = None) -> list[str]:
        """Forget the processes not heard of for ``3 * ALIVE_EVERY`` seconds; the tables whose
        presence that changed."""
        gone = self._seen.keys() - self._alive(now)
        changed = []
        for table_id, procs in list(self._tables.items()):
            if gone & procs.keys():
                changed.append(table_id)
                for p in gone:
                    procs.pop(p, None)
                if not procs:
                    del self._tables[table_id]
        for p in gone:
            del self._seen[p]
            self.links.pop(p, None)
        return changed



class Presence:
    """One table's presence: who is connected through this process and the others, told to
    the clients and, when this process's own connections change, to the other processes."""

    def __init__(self, table: Table, roster: Roster) -> None:
        self.table = table
        self.roster = roster
        """Who is connected to the table through the other processes (the manager's)."""
        self._announced: tuple[tuple[int, ...], int] | None = ((), 0)
        """This process's presence at the table as last announced to the others (``None``: to
        announce again)."""
        self._announcer: asyncio.Task[None] | None = None

    def counts(self) -> tuple[list[int], int]:
        """The seats with a connected client, through any process (spectators are no seat),
        and how many spectators are connected."""
        seats, spectators = self.roster.at(self.table.id)
        online = set(seats)
        for c in self.table.conns:
            if not c.closed:
                if c.seat is not None:
                    online.add(c.seat)
                spectators += c.spectator
        return sorted(online), spectators

    def here(self) -> tuple[tuple[int, ...], int]:
        """This process's presence: the seats with a client here, and its spectators."""
        live = [c for c in self.table.conns if not c.closed]
        return tuple(sorted({c.seat for c in live if c.seat is not None})), sum(c.spectator for c in live)

    def tell(self, announce: bool = True) -> None:
        """Tell every client which seats are connected, and how many spectators; and, if this
        process's own connections changed (``announce``), the other processes."""
        if announce and self.here() != self._announced:
            self.announce()
        table = self.table
        online, spectators = self.counts()
        message = wire.encode(wire.Presence(
            online=online, names=[seat_name(s) for s in table.seats], spectators=spectators, away=table.away,
        ))
        for c in list(table.conns):
            c.push(message)

    def announce(self, again: bool = False) -> None:
        """Tell the other processes this process's presence at the table (a
        :class:`~hearts.server.storage.PresenceNotice`) if it changed since last told, or
        ``again`` (asked for by a process that begins serving the table) if there is any;
        one notice at a time, in order."""
        if again and self.here() != ((), 0):
            self._announced = None
        if self._announcer is None or self._announcer.done():
            self._announcer = self.table.spawn(self._announce())

    async def _announce(self) -> None:
        while (here := self.here()) != self._announced:
            self._announced = here
            await self.table.store.notify(PresenceNotice(self.table.id, self.roster.process, list(here[0]), here[1]))
