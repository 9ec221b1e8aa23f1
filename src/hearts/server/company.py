"""Safe company among strangers (issue 40, item 5): bans, mutes, blocks, reports and the chat
settings, as the service applies them; what is stored is ``store.players``'
(:class:`~hearts.server.storage.sql.SqlPlayers`: ``is_banned``, ``blocked_pairs``, ``mark``,
``hiding``, ``report``, ``ban``).

* **Ban** (``hearts admin ban PLAYER_ID``): a banned profile is refused — with ``banned``, a
  403 over HTTP, an ``error`` and the connection closed (1008) over a WebSocket — wherever it
  would act: a request with its key (:func:`hearts.server.players.optional_player`: making or
  joining a table, claiming a seat, the quick-match queue), a ``hello`` at a seat linked to it,
  a chat line. Each check reads the database, so a ban holds on every server process at once;
  and on PostgreSQL every process hears of it (``BanNotice``) and closes the profile's open
  connections at once (:func:`close_banned`).
* **Mute** (per profile, stored): the muted player's chat no longer reaches the muter, at any
  table, on any device. **Block**: the same both ways, and the two are never seated together —
  the matchmaker keeps blocked pairs apart (``blocked_pairs``), a listed table's open seat
  is refused to someone blocked by, or blocking, a profile seated there, and so is claiming an
  invited seat with one's profile (a seat opened by an invite link without a profile is the
  table creator's choice: no profile, no block to check), and a rematch of their table.
* **Chat off**: a table made with ``"chat": false`` has no chat (each line refused with
  ``chat_off``); a profile whose chat is off (``PATCH /api/me {"chat": false}``) reads no
  table's chat and writes none.
* **Report**: a player reports another seated at the table (a reason of 1 to 500
  characters), stored for the operator with a copy of the table's chat and record as they are
  (``hearts admin reports``).

Who hides a chat line from whom is decided when it is written (:func:`hidden_seats`) and
travels with it (``ChatNotice.hidden``), so every process shows it to the same seats.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from hearts.server.limits import CLOSE_POLICY, Refused
from hearts.server.logs import fields
from hearts.server.storage import SeatRow, Storage, StoreError
from hearts.server.wire import Company, Error, Mark, Report, Reported, encode

if TYPE_CHECKING:
    from hearts.server.tables.manager import Manager

log = logging.getLogger("hearts.server")

BANNED: Final = "this player profile is banned from this service"


class Banned(Refused):
    """A banned profile tried to act (HTTP 403; over a WebSocket the connection is closed)."""

    def __init__(self, reason: str = "") -> None:
        super().__init__(BANNED + (f": {reason}" if reason else ""), 403, "banned", CLOSE_POLICY)


class Blocked(Refused):
    """A seat refused because someone at the table blocked the person, or was blocked by them
    (HTTP 403, ``blocked``); whom is not said."""

    def __init__(self, message: str = "you cannot sit at this table: a player there blocked you, or you blocked them") -> None:
        super().__init__(message, 403, "blocked")


class ChatOff(Refused):
    """A chat line at a table without chat, or from a profile whose chat is off."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 403, "chat_off")


async def check_not_banned(store: Storage, player_id: str | None) -> None:
    """:class:`Banned` if ``player_id`` is a banned profile (``None``: no profile, no check)."""
    if player_id is not None and await store.players.is_banned(player_id):
        raise Banned()


async def seat_player(store: Storage, table_id: str, seat: int) -> str | None:
    """The profile seated at ``seat`` as the database has it now (a seat linked after its
    client connected included), or ``None``."""
    return next((s.player_id for s in await store.log.seats(table_id) if s.seat == seat), None)


async def check_seating(store: Storage, player_id: str | None, seats: Sequence[SeatRow]) -> None:
    """:class:`Blocked` if ``player_id`` and a profile of another of ``seats`` form a blocked
    pair (a listed table's open seat, an invited seat claimed)."""
    if player_id is None:
        return
    others = {s.player_id for s in seats if s.player_id is not None and s.player_id != player_id}
    if others and any(player_id in pair for pair in await store.players.blocked_pairs({player_id, *others})):
        raise Blocked()


async def check_rematch(store: Storage, table_id: str) -> None:
    """:class:`Blocked` if a rematch of the table would seat a blocked pair again (its
    profiles are linked to the rematch's seats as they were)."""
    people = {s.player_id for s in await store.log.seats(table_id) if s.player_id is not None}
    if len(people) > 1 and await store.players.blocked_pairs(people):
        raise Blocked("no rematch: a player at this table blocked another")


async def hidden_seats(store: Storage, seats: Sequence[SeatRow], speaker: int) -> list[int]:
    """The seats not to be shown a chat line of ``speaker``: their profiles muted or blocked
    the speaker's, were blocked by it, or turned their chat off."""
    by_player: dict[str, list[int]] = {}
    for s in seats:
        if s.player_id is not None and s.seat != speaker:
            by_player.setdefault(s.player_id, []).append(s.seat)
    writer = seats[speaker].player_id if 0 <= speaker < len(seats) else None
    if not by_player:
        return []
    if writer is None:
        hiding = await store.players.hiding("", list(by_player))  # (only those whose chat is off)
    else:
        hiding = await store.players.hiding(writer, list(by_player))
    return sorted(seat for p in hiding for seat in by_player[p])



async def hidden_writers(store: Storage, seats: Sequence[SeatRow], viewer: int) -> set[int] | None:
    """The seats whose chat lines ``viewer``'s profile does not read (it muted or blocked
    theirs, or was blocked by it); ``None``: it reads no chat at all (its chat is off)."""
    return await seats_hidden_from(store, seats, seats[viewer].player_id if 0 <= viewer < len(seats) else None)


async def seats_hidden_from(store: Storage, seats: Sequence[SeatRow], me: str | None) -> set[int] | None:
    """The seats whose chat lines the profile ``me`` (a seat's, or a spectator's) does not
    read; ``None``: it reads no chat at all."""
    if me is None:
        return set()
    if not await store.players.chat_on(me):
        return None
    hidden = set()
    for s in seats:
        if s.player_id is not None and s.player_id != me and await store.players.hiding(s.player_id, [me]):
            hidden.add(s.seat)
    return hidden


class NoProfile(Refused):
    """A mark or report that names no profile: the connection's seat is no profile's, or the
    seat named is empty, a bot's, or of a person without a profile."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 400, "no_profile")


async def company_message(store: Storage, seats: Sequence[SeatRow], seat: int) -> str:
    """The ``company`` message of ``seat``: the seats whose profiles its profile muted and
    blocked, and whether its chat is on."""
    me = seats[seat].player_id if 0 <= seat < len(seats) else None
    if me is None:
        return encode(Company(muted=[], blocked=[], chat=True))
    marks = await store.players.marks(me)
    return encode(Company(
        muted=[s.seat for s in seats if s.player_id in marks.muted],
        blocked=[s.seat for s in seats if s.player_id in marks.blocked],
        chat=await store.players.chat_on(me),
    ))


async def take(store: Storage, table_id: str, seat: int, message: Mark | Report) -> str:
    """A seat's ``mark`` or ``report`` of the profile at ``message.seat``: stored, and the
    answer (``company`` or ``reported``); :class:`NoProfile` if either seat has no profile
    (nothing changes)."""
    seats = await store.log.seats(table_id)
    me = seats[seat].player_id
    if me is None:
        raise NoProfile("make a player profile first: mutes, blocks and reports are your profile's")
    if not 0 <= message.seat < len(seats):
        raise NoProfile(f"no seat {message.seat + 1} at this table")
    other = seats[message.seat].player_id
    if message.seat == seat:
        raise NoProfile("you cannot mute, block or report yourself")
    if other is None:
        raise NoProfile(f"Seat {message.seat + 1} is no player profile's: there is no player to "
                        f"{'report' if isinstance(message, Report) else message.kind}")
    await check_not_banned(store, me)
    if isinstance(message, Report):
        await store.players.report(me, other, message.reason, table_id)
        log.info("reported", extra=fields(table=table_id, seat=seat, reported=message.seat))
        return encode(Reported(seat=message.seat))
    await store.players.mark(me, other, message.kind, message.on)
    return await company_message(store, seats, seat)


async def close_banned(manager: Manager, player_id: str) -> None:
    """A ban was announced (:class:`~hearts.server.storage.BanNotice`): every connection of
    this process at a seat of the profile, at the unfinished tables it holds, is told
    (``banned``) and closed (1008). A database that cannot be read leaves them (their next
    chat line or hello is refused anyway)."""
    store = manager.store
    try:
        played = {t.id for t in await store.players.played_tables(player_id) if not t.finished}
        held = [manager.tables[t] for t in played if t in manager.tables]
        for table in held:
            seats = {s.seat for s in await store.log.seats(table.id) if s.player_id == player_id}
            for conn in [c for c in table.conns if c.seat in seats]:
                conn.push(encode(Error(code="banned", message=BANNED, seq=table.seq)))
                conn.close(CLOSE_POLICY, BANNED)
    except StoreError as e:
        log.warning("a ban's connections could not be closed", extra=fields(error=str(e)[:300]))
