"""What a server process hears from the others of its service, and tells them, through the
store's notices (:meth:`~hearts.server.storage.Storage.listen`): the seats they change
(handed to each table's :class:`~hearts.server.tables.follow.Follower`), the table talk, who is
connected where (:class:`~hearts.server.tables.presence.Roster`), that each process runs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from hearts.actions import from_dict
from hearts.server.company import close_banned
from hearts.server.logs import fields
from hearts.server.notices import (
    AliveNotice,
    BanNotice,
    ChatNotice,
    HintNotice,
    JobNotice,
    Notice,
    PresenceNotice,
    RematchNotice,
)
from hearts.server.outage import Outage
from hearts.server.storage import (
    Listener,
    follow,
)
from hearts.server.tables.presence import ALIVE_EVERY

if TYPE_CHECKING:
    from hearts.server.tables.manager import Manager

log = logging.getLogger("hearts.server")


class ServiceNotices:
    """One process's notices: the listener, the follower task and the alive heartbeat of a
    :class:`~hearts.server.tables.manager.Manager`."""

    def __init__(self, manager: Manager) -> None:
        self.manager = manager
        self._tasks: list[asyncio.Task[None]] = []
        self._asking: set[asyncio.Task[None]] = set()
        self._listener: Listener | None = None
        """The store's notices, from :meth:`listen` on."""

    async def listen(self) -> None:
        """Listen to the store's notices (kept until :meth:`follow`) and start the heartbeat."""
        self._listener = await self.manager.store.listen()
        self._tasks.append(asyncio.get_running_loop().create_task(self._beat()))

    def follow(self) -> None:
        """Hand every notice to its table from now on (those heard since :meth:`listen` first)."""
        assert self._listener is not None, "listen() first"
        listening = follow(self.manager.store, self._listener, self._hear, self._missed, Outage(log, task="notices"))
        task = asyncio.get_running_loop().create_task(listening)
        self._tasks.append(task)

    async def stop(self) -> None:
        """Stop listening and following, and tell the others this process's clients are gone."""
        for task in [*self._tasks, *self._asking]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        manager = self.manager
        for t in manager.tables.values():
            if t.presence.here() != ((), 0):
                with contextlib.suppress(Exception):  # (else the others forget it once it is no longer heard of)
                    await manager.store.notify(PresenceNotice(t.id, manager.roster.process, [], 0))

    async def _beat(self) -> None:
        """Tell the other processes every :data:`ALIVE_EVERY` seconds that this one runs (the
        first time asking them to say so too: where their links are is known at once), and
        forget the presence of those no longer heard of."""
        roster = self.manager.roster
        first = True
        while True:
            try:
                await self.manager.store.notify(AliveNotice(roster.process, roster.link, ask=first))
                first = False
            except Exception as e:  # the database is away: the listener's loss says more
                log.warning("could not tell the other processes this one runs", extra=fields(error=str(e)))
            for table_id in self.manager.roster.forget_gone():
                table = self.manager.tables.get(table_id)
                if table is not None:
                    table.presence.tell(announce=False)
            await asyncio.sleep(ALIVE_EVERY)

    async def _alive(self) -> None:
        """Tell the other processes this one runs (a failure: the next beat tells them)."""
        with contextlib.suppress(Exception):
            await self.manager.store.notify(AliveNotice(self.manager.roster.process, self.manager.roster.link))

    async def ask(self, table_ids: list[str]) -> None:
        """Ask the other processes for their presence at these tables (they answer with their
        :class:`~hearts.server.storage.PresenceNotice`, if they have any); a failure is logged
        (the table is served all the same: its presence shows once the others' change)."""
        try:
            for table_id in table_ids:
                await self.manager.store.notify(PresenceNotice(table_id, self.manager.roster.process, [], 0, ask=True))
        except Exception as e:  # the database is away: the listener's loss says more
            log.warning("could not ask the other processes who is at a table", extra=fields(error=str(e)))

    def _missed(self) -> None:
        """Notices may have been missed: every table in memory reads its seats again, and asks
        the others for their presence again."""
        for table in list(self.manager.tables.values()):
            table.follower.seats_changed()
        task = asyncio.get_running_loop().create_task(self.ask(list(self.manager.tables)))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    def _hear(self, notice: Notice) -> None:
        """Hand a notice to its table (one being loaded keeps it for later); bot jobs are no
        concern of a server process; the presence of the others is kept in the roster."""
        if isinstance(notice, JobNotice):
            return
        if isinstance(notice, BanNotice):  # (its connections closed: hearts.server.company)
            task = asyncio.get_running_loop().create_task(close_banned(self.manager, notice.player_id))
            self._asking.add(task)
            task.add_done_callback(self._asking.discard)
            return
        if isinstance(notice, AliveNotice):
            roster = self.manager.roster
            if notice.gone:
                roster.gone(notice.process)
                return
            if not notice.worker:
                roster.alive(notice.process, link=notice.link)
            if notice.ask and notice.process != roster.process:
                task = asyncio.get_running_loop().create_task(self._alive())
                self._asking.add(task)
                task.add_done_callback(self._asking.discard)
            return
        if isinstance(notice, PresenceNotice):
            self._hear_presence(notice)
            return
        if isinstance(notice, (ChatNotice, RematchNotice, HintNotice)):
            talking = self.manager.tables.get(notice.table_id)
            if talking is None:
                return
            if isinstance(notice, HintNotice):
                talking.hints.give(notice.seat, notice.seq, None if notice.action is None else from_dict(notice.action))
            else:
                talking.talk.hear(notice)
            return
        heard = self.manager.loading.get(notice.table_id)
        if heard is not None:
            heard.append(notice)
            return
        table = self.manager.tables.get(notice.table_id)
        if table is None:
            return
        table.follower.seats_changed()

    def _hear_presence(self, notice: PresenceNotice) -> None:
        """Another process's presence at a table: shown to this process's clients if it
        changed; answered with this process's own if asked for."""
        changed = self.manager.roster.heard(notice)
        table = self.manager.tables.get(notice.table_id)
        if table is None:
            return
        if notice.ask and notice.process != self.manager.roster.process:
            table.presence.announce(again=True)
        if changed:
            table.presence.tell(announce=False)

