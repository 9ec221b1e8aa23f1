"""``hearts admin``: the operator's commands on a web table service's database (the one
``hearts serve --db`` uses: SQLite by default, or PostgreSQL) — the players' reports, and bans.

``hearts admin reports [--json]`` lists the latest reports (who reported whom, why, at which
table, with that table's chat as it was), and the banned profiles; ``hearts admin ban
PLAYER_ID [--reason TEXT]`` bans a profile — from then on every server process of the service
refuses it a seat, the chat and the quick-match queue (each checks the database) — and
``hearts admin unban PLAYER_ID`` lifts it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TextIO

from hearts.cli.common import Streams, usage_error

if TYPE_CHECKING:
    from hearts.server.storage import BanRow, ReportRow, Storage

NAME = "admin"
MAX_REASON = 500
"""Characters of a ban's reason, at most (as a report's: hearts.server.storage.MAX_REASON)."""
DB_HELP = "sqlite:///PATH (default: ~/.local/share/pyhearts/tables.db) or postgresql://USER@HOST:PORT/DBNAME"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts admin`` and its commands to the command's subparsers."""
    p = sub.add_parser(NAME, help="the operator's commands: players' reports, bans",
                       description="The operator's commands on the database of `hearts serve` (the same --db).")
    commands = p.add_subparsers(dest="admin_command", metavar="ACTION", required=True)
    reports = commands.add_parser("reports", help="list the latest reports and the banned profiles")
    reports.add_argument("--limit", type=int, default=50, metavar="N", help="the latest N reports (default 50)")
    reports.add_argument("--json", action="store_true", help="as JSON: {reports: [...], bans: [...]}")
    ban = commands.add_parser("ban", help="ban a player profile on every server process")
    ban.add_argument("player", metavar="PLAYER_ID",
                     help="the profile's id (as `hearts admin reports` shows it); an id that begins with '-' "
                          "goes last, after '--': hearts admin ban --reason spam -- -x1Y2")
    ban.add_argument("--reason", default="", help="why (kept with the ban, at most 500 characters)")
    unban = commands.add_parser("unban", help="lift a profile's ban")
    unban.add_argument("player", metavar="PLAYER_ID", help="the profile's id (one that begins with '-': after '--')")
    for command in (reports, ban, unban):
        command.add_argument("--db", metavar="URL", default=None, help=DB_HELP)
    p.set_defaults(run=run)


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts admin ACTION``: 0 when done, 1 for an unknown profile, 2 for a bad command line
    or a database that cannot be opened."""
    try:
        from hearts.server.storage import StoreError, describe_url, open_storage

        describe_url(args.db)
    except ImportError as e:
        return usage_error(streams.stderr, NAME, f"needs the 'web' extra ({e}); pip install 'pyhearts[web]'")
    except ValueError as e:  # a URL of no backend
        return usage_error(streams.stderr, NAME, str(e))
    if args.admin_command == "reports" and args.limit < 1:
        return usage_error(streams.stderr, NAME, f"--limit must be 1 or more, not {args.limit}")
    if args.admin_command == "ban" and len(" ".join(args.reason.split())) > MAX_REASON:
        return usage_error(streams.stderr, NAME, f"--reason is at most {MAX_REASON} characters")
    action: Callable[[Storage], Awaitable[str]] = {
        "reports": lambda store: list_reports(store, args.limit, args.json),
        "ban": lambda store: ban(store, args.player, args.reason),
        "unban": lambda store: unban(store, args.player),
    }[args.admin_command]

    async def main() -> str:
        store = await open_storage(args.db)
        try:
            return await action(store)
        finally:
            await store.close()

    try:
        streams.stdout.write(asyncio.run(main()))
    except (StoreError, ImportError, OSError) as e:
        return usage_error(streams.stderr, NAME, " ".join(str(e).split()))
    except ValueError as e:  # an unknown profile (nothing changed)
        return fail(streams.stderr, str(e))
    return 0


def fail(errors: TextIO, message: str) -> int:
    """One line of error, exit code 1."""
    errors.write(f"hearts {NAME}: error: {message}\n")
    return 1


async def ban(store: Storage, player_id: str, reason: str) -> str:
    """Ban a profile (``ValueError`` if there is none)."""
    done = await store.players.ban(player_id, " ".join(reason.split()))
    name = await player_name(store, player_id)
    return f"banned {player_id} ({name})\n" if done else f"{player_id} ({name}) is already banned\n"


async def unban(store: Storage, player_id: str) -> str:
    """Lift a profile's ban."""
    return f"unbanned {player_id}\n" if await store.players.unban(player_id) else f"{player_id} was not banned\n"


async def player_name(store: Storage, player_id: str) -> str:
    """A profile's name (``?``: none)."""
    return (await store.players.names([player_id])).get(player_id, "?")


async def list_reports(store: Storage, limit: int, as_json: bool) -> str:
    """The latest reports and the bans, as text or JSON."""
    reports = await store.players.reports(limit)
    bans = await store.players.bans()
    if as_json:
        return json.dumps({"reports": [report_dict(r) for r in reports], "bans": [ban_dict(b) for b in bans]},
                          indent=1) + "\n"
    names = await store.players.names({p for r in reports for p in (r.reporter, r.reported)})
    banned = {b.player_id for b in bans}
    lines = [f"{len(reports)} report(s), the latest first:" if reports else "no reports"]
    for r in reports:
        lines.extend(report_lines(r, names, banned))
    lines.append(f"{len(bans)} banned profile(s):" if bans else "no banned profiles")
    lines.extend(f"  {b.player_id} ({b.name}) since {b.created:%Y-%m-%d %H:%M} UTC: {b.reason or '(no reason)'}"
                 for b in bans)
    return "\n".join(lines) + "\n"


def report_lines(r: ReportRow, names: dict[str, str], banned: set[str]) -> list[str]:
    """One report as text: who, whom, where, why, and the table's chat as it was."""
    def who(p: str) -> str:
        return f"{p} ({names.get(p, '?')})" + (" [banned]" if p in banned else "")

    where = f" at table {r.table_id}" if r.table_id else ""
    out = [f"#{r.id} {r.created:%Y-%m-%d %H:%M} UTC: {who(r.reporter)} reported {who(r.reported)}{where}: {r.reason}"]
    seats = {s["seat"]: s for s in (r.record or {}).get("seats", [])}
    for line in r.chat:
        seat = seats.get(line["seat"], {})
        out.append(f"    Seat {line['seat'] + 1} ({seat.get('name') or '?'}): {line['text']}")
    return out


def report_dict(r: ReportRow) -> dict[str, Any]:
    """A report as JSON."""
    return {"id": r.id, "created": r.created.isoformat(), "reporter": r.reporter, "reported": r.reported,
            "reason": r.reason, "table_id": r.table_id, "chat": r.chat, "record": r.record}


def ban_dict(b: BanRow) -> dict[str, Any]:
    """A ban as JSON."""
    return {"player_id": b.player_id, "name": b.name, "reason": b.reason, "created": b.created.isoformat()}
