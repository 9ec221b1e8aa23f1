"""The ``hearts`` command: scripted games through stdin, bad input, records, replay, rules.

Most tests run :func:`hearts.cli.main` in-process with a fake standard input that answers each
prompt from what the table has printed so far (the hand, the legal cards), so whole games run
to the end without knowing the deal in advance.
"""

from __future__ import annotations

import importlib.resources
import io
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hearts import PRESETS, Card, CardSet, Game, Rules, record
from hearts.actions import Action, Moon, Pass, Play
from hearts.bots import make_bot
from hearts.bots.registry import LEVELS
from hearts.cards import SUIT_LETTERS, SUIT_SYMBOLS
from hearts.cli import build_parser, main
from hearts.cli.common import build_rules
from hearts.cli.play import PlayCLI
from hearts.errors import IllegalAction
from hearts.record import GameRecord, Seat
from hearts.text import DEFAULT_LEVEL, SEAT_NAMES, Style
from hearts.view import View

# --- helpers -------------------------------------------------------------------------------


def parse_shown_hand(line: str) -> list[Card]:
    """Cards of a printed hand such as ``Hand:  ♣ 2 5 J   ♦ 3 K`` (suit symbols or letters)."""
    cards: list[Card] = []
    suit = ""
    for token in line.split(":", 1)[1].split():
        if token in SUIT_SYMBOLS or token in SUIT_LETTERS:
            suit = token
        else:
            cards.append(Card.parse(token + suit))
    return cards


class TranscriptOracle:
    """A fake stdin that answers each prompt by reading the transcript printed so far:
    the first cards of the last ``Hand:`` line to pass, the first card of the last ``Legal:``
    line to play, ``add`` to the moon question. ``script`` lines, if any, are answered first
    (``None`` in it: let the oracle answer); ``limit`` answers in all, then end of input."""

    def __init__(self, out: io.StringIO, script: list[str | None] | None = None, limit: int = 10_000) -> None:
        self.out = out
        self.script = list(script or [])
        self.answers: list[str] = []
        self.limit = limit

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        if len(self.answers) >= self.limit:
            return ""  # end of input
        text = self.out.getvalue()
        prompt = text[text.rfind("\n") + 1 :]
        answer = self.script.pop(0) if self.script else None  # None: the oracle answers
        if answer is not None:
            pass
        elif prompt.startswith("Pass"):
            count = int(prompt.split()[1])
            hand_line = text[text.rfind("\nHand:") + 1 :].splitlines()[0]
            answer = " ".join(str(c) for c in parse_shown_hand(hand_line)[:count])
        elif prompt.startswith("Play"):
            legal_line = text[text.rfind("\nLegal:") + 1 :].splitlines()[0]
            answer = legal_line.split()[1]
        elif prompt.startswith("Moon"):
            answer = "add"
        else:  # pragma: no cover - a prompt the oracle does not know
            raise AssertionError(f"unknown prompt {prompt!r}")
        self.answers.append(answer)
        return answer + "\n"


def run_main(
    argv: list[str], script: list[str | None] | None = None, limit: int = 10_000
) -> tuple[int, str, str, list[str]]:
    """Run ``main`` in-process with the oracle as stdin: (exit code, stdout, stderr, answers)."""
    out, err = io.StringIO(), io.StringIO()
    oracle = TranscriptOracle(out, script, limit)
    code = main(argv, stdin=oracle, stdout=out, stderr=err)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue(), oracle.answers


def first_legal(game: Game, prompt: str) -> str:
    """A valid answer to ``prompt`` taken from the engine's state (seat 0 is the person)."""
    r = game.round
    if prompt.startswith("Pass"):
        return " ".join(str(c) for c in list(r.hand(0))[: r.rules.pass_count])
    if prompt.startswith("Moon"):
        return "add"
    return str(next(iter(r.legal_plays())))


def make_table(
    game: Game, answer: Callable[[PlayCLI, str], str | None], bot: str = "random"
) -> tuple[PlayCLI, io.StringIO]:
    """A table where seat 0 answers through ``answer(table, prompt)``."""
    out = io.StringIO()
    n = game.rules.players
    seats = [Seat("You"), *(Seat(f"Bot{s}", bot=bot) for s in range(1, n))]
    holder: list[PlayCLI] = []

    def input_fn(prompt: str) -> str | None:
        out.write(prompt)
        reply = answer(holder[0], prompt)
        out.write(f"{reply}\n")
        return reply

    bots = {s: make_bot(bot, seed=s) for s in range(1, n)}
    table = PlayCLI(game, bots, seats=seats, input_fn=input_fn, output=out)
    holder.append(table)
    return table, out


# --- whole games ---------------------------------------------------------------------------


def test_scripted_game_runs_to_the_end() -> None:
    """R5.1: a whole game to 100, every answer computed from the printed hand and legal list."""
    code, out, err, answers = run_main(["play", "--seed", "5"])
    assert code == 0, err
    assert "Traceback" not in out + err
    assert "══════ Game over ══════" in out
    assert "Score history" in out
    assert " win" in out.split("Game over")[1]
    assert any(a.count(" ") == 2 for a in answers)  # passes of three cards (R2.1)
    assert "Round 2 · pass 3 right" in out  # R2.2: left, right, across, hold
    assert "Round 4 · no passing (hold)" in out


def test_game_state_after_a_scripted_game() -> None:
    """R5.1, R5.2: the table plays the engine's game to a single lowest total over the target."""
    game = Game(Rules(target=40), seed=11)
    table, out = make_table(game, lambda t, p: first_legal(t.game, p))
    assert table.run() == 0
    assert game.is_over and game.winners is not None and len(game.winners) == 1
    assert max(game.totals) >= 40
    assert all(sum(r.result.points) == 26 for r in game.rounds if r.result)  # R4.1
    text = out.getvalue()
    for s, total in enumerate(game.totals):
        assert str(total) in text.split("Score history")[1]
        assert table.names[s] in text


@pytest.mark.parametrize("players", [3, 5, 6])
def test_other_numbers_of_players(players: int) -> None:
    """R1.1, R1.2: 3, 5 and 6 players play to the end; the seats are named by the compass,
    clockwise from you (South, R1.4), each bot by its level."""
    code, out, err, _ = run_main(["play", "--seed", "2", "--players", str(players), "--target", "30"])
    assert code == 0, err
    assert f"{players} players" in out and "Game over" in out
    others = ", ".join(f"{name} ({DEFAULT_LEVEL})" for name in SEAT_NAMES[players][1:])
    assert f"Seats, clockwise: You (South), {others}\n" in out


def test_same_seed_same_input_same_transcript() -> None:
    """R1.3: deals and bot decisions come from the seed, so the transcript repeats exactly."""
    first = run_main(["play", "--seed", "9", "--target", "50"])
    second = run_main(["play", "--seed", "9", "--target", "50"])
    assert first[0] == second[0] == 0
    assert first[1] == second[1]
    third = run_main(["play", "--seed", "10", "--target", "50"])
    assert third[1] != first[1]


def test_record_is_written_and_loads_with_the_same_totals(tmp_path: Path) -> None:
    """--record saves a version 2 record that hearts.record.load accepts, with the game's
    totals, its seed (R1.3) and the seats: names, and the bots' specs."""
    path = tmp_path / "game.json"
    code, out, _, _ = run_main(["play", "--seed", "4", "--target", "40", "--record", str(path)])
    assert code == 0
    loaded = record.load(path)
    assert isinstance(loaded, GameRecord) and loaded.game.is_over
    game = loaded.game
    history = [line.split() for line in out.split("Score history")[1].splitlines()]
    last_row = [row for row in history if row[:1] == ["Round"]][-1]
    assert last_row[1:3] == [str(len(game.rounds)), "(final)"]
    assert [int(x) for x in last_row[3:]] == game.totals
    assert game.seed == 4 and game.rounds[0].dealt == Game(Rules(target=40), seed=4).rounds[0].dealt  # R1.3
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 2 and data["seed"] == 4
    assert data["seats"] == [
        {"name": "You", "bot": None},
        {"name": "West", "bot": DEFAULT_LEVEL},
        {"name": "North", "bot": DEFAULT_LEVEL},
        {"name": "East", "bot": DEFAULT_LEVEL},
    ]
    assert f"Record saved to {path}" in out


def test_record_keeps_each_bot_spec_as_given(tmp_path: Path) -> None:
    """--bots: each seat's exact spec is in the record (and in the seats line), the person's
    seat has no bot; the record is saved when the game stops early."""
    path = tmp_path / "specs.json"
    specs = ["heuristic:blunder=0.2", "search:iterations=20", "easy"]
    code, out, _, _ = run_main(
        ["play", "--seed", "2", "--name", "Ann", "--bots", *specs, "--record", str(path)], limit=4
    )
    assert code == 1 and "End of input" in out
    assert (
        "Seats, clockwise: Ann (South), West (heuristic:blunder=0.2), North (search:iterations=20), East (easy)"
        in out
    )
    loaded = record.load(path)
    assert isinstance(loaded, GameRecord)
    assert list(loaded.seats) == [
        Seat("Ann"),
        *(Seat(n, bot=b) for n, b in zip(["West", "North", "East"], specs, strict=True)),
    ]
    assert loaded.game.seed == 2 and not loaded.game.is_over


# --- bad input -----------------------------------------------------------------------------


def test_pass_input_errors_reprompt_without_change() -> None:
    """R2.1: a typo, a wrong count, a duplicate and a card not held are refused; asked again."""
    game = Game(Rules(target=20), seed=3)
    hand = list(game.round.hand(0))
    not_held = next(c for c in CardSet.full() if c not in game.round.hand(0))
    bad = ["zz", f"{hand[0]} {hand[1]}", f"{hand[0]} {hand[0]} {hand[1]}", f"{hand[0]} {hand[1]} {not_held}"]
    seen: list[str] = []

    def answer(table: PlayCLI, prompt: str) -> str | None:
        if prompt.startswith("Pass") and bad:
            assert table.game.round.passed(0) is None  # nothing changed
            seen.append(prompt)
            return bad.pop(0)
        if len(seen) == 4 and prompt.startswith("Pass"):
            seen.append("ok")
            return f"{hand[0]}, {hand[1]}, {hand[2]}"  # comma separated
        return None  # end of input at the first play

    table, out = make_table(game, answer)
    assert table.run() == 1  # the input ends at the first play
    text = out.getvalue()
    assert "'zz' is not a card" in text and "(R1.2)." in text
    assert "You pass 3 cards, not 2 (R2.1)." in text
    assert "is given twice" in text
    assert f"You don't hold {Style().card(not_held)} (R2.1)." in text
    assert "R2.1:" not in text and "R1.2:" not in text  # the rule follows the words, for people
    assert game.round.passed(0) == CardSet(hand[:3])
    assert "Traceback" not in text and "End of input" in text


def test_play_input_errors_reprompt_without_change() -> None:
    """R3.1, R3.2: typos, two cards, a card not held and an illegal card get a one-line message
    naming the rule and the legal cards; the state is unchanged and the prompt comes again."""
    game = Game(Rules(target=20, pass_count=0), seed=8)  # no pass: play starts at once
    r = game.round
    queue: list[str] = []
    before: list[tuple[tuple[Card, ...], CardSet]] = []

    def answer(table: PlayCLI, prompt: str) -> str | None:
        if queue:
            assert (r.plays, r.hand(0)) == before[0]  # the refused answers changed nothing
            return queue.pop(0)
        if before:
            return None  # end of input once the good card is played
        legal, illegal = r.legal_plays(), r.hand(0) - r.legal_plays()
        if not illegal:
            return first_legal(table.game, prompt)
        before.append((r.plays, r.hand(0)))
        good = next(iter(legal))
        queue.extend([f"{good} {good}", str(_not_held(r.hand(0))), str(next(iter(illegal))), str(good)])
        return "1X"

    table, out = make_table(game, answer)
    assert table.run() == 1  # the input ends mid-game
    text = out.getvalue()
    assert before, "the deal gave no illegal card to try"
    assert "'1X' is not a card" in text
    assert "Play one card" in text
    assert "  That card is not in your hand (R1.3). Legal: " in text  # the reason the tables share (WHY_NOT)
    assert any(f"({rule}). Legal: " in text for rule in ("R3.1", "R3.2", "R3.3", "R3.4"))
    assert "its hand" not in text and not re.search(r"R\d(\.\d)?: ", text)  # no engine wording
    assert text.count("Legal: ") >= 5
    assert len(r.plays) > len(before[0][0])  # the good card was played
    assert "Traceback" not in text


def _not_held(hand: CardSet) -> Card:
    return next(c for c in CardSet.full() if c not in hand)


def test_bad_input_message_through_main() -> None:
    """R3.1: an illegal first lead typed on stdin: the rule and the legal cards, then the prompt again."""
    game = Game(Rules(pass_count=0), seed=4)
    assert game.round.holder("2C") == 0  # with seed 4 and no pass, you lead the 2♣
    wrong = next(c for c in game.round.hand(0) if c != Card.parse("2C"))
    code, out, err, _ = run_main(
        ["play", "--seed", "4", "--option", "pass_count=0", "--target", "20"], script=[str(wrong), "qq"]
    )
    assert code == 0 and "Traceback" not in out + err
    assert f"Play > {wrong}\n  The first trick is opened with the lowest club in play (R3.1). Legal: 2♣\n" in out
    assert "Play > qq\n  'qq' is not a card: write a rank" in out and "(R1.2). Legal: 2♣\n" in out
    assert "Game over" in out


def test_commands_at_the_prompts() -> None:
    """help, hand, score, last and rules answer and ask again."""
    code, out, _, _ = run_main(
        ["play", "--seed", "6", "--option", "pass_count=0", "--target", "20"],
        script=["help", "hand", "score", "last", "rules", "", "HAND"],
        limit=10,
    )
    assert code == 1  # the input ends mid-game
    assert "Commands, at any prompt" in out
    assert "Points this round" in out
    assert "No trick has been completed yet this round." in out
    assert "Rules: players=4 pass_count=0 target=20" in out
    assert "Type your answer, or 'help'." in out
    assert out.count("Hand:") >= 3
    assert "End of input" in out


def test_last_shows_the_previous_trick() -> None:
    """'last' shows the trick just completed, who took it and its points."""
    code, out, _, _ = run_main(
        ["play", "--seed", "6", "--option", "pass_count=0"], script=[None, "last"], limit=3
    )
    assert code == 1  # the input ends mid-game
    assert re.search(r"\n  Trick 1: (\w+ \S+  ){3}\w+ \S+ → \w+ \((no points|\d+ points?)\)\n", out)


def test_quit_saves_the_record_and_exits_0(tmp_path: Path) -> None:
    """quit stops the game with exit code 0 and saves the (unfinished) record."""
    path = tmp_path / "quit.json"
    code, out, _, _ = run_main(["play", "--seed", "1", "--record", str(path)], script=["AH KH QS", "quit"])
    assert code == 0
    assert "Quit: the game stops here." in out
    loaded = record.load(path)
    assert isinstance(loaded, GameRecord) and not loaded.game.is_over


def test_end_of_input_stops_gracefully(tmp_path: Path) -> None:
    """EOF on stdin before the game is over: a message, the record saved, exit code 1
    (tests/test_cli_edges.py checks the error message)."""
    path = tmp_path / "eof.json"
    out, err = io.StringIO(), io.StringIO()
    code = main(["play", "--seed", "1", "--record", str(path)], stdin=io.StringIO(""), stdout=out, stderr=err)
    assert code == 1
    assert "End of input: the game stops here, unfinished." in out.getvalue()
    assert "Traceback" not in out.getvalue() + err.getvalue()
    assert isinstance(record.load(path), GameRecord)


def test_piped_input_is_echoed_after_the_prompt() -> None:
    """With a script for stdin, answers appear in the transcript after their prompt."""
    out = io.StringIO()
    main(["play", "--seed", "1"], stdin=io.StringIO("hand\n"), stdout=out, stderr=io.StringIO())
    assert "Pass 3 to West > hand\n" in out.getvalue()


# --- options -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--option", "moon=sometimes"], "option 'moon' is 'sometimes'; allowed: 'add_to_others'"),
        (["--option", "colour=red"], "unknown option 'colour'; allowed: players, removed_for_three, pass_count"),
        (["--option", "moon"], "write name=value"),
        (["--option", "target=lots"], "expected a whole number"),
        (["--option", "pass_cycle=sideways"], "allowed: left, right, across, hold"),
        (["--players", "7"], "R1.1: option 'players' is 7; allowed: 3..6"),
        (["--rules", "{not json"], "is not valid JSON"),
        (["--rules", '{"pass_cycle": 5}'], "pass_cycle"),
        (["--rules", "/no/such/rules.json"], "cannot read rules file"),
        (["--bot", "nobody"], "unknown bot 'nobody'; known bots:"),
        (["--bots", "random", "random"], "3 bot specs are needed (one per other seat) or one for all, got 2"),
    ],
)
def test_bad_options_exit_2_with_a_message(argv: list[str], expected: str) -> None:
    """R1–R5 options: an unknown name or value is a clear one-line error and exit code 2."""
    code, out, err, _ = run_main(["play", "--seed", "1", *argv])
    assert code == 2
    assert expected in err
    assert "Traceback" not in err and out == ""


def test_argparse_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown preset or flag is refused by the parser with exit code 2."""
    err = io.StringIO()
    assert main(["play", "--preset", "bogus"], stdout=io.StringIO(), stderr=err) == 2
    assert "invalid choice: 'bogus'" in err.getvalue() and "standard" in err.getvalue()
    assert main(["play", "--frobnicate"], stdout=io.StringIO(), stderr=io.StringIO()) == 2
    assert main([], stdout=io.StringIO(), stderr=io.StringIO()) == 0  # a bare `hearts`: the help


def test_every_option_is_settable_from_the_command_line() -> None:
    """the rule book: every option can be set with --option, --preset, --rules and the flags."""
    parser = build_parser()
    args = parser.parse_args(
        [
            "play",
            "--preset",
            "omnibus",
            "--rules",
            '{"ties": "share"}',
            "-o",
            "moon=shooter_chooses",
            "-o",
            "pass_cycle=left,hold",
            "-o",
            "queen_lead=after_break",
            "-o",
            "points_on_first_trick=true",
            "-o",
            "must_break_hearts=false",
            "-o",
            "queen_breaks_hearts=no",
            "-o",
            "lead_hearts_instead_of_queen=yes",
            "-o",
            "first_lead=any_club",
            "-o",
            "no_tricks_bonus=-5",
            "-o",
            "pass_count=2",
            "--players",
            "6",
            "--target",
            "50",
        ]
    )
    rules = build_rules(args)
    assert rules == Rules(
        players=6,
        pass_count=2,
        pass_cycle=("left", "hold"),
        first_lead="any_club",
        points_on_first_trick=True,
        must_break_hearts=False,
        queen_breaks_hearts=False,
        queen_lead="after_break",
        lead_hearts_instead_of_queen=True,
        jack_of_diamonds=-10,
        no_tricks_bonus=-5,
        moon="shooter_chooses",
        target=50,
        ties="share",
    )


def test_rules_file_and_bots_and_name(tmp_path: Path) -> None:
    """--rules FILE, --bots one per seat and --name reach the table."""
    path = tmp_path / "rules.json"
    path.write_text('{"jack_of_diamonds": -10, "target": 30}', encoding="utf-8")
    code, out, err, _ = run_main(
        ["play", "--seed", "3", "--rules", str(path), "--bots", "random", "random", "random", "--name", "Ann"]
    )
    assert code == 0, err
    assert "jack_of_diamonds=-10 target=30" in out
    assert "Ann (South)" in out and ("Ann plays" in out or "Ann leads" in out)
    assert "Game over" in out


def test_ascii_output() -> None:
    """--ascii prints suit letters and plain ASCII; a whole game runs that way."""
    code, out, _, _ = run_main(["play", "--seed", "1", "--ascii", "--target", "20"])
    assert code == 0 and "Game over" in out
    assert "Hand:  C " in out and "-> " in out
    assert all(ord(ch) < 128 for ch in out)
    assert Style(ascii_only=True).card(Card.parse("10♥")) == "10H"


def test_ascii_fallback_when_the_terminal_cannot_print_symbols() -> None:
    """A stream that cannot encode ♠ gets the --ascii transcript instead of an error."""
    _, expected, _, answers = run_main(["play", "--seed", "1", "--ascii", "--target", "20"])
    proc = subprocess.run(
        [*_console_script(), "play", "--seed", "1", "--target", "20"],
        input="\n".join(answers) + "\n",
        capture_output=True,
        text=True,
        encoding="ascii",
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected


# --- the moon ------------------------------------------------------------------------------


def _all_clubs_deal(clubs_seat: int) -> list[CardSet]:
    """A deal where ``clubs_seat`` holds every club and so wins every trick (a sure moon)."""
    suits = [CardSet([c for c in CardSet.full() if c.suit == s]) for s in range(4)]
    order = [0, 1, 2, 3]
    order.remove(0)
    order.insert(clubs_seat, 0)
    return [suits[order[seat]] for seat in range(4)]


@pytest.mark.parametrize("choice", ["add", "subtract"])
def test_person_shooting_the_moon_is_asked(choice: str) -> None:
    """R4.4 shooter_chooses: the person who shot the moon is asked 'add' or 'subtract'."""
    rules = Rules(pass_count=0, moon="shooter_chooses", target=26)
    game = Game(rules, seed=1, deals=[_all_clubs_deal(0)])
    answers = ["maybe", choice]

    def answer(table: PlayCLI, prompt: str) -> str | None:
        if prompt.startswith("Moon"):
            return answers.pop(0)
        if table.game.round.round_number > 0:
            return None
        return first_legal(table.game, prompt)

    table, out = make_table(game, answer)
    assert table.run() == (0 if choice == "add" else 1)  # subtract: the game goes on
    text = out.getvalue()
    assert "You shoot the moon" in text
    assert "Type 'add'" in text  # 'maybe' was refused
    if choice == "add":
        assert game.totals == [0, 26, 26, 26] and game.winners == (0,)
        assert "You win with no points!" in text
    else:
        assert game.totals == [-26, 0, 0, 0] and not game.is_over
        assert "subtract 26 from your own score" in text


def test_bot_shooting_the_moon() -> None:
    """R4.4: a bot that shoots the moon decides by itself; the summary says how it scored."""
    rules = Rules(pass_count=0, moon="shooter_chooses", target=26)
    game = Game(rules, seed=1, deals=[_all_clubs_deal(1)])

    def answer(table: PlayCLI, prompt: str) -> str | None:
        return None if table.game.round.round_number > 0 else first_legal(table.game, prompt)

    table, out = make_table(game, answer)
    assert table.run() == 0
    text = out.getvalue()
    assert "Bot1 shoots the moon" in text
    assert "Bot1 shot the moon (every other player +26)" in text


# --- replay and rules ----------------------------------------------------------------------


def _saved_game(tmp_path: Path) -> Path:
    path = tmp_path / "saved.json"
    code, *_ = run_main(["play", "--seed", "7", "--target", "30", "--record", str(path)])
    assert code == 0
    return path


def test_replay_of_a_valid_record(tmp_path: Path) -> None:
    """replay prints every round trick by trick with scores and totals."""
    path = _saved_game(tmp_path)
    loaded = record.load(path)
    assert isinstance(loaded, GameRecord)
    game = loaded.game
    out, err = io.StringIO(), io.StringIO()
    assert main(["replay", str(path)], stdout=out, stderr=err) == 0
    text = out.getvalue()
    assert text.count("Trick 13:") == len(game.rounds)
    assert "Round score" in text and "Game over after" in text
    assert "You pass " in text and "West passes " in text  # names from the record
    assert "Seed: 7\n" in text
    assert f"Seats, clockwise:\n  0  You    a person\n  1  West   bot {DEFAULT_LEVEL}\n" in text
    assert (
        ", ".join(f"{n} {t}" for n, t in zip(["You", "West", "North", "East"], game.totals, strict=True))
        in text
    )


def test_replay_of_a_round_record(tmp_path: Path) -> None:
    """A single-round record replays too."""
    game = Game(Rules(target=20), seed=2)
    table, _ = make_table(game, lambda t, p: first_legal(t.game, p))
    table.run()
    path = tmp_path / "round.json"
    record.save(game.rounds[0], path)
    out = io.StringIO()
    assert main(["replay", str(path)], stdout=out, stderr=io.StringIO()) == 0
    assert "a round of Hearts" in out.getvalue() and "Trick 13:" in out.getvalue()


@pytest.mark.parametrize(
    ("forge", "expected"),
    [
        (lambda d: d["actions"].__setitem__(5, d["actions"][4]), "action 5 ("),
        (lambda d: d["actions"].insert(0, {"type": "play", "seat": 0, "card": "2C"}), "action 0 ("),
        (lambda d: d["seats"].pop(), "the record has 3 seats for 4 players"),
        (lambda d: d.__setitem__("seed", "x"), "the record's 'seed' is a whole number or null"),
        (lambda d: d.__setitem__("totals", [1, 2, 3, 4]), "the record's totals are"),
        (lambda d: d.__setitem__("totals", 5), "the record's totals are 5"),
        (lambda d: d.__setitem__("version", 99), "record version 99 is not supported"),
        (lambda d: d.__setitem__("rules", {"moon": "never"}), "option 'moon' is 'never'"),
    ],
)
def test_replay_of_a_forged_record(
    tmp_path: Path, forge: Callable[[dict[str, object]], None], expected: str
) -> None:
    """A forged or malformed record: the RecordError message and exit code 1."""
    path = _saved_game(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    forge(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["replay", str(path)], stdout=out, stderr=err) == 1
    assert expected in err.getvalue()
    assert err.getvalue().startswith("hearts replay: error:") and "Traceback" not in err.getvalue()


def test_replay_of_a_missing_or_broken_file(tmp_path: Path) -> None:
    """Not a file: exit code 2, a usage error as everywhere; not JSON: exit code 1 with a message."""
    err = io.StringIO()
    assert main(["replay", str(tmp_path / "none.json")], stdout=io.StringIO(), stderr=err) == 2
    assert "cannot read record" in err.getvalue()
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    err = io.StringIO()
    assert main(["replay", str(broken)], stdout=io.StringIO(), stderr=err) == 1
    assert "not valid JSON" in err.getvalue()


def test_rules_command_lists_every_option_and_preset() -> None:
    """R6: `hearts rules` shows each option of Rules.options() with its value, its rule, label
    and help, what is allowed and its default; then the presets."""
    out = io.StringIO()
    assert main(["rules"], stdout=out) == 0
    text = out.getvalue()
    for spec in Rules.options():
        assert f"\n  {spec.name} = " in text
        assert f"  {spec.rule} {spec.label}: {spec.help}\n      allowed: {spec.allowed()}; default " in text
    for preset in PRESETS:
        assert f"\n  {preset} " in text
    assert (
        "allowed: add_to_others | subtract_from_self | shooter_chooses | add_unless_losing; default add_to_others"
        in text
    )
    out = io.StringIO()
    assert main(["rules", "--preset", "strict_queen", "--players", "3"], stdout=out) == 0
    assert (
        "queen_lead=after_break" in out.getvalue()
        and "pass_cycle = default (left/right/hold)" in out.getvalue()
    )
    err = io.StringIO()
    assert main(["rules", "-o", "moon=x"], stdout=io.StringIO(), stderr=err) == 2
    assert "R4.4: option 'moon' is 'x'; allowed:" in err.getvalue()


def test_rules_book_prints_the_rule_book() -> None:
    """`hearts rules --book` prints the rule book the package ships (every R-number, R1..R7)."""
    out = io.StringIO()
    assert main(["rules", "--book"], stdout=out) == 0
    book = importlib.resources.files("hearts").joinpath("rulebook.md").read_text(encoding="utf-8")
    assert out.getvalue() == book
    assert all(f"R{k}" in book for k in range(1, 8))
    err = io.StringIO()
    assert main(["rules", "--book", "--preset", "omnibus"], stdout=io.StringIO(), stderr=err) == 2
    assert "drop --preset" in err.getvalue()


@pytest.mark.parametrize("command", ["play", "tui"])
def test_option_help_is_made_from_the_option_specs(command: str) -> None:
    """R1-R5: `--help` lists every option of Rules.options() with its rule, help, allowed values
    and default, and --players / --target take their help from their specs."""
    out = io.StringIO()
    assert main([command, "--help"], stdout=out, stderr=io.StringIO()) == 0
    text = " ".join(out.getvalue().split())  # argparse wraps the flags' help
    for spec in Rules.options():
        assert f"{spec.name} {spec.rule} {spec.help}: {spec.allowed()} (default " in text
    players = Rules.option("players")
    assert f"--players N {players.help} ({players.rule}; {players.allowed()}; default 4)" in text


def test_tui_refuses_a_negative_delay() -> None:
    """`hearts tui --delay -1` is a usage error (exit 2) before any table starts."""
    err = io.StringIO()
    assert main(["tui", "--delay", "-1"], stdout=io.StringIO(), stderr=err) == 2
    assert "argument --delay: a delay is 0 seconds or more, not -1" in err.getvalue()
    err = io.StringIO()
    assert main(["tui", "--delay", "soon"], stdout=io.StringIO(), stderr=err) == 2
    assert "'soon' is not a number of seconds" in err.getvalue()


def test_tui_resume_refuses_new_rules_or_seed(tmp_path: Path) -> None:
    """A resumed game keeps the record's rules and seed (R1.3): --seed or a rule flag with
    --resume is a usage error."""
    path = _saved_game(tmp_path)
    for extra in (["--seed", "3"], ["--preset", "omnibus"], ["-o", "moon=shooter_chooses"]):
        err = io.StringIO()
        assert main(["tui", "--resume", str(path), *extra], stdout=io.StringIO(), stderr=err) == 2
        assert "a resumed game keeps its record's rules and seed: drop --" in err.getvalue()


def version_1_record(game: Game, names: list[str]) -> dict[str, object]:
    """``game`` in the record format of version 1: names only, per-round events."""
    rounds = []
    for r in game.rounds:
        rounds.append(
            {
                "deal": [str(h) for h in r.dealt],
                "passes": [None if r.passed(s) is None else str(r.passed(s)) for s in range(r.players)],
                "plays": [str(c) for c in r.plays],
                "moon_choice": r.result.moon_choice if r.result else None,
                "scores": list(r.result.scores) if r.result else None,
            }
        )
    return {
        "format": "pyhearts.game",
        "version": 1,
        "rules": game.rules.to_dict(),
        "seats": names,
        "rounds": rounds,
    }


def test_replay_of_a_version_1_record(tmp_path: Path) -> None:
    """A version 1 record (names only, no seed) still replays; its seats show as people, and no
    seed is made up for it (R1.3)."""
    game = Game(Rules(target=30), seed=5)
    table, _ = make_table(game, lambda t, p: first_legal(t.game, p))
    table.run()
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(version_1_record(game, ["Ann", "Ben", "Cy", "Di"])), encoding="utf-8")
    out = io.StringIO()
    assert main(["replay", str(path)], stdout=out, stderr=io.StringIO()) == 0
    text = out.getvalue()
    assert "  1  Ben  a person\n" in text and "Game over after" in text
    assert "Seed: none (the record keeps no seed)\n" in text


# --- the real console script ---------------------------------------------------------------


def _console_script() -> list[str]:
    script = Path(sys.executable).parent / "hearts"
    return [str(script)] if script.exists() else [sys.executable, "-m", "hearts"]


def test_console_script_plays_a_piped_game() -> None:
    """`hearts play --seed 3 --target 20` with piped answers: exit 0, a winner, and the same
    transcript as in-process (the answers were computed by an in-process run)."""
    code, expected, _, answers = run_main(["play", "--seed", "3", "--target", "20"])
    assert code == 0
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [*_console_script(), "play", "--seed", "3", "--target", "20"],
        input="\n".join(answers) + "\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Game over" in proc.stdout and " win" in proc.stdout
    assert proc.stdout == expected


def test_python_dash_m_hearts() -> None:
    """`python -m hearts rules` works like the console script."""
    proc = subprocess.run(
        [sys.executable, "-m", "hearts", "rules"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "jack_of_diamonds" in proc.stdout


def test_serve_refuses_a_negative_bot_worker_count(capsys: pytest.CaptureFixture[str]) -> None:
    """A bad ``hearts serve`` option is a clear error (exit 2), and no server starts."""
    assert main(["serve", "--bot-workers", "-1"]) == 2
    assert "--bot-workers must be 0 (threads) or more, not -1" in capsys.readouterr().err


def test_tui_resume_of_a_version_1_record(tmp_path: Path) -> None:
    """`hearts tui --resume` on a version 1 record (names only, no seed): seat 0 is you, the other
    seats get the default level and a notice says so; the position is the record's, and the
    later rounds are dealt from a new seed that a notice names (R1.3)."""
    from hearts.cli.tui import make_session

    game = Game(Rules(target=200), seed=6)
    table, _ = make_table(
        game, lambda t, p: first_legal(t.game, p) if len(t.game.score_history) < 1 else None
    )
    table.run()
    assert not game.is_over and len(game.rounds) == 2
    path = tmp_path / "v1.json"
    path.write_text(
        json.dumps(version_1_record(game, ["Ann", "East (hard)", "South", "West"])), encoding="utf-8"
    )
    session = make_session(build_parser().parse_args(["tui", "--resume", str(path), "--delay", "0"]))
    assert session.names == ["Ann", "East (hard)", "South", "West"]  # names stay names
    assert session.specs == [DEFAULT_LEVEL] * 3
    assert session.notices == (
        f"The record keeps no seed: the rounds after its last are dealt from seed {session.seed}.",
        f"The record names no bot for East (hard), South, West: they play at the default level, {DEFAULT_LEVEL}.",
    )
    assert json.loads(record.dumps(GameRecord(session.game, session.seats)))["seed"] == session.seed  # saved
    assert sorted(map(str, session.game.history)) == sorted(map(str, game.history))  # passes in seat order
    assert [(r.dealt, r.plays) for r in session.game.rounds] == [(r.dealt, r.plays) for r in game.rounds]
    assert session.view == View.of(game, 0)


# --- the terminal table without a terminal, defaults, help, people's words -------------------------


def test_tui_without_a_terminal_says_so_and_exits_at_once() -> None:
    """`hearts tui </dev/null`: a one-line message and exit code 2 within seconds, nothing
    written to standard output (no escape codes), never a spinning table."""
    proc = subprocess.run(
        [*_console_script(), "tui", "--seed", "1"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=15,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "hearts tui: error: the terminal table needs an interactive terminal for its input and output; "
        "for a script or a pipe, play in line mode: hearts play\n"
    )
    err = io.StringIO()  # the same in-process, where the streams are not terminals either
    assert main(["tui"], stdin=io.StringIO(""), stdout=io.StringIO(), stderr=err) == 2
    assert "needs an interactive terminal" in err.getvalue()


def test_the_play_help_example_runs_as_written() -> None:
    """The example in `hearts play --help`, run by a shell exactly as printed: every answer is
    accepted (you pass three cards you hold, then lead the 2♣), and `quit` ends the game cleanly."""
    out = io.StringIO()
    assert main(["play", "--help"], stdout=out) == 0
    examples = [line.strip() for line in out.getvalue().splitlines() if "| hearts play" in line]
    assert len(examples) == 1
    env = {
        **os.environ,
        "PYTHONIOENCODING": "utf-8",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    proc = subprocess.run(
        ["sh", "-c", examples[0]],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "You pass Q♠ K♥ A♥ to West." in proc.stdout
    assert "Play > 2C\nYou lead 2♣\n" in proc.stdout
    assert "(rule " not in proc.stdout and "Quit: the game stops here." in proc.stdout


def test_one_default_level_at_both_tables_and_levels_by_name() -> None:
    """The bots' default level is the same in line mode (piped or not) and at the terminal
    table; a bot is shown by its level, whatever spec stands for it."""
    from hearts.cli.tui import make_session

    _, out, _, _ = run_main(["play", "--seed", "1"], limit=0)
    assert f"West ({DEFAULT_LEVEL}), North ({DEFAULT_LEVEL}), East ({DEFAULT_LEVEL})" in out
    session = make_session(build_parser().parse_args(["tui", "--seed", "1"]))
    assert session.specs == [DEFAULT_LEVEL] * 3
    _, out, _, _ = run_main(
        ["play", "--seed", "1", "--bots", "hard", LEVELS["expert"], "heuristic"], limit=0
    )
    assert "Seats, clockwise: You (South), West (hard), North (expert), East (medium)" in out


@pytest.mark.parametrize("command", ["play", "tui"])
def test_help_lists_the_levels_and_the_bots(command: str) -> None:
    """`--help` of both tables names the levels (the default marked) and the bots."""
    out = io.StringIO()
    assert main([command, "--help"], stdout=out) == 0
    text = " ".join(out.getvalue().split())
    assert (
        "a level: easy, medium (default), hard, expert; or a bot: random, heuristic, search, openspiel_ismcts"
        in text
    )


def _engine_refusals() -> list[IllegalAction]:
    """Refusals of every kind the engine gives a person: passes, plays (R1.3, R1.4, R3.x) and
    moon choices, collected from random games."""
    refusals: list[IllegalAction] = []

    def attempt(game: Game, action: Action) -> None:
        with pytest.raises(IllegalAction) as caught:
            game.apply(action)
        refusals.append(caught.value)

    game = Game(Rules(), seed=1)
    hand = list(game.round.hand(0))
    not_held = next(c for c in CardSet.full() if c not in game.round.hand(0))
    attempt(game, Pass(0, CardSet(hand[:2])))
    attempt(game, Pass(0, CardSet([*hand[:2], not_held])))
    attempt(game, Play(0, hand[0]))
    game.apply(Pass(0, CardSet(hand[:3])))
    attempt(game, Pass(0, CardSet(hand[3:6])))
    rng = random.Random(3)
    for seed in range(4):
        game = Game(Rules(pass_count=0), seed=seed)
        attempt(game, Moon(0, "add"))
        attempt(game, Pass(0, CardSet(list(game.round.hand(0))[:3])))
        while not game.round.is_over:
            seat = game.actors()[0]
            r = game.round
            attempt(game, Play((seat + 1) % 4, Card.parse("2C")))
            attempt(game, Play(seat, next(c for c in CardSet.full() if c not in r.hand(seat))))
            for card in r.hand(seat) - r.legal_plays():
                attempt(game, Play(seat, card))
            game.apply(rng.choice(list(game.legal_actions(seat))))
    return refusals


def test_refusals_are_said_in_peoples_words() -> None:
    """Every refusal a person can meet reads as a sentence to them, the rule last in brackets:
    no "R3.2:" prefix, no "it"/"its hand" about a seat, cards in the table's style."""
    from hearts.text import refusal

    refusals = _engine_refusals()
    rules = {e.rule for e in refusals}
    assert {"R1.3", "R1.4", "R2.1", "R3.1", "R3.2", "R3.3", "R3.4", "R4.4"} <= rules, rules
    names = ["You", "West", "North", "East"]
    for error in refusals:
        text = refusal(error, names, Style())
        assert re.fullmatch(r"[A-Z].* \(rule R\d(\.\d)?\)", text), text
        assert not re.search(r"\bits\b|^It (must|holds|does|has)|seat \d|R\d(\.\d)?: ", text), text
        assert not re.search(r"(?<!')\b(10|[2-9TJQKA])[CDHS]\b(?!')", text), text  # cards as 2♣, not 2C
