"""The web table in German, French and Spanish (issue 42, item 1), in Chromium.

A browser that asks for a language (``Accept-Language``: Playwright's ``locale``) gets the lobby
and the table in it, with no word of a listed set of English ones left on screen; the language
chosen in the settings replaces it and is kept (localStorage); a language added as one ``.po``
file is offered in the settings. The catalog comes from ``GET /i18n/<lang>.json`` (cacheable,
one set of strings with the terminal's); an unknown language is a 404 and changes nothing.
Every other page — the leaderboard, "My games" and the profile without and with a profile, a
finished table with its review, the replay and its review — is checked in each language on a
desktop and a 390×844 phone: no listed English word, no overflowing text, no serious axe-core
violation (one browser context per screen size).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import test_web_browser
import test_web_lively
from test_server_support import Client, ServerProcess, auth, http, new_profile, play_until
from test_web_browser import ARTIFACTS, TIMEOUT, wait_seated

import hearts.i18n

pytest.importorskip("babel")
browser = test_web_browser.browser  # the fixture: Debian's chromium
axe = test_web_lively.axe  # axe-core from npm (skipped without it)
record = test_web_lively.record  # a finished table's game record (waited for)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server (no bot delay), whose game reviews take 8 sampled deals a decision (quick)."""
    s = ServerProcess(tmp_path_factory.mktemp("web-i18n") / "tables.db", bot_delay=0.0, review_budget=8).start()
    yield s
    s.stop()


# English words the lobby and the table show (buttons, headings, the info bar, the prompts, the
# name dialog): none may be left on a page in another language.
LOBBY_ENGLISH = [
    "Quick match", "Play now", "New table", "Open tables", "Create table", "Rule options", "Settings",
    "My games", "Leaderboard", "Your profile", "Allow spectators", "List in lobby", "Table chat", "Turn timer",
    "Stand-in bot", "No open table yet", "Seat 2", "person (invite link)", "Welcome! What should we call you?",
    "Save my name", "Not now", "Nobody is waiting", "games in progress", "medium", "Rules", "Rated",
]
TABLE_ENGLISH = [
    "Round", "Hearts", "Target", "Turn", "Last trick (L)", "Scores (S)", "Welcome to the table!",
    "What should the others call you?", "Sit down", "Your name", " cards", " pts", "total", "Chat on", "Send",
    "Settings", "Choose 3 cards", "Waiting for", "on your left", "not broken", "bot ·", "connected as",
]
LOCALES = {"de": "de-DE", "fr": "fr-FR", "es": "es-ES"}
# The words a language writes as English does (a French score is a score, a bot a bot).
SAME = {"de": {"Lobby", "Passkeys"}, "fr": {"Scores (S)", "total", "bot ·", " pts"}, "es": {"total", "bot ·", " pts", "provisional"}}


def card_words(t: Any, card: str) -> str:
    """A card's name from the catalog: ``QS`` is ``Pik-Dame`` in German."""
    ranks = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}
    rank = t.gettext(ranks[card[0]]) if card[0] in ranks else {"T": "10"}.get(card[0], card[0])
    suit = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[card[1]]
    return str(t.gettext("{rank} of " + suit).format(rank=rank))


def english_left(text: str, words: list[str]) -> list[str]:
    """The ``words`` found in ``text`` as words (``Send`` is not in ``Senden``)."""
    return [w for w in words if re.search(r"(?<!\w)" + re.escape(w.strip()) + r"(?!\w)", text)]


def open_lobby(browser: Any, url: str, locale: str) -> tuple[Any, Any]:
    context = browser.new_context(locale=locale, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url + "/")
    page.wait_for_selector("#open-tables li")
    page.wait_for_selector("#preset option", state="attached")
    page.wait_for_function("() => document.getElementById('lobby-live').textContent !== ''")
    return context, page


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_the_lobby_and_a_table_in_the_browsers_language(server: ServerProcess, browser: Any, lang: str) -> None:
    context, page = open_lobby(browser, server.url, LOCALES[lang])
    try:
        assert page.evaluate("document.documentElement.lang") == lang
        lobby = page.inner_text("body")
        assert english_left(lobby, [w for w in LOBBY_ENGLISH if w not in SAME[lang]]) == [], lobby
        assert hearts.i18n.translation(lang).gettext("Open tables") in lobby
        # The table: Play now (three bots), the name asked for, then the pass.
        page.click("#play-now")
        page.wait_for_selector("#name-input")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"web_i18n_{lang}_name.png"))
        words = [w for w in TABLE_ENGLISH if w not in SAME[lang]]
        table = page.inner_text("body")
        assert english_left(table, words) == [], table
        page.fill("#name-input", "Ana")
        page.click("#name-ok")
        page.wait_for_function("() => document.getElementById('overlay').hidden")
        wait_seated(page)
        page.wait_for_function("() => document.getElementById('pass-btn').hidden === false")
        table = page.inner_text("body")
        assert english_left(table, words) == [], table
        t = hearts.i18n.translation(lang)
        assert t.ngettext("Pass {n} card", "Pass {n} cards", 3).format(n=3) == page.inner_text("#pass-btn")
        assert t.gettext("on your left") in page.get_attribute("#opponents .seat[data-pos=left]", "aria-label")
        # each card by its name in the language (Pik-Dame, dame de pique, reina de picas)
        for button in page.locator("#hand .card").all():
            assert button.get_attribute("aria-label").startswith(card_words(t, button.get_attribute("data-card")))
        # the hint (H), made from the server's action in the language
        page.click("#hint-btn")
        page.wait_for_selector("#hint b")
        head = t.gettext("Hint: pass {cards}").split("{cards}")[0]
        assert page.inner_text("#hint b").startswith(head) and "Hint" not in page.inner_text("#hint")
        page.wait_for_selector("#hand .card.hinted")
        badge = page.eval_on_selector("#hand .card.hinted", "b => getComputedStyle(b, '::before').content")
        assert badge == '"' + t.gettext("hint") + '"', badge  # the badge's word (style.css: attr(data-hint))
        page.screenshot(path=str(ARTIFACTS / f"web_i18n_{lang}_table.png"))
    finally:
        context.close()


def test_the_language_chosen_in_the_settings_is_kept(server: ServerProcess, browser: Any) -> None:
    context, page = open_lobby(browser, server.url, "es-ES")
    try:
        assert "Partida rápida" in page.inner_text("#quick-panel h2")
        page.click("#settings-btn")
        options = page.eval_on_selector_all("#set-lang option", "os => os.map(o => [o.value, o.textContent])")
        assert options == [["de", "Deutsch"], ["en", "English"], ["es", "Español"], ["fr", "Français"]]
        assert page.input_value("#set-lang") == "es"
        with page.expect_navigation():
            page.select_option("#set-lang", "fr")
        page.wait_for_selector("#open-tables li")
        assert page.inner_text("#quick-panel h2") == "Partie rapide"
        assert page.evaluate("localStorage.getItem('pyhearts:lang')") == "fr"
        page.reload()  # kept over the browser's own language
        page.wait_for_selector("#open-tables li")
        assert page.inner_text("#quick-panel h2") == "Partie rapide"
        with page.expect_navigation():
            page.click("#settings-btn")
            page.select_option("#set-lang", "en")
        page.wait_for_selector("#open-tables li")
        assert page.inner_text("#quick-panel h2") == "Quick match"
    finally:
        context.close()


def test_the_catalog_endpoint(server: ServerProcess) -> None:
    status, body = http("GET", server.url + "/i18n/de.json")
    assert status == 200 and body["language"] == "de" and body["messages"]["Open tables"] == "Offene Tische"
    assert body["messages"]["{n} card"] == ["{n} Karte", "{n} Karten"] and body["plural"] == "(n != 1)"
    status, body = http("GET", server.url + "/i18n/auto.json", headers={"Accept-Language": "fr-CA, en;q=0.5"})
    assert status == 200 and body["language"] == "fr"
    status, body = http("GET", server.url + "/i18n/auto.json", headers={"Accept-Language": "ja"})
    assert status == 200 and body["language"] == "en" and body["messages"] == {}
    status, body = http("GET", server.url + "/i18n/xx.json")
    assert status == 404 and body["code"] == "no_language" and "de, en, es, fr" in body["error"]
    status, body = http("GET", server.url + "/i18n/..%2Fetc.json")
    assert status == 404
    import urllib.request

    with urllib.request.urlopen(server.url + "/i18n/es.json") as r:
        assert r.headers["Cache-Control"].startswith("public") and r.headers["ETag"]
    with urllib.request.urlopen(server.url + "/i18n/auto.json") as r:
        assert r.headers["Cache-Control"] == "no-cache" and r.headers["Vary"] == "Accept-Language"


@pytest.fixture(scope="module")
def dutch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose catalogs are a copy with one file added: nl/LC_MESSAGES/hearts.po."""
    folder = tmp_path_factory.mktemp("nl")
    locale = folder / "locale"
    shutil.copytree(hearts.i18n.LOCALE_DIR, locale)
    (locale / "nl" / "LC_MESSAGES").mkdir(parents=True)
    german = (locale / "de" / "LC_MESSAGES" / "hearts.po").read_text(encoding="utf-8")
    (locale / "nl" / "LC_MESSAGES" / "hearts.po").write_text(
        german.replace("Language: de", "Language: nl").replace('msgstr "Schnellspiel"', 'msgstr "Snel spel"'),
        encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYHEARTS_LOCALE_DIR", str(locale))
        mp.setenv("PYHEARTS_LOCALE_CACHE", str(folder / "cache"))
        s = ServerProcess(Path(folder) / "tables.db", bot_delay=0.0).start()
    yield s
    s.stop()


def test_a_language_added_as_one_file_is_offered(dutch_server: ServerProcess, browser: Any) -> None:
    context, page = open_lobby(browser, dutch_server.url, "nl-NL")
    try:
        assert page.evaluate("document.documentElement.lang") == "nl"
        assert page.inner_text("#quick-panel h2") == "Snel spel"
        codes = page.eval_on_selector_all("#set-lang option", "os => os.map(o => o.value)")
        assert codes == ["de", "en", "es", "fr", "nl"]
        assert page.eval_on_selector("#set-lang option[value=nl]", "o => o.textContent") == "Nederlands"
    finally:
        context.close()


def test_the_profile_keeps_its_language(server: ServerProcess) -> None:
    """PATCH /api/me {"language"}: a language offered, or "" (the browser's again); any other is
    refused and changes nothing."""
    status, p = http("POST", server.url + "/api/players", {"name": "Lina"})
    assert status == 201
    auth = {"Authorization": "Bearer " + p["key"]}
    status, me = http("GET", server.url + "/api/me", headers=auth)
    assert status == 200 and me["language"] is None
    status, me = http("PATCH", server.url + "/api/me", {"language": "de"}, headers=auth)
    assert status == 200 and me["language"] == "de" and me["name"] == "Lina"
    status, refused = http("PATCH", server.url + "/api/me", {"language": "tlh"}, headers=auth)
    assert status == 400 and refused["code"] == "bad_request" and "one of de, en, es, fr" in refused["error"]
    status, refused = http("PATCH", server.url + "/api/me", {"language": 7}, headers=auth)
    assert status == 400
    assert http("GET", server.url + "/api/me", headers=auth)[1]["language"] == "de"  # unchanged
    status, me = http("PATCH", server.url + "/api/me", {"language": ""}, headers=auth)
    assert status == 200 and me["language"] is None


def test_the_language_goes_with_the_profile_to_another_browser(server: ServerProcess, browser: Any) -> None:
    """Chosen in the settings of one browser, the language is the profile's: a second browser
    that takes the profile (its key) shows the table in it, whatever its own language."""
    context, page = open_lobby(browser, server.url, "es-ES")
    other = browser.new_context(locale="en-US", viewport={"width": 1100, "height": 900})
    try:
        page.fill("#welcome-name", "Lola")
        page.click("#welcome-save")
        page.wait_for_function("() => localStorage.getItem('pyhearts.player') !== null")
        key = page.evaluate("JSON.parse(localStorage.getItem('pyhearts.player')).key")
        page.click("#settings-btn")
        with page.expect_navigation():
            page.select_option("#set-lang", "fr")
        page.wait_for_selector("#open-tables li")
        assert page.inner_text("#quick-panel h2") == "Partie rapide"
        assert http("GET", server.url + "/api/me", headers={"Authorization": "Bearer " + key})[1]["language"] == "fr"
        second = other.new_page()
        second.set_default_timeout(TIMEOUT)
        second.goto(server.url + "/me#import=" + key)
        second.wait_for_selector("#import-yes")
        with second.expect_navigation():  # (the page is drawn again in the profile's language)
            second.click("#import-yes")
        second.wait_for_function("() => localStorage.getItem('pyhearts:lang') === 'fr'")  # the profile's
        # (and the page drawn in it: the language is set before the reload, which may still be on its way)
        second.wait_for_function("() => document.documentElement.lang === 'fr' && document.readyState === 'complete'")
        second.goto(server.url + "/")
        second.wait_for_selector("#open-tables li")
        assert second.inner_text("#quick-panel h2") == "Partie rapide"
    finally:
        other.close()
        context.close()


PAGES_ENGLISH = ["Leaderboard", "Rated games only", "Player", "Rating", "Rated games", "fixed", "My games",
                 "Make a player profile first", "Make my profile", "Your profile", "Make a profile",
                 "Already have a profile?", "Use this key", "Your name", "Your key", "Settings"]


OVERFLOW = """() => {
  const out = [];
  if (document.documentElement.scrollWidth > window.innerWidth + 1) out.push('page ' + document.documentElement.scrollWidth);
  for (const e of document.querySelectorAll('button, label, h1, h2, h3, .seat, #info span, #prompt, .note, select, summary')) {
    if (!e.offsetParent || e.closest('.sr-only')) continue;  // not shown, or for screen readers only
    if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible') out.push(e.id || e.textContent.slice(0, 40));
    const r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 1) out.push('outside: ' + (e.id || e.textContent.slice(0, 40)));
  }
  return out;
}"""


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_no_text_overflows_on_a_phone(server: ServerProcess, browser: Any, lang: str) -> None:
    """The longer words of German, French and Spanish fit a 390×844 phone: the lobby and the
    table scroll no wider than the screen, and no button, label or heading cuts its text."""
    context = browser.new_context(locale=LOCALES[lang], viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(server.url + "/")
        page.wait_for_selector("#open-tables li")
        assert page.evaluate(OVERFLOW) == []
        page.click("#play-now")
        page.wait_for_selector("#name-input")
        page.fill("#name-input", "Maximiliane")
        page.click("#name-ok")
        page.wait_for_function("() => document.getElementById('overlay').hidden")
        wait_seated(page)
        page.wait_for_function("() => document.getElementById('pass-btn').hidden === false")
        assert page.evaluate(OVERFLOW) == []
        page.screenshot(path=str(ARTIFACTS / f"web_i18n_{lang}_phone.png"), full_page=True)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_axe_finds_no_serious_violation_in_each_language(server: ServerProcess, browser: Any, axe: str, lang: str) -> None:
    """axe-core (serious and critical rules) on the lobby and a table in the language, desktop
    and phone: the page's ``lang`` is the catalog's, every control keeps its translated name."""
    from test_web_lively import serious

    for viewport in ({"width": 1280, "height": 800}, {"width": 390, "height": 844}):
        context = browser.new_context(locale=LOCALES[lang], viewport=viewport, bypass_csp=True)  # axe is injected
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT)
            page.goto(server.url + "/")
            page.wait_for_selector("#open-tables li")
            assert serious(page, axe) == [], ("lobby", viewport)
            page.click("#play-now")
            page.wait_for_selector("#name-input")
            page.fill("#name-input", "Ana")
            page.click("#name-ok")
            page.wait_for_function("() => document.getElementById('overlay').hidden")
            wait_seated(page)
            page.wait_for_function("() => document.getElementById('pass-btn').hidden === false")
            assert serious(page, axe) == [], ("table", viewport)
        finally:
            context.close()


# ---------------------------------------------------------------- every page, desktop and phone

EVERY_PAGE_ENGLISH = [
    *PAGES_ENGLISH,
    "Replay", "You won", "You came", "Continue", "No game yet", "Passkeys", "Add a passkey", "No passkey yet",
    "Sign out everywhere", "Save", "Use this profile in another browser", "Copy", "Forget this profile",
    "Copy the link to your profile", "Copy your key", "provisional", "Replay of table", "Back to my games",
    "Step", "Trick", "the deal", "every hand as dealt", "plays", "takes the trick", "Round", "reviewed",
    "Review of", "Points lost", "Accuracy", "Flags", "Each round of", "flagged decisions", "Next mistake",
    "No decision of", "the best choice found", "points lost", "Best", "Fine", "Inaccuracy", "Mistake", "Blunder",
    "is not ready", "could not be read", "Rules", "Lobby", "easy", "medium", "hard",
    "You win", "wins", "Score history", "Back to the lobby", "Close", "Review game", "Your review is ready",
    "These are estimates", "sampled deals", "uncertainty", "Points lost by your decisions", "nothing flagged",
    "See each decision in the replay", "Totals after each round", "Rematch", "decisions",
]


@pytest.fixture(scope="module")
def finished(server: ServerProcess) -> tuple[dict[str, Any], str, str]:
    """A profile ("Ana") and her finished game against three easy bots (no passing, to 1 point),
    with her seat's review done (the server's budget: 8 sampled deals): the profile, the table's
    id and her seat's link."""
    profile = new_profile(server, "Ana")
    status, table = http("POST", server.url + "/api/tables",
                         {"seats": [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 3,
                          "options": {"target": 1, "pass_count": 0}}, headers=auth(profile["key"]))
    assert status == 201, table

    async def play() -> None:
        client = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        try:
            await play_until([client], random.Random(42), lambda: False, timeout=120)
        finally:
            await client.close()

    with ThreadPoolExecutor(1) as thread:  # (Playwright's own event loop runs in this one)
        thread.submit(asyncio.run, play()).result()
    record(server, table["id"])
    status, _ = http("POST", f"{server.url}/api/tables/{table['id']}/review", {"seat": 0})
    assert status in (200, 202)
    deadline = time.monotonic() + 120
    while http("GET", f"{server.url}/api/tables/{table['id']}/review?seat=0")[1]["status"] != "done":
        assert time.monotonic() < deadline, "the review was not done"
        time.sleep(0.2)
    return profile, table["id"], table["seats"][0]["link"]


PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_every_page_in_each_language_on_desktop_and_phone(
    server: ServerProcess, browser: Any, axe: str, finished: tuple[dict[str, Any], str, str], lang: str
) -> None:
    """The leaderboard, "My games" and the profile page without a profile, then with one (Ana's):
    the profile page, her games, her finished table (the game-over dialog with her review's
    summary), the replay of the game and its review — on a desktop
    and a 390×844 phone, in one browser context each: no listed English word left, no text
    overflowing its box (OVERFLOW), no serious or critical axe-core violation."""
    from test_web_lively import serious

    profile, tid, link = finished
    t = hearts.i18n.translation(lang)
    words = [w for w in EVERY_PAGE_ENGLISH if w not in SAME[lang]]
    anonymous = [("/leaderboard", "#leaderboard tbody tr"), ("/games", "#games-page p"), ("/me", "#import-key")]
    mine = [("/me", "#profile-key"), ("/games", f'#game-list li.game[data-table="{tid}"]'),
            (link.removeprefix(server.url), ".review-box[data-status='done']"),
            (f"/replay/{tid}", ".replay-hand"), (f"/replay/{tid}?seat=0&review=1", "#next-mistake")]
    for size, options in (("desktop", {"viewport": {"width": 1280, "height": 800}}), ("phone", PHONE)):
        context = browser.new_context(locale=LOCALES[lang], bypass_csp=True, **options)  # axe is injected
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT)
            for n, (path, ready) in enumerate(anonymous + mine):
                if n == len(anonymous):  # from here on, with Ana's profile kept in the browser
                    page.evaluate(f"localStorage.setItem('pyhearts.player', {json.dumps(json.dumps(profile))})")
                page.goto(server.url + path)
                page.wait_for_selector(ready)
                if path.startswith("/replay"):
                    page.keyboard.press("ArrowDown")  # the first trick: a player's play, a trick taken
                    page.keyboard.press("ArrowRight")
                if path.endswith("review=1"):
                    page.click("#replay-review summary")  # each round's summary, opened
                    page.wait_for_selector(".review-rounds")
                where = (path, size)
                assert page.evaluate("document.documentElement.lang") == lang, where
                text = page.inner_text("body")
                assert english_left(text, words) == [], (where, text)
                assert page.evaluate(OVERFLOW) == [], where
                assert serious(page, axe) == [], where
                if path == "/leaderboard":
                    assert page.inner_text("#leaderboard-title") == t.gettext("Leaderboard")
                    bots = page.inner_text("#leaderboard tbody")  # "Bot (schwer) … fest"
                    assert t.gettext("fixed") in bots and t.gettext("Bot ({level})").format(level=t.gettext("hard")) in bots
        finally:
            context.close()
