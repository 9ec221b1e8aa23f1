"""``/metrics`` is private by default (issue 39, item 3): a real server process answers it to
this machine only (a loopback client, as the server sees it: behind a trusted proxy, the
``X-Forwarded-For`` client), and to a scraper elsewhere only with the token it was started
with (``hearts serve --metrics-token``, or ``HEARTS_METRICS_TOKEN``: ``Authorization: Bearer
TOKEN``); ``deploy/nginx.conf`` passes no ``/metrics`` through. ``/healthz`` stays public.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_server_support import ServerProcess, free_port, http, stop

OUTSIDE = {"X-Forwarded-For": "203.0.113.7"}
"""A request that a trusted proxy forwards from a client elsewhere (TEST-NET-3)."""


def scrape(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    return http("GET", url + "/metrics", headers=headers)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server behind a trusted proxy (127.0.0.1), started with no metrics token."""
    s = ServerProcess(tmp_path_factory.mktemp("metrics") / "tables.db", forwarded_allow_ips="127.0.0.1").start()
    yield s
    s.stop()


def test_the_metrics_answer_this_machine_only_by_default(plain: ServerProcess) -> None:
    status, text = scrape(plain.url)
    assert status == 200 and "hearts_connections" in text
    for headers in (OUTSIDE, {**OUTSIDE, "Authorization": "Bearer a-guess"}):
        status, data = scrape(plain.url, headers)
        assert status == 403 and "private" in data["error"], data
        assert "hearts_" not in str(data)
    assert http("GET", plain.url + "/healthz", headers=OUTSIDE)[0] == 200


@pytest.fixture(scope="module")
def with_token(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """``hearts serve`` (the command) behind a trusted proxy, its token from the environment."""
    folder = tmp_path_factory.mktemp("metrics_token")
    port, token = free_port(), "s3cret-metrics-token"
    env = {**os.environ, "HEARTS_METRICS_TOKEN": token, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "hearts", "serve", "--port", str(port), "--db", f"sqlite:///{folder / 'tables.db'}",
               "--forwarded-allow-ips", "127.0.0.1"]
    with open(folder / "server.log", "ab") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=log, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, (folder / "server.log").read_text()[-2000:]
        assert time.monotonic() < deadline, "hearts serve did not start"
        try:
            http("GET", url + "/healthz")
            break
        except (OSError, urllib.error.URLError):
            time.sleep(0.1)
    yield url, token
    stop(proc)


def test_a_metrics_token_lets_a_scraper_elsewhere_in(with_token: tuple[str, str]) -> None:
    url, token = with_token
    assert scrape(url, OUTSIDE)[0] == 403
    assert scrape(url, {**OUTSIDE, "Authorization": "Bearer not-" + token})[0] == 403
    assert scrape(url, {**OUTSIDE, "Authorization": token})[0] == 403  # not a Bearer header
    status, text = scrape(url, {**OUTSIDE, "Authorization": "Bearer " + token})
    assert status == 200 and "hearts_connections" in text
    assert scrape(url)[0] == 200  # this machine, as without a token


def test_the_command_offers_the_metrics_token() -> None:
    shown = subprocess.run([sys.executable, "-m", "hearts", "serve", "--help"], capture_output=True, text=True,
                           check=True).stdout
    assert "--metrics-token" in shown and "HEARTS_METRICS_TOKEN" in shown


def test_nginx_passes_no_metrics_through(plain: ServerProcess, tmp_path: Path) -> None:
    """deploy/nginx.conf in front of the server: ``/metrics`` is refused by nginx, even to this
    machine (the processes are scraped at their own addresses); ``/healthz`` goes through."""
    from test_server_edge import Nginx, nginx_binary

    binary = nginx_binary()
    proxy = Nginx(tmp_path / "nginx", [plain]).start(binary)
    try:
        assert http("GET", proxy.url + "/healthz")[0] == 200
        status, _ = scrape(proxy.url)
        assert status in (403, 404), status
    finally:
        proxy.stop()
