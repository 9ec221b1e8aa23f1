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
from hearts.cli.common import Streams, add_lang_arg, choose_language, usage_error
from hearts.errors import RecordError, RecordFileError
from hearts.i18n import _, ngettext
from hearts.record import GameRecord, Seat
from hearts.round import Round
from hearts.text import (
    Style,
    can_encode,
    default_names,
    direction_name,
    is_you,
    name_word,
    points_word,
    score_table,
)

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
    add_lang_arg(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts replay FILE``; exit code 1 for a record that is malformed or forged, 2 for a
    file that cannot be read (missing, a folder), as every command's usage and file errors. The
    replay speaks the language of ``--lang`` or the locale; the seats' names, the bots' specs and
    the rules stay as the record writes them."""
    refused = choose_language(args, streams.stderr, "replay")
    if refused is not None:
        return refused
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
        say(_("Record {path}: a game of Hearts, checked by replaying every action.").format(path=path))
        say(_("Rules: {rules}").format(rules=rounds[0].rules.describe()))
        seed = source.game.seed
        say(_("Seed: {seed}").format(seed=seed if seed is not None else _("none (the record keeps no seed)")))
        _seats(say, source.seats)
    else:
        rounds = [source]
        names = default_names(source.players, None)
        say(_("Record {path}: a round of Hearts, checked by replaying every action.").format(path=path))
        say(_("Rules: {rules}").format(rules=source.rules.describe()))
    for r in rounds:
        _round(say, style, r, names)
    if isinstance(source, GameRecord):
        _game_end(say, source, names)
    return 0


def _game_end(say: Say, source: GameRecord, names: Sequence[str]) -> None:
    """How the game ended (its winners) or that it is unfinished, with the totals."""
    game = source.game
    shown = [name_word(n) for n in names]
    totals = ", ".join(f"{shown[s]} {t}" for s, t in enumerate(game.totals))
    say("")
    if game.winners is None:
        say(_("The game is unfinished. Totals: {totals}").format(totals=totals))
        return
    rounds = len(game.rounds)
    if len(game.winners) == 1:
        winner = game.winners[0]
        text = (ngettext("Game over after {n} round: you win. Totals: {totals}",
                         "Game over after {n} rounds: you win. Totals: {totals}", rounds)
                if is_you(names[winner]) else
                ngettext("Game over after {n} round: {name} wins. Totals: {totals}",
                         "Game over after {n} rounds: {name} wins. Totals: {totals}", rounds))
        say(text.format(n=rounds, name=shown[winner], totals=totals))
    else:
        who = _("{names} and {last}").format(names=", ".join(shown[s] for s in game.winners[:-1]), last=shown[game.winners[-1]])
        say(ngettext("Game over after {n} round: {names} share the win. Totals: {totals}",
                     "Game over after {n} rounds: {names} share the win. Totals: {totals}", rounds)
            .format(n=rounds, names=who, totals=totals))


def _seats(say: Say, seats: Sequence[Seat]) -> None:
    """Who sat where: each seat's name, and its bot's spec or ``a person``."""
    say(_("Seats, clockwise:"))
    shown = [name_word(seat.name) for seat in seats]
    width = max(map(len, shown))
    for s, seat in enumerate(seats):
        who = _("bot {spec}").format(spec=seat.bot) if seat.bot is not None else _("a person")
        say(f"  {s}  {shown[s]:<{width}}  {who}")


def _round(say: Say, style: Style, r: Round, names: Sequence[str]) -> None:
    """One round: the deal, the passes, every trick, the scores."""
    n = r.players
    shown = [name_word(name) for name in names]
    say("")
    title = _("Round {n}").format(n=r.round_number + 1) + " · "
    title += _("pass {direction}").format(direction=direction_name(r.pass_offset, n)) if r.pass_offset else _("no passing (hold)")
    say(f"══════ {title} ══════")
    width = max(8, *map(len, shown))
    for seat, hand in enumerate(r.dealt):
        say(f"  {shown[seat]:<{width}} " + _("dealt {cards}").format(cards=style.hand(hand)))
    for seat in range(n):
        passed = r.passed(seat)
        if passed is not None:
            text = _("You pass {cards} to {to}") if is_you(names[seat]) else _("{name} passes {cards} to {to}")
            say("  " + text.format(name=shown[seat], cards=style.sorted_cards(passed), to=shown[r.pass_target(seat)]))
    for k, trick in enumerate(r.tricks, start=1):
        plays = "  ".join(f"{shown[s]} {style.card(c)}" for s, c in trick.plays)
        assert trick.winner is not None
        say("  " + _("Trick {n}").format(n=f"{k:>2}") + f": {plays}  → {shown[trick.winner]} ({points_word(trick.points)})")
    if r.current_trick.cards:
        plays = "  ".join(f"{shown[s]} {style.card(c)}" for s, c in r.current_trick.plays)
        say("  " + _("Trick {n}").format(n=f"{r.tricks_played + 1:>2}") + f": {plays}  " + _("(unfinished)"))
    result = r.result
    if result is None:
        say("  " + _("(the record stops in this round)"))
        return
    if result.shooter is not None:
        shooter = shown[result.shooter]
        if result.moon_choice == "add":
            say("  " + _("{name} shot the moon, chose to add.").format(name=shooter))
        elif result.moon_choice == "subtract":
            say("  " + _("{name} shot the moon, chose to subtract.").format(name=shooter))
        else:
            say("  " + _("{name} shot the moon.").format(name=shooter))
    totals = [b + s for b, s in zip(r.scores_before, result.scores, strict=True)]
    rows = [(_("Points"), result.points), (_("Round score"), result.scores), (_("Total"), totals)]
    for line in score_table(shown, rows):
        say("  " + line)

