"""Player profiles, "my games", the leaderboard and the replay viewer in a real browser (Debian's
chromium driven by Playwright).

A first visit to the lobby makes a profile from the name typed in the welcome form; its export
link, opened in a second browser context, imports it there (after confirming). A person plays
a short rated game against three bots by clicking legal cards; the leaderboard then shows the
rating the game gave (bots' anchors unchanged). "My games" lists the game with its result and
opens its replay, which steps through the game with the keyboard showing the cards the record
holds (hands and tricks). Screenshots of the profile, my games, the replay and the leaderboard
(1280×800 and 390×844) go to ``artifacts/``; axe-core finds no serious or critical violation
on any of these pages.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from typing import Any

import pytest
import test_web_browser
import test_web_lively
from test_server_support import ServerProcess, http
from test_web_browser import ARTIFACTS, play_by_clicks, state, wait_seated, watch_console
from test_web_lively import DESKTOP, PHONE, context, page_of, serious

from hearts.game import Game
from hearts.record import GameRecord, from_dict
from hearts.server.ratings import BOT_ANCHORS, DEFAULT_MU

browser = test_web_browser.browser  # the fixtures: Debian's chromium, a server process (no bot delay)
server = test_web_browser.server
axe = test_web_lively.axe


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"history_{name}.png"), full_page=True)


def js_round(x: float) -> int:
    """A number rounded as the page rounds it (``Math.round``: halves up)."""
    return math.floor(x + 0.5)


def stored_profile(page: Any) -> dict[str, Any] | None:
    raw = page.evaluate("localStorage.getItem('pyhearts.player')")
    return None if raw is None else json.loads(raw)  # type: ignore[no-any-return]


def with_profile(browser: Any, viewport: dict[str, int], profile: dict[str, Any], **options: Any) -> Any:
    """A browser context whose pages start with ``profile`` kept in localStorage."""
    ctx = context(browser, viewport, **options)
    ctx.add_init_script(f"localStorage.setItem('pyhearts.player', {json.dumps(json.dumps(profile))})")
    return ctx


def test_a_first_visit_makes_a_profile_and_its_link_takes_it_to_another_browser(server: ServerProcess, browser: Any) -> None:
    first = context(browser, DESKTOP)
    page = page_of(first)
    problems = watch_console(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#welcome-name")
    assert stored_profile(page) is None
    page.fill("#welcome-name", "  Ann  ")
    page.click("#welcome-save")
    page.wait_for_selector(".welcome-done")
    profile = stored_profile(page)
    assert profile is not None and profile["name"] == "Ann" and len(profile["key"]) >= 32
    assert page.inner_text("#nav-me") == "Ann"
    status, me = http("GET", server.url + "/api/me", headers={"Authorization": "Bearer " + profile["key"]})
    assert status == 200 and me["id"] == profile["id"] and me["name"] == "Ann"
    page.reload()
    assert page.locator("#welcome").count() == 0  # made once: no welcome any more

    page.goto(server.url + "/me")
    page.wait_for_selector("#profile-key")
    assert page.input_value("#profile-name") == "Ann" and page.input_value("#profile-key") == profile["key"]
    link = page.input_value("#import-link")
    assert link == f"{server.url}/me#import={profile['key']}"
    assert page.inner_text("#my-rating") == "0"

    # The link in a second browser: it asks, then the profile is this browser's too.
    second = context(browser, DESKTOP)
    other = page_of(second)
    other.goto(server.url + "/")
    other.wait_for_selector("#welcome-name")
    other.click("#welcome-later")  # "Not now": no profile here yet
    assert other.locator("#welcome").count() == 0 and stored_profile(other) is None
    other.goto(link)
    other.wait_for_selector("#import-yes")
    assert other.inner_text(".import-name") == "Ann"
    assert stored_profile(other) is None  # nothing taken before the person says so
    other.click("#import-yes")
    other.wait_for_selector("#profile-key")
    assert stored_profile(other) == profile and "import" not in other.url
    # Renamed there, renamed here.
    other.fill("#profile-name", "Ann B")
    other.click("#rename-btn")
    other.wait_for_selector(".page-message.ok")
    page.reload()
    page.wait_for_selector("#profile-name")
    assert page.input_value("#profile-name") == "Ann B" and page.inner_text("#nav-me") == "Ann B"
    # A link whose key the server does not know imports nothing.
    other.goto(server.url + "/me#import=not-a-key-of-this-server-xxxxxxxxxxxx")
    other.wait_for_selector("#import-box [role=alert]")
    assert "not known" in other.inner_text("#import-box")
    assert stored_profile(other) == {**profile, "name": "Ann B"}
    assert not problems, problems
    first.close()
    second.close()


def test_an_answer_cut_off_never_loses_the_profile_kept_in_this_browser(server: ServerProcess, browser: Any) -> None:
    """The profile page's ``/api/me`` answer arrives cut off (as when a page is left while its
    answer arrives: the profile kept in the browser once lost its name that way, and the next
    page offered to make a new profile): the page says the server did not answer, and the
    profile this browser keeps is whole; once the server answers again, the page shows it."""
    status, made = http("POST", server.url + "/api/players", {"name": "Cut"})
    assert status == 201
    profile = {"id": made["id"], "name": "Cut", "key": made["key"]}
    page = page_of(with_profile(browser, DESKTOP, profile))
    problems = watch_console(page)
    cut = '{"id": "' + profile["id"] + '", "na'
    page.route("**/api/me", lambda route: route.fulfill(status=200, content_type="application/json", body=cut))
    page.goto(server.url + "/me")
    page.wait_for_selector("#profile-page .page-message")  # (after the page asked again, a few seconds)
    assert stored_profile(page) == profile and page.locator("#profile-key").count() == 0
    page.unroute("**/api/me")
    page.reload()
    page.wait_for_selector("#profile-key")
    assert page.input_value("#profile-key") == profile["key"] and stored_profile(page) == profile
    assert problems == [], problems


@pytest.fixture(scope="module")
def rated_game(server: ServerProcess, browser: Any) -> Iterator[tuple[dict[str, Any], str, GameRecord]]:
    """A rated game played in the browser by clicks: Pia (a profile made here) against three
    bots, no passing, to 10 points. Yields the profile, the table id and the record."""
    status, profile = http("POST", server.url + "/api/players", {"name": "Pia"})
    assert status == 201
    ctx = with_profile(browser, DESKTOP, profile)
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.fill("#opt-target", "10")
    page.click("#options-summary")  # the rule options
    page.fill("#opt-pass_count", "0")
    page.check("#rated")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    page.click("#sit")
    wait_seated(page)
    table_id = state(page)["table"]["id"]
    play_by_clicks(page, lambda: bool(state(page)["view"]["game_over"]))
    status, data = http("GET", f"{server.url}/api/tables/{table_id}/record")
    assert status == 200
    record = from_dict(data)
    assert isinstance(record, GameRecord) and record.seats[0].name == "Pia"
    assert not problems, problems
    ctx.close()
    yield profile, table_id, record


def test_a_rated_game_changes_the_rating_on_the_leaderboard(
    server: ServerProcess, browser: Any, rated_game: tuple[dict[str, Any], str, GameRecord]
) -> None:
    profile, _, _ = rated_game
    auth = {"Authorization": "Bearer " + profile["key"]}
    deadline = time.monotonic() + 20
    while (me := http("GET", server.url + "/api/me", headers=auth)[1])["rating"]["games"] != 1:
        assert time.monotonic() < deadline, "the game was not rated"
        time.sleep(0.2)
    assert me["rating"]["mu"] != pytest.approx(DEFAULT_MU)
    ctx = with_profile(browser, DESKTOP, profile)
    page = page_of(ctx)
    page.goto(server.url + "/leaderboard")
    page.wait_for_selector("#leaderboard tr.you")
    row = page.locator("#leaderboard tr.you")
    cells = [c.strip() for c in row.locator("th, td").all_inner_texts()]
    assert cells[1] == "Pia (you)" and cells[2] == str(max(0, js_round(me["rating"]["rating"])))
    assert cells[3] == "1 · provisional" and me["rating"]["shown"] == int(cells[2])
    bots = {r.get_attribute("data-bot"): r.locator("td.rating").inner_text() for r in page.locator("#leaderboard tr.bot").all()}
    assert bots == {level: str(js_round(mu - 3)) for level, mu in BOT_ANCHORS.items()}  # the anchors: fixed
    ratings = [int(x) for x in page.locator("#leaderboard td.rating").all_inner_texts()]
    assert ratings == sorted(ratings, reverse=True)
    ctx.close()


def frame_cards(page: Any) -> tuple[list[list[str]], list[str]]:
    """The hands (by seat) and the trick's cards (in play order) the replay shows."""
    hands = page.evaluate(
        "() => [...document.querySelectorAll('.replay-hand')].sort((a, b) => a.dataset.seat - b.dataset.seat)"
        ".map(h => [...h.querySelectorAll('.replay-card')].map(c => c.dataset.card))"
    )
    trick = page.evaluate("() => [...document.querySelectorAll('#replay-trick figure')].map(f => f.dataset.card)")
    return hands, trick


def test_my_games_open_the_replay_which_steps_through_the_record_by_keyboard(
    server: ServerProcess, browser: Any, rated_game: tuple[dict[str, Any], str, GameRecord]
) -> None:
    profile, table_id, record = rated_game
    ctx = with_profile(browser, DESKTOP, profile)
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(server.url + "/games")
    item = page.locator(f'#game-list li.game[data-table="{table_id}"]')
    item.wait_for()
    game = record.game
    place = 1 + sum(t < game.totals[0] for t in game.totals)
    text = item.inner_text()
    assert "finished · rated" in text.lower() and f"with {game.totals[0]} point" in text
    assert ("You won" in text) == (place == 1)
    item.locator("a.replay-link").click()
    page.wait_for_url(f"**/replay/{table_id}")
    page.wait_for_selector(".replay-hand")

    # The deal, then trick by trick (↓), then card by card (→), as the engine replays the record.
    check = Game(game.rules, game.seed)
    r = check.round
    hands, trick = frame_cards(page)
    assert hands == [[str(c) for c in r.hand(s).sorted_by_suit()] for s in range(4)] and trick == []
    page.keyboard.press("ArrowDown")
    for action in game.history[:4]:
        check.apply(action)
    first = [str(c) for c in r.tricks[0].cards]
    hands, trick = frame_cards(page)
    assert trick == first and hands == [[str(c) for c in r.hand(s).sorted_by_suit()] for s in range(4)]
    assert page.locator("#replay-trick figure.win").get_attribute("data-seat") == str(r.tricks[0].winner)
    for k in range(4):
        page.keyboard.press("ArrowRight")
        check.apply(game.history[4 + k])
        hands, trick = frame_cards(page)
        assert trick == [str(c) for c in (r.tricks[1].cards if k == 3 else r.current_trick.cards)]
        assert hands == [[str(c) for c in r.hand(s).sorted_by_suit()] for s in range(4)]
    assert page.inner_text("#replay-where").startswith("Step 8 of ")
    page.keyboard.press("ArrowUp")
    assert frame_cards(page)[1] == first
    page.keyboard.press("ArrowLeft")
    assert frame_cards(page)[1] == first[:3]
    page.keyboard.press("End")
    hands, trick = frame_cards(page)
    assert hands == [[] for _ in range(4)] and len(trick) == 4
    sheet = page.locator("#replay-sheet tbody tr").last.locator("td").all_inner_texts()
    assert [int(c.split()[0]) for c in sheet] == game.totals
    page.keyboard.press("Home")
    assert page.evaluate("document.body.dataset.frame") == "0"
    assert not problems, problems
    ctx.close()

    # Before its end, a game has no replay (R7): the viewer says so.
    status, table = http("POST", server.url + "/api/tables", {"seats": [{"kind": "human"}, *[{"kind": "bot"}] * 3]})
    assert status == 201
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    page.goto(f"{server.url}/replay/{table['id']}")
    page.wait_for_selector(".replay-error")
    assert "not over" in page.inner_text(".replay-error")
    ctx.close()


def test_the_pages_on_desktop_and_phone_with_no_serious_accessibility_violation(
    server: ServerProcess, browser: Any, axe: str, rated_game: tuple[dict[str, Any], str, GameRecord]
) -> None:
    profile, table_id, _ = rated_game
    pages = {
        "profile": ("/me", "#profile-key"),
        "games": ("/games", "#game-list"),
        "replay": (f"/replay/{table_id}", ".replay-hand"),
        "leaderboard": ("/leaderboard", "#leaderboard"),
    }
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        ctx = with_profile(browser, viewport, profile, bypass_csp=True)  # axe is injected as an inline script
        page = page_of(ctx)
        for name, (path, ready) in pages.items():
            page.goto(server.url + path)
            page.wait_for_selector(ready)
            if name == "replay":
                page.keyboard.press("ArrowDown")
                page.keyboard.press("ArrowRight")
            shot(page, f"{name}_{size}")
            assert serious(page, axe) == [], (name, size)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"] + 1, (name, size, width)  # nothing wider than the screen
        ctx.close()
