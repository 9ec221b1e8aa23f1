"""The table talk: chat, a seat's name, hints asked for, and the rematch — told to every
client of every process through the store's notices (:class:`~hearts.server.notices.TalkNotice`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from hearts.server.company import ChatOff, check_not_banned, company_message, hidden_seats, hidden_writers
from hearts.server.logs import fields
from hearts.server.notices import ChatNotice, RematchNotice
from hearts.server.outage import is_outage
from hearts.server.tables.commands import NameSeat
from hearts.server.tables.errors import TableError
from hearts.server.tables.messages import chat_message
from hearts.server.tables.names import rematch_id, seat_name
from hearts.server.wire import Chat, HintRequest, RematchOffer, Rename, encode

if TYPE_CHECKING:
    from hearts.server.tables.connection import Connection
    from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")


class Talk:
    """One table's talk, and its rematch once one was asked for (as this process heard of it)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.rematch: RematchNotice | None = None
        """This finished table's rematch, once one was asked for."""

    async def take(self, conn: Connection, message: Chat | Rename | HintRequest) -> None:
        """A seat's chat message, name or hint request (:mod:`hearts.server.protocol`); raises
        :class:`~hearts.server.tables.errors.TableError` for one that is refused (nothing
        changes). A spectator reads the chat but writes nothing."""
        table = self.table
        seat = conn.seat
        if seat is None:
            raise TableError("spectators read the chat; only the players write, choose names and ask for hints",
                             code="not_seated")
        if isinstance(message, Chat):
            hidden = await self.may_chat(seat)
            await table.store.talk.add_chat(table.id, seat, message.text, hidden)  # its notice brings it to all
        elif isinstance(message, Rename):
            await self.rename(seat, message.name)
        else:
            await table.hints.ask(conn, seat, message.seq)

    async def may_chat(self, seat: int) -> list[int]:
        """Check that ``seat`` may write to the chat now (:mod:`hearts.server.company`: not a
        banned profile's, a table with chat, a profile whose chat is on), and the seats not to
        be shown its line; raises :class:`~hearts.server.limits.Refused` if it may not."""
        store, table_id = self.table.store, self.table.id
        seats = await store.log.seats(table_id)
        writer = seats[seat].player_id
        await check_not_banned(store, writer)
        if not self.table.chat:
            raise ChatOff("this table has no chat")
        if writer is not None and not await store.players.chat_on(writer):
            raise ChatOff("your chat is off: turn it on in your settings to talk")
        return await hidden_seats(store, seats, seat)

    async def send_history(self, conn: Connection) -> None:
        """What a client gets after its welcome: the last 50 chat messages (but those its
        seat's profile does not read: :func:`~hearts.server.company.hidden_writers`; a
        spectator's: :meth:`Connection.reads`) and, at a finished
        table, its rematch if there is one. During a database outage the client gets neither
        (the connection stays open; the next messages arrive as they come)."""
        table = self.table
        try:
            lines = await table.store.talk.chat(table.id, 50)
            seats = await table.store.log.seats(table.id) if conn.seat is not None else []
            if conn.seat is not None:
                hidden = await hidden_writers(table.store, seats, conn.seat)
                lines = [] if hidden is None else [line for line in lines if line.seat not in hidden]
            else:
                lines = [line for line in lines if conn.reads(line.seat)]
            conn.push(chat_message(lines, history=True))
            if conn.seat is not None:
                conn.push(await company_message(table.store, seats, conn.seat))
            if table.game.is_over and self.rematch is None:
                stored = await table.store.log.table(rematch_id(table.id))
                if stored is not None:
                    self.rematch = RematchNotice(table.id, rematch_id(table.id), int(stored.config.get("rematch_by", 0)))
        except Exception as e:
            if not is_outage(e):
                raise
            log.warning("the chat history could not be read", extra=fields(table=table.id, error=str(e)))
        if self.rematch is not None:
            conn.push(self.rematch_message(self.rematch))

    def hear(self, notice: ChatNotice | RematchNotice) -> None:
        """A notice of the table talk (from any process): a chat line for every client, a
        rematch for every client."""
        table = self.table
        if isinstance(notice, ChatNotice):
            message = chat_message([notice.line])
            for c in list(table.conns):  # (not to those who muted or blocked the writer, or whose chat is off)
                if c.seat not in notice.hidden if c.seat is not None else c.reads(notice.line.seat):
                    c.push(message)
        else:
            self.rematch = notice
            for c in list(table.conns):
                c.push(self.rematch_message(notice))

    def rematch_message(self, notice: RematchNotice) -> str:
        """The ``rematch`` message: the new table's id, and who asked for it."""
        name = seat_name(self.table.seats[notice.seat])
        return encode(RematchOffer(table=notice.rematch, by=notice.seat, name=name))

    async def rename(self, seat: int, name: str) -> None:
        """``seat``'s person takes the name ``name`` (checked by
        :func:`~hearts.server.protocol.check_name`), in the store and for every client of every
        process; until the game ends. :class:`~hearts.server.tables.errors.TableError`
        (``game_over``, ``name_taken``) if not."""
        table = self.table
        if table.game.is_over:
            raise TableError("the game is over: names stay as they were", code="game_over")
        taken = {seat_name(s).casefold() for s in table.seats if s.seat != seat and s.kind != "open"}
        if name.casefold() in taken:
            raise TableError(f"“{name}” is another player's name at this table: choose another", code="name_taken")
        row = table.seats[seat]
        await table.store.log.update_seat(table.id, seat, "human", name, row.token_hash, was="human")

        await table.mailbox.run(NameSeat(seat, name))
        log.info("named", extra=fields(table=table.id, seat=seat))
