"""The lobby's quick match and live lobby in a real browser (Debian's chromium driven by
Playwright; issue 40): the lobby updates without a reload when a table opens and when it
fills; the Quick match button queues a newcomer, counts down, and opens the table the bots
filled. Screenshots go to ``artifacts/``."""

from __future__ import annotations

from typing import Any

import test_web_browser
from test_server_support import ServerProcess, create_table, http
from test_web_browser import ARTIFACTS, TIMEOUT, wait_seated

browser = test_web_browser.browser  # the fixtures: Debian's chromium, and a server process (no bot delay)
server = test_web_browser.server


def lobby_page(browser: Any, server: ServerProcess) -> Any:
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/")
    page.wait_for_function("() => document.getElementById('lobby-live').textContent.includes('games in progress')")
    page.evaluate("window.notReloaded = true")
    return page


def test_the_lobby_updates_without_a_reload(server: ServerProcess, browser: Any) -> None:
    """A table made elsewhere appears in the open lobby with its free seat and its spectators'
    link, pushed; once someone takes the seat the lobby shows it full — no reload."""
    page = lobby_page(browser, server)
    playing = int(page.get_attribute("#lobby-live", "data-playing"))
    table = create_table(server, [{"kind": "human", "name": "Ann"}, {"kind": "open"},
                                  {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}], listed=True)
    row = f'#open-tables li[data-table="{table["id"]}"]'
    page.wait_for_selector(f"{row} button.join")
    assert page.get_attribute(f"{row} a.watch", "href") == f"/t/{table['id']}#watch"
    page.wait_for_function(f"() => Number(document.getElementById('lobby-live').dataset.playing) === {playing + 1}")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "quick_lobby_open.png"))
    status, joined = http("POST", f"{server.url}/api/tables/{table['id']}/join", {"name": "Bo"})
    assert status == 200, joined
    page.wait_for_function(f"() => {{ const li = document.querySelector('{row}');"
                           " return li && !li.querySelector('button.join') && li.textContent.includes('Bo'); }")
    assert page.evaluate("window.notReloaded") is True
    page.close()


def test_quick_match_button_counts_down_and_seats_with_bots(server: ServerProcess, browser: Any) -> None:
    """A newcomer types a name, sets bots after 3 s and clicks Quick match: the lobby counts
    down, then the table opens with three bots, the newcomer seated; the lobby elsewhere saw the
    person waiting."""
    watcher = lobby_page(browser, server)
    ctx = browser.new_context(viewport={"width": 1100, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/")
    page.fill("#quick-name", "Quinn")
    page.fill("#quick-wait", "3")
    page.select_option("#quick-preset", "standard")
    page.click("#quick-btn")
    page.wait_for_function("() => document.getElementById('quick-status').dataset.left !== undefined")
    assert "bots fill the empty seats in" in page.text_content("#quick-status")
    assert page.is_visible("#quick-leave")
    page.screenshot(path=str(ARTIFACTS / "quick_waiting.png"))
    watcher.wait_for_function("() => document.getElementById('lobby-live').textContent.includes('1 standard')")
    page.wait_for_url("**/t/**", timeout=TIMEOUT)
    st = wait_seated(page)
    assert st["table"]["kinds"].count("bot") == 3 and st["you"] is not None
    assert st["table"]["names"][st["you"]] == "Quinn"
    ctx.close()
    watcher.close()


def test_leaving_the_queue_from_the_lobby(server: ServerProcess, browser: Any) -> None:
    """Leave the queue: the button comes back, and no table is made for the player."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/")
    page.fill("#quick-name", "Lea")
    page.fill("#quick-wait", "3")
    page.select_option("#quick-preset", "black_maria")  # (no bot's seat of a quick table awaits: none of three)
    page.click("#quick-btn")
    page.wait_for_function("() => document.getElementById('quick-status').dataset.left !== undefined")
    page.click("#quick-leave")
    page.wait_for_function("() => document.getElementById('quick-status').textContent === 'You left the queue.'")
    assert page.is_visible("#quick-btn")
    page.wait_for_timeout(4000)
    assert "/t/" not in page.url
    key = page.evaluate("JSON.parse(localStorage.getItem('pyhearts.player')).key")
    status, games = http("GET", server.url + "/api/me/games", headers={"Authorization": f"Bearer {key}"})
    assert status == 200 and games["games"] == []
    ctx.close()


def test_what_is_typed_before_the_page_is_ready_is_kept(server: ServerProcess, browser: Any) -> None:
    """A newcomer on a slow connection types a name and a wait while the lobby, shown, still
    waits for the server's options (GET /api/config held back here): the lobby, once ready,
    keeps both, and Quick match counts down with them (a CI run's browser lost the typed name
    this way)."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    held: list[Any] = []
    page.route("**/api/config", lambda route: held.append(route))
    page.goto(server.url + "/", wait_until="domcontentloaded")
    page.fill("#quick-name", "Tess")
    page.fill("#quick-wait", "7")
    page.wait_for_timeout(300)
    assert held, "the options were not asked for"
    for route in held:
        route.continue_()
    page.unroute("**/api/config")
    page.select_option("#quick-preset", "black_maria")  # (waits for the lobby: it adds the options)
    assert page.input_value("#quick-name") == "Tess" and page.input_value("#quick-wait") == "7"
    page.click("#quick-btn")
    page.wait_for_function("() => document.getElementById('quick-status').dataset.left !== undefined")
    assert "bots fill the empty seats in" in page.text_content("#quick-status")
    page.click("#quick-leave")
    page.wait_for_function("() => document.getElementById('quick-status').textContent === 'You left the queue.'")
    ctx.close()
