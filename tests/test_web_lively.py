"""The lively web table in a real browser (Debian's chromium driven by Playwright): a round whose
plays are all made by bots ends on its last trick, shown, and then a summary of who took which
point cards (checked against the game's record) with a score chart of one line per seat; the
game-over screen names the winner; the settings panel's choices persist; a card is played with
the keyboard alone; a copy button puts an invite link on the clipboard; the trick's captions are
whole on a phone; axe-core finds no serious or critical accessibility violation in the lobby, at
the table or on the game-over screen. Screenshots of each screen (1280×800 and 390×844) go to
``artifacts/``.

axe-core comes from npm, outside the package (``.venv`` is git-ignored)::

    npm install --prefix .venv/npm --no-save --no-audit --no-fund axe-core@4

or at the path in ``$PYHEARTS_AXE``; without it the accessibility test is skipped.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_web_browser
from test_server_support import ServerProcess, create_table, http
from test_web_browser import ARTIFACTS, TIMEOUT, play_by_clicks, state, wait_seated, watch_console

from hearts.cards import Card
from hearts.record import GameRecord, from_dict

browser = test_web_browser.browser  # the fixtures: Debian's chromium, and a server process (no bot delay)
server = test_web_browser.server
ROOT = Path(__file__).resolve().parent.parent
AXE = Path(os.environ.get("PYHEARTS_AXE", ROOT / ".venv/npm/node_modules/axe-core/axe.min.js"))
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
QUICK = {"trickPause": 0.5, "sound": False, "fourColour": False}
"""Settings for the tests that do not look at the pace: the shortest pause after a trick."""


def context(
    browser: Any, viewport: dict[str, int], settings: dict[str, Any] | None = QUICK, **options: Any
) -> Any:
    """A browser context of this screen size whose pages start with ``settings`` stored."""
    ctx = browser.new_context(viewport=viewport, **options)
    if settings is not None:
        ctx.add_init_script(f"localStorage.setItem('pyhearts:settings', {json.dumps(json.dumps(settings))})")
    return ctx


def page_of(ctx: Any) -> Any:
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    return page


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lively_{name}.png"))


def record(server: ServerProcess, table_id: str) -> GameRecord:
    """The finished game of a table (its record, read back)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, data = http("GET", f"{server.url}/api/tables/{table_id}/record")
        if status == 200:
            game = from_dict(data)
            assert isinstance(game, GameRecord)
            return game
        time.sleep(0.2)
    pytest.fail("the game did not end")


def point_cards(cards: Any, jack: bool) -> set[str]:
    """The point cards among ``cards`` (hearts, the Q♠, and the J♦ when it counts): codes."""
    return {str(c) for c in cards if str(c)[1] == "H" or str(c) == "QS" or (jack and str(c) == "JD")}


def code(words: str) -> str:
    """A card's code from its words on the page: "10♥" is "TH"."""
    return words.replace("10", "T").translate(str.maketrans("♣♦♥♠", "CDHS"))


@pytest.fixture(scope="module")
def away_table(server: ServerProcess) -> dict[str, Any]:
    """You and three bots, to 27 points; you do not act, so after 8 s the stand-in bot plays for
    you: every play of the game is a bot's, sent as fast as the bots think. (8 s: the first test
    opens two browser contexts and their pages before the first trick is played, which took
    more than 3 s on a loaded machine: the page then missed the first trick.)"""
    return create_table(
        server,
        [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3,
        options={"target": 27},
        turn_timer=8,
        stand_in="easy",
    )


def test_a_round_of_bots_ends_on_its_last_trick_then_a_summary_of_who_took_what(
    server: ServerProcess, browser: Any, away_table: dict[str, Any]
) -> None:
    tid = away_table["id"]
    watch = {"reduced_motion": "reduce"}
    ctx = context(browser, DESKTOP, settings={**QUICK, "sound": True}, **watch)
    phone_ctx = context(browser, PHONE, **watch)
    page, phone = page_of(ctx), page_of(phone_ctx)
    problems = watch_console(page)
    page.goto(away_table["seats"][0]["link"])
    phone.goto(f"{server.url}/t/{tid}#watch")  # a spectator on a phone follows the same game
    wait_seated(page)
    wait_seated(phone)
    game = record(server, tid).game  # the bots play the whole game in a moment
    first = game.rounds[0]
    # Both pages show the plays in order at their pace; near the round's end the pause grows
    # (the settings apply at once), to look at its last trick: shown in its round, every card
    # played, before the next deal. The pages go at different paces, so both are watched at
    # once (waiting for one, the other could show its last trick and move on meanwhile).
    end = (
        "() => window.heartsState.view.round_number === 0 && window.heartsState.view.hand_sizes.every(x => x === 0)"
        " && document.querySelectorAll('#trick figure').length === 4"
    )
    tricks = [
        {"round": 0, "cards": [str(Card(c)) for c in t.cards], "winner": t.winner} for t in first.tricks
    ]

    # What a page shows, read at one instant (one evaluate: on a loaded machine the pause could
    # run out between separate reads, and the summary then rightly show).
    snapshot = (
        "() => ({end: (" + end + ")(), shown: [...document.querySelectorAll('#trick figure')].map(f => f.dataset.card),"
        " win: document.querySelector('#trick figure.win')?.dataset.seat ?? null,"
        " note: document.querySelector('#trick-note')?.innerText ?? '',"
        " overlay: !!document.querySelector('#overlay') && !document.querySelector('#overlay').hidden"
        " && getComputedStyle(document.querySelector('#overlay')).display !== 'none',"
        " tricks: window.heartsTricks.filter(t => t.round === 0)})"
    )

    def last_trick_shown(p: Any, seen: dict[str, Any]) -> None:
        assert seen["shown"] == tricks[-1]["cards"]
        assert seen["win"] == str(tricks[-1]["winner"])
        assert ("you take it" if tricks[-1]["winner"] == 0 and p is page else "takes it") in seen["note"], seen["note"]
        assert not seen["overlay"]  # the summary waits until the trick has been seen
        # Every trick of the round was shown, in order, none skipped.
        assert seen["tricks"] == tricks

    slowed: set[int] = set()
    waiting = [page, phone]
    deadline = time.monotonic() + 60
    while waiting and time.monotonic() < deadline:
        for p in list(waiting):
            if id(p) not in slowed and p.evaluate("window.heartsState.view.tricks.length >= 10"):
                p.evaluate("window.pyhearts.settings.set('trickPause', 3)")
                slowed.add(id(p))
            if id(p) in slowed and (seen := p.evaluate(snapshot))["end"]:
                last_trick_shown(p, seen)
                waiting.remove(p)
        time.sleep(0.02)
    assert not waiting, "a page did not show the round's last trick"
    shot(page, "last_trick")
    shot(phone, "last_trick_phone")
    # Then the summary: each seat's point cards (the record's), points, score and total; the
    # moon if any; no "null"; a score chart with a line per seat.
    jack = bool(game.rules.jack_of_diamonds)
    for p in (page, phone):
        p.wait_for_selector("#summary-ok")
        text = p.inner_text("#dialog")
        assert "Round 1 over" in text and "null" not in text and "undefined" not in text
        result = first.result
        assert result is not None
        for seat in range(4):
            row = p.locator(f'#dialog table.round tr[data-seat="{seat}"]')
            took = {code(t) for t in row.locator(".took .chip").all_inner_texts()}
            assert took == point_cards(first.won_cards(seat), jack), seat
            points, score, total = (int(x) for x in row.locator("td").all_inner_texts()[1:])
            assert (points, score, total) == (
                result.points[seat],
                result.scores[seat],
                game.score_history[0][seat],
            )
        assert ("shot the moon" in text) == (result.shooter is not None)
        assert p.locator("#dialog svg.chart .seat-line polyline").count() == 4
        assert p.locator("#dialog .legend li").count() == 4
    shot(page, "round_summary")
    shot(phone, "round_summary_phone")
    # The sounds of the round (on in the desktop page's settings, off by default on the phone).
    assert {"play", "trick", "queen", "hearts"} <= set(page.evaluate("window.pyhearts.sound.played"))
    assert phone.evaluate("window.pyhearts.sound.played") == []
    page.click("#summary-ok")
    assert page.is_hidden("#overlay")
    assert not problems, problems
    ctx.close()
    phone_ctx.close()


def test_the_game_over_screen_shows_the_winner(
    server: ServerProcess, browser: Any, away_table: dict[str, Any]
) -> None:
    game = record(server, away_table["id"]).game
    winners = game.winners
    assert winners
    names = ["Pat"] + [f"{s['name']} (easy)" for s in away_table["seats"][1:]]  # the bots' names, with their level
    for viewport, name in ((DESKTOP, "game_over"), (PHONE, "game_over_phone")):
        ctx = context(browser, viewport)
        page = page_of(ctx)
        page.goto(away_table["seats"][0]["link"])
        page.wait_for_selector("#gameover-ok")
        title = page.inner_text("#dialog .winner-title")
        expected = "You" if winners[0] == 0 else names[winners[0]]
        assert title.startswith(expected), title
        assert page.locator("#dialog .standings li.winner").count() == len(winners)
        first = page.locator("#dialog .standings li").first.inner_text()
        assert str(min(game.totals)) in first
        assert page.locator("#dialog svg.chart .seat-line").count() == 4
        shot(page, name)
        page.click("#gameover-ok")
        assert "Game over" in page.inner_text("#prompt")
        ctx.close()


def test_the_settings_persist_and_a_card_is_played_by_keyboard(server: ServerProcess, browser: Any) -> None:
    """The settings panel: the trick's pause, sounds and the four-colour deck, kept across a
    reload and applied. Then keyboard-only play with the cards moving (no reduced motion):
    arrows and Space mark three cards, P passes, and at each turn the focus is on a playable
    card (visibly), Enter plays it; the sounds play."""
    table = create_table(server, [{"kind": "human", "name": "Kim"}] + [{"kind": "bot", "level": "easy"}] * 3)
    ctx = context(browser, DESKTOP, settings=None)
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    page.click("#settings-btn")
    assert page.get_attribute("#settings-btn", "aria-expanded") == "true"
    assert page.input_value("#set-pause") == "1.2" and not page.is_checked("#set-sound")
    page.focus("#set-pause")
    page.keyboard.press("Home")  # the range's least: half a second
    page.check("#set-sound")
    page.check("#set-four")
    assert page.inner_text("#set-pause-out") == "0.5 s"
    shot(page, "settings")
    page.reload()
    wait_seated(page)
    stored = json.loads(page.evaluate("localStorage.getItem('pyhearts:settings')"))
    assert {k: stored[k] for k in ("trickPause", "sound", "fourColour")} == {"trickPause": 0.5, "sound": True, "fourColour": True}
    page.click("#settings-btn")
    assert (
        page.input_value("#set-pause") == "0.5"
        and page.is_checked("#set-sound")
        and page.is_checked("#set-four")
    )
    page.keyboard.press("Escape")
    assert page.is_hidden("#settings")
    # A club or a diamond (a random deal may hold no club): both are recoloured by a filter.
    recoloured = page.locator('#hand img[src$="C.svg"], #hand img[src$="D.svg"]').first
    assert "url" in recoloured.evaluate("i => getComputedStyle(i).filter")
    # Count the ghosts (the moving cards) drawn over the trick.
    page.evaluate(
        "window.ghosts = 0; new MutationObserver(ms => ms.forEach(m => m.addedNodes.forEach(n =>"
        " { if (n.classList && n.classList.contains('ghost')) window.ghosts++; })))"
        ".observe(document.getElementById('trick'), {childList: true})"
    )
    # Pass by keyboard: three cards marked with Space, then P.
    v = state(page)["view"]
    assert v["must_pass"]
    for _ in range(3):
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Space")
    assert page.locator('#hand .card[aria-pressed="true"]').count() == 3
    page.keyboard.press("p")
    page.wait_for_function("() => !window.heartsState.view.must_pass")
    for turn in range(2):
        page.wait_for_function("() => document.body.dataset.myturn === 'true'", timeout=TIMEOUT)
        v = state(page)["view"]
        # The focus is on a playable card (back in the hand by itself after the first play).
        if turn == 0 and not page.evaluate("document.activeElement.classList.contains('card')"):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.activeElement.matches('#hand .card.legal:focus-visible')")
        card = page.evaluate("document.activeElement.dataset.card")
        assert card in v["legal"]
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => !window.heartsState.view.hand.includes('{card}')")
        if turn == 0:
            page.wait_for_function("() => window.ghosts > 0")
            shot(page, "table")
    played = page.evaluate("window.pyhearts.sound.played")
    assert {"play", "turn"} <= set(played), played
    assert not problems, problems
    ctx.close()


def test_copy_buttons_put_invite_links_on_the_clipboard(server: ServerProcess, browser: Any) -> None:
    ctx = context(browser, DESKTOP, permissions=["clipboard-read", "clipboard-write"])
    page = page_of(ctx)
    page.goto(server.url + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.locator(".seat-row").nth(2).locator(".kind").select_option("human")
    page.locator(".seat-row").nth(2).locator(".name").fill("Ann")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    links = page.locator("#created .invite")
    assert (
        links.count() == 2 and page.locator("#created button.copy").count() == 3
    )  # and the spectators' link
    ann = links.nth(1).get_attribute("href")
    page.click('button.copy[aria-label="Copy Ann\'s invite link"]')
    page.wait_for_function(
        '() => document.querySelector("button.copy[aria-label=\\"Copy Ann\'s invite link\\"]").textContent.startsWith(\'Copied\')'
    )
    assert page.evaluate("navigator.clipboard.readText()") == ann
    icon = page.get_attribute('link[rel="icon"]', "href")
    status, svg = http("GET", server.url + icon)
    assert status == 200 and svg.startswith("<svg")  # the favicon
    shot(page, "lobby")
    ctx.close()
    phone_ctx = context(browser, PHONE)
    phone = page_of(phone_ctx)
    phone.goto(server.url + "/")
    phone.wait_for_selector("#preset option", state="attached")
    shot(phone, "lobby_phone")
    phone_ctx.close()


def test_the_trick_captions_are_whole_on_a_phone(server: ServerProcess, browser: Any) -> None:
    names = ["Maximiliane", "Bot (medium)", "Bartholomew"]
    table = create_table(
        server,
        [{"kind": "human", "name": "Jo"}] + [{"kind": "bot", "level": "easy", "name": n} for n in names],
    )
    ctx = context(browser, PHONE, reduced_motion="reduce")
    page = page_of(ctx)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    seen: set[str] = set()
    for _ in range(60):
        # (a round's summary waits for its OK before the next round: closed by play_by_clicks)
        page.wait_for_function(
            "() => document.body.dataset.myturn === 'true' || document.getElementById('summary-ok')?.checkVisibility() === true",
            timeout=TIMEOUT,
        )
        if page.is_visible("#summary-ok"):
            page.click("#summary-ok")
            continue
        captions = page.evaluate(
            "[...document.querySelectorAll('#trick figcaption')].map(c => { const b = c.getBoundingClientRect();"
            " return {text: c.textContent, whole: c.scrollWidth <= c.clientWidth + 1 && c.scrollHeight <= c.clientHeight + 1,"
            " inside: b.left >= 0 && b.right <= innerWidth}; })"
        )
        for c in captions:
            assert c["whole"] and c["inside"], c
            seen.add(c["text"])
        if len(seen) == 4:
            break
        if len(seen) >= 2:
            shot(page, "table_phone")
        play_by_clicks(page, lambda: False, actions=1)  # closes a round's summary first
    assert seen == {"you", *names}
    page.click("#settings-btn")
    shot(page, "settings_phone")
    ctx.close()


# ---------------------------------------------------------------- accessibility (axe-core)


@pytest.fixture(scope="module")
def axe() -> Iterator[str]:
    if not AXE.exists():
        pytest.skip(
            f"axe-core is not installed at {AXE} "
            "(npm install --prefix .venv/npm --no-save --no-audit --no-fund axe-core@4)"
        )
    yield AXE.read_text(encoding="utf-8")


def serious(page: Any, axe: str) -> list[dict[str, Any]]:
    """The serious and critical axe-core violations of the page as it is."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe)
    report: dict[str, Any] = page.evaluate(
        "async () => { const r = await axe.run(document); return {passed: r.passes.length, found: r.violations"
        ".filter(v => ['serious', 'critical'].includes(v.impact))"
        ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))}; }"
    )
    assert report["passed"] > 20  # the rules did run
    found: list[dict[str, Any]] = report["found"]
    return found


def test_axe_finds_no_serious_violation(
    server: ServerProcess, browser: Any, axe: str, away_table: dict[str, Any]
) -> None:
    ctx = context(browser, DESKTOP, bypass_csp=True)  # axe is injected as an inline script
    page = page_of(ctx)
    page.goto(server.url + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.locator(".seat-row").nth(0).locator(".name").fill("Pat")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    page.click("#settings-btn")
    assert serious(page, axe) == []  # the lobby, a table's links and the settings panel
    page.click("#sit")
    wait_seated(page)
    page.click("#scores-btn")
    assert serious(page, axe) == []  # the table, passing
    record(server, away_table["id"])  # the game is over
    page.goto(away_table["seats"][0]["link"])
    page.wait_for_selector("#gameover-ok")
    assert serious(page, axe) == []  # the game-over screen
    ctx.close()
