"""The terminal table in German (issue 42, item 1), driven headless by Textual's pilot.

``hearts tui --lang de`` (or a German locale) draws the table in German: the status line, the
seats, your line, the trick, the footer's keys, the help (?), the moon dialog and the quit
dialog; no word of a listed set of English ones is left. An unknown ``--lang`` is refused
with the languages offered (exit code 2) before any screen opens.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import pytest

pytest.importorskip("textual")
pytest.importorskip("babel")

from test_tui import make_app, pass_by_keys, settle

from hearts.i18n import current, use
from hearts.tui.screens import MoonScreen
from hearts.tui.words import choose_language

ENGLISH = ["Round", "pass 3", "left", "not broken", "cards", "total", "no points", "You", "North", "East",
           "mark 3 to pass", "Help", "Play/pass", "Hint", "Scores", "Quit", "passing", "Trick"]


def in_german() -> Iterator[None]:
    """The terminal's words in German for a test, English again after it (a fixture:
    ``german = pytest.fixture(in_german)``)."""
    assert choose_language("de") == "de"
    try:
        yield
    finally:
        use("en")


german = pytest.fixture(in_german)


def screen_text(app: object) -> str:
    """The words on the table screen: every widget's rendering, and the footer's keys."""
    screen = app.screen  # type: ignore[attr-defined]
    parts = [str(w.render()) for w in screen.query("StatusLine, SeatPanel, TrickView, YouLine, TextLine")]
    parts += [b.description for bindings in screen._bindings.key_to_bindings.values() for b in bindings if b.show]
    return "\n".join(parts)


def english_left(text: str) -> list[str]:
    import re

    return [w for w in ENGLISH if re.search(r"(?<![\w])" + re.escape(w) + r"(?![\w])", text)]


def test_the_table_in_german(german: None) -> None:
    async def go() -> None:
        app = make_app(seed=11)
        async with app.run_test(size=(110, 32)) as pilot:
            await settle(pilot, app)
            text = screen_text(app)
            assert english_left(text) == [], text
            assert "Runde 1" in text and "3 schieben nach links→West" in text
            assert "13 Karten" in text and "keine Punkte" in text and "Du (Süd)" in text
            assert "Ausspielen/Schieben" in text
            # the hint (h): the search's pass and its reason, in German
            await pilot.press("h")
            for _ in range(400):
                await pilot.pause(0.05)
                if "Tipp:" in screen_text(app):
                    break
            said = screen_text(app)
            assert "Tipp:" in said and " schieben: " in said, said
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            text = screen_text(app)
            assert english_left(text) == [], text
            assert "Stich 1/13" in text
            # the keys (?): the bindings' tooltips and the typing, in German
            await pilot.press("question_mark")
            await pilot.pause()
            assert app.screen.id == "help"
            keys = "\n".join(f"{k} {w}" for k, w in app.screen.rows)  # type: ignore[attr-defined]
            assert "diese Liste der Tasten" in keys and "der Name einer Karte" in keys
            assert "this list of keys" not in keys and "a card's name" not in keys
            await pilot.press("escape")
            await pilot.pause()
            # quitting asks, in German
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert app.screen.id == "quit"
            words = "\n".join(str(w.render()) for w in app.screen.query("Label, Static, Button"))
            assert "Partie vor dem Beenden speichern?" in words and "Nicht speichern (q)" in words
            await pilot.press("escape")
            await pilot.pause()

    asyncio.run(go())


def test_the_moon_dialog_in_german(german: None) -> None:
    async def go() -> None:
        app = make_app(seed=3)
        async with app.run_test(size=(110, 32)) as pilot:
            await settle(pilot, app)
            app.push_screen(MoonScreen([10, 20, 30, 40], ["Du", "West", "Nord", "Ost"]))
            await pilot.pause()
            words = "\n".join(str(w.render()) for w in app.screen.query("Label, Static, Button"))
            assert "Du hast den Mond geschossen: alle Herzen und die Pik-Dame!" in words
            assert "Den anderen 26 zuschlagen (a)" in words and "Mir 26 abziehen (s)" in words
            assert "shot the moon" not in words

    asyncio.run(go())


def test_the_language_follows_the_locale_and_lang_is_checked() -> None:
    try:
        assert choose_language(None, {"LC_ALL": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"}) == "fr"
        assert choose_language(None, {"LANG": "pt_BR.UTF-8"}) == "en"  # not offered: English
        assert choose_language("es-MX") == "es"
    finally:
        use("en")
    assert current() == "en"
    done = subprocess.run([sys.executable, "-m", "hearts", "tui", "--lang", "tlh"], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "hearts tui: error: --lang 'tlh': no such language; one of de, en, es, fr")


def test_a_rounds_review_in_german(german: None) -> None:
    """The review of a round (r): its heading, each play's verdict, the summary and the note on
    the estimates, in German; the verdicts' column is as wide as its longest word."""
    import io

    from rich.console import Console
    from test_tui_review import planted

    from hearts.review import review_game
    from hearts.tui.review_text import round_review, verdict_word
    from hearts.tui.session import HUMAN

    session, _index = planted()  # at the last trick of round 1: played to its end
    game = session.game
    while not game.rounds[0].is_over:
        game.apply(next(iter(game.legal_actions(game.actors()[0]))))
    review = review_game(game, [HUMAN], rounds=[0], budget=8).of_seat(HUMAN)[0]
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(round_review(review, game.rounds[0], session.names, 8))
    text = out.getvalue()
    assert text.startswith("Runde 1 · Schieben nach links an West · deine Wertung"), text
    assert "Stich 1 " in text and "Schätzungen aus 8 gezogenen Verteilungen je Entscheidung" in text
    assert "erwartete verlorene Punkte" in text and "Genauigkeit" in text
    assert verdict_word("inaccuracy") == "UNGENAUIGKEIT" and verdict_word("best") == "beste"
    assert "Trick" not in text and "expected" not in text and "Estimates" not in text
