"""The deadline of a database call (hearts.server.storage.deadline, issue 41 item 4): given up
after a silence of the database, not while it answers other calls; a wait for a statement is
ended by cutting its connection's socket (never by cancelling the driver's wait), a wait for a
connection by cancelling it. (No database here: a socket pair stands for a connection.)"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass
from typing import Any

import pytest

from hearts.server.storage.deadline import Liveness, cut, deadline

SILENCE = 0.1


@dataclass
class FakePg:
    socket: int


@dataclass
class FakeDriver:
    """A driver connection on one end of a socket pair."""

    sock: socket.socket
    closed: bool = False

    @property
    def pgconn(self) -> Any:
        return FakePg(self.sock.fileno())


def test_a_silent_database_gives_a_wait_for_a_connection_up() -> None:
    async def main() -> float:
        start = time.monotonic()
        with pytest.raises(TimeoutError):
            async with deadline(Liveness(SILENCE)):
                await asyncio.sleep(10)  # a pool's wait, an attempt to connect
        return time.monotonic() - start

    assert SILENCE <= asyncio.run(main()) < SILENCE + 0.2


def test_a_busy_database_is_waited_for_while_it_answers_other_calls() -> None:
    liveness = Liveness(SILENCE)

    async def answers() -> None:
        while True:
            liveness.answered()
            await asyncio.sleep(SILENCE / 4)

    async def main() -> str:
        others = asyncio.get_running_loop().create_task(answers())
        try:
            async with deadline(liveness):
                await asyncio.sleep(SILENCE * 5)  # five times the silence, answered meanwhile
            return "done"
        finally:
            others.cancel()

    assert asyncio.run(main()) == "done"
    assert liveness.cuts == 0


def test_a_wait_for_a_statement_is_ended_by_cutting_the_connection() -> None:
    """The driver reads the end of its stream (as on a lost connection) instead of being
    cancelled; the call, if it goes on waiting for something else, is cancelled then."""
    liveness = Liveness(SILENCE)
    ours, theirs = socket.socketpair()
    ours.setblocking(False)

    async def main() -> tuple[bytes, float]:
        loop = asyncio.get_running_loop()
        start = time.monotonic()
        async with deadline(liveness, FakeDriver(ours)):
            read = await loop.sock_recv(ours, 10)  # the statement's answer that never comes
        return read, time.monotonic() - start

    try:
        read, took = asyncio.run(main())
        assert read == b"" and SILENCE <= took < SILENCE + 0.2  # the end of the stream
        assert liveness.cuts == 1
    finally:
        ours.close()
        theirs.close()

    async def goes_on() -> None:
        a, b = socket.socketpair()
        try:
            async with deadline(liveness, FakeDriver(a)):
                await asyncio.sleep(10)  # not reading the cut socket: cancelled soon after
        finally:
            a.close()
            b.close()

    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(goes_on(), 2))


def test_a_closed_connection_is_not_cut() -> None:
    """Its descriptor's number may be another socket's by now: it is left alone."""
    ours, theirs = socket.socketpair()
    try:
        cut(FakeDriver(ours, closed=True))
        theirs.send(b"x")
        assert ours.recv(1) == b"x"  # still open both ways
        cut(FakeDriver(ours))
        assert ours.recv(1) == b""
    finally:
        ours.close()
        theirs.close()


def test_no_liveness_no_deadline() -> None:
    """SQLite's calls have none (a lock's busy wait is bounded by its own timeout)."""

    async def main() -> object:
        async with deadline(None) as watch:
            await asyncio.sleep(0.01)
        return watch

    assert asyncio.run(main()) is None


def test_once_a_call_was_given_up_calls_fail_at_once_until_the_probe_hears_the_database() -> None:
    """A silent database: the next call does not wait as long again (an action behind another
    in its table's turn would wait twice), while a probe tries it every quarter of a second;
    once the probe is answered, calls wait for the database again."""
    answering = asyncio.Event()

    async def probe() -> None:
        await answering.wait()  # a frozen database: no answer until it goes on

    liveness = Liveness(SILENCE, probe=probe)

    async def call() -> float:
        start = time.monotonic()
        try:
            async with deadline(liveness):
                await asyncio.sleep(10)
        except TimeoutError:
            pass
        return time.monotonic() - start

    async def main() -> tuple[float, float, bool]:
        first = await call()  # given up after the silence
        second = await call()  # at once
        assert liveness.silent
        answering.set()
        await asyncio.sleep(0.4)  # the probe's next attempt is answered
        back = not liveness.silent
        async with deadline(liveness):
            await asyncio.sleep(0.01)
        await liveness.close()
        return first, second, back

    first, second, back = asyncio.run(main())
    assert SILENCE <= first < SILENCE + 0.2 and second < 0.02 and back
    assert liveness.cuts == 2


def test_a_call_slow_on_a_live_database_is_not_given_up() -> None:
    """A statement waiting for a lock held elsewhere, on a process that hears nothing else
    from the database: after half the silence the probe tries the database, which answers,
    and the call waits on."""
    probes = 0

    async def probe() -> None:  # a live database: a connection made at once
        nonlocal probes
        probes += 1

    liveness = Liveness(SILENCE, probe=probe)

    async def main() -> None:
        async with deadline(liveness):
            await asyncio.sleep(SILENCE * 5)
        await liveness.close()

    asyncio.run(main())
    assert liveness.cuts == 0 and not liveness.silent and probes >= 5


def test_a_busy_event_loop_is_not_a_silent_database() -> None:
    """The process's own loop blocked (a long computation, a starved process) past the
    silence: the answer waits unread meanwhile, so that time is not counted as the database's."""
    liveness = Liveness(SILENCE)

    async def main() -> None:
        async with deadline(liveness):
            time.sleep(SILENCE * 1.5)  # the loop busy: the check comes late
            await asyncio.sleep(0.01)  # the answer, read once the loop is free
            liveness.answered()

    asyncio.run(main())
    assert liveness.cuts == 0
