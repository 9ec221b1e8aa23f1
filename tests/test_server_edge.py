"""The web table's edge (issue 25): what a TCP connection may do before it is a request. Real
server processes, real sockets, real nginx (Debian's package, skipped when it is not installed).

``hearts serve`` alone closes a connection that sends no complete request within
``request_timeout`` seconds (nothing, or half a head, or half a head after a response) and
holds at most ``tcp_connections_per_address`` of them per address, so a flood from one address
neither outlives a few seconds nor makes ``/healthz`` a 503 for everyone; ``X-Forwarded-For`` is
believed only from the proxies named by ``--forwarded-allow-ips`` (none by default). Behind
``deploy/nginx.conf``, two processes on one PostgreSQL database: each table's WebSockets reach one
process, a game is played through it, and nginx closes idle and half-sent connections itself.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

from test_server_support import (  # noqa: E402
    Client,
    ServerProcess,
    free_port,
    http,
    module_pg_database,
    play_until,
    request,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # deploy/: the proxy's configuration and runner
from deploy import nginx_conf  # noqa: E402

HALF_HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"
"""A request head cut in the middle of a header."""
FOUR = [{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cy", "Di")]


def connect(port: int, source: str = "127.0.0.1", send: bytes = b"") -> socket.socket:
    """A TCP connection to the local ``port`` from the loopback address ``source``, which has
    sent ``send``."""
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    if send:
        sock.sendall(send)
    return sock


def closed_after(sock: socket.socket, timeout: float) -> float | None:
    """Seconds until the other end closes ``sock`` (what it sends meanwhile is read and
    dropped), or ``None`` if it is still open after ``timeout``."""
    start = time.monotonic()
    while (left := timeout - (time.monotonic() - start)) > 0:
        sock.settimeout(left)
        try:
            if not sock.recv(65536):
                return time.monotonic() - start
        except TimeoutError:
            return None
        except ConnectionResetError:
            return time.monotonic() - start
    return None


def wait_all_closed(socks: list[socket.socket], timeout: float) -> list[float | None]:
    """:func:`closed_after` for each socket, within one deadline from now."""
    deadline = time.monotonic() + timeout
    return [closed_after(s, max(0.01, deadline - time.monotonic())) for s in socks]


def healthz(base: str) -> int:
    status, _ = http("GET", base + "/healthz")
    return status


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with the default request timeout, few connections in all and per address."""
    s = ServerProcess(tmp_path_factory.mktemp("edge") / "tables.db",
                      limits={"max_connections": 40, "tcp_connections_per_address": 10}).start()
    yield s
    s.stop()


# ---------------------------------------------------------------- hearts serve alone


def test_silent_and_half_sent_connections_are_closed_within_seconds(server: ServerProcess) -> None:
    """Connections that send nothing, half a request head, or after a complete request (its
    response read) half a head or nothing, from several addresses, are all closed by the server
    within the request timeout (5 s; uvicorn's keep-alive timeout, 5 s, for the last) and a
    margin; ``/healthz`` answers 200 meanwhile and after."""
    socks = []
    for i in range(2, 5):  # 127.0.0.2 .. 4: 9 connections each, under the cap of 10
        source = f"127.0.0.{i}"
        socks += [connect(server.port, source) for _ in range(3)]
        socks += [connect(server.port, source, HALF_HEAD) for _ in range(3)]
        for then in (HALF_HEAD, HALF_HEAD, b""):  # after a response: half a head, or nothing (kept alive)
            sock = connect(server.port, source, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            sock.settimeout(5)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            if then:
                sock.sendall(then)
            socks.append(sock)
    assert healthz(server.url) == 200
    start = time.monotonic()
    closed = wait_all_closed(socks, 12)
    assert all(t is not None for t in closed), f"{closed.count(None)} of {len(socks)} still open after 12 s"
    assert time.monotonic() - start < 9
    assert healthz(server.url) == 200
    for s in socks:
        s.close()


def test_one_address_cannot_hold_the_servers_connections(server: ServerProcess) -> None:
    """Fifty silent connections from one address (the server holds 40 in all): those beyond the
    cap of 10 per address are closed at once, and a request from another address is served
    (not the 503 of a full server); the first ten are closed by the request timeout."""
    socks = [connect(server.port, "127.0.0.5") for _ in range(50)]
    refused = wait_all_closed(socks[10:], 3)
    assert all(t is not None for t in refused), f"{refused.count(None)} beyond the cap still open"
    assert all(closed_after(s, 0.2) is None for s in socks[:10])  # the first ten still open
    assert healthz(server.url) == 200
    status, body = http("GET", server.url + "/api/config")
    assert status == 200 and isinstance(body, dict)
    assert all(t is not None for t in wait_all_closed(socks[:10], 10))
    for s in socks:
        s.close()


def test_a_websocket_game_still_opens_and_keeps_its_connections(server: ServerProcess) -> None:
    """A WebSocket connection is a request whose head completes: it is not closed by the
    request timeout (it stays past 5 s), nor counted by the cap per address once upgraded."""
    status, table = http("POST", server.url + "/api/tables", {"seats": FOUR})
    assert status == 201, table

    async def main() -> None:
        clients = [await Client(server, table["id"], s["token"]).connect() for s in table["seats"]]
        for _ in range(8):  # and eight spectators: twelve connections, beyond the cap of 10
            watcher = await Client(server, table["id"], None).connect(hello=False)
            await watcher.request({"type": "watch"}, lambda m: m["type"] == "state")
            clients.append(watcher)
        await asyncio.sleep(6.5)
        for c in clients:
            assert c.close_code is None
            await c.request({"type": "ping"}, lambda m: m["type"] == "pong")
        for c in clients:
            await c.close()

    asyncio.run(main())


def table_rate_statuses(server: ServerProcess, n: int) -> list[int]:
    """The statuses of ``n`` table creations from 127.0.0.1, each naming another client in
    ``X-Forwarded-For``."""
    seats = {"seats": [{"kind": "human", "name": "Ann"}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]}
    return [request("POST", server.url + "/api/tables", seats, {"X-Forwarded-For": f"198.51.100.{i}"})[0]
            for i in range(1, n + 1)]


def test_x_forwarded_for_is_believed_only_from_named_proxies(tmp_path: Path) -> None:
    """With the default options, a local process's ``X-Forwarded-For`` changes nothing: its
    table creations all count against 127.0.0.1 (2 a minute, the third is a 429). With
    ``--forwarded-allow-ips 127.0.0.1`` each named client has its own rate."""
    strict = {"tables_rate": "2/minute"}
    alone = ServerProcess(tmp_path / "alone.db", limits=strict).start()
    proxied = ServerProcess(tmp_path / "proxied.db", limits=strict, forwarded_allow_ips="127.0.0.1").start()
    try:
        assert table_rate_statuses(alone, 3) == [201, 201, 429]
        assert table_rate_statuses(proxied, 3) == [201, 201, 201]
    finally:
        alone.stop()
        proxied.stop()


def test_a_bad_forwarded_allow_ips_is_one_line_and_a_nonzero_exit() -> None:
    run = subprocess.run(
        [os.environ.get("PYTHON", str(ROOT / ".venv/bin/python")), "-m", "hearts", "serve", "--port", "0",
         "--forwarded-allow-ips", "127.0.0.1,proxy.example"],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert "'proxy.example' is not an IP address or network" in run.stderr


# ---------------------------------------------------------------- behind nginx


def test_the_nginx_conf_renderer_refuses_bad_addresses() -> None:
    render = nginx_conf.render
    text = render("127.0.0.1:9000", ["127.0.0.1:8101", "[::1]:8102"])
    assert "listen 127.0.0.1:9000;" in text and "server [::1]:8102 " in text and "server 127.0.0.1:8001" not in text
    for listen, upstreams, message in (("9000", [], "at least one upstream"), ("9000", ["a:b"], "'a:b' is not HOST:PORT"),
                                       ("99999", ["127.0.0.1:1"], "'99999' is not HOST:PORT")):
        with pytest.raises(ValueError, match=message):
            render(listen, upstreams)


class Nginx:
    """Debian's nginx in the foreground with deploy/nginx.conf, rendered to listen on a free
    port and forward to ``upstreams``; its files in ``prefix`` (deploy/nginx_conf.py's
    ``start``)."""

    def __init__(self, prefix: Path, upstreams: list[ServerProcess]) -> None:
        self.port = free_port()
        self.prefix = prefix
        self.config = nginx_conf.render(f"127.0.0.1:{self.port}", [f"127.0.0.1:{s.port}" for s in upstreams])
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, binary: str) -> Nginx:
        self.proc = nginx_conf.start(binary, self.prefix, self.config, self.url + "/healthz")
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def nginx_binary() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if found is None:
        pytest.skip("nginx is not installed (Debian: apt-get install nginx; scripts/test.sh does it as root)")
    return found


pg_database = pytest.fixture(scope="module")(module_pg_database)


def proxied_pair(pg_database: str, tmp_path: Path) -> Iterator[tuple[Nginx, list[ServerProcess]]]:
    """nginx in front of two server processes on one emptied PostgreSQL database, which trust
    its X-Forwarded-For. A test module makes it its fixture: ``proxied = pytest.fixture(proxied_pair)``."""
    binary = nginx_binary()
    from test_server_support import emptied_pg_url

    url = emptied_pg_url(pg_database)
    servers = [ServerProcess(url, logs=tmp_path, forwarded_allow_ips="127.0.0.1").start() for _ in range(2)]
    proxy = Nginx(tmp_path / "nginx", servers)
    try:
        yield proxy.start(binary), servers
    finally:
        proxy.stop()
        for s in servers:
            s.stop()


proxied = pytest.fixture(proxied_pair)


def connections(servers: list[ServerProcess]) -> list[int]:
    """The WebSocket connections each server process holds (its /healthz)."""
    return [http("GET", s.url + "/healthz")[1]["connections"] for s in servers]


async def wait_connections(servers: list[ServerProcess], pred: Any, timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while not pred(now := connections(servers)):
        assert time.monotonic() < deadline, f"connections {now}"
        await asyncio.sleep(0.05)
    return now


def test_behind_nginx_each_tables_websockets_reach_one_process(proxied: tuple[Nginx, list[ServerProcess]]) -> None:
    """Through nginx, the four seats' WebSockets of each of 16 tables all reach one process (the
    one whose /healthz counts them), the tables spread over both processes, and the same table
    goes to the same process again."""
    proxy, servers = proxied
    chosen: dict[str, int] = {}

    async def seat(table: dict[str, Any]) -> int:
        clients = [await Client(proxy, table["id"], s["token"]).connect() for s in table["seats"]]  # type: ignore[arg-type]
        counts = await wait_connections(servers, lambda c: sum(c) == 4)
        for c in clients:
            await c.close()
        await wait_connections(servers, lambda c: sum(c) == 0)
        assert sorted(counts) == [0, 4], counts
        return counts.index(4)

    async def main() -> None:
        tables = []
        for _ in range(16):
            status, table = http("POST", proxy.url + "/api/tables", {"seats": FOUR})
            assert status == 201, table
            chosen[table["id"]] = await seat(table)
            tables.append(table)
        assert await seat(tables[0]) == chosen[tables[0]["id"]]

    asyncio.run(main())
    assert set(chosen.values()) == {0, 1}, (chosen, (proxy.prefix / "error.log").read_text())


def test_behind_nginx_a_game_is_played_to_its_end(proxied: tuple[Nginx, list[ServerProcess]]) -> None:
    """Four players play a whole game through nginx (to 1 point: one round, its pass included);
    every action is accepted by one process."""
    proxy, servers = proxied
    status, table = http("POST", proxy.url + "/api/tables",
                         {"seats": FOUR, "target": 1})
    assert status == 201, table

    async def main() -> None:
        clients = [await Client(proxy, table["id"], s["token"]).connect() for s in table["seats"]]  # type: ignore[arg-type]
        await play_until(clients, random.Random(25), lambda: False, timeout=120)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=30)
            await c.close()

    asyncio.run(main())
    accepted = [sum(1 for line in s.logs() if line["event"] == "action" and line.get("table") == table["id"])
                for s in servers]
    assert sorted(accepted)[0] == 0 and sorted(accepted)[1] >= 4 * 13, accepted


def test_behind_nginx_idle_and_half_sent_connections_are_closed(proxied: tuple[Nginx, list[ServerProcess]]) -> None:
    """nginx closes a connection that sends nothing or half a head (client_header_timeout 5 s),
    and one idle after its response (keepalive_timeout 15 s); the service still answers."""
    proxy, _ = proxied
    idle = connect(proxy.port)
    half = connect(proxy.port, send=HALF_HEAD)
    kept = connect(proxy.port, send=b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    kept.settimeout(5)
    assert kept.recv(65536).startswith(b"HTTP/1.1 200")
    closed = wait_all_closed([idle, half], 9)
    assert all(t is not None for t in closed), closed
    assert closed_after(kept, 12) is not None
    assert healthz(proxy.url) == 200
    for s in (idle, half, kept):
        s.close()
