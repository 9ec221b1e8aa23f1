"""deploy/nginx.conf with its placeholders filled: the address nginx listens on and the
``hearts serve`` processes it forwards to.

    python deploy/nginx_conf.py --listen 0.0.0.0:80 127.0.0.1:8001 127.0.0.1:8002 > nginx.conf

(The tests and ``benchmarks/cluster_load.py`` import :func:`render` and :func:`start`.)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

TEMPLATE = Path(__file__).with_name("nginx.conf")
_ADDRESS = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$|^([0-9]{1,5})$")
_UPSTREAMS = re.compile(r"(# upstreams: begin\n)(.*?)(\s*# upstreams: end)", re.S)
_SERVER = re.compile(r"^\s*server \S+((?: [^;\s]+)*);$", re.M)
_LISTEN = re.compile(r"^(\s*)listen 8080;$", re.M)
_PER_ADDRESS = re.compile(r"limit_conn per_address 64;")


def check_address(text: str, what: str) -> str:
    """``HOST:PORT`` (or a port alone, for ``listen``); :class:`ValueError` naming ``what``
    otherwise."""
    match = _ADDRESS.match(text)
    port = int((match.group(2) or match.group(3)) if match else 0)
    if not match or not 0 < port < 65536 or (what != "listen" and match.group(3)):
        raise ValueError(f"{what}: {text!r} is not HOST:PORT (such as 127.0.0.1:8001)")
    return text


def render(listen: str, upstreams: list[str], template: str | None = None, per_address: int = 64) -> str:
    """The configuration listening on ``listen`` (``PORT`` or ``HOST:PORT``) and forwarding to
    ``upstreams`` (``HOST:PORT`` each, at least one), holding at most ``per_address``
    connections of one client address; raises :class:`ValueError` on bad input."""
    if not 0 < per_address < 65536:
        raise ValueError(f"per_address: {per_address} is not 1 to 65535 (nginx's bounds)")
    if not upstreams:
        raise ValueError("at least one upstream (a hearts serve process's HOST:PORT) is needed")
    text = TEMPLATE.read_text() if template is None else template
    addresses = [check_address(u, "upstream") for u in upstreams]

    def servers(block: re.Match[str]) -> str:
        """An upstream's list of servers, each with the parameters of the template's first."""
        first = _SERVER.search(block.group(2))
        parameters = first.group(1) if first else ""
        listed = "\n".join(f"        server {address}{parameters};" for address in addresses)
        return block.group(1) + listed + block.group(3)

    text, n = _UPSTREAMS.subn(servers, text)
    text, m = _LISTEN.subn(lambda g: f"{g.group(1)}listen {check_address(listen, 'listen')};", text)
    text, k = _PER_ADDRESS.subn(f"limit_conn per_address {per_address};", text)
    if n != 2 or m != 1 or k != 1:
        raise ValueError("the template has lost its placeholders ('listen 8080;', '# upstreams: begin/end' twice, "
                         "'limit_conn per_address 64;')")
    return text


def start(binary: str, prefix: Path, config: str, ready: str, timeout: float = 15.0) -> subprocess.Popen[bytes]:
    """Run nginx ``binary`` in the foreground with the configuration text ``config``, its
    files in the folder ``prefix`` (made if missing), and wait until the URL ``ready`` answers
    through it (any HTTP status). As root its workers run as root too: "nobody" cannot enter a
    test's private folders. Raises :class:`RuntimeError` if it exits or does not answer."""
    prefix.mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(config)
    directives = "daemon off; user root;" if os.geteuid() == 0 else "daemon off;"
    proc = subprocess.Popen([binary, "-p", str(prefix), "-c", str(conf), "-g", directives],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"nginx exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            urllib.request.urlopen(ready, timeout=2).read()
            return proc
        except urllib.error.HTTPError:
            return proc
        except OSError:
            time.sleep(0.05)
    proc.terminate()
    raise RuntimeError("nginx did not start")


def main(argv: list[str] | None = None) -> int:
    """Print the rendered configuration; 2 and a message on bad arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default="8080", help="PORT or HOST:PORT nginx listens on (default 8080)")
    parser.add_argument("upstreams", nargs="+", metavar="HOST:PORT", help="the hearts serve processes")
    args = parser.parse_args(argv)
    try:
        sys.stdout.write(render(args.listen, args.upstreams))
    except ValueError as e:
        parser.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
