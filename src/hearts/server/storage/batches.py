"""Work done in batches: what is asked while a batch is on its way goes together in the next
one — one round trip and one commit for many. The store's appends (SQL and PostgreSQL's
prepared statement) and PostgreSQL's notices are written through it.

>>> import asyncio
>>> async def demo() -> list[int]:
...     async def write(lane: None, batch: list[int]) -> tuple[None, list[int | BaseException]]:
...         sizes.append(len(batch))
...         return lane, [item * 10 for item in batch]
...     sizes: list[int] = []
...     batcher = Batcher(write, lanes=[None])
...     results = await asyncio.gather(*(batcher.add(i) for i in range(5)))
...     await batcher.close()
...     return [*results, *sizes]
>>> asyncio.run(demo())  # the results, and the one batch of five (added before it ran)
[0, 10, 20, 30, 40, 5]
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Final, Generic, TypeVar

from hearts.server.storage import StoreUnavailable

Item = TypeVar("Item")
Result = TypeVar("Result")
Lane = TypeVar("Lane")

Write = Callable[[Lane, list[Item]], Awaitable[tuple[Lane, list[Result | BaseException]]]]
"""Writes one batch on a lane (a connection of its own, or ``None`` for one to open): the lane
to go on with, and each item's result or error, in order. An exception it raises is every item's."""


class Batcher(Generic[Item, Result, Lane]):
    """Items written in batches of at most ``max_batch`` by ``write``, as many batches on their
    way at once as there are ``lanes``: an item waits at most for the batch before it. With one
    lane, batches are written in the order their items were added."""

    def __init__(self, write: Write[Lane, Item, Result], lanes: list[Lane], max_batch: int = 500) -> None:
        self._write = write
        self._free = lanes
        self.max_batch: Final = max_batch
        self._waiting: list[tuple[Item, asyncio.Future[Result]]] = []
        self._writing: set[asyncio.Task[None]] = set()
        self._closed = False

    def add(self, item: Item) -> asyncio.Future[Result]:
        """Queue ``item`` for the next batch: its result, once written (``StoreUnavailable``
        once closed)."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Result] = loop.create_future()
        self._waiting.append((item, done))
        if self._free:
            task = loop.create_task(self._run(self._free.pop()))
            self._writing.add(task)
            task.add_done_callback(self._writing.discard)
        return done

    async def _run(self, lane: Lane) -> None:
        """Write the waiting items, a batch at a time, until none waits."""
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[: self.max_batch], self._waiting[self.max_batch :]
                try:
                    lane, results = await self._write(lane, [item for item, _ in batch])
                except Exception as e:  # (to the callers: a lost database, a bug)
                    results = [e] * len(batch)
                for (_, done), result in zip(batch, results, strict=True):
                    if done.done():
                        continue
                    if isinstance(result, BaseException):
                        done.set_exception(result)
                    else:
                        done.set_result(result)
        finally:
            self._free.append(lane)

    async def close(self) -> list[Lane]:
        """Finish the batches on their way; the lanes, to be closed by their owner."""
        self._closed = True
        while self._writing:
            await asyncio.gather(*self._writing, return_exceptions=True)
        lanes, self._free = self._free, []
        return lanes
