"""No game waits for a leaver, in the browser (issue 40, item 3; Debian's chromium): at a public
table everyone — a spectator too — sees the clock of the seat that is to act count down; a
person who stops playing is played for by the stand-in, and once their seat is handed over for
the rest of the game their page says so and *Take my seat back* gives it back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import test_web_browser
from test_server_support import ServerProcess, create_table
from test_web_browser import ARTIFACTS, TIMEOUT, wait_seated, watch_console

browser = test_web_browser.browser  # the fixture: Debian's chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with short clocks, and bots slow enough to click between their moves. The pass
    clock runs from the table's making: long enough for both pages to load on a busy machine."""
    limits = {"play_clock": 2, "pass_clock": 8, "missed_turns": 3}
    s = ServerProcess(tmp_path_factory.mktemp("leavers") / "tables.db", bot_delay=0.3, limits=limits).start()
    yield s
    s.stop()


def test_everyone_sees_the_clock_and_a_leaver_takes_the_seat_back(server: ServerProcess, browser: Any) -> None:
    seats = [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3
    table = create_table(server, seats, listed=True, stand_in="easy")
    assert (table["turn_timer"], table["pass_timer"]) == (2, 8)
    watcher = browser.new_page(viewport={"width": 1100, "height": 850})
    watcher.set_default_timeout(TIMEOUT)
    page = browser.new_page(viewport={"width": 1100, "height": 850})
    page.set_default_timeout(TIMEOUT)
    problems = [watch_console(page), watch_console(watcher)]
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    watcher.goto(f"{server.url}/t/{table['id']}#watch")
    watcher.wait_for_function("() => window.heartsState && window.heartsState.you === null")
    # Pat is to pass: the spectator sees Pat's clock counting down on Pat's seat.
    clock = watcher.locator('#opponents .seat[data-seat="0"] .clock')
    first = clock.inner_text()
    assert first.endswith(" s left"), first
    watcher.wait_for_function(
        f"() => document.querySelector('#opponents .seat[data-seat=\"0\"] .clock').textContent !== '{first}'"
    )
    # Pat stops playing: after three turns of the stand-in in a row, the seat is handed over.
    page.wait_for_function("() => window.heartsState.table.handed_over.includes(0)", timeout=40_000)
    assert "for the rest of the game" in page.inner_text("#prompt")
    assert page.inner_text("#back-btn") == "Take my seat back"
    watcher.wait_for_function("() => window.heartsState.table.handed_over.includes(0)")
    assert "left: a bot plays to the end" in watcher.inner_text('#opponents .seat[data-seat="0"]')
    page.screenshot(path=str(ARTIFACTS / "web_handed_over.png"))
    # Pat comes back (a reload: still handed over), and takes the seat back with the button.
    page.reload()
    wait_seated(page)
    page.wait_for_selector("#back-btn")
    page.click("#back-btn")
    page.wait_for_function("() => window.heartsState.table.away.length === 0 && !window.heartsState.table.handed_over.length")
    assert "for the rest of the game" not in page.inner_text("#prompt")
    assert page.locator("#back-btn").count() == 0
    for p in (page, watcher):
        p.close()
    assert problems == [[], []], problems
