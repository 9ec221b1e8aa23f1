"""A table's mailbox: its commands handled one at a time, in the order they came, by one task.

Whatever reads or changes a table's position — an action, a sync, a seat taken, a bot's move,
a notice of another process's action — is a command posted to the table's :class:`Mailbox`;
they are handled one by one, so no two ever interleave, with no lock to take: a command
posted to an idle mailbox runs at once in its caller's task, the ones posted meanwhile wait
their turn and a runner task takes them in order. A caller awaits its command's result (or its
exception); a caller that stops waiting does not take a waiting command back. The runner lives
while there is work, so an idle table holds no task.

>>> import asyncio
>>> async def demo() -> list[str]:
...     box, seen = Mailbox(), []
...     async def command(name: str) -> str:
...         seen.append(name + " starts")
...         await asyncio.sleep(0)
...         seen.append(name + " ends")
...         return name
...     results = await asyncio.gather(box.run(lambda: command("a")), box.run(lambda: command("b")))
...     return seen + results
>>> asyncio.run(demo())
['a starts', 'a ends', 'b starts', 'b ends', 'a', 'b']

A step that does not wait for anything (a read of the position as committed, a seat's new
name) is :meth:`Mailbox.step`: done at once when the table is idle.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

_T = TypeVar("_T")


class Mailbox:
    """Commands (coroutine functions of no argument) run one at a time, first come first served."""

    def __init__(self) -> None:
        self._commands: deque[tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any]]] = deque()
        self._runner: asyncio.Task[None] | None = None
        self._running = False

    @property
    def busy(self) -> bool:
        """Whether a command runs or waits: what changes the position now must be posted, not
        done in passing."""
        return self._running or bool(self._commands)

    async def run(self, command: Callable[[], Awaitable[_T]]) -> _T:
        """Post ``command`` and wait for its result (its exception is raised here). When the
        mailbox is idle the command runs at once, in the caller's task (no hand-over to the
        runner: an action's broadcast leaves a loop turn sooner); the commands posted meanwhile
        wait for it."""
        if not self.busy:
            self._running = True
            try:
                return await command()
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
                result = await command()
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

    async def step(self, work: Callable[[], _T]) -> _T:
        """``work()``, a plain function (a read, or a change made at once), in the table's
        turn: at once when nothing runs or waits (the position is then the committed one),
        else as a command after those posted before."""
        if not self.busy:
            return work()

        async def command() -> _T:
            return work()

        return await self.run(command)

    def stop(self) -> None:
        """Stop the runner and cancel the commands waiting (at shutdown)."""
        if self._runner is not None:
            self._runner.cancel()
        while self._commands:
            self._commands.popleft()[1].cancel()
