"""A bot's seat at a quick table that has just started, taken by a person who asks for the
same rules (issue 40): the matchmaker (:class:`~hearts.server.quick.Matchmaker`) offers it to
those it could not seat at a table of their own, between rounds — before the round's first card
is played, its passes made or not — at a table in its first :data:`JUST_STARTED` rounds. The
seat becomes the person's (a new token, their profile linked) through the store, so every
process sees it (a :class:`~hearts.server.storage.SeatNotice`); the seat's score is the
seat's, the bot's so far. Never a seat next to someone either of them blocked, never a second
seat at one table, never at a rated table for an unrated queue (nor the reverse).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import sqlalchemy as sa

from hearts.actions import Play
from hearts.game import Game
from hearts.server.storage import SeatConflict, hash_token
from hearts.server.storage.quick import QueueRow, Seating
from hearts.server.storage.schema import seats, tables

if TYPE_CHECKING:
    from hearts.server.quick import Matchmaker

JUST_STARTED: Final = 2
"""The rounds a quick table has "just started" for: a bot's seat is taken in its first two."""
CANDIDATES: Final = 20
"""The newest quick tables with a bot looked at in a round of matchmaking."""


def before_first_card(game: Game) -> bool:
    """Whether no card of the round being played is on the table yet (between rounds: its
    passes may be made), in a game just started (:data:`JUST_STARTED`).

    >>> from hearts.rules import Rules
    >>> before_first_card(Game(Rules(), seed=1))
    True
    """
    if game.is_over or len(game.round_starts) > JUST_STARTED:
        return False
    return not any(isinstance(a, Play) for a in game.history[game.round_starts[-1]:])


async def quick_tables_with_bots(matchmaker: Matchmaker) -> list[tuple[str, dict[str, Any]]]:
    """The newest unfinished quick tables that seat a bot: their ids and settings."""
    has_bot = sa.exists().where(seats.c.table_id == tables.c.id, seats.c.kind == "bot")
    query = sa.select(tables.c.id, tables.c.config).where(
        ~tables.c.finished, tables.c.config["quick"].as_boolean(), has_bot,
    ).order_by(tables.c.created.desc()).limit(CANDIDATES)
    async with matchmaker.queue.db.connect() as conn:
        return [(str(i), dict(c)) for i, c in await conn.execute(query)]


async def take_bot_seats(matchmaker: Matchmaker, rows: Sequence[QueueRow]) -> list[Seating]:
    """Seat whom of ``rows`` (the people not seated otherwise, oldest first) a bot's seat of
    their rules awaits; where."""
    if not rows:
        return []
    found = await quick_tables_with_bots(matchmaker)
    out = []
    for row in rows:
        for table_id, config in found:
            preset = str(config.get("preset", ""))
            if row.preset not in (preset, "any") or bool(config.get("rated")) != row.rated:
                continue
            seating = await _take(matchmaker, row, table_id, preset)
            if seating is not None:
                out.append(seating)
                break
    return out


async def _take(matchmaker: Matchmaker, row: QueueRow, table_id: str, preset: str) -> Seating | None:
    """Give ``row``'s person a bot's seat at the table, if it is between rounds and they may
    sit there."""
    manager = matchmaker.manager
    table = await manager.get(table_id)
    if table is None or not before_first_card(table.game):
        return None
    stored = await manager.store.log.seats(table_id)
    people = [s.player_id for s in stored if s.player_id is not None]
    bots = [s.seat for s in stored if s.kind == "bot"]
    if not bots or row.player_id in people:
        return None
    if any(row.player_id in pair for pair in await manager.store.players.blocked_pairs([row.player_id, *people])):
        return None
    names = {(s.name or "").casefold() for s in stored}
    name = row.name if row.name.casefold() not in names else None  # (taken: asked at the table)
    token = secrets.token_urlsafe(18)
    try:
        await manager.store.log.update_seat(table_id, bots[0], "human", name, hash_token(token), was="bot")
    except SeatConflict:
        return None
    await manager.store.players.link_seat(table_id, bots[0], row.player_id)
    await table.follower.refresh_seats()
    return Seating(row.player_id, table_id, bots[0], token, len(bots) - 1, preset, took_seat=True)
