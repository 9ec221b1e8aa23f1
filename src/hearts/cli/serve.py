"""``hearts serve``: the web table (the ``web`` extra), imported only when it starts."""

from __future__ import annotations

import argparse
import os

from hearts.bots import LEVELS
from hearts.cli.common import Streams, usage_error
from hearts.review import DEFAULT_BUDGET


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts serve`` to the command's subparsers."""
    p = sub.add_parser(
        "serve",
        help="the web table: play in a browser, against bots or with friends",
        description="Start the web table (needs the 'web' extra) and print its address. On PostgreSQL, "
        "several processes (--workers, and servers on other machines on the same database) serve "
        "one service, and a bot worker makes the bots' moves.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port)")
    p.add_argument(
        "--db",
        metavar="URL",
        help="sqlite:///PATH (default: ~/.local/share/pyhearts/tables.db) or postgresql://USER@HOST:PORT/DBNAME",
    )
    p.add_argument(
        "--public-url",
        metavar="URL",
        help="the address friends reach the server at, for invite links (default: the address listened on)",
    )
    p.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change one of the server's limits, which each server process applies on its own "
        "(repeatable; e.g. --limit tables_rate=5/minute; every limit: docs/deployment.md)",
    )
    p.add_argument(
        "--log-level", default="info", choices=("debug", "info", "warning", "error"), help="JSON logs from this level up"
    )
    p.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        help="the reverse proxies whose X-Forwarded-For names the client, for the per-address limits "
        "(comma-separated addresses or networks, * for any; default none, not even 127.0.0.1)",
    )
    add_service_args(p)
    p.set_defaults(run=run)


def add_service_args(p: argparse.ArgumentParser) -> None:
    """The flags of ``hearts serve`` about its bots, its processes, its metrics and its reviews."""
    p.add_argument(
        "--bot-delay", type=float, default=0.7, metavar="SECONDS", help="pause before each bot move (default 0.7)"
    )
    p.add_argument(
        "--bot-workers",
        type=int,
        default=None,
        metavar="N",
        help="processes the bots think in (default: one per core, at most 4; 0: threads)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes sharing the port (PostgreSQL only; default 1)",
    )
    p.add_argument(
        "--bot-jobs",
        type=int,
        default=None,
        metavar="N",
        help="PostgreSQL: bot moves this service's bot worker makes at once (default 16; "
        "0: none here, run 'hearts bot-worker')",
    )
    p.add_argument(
        "--bots",
        nargs="+",
        action="extend",
        default=[],
        metavar="SPEC",
        help=f"bot specs the tables may seat besides the levels {', '.join(LEVELS)}, which stay what the "
        "lobby offers first (registered names, MODULE:CLASS, pyhearts.bots entry points; options as "
        "NAME:key=value,...; repeatable); each must load at start, and in the bot workers",
    )
    p.add_argument(
        "--metrics-token",
        metavar="TOKEN",
        default=os.environ.get("HEARTS_METRICS_TOKEN") or None,
        help="/metrics answers this machine only; with a token (16+ characters; better given in the "
        "environment, HEARTS_METRICS_TOKEN, than on the command line), also a scraper elsewhere that sends "
        "'Authorization: Bearer TOKEN'",
    )
    p.add_argument(
        "--review-budget",
        type=int,
        default=DEFAULT_BUDGET,
        metavar="N",
        help=f"sampled deals per decision of the game reviews players ask for (default {DEFAULT_BUDGET}; "
        "fewer: faster, less precise)",
    )


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts serve``: check the options, then run the server until it is stopped."""
    if args.bot_workers is not None and args.bot_workers < 0:
        return usage_error(streams.stderr, "serve", f"--bot-workers must be 0 (threads) or more, not {args.bot_workers}")
    try:
        from hearts.server.app import DEFAULT_BOT_JOBS, serve
        from hearts.server.limits import Limits
    except ImportError as e:
        return usage_error(
            streams.stderr, "serve", f"the web table needs the 'web' extra ({e}); pip install 'pyhearts[web]'"
        )
    try:
        serve(
            args.host,
            args.port,
            args.db,
            args.bot_delay,
            args.bot_workers,
            public_url=args.public_url,
            limits=Limits.from_strings(args.limit),
            log_level=args.log_level,
            forwarded_allow_ips=args.forwarded_allow_ips,
            workers=args.workers,
            bot_jobs=DEFAULT_BOT_JOBS if args.bot_jobs is None else args.bot_jobs,
            review_budget=args.review_budget,
            bots=args.bots,
            metrics_token=args.metrics_token,
        )
    except (ValueError, ImportError) as e:
        return usage_error(streams.stderr, "serve", str(e))
    return 0
