"""``hearts replay FILE``: check a record by replaying it, and print it trick by trick.

Loading a record applies every action through the engine (:mod:`hearts.record`), so a forged
record is refused with the action that is wrong; a good one is printed with its seats (names,
and the bots' specs), its seed, and every round.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TextIO

from hearts import record
from hearts.cli.common import Streams, usage_error
from hearts.errors import RecordError, RecordFileError
from hearts.record import GameRecord, Seat
from hearts.round import Round
from hearts.text import Style, can_encode, default_names, direction_name, does, points_word, score_table

Say = Callable[[str], None]
"""Writes one line of the replay."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts replay`` to the command's subparsers."""
    p = sub.add_parser(
        "replay",
        help="check a saved record and print it trick by trick",
        description="Load a game (or round) record, check it by replaying every action, and print it.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    p.set_defaults(run=run)


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts replay FILE``; exit code 1 for a record that is malformed or forged, 2 for a
    file that cannot be read (missing, a folder), as every command's usage and file errors."""
    return replay_command(args.file, streams.stdout, streams.stderr, ascii_only=args.ascii)


def replay_command(path: str, output: TextIO, errors: TextIO, ascii_only: bool = False) -> int:
    """Check the record at ``path`` by replaying it and print it to ``output``."""
    try:
        source = record.load(path)
    except RecordFileError as e:
        return usage_error(errors, "replay", str(e))
    except RecordError as e:
        errors.write(f"hearts replay: error: {e}\n")
        return 1
    style = Style(ascii_only=ascii_only or not can_encode(output))

    def say(text: str = "") -> None:
        output.write(style.text(text) + "\n")

    if isinstance(source, GameRecord):
        rounds = source.game.rounds
        names = [seat.name for seat in source.seats]
        say(f"Record {path}: a game of Hearts, checked by replaying every action.")
        say(f"Rules: {rounds[0].rules.describe()}")
        seed = source.game.seed
        say(f"Seed: {seed if seed is not None else 'none (the record keeps no seed)'}")
        _seats(say, source.seats)
    else:
        rounds = [source]
        names = default_names(source.players, None)
        say(f"Record {path}: a round of Hearts, checked by replaying every action.")
        say(f"Rules: {source.rules.describe()}")
    for r in rounds:
        _round(say, style, r, names)
    if isinstance(source, GameRecord):
        game = source.game
        totals = ", ".join(f"{names[s]} {t}" for s, t in enumerate(game.totals))
        say()
        if game.winners is not None:
            who = " and ".join(names[s] for s in game.winners)
            verb = "wins" if len(game.winners) == 1 else "share the win"
            say(f"Game over after {len(game.rounds)} rounds: {who} {verb}. Totals: {totals}")
        else:
            say(f"The game is unfinished. Totals: {totals}")
    return 0


def _seats(say: Say, seats: Sequence[Seat]) -> None:
    """Who sat where: each seat's name, and its bot's spec or ``a person``."""
    say("Seats, clockwise:")
    width = max(len(seat.name) for seat in seats)
    for s, seat in enumerate(seats):
        who = f"bot {seat.bot}" if seat.bot is not None else "a person"
        say(f"  {s}  {seat.name:<{width}}  {who}")


def _round(say: Say, style: Style, r: Round, names: Sequence[str]) -> None:
    """One round: the deal, the passes, every trick, the scores."""
    n = r.players
    say("")
    title = f"Round {r.round_number + 1}"
    title += f" · pass {direction_name(r.pass_offset, n)}" if r.pass_offset else " · no passing (hold)"
    say(f"══════ {title} ══════")
    width = max(8, *map(len, names))
    for seat, hand in enumerate(r.dealt):
        say(f"  {names[seat]:<{width}} dealt {style.hand(hand)}")
    for seat in range(n):
        passed = r.passed(seat)
        if passed is not None:
            say(f"  {does(names[seat], 'pass')} {style.sorted_cards(passed)} to {names[r.pass_target(seat)]}")
    for k, trick in enumerate(r.tricks, start=1):
        plays = "  ".join(f"{names[s]} {style.card(c)}" for s, c in trick.plays)
        assert trick.winner is not None
        say(f"  Trick {k:>2}: {plays}  → {names[trick.winner]} ({points_word(trick.points)})")
    if r.current_trick.cards:
        plays = "  ".join(f"{names[s]} {style.card(c)}" for s, c in r.current_trick.plays)
        say(f"  Trick {r.tricks_played + 1:>2}: {plays}  (unfinished)")
    result = r.result
    if result is None:
        say("  (the record stops in this round)")
        return
    if result.shooter is not None:
        chose = f", chose to {result.moon_choice}" if result.moon_choice else ""
        say(f"  {names[result.shooter]} shot the moon{chose}.")
    totals = [b + s for b, s in zip(r.scores_before, result.scores, strict=True)]
    for line in score_table(names, [("Points", result.points), ("Round score", result.scores), ("Total", totals)]):
        say("  " + line)

