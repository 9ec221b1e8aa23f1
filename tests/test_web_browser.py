"""The web table in a real browser (Debian's chromium driven by Playwright's Python API).

A person plays a whole round against three bots by clicks; two browser contexts join the same
table by invite link and see each other's plays; a reload mid-round restores the hand; the
page fits a phone. Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")

from test_server_support import ServerProcess, create_table  # noqa: E402

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
    st = state(page)
    v = st["view"]
    if v["must_pass"]:
        for card in v["hand"][-v["pass_count"]:]:
            page.click(f'#hand .card[data-card="{card}"]')
        assert page.is_enabled("#pass-btn")
        page.click("#pass-btn")
        page.wait_for_function("() => !window.heartsState.view.must_pass", timeout=TIMEOUT)
        return True
    if v["to_move"] == v["seat"] and v["legal"]:
        legal = page.locator("#hand .card.legal")
        assert legal.count() == len(v["legal"])
        assert page.locator("#hand .card.dim").count() == len(v["hand"]) - len(v["legal"])
        card = legal.first.get_attribute("data-card")
        legal.first.click()
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
    return False


def test_a_person_plays_a_round_against_three_bots(server: ServerProcess, browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1100, "height": 850})
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.select_option("#preset", "omnibus")
    page.fill("#target", "100")
    for i in (1, 2, 3):
        page.locator(".seat-row").nth(i).locator(".level").select_option("easy")
    page.click("#create-btn")
    page.wait_for_selector("#sit")
    assert page.locator(".invite").count() == 1
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
        page.wait_for_function(
            "() => document.body.dataset.myturn === 'true' || document.body.dataset.round !== '0'", timeout=TIMEOUT
        )
        if page.evaluate("document.body.dataset.round") != "0":
            break
        act_by_clicks(page)
        if not shot and len(state(page)["view"]["hand"]) == 8:
            page.screenshot(path=str(ARTIFACTS / "web_table.png"))
            shot = True
    else:
        pytest.fail("the round did not end")
    # The round summary, then the next round's pass.
    page.wait_for_selector("#summary-ok", timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / "web_round_summary.png"))
    summary = page.inner_text("#dialog")
    assert "Round 1 over" in summary
    page.click("#summary-ok")
    st = state(page)
    assert sum(st["table"]["results"][0]["points"]) == 26
    assert len(st["table"]["history"]) == 1
    assert "right" in page.inner_text("#info")
    assert shot and (ARTIFACTS / "web_table.png").stat().st_size > 10_000
    page.close()


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
        if not moved:
            a.wait_for_function(
                "() => document.body.dataset.myturn === 'true'", timeout=TIMEOUT
            ) if state(b)["view"]["to_move"] != 1 else None
    assert min(len(plays[0]), len(plays[1])) >= 3 and reloaded
    for seat, page in ((1, a), (0, b)):  # the other's plays arrived, as events, from the server
        page.wait_for_function(
            f"() => (window.heartsLog || []).filter(e => e.kind === 'play' && e.seat === {seat}).length >= 1",
            timeout=TIMEOUT,
        )
        seen = page.evaluate(f"(window.heartsLog || []).filter(e => e.kind === 'play' && e.seat === {seat}).map(e => e.card)")
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
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    box = page.locator("#hand").bounding_box()
    assert box is not None and box["width"] <= 390
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web_table_phone.png"), full_page=True)
    # Keyboard: arrows move among the playable cards, L shows the last trick.
    page.keyboard.press("l")
    assert "Back to play" in page.inner_text("#last-btn")
    page.keyboard.press("l")
    ctx.close()
