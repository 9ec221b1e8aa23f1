"""Work a server process keeps doing in the background: an object's own ``run()`` coroutine,
a task of the running event loop between :meth:`Background.start` and :meth:`Background.stop`
(the matchmaker's rounds, the live lobby's readings)."""

from __future__ import annotations

import asyncio
import contextlib


class Background:
    """A base for objects with a ``run()`` coroutine that runs until cancelled: :meth:`start`
    makes it a task of the running loop, :meth:`stop` cancels it and waits for its end."""

    _task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        """Run :meth:`run` as a task of the running event loop."""
        self._task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        """Cancel the task (if started) and wait until it has ended."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
