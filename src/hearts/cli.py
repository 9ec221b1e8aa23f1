"""The ``hearts`` command: play a game in the terminal, replay a record, show the rules.

``hearts play`` is a line-mode table (standard input and output, no curses): it works the same
typed by a person or fed by a script, and with ``--seed`` the same input gives the same
transcript. You sit at seat 0; the other seats follow clockwise (RULES.md R1.4), so the
player on your left, who receives your pass "left", is seat 1. With four players the seats
are North (you), East, South and West.

>>> import io
>>> out = io.StringIO()
>>> main(["rules", "--preset", "omnibus"], stdout=out)
0
>>> "jack_of_diamonds" in out.getvalue()
True
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from hearts import record
from hearts.bots import BOT_NAMES, Bot, make_bot
from hearts.cards import (
    DISPLAY_SUIT_ORDER,
    JACK_OF_DIAMONDS,
    RANK_LETTERS,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    Card,
    CardSet,
)
from hearts.errors import CardParseError, HeartsError, IllegalAction, RecordError, RulesError
from hearts.game import Game
from hearts.round import Phase, Round, Trick
from hearts.rules import (
    DEFAULT_PASS_CYCLES,
    FIRST_LEADS,
    MOONS,
    OPTION_NAMES,
    PASS_STEPS,
    PRESETS,
    QUEEN_LEADS,
    TIES,
    Rules,
)
from hearts.view import View

InputFn = Callable[[str], str | None]
"""Reads one line after showing a prompt; ``None`` at the end of input."""

COMPASS = ("North", "East", "South", "West")
"""Seat names with four players (R1.4): seat 0 is North, then clockwise."""

COMMANDS = ("help", "hand", "score", "last", "rules", "quit")

HELP_TEXT = """\
How to answer:
  a card         rank then suit: QS, q♠, 10h, TD, 2c (ranks 2-10 or T, J, Q, K, A; suits C D H S or ♣ ♦ ♥ ♠)
  a pass         the cards on one line: "QS AH 2C" or "QS, AH, 2C"
  the moon       'add' (everyone else +26) or 'subtract' (you -26)
Commands, at any prompt:
  hand    your cards            score   points this round and the totals
  last    the last trick        rules   the options in play
  help    this text             quit    stop the game (the record is saved if --record was given)"""


class _Quit(Exception):
    """The player typed ``quit``."""


class _EndOfInput(Exception):
    """Standard input ended."""


# --- text helpers --------------------------------------------------------------------------


class Style:
    """How cards are printed: suit symbols (``Q♠``) or, with ``ascii_only``, letters (``QS``)."""

    def __init__(self, ascii_only: bool = False) -> None:
        self.ascii_only = ascii_only
        self.suits = SUIT_LETTERS if ascii_only else SUIT_SYMBOLS

    def text(self, text: str) -> str:
        """``text`` as printed: unchanged, or with ``ascii_only`` its symbols spelt in ASCII.

        >>> Style(ascii_only=True).text("→ West takes the Q♠ · ══")
        '-> West takes the QS | =='
        """
        return text.translate(_ASCII) if self.ascii_only else text

    @staticmethod
    def rank(card: Card) -> str:
        """The rank as a person writes it (``10`` rather than ``T``)."""
        return "10" if card.rank == 8 else RANK_LETTERS[card.rank]

    def card(self, card: Card) -> str:
        """One card, e.g. ``Q♠`` or ``10♥``."""
        return self.rank(card) + self.suits[card.suit]

    def cards(self, cards: Iterable[Card]) -> str:
        """Cards separated by blanks, in the order given."""
        return " ".join(self.card(c) for c in cards)

    def sorted_cards(self, cards: CardSet) -> str:
        """Cards grouped by suit (♣ ♦ ♠ ♥), low to high."""
        return self.cards(cards.sorted_by_suit())

    def hand(self, cards: CardSet) -> str:
        """A hand by suit: ``♣ 2 5 9 J   ♦ 3 K   ♠ 4 Q   ♥ 2 7 A``."""
        groups = []
        for suit in DISPLAY_SUIT_ORDER:
            ranks = [self.rank(c) for c in cards.of_suit(suit)]
            if ranks:
                groups.append(self.suits[suit] + " " + " ".join(ranks))
        return "   ".join(groups) if groups else "(no cards)"


_ASCII = str.maketrans(
    {
        **{sym: letter for sym, letter in zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=True)},
        "→": "->",
        "═": "=",
        "─": "-",
        "·": "|",
        "☾": "*",
        "−": "-",
    }
)


def direction_name(offset: int, players: int) -> str:
    """R2.2: a pass offset as a word: ``left``, ``right``, ``across``, ``hold`` (or N seats)."""
    if offset == 0:
        return "hold"
    if offset == 1:
        return "left"
    if offset == players - 1:
        return "right"
    if players % 2 == 0 and offset == players // 2:
        return "across"
    return f"{offset} seats to the left"


def default_names(players: int, human: str | None = "You") -> list[str]:
    """Seat names: North, East, South, West with four players (R1.4), else ``Seat i``;
    seat 0 is called ``human`` when given."""
    names = list(COMPASS) if players == 4 else [f"Seat {s}" for s in range(players)]
    if human is not None:
        names[0] = human
    return names


def does(name: str, verb: str) -> str:
    """``West plays``, ``You play``, ``Ann passes``: a name and a verb that agree.

    >>> does("West", "pass"), does("You", "pass")
    ('West passes', 'You pass')
    """
    if name.lower() == "you":
        return f"{name} {verb}"
    if verb.endswith(("s", "sh", "ch")):
        return f"{name} {verb}es"
    return f"{name} {verb}s"


def points_word(points: int) -> str:
    """``no points``, ``1 point``, ``5 points``, ``-10 points``."""
    if points == 0:
        return "no points"
    return f"{points} point" if points == 1 else f"{points} points"


def score_table(names: Sequence[str], rows: Sequence[tuple[str, Sequence[object]]]) -> list[str]:
    """A right-aligned table, one column per seat."""
    label_width = max([len(label) for label, _ in rows] + [5])
    widths = [max(len(n), 4, *(len(str(values[i])) for _, values in rows)) for i, n in enumerate(names)]
    lines = [" " * label_width + "  " + "  ".join(n.rjust(w) for n, w in zip(names, widths, strict=True))]
    for label, values in rows:
        cells = "  ".join(str(v).rjust(w) for v, w in zip(values, widths, strict=True))
        lines.append(label.ljust(label_width) + "  " + cells)
    return lines


def moon_effect(r: Round) -> str:
    """How a shot moon was scored (R4.4): ``every other player +26`` or ``the shooter -26``."""
    result = r.result
    assert result is not None and result.shooter is not None
    shooter = result.shooter
    bonus = r.rules.jack_of_diamonds if JACK_OF_DIAMONDS in r.won_cards(shooter) else 0
    return "every other player +26" if result.scores[shooter] == bonus else "the shooter -26"


def _reason(error: IllegalAction) -> str:
    """The engine's rule and reason without its own ``(legal: ...)`` list (shown separately)."""
    reason = re.sub(r"\s*\(legal: [^)]*\)$", "", error.reason)
    return f"{error.rule}: {reason}"


# --- the table -----------------------------------------------------------------------------


class PlayCLI:
    """A game of Hearts at a line-mode terminal table.

    The seats without a bot are played by the person at the terminal (normally seat 0 only).
    ``input_fn(prompt)`` reads one answer (``None`` at the end of input) and every line of the
    transcript goes to ``output``; both are injectable, so tests drive whole games in-process.
    With ``record`` set, the game record is saved after every round and when the game stops.
    """

    def __init__(
        self,
        game: Game,
        bots: Mapping[int, Bot],
        *,
        names: Sequence[str],
        input_fn: InputFn,
        output: TextIO,
        record_path: str | Path | None = None,
        record_names: Sequence[str] | None = None,
        style: Style | None = None,
        intro: Sequence[str] = (),
    ) -> None:
        n = game.rules.players
        if len(names) != n:
            raise ValueError(f"{n} seat names are needed, got {list(names)!r}")
        self.game = game
        self.bots = dict(bots)
        self.names = list(names)
        self.input_fn = input_fn
        self.output = output
        self.record_path = Path(record_path) if record_path is not None else None
        self.record_names = list(record_names) if record_names is not None else self.names
        self.style = style or Style()
        self.intro = list(intro)
        self.humans = [s for s in range(n) if s not in self.bots]
        self._round_shown = -1
        self._save_failed = False

    # --- output ----------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        """Write one line (or several) of the transcript."""
        self.output.write(self.style.text(text) + "\n")

    def _is_you(self, seat: int) -> bool:
        return self.names[seat].lower() == "you"

    def _does(self, seat: int, verb: str) -> str:
        """``West plays``, ``You play``."""
        return does(self.names[seat], verb)

    def _by_seat(self, values: Sequence[int]) -> str:
        return " · ".join(f"{self.names[s]} {v}" for s, v in enumerate(values))

    # --- the game --------------------------------------------------------------------------

    def run(self) -> int:
        """Play to the end of the game (or ``quit`` / end of input); the exit code (0)."""
        for line in self.intro:
            self.say(line)
        try:
            self._loop()
        except _Quit:
            self.say("Quit: the game stops here.")
            self._final_save()
            return 0
        except _EndOfInput:
            self.say("End of input: the game stops here.")
            self._final_save()
            return 0
        except KeyboardInterrupt:
            self.say()
            self.say("Interrupted: the game stops here.")
            self._final_save()
            return 130
        self._game_over()
        self._final_save()
        return 0

    def _loop(self) -> None:
        game = self.game
        while not game.is_over:
            r = game.round
            if r.round_number != self._round_shown:
                self._round_header(r)
            if r.phase is Phase.PASSING:
                self._passing(r)
            elif r.phase is Phase.PLAYING:
                self._play_one(r)
            elif r.phase is Phase.MOON_CHOICE:
                self._moon(r)
            if r.is_over:
                self._round_summary(r)
                self._save()

    def _round_header(self, r: Round) -> None:
        self._round_shown = r.round_number
        n = r.players
        rules = r.rules
        self.say()
        title = f"Round {r.round_number + 1}"
        if r.pass_offset:
            direction = direction_name(r.pass_offset, n)
            title += f" · pass {rules.pass_count} {direction}"
        else:
            title += " · no passing (hold)"
        self.say(f"══════ {title} ══════")
        if r.round_number:
            self.say(f"Totals: {self._by_seat(self.game.totals)}   (target {rules.target})")

    def _passing(self, r: Round) -> None:
        for seat in r.seats_to_pass():
            bot = self.bots.get(seat)
            if bot is not None:
                self.game.pass_cards(seat, bot.choose_pass(View.of(self.game, seat)))
        for seat in r.seats_to_pass():
            self._ask_pass(r, seat)
        if r.phase is not Phase.PASSING:
            for seat in self.humans:
                received = r.received(seat)
                giver = (seat - r.pass_offset) % r.players
                if received is not None:
                    self.say(
                        f"{self._does(seat, 'receive')} {self.style.sorted_cards(received)} "
                        f"from {self.names[giver]}."
                    )

    def _ask_pass(self, r: Round, seat: int) -> None:
        count = r.rules.pass_count
        to = self.names[r.pass_target(seat)]
        self.say(f"Hand:  {self.style.hand(r.hand(seat))}")
        self.say(f"Choose {count} cards to pass {direction_name(r.pass_offset, r.players)} to {to}.")
        prompt = f"Pass {count} to {to} > "
        while True:
            text = self._ask(prompt, seat)
            try:
                cards = CardSet.parse(text)
                self.game.pass_cards(seat, cards)
            except CardParseError as e:
                self.say(f'  {e}. Type {count} cards on one line, e.g. "QS AH 2C".')
                continue
            except IllegalAction as e:
                self.say(f"  Cannot pass that ({_reason(e)}). Your hand: {self.style.hand(r.hand(seat))}")
                continue
            self.say(f"{self._does(seat, 'pass')} {self.style.sorted_cards(cards)} to {to}.")
            return

    def _play_one(self, r: Round) -> None:
        seat = r.to_move
        assert seat is not None
        trick = r.current_trick
        leading = not trick.cards
        if leading:
            k = r.tricks_played + 1
            broken = " · hearts broken" if r.hearts_broken else ""
            self.say(f"── Trick {k} of {r.hand_size}{broken} ──")
        bot = self.bots.get(seat)
        if bot is not None:
            card = bot.choose_play(View.of(self.game, seat))
            self.game.play(card, seat)
        else:
            card = self._ask_play(r, seat)
        self.say(f"{self._does(seat, 'lead' if leading else 'play')} {self.style.card(card)}")
        if not r.current_trick.cards:  # the trick is complete
            self._trick_result(r, r.tricks[-1])

    def _trick_result(self, r: Round, trick: Trick) -> None:
        winner = trick.winner
        assert winner is not None
        best = max((c for c in trick.cards if c.suit == trick.led_suit), key=int)
        self.say(
            f"→ {self._does(winner, 'take')} the trick with {self.style.card(best)} ({points_word(trick.points)})."
        )
        if trick.points:
            self.say(f"  Points this round: {self._by_seat(r.points_taken)}")

    def _ask_play(self, r: Round, seat: int) -> Card:
        legal = r.legal_plays()
        self._show_turn(r, seat)
        while True:
            text = self._ask("Play > ", seat)
            legal_text = f"Legal: {self.style.sorted_cards(legal)}"
            if len(text.replace(",", " ").split()) != 1:
                self.say(f"  Play one card, e.g. {self.style.card(next(iter(legal)))}. {legal_text}")
                continue
            try:
                card = Card.parse(text)
            except CardParseError as e:
                self.say(f"  {e}. {legal_text}")
                continue
            try:
                self.game.play(card, seat)
            except IllegalAction as e:
                self.say(f"  You cannot play {self.style.card(card)} ({_reason(e)}). {legal_text}")
                continue
            return card

    def _show_turn(self, r: Round, seat: int) -> None:
        trick = r.current_trick
        if trick.cards:
            table = "  ".join(f"{self.names[s]} {self.style.card(c)}" for s, c in trick.plays)
            self.say(f"Table: {table}")
        else:
            self.say(f"{self._does(seat, 'lead')}.")
        self.say(f"Hand:  {self.style.hand(r.hand(seat))}")
        self.say(f"Legal: {self.style.sorted_cards(r.legal_plays())}")

    def _moon(self, r: Round) -> None:
        seat = r.to_move
        assert seat is not None
        self.say(f"☾ {self._does(seat, 'shoot')} the moon: all the hearts and the Q♠!")
        bot = self.bots.get(seat)
        if bot is not None:
            choice = bot.choose_moon(View.of(self.game, seat))
        else:
            self.say(f"Totals before this round: {self._by_seat(self.game.totals)}")
            while True:
                text = self._ask("Moon: add or subtract > ", seat).lower()
                if text in ("add", "a", "+", "+26"):
                    choice = "add"
                    break
                if text in ("subtract", "sub", "s", "-", "-26"):
                    choice = "subtract"
                    break
                self.say("  Type 'add' (every other player scores +26) or 'subtract' (you score -26).")
        self.game.choose_moon(seat, choice)
        if choice == "add":
            self.say(f"{self._does(seat, 'choose')} to add 26 to every other player.")
        else:
            self.say(
                f"{self._does(seat, 'choose')} to subtract 26 from {'your' if self._is_you(seat) else 'their'} own score."
            )

    def _round_summary(self, r: Round) -> None:
        result = r.result
        assert result is not None
        totals = [b + s for b, s in zip(r.scores_before, result.scores, strict=True)]
        self.say()
        self.say(f"Round {r.round_number + 1} is over.")
        if result.shooter is not None:
            self.say(f"  {self.names[result.shooter]} shot the moon ({moon_effect(r)}).")
        for line in score_table(
            self.names,
            [
                ("Tricks", result.tricks_won),
                ("Points", result.points),
                ("Round score", result.scores),
                ("Total", totals),
            ],
        ):
            self.say("  " + line)

    def _game_over(self) -> None:
        game = self.game
        winners = game.winners or ()
        self.say()
        self.say("══════ Game over ══════")
        low = game.totals[winners[0]] if winners else 0
        if len(winners) == 1:
            self.say(f"{self._does(winners[0], 'win')} with {points_word(low)}!")
        else:
            who = " and ".join(self.names[s] for s in winners)
            self.say(f"{who} share the win with {points_word(low)} each.")
        self.say("Score history (totals after each round):")
        rows = [(f"Round {i + 1}", list(totals)) for i, totals in enumerate(game.history)]
        for line in score_table(self.names, rows):
            self.say("  " + line)

    # --- input -----------------------------------------------------------------------------

    def _ask(self, prompt: str, seat: int) -> str:
        """An answer that is not a command; commands are carried out here."""
        while True:
            line = self.input_fn(prompt)
            if line is None:
                raise _EndOfInput
            text = line.strip()
            if not text:
                self.say("  Type your answer, or 'help'.")
                continue
            command = text.lower()
            if command not in COMMANDS:
                return text
            if command == "quit":
                raise _Quit
            self._command(command, seat)

    def _command(self, command: str, seat: int) -> None:
        r = self.game.round
        if command == "help":
            self.say(HELP_TEXT)
        elif command == "hand":
            self.say(f"Hand:  {self.style.hand(View.of(self.game, seat).hand)}")
            if r.to_move == seat and r.phase is Phase.PLAYING:
                self.say(f"Legal: {self.style.sorted_cards(r.legal_plays())}")
        elif command == "score":
            for line in score_table(
                self.names,
                [
                    ("Points this round", r.points_taken),
                    ("Totals before it", list(self.game.totals)),
                ],
            ):
                self.say("  " + line)
            self.say(f"  Round {r.round_number + 1}, target {r.rules.target}; lowest total wins.")
        elif command == "last":
            if not r.tricks:
                self.say("  No trick has been completed yet this round.")
            else:
                t = r.tricks[-1]
                plays = "  ".join(f"{self.names[s]} {self.style.card(c)}" for s, c in t.plays)
                assert t.winner is not None
                self.say(
                    f"  Trick {len(r.tricks)}: {plays} → {self.names[t.winner]} ({points_word(t.points)})"
                )
        elif command == "rules":
            self.say(f"  Rules: {r.rules.describe()}")

    # --- records ---------------------------------------------------------------------------

    def _save(self) -> None:
        if self.record_path is None or self._save_failed:
            return
        try:
            record.save(self.game, self.record_path, seats=self.record_names)
        except OSError as e:
            self._save_failed = True
            self.say(f"(cannot save the record to {str(self.record_path)!r}: {e})")

    def _final_save(self) -> None:
        if self.record_path is None:
            return
        self._save()
        if not self._save_failed:
            self.say(f"Record saved to {self.record_path}.")


# --- building a game from the command line ------------------------------------------------


def build_rules(args: argparse.Namespace) -> Rules:
    """The rules of ``--preset``, then ``--rules``, then ``--option``s, then ``--players`` and
    ``--target`` (later ones win). Raises :class:`RulesError` with a clear message."""
    data: dict[str, Any] = dict(PRESETS[args.preset]) if args.preset else {}
    if args.rules:
        data.update(_read_rules_arg(args.rules))
    try:
        rules = Rules.from_dict(data)
    except (TypeError, ValueError) as e:
        raise RulesError(str(e)) from None
    options = list(args.option or [])
    if getattr(args, "players", None) is not None:
        options.append(f"players={args.players}")
    if getattr(args, "target", None) is not None:
        options.append(f"target={args.target}")
    return rules.with_options(options) if options else rules


def _read_rules_arg(text: str) -> dict[str, Any]:
    source = "--rules"
    if not text.lstrip().startswith("{"):
        source = f"rules file {text!r}"
        try:
            text = Path(text).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise RulesError(f"cannot read {source}: {e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RulesError(f"{source} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise RulesError(f'{source} must be a JSON object of options, e.g. {{"moon": "shooter_chooses"}}')
    return data


def build_bots(args: argparse.Namespace, players: int, seed: int) -> dict[int, Bot]:
    """Bots for seats 1..n-1 from ``--bot`` (all seats) or ``--bots`` (one spec per seat, or one
    for all); each bot's seed is derived from the game's seed."""
    specs: list[str]
    if args.bots:
        specs = list(args.bots)
        if len(specs) == 1:
            specs *= players - 1
        if len(specs) != players - 1:
            raise HeartsError(
                f"--bots needs {players - 1} specs (one per other seat) or one for all, got {len(specs)}"
            )
    else:
        specs = [args.bot or "random"] * (players - 1)
    seeder = random.Random(f"hearts-bots-{seed}")
    return {seat: make_bot(spec, seed=seeder.randrange(2**31)) for seat, spec in enumerate(specs, start=1)}


def _bot_label(spec: str) -> str:
    return spec.strip().partition(":")[0]


def play_command(
    args: argparse.Namespace,
    input_fn: InputFn,
    output: TextIO,
    errors: TextIO,
) -> int:
    """``hearts play``: set up the rules, the bots and the table, then play."""
    try:
        rules = build_rules(args)
    except HeartsError as e:
        return _usage_error(errors, "play", f"{e} (see 'hearts rules')")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    try:
        bots = build_bots(args, rules.players, seed)
    except HeartsError as e:
        return _usage_error(errors, "play", str(e))
    n = rules.players
    names = default_names(n, args.name)
    specs = [b.name for b in (bots[s] for s in range(1, n))]
    record_names = [names[0], *(f"{names[s]} ({specs[s - 1]})" for s in range(1, n))]
    style = Style(ascii_only=args.ascii or not _can_encode(output))
    where = f" ({COMPASS[0]})" if n == 4 else " (seat 0)"
    intro = [
        f"Hearts · {n} players · to {rules.target} points · lowest total wins",
        f"Rules: {rules.describe()}",
        "Seats, clockwise: " + ", ".join([names[0] + where, *record_names[1:]]),
        f"Seed {seed} (play this deal again with --seed {seed}). Type 'help' at any prompt.",
    ]
    game = Game(rules, seed=seed)
    table = PlayCLI(
        game,
        bots,
        names=names,
        input_fn=input_fn,
        output=output,
        record_path=args.record,
        record_names=record_names,
        style=style,
        intro=intro,
    )
    return table.run()


# --- replay and rules ----------------------------------------------------------------------


def replay_command(path: str, output: TextIO, errors: TextIO, ascii_only: bool = False) -> int:
    """``hearts replay FILE``: check a record by replaying it and print it trick by trick."""
    try:
        source = record.load(path)
    except RecordError as e:
        errors.write(f"hearts replay: error: {e}\n")
        return 1
    except (TypeError, ValueError, KeyError, AttributeError) as e:  # a record the loader missed
        errors.write(f"hearts replay: error: malformed record: {e}\n")
        return 1
    style = Style(ascii_only=ascii_only or not _can_encode(output))
    rounds = source.rounds if isinstance(source, Game) else [source]
    rules = rounds[0].rules
    n = rules.players
    names = default_names(n, None)
    if isinstance(source, Game):
        try:
            seats = json.loads(Path(path).read_text(encoding="utf-8")).get("seats")
        except (OSError, ValueError):  # pragma: no cover - it was just read
            seats = None
        if isinstance(seats, list) and len(seats) == n and all(isinstance(s, str) for s in seats):
            names = list(seats)
    short = [name.partition(" (")[0] for name in names]

    def say(text: str = "") -> None:
        output.write(style.text(text) + "\n")

    kind = "game" if isinstance(source, Game) else "round"
    say(f"Record {path}: a {kind} of Hearts, checked by replaying every event.")
    say(f"Rules: {rules.describe()}")
    say("Seats, clockwise: " + ", ".join(names))
    for r in rounds:
        say()
        title = f"Round {r.round_number + 1}"
        title += f" · pass {direction_name(r.pass_offset, n)}" if r.pass_offset else " · no passing (hold)"
        say(f"══════ {title} ══════")
        for seat, hand in enumerate(r.dealt):
            say(f"  {short[seat]:<8} dealt {style.hand(hand)}")
        for seat in range(n):
            passed = r.passed(seat)
            if passed is not None:
                to = short[r.pass_target(seat)]
                say(f"  {does(short[seat], 'pass')} {style.sorted_cards(passed)} to {to}")
        for k, trick in enumerate(r.tricks, start=1):
            plays = "  ".join(f"{short[s]} {style.card(c)}" for s, c in trick.plays)
            assert trick.winner is not None
            say(f"  Trick {k:>2}: {plays}  → {short[trick.winner]} ({points_word(trick.points)})")
        if r.current_trick.cards:
            plays = "  ".join(f"{short[s]} {style.card(c)}" for s, c in r.current_trick.plays)
            say(f"  Trick {r.tricks_played + 1:>2}: {plays}  (unfinished)")
        result = r.result
        if result is None:
            say("  (the record stops in this round)")
            continue
        if result.shooter is not None:
            chose = f", chose to {result.moon_choice}" if result.moon_choice else ""
            say(f"  {short[result.shooter]} shot the moon{chose}.")
        totals = [b + s for b, s in zip(r.scores_before, result.scores, strict=True)]
        for line in score_table(
            short, [("Points", result.points), ("Round score", result.scores), ("Total", totals)]
        ):
            say("  " + line)
    if isinstance(source, Game):
        say()
        if source.winners is not None:
            who = " and ".join(short[s] for s in source.winners)
            verb = "wins" if len(source.winners) == 1 else "share the win"
            say(
                f"Game over after {len(source.rounds)} rounds: {who} {verb}. Totals: "
                + ", ".join(f"{short[s]} {t}" for s, t in enumerate(source.totals))
            )
        else:
            say(
                "The game is unfinished. Totals: "
                + ", ".join(f"{short[s]} {t}" for s, t in enumerate(source.totals))
            )
    return 0


OPTION_INFO: dict[str, tuple[str, str]] = {
    "players": ("R1.1", "number of players"),
    "pass_count": ("R2.1", "cards passed each round (0: no passing)"),
    "pass_cycle": ("R2.2", "pass directions, round by round"),
    "first_lead": ("R3.1", "what the first lead of a round must be"),
    "points_on_first_trick": ("R3.3", "hearts and the Q♠ allowed on the first trick"),
    "must_break_hearts": ("R3.4", "hearts may not be led until broken"),
    "queen_breaks_hearts": ("R3.5", "playing the Q♠ breaks hearts"),
    "queen_lead": ("R3.6", "when the Q♠ may be led"),
    "lead_hearts_instead_of_queen": ("R3.7", "a hearts-and-Q♠ hand may lead a heart"),
    "jack_of_diamonds": ("R4.2", "score for taking the J♦ (e.g. -10)"),
    "no_tricks_bonus": ("R4.3", "score for taking no trick (e.g. -5)"),
    "moon": ("R4.4", "scoring of shooting the moon"),
    "target": ("R5.1", "the game ends when someone reaches it"),
    "ties": ("R5.2", "a tie for the lowest total at the end"),
}


def allowed_values(name: str, rules: Rules) -> str:
    """What option ``name`` may be set to, as text."""
    choices = {
        "first_lead": FIRST_LEADS,
        "queen_lead": QUEEN_LEADS,
        "moon": MOONS,
        "ties": TIES,
    }
    if name in choices:
        return " | ".join(choices[name])
    if name == "players":
        return "3..6"
    if name == "pass_count":
        return f"0..{rules.hand_size - 1}"
    if name == "pass_cycle":
        return f"comma list of {', '.join(PASS_STEPS)} or seat offsets; 'default'"
    if name in ("jack_of_diamonds", "no_tricks_bonus"):
        return "-26..26"
    if name == "target":
        return "1..10000"
    return "true | false"


def _show_value(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


def rules_command(args: argparse.Namespace, output: TextIO, errors: TextIO) -> int:
    """``hearts rules``: every option with its value and allowed values, and the presets."""
    try:
        rules = build_rules(args)
    except HeartsError as e:
        return _usage_error(errors, "rules", str(e))

    style = Style(ascii_only=not _can_encode(output))

    def say(text: str = "") -> None:
        output.write(style.text(text) + "\n")

    say(f"Rules ({'preset ' + args.preset if args.preset else 'standard'}): {rules.describe()}")
    say()
    rows = []
    for name in OPTION_NAMES:
        value = getattr(rules, name)
        shown = _show_value(value)
        if name == "pass_cycle" and value is None:
            shown = f"default ({','.join(DEFAULT_PASS_CYCLES[rules.players])})"
        rule, text = OPTION_INFO.get(name, ("", ""))
        rows.append((name, shown, allowed_values(name, rules), rule, text))
    width = max(len(f"{name} = {shown}") for name, shown, *_ in rows)
    say("Options (name = value, then what is allowed):")
    for name, shown, allowed, rule, text in rows:
        say(f"  {f'{name} = {shown}':<{width}}  {rule}: {text}")
        say(f"      allowed: {allowed}")
    say()
    say("Presets (R6):")
    width = max(map(len, PRESETS))
    for preset, changes in PRESETS.items():
        shown = " ".join(f"{k}={_show_value(v)}" for k, v in changes.items()) or "all defaults"
        say(f"  {preset:<{width}}  {shown}")
    say()
    say("Set them with: hearts play --preset NAME --option NAME=VALUE [--option ...]")
    say("  e.g. hearts play --option moon=shooter_chooses --option jack_of_diamonds=-10")
    say(f"Bots for --bot / --bots: {', '.join(BOT_NAMES)} (see hearts.bots.make_bot for options)")
    return 0


# --- the command line ----------------------------------------------------------------------


PLAY_EPILOG = """\
Seats: you sit at seat 0; the others follow clockwise (RULES.md R1.4), so seat 1 is on your
left and receives your pass "left". With 4 players the seats are North (you), East, South
and West; with 3, 5 or 6 players they are Seat 1, Seat 2, ... The bots' names show their kind,
e.g. "East (random)".

Input: a card as QS, q♠, 10h or TD; a pass as three cards on one line ("QS AH 2C" or
"QS, AH, 2C"). Commands at any prompt: help, hand, score, last, rules, quit.
At an interactive terminal (and with Textual installed) this starts the full-screen table of
'hearts tui'; --plain, or input that is not a terminal, gives line mode, which runs the same
typed or scripted, e.g.
  printf 'AH KH QS\\n2C\\n' | hearts play --seed 1
and the same --seed with the same input gives the same transcript.

Rules: --preset, then --rules, then each --option, then --players and --target.
See every option and its allowed values with: hearts rules"""


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports errors on the stream given to :func:`main`."""

    errors: TextIO | None = None

    def error(self, message: str) -> NoReturn:
        stream = _Parser.errors or sys.stderr
        self.print_usage(stream)
        stream.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def _add_rules_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--preset", choices=list(PRESETS), help="a named rule set of RULES.md R6 (default: standard)"
    )
    p.add_argument(
        "--rules",
        metavar="JSON_OR_FILE",
        help='options as a JSON object, or a file holding one, e.g. \'{"moon": "shooter_chooses"}\'',
    )
    p.add_argument(
        "--option",
        "-o",
        action="append",
        metavar="NAME=VALUE",
        help="set one option, e.g. moon=shooter_chooses (repeatable; 'hearts rules' lists them)",
    )
    p.add_argument("--players", type=int, metavar="N", help="3, 4, 5 or 6 players (R1.1; default 4)")
    p.add_argument("--target", type=int, metavar="N", help="points that end the game (R5.1; default 100)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``hearts`` command."""
    parser = _Parser(
        prog="hearts", description="The card game Hearts: play, replay a record, show the rules."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser(
        "play",
        help="play a game against bots in the terminal",
        description="Play a game of Hearts against bots: the terminal table at an interactive terminal, "
        "else (or with --plain) line mode (standard input and output).",
        epilog=PLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument("--seed", type=int, metavar="N", help="seed for the deals and the bots (reproducible)")
    _add_rules_args(play)
    play.add_argument("--name", default="You", help="your name (default: You)")
    who = play.add_mutually_exclusive_group()
    who.add_argument(
        "--bot",
        metavar="SPEC",
        help=f"the bot for every other seat (default random; known: {', '.join(BOT_NAMES)})",
    )
    who.add_argument(
        "--bots", nargs="+", metavar="SPEC", help="one bot spec per other seat, clockwise from your left"
    )
    play.add_argument("--record", metavar="FILE", help="save the game record here (after every round too)")
    play.add_argument(
        "--plain", action="store_true", help="line mode even at an interactive terminal (no full-screen table)"
    )
    play.add_argument("--ascii", action="store_true", help="letters instead of suit symbols (QS, not Q♠)")

    tui = sub.add_parser(
        "tui",
        help="play at the full-screen terminal table (Textual; the 'tui' extra)",
        description="Play a game of Hearts against bots at a full-screen terminal table (Textual). "
        "Keys: arrows or a card's name (qs, 10h) to choose, Enter to play, Space to mark a pass "
        "card, h hint, u undo, l last trick, s scores, n new game, ctrl+s save, ctrl+q quit.",
    )
    tui.add_argument("--seed", type=int, metavar="N", help="seed for the deals and the bots (reproducible)")
    _add_rules_args(tui)
    tui.add_argument("--name", default="You", help="your name (default: You)")
    tui_who = tui.add_mutually_exclusive_group()
    tui_who.add_argument(
        "--bot", metavar="SPEC", help="the bot or level for every other seat (default medium; easy..expert)"
    )
    tui_who.add_argument(
        "--bots", nargs="+", metavar="SPEC", help="one bot spec per other seat, clockwise from your left"
    )
    tui.add_argument("--record", metavar="FILE", help="save the game record here (after every round too)")
    tui.add_argument("--resume", metavar="FILE", help="go on with a saved game record (from ctrl+s or --record)")
    tui.add_argument(
        "--delay", type=float, metavar="SECONDS", help="how long each bot move stays on screen (default 0.6)"
    )

    replay = sub.add_parser(
        "replay",
        help="check a saved record and print it trick by trick",
        description="Load a game (or round) record, check it by replaying every event, and print it.",
    )
    replay.add_argument("file", metavar="FILE")
    replay.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")

    rules = sub.add_parser(
        "rules",
        help="show every rule option, its value and the allowed values",
        description="Show every rule option of RULES.md with its value and allowed values, and the presets.",
    )
    _add_rules_args(rules)
    serve = sub.add_parser(
        "serve",
        help="the web table: play in a browser, against bots or with friends",
        description="Start the web table (needs the 'web' extra) and print its address.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db", metavar="URL", help="sqlite:///PATH (default: ~/.local/share/pyhearts/tables.db)"
    )
    serve.add_argument(
        "--bot-delay", type=float, default=0.7, metavar="SECONDS", help="pause before each bot move (default 0.7)"
    )
    serve.add_argument(
        "--bot-workers", type=int, default=None, metavar="N",
        help="processes the bots think in (default: one per core, at most 4; 0: threads)",
    )
    sub.add_parser(
        "arena",
        help="bot tournaments with duplicate deals and confidence intervals",
        add_help=False,
        prefix_chars="\0",
    )
    return parser


def _usage_error(errors: TextIO, command: str, message: str) -> int:
    errors.write(f"hearts {command}: error: {message}\n")
    return 2


def _can_encode(stream: TextIO) -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "♣♦♥♠→·═─☾".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def make_input(stdin: TextIO, stdout: TextIO) -> InputFn:
    """An input function on two streams: writes the prompt, reads a line (``None`` at EOF).

    When standard input is not a terminal (a script, a pipe) the answer is echoed after the
    prompt so that the transcript reads like a session. At a terminal, :func:`input` is used
    (with line editing where available).
    """
    interactive = _isatty(stdin)
    if interactive and stdin is sys.stdin and stdout is sys.stdout:

        def read_tty(prompt: str) -> str | None:
            try:
                return input(prompt)
            except EOFError:
                print()
                return None

        return read_tty

    def read(prompt: str) -> str | None:
        stdout.write(prompt)
        stdout.flush()
        line = stdin.readline()
        if not line:
            stdout.write("\n")
            return None
        line = line.rstrip("\r\n")
        if not interactive:
            stdout.write(line + "\n")
        return line

    return read


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except ValueError:  # a closed stream
        return False


def serve_command(args: argparse.Namespace, stderr: TextIO) -> int:
    """``hearts serve``: the web table (imported only here: the core needs no web stack)."""
    try:
        from hearts.server.app import serve
    except ImportError as e:
        stderr.write(f"hearts serve: error: the web table needs the 'web' extra ({e}); pip install 'pyhearts[web]'\n")
        return 2
    if args.bot_workers is not None and args.bot_workers < 0:
        stderr.write(f"hearts serve: error: --bot-workers must be 0 (threads) or more, not {args.bot_workers}\n")
        return 2
    try:
        serve(args.host, args.port, args.db, args.bot_delay, args.bot_workers)
    except ValueError as e:
        stderr.write(f"hearts serve: error: {e}\n")
        return 2
    return 0


def _wants_tui(stdin: TextIO, stdout: TextIO) -> bool:
    """``hearts play`` starts the full-screen table when both streams are the process's own
    interactive terminal and Textual is installed; otherwise it stays in line mode."""
    if stdin is not sys.stdin or stdout is not sys.stdout or not (_isatty(stdin) and _isatty(stdout)):
        return False
    from hearts.tui import textual_available

    return textual_available()


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the ``hearts`` command with ``argv`` (default: the process's arguments); the exit
    code: 0 on success, 1 for a bad record, 2 for a bad command line or rule option.

    The streams default to the process's; tests pass their own.
    """
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    raw = list(argv) if argv is not None else sys.argv[1:]
    if raw[:1] == ["arena"]:  # its own parser: hearts arena --help
        from hearts.arena import arena_main

        return arena_main(raw[1:])
    parser = build_parser()
    _Parser.errors = stderr
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    finally:
        _Parser.errors = None
    try:
        if args.command == "play" and not args.plain and _wants_tui(stdin, stdout):
            from hearts.tui import tui_command

            return tui_command(args, stderr)
        if args.command == "play":
            return play_command(args, make_input(stdin, stdout), stdout, stderr)
        if args.command == "tui":
            from hearts.tui import tui_command

            return tui_command(args, stderr)
        if args.command == "replay":
            return replay_command(args.file, stdout, stderr, ascii_only=args.ascii)
        if args.command == "rules":
            return rules_command(args, stdout, stderr)
        if args.command == "serve":
            return serve_command(args, stderr)
        parser.print_help(stdout)
        return 2
    except KeyboardInterrupt:
        stderr.write("\nInterrupted.\n")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `hearts replay FILE | head`): stop quietly, and keep
        # Python from complaining when it flushes standard output at exit.
        if stdout is sys.stdout:
            with contextlib.suppress(OSError, ValueError):  # no real file descriptor
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


__all__ = [
    "PlayCLI",
    "Style",
    "build_parser",
    "build_rules",
    "main",
    "make_input",
    "replay_command",
    "rules_command",
]
