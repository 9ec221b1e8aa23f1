"""``hearts analyze RECORD``: a review of a finished game, every decision of a seat valued by the
search from that seat's view only (:mod:`hearts.review`).

The report goes trick by trick and names each mistake with the better card and what it was
worth; ``--json`` writes the whole review (every option of every decision, with its mean and
standard error). The numbers are estimates from sampled deals, shown with their uncertainty.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hearts import record
from hearts.arena import Progress, ProgressWords, progress_mode
from hearts.cli.common import Streams, add_lang_arg, choose_language, usage_error
from hearts.errors import HeartsError, RecordError, RecordFileError
from hearts.game import Game
from hearts.i18n import _, ngettext
from hearts.record import GameRecord
from hearts.review import DEFAULT_BUDGET, format_review, review_game
from hearts.text import Style, can_encode, name_word


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts analyze`` to the command's subparsers."""
    p = sub.add_parser(
        "analyze",
        help="review a saved game: where each seat lost points, decision by decision",
        description=(
            "Value every decision of a seat (the pass and each play) with the search bot, from that "
            "seat's view only, and report the mistakes with the better choice and their cost. The "
            "costs are estimates from sampled deals, given with their standard error."
        ),
    )
    p.add_argument("file", metavar="RECORD", help="a game or round record (hearts play --record, ctrl+s)")
    p.add_argument("--seat", type=int, action="append", metavar="S", help="the seat to review (repeatable; default: all)")
    p.add_argument("--round", type=int, action="append", metavar="N", dest="rounds", help="only round N (numbered from 1, as the screens show them; repeatable)")
    p.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        metavar="SAMPLES",
        help=f"sampled deals per decision: more is slower and more precise (default {DEFAULT_BUDGET})",
    )
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="processes to use (default 1)")
    p.add_argument("--seed", type=int, default=0, help="the review's seed (the same seed, the same review)")
    p.add_argument("--json", metavar="FILE", help="also write the whole review as JSON")
    p.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_lang_arg(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts analyze``; exit code 1 for a bad record, 2 for a bad option or a file that
    cannot be read. The report speaks the language of ``--lang`` or the locale; ``--json`` stays
    English (machine fields)."""
    refused = choose_language(args, streams.stderr, "analyze")
    if refused is not None:
        return refused
    if args.jobs < 1:
        return usage_error(streams.stderr, "analyze", f"--jobs must be 1 or more, not {args.jobs}")
    try:
        source = record.load(args.file)
    except RecordFileError as e:
        return usage_error(streams.stderr, "analyze", str(e))
    except RecordError as e:
        streams.stderr.write(f"hearts analyze: error: {e}\n")
        return 1
    game = source.game if isinstance(source, GameRecord) else source
    shown = [r.round_number + 1 for r in (game.rounds if isinstance(game, Game) else [game])]
    unknown = [n for n in args.rounds or [] if n not in shown]
    if unknown:
        numbers = f"{shown[0]} to {shown[-1]}" if len(shown) > 1 else str(shown[0])
        return usage_error(streams.stderr, "analyze", f"--round {unknown[0]}: there is no round {unknown[0]}; the "
                           f"record's rounds are {numbers} (numbered from 1, as the screens show them)")
    names = [name_word(s.name) for s in source.seats] if isinstance(source, GameRecord) else None  # as shown
    words = ProgressWords(lambda n: ngettext("{n} decision", "{n} decisions", n).format(n=n),
                          _("done, {count} in {seconds} s"), _("eta {seconds} s"))
    progress = Progress(0, "decision", progress_mode(not args.no_progress), streams.stderr, "analyze", words)

    def on_progress(done: int, total: int) -> None:
        if progress.total != total:
            progress.total = total
            progress.begin(_("reviewing {count}").format(count=progress.count(total)))
        progress.advance(done - progress.done)

    try:
        review = review_game(
            game,
            args.seat,
            rounds=None if args.rounds is None else [n - 1 for n in args.rounds],
            budget=args.budget,
            seed=args.seed,
            jobs=args.jobs,
            on_progress=on_progress,
        )
    except HeartsError as e:
        return usage_error(streams.stderr, "analyze", str(e))
    progress.end()
    style = Style(ascii_only=args.ascii or not can_encode(streams.stdout))
    streams.stdout.write(style.text(format_review(review, names, card=style.card)) + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(review.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0
