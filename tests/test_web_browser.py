"""The web table in a real browser (Debian's chromium driven by Playwright's Python API).

A person plays a whole round against three bots by clicks; two browser contexts join the same
table by invite link and see each other's plays; a reload mid-round restores the hand; the
page fits a phone; the others sit around the trick (left, across, right) and each card of the
trick lies on the side of the seat that played it; a person who shoots the moon under
``shooter_chooses`` is asked, and the choice is scored; a spectator (no seat) follows the
trick from the public view only, every seat around the table and no hand (R7). Screenshots go to
``artifacts/``.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from hearts import CardSet, Game, Rules
from hearts.actions import Pass

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")

from helpers import SHOOTER_HANDS  # noqa: E402
from test_server_store_support import with_store  # noqa: E402
from test_server_support import ServerProcess, create_table, http  # noqa: E402

from hearts.server.storage import Storage, hash_token  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
TIMEOUT = 15_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(tmp_path_factory.mktemp("web") / "tables.db", bot_delay=0.0).start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=60_000)
        yield b
        b.close()


def state(page: Any) -> dict[str, Any]:
    st: dict[str, Any] = page.evaluate("window.heartsState")
    return st


def wait_seated(page: Any) -> dict[str, Any]:
    page.wait_for_function("() => window.heartsState && document.body.dataset.connected === 'true'", timeout=TIMEOUT)
    return state(page)


def act_by_clicks(page: Any) -> bool:
    """If it is this page's turn, pass (three clicks and the button) or play a highlighted card."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # only where a page exists

    def click(selector: str) -> bool:
        """Click unless a round's summary (shown once its last trick was seen, maybe just now)
        covers the table: then the caller closes it first."""
        try:
            page.click(selector, timeout=3_000)
        except PlaywrightTimeout:
            if page.is_visible("#overlay"):
                return False
            raise
        return True

    st = state(page)
    v = st["view"]
    if page.is_visible("#overlay") or not (v["must_pass"] or (v["to_move"] == v["seat"] and v["legal"])):
        return False
    if v["must_pass"]:
        for card in v["hand"][-v["pass_count"]:]:
            selector = f'#hand .card[data-card="{card}"]'
            if page.get_attribute(selector, "aria-pressed") != "true" and not click(selector):
                return False  # chosen cards stay chosen: the next call picks the same ones
        assert page.is_enabled("#pass-btn")
        if not click("#pass-btn"):
            return False
        page.wait_for_function("() => !window.heartsState.view.must_pass", timeout=TIMEOUT)
        return True
    legal = page.locator("#hand .card.legal")
    assert legal.count() == len(v["legal"])
    assert page.locator("#hand .card.dim").count() == len(v["hand"]) - len(v["legal"])
    card = legal.first.get_attribute("data-card")
    if not click(f'#hand .card[data-card="{card}"]'):
        return False
    # The play is accepted when the card has left the hand, or the round it ended is over and
    # a new hand has been dealt (which may hold the same card again).
    page.wait_for_function(
        f"() => window.heartsState.view.round_number !== {v['round_number']}"
        f" || !window.heartsState.view.hand.includes('{card}')",
        timeout=TIMEOUT,
    )
    after = state(page)["view"]
    assert after["round_number"] != v["round_number"] or card not in after["hand"]
    return True


def play_by_clicks(page: Any, done: Callable[[], bool], actions: int | None = None, timeout: float = 180) -> int:
    """Play this page's turns by clicks (:func:`act_by_clicks`) until ``done()`` or, with
    ``actions``, until that many were taken, closing the summary of a round that did not end
    the game (R5: a tie for the lowest total plays on). The number of actions taken."""
    deadline, taken = time.monotonic() + timeout, 0
    while not done() and (actions is None or taken < actions):
        assert time.monotonic() < deadline, "the game did not get there in time"
        if page.is_visible("#summary-ok"):
            page.click("#summary-ok")
        elif act_by_clicks(page):
            taken += 1
        else:
            page.wait_for_timeout(50)
    return taken


Box = dict[str, float]
# Where seat (me + k) sits for 4 players (k = 1, 2, 3): clockwise, so on my left, across, right.
PLACES = {1: "left", 2: "top", 3: "right"}


def box(page: Any, selector: str) -> Box:
    b: Box | None = page.locator(selector).bounding_box()
    assert b is not None, selector
    return b


def boxes(page: Any, selector: str) -> list[tuple[Box, dict[str, str]]]:
    """Each element's box and ``data-`` attributes, all read in one turn of the page's script:
    a redraw (an event that came meanwhile) cannot take one away between two reads."""
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        selector, "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [{x: r.x, y: r.y, width: r.width, height: r.height}, {...e.dataset}]; })"
    )


def overlap(a: Box, b: Box) -> bool:
    return (
        a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]
    )


def check_table_layout(page: Any) -> None:
    """Four players: the others on my left, across and on my right of the trick, each card of
    the trick on the side of the seat that played it (mine below), and nothing on top of a seat."""
    st = state(page)
    me, n = st["you"], st["view"]["players"]
    assert n == 4
    trick = box(page, "#trick")
    cx, cy = trick["x"] + trick["width"] / 2, trick["y"] + trick["height"] / 2
    seats: dict[int, Box] = {}
    for k, place in PLACES.items():
        seat = (me + k) % n
        sel = f'#opponents .seat[data-seat="{seat}"]'
        assert page.get_attribute(sel, "data-pos") == place
        b = seats[seat] = box(page, sel)
        assert_beside(b, place, trick)
        if place == "top":
            assert b["x"] < cx < b["x"] + b["width"]
    mine = box(page, "#me")
    assert mine["y"] >= cy and mine["x"] < cx < mine["x"] + mine["width"]
    check_trick_sides(page, trick, bottom=me, players=n, avoid=[*seats.values(), mine])


def assert_beside(b: Box, place: str, trick: Box) -> None:
    """A seat's box lies wholly on its side (``left``, ``right``, ``top``, ``bottom``) of the trick."""
    if place == "left":
        assert b["x"] + b["width"] <= trick["x"]
    elif place == "right":
        assert b["x"] >= trick["x"] + trick["width"]
    elif place == "top":
        assert b["y"] + b["height"] <= trick["y"]
    else:
        assert b["y"] >= trick["y"] + trick["height"]


def check_trick_sides(page: Any, trick: Box, bottom: int, players: int, avoid: Sequence[Box] = ()) -> None:
    """Each card of the trick lies on the side of the seat that played it (seat ``bottom`` below,
    the next one on the left, …), and on none of the ``avoid`` boxes."""
    cx, cy = trick["x"] + trick["width"] / 2, trick["y"] + trick["height"] / 2
    for b, data in boxes(page, "#trick figure"):
        fx, fy = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
        k = (int(data["seat"]) - bottom) % players
        assert {0: fy > cy, 1: fx < cx, 2: fy < cy, 3: fx > cx}[k], (k, b, trick)
        for other in avoid:
            assert not overlap(b, other), (data.get("card"), other)


def test_a_person_plays_a_round_against_three_bots(server: ServerProcess, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1100, "height": 850})
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.select_option("#preset", "omnibus")
    page.fill("#opt-target", "100")
    page.locator(".seat-row").nth(0).locator(".name").fill("Pat")  # (no name: the table asks for one)
    for i in (1, 2, 3):
        page.locator(".seat-row").nth(i).locator(".level").select_option("easy")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    assert page.locator(".invite").count() == 1
    assert page.is_checked("#allow-spectators")  # the default: a public link to watch
    assert page.get_attribute("#created .watch-link", "href").endswith("#watch")
    page.click("#sit")
    st = wait_seated(page)
    assert st["you"] == 0 and st["view"]["rules"]["jack_of_diamonds"] == -10
    # The hand is drawn as card images, sorted by suit; the other three seats are shown.
    imgs = page.locator("#hand .card img")
    assert imgs.count() == 13 and imgs.first.get_attribute("src").startswith("/cards/")
    assert page.locator("#opponents .seat").count() == 3
    assert "left" in page.inner_text("#info")
    shot = False
    for _ in range(400):
        page.wait_for_function(  # my turn, or the round's summary (shown over the round that ended)
            "() => document.body.dataset.myturn === 'true' || document.body.dataset.round !== '0'"
            " || document.getElementById('dialog').dataset.kind === 'summary'", timeout=TIMEOUT
        )
        if page.evaluate("document.body.dataset.round !== '0' || document.getElementById('dialog').dataset.kind === 'summary'"):
            break
        act_by_clicks(page)
        if not shot and len(state(page)["view"]["hand"]) == 8:
            check_table_layout(page)
            page.screenshot(path=str(ARTIFACTS / "web_table.png"))
            shot = True
    else:
        pytest.fail("the round did not end")
    # The round summary, then the next round's pass.
    page.wait_for_selector("#summary-ok", timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / "web_round_summary.png"))
    summary = page.inner_text("#dialog")
    assert "Round 1 over" in summary
    assert page.evaluate("document.body.dataset.round") == "0"  # the next deal waits for the summary
    page.click("#summary-ok")
    page.wait_for_function("() => document.body.dataset.round === '1'")
    st = state(page)
    assert sum(st["table"]["results"][0]["points"]) == 26
    assert len(st["table"]["score_history"]) == 1
    assert "right" in page.inner_text("#info")
    assert shot and (ARTIFACTS / "web_table.png").stat().st_size > 10_000
    page.close()


def test_the_lobby_form_is_made_from_the_option_specs(server: ServerProcess, browser: Any) -> None:
    """Every rule option in words (its label, its help and rule number as a hint), a checkbox
    for a yes/no, readable choices, number fields with their range: no raw option name and no
    true/false menu; the options chosen are the created table's rules (docs/rules.md R3.7, R4.4)."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/")
    page.wait_for_selector("#opt-lead_hearts_instead_of_queen", state="attached")
    page.click("#options-summary")
    form = page.inner_text("#create-form")
    for spec in Rules.options():
        assert spec.label in form and ("_" not in spec.name or spec.name not in form), spec.name
        label = page.locator(f'label:has(#opt-{spec.name})')
        assert spec.rule in (label.get_attribute("title") or "") and spec.help in label.get_attribute("title")
        control = page.locator(f"#opt-{spec.name}")
        if spec.kind == "bool":
            assert control.get_attribute("type") == "checkbox"
        elif spec.kind == "int":
            assert control.get_attribute("type") == "number"
            assert (control.get_attribute("min"), control.get_attribute("max")) == (str(spec.low), str(spec.high))
        elif spec.kind == "choice":
            texts = control.locator("option").all_inner_texts()
            assert texts == [c.replace("_", " ") for c in spec.choices]
    assert "Hearts instead of the Q♠" in page.inner_text('label:has(#opt-lead_hearts_instead_of_queen)')
    menus = page.locator("#create-form select option").all_inner_texts()
    assert not {"true", "false"} & set(menus) and not any("_" in t for t in menus)
    # The preset's values are shown, and what is changed is what the table plays by.
    page.select_option("#preset", "omnibus")
    assert page.input_value("#opt-jack_of_diamonds") == "-10"
    page.check("#opt-lead_hearts_instead_of_queen")
    page.select_option("#opt-moon", label="shooter chooses")
    page.fill("#opt-target", "75")
    page.fill("#opt-pass_cycle", "left, hold")
    page.locator(".seat-row").nth(0).locator(".name").fill("Pat")
    for i in (1, 2, 3):
        page.locator(".seat-row").nth(i).locator(".level").select_option("easy")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    page.click("#sit")
    rules = wait_seated(page)["view"]["rules"]
    assert Rules.from_dict(rules) == Rules.preset(
        "omnibus", lead_hearts_instead_of_queen=True, moon="shooter_chooses", target=75, pass_cycle=["left", "hold"]
    )
    # A setting the rules refuse is refused with its rule's number, and no table is made.
    page.goto(server.url + "/")
    page.wait_for_selector("#opt-pass_count", state="attached")
    page.click("#options-summary")
    page.fill("#opt-pass_cycle", "sideways")
    page.click("#create-btn")
    page.wait_for_selector("#toast:not([hidden])")
    assert "R2.2" in page.inner_text("#toast") and page.is_hidden("#created")
    page.close()


def wait_for_a_turn(pages: tuple[Any, ...], seconds: float) -> None:
    """Wait until one of ``pages`` shows its seat's turn (whichever comes: after the bots' plays
    the turn may be either person's)."""
    deadline = time.monotonic() + seconds
    while not any(p.evaluate("document.body.dataset.myturn === 'true'") for p in pages):
        assert time.monotonic() < deadline, "no person's turn came"
        time.sleep(0.05)


def test_two_browsers_by_invite_link_see_each_others_plays_and_reload_restores(
    server: ServerProcess, browser: Any
) -> None:
    table = create_table(
        server,
        [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}, {"kind": "bot", "level": "easy"},
         {"kind": "bot", "level": "medium"}],
    )
    ctx_a, ctx_b = browser.new_context(), browser.new_context()
    a, b = ctx_a.new_page(), ctx_b.new_page()
    a.set_default_timeout(TIMEOUT)
    b.set_default_timeout(TIMEOUT)
    a.goto(table["seats"][0]["link"])
    b.goto(table["seats"][1]["link"])
    sa, sb = wait_seated(a), wait_seated(b)
    assert (sa["you"], sb["you"]) == (0, 1)
    assert set(sa["view"]["hand"]).isdisjoint(sb["view"]["hand"])
    assert "Bob" in a.inner_text("#opponents") and "Ann" in b.inner_text("#opponents")
    # Play until each has made a couple of plays; each sees the other's plays.
    plays = {0: [], 1: []}  # type: dict[int, list[str]]
    reloaded = False
    for _ in range(200):
        if min(len(plays[0]), len(plays[1])) >= 3:
            break
        moved = False
        for seat, page in ((0, a), (1, b)):
            before = set(state(page)["view"]["hand"])
            if act_by_clicks(page):
                moved = True
                after = set(state(page)["view"]["hand"])
                if state(page)["view"]["phase"] != "passing" and len(before - after) == 1 and len(after) < 13:
                    plays[seat].append(next(iter(before - after)))
        if not reloaded and len(plays[0]) >= 1:
            # Reload mid-round: the same seat, the same hand.
            hand = [x.get_attribute("data-card") for x in b.locator("#hand .card").all()]
            b.reload()
            st = wait_seated(b)
            assert st["you"] == 1
            assert [x.get_attribute("data-card") for x in b.locator("#hand .card").all()] == st["view"]["hand"]
            assert st["view"]["hand"] == hand or len(st["view"]["hand"]) == len(hand) - 1
            # Without the fragment, the token kept in this browser opens the same seat.
            b.goto(f"{server.url}/t/{table['id']}")
            assert wait_seated(b)["you"] == 1
            reloaded = True
        if not moved:  # the bots' turn: a bot pool's first decision may take a while (a process starts)
            wait_for_a_turn((a, b), 4 * TIMEOUT / 1000)
    assert min(len(plays[0]), len(plays[1])) >= 3 and reloaded
    for seat, page in ((1, a), (0, b)):  # the other's plays arrived, as events, from the server
        page.wait_for_function(
            f"() => (window.heartsLog || []).filter(e => e.type === 'play' && e.seat === {seat}).length >= 1",
            timeout=TIMEOUT,
        )
        seen = page.evaluate(f"(window.heartsLog || []).filter(e => e.type === 'play' && e.seat === {seat}).map(e => e.card)")
        assert set(seen) <= set(plays[seat]) and seen
    # The opponent's card count on screen is the server's.
    count = a.locator('#opponents .seat[data-seat="1"] [data-count]').get_attribute("data-count")
    assert int(count) == state(a)["view"]["hand_sizes"][1]
    ctx_a.close()
    ctx_b.close()


def test_phone_sized_viewport(server: ServerProcess, browser: Any) -> None:
    table = create_table(server, [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(table["seats"][0]["link"])
    wait_seated(page)
    act_by_clicks(page)  # the pass, by taps
    page.wait_for_function("() => window.heartsState.view.phase === 'playing'", timeout=TIMEOUT)
    # Play by taps until a turn finds cards of the others in the trick (for the picture).
    for _ in range(6):
        page.wait_for_function("() => document.body.dataset.myturn === 'true'", timeout=TIMEOUT)
        if len(state(page)["view"]["trick"]["plays"]) >= 2:
            break
        act_by_clicks(page)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    hand = box(page, "#hand")
    assert hand["width"] <= 390
    # Every card of the hand and every seat is inside the screen's width.
    for sel in ("#hand .card", "#opponents .seat", "#trick figure"):
        for b, _ in boxes(page, sel):
            assert b["x"] >= 0 and b["x"] + b["width"] <= 390, (sel, b)
    check_table_layout(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web_table_phone.png"), full_page=True)
    # Keyboard: arrows move among the playable cards, Enter plays one, L shows the last trick.
    page.keyboard.press("l")
    assert "Back to play" in page.inner_text("#last-btn")
    page.keyboard.press("l")
    assert "Last trick" in page.inner_text("#last-btn")
    page.wait_for_function("() => document.body.dataset.myturn === 'true'", timeout=TIMEOUT)
    v = state(page)["view"]
    page.keyboard.press("ArrowRight")
    card = page.evaluate("document.activeElement.dataset.card")
    assert card in v["legal"]
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"() => window.heartsState.view.round_number !== {v['round_number']}"
        f" || !window.heartsState.view.hand.includes('{card}')",
        timeout=TIMEOUT,
    )
    ctx.close()


# ---------------------------------------------------------------- a spectator

# Where seat k sits for a spectator of 4 players: seat 0 at the bottom, then clockwise.
WATCH_PLACES = {0: "bottom", 1: "left", 2: "top", 3: "right"}


def check_spectator_page(page: Any) -> None:
    """A spectator's page: the public view only (R7) — no hand, no private field, every seat
    around the trick with its card backs, each card of the trick on its player's side, and no
    card face anywhere but in the trick. The state and what the page shows of it are read at one
    moment (the bots may play on between two reads)."""
    seen = page.evaluate(
        """() => ({
            st: window.heartsState,
            backs: [0, 1, 2, 3].map(s => document.querySelectorAll(`#opponents .seat[data-seat="${s}"] .backs img`).length),
            shown: [...document.querySelectorAll('#trick figure')].map(f => f.dataset.card),
            faces: [...document.querySelectorAll('img[src^="/cards/"]')]
                .filter(i => !i.src.endsWith('/back.svg') && !i.closest('#trick')).length,
        })"""
    )
    st = seen["st"]
    v = st["view"]
    assert st["you"] is None
    assert not {"seat", "hand", "legal", "must_pass", "passed", "received", "pass_to"} & set(v)
    assert page.is_hidden("#hand") and page.locator("#hand .card").count() == 0 and page.is_hidden("#me")
    assert page.is_hidden("#pass-btn")
    assert seen["backs"] == v["hand_sizes"]
    trick = box(page, "#trick")
    assert page.locator("#opponents .seat").count() == 4
    for seat, place in WATCH_PLACES.items():
        sel = f'#opponents .seat[data-seat="{seat}"]'
        assert page.get_attribute(sel, "data-pos") == place
        assert_beside(box(page, sel), place, trick)
    check_trick_sides(page, trick, bottom=0, players=4)
    # The trick on screen is the server's (the current one, or the last one just won).
    t = v["trick"] if v["trick"]["plays"] or not v["tricks"] else st["table"]["last_trick"]
    assert seen["shown"] == [p["card"] for p in (t or {"plays": []})["plays"]]
    assert seen["faces"] == 0


def test_a_spectator_watches_the_bots_play_and_has_no_hand(server: ServerProcess, browser: Any) -> None:
    table = create_table(server, [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3,
                         listed=True)
    tid = table["id"]
    # The lobby lists it (it was created so), and offers to watch it.
    lobby = browser.new_page()
    lobby.set_default_timeout(TIMEOUT)
    lobby.goto(server.url + "/")
    link = lobby.locator(f'#open-tables li[data-table="{tid}"] a.watch')
    link.wait_for()
    assert link.get_attribute("href") == f"/t/{tid}#watch"
    lobby.close()
    ctx_p, ctx_w = browser.new_context(), browser.new_context(viewport={"width": 1100, "height": 850})
    player, spy = ctx_p.new_page(), ctx_w.new_page()
    player.set_default_timeout(TIMEOUT)
    spy.set_default_timeout(TIMEOUT)
    player.goto(table["seats"][0]["link"])
    wait_seated(player)
    # The table's page without a token: no seat, but a button to watch.
    spy.goto(f"{server.url}/t/{tid}")
    spy.wait_for_selector("#watch-btn")
    assert "no seat" in spy.inner_text("#prompt")
    spy.click("#watch-btn")
    st = wait_seated(spy)
    assert st["you"] is None and st["table"]["spectators"] == 1 and "hand" not in st["view"]
    assert "watching" in spy.inner_text("#conn") and "Watching" in spy.inner_text("#prompt")
    check_spectator_page(spy)
    # The player's page shows the spectator count, not a seat.
    player.wait_for_function("() => window.heartsState.table.spectators === 1")
    assert state(player)["table"]["online"] == [0]
    # The person plays by clicks, the bots answer; the spectator's trick follows every play.
    shot = False
    played = 0
    for _ in range(40):
        player.wait_for_function("() => document.body.dataset.myturn === 'true'", timeout=TIMEOUT)
        seq = state(player)["seq"]
        spy.wait_for_function(f"() => Number(document.body.dataset.seq) >= {seq}", timeout=TIMEOUT)
        check_spectator_page(spy)
        v = state(player)["view"]
        if not shot and len(v["trick"]["plays"]) >= 2:
            assert spy.locator("#trick figure").count() == len(v["trick"]["plays"])
            ARTIFACTS.mkdir(exist_ok=True)
            spy.screenshot(path=str(ARTIFACTS / "web_spectator.png"))
            shot = True
        before = set(v["hand"])
        act_by_clicks(player)
        after = state(player)["view"]
        if v["phase"] == "playing":
            card = next(iter(before - set(after["hand"])))
            played += 1
            # The play reaches the spectator, as an event, and its trick shows it (or shows the
            # next trick, if the bots have already led it).
            spy.wait_for_function(
                f"() => (window.heartsLog || []).some(e => e.type === 'play' && e.seat === 0 && e.card === '{card}')",
                timeout=TIMEOUT,
            )
        if shot and played >= 3:
            break
    assert shot and played >= 3
    # A reload keeps watching (the page's address says so), still without a hand.
    assert spy.url.endswith("#watch")
    spy.reload()
    st = wait_seated(spy)
    assert st["you"] is None and "hand" not in st["view"]
    check_spectator_page(spy)
    ctx_p.close()
    ctx_w.close()


def test_a_table_without_spectators_refuses_the_watch_link(server: ServerProcess, browser: Any) -> None:
    table = create_table(server, [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3,
                         spectators=False)
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{server.url}/t/{table['id']}")
    page.wait_for_function("() => document.getElementById('prompt').textContent.includes('no seat')")
    page.wait_for_timeout(300)  # the table's facts have been fetched: no button to watch
    assert page.locator("#watch-btn").count() == 0
    page.goto(f"{server.url}/t/{table['id']}#watch")
    page.reload()
    page.wait_for_function("() => document.getElementById('prompt').textContent.includes('does not allow spectators')")
    assert page.evaluate("window.heartsState") is None
    ctx.close()


# ---------------------------------------------------------------- the moon, by clicks

RANKS = "23456789TJQKA"
MOON_GIFT = "JH TH 9H"  # what the right-hand bot passes to the shooter (a logged pass)
MOON_KEEP_OUT = ("JC", "QD", "QS")  # what the shooter passes: the lowest of three suits


def seed_moon_table(db: Path, table_id: str, token: str, **rule_options: Any) -> None:
    """A table in the server's database, as the server would have logged it, whose first deal
    lets seat 0 (a person) shoot the moon against three bots under ``moon=shooter_chooses``.

    Seat 0 holds the top cards of each suit (``helpers.SHOOTER_HANDS``); seat 3, which passes to
    it this round (left), has already passed J♥ 10♥ 9♥ (a logged action), and seat 0 passes the
    lowest card of three of its suits: it then holds only runs of top cards, so playing its
    highest legal card it wins every trick. The table's first deal is stored as an explicit deal
    (as a table migrated from the first version's database has it), and the server replays the
    log when it starts (as after a restart). ``rule_options``: other rules (a ``target``).
    """
    rules = Rules.preset("standard", moon="shooter_chooses", **rule_options)
    top, gift = CardSet.parse(SHOOTER_HANDS[4]), CardSet.parse(MOON_GIFT)
    rest = [str(c) for c in CardSet(rules.deck_mask & ~top.mask & ~gift.mask)]
    hands = [str(top), " ".join(rest[:13]), " ".join(rest[13:26]), " ".join([*rest[26:], str(gift)])]
    gift_pass = Pass(3, gift)
    Game(rules, seed=0, deals=[hands]).apply(gift_pass)  # checks the deal and the pass, as a restore will

    async def seed(store: Storage) -> None:
        await store.log.create_table(
            table_id, {"rules": rules.to_dict(), "bot_delay": 0.0}, secrets.randbits(48),
            [("human", "Luna", None, hash_token(token))] + [("bot", "Bot (easy)", "easy", None)] * 3,
            deals=[hands],
        )
        await store.log.append(table_id, 1, gift_pass)

    with_store(f"sqlite:///{db}", seed)  # (in a thread of its own: Playwright's loop may run in this one)


@pytest.fixture(scope="module")
def moon_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, dict[str, str]]]:
    db = tmp_path_factory.mktemp("moon") / "tables.db"
    tokens = {choice: secrets.token_urlsafe(18) for choice in ("add", "subtract")}
    for choice, token in tokens.items():
        seed_moon_table(db, f"moon{choice}", token)
    s = ServerProcess(db, bot_delay=0.0).start()
    yield s, tokens
    s.stop()


def rank(card: str) -> int:
    return RANKS.index("T" if card.startswith("10") else card[0])


def shoot_the_moon(page: Any) -> None:
    """Luna's turns until she has taken every trick (the moon test's way: pass the lowest of
    three suits, then lead and follow with the highest legal card)."""
    for _ in range(60):
        page.wait_for_function("() => document.body.dataset.myturn === 'true'", timeout=TIMEOUT)
        v = state(page)["view"]
        if v["moon_choice_pending"]:
            return
        if v["must_pass"]:
            for card in MOON_KEEP_OUT:
                page.click(f'#hand .card[data-card="{card}"]')
            page.click("#pass-btn")
            page.wait_for_function("() => !window.heartsState.view.must_pass", timeout=TIMEOUT)
        elif v["legal"]:
            card = max(v["legal"], key=rank)
            page.click(f'#hand .card[data-card="{card}"]')
            page.wait_for_function(f"() => !window.heartsState.view.hand.includes('{card}')", timeout=TIMEOUT)
    pytest.fail("the round did not end")


@pytest.mark.parametrize("choice", ["add", "subtract"])
def test_the_moon_dialog_asks_the_shooter_and_the_choice_is_scored(
    moon_server: tuple[ServerProcess, dict[str, str]], browser: Any, choice: str
) -> None:
    server, tokens = moon_server
    page = browser.new_page(viewport={"width": 1100, "height": 850})
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{server.url}/t/moon{choice}#seat=0&token={tokens[choice]}")
    st = wait_seated(page)
    assert st["you"] == 0 and st["view"]["rules"]["moon"] == "shooter_chooses"
    assert st["view"]["hand"] == [str(c) for c in CardSet.parse(SHOOTER_HANDS[4]).sorted_by_suit()]
    shoot_the_moon(page)
    # Every trick taken: the dialog asks how the moon scores.
    v = state(page)["view"]
    assert v["moon_choice_pending"] and v["hand"] == [] and v["points_taken"] == [26, 0, 0, 0]
    page.wait_for_selector("#moon-add", state="visible")
    dialog = page.inner_text("#dialog")
    assert "You shot the moon!" in dialog and "+26 to each of the 3 others" in dialog and "−26 from my score" in dialog
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web_moon_dialog.png"))
    page.click(f"#moon-{choice}")
    # R4.4: +26 to each other seat, or −26 to the shooter; shown in the round summary.
    scores = [0, 26, 26, 26] if choice == "add" else [-26, 0, 0, 0]
    page.wait_for_selector("#summary-ok", state="visible")
    page.screenshot(path=str(ARTIFACTS / f"web_moon_summary_{choice}.png"))
    assert "Luna shot the moon!" in page.inner_text("#dialog")
    assert state(page)["view"]["round_number"] == 0  # the summary is shown over the round that ended
    rows = page.locator("#dialog table tr")
    assert rows.count() == 5
    for seat in range(4):
        name, points, score, total = rows.nth(seat + 1).locator("td").all_inner_texts()
        assert (int(points), int(score), int(total)) == (26 if seat == 0 else 0, scores[seat], scores[seat])
        assert name.startswith("Luna (you)" if seat == 0 else "Bot (easy)")
    page.click("#summary-ok")
    assert page.is_hidden("#overlay")
    page.wait_for_function("() => window.heartsState.view.round_number === 1")  # then the next deal
    st = state(page)
    assert st["table"]["results"] == [
        {"points": [26, 0, 0, 0], "scores": scores, "shooter": 0, "moon_choice": choice}
    ]
    assert st["table"]["totals"] == scores and st["table"]["score_history"] == [scores]
    assert st["view"]["round_number"] == 1 and not st["view"]["moon_choice_pending"]
    page.close()


# ---------------------------------------------------------------- safe to expose, absent players


def watch_console(page: Any) -> list[str]:
    """The page's console errors and Content-Security-Policy reports, as they come."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(m.text) if m.type == "error" or "Content Security" in m.text else None)
    page.on("pageerror", lambda e: seen.append(str(e)))
    return seen


def test_the_lobby_lists_by_choice_and_sets_a_turn_timer_under_the_csp(server: ServerProcess, browser: Any) -> None:
    """"List in lobby" follows the seats (on when one is open) until it is touched; the turn
    timer and its stand-in bot are the table's; "Table chat" off makes a table without chat, and
    its page says so instead of offering a chat box (issue 40); the page runs under its
    Content-Security-Policy (no inline code or style) without a violation, and shows the seat's
    clock ticking down."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT)
    problems = watch_console(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#stand-in option", state="attached")
    assert not page.is_checked("#listed")  # you and three bots: nobody to find it
    assert page.is_hidden("#stand-in-option")
    page.locator(".seat-row").nth(1).locator(".kind").select_option("open")
    assert page.is_checked("#listed")  # an open seat is taken from the lobby
    page.locator(".seat-row").nth(1).locator(".kind").select_option("bot")
    assert not page.is_checked("#listed")
    page.check("#listed")
    page.locator(".seat-row").nth(2).locator(".kind").select_option("human")
    assert page.is_checked("#listed")  # touched: it stays as chosen
    page.fill("#turn-timer", "30")
    assert page.is_visible("#stand-in-option")
    page.select_option("#stand-in", "easy")
    page.locator(".seat-row").nth(0).locator(".name").fill("Pat")
    assert page.is_checked("#table-chat")  # the default: the table has a chat
    page.uncheck("#table-chat")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    assert page.locator(".invite").count() == 2
    assert "on this computer only" in page.inner_text("#created")  # the server listens on 127.0.0.1
    tid = page.get_attribute("#sit", "href").split("/t/")[1].split("#")[0]
    _, facts = http("GET", f"{server.url}/api/tables/{tid}")
    assert facts["turn_timer"] == 30 and facts["kinds"] == ["human", "bot", "human", "bot"]
    assert facts["chat"] is False
    assert any(t["id"] == tid for t in http("GET", server.url + "/api/tables")[1]["tables"])
    page.click("#sit")
    wait_seated(page)
    assert page.is_visible("#chat-table-off") and page.is_hidden("#chat-form")
    clock = page.locator("#me .clock")
    first = clock.inner_text()
    assert first.endswith(" s left") and 25 <= int(first.split()[0]) <= 30
    page.wait_for_function(f"() => document.querySelector('#me .clock').textContent !== '{first}'")
    assert int(clock.inner_text().split()[0]) < int(first.split()[0])
    seat2 = page.locator('#opponents .seat[data-seat="2"] .clock')
    assert seat2.inner_text().endswith(" s left")  # the other person passes too: their clock runs
    page.screenshot(path=str(ARTIFACTS / "web_turn_timer.png"))
    page.close()
    assert not problems, problems


def test_an_absent_player_is_replaced_and_comes_back(
    tmp_path_factory: pytest.TempPathFactory, browser: Any
) -> None:
    """A person who does not act in time is told that a bot plays for them, and takes over
    again with a click (a server whose bots take half a second: time to click)."""
    server = ServerProcess(tmp_path_factory.mktemp("away") / "tables.db", bot_delay=0.5).start()
    try:
        table = create_table(server, [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3,
                             turn_timer=1)
        page = browser.new_page(viewport={"width": 1100, "height": 850})
        page.set_default_timeout(TIMEOUT)
        problems = watch_console(page)
        page.goto(table["seats"][0]["link"])
        wait_seated(page)
        # Pat does not pass in time: a bot passes for Pat, and the page says so.
        page.wait_for_selector("#back-btn")
        assert "A bot plays for you" in page.inner_text("#prompt")
        assert "away" in page.inner_text("#me") or state(page)["table"]["away"] == [0]
        page.wait_for_function("() => !window.heartsState.view.must_pass")
        page.screenshot(path=str(ARTIFACTS / "web_away.png"))
        page.click("#back-btn")
        page.wait_for_function("() => window.heartsState.table.away.length === 0")
        assert page.locator("#back-btn").count() == 0
        page.close()
        assert not problems, problems
    finally:
        server.stop()
