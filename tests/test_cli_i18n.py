"""The line-mode commands in the player's language (issue 42): ``hearts play``, ``hearts rules``
(and ``--book``), ``hearts replay`` follow ``--lang`` or the locale (``LANGUAGE``, ``LC_ALL``,
``LC_MESSAGES``, ``LANG``), as ``hearts tui`` does; an unknown ``--lang`` is a usage error. The
last words a player meets there are in the language too: the bots' preparation, the errors of a
game left unfinished or not saved, a bot's failure, analyze's progress, and the notices of a
resumed game (argparse's usage and help and ``hearts serve``'s log stay English).

The commands run in-process (:func:`hearts.cli.main`) with scripted standard input; each test
gives the language back (English) when it ends.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearts import Card, Game, Rules, fast, record
from hearts.actions import Action
from hearts.book import book
from hearts.bots import RandomBot, make_bot, run_bots
from hearts.bots.registry import register, unregister
from hearts.cli import main
from hearts.cli.play import PlayCLI
from hearts.i18n import translation, use
from hearts.record import GameRecord, Seat
from hearts.text import WHY_NOT, Style
from hearts.tui.session import Session
from hearts.view import View

pytest.importorskip("babel")  # the catalogs are compiled by Babel (the web and tui extras)

LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

# With seed 344 you pass Q♠ K♥ A♥ and lead the first trick holding the 2♣ (R3.1).
SCRIPT = "QS QS KD\nQS AH KH\nAC\nqq\n5H 6H\nhelp\nscore\n2C\nlast\nhand\nquit\n"


@pytest.fixture(autouse=True)
def english_after(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A locale that asks for no language (so ``--lang`` or the test's own variable decides),
    and English again after the test."""
    for name in LOCALE_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    yield
    use("en")


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_play_speaks_german_with_lang_de() -> None:
    """``hearts play --lang de``: the prompts, the table, the trick lines, the commands' answers
    and a refused first lead (R3.1, with the rule's reason) in German."""
    code, out, err = run(["play", "--plain", "--lang", "de", "--seed", "344"], SCRIPT)
    assert code == 0, err
    de = translation("de")
    for said in (
        "Du schiebst Q♠ K♥ A♥ an West.",
        "Hand:  ♣ 2 7 8   ♦ 9 K A",
        "Schiebe 3 an West > ",
        "── Stich 1 von 13 ──",
        "Du spielst aus.",
        "Erlaubt: 2♣",
        "Deine Karte > AC",
        "  " + de.gettext(WHY_NOT["first_lead_lowest"]) + " Erlaubt: 2♣",  # R3.1
        "Nord bekommt den Stich mit K♣ (keine Punkte).",
        "Punkte dieser Runde",
        "Das Spiel endet hier.",
    ):
        assert said in out, said
    assert "(R3.1)" in out   # the rule's number kept in the reason


ENGLISH_LEFT_OUT = (
    "Choose", "cards to pass", "Pass 3", "Play >", "Legal:", "You pass", "You receive", "You lead",
    " plays ", " takes the trick", "Trick 1 of", "Round 1", "Seats, clockwise", " players ·", "lowest total wins",
    "Type 'help'", "is not a card", "Play one card", "is given twice", "How to answer", "Points this round",
    "Totals before it", "target", "Quit:", "the game stops here", "first lead", "(rule ",
)
"""English words of the line-mode table that the German transcript must not show."""


def test_no_english_is_left_in_the_german_transcript() -> None:
    """Every line of the German transcript is German: none of the table's English phrases."""
    code, out, _err = run(["play", "--plain", "--lang", "de", "--seed", "344"], SCRIPT)
    assert code == 0
    left = [phrase for phrase in ENGLISH_LEFT_OUT if phrase in out]
    assert not left, left


def test_play_follows_the_locale_and_lang_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    """``LANG=es_ES.UTF-8 hearts play`` speaks Spanish; ``--lang fr`` speaks French whatever the locale."""
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    code, out, _err = run(["play", "--plain", "--seed", "344"], "quit\n")
    assert code == 0 and "Ronda 1" in out and "Pasa 3 a Oeste > " in out
    code, out, _err = run(["play", "--plain", "--lang", "fr", "--seed", "344"], "quit\n")
    assert code == 0 and "Manche 1" in out and "Passez 3 à Ouest > " in out


def test_an_illegal_pass_is_refused_in_german() -> None:
    """R2.1: a pass of the wrong count and one of a card not held, refused in German."""
    game = Game(Rules(), seed=344)
    not_held = next(c for c in map(Card, range(52)) if c not in game.round.hand(0))
    code, out, _err = run(["play", "--plain", "--lang", "de", "--seed", "344"], f"QS AH\nQS AH {not_held}\nquit\n")
    assert code == 0
    assert "Du schiebst 3 Karten, nicht 2 (R2.1)." in out
    assert f"Du hast {Style().card(not_held)} nicht (R2.1)." in out


def test_rule_book_follows_the_locale_in_french(monkeypatch: pytest.MonkeyPatch) -> None:
    """``LANG=fr_FR.UTF-8 hearts rules --book``: the rule book in French, every R-number kept."""
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    code, out, _err = run(["rules", "--book"])
    assert code == 0
    fr = translation("fr")
    for rule in book():
        assert f" {rule.number} {fr.gettext(rule.title)}\n" in out, rule.number
    assert fr.gettext(book()[1].blocks[0].text) in out
    assert "The usual game is for four players." not in out and "Number of players" not in out


def test_rules_lists_the_options_in_spanish() -> None:
    """``hearts rules --lang es``: each option's label and what it does in Spanish (R6 presets too)."""
    code, out, _err = run(["rules", "--lang", "es"])
    assert code == 0
    es = translation("es")
    spec = Rules.option("moon")
    assert f"{spec.rule} {es.gettext(spec.label)}: {es.gettext(spec.help)}" in out
    assert "Opciones" in out and "Preajustes (R6):" in out
    assert "how shooting the moon scores" not in out and "Options (" not in out and "seat offsets" not in out


def test_replay_in_german(tmp_path: Path) -> None:
    """``hearts replay --lang de``: the record's rounds and tricks in German."""
    game = Game(Rules(target=1), seed=5)
    run_bots(game, {s: make_bot("random", seed=s) for s in range(4)})
    path = tmp_path / "game.json"
    record.save(GameRecord(game, [Seat("You"), *(Seat(n, bot="random") for n in ("West", "North", "East"))]), path)
    code, out, _err = run(["replay", "--lang", "de", str(path)])
    assert code == 0
    assert "Runde 1 · " in out and "Stich 13:" in out and "Plätze im Uhrzeigersinn:" in out and "Rundenwertung" in out
    assert "Spielende nach 1 Runde: " in out and "  1  West  Bot random" in out
    for english in ("Trick", "Seats", "dealt", "Round", "Game over", "a person", "passes"):
        assert english not in out, english


@pytest.mark.parametrize("command", [["play", "--plain"], ["rules"], ["rules", "--book"], ["tui"]])
def test_an_unknown_language_is_a_usage_error(command: list[str]) -> None:
    """``--lang xx``: a clear error naming the languages offered, exit code 2, nothing played."""
    code, out, err = run([*command, "--lang", "xx"], "QS AH KH\n")
    assert code == 2
    assert "--lang 'xx': no such language; one of de, en, es, fr" in err
    assert out == ""


def test_lang_is_in_every_players_command_help() -> None:
    """``--lang`` is offered by play, tui, rules, replay and analyze (argparse's help stays English)."""
    for command in ("play", "tui", "rules", "replay", "analyze"):
        out = io.StringIO()
        assert main([command, "--help"], stdout=out, stderr=io.StringIO()) == 0
        assert re.search(r"--lang LANG", out.getvalue()), command


def test_analyze_reports_in_spanish(tmp_path: Path) -> None:
    """``hearts analyze --lang es``: the review report (R7) in Spanish; its ``--json`` stays English."""
    game = Game(Rules(target=1), seed=5)
    run_bots(game, {s: make_bot("easy", seed=s) for s in range(4)})
    path, target = tmp_path / "game.json", tmp_path / "review.json"
    record.save(GameRecord(game, [Seat(n, bot="easy") for n in ("South", "West", "North", "East")]), path)
    code, out, err = run(["analyze", str(path), "--lang", "es", "--seat", "0", "--budget", "4",
                          "--no-progress", "--json", str(target)])
    assert code == 0, err
    assert out.startswith("Análisis de Sur (asiento 0), ronda 1 (pase a la izquierda a Oeste): 4 repartos")
    assert "Baza 1 " in out and "Los puntos esperados son" in out and "Precisión" in out
    for english in ("Review of", "Trick", "sampled deals", "Expected points", "accuracy", "Round 1"):
        assert english not in out, english
    assert '"verdict"' in target.read_text(encoding="utf-8")  # the JSON's fields: English


class Crasher(RandomBot):
    """A bot of one's own that fails at every move."""

    def act(self, view: View) -> Action:
        raise RuntimeError("out of ideas")


@pytest.fixture
def crasher() -> Iterator[None]:
    """The bot spec ``failing`` (a :class:`Crasher`) for the test's tables."""
    register("failing", Crasher)
    yield
    unregister("failing")


def test_the_bots_preparation_and_the_end_of_input_in_german() -> None:
    """``hearts play --lang de`` whose input ends before the game: the bots' preparation
    (:func:`hearts.fast.prepare`) and the error line on stderr in German."""
    code, _out, err = run(["play", "--plain", "--lang", "de", "--seed", "344"], "QS QS KD\n")
    assert code == 1
    if fast.available():
        assert "Die Bots werden vorbereitet (numba übersetzt sie beim ersten Mal, etwa eine halbe Minute) …" in err
        assert re.search(r"^Bots bereit \(\d+\.\d s\)\.$", err, re.M), err
    else:
        assert "Die Such-Bots (schwer, Experte, Tipps) denken hier 20- bis 40-mal langsamer: " in err
    assert ("hearts play: Fehler: die Eingabe endete in Runde 1, vor dem Ende des Spiels: Das Spiel ist"
            " unvollendet (--record DATEI hebt es auf)\n") in err
    for english in ("Preparing", "ready", "slower", "error:", "input ended", "FILE keeps"):
        assert english not in err, english


def test_a_failing_bot_and_a_record_not_saved_in_french(crasher: None, tmp_path: Path) -> None:
    """A bot that fails its move (``hearts play --lang fr``): stood in for, said in French in the
    transcript; under ``--on-bot-error stop`` the game stops with a French error line; a record that
    cannot be saved is said in French too."""
    argv = ["play", "--plain", "--lang", "fr", "--seed", "6", "--bots", "easy", "failing", "easy"]
    code, out, _err = run(argv, "quit\n")
    assert code == 0
    assert ("le bot 'failing' à la place 2 (Nord) a échoué\u00a0: RuntimeError: out of ideas · un coup permis tiré"
            " au hasard a été joué à sa place") in out
    code, out, err = run([*argv, "--on-bot-error", "stop"], "quit\n")
    assert code == 1
    assert err.endswith("hearts play\u00a0: erreur\u00a0: le bot 'failing' à la place 2 (Nord) a échoué\u00a0:"
                        " RuntimeError: out of ideas\u00a0; la partie s’arrête ici, inachevée (--record FICHIER la garde)\n")
    use("fr")
    output, errors = io.StringIO(), io.StringIO()
    missing = tmp_path / "gone" / "game.json"  # (a folder that is not there: the save fails)
    game = Game(Rules(), seed=6)
    seats = [Seat("You"), *(Seat(n, bot="easy") for n in ("West", "North", "East"))]
    cli = PlayCLI(game, {s: make_bot("easy", seed=s) for s in (1, 2, 3)}, seats=seats, input_fn=lambda _p: "quit",
                  output=output, errors=errors, record_path=missing)
    assert cli.run() == 1
    said = f"hearts play\u00a0: erreur\u00a0: la partie n’a pas pu être enregistrée dans '{missing}'\n"
    assert errors.getvalue() == said


def test_analyzes_progress_in_spanish(tmp_path: Path) -> None:
    """``hearts analyze --lang es``: its progress lines (stderr, not a terminal) in Spanish."""
    game = Game(Rules(target=1), seed=5)
    run_bots(game, {s: make_bot("easy", seed=s) for s in range(4)})
    path = tmp_path / "game.json"
    record.save(GameRecord(game, [Seat(n, bot="easy") for n in ("South", "West", "North", "East")]), path)
    code, _out, err = run(["analyze", str(path), "--lang", "es", "--seat", "0", "--round", "1", "--budget", "4"])
    assert code == 0, err
    assert re.fullmatch(r"analyze: analizando (\d+) decisiones\nanalyze: hecho, \1 decisiones en \d+\.\d s\n", err), err


def test_resuming_another_persons_seat_is_said_in_spanish(tmp_path: Path) -> None:
    """``hearts tui --resume`` of a record whose seat 0 a bot played, and that keeps no seed (a
    version 1 record) nor a bot for another seat: the table's notices in Spanish."""
    game = Game(Rules(), seed=5)
    path = tmp_path / "game.json"
    record.save(GameRecord(game, [Seat("Ana", bot="easy"), Seat("West", bot="easy"), Seat("Bea"), Seat("East")]), path)
    use("es")
    notices = Session.resume(path).notices
    assert "Ocupas el asiento 0, que jugaba Ana (fácil) en la partida guardada." in notices
    assert "La partida guardada no nombra ningún bot para Bea, Este: juegan en el nivel por defecto, medio." in notices
