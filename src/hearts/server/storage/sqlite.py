"""The SQLite backend of :class:`~hearts.server.storage.Storage`: the embedded default, for one
server process.

:class:`SQLiteStorage` is the async face of :class:`hearts.server.persistence.Store` (the
synchronous engine, which it calls directly on the event loop's thread, as the server always
has: a commit in WAL mode takes microseconds, and checkpoints run in a thread of their own).
Its notices are heard within the process: one SQLite database is served by one process, which
runs its tables' bots itself (no job queue: :attr:`~SQLiteStorage.jobs` is ``None``).

>>> import asyncio
>>> from hearts.actions import Play
>>> from hearts.server.persistence import Store
>>> async def demo() -> list[object]:
...     store = SQLiteStorage(Store(":memory:"))
...     listener = await store.listen()
...     await store.create_table("t1", {"rules": {}}, 7, [("open", None, None, None)])
...     await store.append("t1", 1, Play(0, "2C"))
...     heard = [await anext(listener)]
...     await store.close()
...     return heard + [notice async for notice in listener]
>>> asyncio.run(demo())
[ActionNotice(table_id='t1', seq=1, action={'type': 'play', 'seat': 0, 'card': '2C'}, by='person')]
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from hearts.actions import Action, to_dict
from hearts.server.persistence import Store
from hearts.server.storage import (
    ActionNotice,
    ChatLine,
    ChatNotice,
    NewSeat,
    Notice,
    PlayedTable,
    PlayerRow,
    QueueListener,
    ReviewClaim,
    ReviewRow,
    SeatNotice,
    SeatRow,
    StoreUnavailable,
    TableListing,
    TableRow,
)


class SQLiteStorage:
    """The tables in one SQLite file (see :mod:`hearts.server.persistence`), through the async
    :class:`~hearts.server.storage.Storage` API."""

    jobs = None
    """No bot job queue: the server process runs the bots."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._listeners: set[QueueListener] = set()

    @property
    def name(self) -> str:
        return self.store.path

    def _announce(self, notice: Notice) -> None:
        self._listeners = {listener for listener in self._listeners if not listener.closed}
        for listener in self._listeners:
            listener.put(notice)

    async def ping(self) -> None:
        try:
            self.store.table("-")  # a lookup by key: the file answers
        except sqlite3.Error as e:
            raise StoreUnavailable(f"the database {self.name} does not answer: {e}") from None

    async def create_table(
        self,
        table_id: str,
        config: dict[str, Any],
        seed: int,
        seats: Sequence[NewSeat],
        *,
        deals: Sequence[Sequence[str]] | None = None,
    ) -> None:
        self.store.create_table(table_id, config, seed, seats, deals=deals)

    async def update_seat(
        self, table_id: str, seat: int, kind: str, name: str | None, token_hash: str | None, *, was: str | None = None
    ) -> None:
        self.store.update_seat(table_id, seat, kind, name, token_hash, was=was)
        self._announce(SeatNotice(table_id, seat))

    async def set_away(self, table_id: str, seat: int, away: bool) -> bool:
        changed = self.store.set_away(table_id, seat, away)
        if changed:
            self._announce(SeatNotice(table_id, seat))
        return changed

    async def append(
        self, table_id: str, seq: int, action: Action, finished: bool = False, bots: Sequence[int] = (),
        *, by: str = "person",
    ) -> None:
        if bots:
            raise ValueError("a SQLite store has no bot jobs: its server process runs the bots")
        self.store.append(table_id, seq, action, finished)
        self._announce(ActionNotice(table_id, seq, to_dict(action), by))

    async def table(self, table_id: str) -> TableRow | None:
        return self.store.table(table_id)

    async def seats(self, table_id: str) -> list[SeatRow]:
        return self.store.seats(table_id)

    async def actions(self, table_id: str, after: int = 0) -> list[Any]:
        return self.store.actions(table_id, after)

    async def heads(self, table_ids: Sequence[str]) -> dict[str, int]:
        return self.store.heads(table_ids)

    async def unfinished(self) -> list[str]:
        return self.store.unfinished()

    async def listing(self, limit: int = 100) -> list[TableListing]:
        return self.store.listing(limit)

    async def review(self, table_id: str, seat: int) -> ReviewRow | None:
        return self.store.review(table_id, seat)

    async def queue_review(self, table_id: str, seat: int, budget: int, seed: int) -> ReviewRow:
        return self.store.queue_review(table_id, seat, budget, seed)

    async def pending_reviews(self) -> int:
        return self.store.pending_reviews()

    async def claim_review(self, worker: str, lease: float) -> ReviewClaim | None:
        return self.store.claim_review(worker, lease)

    async def review_progress(self, claim: ReviewClaim, done: int, total: int, lease: float) -> bool:
        return self.store.review_progress(claim, done, total, lease)

    async def finish_review(self, claim: ReviewClaim, review: str) -> bool:
        return self.store.finish_review(claim, review)

    async def fail_review(self, claim: ReviewClaim, error: str) -> bool:
        return self.store.fail_review(claim, error)

    async def release_review(self, claim: ReviewClaim) -> None:
        self.store.release_review(claim)

    async def create_player(self, player_id: str, name: str, key_hash: str, mu: float, sigma: float) -> None:
        self.store.create_player(player_id, name, key_hash, mu, sigma)

    async def player_by_key(self, key_hash: str) -> PlayerRow | None:
        return self.store.player_by_key(key_hash)

    async def rename_player(self, player_id: str, name: str) -> None:
        self.store.rename_player(player_id, name)

    async def link_seat(self, table_id: str, seat: int, player_id: str) -> None:
        self.store.link_seat(table_id, seat, player_id)

    async def played_tables(self, player_id: str, limit: int = 100) -> list[PlayedTable]:
        return self.store.played_tables(player_id, limit)

    async def rate_game(
        self, table_id: str, players: Sequence[str], rate: Callable[[list[PlayerRow]], list[tuple[float, float]]]
    ) -> bool:
        return self.store.rate_game(table_id, players, rate)

    async def unrated(self, limit: int = 100) -> list[str]:
        return self.store.unrated(limit)

    async def leaderboard(self, limit: int = 100) -> list[PlayerRow]:
        return self.store.leaderboard(limit)

    async def listen(self) -> QueueListener:
        listener = QueueListener()
        self._listeners.add(listener)
        return listener

    async def close(self) -> None:
        for listener in self._listeners:
            await listener.close()
        self.store.close()

    # --- table talk -------------------------------------------------------------------------

    async def notify(self, notice: Notice) -> None:
        self._announce(notice)

    async def add_chat(self, table_id: str, seat: int, text: str) -> ChatLine:
        line = self.store.add_chat(table_id, seat, text)
        self._announce(ChatNotice(table_id, line.id, line.seat, line.text))
        return line

    async def chat(self, table_id: str, limit: int = 50) -> list[ChatLine]:
        return self.store.chat(table_id, limit)
