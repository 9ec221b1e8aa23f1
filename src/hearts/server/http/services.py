"""What the HTTP handlers share (no routes): :class:`Services`, set on ``app.state.services``
when the app starts (:func:`hearts.server.app.create_app`'s lifespan, which opens the store and
makes the manager) and read by every handler through :func:`services`; and :func:`running`,
what the app does between start and stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import HTTPConnection

from hearts.server.limits import AddressGuard, Limits
from hearts.server.lobbyfeed import LobbyFeed
from hearts.server.logs import fields
from hearts.server.metrics import Metrics
from hearts.server.players import Outcomes
from hearts.server.protocol import LEVEL_NAMES
from hearts.server.quick import Matchmaker
from hearts.server.ratings import settle_pending
from hearts.server.relay import Relays, SoleRelays
from hearts.server.storage import Storage, StoreError
from hearts.server.tables import Manager, Table, TableError

log = logging.getLogger("hearts.server")


class Replays:
    """The replays of finished games this process made, the newest ``size`` (they cannot change)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._kept: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def get(self, table_id: str) -> dict[str, Any] | None:
        return self._kept.get(table_id)

    def keep(self, table_id: str, replay: dict[str, Any]) -> None:
        self._kept[table_id] = replay
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)


@dataclass(frozen=True)
class Services:
    """The objects the handlers of one app share, made when it starts."""

    manager: Manager
    """The tables this process holds (:class:`~hearts.server.tables.Manager`), and the store."""
    limits: Limits
    guard: AddressGuard
    """The rates and connections of each address."""
    metrics: Metrics
    public_url: str
    """The base of invite links (never the request's ``Host``)."""
    review_budget: int
    """Sampled deals per decision of the game reviews asked for."""
    relays: Relays | SoleRelays = field(default_factory=SoleRelays)
    """The links to the other server processes, which clients are relayed over to their
    tables' owners (PostgreSQL; :mod:`hearts.server.relay`)."""
    bots: tuple[str, ...] = LEVEL_NAMES
    """The bot specs the tables may seat (the four levels, then those ``hearts serve --bots``
    allows), in the order the lobby offers them."""
    metrics_token: str | None = None
    """The token that lets a scraper other than this machine read ``/metrics``
    (``Authorization: Bearer TOKEN``); ``None``: this machine only (:mod:`.ops`)."""
    quick: Matchmaker | None = None
    """This process's quick-match matchmaker (:mod:`hearts.server.quick`)."""
    lobby: LobbyFeed | None = None
    """The live lobby this process pushes to its lobby pages (:mod:`hearts.server.lobbyfeed`)."""
    outcomes: Outcomes = field(default_factory=Outcomes)
    replays: Replays = field(default_factory=Replays)

    @property
    def store(self) -> Storage:
        return self.manager.store

    async def drain(self) -> int:
        """Before this process stops (:mod:`hearts.server.drain`): make no more quick tables,
        hand every table it owns to a live peer (PostgreSQL), and close the links the other
        processes relay clients here over, so that they serve those clients themselves, on the
        same WebSockets. How many tables were handed."""
        if self.quick is not None:
            await self.quick.stop()
        handed = await self.manager.drain(self.relays.hand)
        await self.relays.stop()
        return handed

    def link(self, table_id: str, seat: int, token: str) -> str:
        """The invite link of a seat."""
        return f"{self.public_url}/t/{table_id}#seat={seat}&token={token}"

    async def find(self, table_id: str) -> Table:
        """The table ``table_id``, or a 404."""
        table = await self.manager.get(table_id)
        if table is None:
            raise TableError("there is no such table", 404, "no_table")
        return table


def services(connection: HTTPConnection) -> Services:
    """The :class:`Services` of the app serving ``connection`` (a request or a WebSocket)."""
    found = connection.app.state.services
    assert isinstance(found, Services)
    return found


RUNNING: set[Services] = set()
"""The services of the apps running in this process, from their start to their stop (those a
stopping process drains: :mod:`hearts.server.drain`)."""


@contextlib.asynccontextmanager
async def running(s: Services) -> AsyncIterator[None]:
    """Start the manager (its tables restored), the metrics' gauges, the rating of games left
    unrated, the quick match, the live lobby and the game reviews (SQLite: computed here); stop them on leaving."""
    m = s.manager
    s.metrics.tables.set_function(lambda: len(m.unfinished()))
    s.metrics.connections.set_function(lambda: s.guard.connections)
    pool_stats = getattr(m.store, "pool_stats", None)
    if pool_stats is not None:  # PostgreSQL's connection pool
        s.metrics.watch_pool(pool_stats)
    s.metrics.relayed.set_function(s.relays.relayed)
    await s.relays.start()  # (listening before the first alive notice tells the others where)
    restored = await m.start()
    log.info("started", extra=fields(tables_restored=restored, public_url=s.public_url, database=m.store.name))
    try:
        await settle_pending(m.store)  # rated games whose process stopped before rating them
    except StoreError:
        log.exception("the rated games left unrated could not be looked for")
    reviews = asyncio.get_running_loop().create_task(m.thinking.reviews())  # (SQLite: here)
    for part in (s.quick, s.lobby):
        if part is not None:
            part.start()
    RUNNING.add(s)
    try:
        yield
    finally:
        RUNNING.discard(s)
        for part in (s.lobby, s.quick):
            if part is not None:
                await part.stop()
        reviews.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reviews
        await s.relays.stop()
        await m.shutdown()
