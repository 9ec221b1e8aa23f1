"""The web table as a newcomer tried it (issue 39, item 3), in a real browser (Debian's chromium
driven by Playwright) against a real server process, on a desktop and on a 390×844 phone:
*Play now* makes the browser's player profile from the name typed at the table (one identity:
the lobby, *My games* and the server know it), and so does the new-table form; an import link
in a browser without a profile shows no "null"; a chat line the rate limit refuses stays in
the input; a player renames themself at the table; errors use the page's words (Seat 1);
the Seats dialog shows the new invite link whole and no more the freed player's name; equal
totals stay visible in the score chart; a round's summary is shown over the round that ended,
not over the next deal; on a phone, cards marked to pass cover no card of the row above; a new
player's rating reads as a player reads it; every page has an ``<h1>``.
"""

from __future__ import annotations

import json
from typing import Any

import test_web_browser
from test_server_support import ServerProcess, http
from test_web_browser import state, watch_console
from test_web_lively import DESKTOP, context, page_of

browser = test_web_browser.browser  # the fixtures: Debian's chromium, a server process (no bot delay)
server = test_web_browser.server



def stored_profile(page: Any) -> dict[str, Any] | None:
    """The player profile the page's browser keeps (``localStorage["pyhearts.player"]``)."""
    raw = page.evaluate("localStorage.getItem('pyhearts.player')")
    return None if raw is None else json.loads(raw)  # type: ignore[no-any-return]


def as_profile(key: str) -> dict[str, str]:
    return {"Authorization": "Bearer " + key}


def my_game_ids(server: ServerProcess, key: str) -> list[str]:
    """The tables ``GET /api/me/games`` lists for the profile of ``key``."""
    status, data = http("GET", server.url + "/api/me/games", headers=as_profile(key))
    assert status == 200, data
    return [g["id"] for g in data["games"]]


# ---------------------------------------------------------------- one identity from the first click


def test_play_now_makes_one_identity_from_the_first_click(server: ServerProcess, browser: Any) -> None:
    """A browser with no profile: *Play now*, then the name typed at the table ("Kim") is the
    browser's player profile — on the server, with the table among its games; the lobby then
    greets Kim (no welcome asking for a name, the form's first seat is Kim's) and *My games*
    lists the table."""
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#play-level option", state="attached")
    page.click("#play-now")
    page.wait_for_selector("#name-input")
    table_id = state(page)["table"]["id"]
    page.fill("#name-input", "Kim")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.heartsState.table.names[0] === 'Kim'")
    page.wait_for_function("() => localStorage.getItem('pyhearts.player') !== null")
    profile = stored_profile(page)
    assert profile is not None and profile["name"] == "Kim"
    status, me = http("GET", server.url + "/api/me", headers=as_profile(profile["key"]))
    assert status == 200 and me["name"] == "Kim" and me["id"] == profile["id"]
    page.wait_for_function(f"() => localStorage.getItem('pyhearts.claimed:{table_id}') !== null")
    assert table_id in my_game_ids(server, profile["key"])
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat-row")
    assert page.locator("#welcome").count() == 0
    assert page.inner_text("#nav-me") == "Kim"
    assert page.input_value("#seats .seat-row .name") == "Kim"
    page.goto(server.url + "/games")
    page.wait_for_selector(f'#game-list li[data-table="{table_id}"]')
    assert "Make a player profile first" not in page.inner_text("#games-page")
    assert not problems, problems
    ctx.close()


def test_the_new_table_form_makes_the_profile_and_the_welcome_stops_asking(server: ServerProcess, browser: Any) -> None:
    """A first visit: the welcome box asks for a name, but the person types "Ann" in the form's
    first seat and makes a table. The profile is Ann's (on the server too) and the welcome box
    asks no more."""
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#welcome-name")
    page.wait_for_selector("#seats .seat-row")
    page.locator(".seat-row").nth(0).locator(".name").fill("Ann")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    profile = stored_profile(page)
    assert profile is not None and profile["name"] == "Ann"
    status, me = http("GET", server.url + "/api/me", headers=as_profile(profile["key"]))
    assert status == 200 and me["name"] == "Ann"
    assert page.locator("#welcome-name").count() == 0, page.inner_text("#welcome")
    assert "What should we call you" not in page.inner_text("#lobby")
    assert page.inner_text("#nav-me") == "Ann"
    assert not problems, problems
    ctx.close()


# ---------------------------------------------------------------- an import link, no profile here


def test_an_import_link_in_a_browser_without_a_profile_shows_no_null(server: ServerProcess, browser: Any) -> None:
    status, made = http("POST", server.url + "/api/players", {"name": "Noor"})
    assert status == 201
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(f"{server.url}/me#import={made['key']}")
    page.wait_for_selector("#import-yes")
    words = page.inner_text("#import-box")
    assert "Noor" in words and "null" not in words and "undefined" not in words, words
    assert not problems, problems
    ctx.close()
