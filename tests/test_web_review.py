"""The game review in a real browser (Debian's chromium driven by Playwright; issue 16, the web
part): a person finishes a short game against three bots by clicks, presses "Review game" in
the game-over dialog, sees the progress ("Reviewing your game: N of M decisions") while the
server computes it in the background, then the summary with its caveat (estimates from sampled
deals, with their uncertainty), whose numbers are the review's; the link opens the replay
viewer on ``/replay/{id}?seat=S&review=1``, which reads the review and annotates the seat's
decisions. The page runs under its Content-Security-Policy without an error; on a phone the
finished review is shown when the game-over dialog opens again. Screenshots (1280×800 and
390×844) go to ``artifacts/``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import pytest
import test_web_browser
from test_server_support import ServerProcess, create_table, http
from test_web_browser import ARTIFACTS, TIMEOUT, play_by_clicks, state, wait_seated, watch_console
from test_web_lively import AXE, DESKTOP, PHONE, context, page_of, record, serious

from hearts.review import tenths

browser = test_web_browser.browser  # Debian's chromium

BUDGET = 200
"""The server's review budget: a one-round review takes a few seconds, long enough to be seen."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(tmp_path_factory.mktemp("web-review") / "tables.db", bot_delay=0.0, review_budget=BUDGET).start()
    yield s
    s.stop()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"review_{name}.png"))


def play_to_the_end(page: Any) -> None:
    """Play by clicks until the game is over (the bots play at once)."""
    wait_seated(page)
    play_by_clicks(page, lambda: bool(state(page)["view"]["game_over"]))


def test_a_finished_game_is_reviewed_from_the_game_over_dialog_and_opens_in_the_replay(
    server: ServerProcess, browser: Any
) -> None:
    table = create_table(server, [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3,
                         options={"target": 1, "pass_count": 0})
    tid, link = table["id"], table["seats"][0]["link"]
    ctx = context(browser, DESKTOP, reduced_motion="reduce")
    page = page_of(ctx)
    problems = watch_console(page)
    page.goto(link)
    play_to_the_end(page)
    page.wait_for_selector("#game-over-extra .review-btn")
    assert page.inner_text("#game-over-extra .review-btn") == "Review game"
    # Every text the status line shows, recorded as it changes (the review may take less than
    # the page's one-second poll: a warm compiled kernel values a round in a fraction of it).
    page.evaluate("""() => {
        window.reviewTexts = [];
        new MutationObserver(() => {
            const line = document.querySelector('.review-status');
            const text = line ? line.textContent : '';
            if (text && text !== window.reviewTexts.at(-1)) window.reviewTexts.push(text);
        }).observe(document.body, {subtree: true, childList: true, characterData: true});
    }""")
    page.click("#game-over-extra .review-btn")
    # The progress: a bar and a line at once (the job is queued), then updated every second
    # while the server computes the review.
    page.wait_for_selector(".review-bar", state="visible")
    shot(page, "progress")
    page.wait_for_selector(".review-box[data-status='done']", timeout=60_000)
    texts: list[str] = page.evaluate("window.reviewTexts")
    rounds = len(record(server, tid).game.results)  # one, or more after a tie for the lowest total (R5)
    assert texts[0] == "Asking for a review…", texts
    working = ("Your game is waiting for a free reviewer…", "Starting the review of your game…")
    assert texts[1] in working or texts[1].startswith("Reviewing your game"), texts
    for line in texts:
        if line.startswith("Reviewing your game"):
            done, total = map(int, re.findall(r"\d+", line))
            assert re.fullmatch(r"Reviewing your game: \d+ of \d+ decisions?", line), line
            assert 0 <= done < total <= 13 * rounds, line  # at most a decision per card (no passing)
    assert page.inner_text(".review-status") == "Your review is ready." == texts[-1]
    assert not page.is_visible(".review-bar") and not page.is_visible(".review-btn")
    # The summary is the review's own numbers, with its caveat.
    status, job = http("GET", f"{server.url}/api/tables/{tid}/review?seat=0")
    total = job["total"]
    assert status == 200 and job["status"] == "done" and 0 < total <= 13 * rounds
    (summary,) = job["review"]["summaries"]
    text = page.inner_text(".review-summary")
    assert f"{tenths(summary['points_lost'])} ± {tenths(summary['points_lost_stderr'])} over {total} decisions" in text, text
    # Whole percent, a half rounded up (5 of 8 decisions is 63%), as every front end shows it.
    assert f"Accuracy: {math.floor(summary['accuracy'] + 0.5)}%" in text, text
    caveat = page.inner_text(".review-caveat")
    assert "estimates" in caveat and f"{BUDGET} sampled deals" in caveat and "uncertainty" in caveat
    shot(page, "done")
    assert problems == []
    # The link opens the replay viewer on the contract's address; it reads the review.
    href = page.get_attribute("a.review-open", "href")
    assert href == f"/replay/{tid}?seat=0&review=1"
    with page.expect_response(lambda r: f"/api/tables/{tid}/review?seat=0" in r.url, timeout=TIMEOUT) as answer:
        page.click("a.review-open")
    assert answer.value.status == 200
    page.wait_for_url(f"**/replay/{tid}?seat=0&review=1")
    # The viewer annotates the seat's decisions: the flagged ones listed, each one shown at its
    # step with its verdict and the points it lost.
    decisions = [d for rr in job["review"]["rounds"] for d in rr["decisions"]]
    flagged = sorted((d for d in decisions if d["verdict"] in ("inaccuracy", "mistake", "blunder")),
                     key=lambda d: d["index"])
    page.wait_for_selector("#decision")
    assert page.locator("#decision-list li").count() == len(flagged)
    for d in flagged[:2]:
        page.click(f'#decision-list button[data-step="{d["index"]}"]')
        page.wait_for_selector(f"#decision.verdict-{d['verdict']}")
        words = page.inner_text("#decision")
        # (the page rounds a half up, as JavaScript's toFixed does: 2.25 is "2.3", Python says "2.2")
        shown = {f"{d['loss']:.1f}", f"{math.floor(d['loss'] * 10 + 0.5) / 10:.1f}"}
        assert any(text in words for text in shown) and "estimate" in words, words
    shot(page, "replay")
    assert problems == []
    ctx.close()

    # On a phone, opening the finished table again: the dialog shows the review done.
    phone_ctx = context(browser, PHONE, bypass_csp=AXE.exists())  # axe is injected as an inline script
    phone = page_of(phone_ctx)
    phone.goto(link)
    phone.wait_for_selector(".review-box[data-status='done']")
    assert "estimates" in phone.inner_text(".review-caveat")
    phone.locator(".review-box").scroll_into_view_if_needed()
    shot(phone, "done_phone")
    if AXE.exists():
        assert serious(phone, AXE.read_text(encoding="utf-8")) == []
    phone_ctx.close()


def test_a_spectator_has_no_review_button(server: ServerProcess, browser: Any) -> None:
    """A review is of a seat's decisions: a spectator's game-over dialog offers none."""
    table = create_table(server, [{"kind": "bot", "level": "easy"}] * 4, options={"target": 1, "pass_count": 0})
    record(server, table["id"])  # the game is over
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    page.goto(f"{server.url}/t/{table['id']}#watch")
    page.wait_for_selector("#gameover-ok")
    assert page.locator("#game-over-extra").count() == 1
    assert page.locator("#game-over-extra .review-box").count() == 0
    ctx.close()

