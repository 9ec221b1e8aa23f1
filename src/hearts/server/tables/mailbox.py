"""A table's mailbox: its commands handled one at a time, in the order they came, by one task.

Whatever reads or changes a table's position — an action, a sync, a seat taken, a bot's move,
a notice of another process's action — is a command (:mod:`~hearts.server.tables.commands`)
posted to the table's :class:`Mailbox`; its handler (the table's :meth:`Table.process
<hearts.server.tables.table.Table.process>`) takes them one by one, so no two ever interleave,
with no lock to take: a command posted to an idle mailbox runs at once in its caller's task,
the ones posted meanwhile wait their turn and a runner task takes them in order. A caller
awaits its command's result (or its exception); a caller that stops waiting does not take a
waiting command back. The runner lives while there is work, so an idle table holds no task.

>>> import asyncio
>>> async def demo() -> list[str]:
...     seen: list[str] = []
...     async def handle(name: str) -> str:
...         seen.append(name + " starts")
...         await asyncio.sleep(0)
...         seen.append(name + " ends")
...         return name
...     box = Mailbox(handle)
...     results = await asyncio.gather(box.run("a"), box.run("b"))
...     return seen + results
>>> asyncio.run(demo())
['a starts', 'a ends', 'b starts', 'b ends', 'a', 'b']
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from hearts.server.tables.commands import Command

_T = TypeVar("_T")


class Mailbox:
    """Commands handled by ``handle`` one at a time, first come first served."""

    def __init__(self, handle: Callable[[Any], Awaitable[Any]]) -> None:
        self._handle = handle
        self._commands: deque[tuple[Any, asyncio.Future[Any]]] = deque()
        self._runner: asyncio.Task[None] | None = None
        self._running = False

    @property
    def busy(self) -> bool:
        """Whether a command runs or waits: what changes the position now must be posted, not
        done in passing."""
        return self._running or bool(self._commands)

    async def run(self, command: Command[_T]) -> _T:
        """Post ``command`` and wait for its result (its exception is raised here). When the
        mailbox is idle the command runs at once, in the caller's task (no hand-over to the
        runner: an action's broadcast leaves a loop turn sooner; a read sees the committed
        position); the commands posted meanwhile wait for it."""
        if not self.busy:
            self._running = True
            try:
                result: _T = await self._handle(command)
                return result
            finally:
                self._running = False
                if self._commands:
                    self._start()
        future: asyncio.Future[_T] = asyncio.get_running_loop().create_future()
        self._commands.append((command, future))
        if not self._running:
            self._start()
        return await future

    def _start(self) -> None:
        """Start the runner for the commands waiting, unless it runs."""
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self._commands:
            command, future = self._commands.popleft()
            self._running = True
            try:
                result = await self._handle(command)
            except asyncio.CancelledError:
                if not future.done():
                    future.cancel()
                raise
            except BaseException as e:  # the caller's to handle
                if not future.done():
                    future.set_exception(e)
            else:
                if not future.done():
                    future.set_result(result)
            finally:
                self._running = False

    def stop(self) -> None:
        """Stop the runner and cancel the commands waiting (at shutdown)."""
        if self._runner is not None:
            self._runner.cancel()
        while self._commands:
            self._commands.popleft()[1].cancel()
