"""The port each server process takes links from the others on (hearts.server.relay; issue 41,
item 5) trusts nobody before the key is shown in the link's opening handshake (an ordinary
WebSocket, the ``websockets`` library's): a connection that does not complete it is closed within
a second or so, a request longer than the library's few kilobytes of request line and headers is
refused as soon as they are read (nothing more of it buffered), a wrong key is refused (403), and
one address may hold only a few connections that have not shown the key. A real server process
on PostgreSQL; the intruders are plain TCP sockets and a WebSocket client.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

from test_server_support import ServerProcess, emptied_pg_url, module_pg_database

from hearts.server.relay import HELLO_WAIT, MAX_PENDING

pg_database = pytest.fixture(scope="module")(module_pg_database)
url = pytest.fixture(emptied_pg_url)


@pytest.fixture
def server(url: str, tmp_path: Path) -> ServerProcess:
    s = ServerProcess(url, logs=tmp_path).start()
    yield s  # type: ignore[misc]
    s.stop()


def link_port(server: ServerProcess) -> int:
    """The port the process says (in its log) it takes links on."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in server.logs():
            if line.get("event") == "listening for links":
                return int(line["port"])
        time.sleep(0.1)
    raise AssertionError("the process did not say where it takes links")


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the other end closed ``sock`` (None: still open after ``seconds``)."""
    start = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - start


def memory_kib(server: ServerProcess) -> int:
    """The process's resident memory, in KiB."""
    assert server.proc is not None
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))


def open_files(server: ServerProcess) -> int:
    assert server.proc is not None
    return len(os.listdir(f"/proc/{server.proc.pid}/fd"))


def test_a_connection_that_shows_no_key_is_closed_within_a_second_or_so(server: ServerProcess) -> None:
    port = link_port(server)
    with socket.create_connection(("127.0.0.1", port)) as silent:
        took = closed_within(silent, HELLO_WAIT + 5)
    assert took is not None and took < HELLO_WAIT + 1, took
    with socket.create_connection(("127.0.0.1", port)) as slow:  # a handshake begun and never ended
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n")
        took = closed_within(slow, HELLO_WAIT + 5)
    assert took is not None and took < HELLO_WAIT + 1, took


def test_a_long_request_before_the_key_is_refused_once_a_few_kilobytes_are_read(server: ServerProcess) -> None:
    port = link_port(server)
    before = memory_kib(server)
    with socket.create_connection(("127.0.0.1", port)) as big:
        big.settimeout(5)
        start = time.monotonic()
        with contextlib.suppress(OSError):  # (refused before all of it went: a broken pipe)
            for _ in range(15 * 16):
                big.sendall(b"GET /" + b"x" * (64 << 10))
        took = closed_within(big, 5)
    assert took is not None and time.monotonic() - start < 5, took
    assert memory_kib(server) < before + (8 << 10), (before, memory_kib(server))


def test_a_wrong_key_is_refused_and_opens_nothing(server: ServerProcess) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    async def main() -> int:
        try:
            async with connect(f"ws://127.0.0.1:{link_port(server)}/", proxy=None,
                               additional_headers={"Authorization": "Bearer " + "0" * 32}):
                return 101
        except InvalidStatus as e:
            return e.response.status_code

    assert asyncio.run(main()) == 403


def test_one_address_holds_only_a_few_connections_without_the_key(server: ServerProcess) -> None:
    port = link_port(server)
    before = open_files(server)
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(MAX_PENDING * 5)]
    try:
        time.sleep(0.3)
        assert open_files(server) <= before + MAX_PENDING + 2, (before, open_files(server))
        refused = sum(closed_within(s, 0.05) is not None for s in idle[MAX_PENDING:])
        assert refused == len(idle) - MAX_PENDING
        assert all(closed_within(s, HELLO_WAIT + 5) is not None for s in idle[:MAX_PENDING])
    finally:
        for s in idle:
            s.close()
    assert open_files(server) <= before + 2
