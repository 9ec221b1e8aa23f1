"""deploy/nginx.conf with its placeholders filled: the address nginx listens on and the
``hearts serve`` processes it forwards to.

    python deploy/nginx_conf.py --listen 0.0.0.0:80 127.0.0.1:8001 127.0.0.1:8002 > nginx.conf

(The tests import :func:`render`.)
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

TEMPLATE = Path(__file__).with_name("nginx.conf")
_ADDRESS = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$|^([0-9]{1,5})$")
_UPSTREAMS = re.compile(r"(# upstreams: begin\n)(.*?)(\s*# upstreams: end)", re.S)
_LISTEN = re.compile(r"^(\s*)listen 8080;$", re.M)


def check_address(text: str, what: str) -> str:
    """``HOST:PORT`` (or a port alone, for ``listen``); :class:`ValueError` naming ``what``
    otherwise."""
    match = _ADDRESS.match(text)
    port = int((match.group(2) or match.group(3)) if match else 0)
    if not match or not 0 < port < 65536 or (what != "listen" and match.group(3)):
        raise ValueError(f"{what}: {text!r} is not HOST:PORT (such as 127.0.0.1:8001)")
    return text


def render(listen: str, upstreams: list[str], template: str | None = None) -> str:
    """The configuration listening on ``listen`` (``PORT`` or ``HOST:PORT``) and forwarding to
    ``upstreams`` (``HOST:PORT`` each, at least one); raises :class:`ValueError` on bad input."""
    if not upstreams:
        raise ValueError("at least one upstream (a hearts serve process's HOST:PORT) is needed")
    text = TEMPLATE.read_text() if template is None else template
    servers = "".join(f"        server {check_address(u, 'upstream')} max_fails=1 fail_timeout=5s;\n"
                      for u in upstreams)
    text, n = _UPSTREAMS.subn(lambda m: m.group(1) + servers.rstrip("\n") + m.group(3), text)
    text, m = _LISTEN.subn(lambda g: f"{g.group(1)}listen {check_address(listen, 'listen')};", text)
    if n != 1 or m != 1:
        raise ValueError("the template has lost its placeholders ('listen 8080;', '# upstreams: begin/end')")
    return text


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
