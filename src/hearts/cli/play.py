"""``hearts play``: a game against bots at a line-mode table (standard input and output).

The table works the same typed by a person or fed by a script, and with ``--seed`` the same
input gives the same transcript. You sit at seat 0, South; the other seats follow clockwise
(R1.4), so the player on your left, who receives your pass "left", is seat 1, West. With four
players the seats are South (you), West, North and East (:data:`~hearts.text.SEAT_NAMES`).
At an interactive terminal (with Textual installed) ``hearts play`` opens the full-screen
table of ``hearts tui`` instead.

>>> import io
>>> from hearts import Rules
>>> out = io.StringIO()
>>> game = Game(Rules(target=1, pass_count=0), seed=1)
>>> seats = [Seat("You", bot="random"), *(Seat(f"Bot{s}", bot="random") for s in range(1, 4))]
>>> bots = {s: make_bot("random", seed=s) for s in range(4)}
>>> PlayCLI(game, bots, seats=seats, input_fn=lambda prompt: None, output=out).run()
0
>>> game.is_over, "══════ Game over ══════" in out.getvalue()
(True, True)
"""

from __future__ import annotations

import argparse
import random
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from hearts import fast, record
from hearts.actions import Action, Moon, Pass, Play
from hearts.bots import Bot, make_bot
from hearts.bots.guard import DEFAULT_BOT_ERROR, BotErrorPolicy, BotFailure, decide
from hearts.cards import Card, CardSet
from hearts.cli.common import (
    Streams,
    add_table_args,
    bot_args,
    build_rules,
    check_record_path,
    choose_language,
    isatty,
    options_help,
    table_refusal,
    usage_error,
)
from hearts.errors import CardParseError, HeartsError, IllegalAction
from hearts.game import Game
from hearts.i18n import N_, _, ngettext
from hearts.mechanics import MoonChoice
from hearts.record import GameRecord, Seat
from hearts.round import Phase, Round, Trick
from hearts.text import (
    DEFAULT_LEVEL,
    SEAT_NAMES,
    Style,
    bot_failure,
    bot_specs,
    bot_stood_in,
    bots_help,
    can_encode,
    default_names,
    direction_name,
    error_line,
    game_over_lines,
    game_stopped,
    is_you,
    moon_choice_text,
    name_word,
    points_word,
    refusal_words,
    round_summary,
    score_table,
    seat_label,
    typo_words,
    unfinished,
    winning_card,
)
from hearts.view import View

InputFn = Callable[[str], str | None]
"""Reads one line after showing a prompt; ``None`` at the end of input."""

COMMANDS = ("help", "hand", "score", "last", "rules", "quit")

HELP_TEXT = N_("""\
How to answer:
  a card         rank then suit: QS, q♠, 10h, TD, 2c (ranks 2-10 or T, J, Q, K, A; suits C D H S or ♣ ♦ ♥ ♠)
  a pass         the cards on one line: "QS AH 2C" or "QS, AH, 2C"
  the moon       'add' (everyone else +26) or 'subtract' (you -26)
Commands, at any prompt:
  hand    your cards            score   points this round and the totals
  last    the last trick        rules   the options in play
  help    this text             quit    stop the game (the record is saved if --record was given)""")
"""What ``help`` prints (a message of the catalogs: shown in the language in use; the commands
and the moon's answers are typed in English in every language, the moon's in the language too)."""


class _Quit(Exception):
    """The player typed ``quit``."""


class _EndOfInput(Exception):
    """Standard input ended."""


def _moon_choice(text: str) -> MoonChoice | None:
    """``add`` or ``subtract`` from what a person types (``a``, ``+26``, ``sub``, ``-``…, or
    the word in the language in use)."""
    if text in ("add", "a", "+", "+26", _("add").lower()):
        return "add"
    if text in ("subtract", "sub", "s", "-", "-26", _("subtract").lower()):
        return "subtract"
    return None


class PlayCLI:
    """A game of Hearts at a line-mode terminal table.

    ``seats`` are who sits where (a record's seats: a name, and a bot's spec or ``None`` for a
    person); ``bots`` holds a bot for each bot seat, and the person at the terminal plays the
    others (normally seat 0 only). ``input_fn(prompt)`` reads one answer (``None`` at the end
    of input) and every line of the transcript goes to ``output``; both are injectable, so
    tests drive whole games in-process. With ``record_path`` set, the game record (version 2:
    the seats, the seed, every action) is saved after every round and when the game stops. A
    game the input leaves unfinished is an error, said on ``errors`` (default: ``output``). A bot
    that fails its move is stood in for, or stops the game, as ``on_bot_error`` says
    (:mod:`hearts.bots.guard`).
    """

    def __init__(
        self,
        game: Game,
        bots: Mapping[int, Bot],
        *,
        seats: Sequence[Seat],
        input_fn: InputFn,
        output: TextIO,
        record_path: str | Path | None = None,
        style: Style | None = None,
        intro: Sequence[str] = (),
        errors: TextIO | None = None,
        on_bot_error: BotErrorPolicy = DEFAULT_BOT_ERROR,
    ) -> None:
        self.record = GameRecord(game, seats)  # checks the number of seats
        bot_seats = {s for s, seat in enumerate(self.record.seats) if seat.is_bot}
        if set(bots) != bot_seats:
            raise ValueError(f"the seats name bots at {sorted(bot_seats)}, bots are given for {sorted(bots)}")
        self.game = game
        self.bots = dict(bots)
        self.names = [seat.name for seat in self.record.seats]
        self.input_fn = input_fn
        self.output = output
        self.errors = errors if errors is not None else output
        self.record_path = Path(record_path) if record_path is not None else None
        self.style = style or Style()
        self.intro = list(intro)
        self.on_bot_error = on_bot_error
        self._round_shown = -1
        self._save_failed = False

    # --- output ----------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        """Write one line (or several) of the transcript."""
        self.output.write(self.style.text(text) + "\n")

    def _said(self, seat: int, yours: str, theirs: str, **values: object) -> str:
        """A sentence about ``seat`` in the language in use: ``yours`` (already translated) when
        it is the person spoken to (``You``), else ``theirs`` with its ``{name}``."""
        name = self.names[seat]
        return (yours if is_you(name) else theirs).format(name=name_word(name), **values)

    def _name(self, seat: int) -> str:
        """``seat``'s name as shown (:func:`~hearts.text.name_word`)."""
        return name_word(self.names[seat])

    def _by_seat(self, values: Sequence[int]) -> str:
        return " · ".join(f"{self._name(s)} {v}" for s, v in enumerate(values))

    # --- the game --------------------------------------------------------------------------

    def run(self) -> int:
        """Play to the end of the game (or ``quit`` / end of input); the exit code: 0 (the game
        played out, or ``quit``), 1 when the input ended before the game did (said on
        ``errors``, with where the record was saved) or when ``--record`` could not be saved,
        130 when interrupted."""
        for line in self.intro:
            self.say(line)
        try:
            self._loop()
        except _Quit:
            self.say(_("Quit: the game stops here."))
        except _EndOfInput:
            self.say(_("End of input: the game stops here, unfinished."))
            self._final_save()
            self.errors.write(self._unfinished() + "\n")
            return 1
        except BotFailure as e:
            self.say(_("{error}: the game stops here, unfinished.").format(error=bot_failure(e.fault)))
            self._final_save()
            self.errors.write(error_line("play", self._kept(game_stopped(e.fault))) + "\n")
            return 1
        except KeyboardInterrupt:
            self.say()
            self.say(_("Interrupted: the game stops here."))
            self._final_save()
            return 130
        else:
            self._game_over()
        self._final_save()
        if self._save_failed:  # the game is not where --record said it would be: not a success
            saved_to = _("the record could not be saved to {path}").format(path=repr(str(self.record_path)))
            self.errors.write(error_line("play", saved_to) + "\n")
            return 1
        return 0

    def _unfinished(self) -> str:
        """The error of a game left unfinished by the end of the input: where it stopped, and
        where its record is (to go on with it)."""
        ended = _("the input ended in round {n}, before the game did: the game is unfinished")
        return error_line("play", self._kept(ended.format(n=self.game.round.round_number + 1)))

    def _kept(self, message: str) -> str:
        """``message`` about an unfinished game, and where its record is (to go on with it)."""
        return unfinished(message, self.record_path, saved=not self._save_failed)

    def _loop(self) -> None:
        """The driver: whoever may act (bots first: passing is simultaneous, R2.1) acts, the
        engine applies it, the table says what happened."""
        game = self.game
        while not game.is_over:
            r = game.round
            if r.round_number != self._round_shown:
                self._round_header(r)
            actors = game.actors()
            seat = next((s for s in actors if s in self.bots), actors[0])
            self._before(r, seat)
            bot = self.bots.get(seat)
            if bot is not None:
                decision = decide(game, seat, bot, policy=self.on_bot_error, seed=game.seed,
                                  label=self.record.seats[seat].bot, where=f" ({self._name(seat)})")
                if decision.fault is not None:
                    self.say(bot_stood_in(decision.fault))
                action = decision.action
                game.apply(action)
            else:
                action = self._ask_action(seat)
            self._after(r, action)
            if r.is_over:
                self._round_summary(r)
                self._save()

    def _round_header(self, r: Round) -> None:
        self._round_shown = r.round_number
        rules = r.rules
        self.say()
        title = _("Round {n}").format(n=r.round_number + 1) + " · "
        if r.pass_offset:
            direction = direction_name(r.pass_offset, r.players)
            title += _("pass {count} {direction}").format(count=rules.pass_count, direction=direction)
        else:
            title += _("no passing (hold)")
        self.say(f"══════ {title} ══════")
        if r.round_number:
            self.say(_("Totals: {scores}   (target {n})").format(scores=self._by_seat(self.game.totals), n=rules.target))

    def _before(self, r: Round, seat: int) -> None:
        """What the table says before ``seat`` acts: a new trick, a shot moon."""
        if r.phase is Phase.PLAYING and not r.current_trick.cards:
            title = _("Trick {n} of {count}").format(n=r.tricks_played + 1, count=r.hand_size)
            broken = " · " + _("hearts broken") if r.hearts_broken else ""
            self.say(f"── {title}{broken} ──")
        elif r.phase is Phase.MOON_CHOICE:
            self.say("☾ " + self._said(seat, _("You shoot the moon: all the hearts and the Q♠!"),
                                       _("{name} shoots the moon: all the hearts and the Q♠!")))

    def _after(self, r: Round, action: Action) -> None:
        """What the table says once ``action`` is accepted (bots pass face down)."""
        seat = action.seat
        if isinstance(action, Pass):
            if seat not in self.bots:
                cards, to = self.style.sorted_cards(action.cards), self._name(r.pass_target(seat))
                self.say(self._said(seat, _("You pass {cards} to {to}."), _("{name} passes {cards} to {to}."),
                                    cards=cards, to=to))
            if r.phase is not Phase.PASSING:  # every seat has passed: the cards change hands
                self._received(r)
        elif isinstance(action, Play):
            trick = r.current_trick if r.current_trick.cards else r.tricks[-1]
            card = self.style.card(action.card)
            if len(trick.cards) == 1:
                self.say(self._said(seat, _("You lead {card}"), _("{name} leads {card}"), card=card))
            else:
                self.say(self._said(seat, _("You play {card}"), _("{name} plays {card}"), card=card))
            if not r.current_trick.cards:  # the trick is complete
                self._trick_result(r, trick)
        else:
            self.say(moon_choice_text(self.names[seat], action.choice, r.rules.round_points))

    def _received(self, r: Round) -> None:
        for seat in range(r.players):
            received = r.received(seat)
            if seat not in self.bots and received is not None:
                giver = self._name((seat - r.pass_offset) % r.players)
                self.say(self._said(seat, _("You receive {cards} from {giver}."),
                                    _("{name} receives {cards} from {giver}."),
                                    cards=self.style.sorted_cards(received), giver=giver))

    def _trick_result(self, r: Round, trick: Trick) -> None:
        winner = trick.winner
        assert winner is not None
        best = self.style.card(winning_card(trick))
        self.say("→ " + self._said(winner, _("You take the trick with {card} ({points})."),
                                   _("{name} takes the trick with {card} ({points})."),
                                   card=best, points=points_word(trick.points)))
        if trick.points:
            self.say("  " + _("Points this round: {scores}").format(scores=self._by_seat(r.points_taken)))

    def _round_summary(self, r: Round) -> None:
        head, *rest = round_summary(r, self.names, self.style)
        self.say()
        self.say(head)
        for line in rest:
            self.say("  " + line)

    def _game_over(self) -> None:
        head, history, *table = game_over_lines(self.game, self.names)
        self.say()
        self.say("══════ " + _("Game over") + " ══════")
        self.say(head)
        self.say(history)
        for line in table:
            self.say("  " + line)

    # --- the person's turn -----------------------------------------------------------------

    def _ask_action(self, seat: int) -> Action:
        """Ask the person at ``seat`` until the engine accepts an answer; a typo or a refused
        action gets a one-line reason and changes nothing."""
        view = View.of(self.game, seat)
        if view.must_pass:
            read, prompt = self._read_pass, self._show_pass(view)
        elif view.moon_choice_pending:
            read, prompt = self._read_moon, _("Moon: add or subtract") + " > "
            self.say(_("Totals before this round: {scores}").format(scores=self._by_seat(self.game.totals)))
        else:
            # NOTE: the prompt for the card the person plays ("Play > "): a few words
            read, prompt = self._read_play, _("Play") + " > "
            self._show_turn(view)
        while True:
            action = read(view, self._ask(prompt, seat))  # a refusal changes nothing: same view
            if action is None:
                continue
            try:
                self.game.apply(action)
            except IllegalAction as e:
                self.say(self._refused(view, action, e))
                continue
            return action

    def _show_pass(self, view: View) -> str:
        """Show the hand and what to pass; the prompt."""
        count = view.rules.pass_count
        assert view.pass_to is not None
        to = self._name(view.pass_to)
        self._say_hand(view.hand)
        direction = direction_name(self.game.round.pass_offset, view.players)
        self.say(ngettext("Choose {n} card to pass {direction} to {to}.", "Choose {n} cards to pass {direction} to {to}.",
                          count).format(n=count, direction=direction, to=to))
        return _("Pass {n} to {to}").format(n=count, to=to) + " > "

    def _say_hand(self, hand: CardSet) -> None:
        """``Hand:  ♣ 2 5 9 J   ♦ 3 K``."""
        self.say(_("Hand:  {cards}").format(cards=self.style.hand(hand)))

    def _legal(self, view: View) -> str:
        """``Legal: 2♣ 9♣``."""
        return _("Legal: {cards}").format(cards=self.style.sorted_cards(view.legal))

    def _show_turn(self, view: View) -> None:
        if view.trick.cards:
            table = "  ".join(f"{self._name(s)} {self.style.card(c)}" for s, c in view.trick.plays)
            self.say(_("Table: {cards}").format(cards=table))
        else:
            self.say(self._said(view.seat, _("You lead."), _("{name} leads.")))
        self._say_hand(view.hand)
        self.say(self._legal(view))

    def _read_pass(self, view: View, text: str) -> Action | None:
        try:
            return Pass(view.seat, CardSet.parse(text))
        except CardParseError as e:
            count = view.rules.pass_count
            again = ngettext('Type {n} card on one line, e.g. "QS".', 'Type {n} cards on one line, e.g. "QS AH 2C".', count)
            self.say(f"  {typo_words(e)} {again.format(n=count)}")
            return None

    def _read_play(self, view: View, text: str) -> Action | None:
        legal = self._legal(view)
        if len(text.replace(",", " ").split()) != 1:
            self.say("  " + _("Play one card, e.g. {card}.").format(card=self.style.card(next(iter(view.legal)))) + f" {legal}")
            return None
        try:
            return Play(view.seat, Card.parse(text))
        except CardParseError as e:
            self.say(f"  {typo_words(e)} {legal}")
            return None

    def _read_moon(self, view: View, text: str) -> Action | None:
        choice = _moon_choice(text.lower())
        if choice is None:
            worth = view.rules.round_points  # 43 with Black Maria's spades (R4.5)
            self.say("  " + _("Type 'add' (every other player scores +{n}) or 'subtract' (you score -{n}).").format(n=worth))
            return None
        return Moon(view.seat, choice)

    def _refused(self, view: View, action: Action, error: IllegalAction) -> str:
        """The one line that says why the engine refused the person's action, in a person's words."""
        why = refusal_words(error, self.names, self.style)
        if isinstance(action, Play):
            return f"  {why} {self._legal(view)}"
        if isinstance(action, Pass):
            return f"  {why} " + _("Your hand: {cards}").format(cards=self.style.hand(view.hand))
        return f"  {why}"

    def _ask(self, prompt: str, seat: int) -> str:
        """An answer that is not a command; commands are carried out here."""
        while True:
            line = self.input_fn(prompt)
            if line is None:
                raise _EndOfInput
            text = line.strip()
            if not text:
                self.say("  " + _("Type your answer, or 'help'."))
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
            self.say(_(HELP_TEXT))
        elif command == "hand":
            view = View.of(self.game, seat)
            self._say_hand(view.hand)
            if view.legal:
                self.say(self._legal(view))
        elif command == "score":
            rows = [(_("Points this round"), r.points_taken), (_("Totals before it"), list(self.game.totals))]
            for line in score_table([name_word(n) for n in self.names], rows):
                self.say("  " + line)
            self.say("  " + _("Round {n}, target {target}; lowest total wins.").format(n=r.round_number + 1, target=r.rules.target))
        elif command == "last":
            if not r.tricks:
                self.say("  " + _("No trick has been completed yet this round."))
            else:
                t = r.tricks[-1]
                plays = "  ".join(f"{self._name(s)} {self.style.card(c)}" for s, c in t.plays)
                assert t.winner is not None
                self.say("  " + _("Trick {n}").format(n=len(r.tricks))
                         + f": {plays} → {self._name(t.winner)} ({points_word(t.points)})")
        elif command == "rules":
            self.say("  " + _("Rules: {rules}").format(rules=r.rules.describe()))

    # --- records ---------------------------------------------------------------------------

    def _save(self) -> None:
        if self.record_path is None or self._save_failed:
            return
        try:
            record.save(self.record, self.record_path)
        except OSError as e:
            self._save_failed = True
            self.say("(" + _("cannot save the record to {path}: {error}").format(path=repr(str(self.record_path)), error=e) + ")")

    def _final_save(self) -> None:
        if self.record_path is None:
            return
        self._save()
        if not self._save_failed:
            self.say(_("Record saved to {path}.").format(path=self.record_path))


# --- input ---------------------------------------------------------------------------------


def make_input(stdin: TextIO, stdout: TextIO) -> InputFn:
    """An input function on two streams: writes the prompt, reads a line (``None`` at EOF).

    When standard input is not a terminal (a script, a pipe) the answer is echoed after the
    prompt so that the transcript reads like a session. At a terminal, :func:`input` is used
    (with line editing where available).
    """
    interactive = isatty(stdin)
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


# --- the subcommand ------------------------------------------------------------------------

EXAMPLE = "printf 'QS AH KH\\n2C\\nquit\\n' | hearts play --seed 344"
"""A scripted start, as the help shows it: with seed 344 you hold these cards, pass three of
them, lead the 2♣ and quit (input that ends before the game does is an error, exit code 1)."""

BOTS = textwrap.fill(
    f"Bots (--bot, --bots): {bots_help()}. The same default level plays at the terminal table and in line mode.",
    92,
)

EPILOG = f"""\
Seats: you sit at seat 0, South, at the bottom of the table; the others follow clockwise
(R1.4), so seat 1, on your left, is West and receives your pass "left". With 4 players:
South (you), West, North, East; with 3: South, West, East; with 5 or 6, Northwest (North)
and Northeast sit between West and East. Each bot's level is shown after its name, e.g.
"West (hard)", and saved in the record (--record).

{BOTS}

Input: a card as QS, q♠, 10h or TD; a pass as three cards on one line ("QS AH 2C" or
"QS, AH, 2C"). Commands at any prompt: help, hand, score, last, rules, quit.
At an interactive terminal (and with Textual installed) this starts the full-screen table of
'hearts tui'; --plain, or input that is not a terminal, gives line mode, which runs the same
typed or scripted, e.g.
  {EXAMPLE}
and the same --seed with the same input gives the same transcript. Input that ends before the
game does leaves it unfinished: exit code 1 (0 after 'quit').

Rules: --preset, then --rules, then each --option, then --players and --target.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts play`` to the command's subparsers."""
    p = sub.add_parser(
        "play",
        help="play a game against bots in the terminal",
        description="Play a game of Hearts against bots: the terminal table at an interactive terminal, "
        "else (or with --plain) line mode (standard input and output).",
        epilog=EPILOG + "\n" + options_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_table_args(p)
    p.add_argument(
        "--plain",
        action="store_true",
        help="line mode even at an interactive terminal (no full-screen table)",
    )
    p.add_argument("--ascii", action="store_true", help="letters instead of suit symbols (QS, not Q♠)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts play``: the full-screen table at an interactive terminal, else line mode."""
    refused = choose_language(args, streams.stderr, "play")  # before anything is said
    if refused is not None:
        return refused
    if not args.plain and _wants_tui(streams):
        from hearts.cli.tui import run as run_tui

        return run_tui(args, streams)
    return play_command(args, make_input(streams.stdin, streams.stdout), streams.stdout, streams.stderr)


def _wants_tui(streams: Streams) -> bool:
    """Both streams are the process's own interactive terminal and Textual is installed."""
    if streams.stdin is not sys.stdin or streams.stdout is not sys.stdout:
        return False
    if not (isatty(streams.stdin) and isatty(streams.stdout)):
        return False
    from hearts.tui import textual_available

    return textual_available()


def play_command(args: argparse.Namespace, input_fn: InputFn, output: TextIO, errors: TextIO) -> int:
    """Line mode: set up the rules, the seats, the bots and the table from ``args``, then play."""
    try:
        rules = build_rules(args)
    except HeartsError as e:
        return usage_error(errors, "play", table_refusal("play", e))
    n = rules.players
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    seeder = random.Random(f"hearts-bots-{seed}")
    try:
        specs = bot_specs(bot_args(args), n, DEFAULT_LEVEL)
        bots = {s: make_bot(spec, seed=seeder.randrange(2**31)) for s, spec in enumerate(specs, start=1)}
        check_record_path(args.record, args.overwrite)  # before the game starts, not at the end of its first round
    except HeartsError as e:
        return usage_error(errors, "play", table_refusal("play", e))
    names = default_names(n, args.name or "You")
    seats = [Seat(names[0]), *(Seat(names[s], bot=spec) for s, spec in enumerate(specs, start=1))]
    where = f" ({name_word(SEAT_NAMES[n][0])})" if names[0] != SEAT_NAMES[n][0] else ""
    intro = [
        _("Hearts · {n} players · to {target} points · lowest total wins").format(n=n, target=rules.target),
        _("Rules: {rules}").format(rules=rules.describe()),
        _("Seats, clockwise: {seats}").format(seats=", ".join([seat_label(seats[0]) + where, *map(seat_label, seats[1:])])),
        _("Seed {seed} (play this deal again with --seed {seed}). Type 'help' at any prompt.").format(seed=seed),
    ]
    fast.prepare(lambda line: print(line, file=errors, flush=True), extra="fast", translate=_)  # not in the middle of a bot's turn
    table = PlayCLI(
        Game(rules, seed=seed),
        bots,
        seats=seats,
        input_fn=input_fn,
        output=output,
        record_path=args.record,
        style=Style(ascii_only=args.ascii or not can_encode(output)),
        intro=intro,
        errors=errors,
        on_bot_error=args.on_bot_error,
    )
    return table.run()
