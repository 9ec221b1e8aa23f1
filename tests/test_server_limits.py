"""The web table is safe to put on the internet (issue 14, item 3): real server processes, real
HTTP and WebSocket clients, no mocks.

A body is refused while it arrives (the server's memory does not grow with it); each address
has its rates of tables, joins, connections and messages, and its open connections; the
all-bot tables are capped; a connection that never says hello, shows wrong tokens or floods is
closed with a code and a reason after its error messages; every malformed request is a 4xx
with a clear message, never a 500; every response has the security headers; invite links are
made from the public URL, never from the ``Host`` header; the lobby lists only the tables made
to be listed; a busy port or a bad database is one line on standard error and a non-zero exit.

Per-address limits are told apart with ``X-Forwarded-For`` (the servers here trust it from
127.0.0.1, ``--forwarded-allow-ips 127.0.0.1``, as from a reverse proxy on the same machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
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
    create_table,
    four_humans,
    http,
    request,
)

from hearts.server.limits import CLOSE_NO_TABLE, CLOSE_POLICY, CLOSE_TRY_LATER, Limits  # noqa: E402

STRICT = {
    "tables_rate": "3/minute",
    "joins_rate": "3/minute",
    "connect_rate": "8/minute",
    "messages_rate": "10/second",
    "connections_per_address": 3,
    "hello_timeout": 1.0,
    "hello_attempts": 3,
    "bot_tables_per_address": 1,
    "max_bot_tables": 2,
}
HUMANS = [{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cy", "Di")]
BOTS = [{"kind": "bot", "level": "easy"}] * 4
_addresses = iter(range(1, 250))


def new_address() -> dict[str, str]:
    """Headers that make a request come from an address no other test uses."""
    return {"X-Forwarded-For": f"198.51.100.{next(_addresses)}"}


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with small limits (each test comes from addresses of its own)."""
    s = ServerProcess(tmp_path_factory.mktemp("strict") / "tables.db", bot_delay=1.0, limits=STRICT,
                      forwarded_allow_ips="127.0.0.1").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(tmp_path_factory.mktemp("lenient") / "tables.db", forwarded_allow_ips="127.0.0.1").start()
    yield s
    s.stop()


def post(server: ServerProcess, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any, Any]:
    return request("POST", server.url + path, body, headers)


def table_from_elsewhere(server: ServerProcess, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """A new table, made from an address of its own."""
    status, _, table = post(server, "/api/tables", {"seats": seats}, new_address())
    assert status == 201, table
    return table  # type: ignore[no-any-return]


# ---------------------------------------------------------------- the body limit


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def send_body(port: int, head: str, chunks: Iterator[bytes], limit: int) -> tuple[bytes, int]:
    """Send a request's head, then its body chunk by chunk (at most ``limit`` bytes) while no
    answer has come; returns the answer and how many body bytes were sent."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head.encode())
        sock.settimeout(0.0)
        answer = b""
        for chunk in chunks:
            with contextlib.suppress(BlockingIOError):
                answer += sock.recv(65536)
            if answer or sent >= limit:
                break
            try:
                sock.settimeout(5)
                sock.sendall(chunk)
                sock.settimeout(0.0)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        sock.settimeout(5)
        try:
            while b"\r\n\r\n" not in answer:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        except (ConnectionResetError, TimeoutError):
            pass
    return answer, sent


def test_a_large_body_is_refused_while_it_arrives(server: ServerProcess) -> None:
    """A 100 MB POST: 413 at once when its length is declared, and after little more than the
    limit when it is sent in chunks; the server's memory does not grow with the body."""
    assert server.proc is not None
    before = rss_kib(server.proc.pid)
    mib = b"x" * (1 << 20)
    declared = (
        f"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {100 << 20}\r\n\r\n"
    )
    answer, sent = send_body(server.port, declared, iter([mib] * 100), 100 << 20)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"too large" in answer or sent < (8 << 20)
    chunked = (
        "POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
    answer, sent = send_body(server.port, chunked, iter([piece] * 1600), 100 << 20)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < (16 << 20), f"{sent} bytes were sent before the answer"
    after = rss_kib(server.proc.pid)
    assert after - before < 20 * 1024, f"the server grew by {(after - before) // 1024} MiB"
    status, err = http("POST", server.url + "/api/tables", {"seats": HUMANS, "pad": "x" * 20000})
    assert status == 413 and "too large" in err["error"] and "16384" in err["error"]


# ---------------------------------------------------------------- per-address rates and caps


def test_tables_per_address(strict: ServerProcess) -> None:
    mine, other = new_address(), new_address()
    for _ in range(3):
        status, _, table = post(strict, "/api/tables", {"seats": HUMANS}, mine)
        assert status == 201, table
    status, headers, err = post(strict, "/api/tables", {"seats": HUMANS}, mine)
    assert status == 429 and "too many tables created from your address" in err["error"]
    assert "3 per minute" in err["error"] and 0 < int(headers["Retry-After"]) <= 60
    status, _, _ = post(strict, "/api/tables", {"seats": HUMANS}, other)
    assert status == 201


def test_joins_per_address(strict: ServerProcess) -> None:
    status, _, table = post(strict, "/api/tables", {"seats": [HUMANS[0]] + [{"kind": "open"}] * 3}, new_address())
    assert status == 201
    joiner = new_address()
    path = f"/api/tables/{table['id']}/join"
    for _ in range(3):
        status, _, joined = post(strict, path, {"name": "Guest"}, joiner)
        assert status in (200, 409), joined
    status, _, err = post(strict, path, {"name": "Guest"}, joiner)
    assert status == 429 and "seats joined" in err["error"]


def test_all_bot_tables_are_capped(strict: ServerProcess) -> None:
    """At most one all-bot table per address and two in all; a table with a person is no
    all-bot table."""
    a, b, c = new_address(), new_address(), new_address()
    assert post(strict, "/api/tables", {"seats": BOTS}, a)[0] == 201
    status, _, err = post(strict, "/api/tables", {"seats": BOTS}, a)
    assert status == 429 and "all-bot tables" in err["error"]
    assert post(strict, "/api/tables", {"seats": [HUMANS[0], *BOTS[:3]]}, a)[0] == 201
    assert post(strict, "/api/tables", {"seats": BOTS}, b)[0] == 201
    status, _, err = post(strict, "/api/tables", {"seats": BOTS}, c)
    assert status == 503 and "maximum of 2 all-bot tables" in err["error"]


def test_connections_per_address_and_their_rate(strict: ServerProcess) -> None:
    table = table_from_elsewhere(strict, HUMANS)

    async def main() -> None:
        mine = new_address()
        held = [await Client(strict, table["id"], None).connect(hello=False, headers=mine) for _ in range(3)]
        refused = await Client(strict, table["id"], None).connect(hello=False, headers=mine)
        code, reason = await refused.closed()
        assert code == CLOSE_TRY_LATER and "too many connections open from your address" in reason
        assert [m["code"] for m in refused.messages] == ["rate_limited"]
        other = await Client(strict, table["id"], table["seats"][0]["token"]).connect(headers=new_address())
        await other.close()
        await held[0].close()
        await asyncio.sleep(0.1)
        again = await Client(strict, table["id"], table["seats"][1]["token"]).connect(headers=mine)
        # Eight opened in a minute (a refused one is not counted): the ninth is refused,
        # whatever is open.
        for c in [*held[1:], again]:
            await c.close()
        for _ in range(4):
            c = await Client(strict, table["id"], None).connect(hello=False, headers=mine)
            await c.close()
        late = await Client(strict, table["id"], None).connect(hello=False, headers=mine)
        code, reason = await late.closed()
        assert code == CLOSE_TRY_LATER and "too many connections opened" in reason

    asyncio.run(main())


def test_a_message_flood_is_closed_with_a_reason_after_the_queued_answers(strict: ServerProcess) -> None:
    table = table_from_elsewhere(strict, HUMANS)

    async def main() -> None:
        c = await Client(strict, table["id"], table["seats"][0]["token"]).connect(headers=new_address())
        for _ in range(30):
            await c.send({"type": "ping"})
        code, reason = await c.closed()
        assert code == CLOSE_POLICY and "too many messages from your address" in reason
        kinds = [m["type"] for m in c.messages]
        assert kinds.count("pong") == 9 and kinds[-1] == "error"  # hello was the first of ten
        assert c.messages[-1]["code"] == "rate_limited" and "10 per second" in c.messages[-1]["message"]

    asyncio.run(main())


def test_silent_connections_are_closed_after_the_hello_timeout(strict: ServerProcess) -> None:
    table = table_from_elsewhere(strict, HUMANS)

    async def main() -> None:
        t0 = time.monotonic()
        silent = await Client(strict, table["id"], None).connect(hello=False, headers=new_address())
        chatty = await Client(strict, table["id"], None).connect(hello=False, headers=new_address())
        await chatty.send({"type": "ping"})  # no hello nor watch: the clock still runs
        for c in (silent, chatty):
            code, reason = await c.closed(timeout=5)
            assert code == CLOSE_POLICY and reason == "no hello or watch within 1 s"
            assert c.messages[-1]["code"] == "timeout"
        assert 0.9 < time.monotonic() - t0 < 4
        seated = await Client(strict, table["id"], table["seats"][0]["token"]).connect(headers=new_address())
        await asyncio.sleep(1.5)  # a seated connection has no such clock
        assert (await seated.request({"type": "ping"}, lambda m: m["type"] == "pong"))
        await seated.close()

    asyncio.run(main())


def test_wrong_tokens_close_the_connection(strict: ServerProcess) -> None:
    table = table_from_elsewhere(strict, HUMANS)

    async def main() -> None:
        c = await Client(strict, table["id"], None).connect(hello=False, headers=new_address())
        for _ in range(3):
            await c.send({"type": "hello", "token": "forged"})
        code, reason = await c.closed()
        assert code == CLOSE_POLICY and "too many wrong tokens" in reason
        assert [m["code"] for m in c.messages] == ["bad_token"] * 3
        ghost = await Client(strict, "nope", None).connect(hello=False, headers=new_address())
        assert await ghost.closed() == (CLOSE_NO_TABLE, "there is no such table")

    asyncio.run(main())


# ---------------------------------------------------------------- malformed requests


BAD_TABLES: list[tuple[Any, str]] = [
    ('{"seats": [], "target": ' + "9" * 5000 + "}", "a number of 5000 characters"),
    ('{"seats": [' + "[" * 5000 + "]" * 5000 + "]}", "nested deeper"),
    ('{"seats": ' + "[" * 20 + "]" * 20 + "}", "nested deeper"),
    ('{"seats": NaN}', "NaN is not JSON"),
    ('{"seats": [], "target": 1e999}', "out of range"),
    (b'{"seats": "\xff"}', "malformed JSON"),
    (b"{oops", "malformed JSON"),
    ("[1, 2]", "must be a JSON object"),
    ({"seats": "four"}, "'seats' must be a list"),
    ({"seats": [1, 2, 3, 4]}, "Seat 1 must be a JSON object"),
    ({"seats": HUMANS[:2]}, "3 to 6 seats"),
    ({"seats": HUMANS, "options": []}, "'options' must be an object"),
    ({"seats": HUMANS, "options": {"moon": "sometimes"}}, "R4.4"),
    ({"seats": HUMANS, "options": {"colour": "red"}}, "unknown option 'colour'"),
    ({"seats": HUMANS, "preset": 5}, "'preset' must be one of the presets"),
    ({"seats": HUMANS, "preset": "nope"}, "unknown preset"),
    ({"seats": HUMANS, "target": "10"}, "'target' must be an integer"),
    ({"seats": HUMANS, "target": True}, "'target' must be an integer"),
    ({"seats": HUMANS, "target": 10**15}, "R5.1"),
    ({"seats": HUMANS, "spectators": "yes"}, "'spectators' must be true or false"),
    ({"seats": HUMANS, "listed": 1}, "'listed' must be true or false"),
    ({"seats": HUMANS, "turn_timer": "30"}, "'turn_timer' must be a whole number"),
    ({"seats": HUMANS, "turn_timer": 1.5}, "'turn_timer' must be a whole number"),
    ({"seats": HUMANS, "turn_timer": -1}, "'turn_timer' must be 0"),
    ({"seats": HUMANS, "turn_timer": 10**6}, "'turn_timer' must be 0"),
    ({"seats": HUMANS, "stand_in": "godlike"}, "bot level 'godlike'"),
    ({"seats": HUMANS, "colour": "red"}, "unknown field 'colour'"),
    ({"seats": [{"kind": "human", "colour": "red"}] * 4}, "Seat 1: unknown field 'colour'"),
    ({"seats": [{"kind": "alien"}] * 4}, "kind 'alien'"),
    ({"seats": [{"kind": 3}] * 4}, "'kind' must be one of human"),
    ({"seats": [{"kind": "bot", "level": "godlike"}] * 4}, "bot level 'godlike'"),
    ({"seats": [{"kind": "human", "name": 5}] * 4}, "Seat 1: a name has at most 40 characters"),
    ({"seats": [{"kind": "human", "name": "x" * 41}] * 4}, "at most 40"),
    ({"seats": [{"kind": "human", "name": "a\u0000b"}] * 4}, "printable"),
    ({"seats": [{"kind": "human", "name": "\ud800"}] * 4}, "printable"),
]


def test_every_malformed_table_request_is_a_400_with_a_clear_message(server: ServerProcess) -> None:
    for body, words in BAD_TABLES:
        raw = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode()
        status, err = http("POST", server.url + "/api/tables", raw)
        assert status == 400, (body if isinstance(body, dict) else str(body)[:60], err)
        assert words in err["error"], (words, err)
    assert no_errors_logged(server)


def test_malformed_joins_and_other_requests_are_4xx(server: ServerProcess) -> None:
    table = create_table(server, [HUMANS[0]] + [{"kind": "open"}] * 3)
    join = f"{server.url}/api/tables/{table['id']}/join"
    for body, status, words in [
        ({"seat": "1"}, 400, "'seat' must be a seat number"),
        ({"seat": 1.5}, 400, "'seat' must be a seat number"),
        ({"seat": True}, 400, "'seat' must be a seat number"),
        ({"seat": 10**15}, 400, "does not exist"),
        ({"seat": -1}, 400, "does not exist"),
        ({"seat": 0}, 409, "not free"),
        ({"name": ["Ann"]}, 400, "a name has at most 40 characters"),
        ({"colour": "red"}, 400, "unknown field 'colour'"),
        ('{"seat": ' + "1" * 5000 + "}", 400, "a number of 5000 characters"),
        ("[" * 5000, 400, "nested deeper"),
    ]:
        got, err = http("POST", join, body.encode() if isinstance(body, str) else body)
        assert got == status and words in err["error"], (body, err)
    for method, url, body, status, words in [
        ("POST", server.url + "/api/tables", None, 400, "'seats' must be a list"),
        ("GET", server.url + "/api/tables/nope", None, 404, "no such table"),
        ("GET", server.url + "/api/tables/" + "x" * 5000, None, 404, "no such table"),
        ("POST", server.url + "/api/tables/nope/join", {}, 404, "no such table"),
        ("GET", server.url + "/api/tables/nope/record", None, 404, "no such table"),
        ("GET", server.url + "/api/nothing", None, 404, "Not Found"),
        ("DELETE", server.url + "/api/tables", None, 405, "Method Not Allowed"),
        ("GET", server.url + "/cards/" + "Q" * 5000 + ".svg", None, 404, "no card"),
    ]:
        got, err = http(method, url, body)
        assert got == status and words in err["error"], (method, url[:80], err)
    status, _, err = request("POST", server.url + "/api/tables", b'{"seats": []}', {"Content-Type": "text/plain"})
    assert status == 415 and "Content-Type: application/json" in err["error"]
    assert no_errors_logged(server)


def test_malformed_websocket_messages_are_errors(server: ServerProcess) -> None:
    table = four_humans(server)

    async def main() -> None:
        c = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        for raw, code in [
            ('{"type": "play", "seq": ' + "1" * 4000 + ', "card": "QS"}', "bad_json"),
            ('{"type": "play", "seq": 0, "card": ' + "[" * 1500 + "]" * 1500 + "}", "bad_json"),
            ('{"type": "hello", "token": 5}', "bad_message"),
            ('{"type": "hello", "token": "' + "x" * 500 + '"}', "bad_message"),
            ('{"type": "play", "seq": 1e999, "card": "QS"}', "bad_json"),
            ('{"type": "play", "seq": -1, "card": "QS"}', "bad_message"),
        ]:
            err = await c.request(raw, lambda m: m["type"] == "error")
            assert err["code"] == code, (raw[:50], err)
        assert (await c.request({"type": "ping"}, lambda m: m["type"] == "pong"))
        await c.close()

    asyncio.run(main())
    assert no_errors_logged(server)


def no_errors_logged(server: ServerProcess) -> bool:
    """No line of the server's log is an error (an exception: a 500)."""
    bad = [line for line in server.logs() if line["level"] in ("error", "critical")]
    assert not bad, bad[:3]
    return True


# ---------------------------------------------------------------- headers, links, lobby


def test_security_headers_on_every_response(server: ServerProcess) -> None:
    table = four_humans(server)
    for method, path, body in [
        ("GET", "/", None),
        ("GET", f"/t/{table['id']}", None),
        ("GET", "/static/app.js", None),
        ("GET", "/static/style.css", None),
        ("GET", "/cards/QS.svg", None),
        ("GET", "/api/config", None),
        ("GET", "/api/tables", None),
        ("POST", "/api/tables", {"seats": "x"}),
        ("GET", "/nothing", None),
        ("GET", "/healthz", None),
        ("GET", "/metrics", None),
    ]:
        _status, headers, _ = request(method, server.url + path, body)
        csp = headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp, path
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "no-referrer"
        if path.startswith("/api/"):
            assert headers["Cache-Control"] == "no-store"  # an answer may hold a seat's token


def test_invite_links_use_the_public_url_never_the_host_header(tmp_path: Path) -> None:
    public = ServerProcess(tmp_path / "public.db", public_url="https://hearts.example/play/").start()
    plain = ServerProcess(tmp_path / "plain.db").start()
    try:
        evil = {"Host": "evil.example", "X-Forwarded-Host": "evil.example"}
        for server, base in ((public, "https://hearts.example/play"), (plain, f"http://127.0.0.1:{plain.port}")):
            status, _, table = request(
                "POST", server.url + "/api/tables", {"seats": [HUMANS[0], {"kind": "open"}, HUMANS[1], {"kind": "open"}]}, evil
            )
            assert status == 201
            tid, token = table["id"], table["seats"][0]["token"]
            assert table["seats"][0]["link"] == f"{base}/t/{tid}#seat=0&token={token}"
            assert table["watch"] == f"{base}/t/{tid}#watch"
            status, _, joined = request("POST", f"{server.url}/api/tables/{tid}/join", {"name": "Guest"}, evil)
            assert joined["link"] == f"{base}/t/{tid}#seat=1&token={joined['token']}"
            status, config = http("GET", server.url + "/api/config")
            assert config["public_url"] == base and config["local_only"] is (server is plain)
    finally:
        public.stop()
        plain.stop()


def test_the_lobby_lists_only_tables_made_to_be_listed(server: ServerProcess) -> None:
    invited = four_humans(server)
    shown = four_humans(server, listed=True)
    open_seat = create_table(server, [HUMANS[0], {"kind": "open"}, *BOTS[:2]])
    hidden_open = create_table(server, [HUMANS[0], {"kind": "open"}, *BOTS[:2]], listed=False)
    assert (invited["listed"], shown["listed"], open_seat["listed"], hidden_open["listed"]) == (False, True, True, False)
    _status, lobby = http("GET", server.url + "/api/tables")
    listed = {t["id"] for t in lobby["tables"]}
    assert shown["id"] in listed and open_seat["id"] in listed
    assert invited["id"] not in listed and hidden_open["id"] not in listed
    # An unlisted table is still there for those who have its link.
    assert http("GET", f"{server.url}/api/tables/{invited['id']}")[0] == 200


# ---------------------------------------------------------------- starting the server


def hearts_serve(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hearts", "serve", *args], capture_output=True, text=True, timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_a_busy_port_is_one_line_and_a_nonzero_exit(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = hearts_serve("--port", str(port), "--db", f"sqlite:///{tmp_path / 't.db'}")
    assert done.returncode != 0
    assert done.stdout == ""  # the address is printed only once it is listened on
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert f"cannot listen on http://127.0.0.1:{port}" in lines[0] and "in use" in lines[0]


@pytest.mark.parametrize("kind", ["directory", "not a database", "no such place"])
def test_a_bad_database_is_one_line_and_a_nonzero_exit(tmp_path: Path, kind: str) -> None:
    if kind == "directory":
        db = tmp_path
    elif kind == "not a database":
        db = tmp_path / "junk.db"
        db.write_bytes(b"these are not the tables you are looking for" * 100)
    else:
        db = Path("/proc/no/such/place.db")
    mode = db.stat().st_mode if db.is_dir() else None
    done = hearts_serve("--port", "0", "--db", f"sqlite:///{db}")
    assert done.returncode != 0 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "cannot open the database" in lines[0], done.stderr
    assert (db.stat().st_mode if db.is_dir() else None) == mode  # a folder named is left as it was


def test_the_address_is_printed_once_listened_on(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hearts", "serve", "--port", "0", "--db", f"sqlite:///{tmp_path / 't.db'}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        preparing, ready, first = (proc.stdout.readline() for _ in range(3))  # the bots are prepared first
        assert preparing.startswith("Preparing the bots") and ready.startswith("Bots ready"), (preparing, ready)
        assert first.startswith("pyhearts web table on http://127.0.0.1:"), first
        port = int(first.split("http://127.0.0.1:")[1].split("/")[0])
        assert port > 0
        status, health = http("GET", f"http://127.0.0.1:{port}/healthz")
        assert status == 200 and health["ok"] is True
        assert "only this machine" in proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(10)


def test_limits_from_strings_name_a_bad_one() -> None:
    assert Limits.from_strings(["hello_timeout=2", "tables_rate=5 per minute"]).hello_timeout == 2.0
    for items, words in [
        (["tables=3"], "unknown limit 'tables'"),
        (["tables_rate=lots"], "not a rate"),
        (["max_body=big"], "not an integer"),
        (["max_body=0"], "positive"),
        (["max_body"], "NAME=VALUE"),
    ]:
        with pytest.raises(ValueError, match=words):
            Limits.from_strings(items)
