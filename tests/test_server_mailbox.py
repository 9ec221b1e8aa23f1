"""A table's mailbox (issue 25 item 1: the table as an actor; issue 41 item 2: its commands are
values, handled by one handler): its commands run one at a time in the order they came, an
exception reaches its own caller only, and a command runs at once, in its caller's task, when the
table is idle but waits its turn when it is not."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts.server.tables.mailbox import Mailbox


async def call(command: Callable[[], Awaitable[object]]) -> object:
    """A handler for these tests: each command is a coroutine function to run."""
    return await command()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=12))
def test_commands_never_interleave_and_run_in_the_order_posted(pauses: list[int]) -> None:
    async def main() -> tuple[list[tuple[str, int]], list[int]]:
        box, seen = Mailbox(call), []

        async def command(i: int) -> int:
            seen.append(("start", i))
            for _ in range(pauses[i]):
                await asyncio.sleep(0)
            seen.append(("end", i))
            return i

        results = await asyncio.gather(*(box.run(lambda i=i: command(i)) for i in range(len(pauses))))
        return seen, list(results)

    seen, results = asyncio.run(main())
    assert seen == [(what, i) for i in range(len(pauses)) for what in ("start", "end")]
    assert results == list(range(len(pauses)))


def test_a_failing_command_fails_its_caller_only_and_the_next_one_runs() -> None:
    async def main() -> list[object]:
        box = Mailbox(call)

        async def fail() -> None:
            await asyncio.sleep(0)
            raise ValueError("refused")

        async def fine() -> str:
            return "done"

        return await asyncio.gather(box.run(fail), box.run(fine), return_exceptions=True)

    failed, done = asyncio.run(main())
    assert isinstance(failed, ValueError) and str(failed) == "refused"
    assert done == "done"


def test_a_command_runs_at_once_in_its_callers_task_when_idle_and_waits_its_turn_when_busy() -> None:
    async def main() -> list[str]:
        box, seen = Mailbox(call), []
        assert not box.busy
        async def step(name: str) -> int:
            seen.append(name)
            return 1

        caller = asyncio.current_task()
        ran_in: list[asyncio.Task[object] | None] = []

        async def idle() -> int:
            ran_in.append(asyncio.current_task())
            return await step("idle step")

        assert await box.run(idle) == 1
        assert ran_in == [caller]  # (no hand-over to a runner task)
        release = asyncio.Event()

        async def long() -> None:
            seen.append("long starts")
            await release.wait()
            seen.append("long ends")

        running = asyncio.ensure_future(box.run(long))
        await asyncio.sleep(0.01)
        assert box.busy
        stepped = asyncio.ensure_future(box.run(lambda: step("busy step")))
        await asyncio.sleep(0.01)
        assert "busy step" not in seen  # it waits for the command before it
        release.set()
        await asyncio.gather(running, stepped)
        assert not box.busy
        return seen

    assert asyncio.run(main()) == ["idle step", "long starts", "long ends", "busy step"]


def test_a_caller_that_stops_waiting_does_not_stop_the_others() -> None:
    """A connection that goes away while its command waits: the commands after it still run."""

    async def main() -> list[int]:
        box, seen = Mailbox(call), []

        async def command(i: int) -> None:
            await asyncio.sleep(random.random() / 100)
            seen.append(i)

        first = asyncio.ensure_future(box.run(lambda: command(0)))
        gone = asyncio.ensure_future(box.run(lambda: command(1)))
        last = asyncio.ensure_future(box.run(lambda: command(2)))
        await asyncio.sleep(0)
        gone.cancel()
        await first
        await last
        with pytest.raises(asyncio.CancelledError):
            await gone
        return seen

    seen = asyncio.run(main())
    assert seen[0] == 0 and seen[-1] == 2
