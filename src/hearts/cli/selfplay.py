"""``hearts selfplay``: training data from bots playing each other (:mod:`hearts.rl.selfplay`),
written as sharded ``.npz`` files and a manifest, here or on a Ray cluster."""

from __future__ import annotations

import argparse
from pathlib import Path

from hearts.arena import add_distribution_args, default_jobs
from hearts.bots.guard import BOT_ERROR_HELP, BOT_ERROR_POLICIES, DEFAULT_BOT_ERROR, BotFailure
from hearts.cli.common import Streams, add_rules_args, build_rules, usage_error
from hearts.errors import HeartsError
from hearts.text import plural

NAME = "selfplay"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts selfplay`` to the command's subparsers."""
    p = sub.add_parser(
        NAME,
        help="training data: bots play rounds, every decision saved as numpy arrays",
        description=(
            "Bots play N rounds; every decision (observation, action mask, action, reward) "
            "is saved in DIR as numpy .npz shards with a manifest.json (needs pyhearts[rl])."
        ),
        epilog=(
            "examples:  hearts selfplay heuristic --rounds 10000 --out data/ --jobs 0\n"
            "           hearts selfplay search heuristic heuristic heuristic --rounds 1000 --out data/ --ray auto\n"
            "           hearts selfplay random --players 3 -o moon=shooter_chooses --rounds 500 --out data/"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("specs", nargs="+", metavar="SPEC", help="a bot spec for every seat, or one per seat")
    p.add_argument("--rounds", type=int, required=True, metavar="N", help="rounds to play")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder for the shards and manifest.json")
    p.add_argument("--shard-rounds", type=int, default=500, metavar="K", help="rounds per shard (default 500)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed for the deals and bots (default 0)")
    p.add_argument("--shaping", action="store_true", help="reward each trick's points at once")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the shards and manifest already in DIR (without it, a folder that is not empty is refused)",
    )
    add_distribution_args(p, "make the shards", "data")
    p.add_argument("--on-bot-error", choices=BOT_ERROR_POLICIES, default=DEFAULT_BOT_ERROR, help=BOT_ERROR_HELP)
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar, only a start and an end line")
    add_rules_args(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts selfplay``; exit code 2 for a bad command line, rule option, bot spec or Ray
    address (or Ray missing), 1 when the data cannot be written or a bot fails under
    ``--on-bot-error stop`` (one line: the bot, its seat, the round and the error)."""
    try:
        from hearts.rl import selfplay
    except ModuleNotFoundError as e:  # a MissingExtra: it names the extra
        streams.stderr.write(f"hearts {NAME}: error: {e}\n")
        return 2
    try:
        rules = build_rules(args)
        specs = list(args.specs)
        if args.players is None and 3 <= len(specs) <= 6:
            rules = rules.replace(players=len(specs))
        if len(specs) == 1:
            specs *= rules.players
        config = selfplay.SelfPlayConfig(
            tuple(specs), rules, args.rounds, args.seed, args.shard_rounds, args.shaping, args.on_bot_error
        )
        config.check()
        selfplay.old_data(Path(args.out), args.overwrite, "--overwrite")  # said in the command's words
        jobs = default_jobs(args.jobs, args.ray)
        manifest = selfplay.generate(
            config, args.out, jobs, args.ray, progress="lines" if args.quiet else True, overwrite=args.overwrite
        )
    except HeartsError as e:  # the rules, the bots, --jobs, the folder; Ray missing or unreachable
        return usage_error(streams.stderr, NAME, str(e))
    except OSError as e:
        streams.stderr.write(f"hearts {NAME}: error: {e}\n")
        return 1
    except BotFailure as e:
        streams.stderr.write(f"hearts {NAME}: error: {e}; nothing is written\n")
        return 1
    for line in selfplay.failure_lines(manifest):
        streams.stderr.write(f"selfplay: {line}\n")
    streams.stdout.write(
        f"selfplay: {plural(config.rounds, 'round')}, {plural(manifest['decisions'], 'decision')} in "
        f"{plural(len(manifest['shards']), 'shard')}: {Path(args.out) / selfplay.MANIFEST}\n"
    )
    return 0
