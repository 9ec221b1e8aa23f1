"""The tables one server process serves: created, joined, restored and rematched through
the store (:class:`Manager`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator
from typing import Any

from hearts.game import Game
from hearts.server.limits import (
    CLOSE_GOING_AWAY,
    DEFAULT_LIMITS,
    Limits,
    RateLimited,
    SlidingWindows,
    rate_item,
)
from hearts.server.logs import fields
from hearts.server.metrics import Metrics
from hearts.server.notices import AliveNotice, RematchNotice, SeatNotice
from hearts.server.protocol import STAND_IN, JoinRequest, TableRequest, listed_by_default
from hearts.server.storage import (
    SeatConflict,
    SeatRow,
    Storage,
    TableExists,
    hash_token,
    load_game,
    new_id,
)
from hearts.server.tables.bots import thinking_for
from hearts.server.tables.clocks import clocks_for
from hearts.server.tables.commands import TakeSeat
from hearts.server.tables.connection import Connection
from hearts.server.tables.errors import TableError
from hearts.server.tables.names import TABLE_ID, bot_names, rematch_id, seat_name
from hearts.server.tables.notices import ServiceNotices
from hearts.server.tables.ownership import Hand, Ownership
from hearts.server.tables.presence import Roster
from hearts.server.tables.table import Table

log = logging.getLogger("hearts.server")


class Manager:
    """Every table this process serves, created, joined and restored through the store, within
    the server's :class:`~hearts.server.limits.Limits` (tables at once, all-bot tables); its
    :class:`~hearts.server.tables.notices.ServiceNotices` keep them up with what other
    processes log.

    Use it inside the event loop: ``await manager.start()`` (restores the unfinished tables,
    follows the notices), ``await manager.shutdown()``.
    """

    def __init__(
        self,
        store: Storage,
        bot_delay: float = 0.7,
        bot_workers: int | None = None,
        *,
        limits: Limits = DEFAULT_LIMITS,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.limits = limits
        self.metrics = metrics or Metrics()
        self.thinking = thinking_for(store, bot_workers, self.metrics)
        """Where the bots think: in this process (SQLite), or as jobs (PostgreSQL)."""
        self.tables: dict[str, Table] = {}
        self.owners: dict[str, str] = {}
        """The address that made each all-bot table (of this process: not stored)."""
        self.loading: dict[str, list[SeatNotice]] = {}
        """The notices heard for each table being loaded (applied once it is)."""
        self.visits: dict[str, int] = {}
        """The clients of this process at each table, seated or not yet (:meth:`visit`)."""
        self._load_lock = asyncio.Lock()
        self.roster = Roster()
        """Who is connected to each table through the other processes of the service."""
        self.notices = ServiceNotices(self)
        self.ownership = Ownership(self)
        """The tables this process owns, through their leases (SQLite: a cluster of one)."""
        self.chat_rate = rate_item(limits.chat_rate)
        self.chats = SlidingWindows(self.chat_rate.amount, self.chat_rate.get_expiry())
        """The chat messages each seat sent through this process (``"table/seat"``: all of its
        connections together), in a sliding window of ``limits.chat_rate``."""


    async def start(self) -> int:
        """Listen to the store's notices, restore every unfinished table (SQLite: this process
        serves them all), then follow the notices (in a task). Returns how many tables were
        restored. On PostgreSQL a starting process loads none: it is ready at once, its sweep
        takes the tables in play whose owner is gone, a few at a time, and an idle table is
        taken by the process its client opens it at."""
        await self.notices.listen()
        restored = await self.restore_all() if self.store.one_process else 0
        self.notices.follow()
        self.ownership.start()
        return restored


    async def drain(self, hand: Hand) -> int:
        """Hand every unfinished table this process owns to the live server processes (each
        by ``hand``, over a link), and take no more (PostgreSQL; :meth:`Ownership.drain
        <hearts.server.tables.ownership.Ownership.drain>`); how many were handed (0 with no
        live peer)."""
        with contextlib.suppress(Exception):  # (the others hand this process no more tables)
            await self.store.notify(AliveNotice(self.roster.process, gone=True))
        peers = self.roster.peers()
        return await self.ownership.drain(peers, hand) if peers else 0

    async def restore_all(self) -> int:
        """Load every unfinished table by replaying its log and take the ones nobody owns (the
        others' are let go again); start their bots. Returns how many were loaded."""
        count = 0
        for table_id in await self.store.log.unfinished():
            try:
                if await self.get(table_id) is not None:
                    count += 1
                    self.forget_unused(table_id)  # (owned by another process)
            except Exception:
                log.exception("a table could not be restored", extra=fields(table=table_id))
        return count

    async def get(self, table_id: str) -> Table | None:
        """A table in memory (caught up with its log first, if another process owns it: no
        action is announced), or loaded from the store (:func:`~hearts.server.storage.load_game`:
        its log replayed, as a record is; a log that does not replay raises
        :class:`~hearts.errors.RecordError`) and started."""
        table = self.tables.get(table_id)
        if table is not None and not table.owned and not table.game.is_over:
            await table.follower.resync()
        if table is not None or not TABLE_ID.fullmatch(table_id):
            return table
        async with self._load_lock:
            table = self.tables.get(table_id)
            if table is not None:
                return table
            self.loading[table_id] = []
            try:
                stored = await load_game(self.store, table_id)
            finally:
                heard = self.loading.pop(table_id)
            if stored is None:
                return None
            table = await self._open(table_id, stored.game, stored.seats, stored.row.config)
        if heard:  # (a seat changed while it loaded)
            table.follower.seats_changed()
        return table

    async def _open(
        self, table_id: str, game: Game, seats: list[SeatRow], config: dict[str, Any], claim: bool = True
    ) -> Table:
        """Serve a table (``config``: its stored settings): keep it in memory and start it;
        with ``claim``, own it unless another process does (a table of people only is made
        without: the first process its clients reach claims it, so it needs no hand-over)."""
        listed = bool(config.get("listed", listed_by_default(s.kind for s in seats)))
        turn_timer, pass_timer = clocks_for(int(config.get("turn_timer", 0)), listed or bool(config.get("quick")), self.limits)
        pace = config.get("bot_pace")  # the creator's, held within the limits when the table was made
        table = Table(
            table_id, game, seats, self.store, bot_delay=self.bot_delay if pace is None else float(pace), thinking=self.thinking,
            spectators=bool(config.get("spectators", True)), max_spectators=self.limits.max_spectators,
            listed=listed, turn_timer=turn_timer, pass_timer=pass_timer, missed_turns=self.limits.missed_turns,
            stand_in=str(config.get("stand_in", STAND_IN)),
            rated=bool(config.get("rated", False)), chat=bool(config.get("chat", True)),
            metrics=self.metrics, roster=self.roster,
            ownership=self.ownership,
        )
        self.tables[table_id] = table
        if claim and not game.is_over:
            await self.ownership.take(table)  # unless another process owns it
        await table.start()
        await self.notices.ask([table_id])
        return table

    @contextlib.asynccontextmanager
    async def visit(self, table_id: str) -> AsyncIterator[Table | None]:
        """The table a client of this process opens (:meth:`get`; ``None``: there is none),
        kept in memory while the client is here, from before it says hello: a copy let go
        meanwhile would follow no notices, and a lease handed to this process for it would
        serve no bot's move sent here — the manager's copy would be another."""
        self.visits[table_id] = self.visits.get(table_id, 0) + 1
        try:
            yield await self.get(table_id)
        finally:
            self.visits[table_id] -= 1
            if not self.visits[table_id]:
                del self.visits[table_id]

    def unfinished(self) -> list[Table]:
        """The tables in memory whose game is not over."""
        return [t for t in self.tables.values() if not t.game.is_over]

    async def create(
        self, request: TableRequest, owner: str = "local", creator_hash: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> tuple[Table, dict[int, str]]:
        """A new table from a checked lobby request, made from the address ``owner``; returns
        it and the secret token of each human seat. ``creator_hash``: the hash of the creator's
        key (:func:`~hearts.server.storage.hash_token`), kept in the table's stored
        settings: whoever shows the key may give a seat a new invite link (:meth:`new_invite`);
        ``extra``: more stored settings (a quick match's ``{"quick": true, "preset": ...}``). Raises
        :class:`~hearts.server.limits.RateLimited` when the service has its maximum of tables,
        or this process its maximum of all-bot tables (overall, or made from ``owner``)."""
        self._forget_finished()
        limits = self.limits
        await self._room()
        if request.all_bots:
            bot_tables = [t.id for t in self.unfinished() if t.all_bots]
            if len(bot_tables) >= limits.max_bot_tables:
                raise RateLimited(f"the server runs its maximum of {limits.max_bot_tables} all-bot tables; "
                                  "try again later, or take a seat yourself", 60, status=503)
            if sum(self.owners.get(t) == owner for t in bot_tables) >= limits.bot_tables_per_address:
                raise RateLimited(f"your address runs its maximum of {limits.bot_tables_per_address} all-bot "
                                  "tables; wait until one is over, or take a seat yourself", 60)
        seats: list[SeatRow] = []
        tokens: dict[int, str] = {}
        seed = secrets.randbits(48)
        unnamed_bots = [s for s in request.seats if s.kind == "bot" and not s.name]
        names = iter(bot_names(seed, len(unnamed_bots), [s.name for s in request.seats if s.name]))
        for i, spec in enumerate(request.seats):
            if spec.kind == "bot":
                seats.append(SeatRow(i, "bot", spec.name or next(names), spec.level, None))
            elif spec.kind == "human":
                token = secrets.token_urlsafe(18)
                tokens[i] = token
                seats.append(SeatRow(i, "human", spec.name, None, hash_token(token)))  # no name: asked (unnamed)
            else:
                seats.append(SeatRow(i, "open", "", None, None))
        table_id = new_id(6)
        config = {
            "rules": request.rules.to_dict(), "bot_delay": self.bot_delay, "spectators": request.spectators,
            "listed": request.listed, "turn_timer": request.turn_timer, "stand_in": request.stand_in,
            "rated": request.rated, "chat": request.chat,
        }
        if request.bot_pace is not None:  # (the bot workers read bot_delay; a restart keeps bot_pace)
            config.update(bot_delay=request.bot_pace, bot_pace=request.bot_pace)
        if creator_hash is not None:
            config["creator_hash"] = creator_hash
        config.update(extra or {})
        await self.store.log.create_table(table_id, config, seed, [(s.kind, s.name, s.bot, s.token_hash) for s in seats])
        if request.all_bots:
            self.owners[table_id] = owner
        log.info("table created", extra=fields(
            table=table_id, seats=[s.kind for s in seats], listed=request.listed, turn_timer=request.turn_timer
        ))
        bots = any(s.kind == "bot" for s in seats)  # (their moves need an owner at once)
        return await self._open(table_id, Game(request.rules, seed), seats, config, claim=bots), tokens

    async def _room(self) -> None:
        """Raise :class:`~hearts.server.limits.RateLimited` (503) when the service has its
        maximum of unfinished tables."""
        if len(await self.store.log.unfinished()) >= self.limits.max_tables:
            raise RateLimited(f"the server has its maximum of {self.limits.max_tables} open tables; try again later",
                              60, status=503)

    async def rematch(self, table: Table, conn: Connection) -> None:
        """A new table for a finished one, asked for by ``conn``'s seat: the same seats (each
        person's with the same token hash, so each browser's token opens its seat there
        too; no token is sent anywhere), names, bots, rules and options, and a new seed. One
        per finished table: its id is :func:`rematch_id`, so of two requests (through any
        processes) the store lets one create it. Every client of the old table is told
        (a :class:`~hearts.server.storage.RematchNotice`, through every process); a second
        request is answered with the same rematch. :class:`TableError` (``not_over``,
        ``not_seated``) if it cannot be asked for."""
        seat = conn.seat
        if seat is None:
            raise TableError("only the players ask for a rematch; spectators are told of it", code="not_seated")
        if not table.game.is_over:
            raise TableError("a rematch is for a finished game: play this one to the end first", code="not_over")
        new_id = rematch_id(table.id)
        row = await self.store.log.table(table.id)
        if row is None:
            raise TableError(f"there is no table {table.id!r}", 404, "no_table")
        config = {**row.config, "rematch_of": table.id, "rematch_by": seat}
        seats = [SeatRow(s.seat, s.kind, s.name if s.kind != "open" else "", s.bot, s.token_hash, player_id=s.player_id)
                 for s in await self.store.log.seats(table.id)]  # as stored: with their profiles
        seed = secrets.randbits(48)
        await self._room()
        try:
            await self.store.log.create_table(new_id, config, seed, [(s.kind, s.name, s.bot, s.token_hash) for s in seats])
        except TableExists:  # asked for already (here or through another process): the same one
            stored = await self.store.log.table(new_id)
            by = seat if stored is None else int(stored.config.get("rematch_by", seat))
            conn.push(table.talk.rematch_message(RematchNotice(table.id, new_id, by)))
            return
        for s in seats:  # each person plays the rematch as the same profile (ratings, my games)
            if s.player_id is not None:
                await self.store.players.link_seat(new_id, s.seat, s.player_id)
        log.info("rematch", extra=fields(table=new_id, rematch_of=table.id, seat=seat))
        await self._open(new_id, Game(table.rules, seed), seats, config)
        await self.store.notify(RematchNotice(table.id, new_id, seat))

    def forget_unused(self, table_id: str) -> None:
        """Keep no copy of a table that another process owns and no client here looks at or
        opens (its notices are then not followed; a client that comes loads it again from the
        store)."""
        table = self.tables.get(table_id)
        if table is not None and not table.owned and not table.conns and table_id not in self.visits:
            del self.tables[table_id]
            table.clocks.stop()

    def _forget_finished(self) -> None:
        """Let finished tables nobody watches go from memory (the store keeps them)."""
        for table_id in [i for i, t in self.tables.items() if t.game.is_over and not t.conns]:
            self.tables.pop(table_id).stop()
            self.owners.pop(table_id, None)
            self.ownership.lose(table_id)

    async def join(self, table_id: str, request: JoinRequest) -> tuple[int, str]:
        """Take a free (open) seat; returns the seat and its new secret token. Of two requests
        for one seat (through any processes), the store lets one take it; the other is
        refused (409)."""
        table = await self.get(table_id)
        if table is None:
            raise TableError(f"there is no table {table_id!r}", 404)
        free = [s.seat for s in table.seats if s.kind == "open"]
        seat = free[0] if request.seat is None and free else request.seat
        if seat is None:
            raise TableError("no seat is free at this table", 409)
        if not 0 <= seat < len(table.seats):
            raise TableError(f"Seat {seat + 1} does not exist at this table")
        if seat not in free:
            raise TableError(f"Seat {seat + 1} is not free", 409)
        if request.name and request.name.casefold() in {seat_name(s).casefold() for s in table.seats}:
            raise TableError(f"“{request.name}” is another player's name at this table: choose another", 409, "name_taken")
        token = secrets.token_urlsafe(18)
        name, token_hash = request.name, hash_token(token)  # no name: asked (unnamed)
        try:
            await self.store.log.update_seat(table_id, seat, "human", name, token_hash, was="open")
        except SeatConflict:
            raise TableError(f"Seat {seat + 1} is not free", 409) from None

        await table.mailbox.run(TakeSeat(seat, name, token_hash))
        log.info("seat taken", extra=fields(table=table_id, seat=seat))
        return seat, token

    async def new_invite(self, table_id: str, seat: int, creator_key: str) -> str:
        """Free a person's seat for someone else, asked by the table's creator (``creator_key``:
        the key :meth:`create` was given the hash of): the seat gets a new secret token,
        returned, and no name (its next person is asked for one); the old token opens nothing
        any more, and the connections that hold the seat through any process are closed,
        saying why. :class:`TableError` (403: not the creator; 404, 400, 409: no such table,
        seat, or not a person's seat of an unfinished unrated game) if not; nothing changes."""
        table = await self.get(table_id)
        row = await self.store.log.table(table_id)
        if table is None or row is None:
            raise TableError(f"there is no table {table_id!r}", 404, "no_table")
        kept = row.config.get("creator_hash")
        if not isinstance(kept, str) or not secrets.compare_digest(kept, hash_token(creator_key)):
            raise TableError("only the table's creator can free a seat (from the browser that made the table)",
                             403, "not_creator")
        if not 0 <= seat < len(table.seats):
            raise TableError(f"Seat {seat + 1} does not exist at this table", 400, "bad_request")
        if table.seats[seat].kind != "human":
            raise TableError(f"Seat {seat + 1} is not a person's: only a person's seat gets an invite link", 409, "not_human")
        if table.game.is_over:
            raise TableError("the game is over: its seats stay as they were", 409, "game_over")
        if row.config.get("rated"):
            raise TableError("a rated table's seats are its players' profiles: they cannot be given away", 409, "rated")
        token = secrets.token_urlsafe(18)
        await self.store.log.update_seat(table_id, seat, "human", None, hash_token(token), was="human")
        await table.follower.refresh_seats()
        log.info("seat freed", extra=fields(table=table_id, seat=seat))
        return token

    async def open_tables(self) -> list[dict[str, Any]]:
        """The unfinished tables listed in the lobby (by the store: those with a free seat
        first, then the newest; at most ``limits.lobby_size``)."""
        out = []
        for listed in await self.store.log.listing(self.limits.lobby_size):
            table = await self.get(listed.id)
            if table is not None and not table.game.is_over:
                out.append(table.lobby_entry())
        return out

    # --- the notices ----------------------------------------------------------------------


    async def shutdown(self) -> None:
        """Stop following the notices, tell the others this process's clients are gone, stop
        every table and close its connections."""
        await self.notices.stop()
        await self.ownership.stop()
        for t in self.tables.values():
            t.stop()
            for c in list(t.conns):
                c.kill(CLOSE_GOING_AWAY, "the server is shutting down")
        self.thinking.shutdown()
