"""``hearts arena``: bot tournaments from the command line (:func:`hearts.arena.run_arena` plays
them; this module reads the command line and prints the results).

The rule flags are those of the other commands (:func:`hearts.cli.common.add_rules_args`);
without ``--players`` (or a rule that sets it) there are as many players as SPECs. Besides the
table, ``hearts arena`` prints the paired difference between two entrants (``--diff I J``, and
always with ``--pairwise``), and a line for each bot that failed moves
(``--on-bot-error``, ``--move-time``: :mod:`hearts.bots.guard`).

>>> arena_main(["random", "random", "random", "random", "--rounds", "2", "--quiet"])  # doctest: +ELLIPSIS
arena: 2 deals x 4 seat rotations (duplicate) = 8 rounds; ...
0
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
from collections.abc import Sequence

from hearts.arena import (
    DEFAULT_MOVE_TIME,
    DEFAULT_ROUNDS,
    ArenaError,
    add_distribution_args,
    default_jobs,
    run_arena,
)
from hearts.bots.guard import BOT_ERROR_HELP, BOT_ERROR_POLICIES, DEFAULT_BOT_ERROR
from hearts.cli.common import add_rules_args, build_rules, read_rules_arg
from hearts.errors import HeartsError
from hearts.rules import PRESETS, Rules

NAME = "arena"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """List ``hearts arena`` among the subcommands; its arguments never reach this parser."""
    sub.add_parser(
        NAME,
        help="bot tournaments with duplicate deals and confidence intervals",
        add_help=False,
        prefix_chars="\0",
    )


def run(argv: Sequence[str]) -> int:
    """``hearts arena ARGS``: the arena's own command line (``hearts arena --help``)."""
    return arena_main(list(argv))


def move_seconds(text: str) -> float:
    """A ``--move-time``: seconds, 0 (no limit) or more (else an argparse error).

    >>> move_seconds("2.5"), move_seconds("0")
    (2.5, 0.0)
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or math.isinf(value):  # also refuses nan
        raise argparse.ArgumentTypeError(f"a move time is 0 seconds (no limit) or more, not {text}")
    return value


def parser() -> argparse.ArgumentParser:
    """The parser of ``hearts arena``'s arguments."""
    p = argparse.ArgumentParser(
        prog="hearts arena",
        description=(
            "Play bots against each other on many deals and report points per round with 95% "
            "confidence intervals, moons, Q♠ taken, wins and time per decision."
        ),
        epilog=(
            "examples:  hearts arena random random random random --rounds 200 --jobs 4\n"
            "           hearts arena search heuristic heuristic heuristic --rounds 1000 --ray auto --diff 1 2\n"
            "           hearts arena heuristic random --pairwise --games 50\n"
            "           hearts arena random random random --option moon=shooter_chooses"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "specs", nargs="+", metavar="SPEC", help="one bot spec per seat, e.g. random or search:time=0.5"
    )
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--rounds", type=int, metavar="N", help=f"play N deals as single rounds (default {DEFAULT_ROUNDS})"
    )
    how.add_argument("--games", type=int, metavar="N", help="play N whole games to the target")
    p.add_argument(
        "--duplicate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="play every deal in every seat rotation (default: on)",
    )
    add_distribution_args(p, "play the deals", "results")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed for deals and bots (default 0)")
    add_rules_args(p)
    p.add_argument("--pairwise", action="store_true", help="two SPECs A B: A at seats 0 and 2, B at 1 and 3")
    p.add_argument(
        "--diff",
        nargs=2,
        type=int,
        metavar=("I", "J"),
        help="print entrant I's points per round minus entrant J's (1-based, as the table numbers them), "
        "paired deal by deal, with its 95%% CI (always A - B with --pairwise)",
    )
    p.add_argument("--on-bot-error", choices=BOT_ERROR_POLICIES, default=DEFAULT_BOT_ERROR, help=BOT_ERROR_HELP)
    p.add_argument(
        "--move-time",
        type=move_seconds,
        default=DEFAULT_MOVE_TIME,
        metavar="SECONDS",
        help=f"the longest a bot may think about one move; longer is a failure, as --on-bot-error says "
        f"(0: no limit; default {DEFAULT_MOVE_TIME:g})",
    )
    p.add_argument(
        "--json",
        metavar="FILE",
        help="write all results (config, per-bot, per-round) as JSON; - for standard output (the table "
        "then goes to stderr)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar, only a start and an end line")
    return p


def arena_main(argv: list[str] | None = None) -> int:
    """The ``hearts arena`` command; returns the exit status (2 for a usage error, 1 when a bot
    fails under ``--on-bot-error stop`` or the JSON cannot be written)."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:  # --help, or a malformed command line (already reported)
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 2

    def fail(message: str, status: int = 2) -> int:
        print(f"hearts arena: error: {message}", file=sys.stderr)
        return status

    try:
        rules = build_rules(args)
        if not args.pairwise and not players_given(args):
            rules = rules.replace(players=seats_of_specs(len(args.specs)))
    except HeartsError as e:
        return fail(str(e))
    pair = (1, 2) if args.pairwise and args.diff is None else args.diff
    if pair is not None:
        missing = [i for i in pair if not 1 <= i <= len(args.specs)]
        if missing or pair[0] == pair[1]:
            what = f"no entrant {missing[0]}" if missing else "two different entrants"
            return fail(f"--diff: {what} (give two of 1 to {len(args.specs)})")
    to_stdout = args.json == "-"  # the JSON alone on standard output, the table on stderr
    if args.json and not to_stdout:
        folder = os.path.dirname(os.path.abspath(args.json))
        if not os.path.isdir(folder):
            return fail(f"cannot write {args.json!r}: no directory {folder!r}")
    try:
        result = run_arena(
            args.specs,
            rules,
            rounds=args.rounds,
            games=args.games,
            duplicate=args.duplicate,
            jobs=default_jobs(args.jobs, args.ray),
            seed=args.seed,
            progress="lines" if args.quiet else True,
            pairwise=args.pairwise,
            ray=args.ray,
            on_bot_error=args.on_bot_error,
            move_time=args.move_time,
        )
    except HeartsError as e:
        return fail(str(e))
    except ArenaError as e:
        return fail(str(e), 1)
    except KeyboardInterrupt:
        print("\nhearts arena: interrupted", file=sys.stderr)
        return 130
    for line in result.failure_lines():
        print(f"arena: {line}", file=sys.stderr)
    table = sys.stderr if to_stdout else sys.stdout
    with contextlib.suppress(BrokenPipeError):  # e.g. `hearts arena ... | head`
        print(result.table(), file=table)
        if pair is not None:
            print(result.difference_line(pair[0] - 1, pair[1] - 1), file=table)
        if to_stdout:
            print(result.to_json(), flush=True)
    if args.json and not to_stdout:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(result.to_json())
                f.write("\n")
        except OSError as e:
            return fail(f"cannot write {args.json!r}: {e}", 1)
        print(f"arena: results written to {args.json}", file=sys.stderr)
    return 0


def players_given(args: argparse.Namespace) -> bool:
    """Whether a rule flag sets the number of players (``--players``, ``--option players=N``,
    ``--rules``, a preset); else there are as many as SPECs."""
    if args.players is not None or "players" in PRESETS.get(args.preset or "", {}):
        return True
    if any(o.partition("=")[0].strip().replace("-", "_") == "players" for o in args.option or []):
        return True
    return bool(args.rules) and "players" in read_rules_arg(args.rules)


def seats_of_specs(count: int) -> int:
    """The players at the table when ``count`` bot specs are given and ``--players`` is not:
    one a seat, 3 to 6; else a :class:`~hearts.errors.HeartsError` saying what to give.

    >>> seats_of_specs(5)
    5
    >>> seats_of_specs(7)
    Traceback (most recent call last):
    hearts.errors.HeartsError: give one bot spec a seat, 3 to 6 of them (or two with --pairwise), not 7
    """
    spec = Rules.option("players")
    low, high = spec.low, spec.high
    assert low is not None and high is not None
    if not low <= count <= high:
        raise HeartsError(f"give one bot spec a seat, {low} to {high} of them (or two with --pairwise), not {count}")
    return count
