"""The settings players expect (issue 42, item 4), in Chromium: the cards' size, high contrast,
the cards' movement (the system's "reduce motion" by default, Playwright's emulation of it, and
overridden either way), the bots' pause at the tables one makes (within the server's limits: the
pace the server then uses), each applied at once and kept across a reload; axe-core finds no
serious or critical violation in high contrast. Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import test_web_browser
import test_web_lively
from test_server_support import ServerProcess, create_table, http
from test_web_browser import ARTIFACTS, wait_seated
from test_web_lively import DESKTOP, PHONE, context, page_of, serious

browser = test_web_browser.browser  # the fixtures: Debian's chromium, a server process (no bot delay)
server = test_web_browser.server
axe = test_web_lively.axe  # axe-core from npm (skipped without it)

STILL = "async () => (await import('/static/anim.js')).still()"
"""Whether the cards stand still (anim.js, the module the page runs: one instance per URL)."""


def you_and_bots(server: ServerProcess) -> dict[str, Any]:
    return create_table(server, [{"kind": "human", "name": "Kim"}] + [{"kind": "bot", "level": "easy"}] * 3)


def card_width(page: Any) -> float:
    width: float = page.locator("#hand .card img").first.evaluate("i => i.getBoundingClientRect().width")
    return width


def test_each_setting_applies_at_once_and_is_kept(server: ServerProcess, browser: Any) -> None:
    """At a table (the system asks for no reduced motion): larger and smaller cards, high
    contrast, the cards kept still, each changed in the panel and seen at once, then kept
    across a reload (localStorage)."""
    table = you_and_bots(server)
    ctx = context(browser, DESKTOP, settings=None, reduced_motion="no-preference")
    page = page_of(ctx)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    page.wait_for_selector("#hand .card img")
    normal = card_width(page)
    background = "() => getComputedStyle(document.body).backgroundColor"
    transition = "() => getComputedStyle(document.querySelector('#hand .card')).transitionDuration"
    assert page.evaluate(background) == "rgb(15, 91, 58)"  # the felt
    assert page.evaluate(transition) == "0.12s" and page.evaluate(STILL) is False
    page.click("#settings-btn")
    page.select_option("#set-size", "large")
    assert card_width(page) == pytest.approx(normal * 1.3, abs=1)
    page.select_option("#set-size", "small")
    assert card_width(page) == pytest.approx(normal * 0.85, abs=1)
    page.check("#set-contrast")
    assert page.evaluate(background) == "rgb(0, 0, 0)"
    assert page.locator("#me").evaluate("e => getComputedStyle(e).borderTopColor") in ("rgb(255, 255, 255)", "rgb(255, 225, 77)")
    page.select_option("#set-motion", "reduced")
    assert page.evaluate(transition) == "0s" and page.evaluate(STILL) is True
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "settings_high_contrast.png"))
    page.reload()
    wait_seated(page)
    page.wait_for_selector("#hand .card img")
    stored = json.loads(page.evaluate("localStorage.getItem('pyhearts:settings')"))
    assert {k: stored[k] for k in ("cardSize", "highContrast", "motion")} == {"cardSize": "small", "highContrast": True, "motion": "reduced"}
    assert card_width(page) == pytest.approx(normal * 0.85, abs=1)
    assert page.evaluate(background) == "rgb(0, 0, 0)" and page.evaluate(STILL) is True
    page.click("#settings-btn")
    assert page.input_value("#set-size") == "small" and page.is_checked("#set-contrast")
    assert page.input_value("#set-motion") == "reduced"
    ctx.close()


def test_the_systems_reduced_motion_is_followed_unless_overridden(server: ServerProcess, browser: Any) -> None:
    """With the system's "reduce motion" (Playwright's emulation) nothing moves by default; the
    setting "On" moves the cards all the same; back to "As the system says", the page follows the
    system as it changes, at once."""
    ctx = context(browser, PHONE, settings=None, reduced_motion="reduce")
    page = page_of(ctx)
    page.goto(server.url + "/")
    page.wait_for_selector("#preset option", state="attached")
    assert page.evaluate(STILL) is True and page.evaluate("document.body.classList.contains('reduced-motion')")
    page.click("#settings-btn")
    assert page.input_value("#set-motion") == "system"
    page.select_option("#set-motion", "full")
    assert page.evaluate(STILL) is False
    page.select_option("#set-motion", "system")
    assert page.evaluate(STILL) is True
    page.emulate_media(reduced_motion="no-preference")  # the system's setting changed meanwhile
    page.wait_for_function("() => !document.body.classList.contains('reduced-motion')")
    assert page.evaluate(STILL) is False
    ctx.close()


def test_the_bots_pace_of_my_tables_is_the_one_chosen_within_the_limits(server: ServerProcess, browser: Any) -> None:
    """The panel offers the server's pace (its ``--bot-delay``, here none) and the paces within
    its limits (``min_bot_pace`` 0.2 … ``max_bot_pace`` 3 s: GET /api/config); the one chosen is
    the pace of the next table Play now makes, as the server plays it (``bot_delay``). A pace
    asked for beyond the limits is held within them; one that is no number is refused and no
    table made."""
    ctx = context(browser, DESKTOP, settings=None)
    page = page_of(ctx)
    page.goto(server.url + "/")
    page.wait_for_selector("#play-level option", state="attached")
    page.click("#settings-btn")
    page.wait_for_selector("#set-bots option[value='1.5']", state="attached")
    offered = page.eval_on_selector_all("#set-bots option", "os => os.map(o => [o.value, o.textContent])")
    assert offered == [["", "the server's (0 s)"], ["0.2", "0.2 s"], ["0.5", "0.5 s"], ["1", "1 s"], ["1.5", "1.5 s"],
                       ["2", "2 s"], ["3", "3 s"]]
    page.select_option("#set-bots", "1.5")
    page.keyboard.press("Escape")
    page.click("#play-now")
    page.wait_for_url("**/t/**")
    wait_seated(page)
    table_id = page.evaluate("location.pathname.split('/')[2]")
    status, facts = http("GET", f"{server.url}/api/tables/{table_id}")
    assert status == 200 and facts["bot_delay"] == 1.5
    assert json.loads(page.evaluate("localStorage.getItem('pyhearts:settings')"))["botPace"] == 1.5  # kept
    ctx.close()
    seats = [{"kind": "human", "name": "Lee"}] + [{"kind": "bot", "level": "easy"}] * 3
    assert create_table(server, seats, bot_pace=30)["bot_delay"] == 3.0
    assert create_table(server, seats)["bot_delay"] == 0.0  # the server's
    status, answer = http("POST", server.url + "/api/tables", {"seats": seats, "bot_pace": "slow"})
    assert status == 400 and "'bot_pace' must be a number of seconds" in answer["error"]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_axe_finds_no_serious_violation_in_high_contrast(
    server: ServerProcess, browser: Any, axe: str, viewport: dict[str, int]
) -> None:
    """High contrast with large cards: the lobby with the settings panel open, and a table."""
    settings = {"highContrast": True, "cardSize": "large", "trickPause": 0.5}
    ctx = context(browser, viewport, settings=settings, bypass_csp=True)  # axe is injected as an inline script
    page = page_of(ctx)
    page.goto(server.url + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.click("#settings-btn")
    page.wait_for_selector("#set-bots option[value='1']", state="attached")
    assert serious(page, axe) == []
    table = you_and_bots(server)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    page.wait_for_selector("#hand .card img")
    assert serious(page, axe) == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"settings_high_contrast_{viewport['width']}.png"))
    ctx.close()
