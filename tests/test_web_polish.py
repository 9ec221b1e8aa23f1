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
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_web_browser
import test_web_lively
from test_server_support import ServerProcess, create_table, http
from test_web_browser import seed_moon_table, shoot_the_moon, state, wait_seated, watch_console
from test_web_lively import DESKTOP, PHONE, context, page_of, record

from hearts.server.ratings import DEFAULT_MU, DEFAULT_SIGMA, Entrant, conservative, rate
from hearts.server.storage import PlayerRow

browser = test_web_browser.browser  # the fixtures: Debian's chromium, a server process (no bot delay)
server = test_web_browser.server
axe = test_web_lively.axe



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


# ---------------------------------------------------------------- chat and names at the table


def you_and_bots(server: ServerProcess, name: str = "Jo") -> dict[str, Any]:
    """A table of a person (``name``) and three bots; its creation's answer."""
    return create_table(server, [{"kind": "human", "name": name}] + [{"kind": "bot", "level": "easy"}] * 3)


def test_a_chat_line_refused_by_the_rate_limit_stays_in_the_input(server: ServerProcess, browser: Any) -> None:
    """Five lines in ten seconds are sent; the sixth is refused by the rate limit: it is still in
    the input, to send again, and the chat panel says why. Sent later, it goes and the input
    empties."""
    table = you_and_bots(server)
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    for k in range(1, 6):
        page.fill("#chat-input", f"line {k}")
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => document.querySelectorAll('#chat-lines li').length === {k}")
        page.wait_for_function("() => document.getElementById('chat-input').value === ''")
    page.fill("#chat-input", "the sixth line")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.body.innerText.toLowerCase().includes('too many chat messages')")
    assert page.input_value("#chat-input") == "the sixth line"
    assert "Too many chat messages" in page.inner_text("#chat-error")
    assert page.locator("#chat-lines li").count() == 5
    page.wait_for_timeout(10_500)  # the window has passed: sent again (once more if it is still refused), it goes
    for _ in range(5):
        page.click("#chat-send")
        page.wait_for_function("() => document.querySelectorAll('#chat-lines li').length === 6"
                               " || !document.getElementById('chat-error').hidden")
        if page.locator("#chat-lines li").count() == 6:
            break
        assert page.input_value("#chat-input") == "the sixth line"
        page.wait_for_timeout(2_000)
    page.wait_for_function("() => document.querySelectorAll('#chat-lines li').length === 6")
    page.wait_for_function("() => document.getElementById('chat-input').value === ''")
    assert page.is_hidden("#chat-error")
    assert not problems, problems
    ctx.close()


def test_a_player_renames_themself_at_the_table(server: ServerProcess, browser: Any) -> None:
    """Jo's *Change name* at the table: "you" and a bot's name are refused in the page's words
    (nothing changes), "Zed" is taken, and a spectator sees it at once."""
    table = you_and_bots(server)
    ctx = context(browser, DESKTOP)
    page, watcher = page_of(ctx), page_of(ctx)
    problems = watch_console(page)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    watcher.goto(f"{server.url}/t/{table['id']}#watch")
    wait_seated(watcher)
    bot = state(page)["table"]["names"][1]
    page.click("#name-btn")
    page.wait_for_selector("#name-input")
    assert page.input_value("#name-input") == "Jo"
    for refused, words in (("you", "“you” is what the page calls each player"), (bot, "another player's name")):
        page.fill("#name-input", refused)
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('name-error').textContent !== ''")
        error = page.inner_text("#name-error")
        assert words in error and "'name'" not in error and "seat 0" not in error, error
        assert state(page)["table"]["names"][0] == "Jo"
        page.evaluate("document.getElementById('name-error').textContent = ''")
    page.fill("#name-input", "Zed")
    page.keyboard.press("Enter")
    page.wait_for_selector("#overlay", state="hidden")
    page.wait_for_function("() => window.heartsState.table.names[0] === 'Zed'")
    assert page.inner_text("#me .name") == "You (Zed)"
    watcher.wait_for_function("() => window.heartsState.table.names[0] === 'Zed'")
    assert "Zed" in watcher.inner_text('#opponents .seat[data-seat="0"] .name')
    assert not problems, problems
    ctx.close()


# ---------------------------------------------------------------- errors in the page's words


def test_errors_name_the_seats_as_the_page_does(server: ServerProcess, browser: Any) -> None:
    """A refusal a player reads counts the seats from 1 as the form does ("Seat 1"), and says
    what is wrong in words ("“You” cannot be a name"), not in the request's field names."""
    bots = [{"kind": "bot", "level": "easy"}] * 3
    status, data = http("POST", server.url + "/api/tables", {"seats": [{"kind": "human", "name": "You"}, *bots]})
    assert status == 400 and data["error"].startswith("Seat 1: “You” cannot be a name"), data
    status, data = http("POST", server.url + "/api/tables",
                        {"seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "ANN"}, *bots[:2]]})
    assert status == 400 and data["error"].startswith("Seats 1 and 2 are both named “Ann”"), data
    status, data = http("POST", server.url + "/api/tables", {"seats": [*bots, {"kind": "bot", "level": "godlike"}]})
    assert status == 400 and data["error"].startswith("Seat 4: bot level 'godlike'"), data
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat-row")
    page.locator(".seat-row").nth(0).locator(".name").fill("You")
    page.click("#create-btn")
    page.wait_for_selector("#toast", state="visible")
    words = page.inner_text("#toast")
    assert words.startswith("Seat 1: “You” cannot be a name"), words
    assert "seat 0" not in words and "'name'" not in words
    assert page.is_hidden("#created") and stored_profile(page) is None  # nothing was made
    ctx.close()


# ---------------------------------------------------------------- the Seats dialog


PHONE_DEVICE = {"device_scale_factor": 3, "is_mobile": True, "has_touch": True}
"""A phone as Playwright emulates one (with the 390×844 viewport: an iPhone 12's screen)."""


def as_creator(ctx: Any, table: dict[str, Any]) -> None:
    """The context's browser is the one that made ``table`` (it keeps the creator key)."""
    key = f"pyhearts:creator:{table['id']}"
    ctx.add_init_script(f"localStorage.setItem({json.dumps(key)}, {json.dumps(table['creator_key'])})")


INSIDE = """(sel) => { const d = document.getElementById('dialog').getBoundingClientRect();
  const e = document.querySelector(sel);
  return [...e.getClientRects()].every(r => r.left >= d.left && r.right <= d.right)
    && document.getElementById('dialog').scrollWidth <= document.getElementById('dialog').clientWidth; }"""
"""Whether the element ``sel`` lies whole inside the dialog, which overflows nothing sideways."""


def test_the_seats_dialog_shows_the_new_link_whole_and_not_the_freed_name(server: ServerProcess, browser: Any) -> None:
    """Ann frees Bob's seat from the Seats dialog, on a desktop and on a phone: the new invite
    link is whole inside the dialog (wrapped, not cut off), and the seat is no longer called
    Bob there (nor in the table's names)."""
    for viewport, options in ((DESKTOP, {}), (PHONE, PHONE_DEVICE)):
        table = create_table(server, [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
                             + [{"kind": "bot", "level": "easy"}] * 2)
        ctx = context(browser, viewport, **options)
        as_creator(ctx, table)
        page = page_of(ctx)
        problems = watch_console(page)
        page.goto(table["seats"][0]["link"])
        wait_seated(page)
        page.click("#seats-btn")
        seat = page.locator('#dialog li[data-seat="1"]')
        assert "Bob" in seat.inner_text()
        page.click('#dialog .free-seat[data-seat="1"]')
        page.wait_for_selector('#dialog a.invite[data-seat="1"]')
        link = page.get_attribute('#dialog a.invite[data-seat="1"]', "href")
        assert page.inner_text('#dialog a.invite[data-seat="1"]') == link
        assert page.evaluate(INSIDE, '#dialog a.invite[data-seat="1"]'), viewport
        page.wait_for_function("() => window.heartsState.table.unnamed.includes(1)")
        assert "Bob" not in seat.inner_text(), seat.inner_text()
        assert seat.inner_text().startswith("Seat 2"), seat.inner_text()
        assert not problems, problems
        ctx.close()


# ---------------------------------------------------------------- a round's summary and its chart


@pytest.fixture(scope="module")
def moon_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    """A table whose first round Luna (seat 0) shoots the moon in (to 100): "+26 to each of the
    others" gives the three bots equal totals, 26 each."""
    db: Path = tmp_path_factory.mktemp("moonpolish") / "tables.db"
    token = secrets.token_urlsafe(18)
    seed_moon_table(db, "moonpolish", token)
    s = ServerProcess(db, bot_delay=0.0).start()
    yield s, token
    s.stop()


TIES = """() => { const at = (s) => { const c = [...document.querySelectorAll(`#dialog .seat-line[data-seat="${s}"] circle`)].pop()
    .getBoundingClientRect(); return [c.x + c.width / 2, c.y + c.height / 2, c.width]; };
  return [0, 1, 2, 3].map(at); }"""
"""Where each seat's last point lies in the dialog's score chart: its centre and its width (px)."""


def test_a_rounds_summary_is_shown_over_the_round_that_ended_and_equal_totals_stay_visible(
    moon_table: tuple[ServerProcess, str], browser: Any
) -> None:
    """Luna shoots the moon and chooses "+26 to each of the others": the round's summary shows
    over the round that ended (no new hand dealt behind it until it closes), and its score chart
    shows the three bots' equal totals as three points and lines, none hidden by another."""
    server, token = moon_table
    ctx = context(browser, DESKTOP, reduced_motion="reduce")
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(f"{server.url}/t/moonpolish#seat=0&token={token}")
    wait_seated(page)
    shoot_the_moon(page)
    page.click("#moon-add")
    page.wait_for_selector("#summary-ok")
    assert page.evaluate("document.body.dataset.round") == "0"
    assert page.locator("#hand .card").count() == 0, "the next hand is drawn behind the summary"
    points = page.evaluate(TIES)
    for a in range(1, 4):
        for b in range(a + 1, 4):
            apart = ((points[a][0] - points[b][0]) ** 2 + (points[a][1] - points[b][1]) ** 2) ** 0.5
            assert apart >= points[a][2] * 0.9, (a, b, points)  # each point shows, beside the others
    page.click("#summary-ok")
    page.wait_for_function("() => document.body.dataset.round === '1'")
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 13")
    assert not problems, problems
    ctx.close()


def test_a_round_played_by_the_bots_ends_with_its_summary_over_that_round(server: ServerProcess, browser: Any) -> None:
    """A round that ends on its last trick (the stand-in bot plays for an away person): its
    summary shows over the round that ended, the next hand dealt only once it is closed."""
    table = create_table(server, [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3,
                         turn_timer=1, stand_in="easy")
    ctx = context(browser, DESKTOP, reduced_motion="reduce")
    page = page_of(ctx)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    page.wait_for_selector("#summary-ok", timeout=60_000)
    assert page.evaluate("document.body.dataset.round") == "0"
    assert page.locator("#hand .card").count() == 0, "the next hand is drawn behind the summary"
    page.click("#summary-ok")
    page.wait_for_function("() => document.body.dataset.round === '1'")
    ctx.close()


# ---------------------------------------------------------------- a phone's pass


ROWS = """() => { const cards = [...document.querySelectorAll('#hand .card')];
  const rows = [...new Set(cards.map(c => c.offsetTop))].sort((a, b) => a - b);
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const out = [];
  for (const c of cards.filter(c => c.classList.contains('selected'))) {
    const row = rows.indexOf(c.offsetTop);
    for (const o of cards.filter(o => rows.indexOf(o.offsetTop) === row - 1))
      if (meets(c.getBoundingClientRect(), o.getBoundingClientRect())) out.push([c.dataset.card, o.dataset.card]);
  }
  return {rows: rows.length, overlaps: out}; }"""
"""The hand's rows, and each card marked to pass that lies over a card of the row above it."""


def test_on_a_phone_cards_marked_to_pass_cover_no_card_of_the_row_above(server: ServerProcess, browser: Any) -> None:
    table = create_table(server, [{"kind": "human", "name": "Jo"}] + [{"kind": "bot", "level": "easy"}] * 3)
    ctx = context(browser, PHONE, **PHONE_DEVICE)
    page = page_of(ctx)
    page.goto(table["seats"][0]["link"])
    assert wait_seated(page)["view"]["must_pass"]
    for card in state(page)["view"]["hand"][-3:]:  # the last row's
        page.click(f'#hand .card[data-card="{card}"]')
    page.evaluate("document.activeElement.blur()")
    found = page.evaluate(ROWS)
    assert found["rows"] >= 2 and not found["overlaps"], found
    ctx.close()


# ---------------------------------------------------------------- a new player's rating


def test_a_new_players_rating_reads_as_a_player_reads_it(server: ServerProcess, browser: Any) -> None:
    """After one rated game lost to three hard bots, OpenSkill's conservative estimate
    (mu − 3σ) is below zero; the profile page and the leaderboard show a rating that is never
    negative, marked provisional, with the games played."""
    status, made = http("POST", server.url + "/api/players", {"name": "Nell"})
    assert status == 201
    seats = [Entrant(player=made["id"])] + [Entrant(level="hard")] * 3
    [(mu, sigma)] = rate(seats, [PlayerRow(made["id"], "Nell", DEFAULT_MU, DEFAULT_SIGMA, 0)], [104, 20, 30, 40])
    assert conservative(mu, sigma) < -0.5  # what the page showed as "-2" (or "-1")
    with sqlite3.connect(server.db) as db:
        db.execute("UPDATE players SET mu = ?, sigma = ?, games = 1 WHERE id = ?", (mu, sigma, made["id"]))
    ctx = context(browser, DESKTOP)
    ctx.add_init_script(f"localStorage.setItem('pyhearts.player', {json.dumps(json.dumps(made))})")
    page = page_of(ctx)
    page.goto(server.url + "/me")
    page.wait_for_selector("#my-rating")
    assert page.inner_text("#my-rating") == "0"
    words = page.inner_text("#profile-rating")
    assert "provisional" in words and "1 rated game" in words and "-" not in page.inner_text("#my-rating"), words
    page.goto(server.url + "/leaderboard")
    row = page.locator("#leaderboard tr.you")
    row.wait_for()
    assert row.locator("td.rating").inner_text() == "0", row.inner_text()
    assert "provisional" in row.inner_text() and "1" in row.locator("td").last.inner_text()
    ctx.close()


# ---------------------------------------------------------------- every page has an <h1>


def heading_one(page: Any, axe: str) -> list[Any]:
    """axe-core's ``page-has-heading-one`` violations of the page as it is (none: it has an
    ``<h1>`` a screen reader finds)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe)
    found: list[Any] = page.evaluate(
        "async () => (await axe.run(document, {runOnly: ['page-has-heading-one']})).violations.map(v => v.id)"
    )
    return found


def test_every_page_has_a_heading_one(server: ServerProcess, browser: Any, axe: str) -> None:
    """The lobby, a table (seated and watching), the profile page, my games, the leaderboard
    and a replay each have one ``<h1>`` (axe-core's ``page-has-heading-one``)."""
    table = you_and_bots(server)
    bots = create_table(server, [{"kind": "bot", "level": "easy"}] * 4, options={"target": 1})
    record(server, bots["id"])  # over: its replay is shown
    pages = {
        "lobby": ("/", "#seats .seat-row"),
        "table": (table["seats"][0]["link"], "#hand .card"),
        "watching": (f"/t/{table['id']}#watch", "#opponents .seat"),
        "profile": ("/me", "#profile-title"),
        "my games": ("/games", "#games-title"),
        "leaderboard": ("/leaderboard", "#leaderboard"),
        "replay": (f"/replay/{bots['id']}", "#replay-title"),
    }
    ctx = context(browser, DESKTOP, bypass_csp=True)  # axe is injected as an inline script
    missing, counts = {}, {}
    for name, (path, ready) in pages.items():
        page = page_of(ctx)
        page.goto(path if path.startswith("http") else server.url + path)
        page.wait_for_selector(ready)
        missing[name] = heading_one(page, axe)
        counts[name] = page.evaluate("[...document.querySelectorAll('h1')].filter(h => !h.closest('[hidden]')).length")
        page.close()
    assert missing == {name: [] for name in pages}, missing
    assert counts == {name: 1 for name in pages}, counts
    ctx.close()
