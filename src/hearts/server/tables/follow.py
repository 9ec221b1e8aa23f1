"""Following a table's log: the actions another process logged (the table's last owner, or
its owner while this process keeps a copy), read from the log when the copy is read (no action
is announced); and the seats as stored (a seat taken, a person away or back, through any
process: a notice says so)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from hearts.errors import RecordError
from hearts.record import replay
from hearts.server.limits import CLOSE_POLICY
from hearts.server.logs import fields
from hearts.server.outage import Backoff
from hearts.server.protocol import error_message
from hearts.server.storage import StoreUnavailable, load_game
from hearts.server.tables.commands import CatchUp, ReadSeats
from hearts.server.tables.effects import NOTHING, Effects
from hearts.server.tables.messages import public_event

if TYPE_CHECKING:
    from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")


class Follower:
    """One table's follower of the log and of its seats as stored."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._awaiting_back: asyncio.Task[None] | None = None
        """The task of :meth:`resync_when_back`, while it waits."""

    def seats_changed(self) -> None:
        """A seat changed (a :class:`~hearts.server.notices.SeatNotice`), or a notice saying so
        may have been missed (the listener lost its connection): read the seats again, in the
        background (:meth:`refresh_seats`)."""
        self.table.spawn(self.refresh_seats())

    async def resync(self) -> None:
        """Catch up with the log, in the table's turn."""
        await self.table.mailbox.run(CatchUp())

    def resync_when_back(self) -> None:
        """:meth:`resync` once the database answers (polled with backoff, outside the table's
        turn: its other actions are answered meanwhile, "unavailable" during an outage). One
        waiter a table, however many of its actions failed meanwhile."""
        if self._awaiting_back is None or self._awaiting_back.done():
            self._awaiting_back = self.table.spawn(self._resync_when_back())

    async def _resync_when_back(self) -> None:
        for delay in Backoff(first=0.25, most=2.0).delays():
            try:
                await self.table.store.ping()
                break
            except StoreUnavailable:
                await asyncio.sleep(delay)
        await self.resync()

    async def catch_up(self) -> Effects:
        """Apply the actions logged after this table's ``seq`` (by other processes) and
        broadcast them (then the bots act if it is their turn); a log that does not follow this
        position reloads the game from the store. Call from inside the table's turn."""
        table = self.table
        try:
            logged = await table.store.log.actions(table.id, after=table.seq)
            for item in logged:
                replay(table.game, [item], start=table.seq + 1)
                table.moved_on(table.game.history[-1])  # (each broadcast as if accepted here)
            return Effects(kick=True) if logged else NOTHING
        except RecordError:
            log.exception("the log does not follow this table's position; reloading it", extra=fields(table=table.id))
            stored = await load_game(table.store, table.id)
            if stored is None:
                return NOTHING
            table.game, table.seats = stored.game, stored.seats
            table.last_event = public_event(table.game.history[-1], table.seq) if table.game.history else None
            return Effects(clocks=True, broadcast="resync")

    async def refresh_seats(self) -> None:
        """Read the seats from the store (a seat taken, a person away or back, through any
        process) and tell the clients what changed."""
        await self.table.mailbox.run(ReadSeats())

    async def read_seats(self) -> Effects:
        """Take the seats as stored, in the table's turn (:class:`ReadSeats`): the clocks
        start again, and the clients are told what changed (a seat away or back: who is there,
        and the bots act if it is their turn)."""
        table = self.table
        rows = await table.store.log.seats(table.id)
        if rows == table.seats:
            return NOTHING
        before, table.seats = table.seats, rows
        self._shut_out([s.seat for s in rows if before[s.seat].token_hash not in (None, s.token_hash)])
        renamed = [(s.kind, s.name) for s in before] != [(s.kind, s.name) for s in rows]
        away = [s.away for s in before] != [s.away for s in rows]
        return Effects(clocks=True, broadcast="table" if renamed else None, tell=away, kick=away)

    def _shut_out(self, seats: list[int]) -> None:
        """Close the connections that hold these seats by a token that no longer opens them
        (a new invite link replaced it), saying why (an error ``seat_freed``, then the close)."""
        table = self.table
        words = "the table's creator gave this seat a new invite link: your link no longer opens it"
        for conn in [c for c in table.conns if c.seat in seats]:
            table.conns.discard(conn)
            conn.push(error_message(words, "seat_freed", table.seq))
            conn.close(CLOSE_POLICY, words)
