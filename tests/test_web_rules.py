"""The rules and a first game in the web table (issue 42, item 2), in Chromium.

The rules page (``/rules``, ``/rules?table={id}``) is the rule book (docs/rules.md through
``hearts.book``) with every R-number, in the player's language, the table's own options first and
beside their rules; a card the rules refuse answers with the rule in words (R3.1–R3.7, the
server's ``why`` translated); the guided first game shows each of its tips once, at its moment,
and can be skipped; the offer is made once. One server and one browser for the module.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import test_web_browser
import test_web_lively
from test_server_support import ServerProcess, create_table, http
from test_web_browser import ARTIFACTS, TIMEOUT, act_by_clicks, state, wait_seated

import hearts.i18n
from hearts.book import book, table_options
from hearts.rules import Rules
from hearts.text import WHY_NOT

pytest.importorskip("babel")
browser = test_web_browser.browser  # one Chromium and one server process for the module
server = test_web_browser.server
axe = test_web_lively.axe  # axe-core from npm (skipped without it)

OPTIONS = {"moon": "shooter_chooses", "jack_of_diamonds": -10, "pass_cycle": ["left", "hold"], "queen_lead": "after_break"}


def open_page(browser: Any, url: str, locale: str = "en-GB", width: int = 1100) -> tuple[Any, Any]:
    context = browser.new_context(locale=locale, viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    return context, page


def test_the_rules_api_gives_the_book_and_a_tables_options(server: ServerProcess) -> None:
    status, usual = http("GET", server.url + "/api/rules")
    assert status == 200 and usual["table"] is None
    assert [r["number"] for r in usual["rules"]] == [r.number for r in book()]
    assert {"R3.2", "R3.3", "R4.4", "R7"} <= {r["number"] for r in usual["rules"]}
    moon = next(o for o in usual["options"] if o["name"] == "moon")
    assert moon == {"name": "moon", "rule": "R4.4", "label": "Shooting the moon", "code": "add_to_others", "value": ["add to others"]}
    t = create_table(server, [{"kind": "human"}, *[{"kind": "bot", "level": "easy"}] * 3], options=OPTIONS)
    status, ours = http("GET", server.url + f"/api/rules?table={t['id']}")
    assert status == 200 and ours["table"] == t["id"]
    by_name = {o["name"]: o for o in ours["options"]}
    assert by_name["moon"]["value"] == ["shooter chooses"] and by_name["jack_of_diamonds"]["code"] == "-10"
    assert by_name["pass_cycle"]["value"] == ["left", "hold"] and by_name["pass_cycle"]["rule"] == "R2.2"
    assert by_name["queen_lead"]["value"] == ["after break"]
    # Bad input: a clear 404, and nothing else made.
    for bad in ("nosuchtable", "../../etc", "%00"):
        status, body = http("GET", server.url + f"/api/rules?table={bad}")
        assert status == 404 and body["code"] == "no_table", body


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_rules_page_shows_the_tables_options_and_every_rule(server: ServerProcess, browser: Any, lang: str) -> None:
    """R1–R7 each under its number, in the language; the table's options first and beside their
    rules (R2.2, R3.6, R4.2, R4.4 here); the table page links to it."""
    t = create_table(server, [{"kind": "human", "name": "Ana"}, *[{"kind": "bot", "level": "easy"}] * 3], options=OPTIONS)
    tr = hearts.i18n.translation(lang)
    context, page = open_page(browser, server.url + "/t/" + t["id"] + "#token=" + t["seats"][0]["token"], "de-DE" if lang == "de" else "en-GB")
    try:
        wait_seated(page)
        link = page.get_attribute("#rules-link", "href")
        assert link == "/rules?table=" + t["id"]
        assert page.inner_text("#rules-link") == tr.gettext("Rules of this table")
        page.goto(server.url + link)
        page.wait_for_selector("#rules-book section")
        assert page.evaluate("document.documentElement.lang") == lang
        numbers = page.eval_on_selector_all("#rules-book section", "ss => ss.map(s => s.id)")
        assert numbers == [r.number for r in book()]
        for r in book():  # each rule's heading: its number, its title in the language
            heading = page.inner_text(f'[id="h-{r.number}"]')
            assert heading.startswith(r.number) and tr.gettext(r.title) in heading
        assert page.inner_text("#rules-options-title") == tr.gettext("This table's rules")
        lines = table_options(Rules(**OPTIONS))
        for o in lines:
            item = page.inner_text(f'#rules-options li[data-option="{o.name}"]')
            value = " / ".join(tr.gettext(v) for v in o.value)
            assert o.rule in item and tr.gettext(o.label) in item and value in item, item
        moon = page.inner_text('[id="R4.4"] .at-table[data-option="moon"]')
        expected = tr.gettext("At this table: {option} is {value}.").format(option=tr.gettext("Shooting the moon"), value=tr.gettext("shooter chooses"))
        assert moon == expected
        assert page.locator('[id="R2.2"] .at-table[data-option="pass_cycle"]').count() == 1
        assert page.locator('[id="R3.6"] .at-table[data-option="queen_lead"]').count() == 1
        # a paragraph of R3.2 in the language, its Markdown drawn (the option values as code)
        first = book()[[r.number for r in book()].index("R3.2")].blocks[0].text
        assert tr.gettext(first) in page.inner_text('[id="R3.2"]')
        assert page.locator('[id="R4.4"] code', has_text="shooter_chooses").count() >= 1
        if lang == "de":
            text = page.inner_text("#rules-page")
            for english in ("Following suit", "Shooting the moon", "At this table", "Breaking hearts", "trick"):
                assert not re.search(r"(?<!\w)" + english + r"(?!\w)", text), english
            assert "Stich" in text and "bedienen" in text
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"web_rules_{lang}.png"), full_page=False)
        # the usual rules, from the lobby's link
        page.goto(server.url + "/")
        page.click("#nav-rules")
        page.wait_for_selector("#rules-book section")
        assert page.inner_text("#rules-options-title") == tr.gettext("The usual rules (no option chosen)")
        assert tr.gettext("add to others") in page.inner_text('#rules-options li[data-option="moon"]')
    finally:
        context.close()


def test_a_refused_card_answers_with_its_rule_in_words(server: ServerProcess, browser: Any) -> None:
    """A card the rules refuse (dim, aria-disabled at my turn) is sent all the same; the server
    refuses it (nothing changes) and the page says the rule, R-number and all, in German."""
    tr = hearts.i18n.translation("de")
    t = create_table(server, [{"kind": "human", "name": "Ana"}, *[{"kind": "bot", "level": "easy"}] * 3], options={"pass_count": 0})
    context, page = open_page(browser, server.url + "/t/" + t["id"] + "#token=" + t["seats"][0]["token"], "de-DE")
    try:
        wait_seated(page)
        for _ in range(60):
            page.wait_for_function("() => window.heartsState.view.to_move === window.heartsState.view.seat || window.heartsState.view.game_over")
            v = state(page)["view"]
            dim = [c for c in v["hand"] if c not in v["legal"]]
            if dim:
                break
            act_by_clicks(page)
        else:
            pytest.fail("no refused card in sixty turns")
        card = dim[0]
        button = page.locator(f'#hand .card[data-card="{card}"]')
        assert button.get_attribute("aria-disabled") == "true" and "dim" in (button.get_attribute("class") or "")
        seq = state(page)["seq"]
        button.click(force=True)  # (Playwright counts aria-disabled as disabled; a browser clicks it)
        page.wait_for_selector("#toast:not([hidden])")
        said = page.inner_text("#toast")
        german = {tr.gettext(w) for w in WHY_NOT.values()}
        assert said in german, said
        assert re.search(r"\(R\d\.\d\)\.$", said), said
        assert state(page)["seq"] == seq and card in state(page)["view"]["hand"]  # nothing changed
        page.screenshot(path=str(ARTIFACTS / "web_rules_refused.png"))
    finally:
        context.close()


def click_if_there(page: Any, selector: str) -> bool:
    """Click ``selector`` if it is still there within a moment (a dialog may close meanwhile)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.click(selector, timeout=2_000)
    except PlaywrightTimeout:
        return False
    return True


def name_dialog(page: Any, name: str) -> None:
    """Answer the table's question for a name, if it is still asked."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.fill("#name-input", name, timeout=2_000)
    except PlaywrightTimeout:
        return
    click_if_there(page, "#name-ok")


def play_guided_round(page: Any) -> list[str]:
    """Play the guided game's first round by clicks, closing each tip ("Verstanden") as it comes;
    the tips shown, in order."""
    import time

    deadline = time.monotonic() + 180
    while True:
        assert time.monotonic() < deadline, "the first round did not end in time"
        if page.is_visible("#name-input"):  # a dialog first (it covers the tip until it is closed)
            name_dialog(page, "Ana")
            continue
        if page.is_visible("#summary-ok"):
            click_if_there(page, "#summary-ok")
            continue
        if page.is_visible("#guide-ok") and not page.is_visible("#overlay"):
            step = page.get_attribute("#guide", "data-step")
            assert page.get_attribute("#guide", "aria-live") == "polite"
            assert page.inner_text("#guide-title")
            page.click("#guide-ok")
            if step == "moon":
                break
            continue
        if not act_by_clicks(page):
            page.wait_for_timeout(50)
    shown: list[str] = page.evaluate("window.heartsGuide")
    return shown


def test_the_guided_first_game_shows_each_tip_once_and_is_offered_once(server: ServerProcess, browser: Any) -> None:
    tr = hearts.i18n.translation("de")
    context, page = open_page(browser, server.url + "/", "de-DE")
    try:
        page.wait_for_selector("#guide-offer:not([hidden])")
        assert page.inner_text("#guide-offer h2") == tr.gettext("New to Hearts?")
        with page.expect_navigation():
            page.click("#guide-start")
        page.wait_for_selector("#guide:not([hidden])")  # the pass, at once
        assert page.get_attribute("#guide", "data-step") == "pass"
        assert page.inner_text("#guide-ok") == tr.gettext("Got it")
        assert "R2.1" in page.inner_text("#guide-text")
        shown = play_guided_round(page)
        # each tip once, at its moment: the pass first and the round's end last
        assert sorted(shown) == sorted(["pass", "first_trick", "follow", "hearts_broken", "queen", "moon"]), shown
        assert len(shown) == 6 and shown[0] == "pass" and shown[-1] == "moon"
        kept = page.evaluate("JSON.parse(localStorage.getItem('pyhearts:guide'))")
        assert kept["status"] == "done" and sorted(kept["seen"]) == sorted(shown)
        bots = state(page)["table"]["bots"]
        assert bots[1:] == ["easy"] * 3, bots
        # a few more plays: no tip again
        for _ in range(3):
            act_by_clicks(page)
        assert page.is_hidden("#guide") and page.evaluate("window.heartsGuide.length") == 6
        page.goto(server.url + "/")  # offered once: not again
        page.wait_for_selector("#open-tables li")
        assert page.is_hidden("#guide-offer")
    finally:
        context.close()


def test_the_guide_can_be_skipped(server: ServerProcess, browser: Any) -> None:
    context, page = open_page(browser, server.url + "/", "fr-FR")
    try:
        page.wait_for_selector("#guide-offer:not([hidden])")
        with page.expect_navigation():
            page.click("#guide-start")
        page.wait_for_selector("#guide:not([hidden])")
        page.wait_for_selector("#name-input")
        name_dialog(page, "Léa")  # the table's name question first: it covers the tip
        page.click("#guide-skip")
        assert page.is_hidden("#guide")
        assert page.evaluate("JSON.parse(localStorage.getItem('pyhearts:guide')).status") == "skipped"
        for _ in range(4):  # the pass and some plays: no tip any more
            if page.is_visible("#name-input"):
                name_dialog(page, "Léa")
            act_by_clicks(page)
        assert page.is_hidden("#guide") and page.evaluate("window.heartsGuide") == ["pass"]
        # "No, thanks" in the lobby: a browser not offered yet is not offered again
        other = context.browser.new_context(locale="es-ES")
        try:
            p2 = other.new_page()
            p2.goto(server.url + "/")
            p2.wait_for_selector("#guide-offer:not([hidden])")
            p2.click("#guide-no")
            assert p2.is_hidden("#guide-offer")
            p2.reload()
            p2.wait_for_selector("#open-tables li")
            assert p2.is_hidden("#guide-offer")
            assert p2.evaluate("JSON.parse(localStorage.getItem('pyhearts:guide')).status") == "skipped"
        finally:
            other.close()
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_the_rules_page_and_a_tip_on_a_phone_fit_and_pass_axe(server: ServerProcess, browser: Any, axe: str, lang: str) -> None:
    """On a 390×844 phone the rules page and the guide's first tip scroll no wider than the screen,
    cut no heading or button, and axe-core finds no serious or critical violation."""
    from test_web_i18n import LOCALES, OVERFLOW
    from test_web_lively import serious

    context = browser.new_context(locale=LOCALES[lang], viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, bypass_csp=True)  # axe is injected
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(server.url + "/rules")
        page.wait_for_selector("#rules-book section")
        text = page.inner_text("#rules-page")
        for english in ("Following suit", "Shooting the moon", "The usual rules", "Breaking hearts", "trick", "Players, deck, deal"):
            assert not re.search(r"(?<!\w)" + english + r"(?!\w)", text), (lang, english)
        assert page.evaluate(OVERFLOW) == []
        assert serious(page, axe) == [], "rules"
        page.goto(server.url + "/")
        page.wait_for_selector("#guide-offer:not([hidden])")
        assert page.evaluate(OVERFLOW) == []
        assert serious(page, axe) == [], "offer"
        with page.expect_navigation():
            page.click("#guide-start")
        page.wait_for_selector("#name-input")
        name_dialog(page, "Ana")
        page.wait_for_selector("#guide:not([hidden])")
        page.wait_for_function("() => document.getElementById('overlay').hidden")
        assert page.evaluate(OVERFLOW) == []
        assert serious(page, axe) == [], "tip"
        page.screenshot(path=str(ARTIFACTS / f"web_rules_tip_{lang}_phone.png"), full_page=True)
    finally:
        context.close()


def test_the_servers_illegal_error_carries_the_rule_in_words(server: ServerProcess) -> None:
    """Over the WebSocket (docs/protocol.md, ``error``): a refused card's ``why`` is its rule in
    English words (R2.1 while passing, R3.1 at the first lead, R1.4 out of turn), a refused pass
    has none; nothing changes."""
    import asyncio
    import concurrent.futures

    from test_server_support import Client

    table = create_table(server, [{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"},
                                  {"kind": "human", "name": "C"}, {"kind": "human", "name": "D"}])
    tokens = [s["token"] for s in table["seats"]]

    async def go() -> None:
        clients = [await Client(server, table["id"], t).connect() for t in tokens]
        try:
            async def refused(c: Client, msg: dict[str, Any]) -> dict[str, Any]:
                err: dict[str, Any] = await c.request(msg, lambda m: m["type"] == "error")
                assert err["code"] == "illegal", err
                return err

            st = clients[0].state
            assert st is not None
            hand, seq = st["view"]["hand"], st["seq"]
            err = await refused(clients[0], {"type": "play", "seq": seq, "card": hand[0]})
            assert err["why"] == WHY_NOT["passing"]
            err = await refused(clients[0], {"type": "pass", "seq": seq, "cards": hand[:2]})
            assert err["why"] is None and "R2.1" in err["message"]
            for c in clients:
                assert c.state is not None
                await c.send({"type": "pass", "seq": c.state["seq"], "cards": c.state["view"]["hand"][:3]})
            for c in clients:
                await c.wait(lambda m: m["type"] == "state" and m["view"]["phase"] == "playing")
            for c in clients:
                await c.request({"type": "sync"}, lambda m: m["type"] == "state")
            lead = next(c for c in clients if c.state and c.state["view"]["to_move"] == c.state["you"])
            other = next(c for c in clients if c is not lead)
            v, at = lead.state["view"], lead.state["seq"]  # type: ignore[index]
            wrong = next(x for x in v["hand"] if x not in v["legal"])
            err = await refused(lead, {"type": "play", "seq": lead.state["seq"], "card": wrong})  # type: ignore[index]
            assert err["why"] == WHY_NOT["first_lead_lowest"] and "R3.1" in err["message"]
            err = await refused(other, {"type": "play", "seq": other.state["seq"], "card": other.state["view"]["hand"][0]})  # type: ignore[index]
            assert err["why"] == WHY_NOT["not_your_turn"]
            again = await lead.request({"type": "sync"}, lambda m: m["type"] == "state")
            assert again["seq"] == at and wrong in again["view"]["hand"]  # nothing changed
        finally:
            for c in clients:
                await c.close()

    # in a thread of its own: Playwright's sync API keeps an event loop running in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, go()).result()
