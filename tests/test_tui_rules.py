"""The terminal's rules screen and refused cards (issue 42, item 2), in Textual's pilot.

``b`` at the table opens the rule book (``hearts.book``: every R-number, the table's own options
first and beside their rules), in the language in use; F1 (or its button) in the new game's form
opens it with the form's options; a card the rules refuse is answered with its rule in words.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("textual")
pytest.importorskip("babel")

from test_tui import key_name, pass_by_keys, run, settle
from test_tui_i18n import in_german

from hearts.book import book
from hearts.i18n import translation
from hearts.rules import Rules
from hearts.text import WHY_NOT
from hearts.tui.app import HeartsApp
from hearts.tui.guide import TIPS, GuideScreen
from hearts.tui.screens import RulesScreen
from hearts.tui.session import Session

german = pytest.fixture(in_german)


def app_with(rules: Rules, seed: int = 3) -> HeartsApp:
    return HeartsApp(Session.new(rules, seed=seed, specs=["easy"], delay=0), hint_spec="search:iterations=40")


def test_the_rules_screen_shows_the_book_and_the_tables_options() -> None:
    async def go() -> None:
        app = app_with(Rules(moon="subtract_from_self", target=50))
        async with app.run_test(size=(110, 34)) as pilot:
            await settle(pilot, app)
            await pilot.press("b")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, RulesScreen) and screen.id == "rules"
            text = screen.text
            assert "- **R4.4** Shooting the moon: **subtract from self**" in text
            assert "- **R5.1** Game target: **50**" in text
            assert "> At this table: Shooting the moon is subtract from self." in text
            for r in book():
                assert f"{'#' * r.level} {r.number} {r.title}" in text
            await pilot.press("b")  # b closes it again; the table is as it was
            await pilot.pause()
            assert app.screen.id != "rules" and app.session.view.must_pass

    run(go)


def test_the_rules_screen_and_a_refused_card_in_german(german: None) -> None:
    t = translation("de")

    async def go() -> None:
        app = app_with(Rules(jack_of_diamonds=-10))
        async with app.run_test(size=(110, 34)) as pilot:
            await settle(pilot, app)
            await pilot.press("b")
            await pilot.pause()
            assert isinstance(app.screen, RulesScreen)
            text = app.screen.text
            assert "## Die Regeln dieses Tisches" in text and "### R3.2 Farbe bedienen" in text
            assert "- **R4.2** Karo-Bube-Bonus: **-10**" in text
            assert t.gettext(book()[[r.number for r in book()].index("R3.3")].blocks[0].text) in text
            assert "Following suit" not in text and "At this table" not in text
            await pilot.press("escape")
            await pilot.pause()
            # a refused card (the first trick forbids some): the rule in words, in German
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            view = app.session.view
            illegal = [c for c in view.hand.sorted_by_suit() if c not in view.legal]
            assert illegal
            history = app.session.game.history
            await pilot.press(*key_name(illegal[0]), "enter")
            await pilot.pause()
            assert app.session.game.history == history
            german_words = {t.gettext(w) for w in WHY_NOT.values()}
            assert app.message in german_words, app.message
            assert "(R3." in app.message

    run(go)


def test_f1_in_the_new_game_form_shows_the_forms_rules() -> None:
    async def go() -> None:
        app = app_with(Rules())
        async with app.run_test(size=(110, 40)) as pilot:
            await settle(pilot, app)
            await pilot.press("n")
            await pilot.pause()
            assert app.screen.id == "new-game"
            app.screen.query_one("#opt-target").value = "75"  # type: ignore[attr-defined]
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, RulesScreen)
            assert "- **R5.1** Game target: **75**" in app.screen.text
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen.id == "new-game"
            app.screen.query_one("#opt-target").value = "abc"  # type: ignore[attr-defined]
            await pilot.click("#rules-button")  # a wrong form: the current game's rules
            await pilot.pause()
            assert isinstance(app.screen, RulesScreen) and "- **R5.1** Game target: **100**" in app.screen.text

    run(go)


async def play_round_with_tips(pilot: Any, app: HeartsApp) -> list[str]:
    """Play the first round by keys, closing each tip with Enter; the tips shown, in order."""
    from test_tui import play_by_keys

    shown: list[str] = []
    for _ in range(200):
        await settle(pilot, app)
        if isinstance(app.screen, GuideScreen):
            shown.append(app.screen.tip.step)
            await pilot.press("enter")
            if shown[-1] == "moon":
                return shown
        elif app.screen.id == "round-summary":
            await pilot.press("enter")
        elif app.session.view.must_pass:
            await pass_by_keys(pilot, app)
        elif app.session.view.my_turn:
            await play_by_keys(pilot, app, by_name=False)
    raise AssertionError(f"the first round did not end: {shown}")


def test_the_guided_first_game_in_the_terminal_shows_each_tip_once(german: None) -> None:
    """hearts tui --guide: the web table's tips in the terminal, each once at its moment, in German."""
    t = translation("de")

    async def go() -> None:
        app = HeartsApp(Session.new(Rules(), seed=5, specs=["easy"], delay=0), hint_spec="search:iterations=40", guide=True)
        async with app.run_test(size=(110, 34)) as pilot:
            await settle(pilot, app)
            assert isinstance(app.screen, GuideScreen) and app.screen.tip.step == "pass"
            assert app.screen.title_text == t.gettext("Passing cards")
            assert t.gettext("rule {rule}").format(rule="R2.1") in str(app.screen.body)
            shown = await play_round_with_tips(pilot, app)
            assert sorted(shown) == sorted(tip.step for tip in TIPS) and shown[0] == "pass" and shown[-1] == "moon"
            assert app.guide is not None and app.guide.done
            for _ in range(3):  # no tip again
                await settle(pilot, app)
                assert not isinstance(app.screen, GuideScreen)
                if app.session.view.must_pass:
                    await pass_by_keys(pilot, app)

    run(go)


def test_the_terminals_guide_can_be_skipped_and_its_words_are_the_catalogs() -> None:
    async def go() -> None:
        app = HeartsApp(Session.new(Rules(), seed=5, specs=["easy"], delay=0), hint_spec="search:iterations=40", guide=True)
        async with app.run_test(size=(110, 34)) as pilot:
            await settle(pilot, app)
            assert isinstance(app.screen, GuideScreen)
            await pilot.press("k")
            await settle(pilot, app)
            assert app.guide is not None and app.guide.skipped and app.guide.seen == ["pass"]
            await pass_by_keys(pilot, app)
            await settle(pilot, app)
            assert not isinstance(app.screen, GuideScreen) and app.session.view.phase.value == "playing"

    run(go)
    for lang in ("de", "fr", "es"):  # every tip's words translated (the pass's plural through guide.js)
        t = translation(lang)
        for tip in TIPS:
            assert t.gettext(tip.title) != tip.title or (tip.title == "Following suit" and lang == "en")
            if tip.plural:
                assert t.ngettext(tip.text, tip.plural, 3) != tip.plural, (lang, tip.step)
            else:
                assert t.gettext(tip.text) != tip.text, (lang, tip.step)


def test_hearts_tui_guide_plays_easy_bots_unless_told_otherwise() -> None:
    from hearts.cli import build_parser
    from hearts.cli.tui import make_session

    args = build_parser().parse_args(["tui", "--guide", "--seed", "3"])
    assert args.guide and make_session(args).specs == ["easy", "easy", "easy"]  # the other seats
    args = build_parser().parse_args(["tui", "--guide", "--bots", "hard"])
    assert make_session(args).specs == ["hard", "hard", "hard"]
    assert not build_parser().parse_args(["tui"]).guide
