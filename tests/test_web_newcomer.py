"""What a new user tripped on at the web table (issue 27), in a real browser (Debian's chromium
driven by Playwright): the game-over dialog's "who took what" is the game's last round (the
moon shooter's too, and after a reload); a spectator is never stopped by a round's summary
and sees the final result; a person without a profile is asked for a name, never called "You"
by the others; an invite link leaves the address bar, and the table's creator can give a seat
a new link; a bot's name and level fit on a phone, and the last trick's note lies on no card.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_web_browser
from test_server_support import ServerProcess, create_table
from test_web_browser import (
    ARTIFACTS,
    seed_moon_table,
    shoot_the_moon,
    state,
    wait_seated,
    watch_console,
)
from test_web_lively import DESKTOP, code, context, page_of, point_cards, record

from hearts.record import GameRecord

browser = test_web_browser.browser  # the fixtures: Debian's chromium, a server process (no bot delay)
server = test_web_browser.server


def last_round_rows(page: Any) -> list[tuple[set[str], int, int, int]]:
    """The game-over dialog's last round: each seat's point cards, points, score and total."""
    rows = []
    details = page.locator("#dialog details.last-round")
    for seat in range(4):
        row = details.locator(f'table.round tr[data-seat="{seat}"]')
        took = {code(t) for t in row.locator(".took .chip").all_inner_texts()}
        points, score, total = (int(x) for x in row.locator("td").all_inner_texts()[1:])
        rows.append((took, points, score, total))
    return rows


def expected_last_round(game: GameRecord, cards: bool = True) -> list[tuple[set[str], int, int, int]]:
    """What :func:`last_round_rows` should read for the record's game."""
    g = game.game
    last = g.rounds[len(g.results) - 1]
    result = last.result
    assert result is not None
    jack = bool(g.rules.jack_of_diamonds)
    return [
        (point_cards(last.won_cards(s), jack) if cards else set(), result.points[s], result.scores[s], g.totals[s])
        for s in range(4)
    ]


# ---------------------------------------------------------------- item 1: the last round, at the end


@pytest.fixture(scope="module")
def moon_end(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    """A table whose first round Luna (seat 0) can shoot the moon in, to 26 points: "+26 to
    each of the others" ends the game in that round."""
    db: Path = tmp_path_factory.mktemp("moonend") / "tables.db"
    token = secrets.token_urlsafe(18)
    seed_moon_table(db, "moonend", token, target=26)
    s = ServerProcess(db, bot_delay=0.0).start()
    yield s, token
    s.stop()



def test_the_moon_shooters_game_over_shows_the_round_that_ended_it(
    moon_end: tuple[ServerProcess, str], browser: Any
) -> None:
    """The shooter's "+26 to each of the others" ends the game: its dialog shows round 1,
    who took what (every point card Luna's) and how the moon scored — also after a reload."""
    server, token = moon_end
    ctx = context(browser, DESKTOP, reduced_motion="reduce")
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(f"{server.url}/t/moonend#seat=0&token={token}")
    wait_seated(page)
    shoot_the_moon(page)
    page.click("#moon-add")
    page.wait_for_selector("#gameover-ok")
    game = record(server, "moonend")
    assert len(game.game.results) == 1
    expected = expected_last_round(game)
    assert len(expected[0][0]) == 14  # every heart and the Q♠: Luna's
    for p in (page, None):
        if p is None:  # opened again after the end: the last round from the final state
            page.reload()
            page.wait_for_selector("#gameover-ok")
        summary = page.locator("#dialog details.last-round summary")
        assert summary.inner_text() == "Round 1: who took what"
        summary.click()
        assert "Luna shot the moon!" in page.inner_text("#dialog details.last-round")
        assert last_round_rows(page) == expected
    assert not problems, problems
    ctx.close()


# ---------------------------------------------------------------- item 3: a spectator is never stopped


@pytest.fixture(scope="module")
def paced_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Bots that pause 0.1 s a move: a round lasts about 6 s, so a page that opens as the table
    starts meets its first round (with no pause, four bots may finish it before the page has
    connected, and the spectator then sees no summary at all)."""
    s = ServerProcess(tmp_path_factory.mktemp("paced") / "tables.db", bot_delay=0.1).start()
    yield s
    s.stop()


def test_a_spectator_is_never_stopped_by_a_summary_and_sees_the_final_result(paced_server: ServerProcess, browser: Any) -> None:
    """Four bots to 27 points (two rounds at least): a spectator who clicks nothing sees each
    round's summary close by itself, follows the game to its end, and the game-over dialog
    shows the final totals and the last round — the record's, not the one before."""
    server = paced_server
    table = create_table(server, [{"kind": "bot", "level": "easy"}] * 4, options={"target": 27})
    ctx = context(browser, DESKTOP, reduced_motion="reduce")
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(f"{server.url}/t/{table['id']}#watch")
    wait_seated(page)
    summaries: set[str] = set()
    deadline = time.monotonic() + 170
    while not page.is_visible("#gameover-ok"):
        assert time.monotonic() < deadline, f"the spectator's page did not reach the game's end (summaries: {summaries})"
        if page.get_attribute("#dialog", "data-kind") == "summary":
            summaries.add(page.inner_text("#dialog-title"))
            assert "s)" in page.inner_text("#summary-ok")  # "Next round (5 s)": it closes by itself
        page.wait_for_timeout(200)
    game = record(server, table["id"])
    rounds = len(game.game.results)
    assert rounds >= 2
    assert summaries and summaries <= {f"Round {r} over" for r in range(1, rounds)}
    standings = page.locator("#dialog .standings li b").all_inner_texts()
    assert sorted(int(x) for x in standings) == sorted(game.game.totals)
    summary = page.locator("#dialog details.last-round summary")
    assert summary.inner_text() == f"Round {rounds}: who took what"
    summary.click()
    assert last_round_rows(page) == expected_last_round(game)
    assert not problems, problems
    ctx.close()


# ---------------------------------------------------------------- item 2: a person without a profile


def test_play_now_and_the_form_without_a_profile_ask_for_a_name_never_you(server: ServerProcess, browser: Any) -> None:
    """A browser with no profile and no name: *Play now* opens the table with the name dialog
    (nobody is "You" on the server, "You" stays the page's word for oneself); the name typed
    is everyone's at once. The form's first seat is not prefilled "You": made so, its link says
    "Sit down →", and the lobby lists the seat as "Player 1", never "You"."""
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#play-level option", state="attached")
    page.click("#play-now")
    page.wait_for_selector("#name-input")
    st = state(page)
    assert st["table"]["unnamed"] == [0] and "You" not in st["table"]["names"]
    assert page.input_value("#name-input") == ""
    assert page.inner_text("#me .name") == "You"
    page.fill("#name-input", "Kim")
    page.keyboard.press("Enter")
    page.wait_for_selector("#overlay", state="hidden")
    page.wait_for_function("() => window.heartsState.table.names[0] === 'Kim'")
    assert page.inner_text("#me .name") == "You (Kim)"
    ctx.close()
    ctx = context(browser, DESKTOP)  # another newcomer, by the form
    page = page_of(ctx)
    problems += watch_console(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat-row")
    assert page.input_value("#seats .seat-row .name") == ""
    page.select_option('#seats .seat-row:nth-child(2) .kind', "open")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    assert page.inner_text("#sit") == "Sit down →"
    table_id = page.get_attribute("#created a.invite", "href").split("/t/")[1].split("#")[0]
    page.click("#refresh")
    row = page.locator(f'#open-tables li[data-table="{table_id}"]')
    row.wait_for()
    assert "Player 1, (free)" in row.inner_text() and "You" not in row.inner_text()
    assert not problems, problems
    ctx.close()


# ---------------------------------------------------------------- item 4: invite links


def test_an_invite_link_leaves_the_address_bar_and_the_creator_frees_a_seat(server: ServerProcess, browser: Any) -> None:
    """Ann makes a table by the form for herself and Bob: each invite link, once opened, is
    out of the address bar (in the browser's storage: a reload keeps the seat). Ann, its
    creator, frees Bob's seat from the *Seats* dialog: Bob's page says why it is shut out (and
    a reload does not seat him again), and the new link seats a newcomer, asked for a name.
    Bob, not the creator, has no *Seats* button."""
    ann_ctx, bob_ctx, new_ctx = (context(browser, DESKTOP) for _ in range(3))
    ann, bob, newcomer = page_of(ann_ctx), page_of(bob_ctx), page_of(new_ctx)
    problems = watch_console(ann) + watch_console(newcomer)
    ann.goto(server.url + "/")
    ann.wait_for_selector("#seats .seat-row")
    ann.locator(".seat-row").nth(0).locator(".name").fill("Ann")
    ann.locator(".seat-row").nth(1).locator(".kind").select_option("human")
    ann.locator(".seat-row").nth(1).locator(".name").fill("Bob")
    ann.click("#create-btn")
    ann.wait_for_selector("#sit")
    bob_link = ann.get_attribute('#created a.invite[data-seat="1"]', "href")
    table_id = bob_link.split("/t/")[1].split("#")[0]
    ann.click("#sit")
    wait_seated(ann)
    bob.goto(bob_link)
    assert wait_seated(bob)["you"] == 1
    for page in (ann, bob):
        assert page.url == f"{server.url}/t/{table_id}", page.url  # no token in the address bar
    bob.reload()
    assert wait_seated(bob)["you"] == 1 and bob.url.endswith(f"/t/{table_id}")
    assert bob.is_hidden("#seats-btn")
    # Ann frees Bob's seat.
    ann.click("#seats-btn")
    assert ann.locator("#dialog .free-seat").count() == 1  # Bob's seat only: not her own
    ann.click('#dialog .free-seat[data-seat="1"]')
    ann.wait_for_selector('#dialog a.invite[data-seat="1"]')
    new_link = ann.get_attribute('#dialog a.invite[data-seat="1"]', "href")
    assert new_link != bob_link and "token=" in new_link
    bob.wait_for_function("() => document.getElementById('prompt').textContent.includes('new invite link')")
    assert bob.inner_text("#conn") == "not connected"
    bob.reload()
    bob.wait_for_function("() => document.getElementById('prompt').textContent.includes('You have no seat')")
    ann.click("#seats-ok")
    ann.wait_for_function("() => window.heartsState.table.unnamed.includes(1)")
    newcomer.goto(new_link)
    newcomer.wait_for_selector("#name-input")
    assert state(newcomer)["you"] == 1 and "token" not in newcomer.url
    newcomer.fill("#name-input", "Cleo")
    newcomer.keyboard.press("Enter")
    ann.wait_for_function("() => window.heartsState.table.names[1] === 'Cleo'")
    assert not problems, problems
    for ctx in (ann_ctx, bob_ctx, new_ctx):
        ctx.close()


# ---------------------------------------------------------------- item 6: a phone's table


PHONE_DEVICE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
"""A phone as Playwright emulates one (an iPhone 12's screen)."""


def whole(page: Any, selector: str) -> list[dict[str, Any]]:
    """Each element of ``selector``: its text, and whether it is whole (nothing cut off) and on screen."""
    found: list[dict[str, Any]] = page.evaluate(
        f"[...document.querySelectorAll({selector!r})].map(e => {{ const b = e.getBoundingClientRect();"
        " return {text: e.textContent, whole: e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight,"
        " inside: b.left >= 0 && b.right <= innerWidth}; })"
    )
    return found


def test_a_bots_name_and_level_fit_on_a_phone(server: ServerProcess, browser: Any) -> None:
    """On a phone, every seat's label — a bot's name and level, "Eli (medium)" — is whole."""
    bots = [{"kind": "bot", "level": "medium", "name": "Eli"}, {"kind": "bot", "level": "expert", "name": "Ada"},
            {"kind": "bot", "level": "medium"}]
    table = create_table(server, [{"kind": "human", "name": "Jo"}, *bots])
    ctx = context(browser, PHONE_DEVICE["viewport"], **{k: v for k, v in PHONE_DEVICE.items() if k != "viewport"})
    page = page_of(ctx)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    labels = whole(page, "#opponents .seat .name")
    assert {x["text"] for x in labels} >= {"Eli (medium)", "Ada (expert)"} and len(labels) == 3
    for label in labels:
        assert label["whole"] and label["inside"], label
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "newcomer_phone_labels.png"))
    ctx.close()


NOTE_WATCH = """() => { window.noteOverlaps = [];
  const seen = (e) => getComputedStyle(e).visibility !== "hidden";
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const frame = () => {
    const note = document.getElementById("trick-note"), n = note.getBoundingClientRect();
    if (note.textContent && seen(note)) {
      for (const e of document.querySelectorAll("#trick figure img, #trick figure figcaption, #trick .ghost")) {
        if (seen(e) && meets(n, e.getBoundingClientRect())) window.noteOverlaps.push([note.textContent, e.className || e.tagName]);
      }
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}"""
"""Watches every frame for a card (lying in the trick, or moving) over the note under the trick."""


def test_the_last_tricks_note_lies_under_no_card(server: ServerProcess, browser: Any) -> None:
    """The note under the trick ("Last trick: you took …", "Ann leads", "you take it") is never
    covered by a card while it shows — one lying in the trick, its caption, or one moving (mine
    flying from the hand, a trick going to its winner) — on a phone and on a desktop, over
    several tricks with the cards' movements on."""
    from test_web_browser import play_by_clicks

    phone = {k: v for k, v in PHONE_DEVICE.items() if k != "viewport"}
    for viewport, options in ((PHONE_DEVICE["viewport"], phone), (DESKTOP, {})):
        table = create_table(server, [{"kind": "human", "name": "Jo"}] + [{"kind": "bot", "level": "easy"}] * 3)
        ctx = context(browser, viewport, **options)
        page = page_of(ctx)
        page.goto(table["seats"][0]["link"])
        wait_seated(page)
        page.evaluate(NOTE_WATCH)
        play_by_clicks(page, lambda p=page: state(p)["view"]["round_number"] > 0 or len(state(p)["view"]["hand"]) <= 7)
        tricks = page.evaluate("(window.heartsTricks || []).length")
        overlaps = page.evaluate("window.noteOverlaps")
        assert tricks >= 5 and not overlaps, (viewport, overlaps[:5])
        ctx.close()
