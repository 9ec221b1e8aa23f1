"""``hearts bot-worker``: make the bots' moves of a web table service on PostgreSQL, on any
machine (the ``web`` and ``postgres`` extras)."""

from __future__ import annotations

import argparse

from hearts.cli.common import Streams, usage_error

NAME = "bot-worker"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts bot-worker`` to the command's subparsers."""
    p = sub.add_parser(
        NAME,
        help="make the bots' moves of a web table service on PostgreSQL",
        description="Claim the bot jobs of a web table service's PostgreSQL database (fairly: oldest "
        "first, one job per table at a time) and make the bots' moves, until stopped. Run as many as "
        "you like, on any machines; a worker that dies lets its jobs go when their leases run out (a few "
        "seconds), and one whose database goes away waits for it (saying so once) and goes on.",
    )
    p.add_argument("--db", metavar="URL", required=True, help="the service's database: postgresql://USER@HOST:PORT/DBNAME")
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="jobs held at once (default 16)")
    p.add_argument(
        "--processes",
        type=int,
        default=None,
        metavar="N",
        help="processes the bots think in (default: one per core, at most 4; 0: threads)",
    )
    p.add_argument(
        "--lease",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long a claim holds a job unrenewed before another worker may take it over (default 3)",
    )
    p.add_argument(
        "--heartbeat",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how often the claims held are renewed (default: a third of the lease, at most 1)",
    )
    p.add_argument(
        "--reviews",
        type=int,
        default=1,
        metavar="N",
        help="game reviews computed at once, at a lower priority than the bots' moves (default 1; 0: none here)",
    )
    p.add_argument(
        "--log-level", default="info", choices=("debug", "info", "warning", "error"), help="JSON logs from this level up"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts bot-worker``: check the options, then work until stopped."""
    try:
        from hearts.server.botworker import DEFAULT_JOBS, DEFAULT_LEASE, WorkerOptions, run_worker
        from hearts.server.storage import StoreError, is_postgres
    except ImportError as e:
        return usage_error(streams.stderr, NAME, f"needs the 'web' extra ({e}); pip install 'pyhearts[web,postgres]'")
    jobs = DEFAULT_JOBS if args.jobs is None else args.jobs
    lease = DEFAULT_LEASE if args.lease is None else args.lease
    if jobs < 1:
        return usage_error(streams.stderr, NAME, f"--jobs must be 1 or more, not {jobs}")
    if not lease > 0:
        return usage_error(streams.stderr, NAME, f"--lease must be more than 0 seconds, not {lease}")
    if args.heartbeat is not None and not 0 < args.heartbeat < lease:
        return usage_error(streams.stderr, NAME, f"--heartbeat must be more than 0 and less than --lease ({lease} s), "
                           f"not {args.heartbeat}")
    if args.reviews < 0:
        return usage_error(streams.stderr, NAME, f"--reviews must be 0 or more, not {args.reviews}")
    if args.processes is not None and args.processes < 0:
        return usage_error(streams.stderr, NAME, f"--processes must be 0 (threads) or more, not {args.processes}")
    try:
        if not is_postgres(args.db):
            return usage_error(streams.stderr, NAME, f"--db must be a PostgreSQL URL (postgresql://…), not {args.db!r}: "
                               "with SQLite, the server runs its bots itself")
        run_worker(WorkerOptions(args.db, jobs=jobs, processes=args.processes, lease=lease, heartbeat=args.heartbeat,
                                 log_level=args.log_level, reviews=args.reviews))
    except (ImportError, StoreError, ValueError) as e:
        return usage_error(streams.stderr, NAME, " ".join(str(e).split()))
    return 0
