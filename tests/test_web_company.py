"""Safe company in a real browser (Debian's chromium driven by Playwright; issue 40, item 5):
another person's name at the table opens Mute / Block / Report…; a muted player's lines never
show; a report is sent with its reason; the chat's *Chat on* box is the profile's setting; the
profile page lists the marks and undoes them.
Screenshots go to ``artifacts/``; axe-core finds no serious or critical violation in the menu.
"""

from __future__ import annotations

import json
from typing import Any

import test_web_browser
import test_web_lively
from test_server_support import ServerProcess, db_rows, http
from test_web_browser import ARTIFACTS, wait_seated, watch_console
from test_web_lively import DESKTOP, context, page_of, serious

browser = test_web_browser.browser  # the fixtures: Debian's chromium, a server process (no bot delay)
server = test_web_browser.server
axe = test_web_lively.axe


def profile_page(browser: Any, server: ServerProcess, name: str) -> tuple[Any, Any, dict[str, Any]]:
    """A browser context holding a new player profile, its page, and the profile."""
    status, made = http("POST", server.url + "/api/players", {"name": name})
    assert status == 201, made
    ctx = context(browser, DESKTOP, bypass_csp=True)  # axe is injected as an inline script
    stored = json.dumps({"id": made["id"], "name": made["name"], "key": made["key"]})
    ctx.add_init_script(f"localStorage.setItem('pyhearts.player', {json.dumps(stored)})")
    return ctx, page_of(ctx), made


def lines(page: Any) -> list[str]:
    return [str(t) for t in page.locator("#chat-lines li").all_inner_texts()]


def test_mute_report_and_chat_off_from_a_players_name(server: ServerProcess, browser: Any, axe: str) -> None:
    ann_ctx, ann, ann_p = profile_page(browser, server, "Ann")
    bob_ctx, bob, bob_p = profile_page(browser, server, "Bob")
    problems = watch_console(ann) + watch_console(bob)
    seats = [{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}]
    status, table = http("POST", server.url + "/api/tables", {"seats": seats, "listed": True},
                         headers={"Authorization": f"Bearer {ann_p['key']}"})
    assert status == 201, table
    status, joined = http("POST", f"{server.url}/api/tables/{table['id']}/join", {},
                          headers={"Authorization": f"Bearer {bob_p['key']}"})
    assert status == 200, joined
    ann.goto(table["seats"][0]["link"])
    bob.goto(joined["link"])
    wait_seated(ann)
    wait_seated(bob)
    bob_name = '#opponents .seat[data-seat="1"] .name'
    ann.wait_for_selector(bob_name + ".menu")
    assert ann.locator('#opponents .seat[data-seat="2"] button.name').count() == 0  # a bot: no menu
    ann.click(bob_name)
    ann.wait_for_selector("#company-mute")
    assert ann.locator("#dialog button").all_inner_texts()[:3] == ["Mute", "Block", "Report…"]
    assert serious(ann, axe) == []
    ARTIFACTS.mkdir(exist_ok=True)
    ann.screenshot(path=str(ARTIFACTS / "company_menu.png"))
    ann.click("#company-mute")
    ann.wait_for_function(f"() => document.querySelector('{bob_name} .marks')?.textContent.includes('muted')")
    # Bob's line never reaches Ann; hers reaches him.
    bob.fill("#chat-input", "psst")
    bob.keyboard.press("Enter")
    ann.fill("#chat-input", "hello")
    ann.keyboard.press("Enter")
    bob.wait_for_function("() => document.querySelectorAll('#chat-lines li').length === 2")
    assert lines(bob) == ["Bob: psst", "Ann: hello"]
    ann.wait_for_selector("#chat-lines li")
    ann.wait_for_timeout(300)
    assert lines(ann) == ["Ann: hello"]
    # A report, with its reason.
    ann.click(bob_name)
    ann.click("#company-report")
    ann.click("#report-send")  # no reason yet: said in the dialog, nothing sent
    assert "what happened" in ann.inner_text("#report-error")
    ann.fill("#report-reason", "rude in the chat")
    ann.screenshot(path=str(ARTIFACTS / "company_report.png"))
    ann.click("#report-send")
    ann.wait_for_function("() => document.getElementById('toast').textContent.includes('Thank you')")
    assert db_rows(server.db, "SELECT reporter, reported, reason FROM player_reports") == [
        (ann_p["id"], bob_p["id"], "rude in the chat")]
    # Chat off: the profile's setting; no line shown or written.
    ann.uncheck("#chat-on")
    ann.wait_for_selector("#chat-off-note", state="visible")
    assert ann.is_hidden("#chat-lines")
    ann.wait_for_function("() => true")
    assert wait_for_db(server, ann_p["id"], 0)
    ann.check("#chat-on")
    assert wait_for_db(server, ann_p["id"], 1)
    assert ann.is_visible("#chat-lines")
    # The profile page lists whom Ann muted, and undoes it.
    ann.goto(server.url + "/me")
    row = f'#company-list li[data-player="{bob_p["id"]}"][data-kind="mute"]'
    ann.wait_for_selector(row)
    assert ann.inner_text(row).startswith("Bob (muted)")
    assert serious(ann, axe) == []
    ann.screenshot(path=str(ARTIFACTS / "company_profile.png"))
    ann.click(row + " button")
    ann.wait_for_selector(row, state="detached")
    assert db_rows(server.db, "SELECT count(*) FROM player_marks") == [(0,)]
    assert not problems, problems
    ann_ctx.close()
    bob_ctx.close()


def wait_for_db(server: ServerProcess, player_id: str, chat: int) -> bool:
    """Whether the profile's chat setting becomes ``chat`` within a few seconds."""
    import time

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if db_rows(server.db, "SELECT chat FROM players WHERE id = ?", (player_id,)) == [(chat,)]:
            return True
        time.sleep(0.05)
    return False
