"""The table talk in a real browser (Debian's chromium driven by Playwright; issue 15): "Play now"
against three bots, a whole round played by clicks to the end of a short game, then "Rematch"
opens the new table with the same seats; a person opening an invite link whose seat has no
name is asked for one (prefilled from the profile), and both players see it; chat between two
browser contexts; a hint highlighted in the hand. Screenshots of each screen at 1280×800 and
390×844 go to ``artifacts/``; axe-core finds no serious or critical violation on the invite's
name dialog nor at the table with the chat open.
"""

from __future__ import annotations

import json
from typing import Any

import test_web_browser
import test_web_lively
from test_server_support import ServerProcess, create_table, http
from test_web_browser import ARTIFACTS, play_by_clicks, state, wait_seated, watch_console
from test_web_lively import DESKTOP, PHONE, context, page_of, serious

from hearts.server.tables import FRIENDLY_NAMES, rematch_id

browser = test_web_browser.browser  # the fixtures: Debian's chromium, a server process (no bot delay)
server = test_web_browser.server
axe = test_web_lively.axe


def shots(page: Any, name: str) -> None:
    """Screenshots of the page as it is, on a desktop and on a phone (then back to desktop)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"talk_{name}.png"))
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(100)
    page.screenshot(path=str(ARTIFACTS / f"talk_{name}_phone.png"))
    page.set_viewport_size(DESKTOP)


def test_play_now_a_round_to_the_end_then_a_rematch_with_the_same_seats(server: ServerProcess, browser: Any) -> None:
    """One click on "Play now" (the level chosen is remembered) makes a private table of you
    and three bots of that level, each bot with a name of its own, and opens it. The round is
    played by clicking legal cards; the game (to 1 point, set by the test on the request) ends
    and names its winner; "Rematch" opens the new table: the same seats and names, your seat."""
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    problems = watch_console(page)
    sent: list[dict[str, Any]] = []

    def short_game(route: Any) -> None:  # the test's one change: a game of one round
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.loads(route.request.post_data)
        sent.append(body)
        route.continue_(post_data=json.dumps({**body, "target": 1}))

    page.route("**/api/tables", short_game)
    page.goto(server.url + "/")
    page.wait_for_selector("#play-level option", state="attached")
    page.select_option("#play-level", "easy")
    shots(page, "lobby_play_now")
    page.click("#play-now")
    wait_seated(page)
    assert sent == [{"seats": [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 3, "listed": False}]
    page.fill("#name-input", "Pat")  # no profile, no name yet: the table asks for one
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.heartsState.table.names[0] === 'Pat'")
    first = state(page)
    assert page.evaluate("localStorage.getItem('pyhearts:play-level')") == "easy"
    names = first["table"]["names"]
    assert first["you"] == 0 and first["table"]["kinds"] == ["human", "bot", "bot", "bot"]
    assert len(set(names)) == 4 and all(n in FRIENDLY_NAMES for n in names[1:])
    for seat in (1, 2, 3):  # shown with their level
        assert page.inner_text(f'#opponents .seat[data-seat="{seat}"] .name') == f"{names[seat]} (easy)"
    old = first["table"]["id"]
    plays = play_by_clicks(page, lambda: page.is_visible("#gameover-ok"), actions=3)
    shots(page, "play_now_table")
    plays += play_by_clicks(page, lambda: page.is_visible("#gameover-ok"))
    assert plays >= 14  # the pass and the 13 cards of the round
    end = state(page)
    winners = end["table"]["winners"]
    title = page.inner_text("#dialog .winner-title")
    assert title.startswith("You" if winners[0] == 0 else f"{names[winners[0]]} (easy)"), title
    assert page.locator("#dialog #game-over-extra").count() == 1  # the place for the review's button
    shots(page, "game_over_rematch")
    page.click("#rematch-btn")
    page.wait_for_url(f"**/t/{rematch_id(old)}")
    again = wait_seated(page)
    assert again["you"] == 0 and again["table"]["id"] == rematch_id(old)
    assert again["table"]["names"] == names and again["table"]["kinds"] == first["table"]["kinds"]
    assert again["table"]["bots"] == first["table"]["bots"] and again["table"]["target"] == 1
    assert not again["view"]["game_over"] and again["seq"] < 10
    assert "token" not in page.url  # this browser's own token opened the seat
    shots(page, "rematch_table")
    assert not problems, problems
    ctx.close()


def test_a_name_from_an_invite_link_chat_and_axe(server: ServerProcess, browser: Any, axe: str) -> None:
    """Ann's friend opens the invite link of a seat with no name: a dialog asks for one before
    playing, prefilled from the profile; a name taken is refused in the dialog, then "Zoe" is
    taken and Ann sees it at once. The two chat: Enter sends, each sees the other's line as
    text (markup stays text). axe-core: the name dialog, and the table with the chat open."""
    table = create_table(server, [{"kind": "human", "name": "Ann"}, {"kind": "human"},
                                  {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}])
    ann_ctx = context(browser, DESKTOP, bypass_csp=True)  # axe is injected as an inline script
    zoe_ctx = context(browser, DESKTOP, bypass_csp=True)
    status, made = http("POST", server.url + "/api/players", {"name": "Zoe"})  # Zoe's profile, in her browser
    assert status in (200, 201), made
    profile = json.dumps({"id": made["id"], "name": made["name"], "key": made["key"]})
    zoe_ctx.add_init_script(f"localStorage.setItem('pyhearts.player', {json.dumps(profile)})")
    ann, zoe = page_of(ann_ctx), page_of(zoe_ctx)
    problems = watch_console(ann) + watch_console(zoe)
    ann.goto(table["seats"][0]["link"])
    wait_seated(ann)
    assert ann.is_hidden("#overlay")  # Ann's name was chosen by her
    zoe.goto(table["seats"][1]["link"])
    zoe.wait_for_selector("#name-input")
    assert zoe.input_value("#name-input") == "Zoe"  # from the profile
    assert serious(zoe, axe) == []  # the invite's name dialog
    shots(zoe, "invite_name")
    zoe.fill("#name-input", "ann")
    zoe.click("#name-ok")
    zoe.wait_for_function("() => document.getElementById('name-error').textContent.includes(\"another player's name\")")
    assert zoe.is_visible("#name-input")
    zoe.fill("#name-input", "Zoe")
    zoe.keyboard.press("Enter")
    zoe.wait_for_selector("#overlay", state="hidden")
    ann.wait_for_function("() => window.heartsState.table.names[1] === 'Zoe'")
    assert ann.inner_text('#opponents .seat[data-seat="1"] .name') == "Zoe"
    assert zoe.inner_text("#conn") == "connected as Zoe"
    # Chat: Zoe writes, Ann reads (and answers), by Enter.
    zoe.fill("#chat-input", "hi Ann <b>not bold</b>")
    zoe.keyboard.press("Enter")
    ann.wait_for_selector("#chat-lines li")
    assert ann.inner_text("#chat-lines li") == "Zoe: hi Ann <b>not bold</b>"
    assert ann.locator("#chat-lines li b").count() == 1  # only the name is bold: the text is text
    assert zoe.input_value("#chat-input") == ""
    ann.fill("#chat-input", "welcome, Zoe!")
    ann.keyboard.press("Enter")
    zoe.wait_for_function("() => document.querySelectorAll('#chat-lines li').length === 2")
    assert zoe.locator("#chat-lines li").all_inner_texts() == ["Zoe: hi Ann <b>not bold</b>", "Ann: welcome, Zoe!"]
    assert ann.get_attribute("#chat-toggle", "aria-expanded") == "true"
    assert serious(ann, axe) == []  # the table with the chat open
    shots(ann, "chat")
    assert not problems, problems
    ann_ctx.close()
    zoe_ctx.close()


def at_seat(browser: Any, link: str, route: Any = None) -> tuple[Any, Any, list[str]]:
    """A desktop page seated by its invite ``link``: its context, the page and its console's
    problems; ``route``: a handler of the page's WebSocket, set before it opens."""
    ctx = context(browser, DESKTOP)
    page = page_of(ctx)
    problems = watch_console(page)
    if route is not None:
        page.route_web_socket("**/ws/**", route)
    page.goto(link)
    wait_seated(page)
    return ctx, page, problems


def test_a_hint_is_highlighted_in_the_hand(server: ServerProcess, browser: Any) -> None:
    """At the pass, H asks for a hint: "Hint: pass …" and its three cards highlighted in the
    hand (the cards of the hint the server sent)."""
    table = create_table(server, [{"kind": "human", "name": "Kim"}] + [{"kind": "bot", "level": "easy"}] * 3)
    ctx, page, problems = at_seat(browser, table["seats"][0]["link"])
    page.wait_for_function("() => window.heartsState.view.must_pass && window.heartsState.seq === 3")
    assert page.is_visible("#hint-btn")
    page.keyboard.press("h")
    page.wait_for_selector("#hand .card.hinted", timeout=45_000)  # (a busy machine may start a worker process)
    text = page.inner_text("#hint")
    assert text.startswith("Hint: pass ") and len(text.split()) == 5, text
    hinted = page.evaluate("[...document.querySelectorAll('#hand .card.hinted')].map(b => b.dataset.card)")
    assert len(hinted) == 3 and set(hinted) <= set(state(page)["view"]["hand"])
    suits = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
    words = {(c[0] if c[0] != "T" else "10") + suits[c[1]] for c in hinted}
    assert set(text.split()[2:]) == words
    shots(page, "hint")
    assert not problems, problems
    ctx.close()


def test_a_hint_at_the_pass_stays_while_the_others_pass(server: ServerProcess, browser: Any) -> None:
    """R2.1: the others' passes do not change mine, so the hint of my pass stays shown, its cards
    highlighted, while another seat passes (the browser took it off at the next position); and
    H asked at the next position shows it again without asking the server."""
    import asyncio

    from test_server_store_support import in_thread
    from test_server_support import Client

    table = create_table(server, [{"kind": "human", "name": n} for n in ("Kim", "Lu", "Mo", "Ny")])
    ctx, page, problems = at_seat(browser, table["seats"][0]["link"])
    page.wait_for_function("() => window.heartsState.view.must_pass && window.heartsState.seq === 0")
    page.keyboard.press("h")
    page.wait_for_selector("#hand .card.hinted", timeout=45_000)  # (a busy machine may start a worker process)
    hinted = page.evaluate("[...document.querySelectorAll('#hand .card.hinted')].map(b => b.dataset.card)")
    text = page.inner_text("#hint")

    async def lu_passes() -> None:
        lu = await Client(server, table["id"], table["seats"][1]["token"]).connect()
        assert lu.state is not None
        await lu.send({"type": "pass", "seq": lu.state["seq"], "cards": lu.state["view"]["hand"][:3]})
        await lu.wait(lambda m: m["type"] == "state" and m["seq"] == 1)
        await lu.close()

    in_thread(lambda: asyncio.run(lu_passes()))  # (Playwright's own event loop runs in this thread)
    page.wait_for_function("() => window.heartsState.seq === 1")
    assert page.is_visible("#hint") and page.inner_text("#hint") == text
    assert page.evaluate("[...document.querySelectorAll('#hand .card.hinted')].map(b => b.dataset.card)") == hinted
    page.keyboard.press("h")
    assert page.inner_text("#hint") == text
    assert not problems, problems
    ctx.close()


def test_a_hint_still_awaited_when_i_act_is_put_away(server: ServerProcess, browser: Any) -> None:
    """A hint that does not come before I act never comes (the server drops the hint of a
    decision made): the box "Thinking about a hint…" goes once I have passed (it stayed for
    good). The test holds the hint back at the page's WebSocket, as if I had passed first. The
    hard case: the bots have passed before me and I hold the 2♣ (R3.1), so my pass ends the
    passing and it is my turn again at once (the box stayed: it was asked at my turn, and went
    only when my turn did)."""
    from test_web_browser import act_by_clicks

    held: list[str] = []

    def hold_hints(ws: Any) -> None:
        to_server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "hint":
                held.append(message)
            else:
                ws.send(message)

        to_server.on_message(to_page)

    for _ in range(40):  # (a deal gives me the 2♣ one time in four)
        table = create_table(server, [{"kind": "human", "name": "Kim"}] + [{"kind": "bot", "level": "easy"}] * 3)
        ctx, page, problems = at_seat(browser, table["seats"][0]["link"], hold_hints)
        page.wait_for_function("() => window.heartsState.view.must_pass")
        hand = page.evaluate("() => window.heartsState.view.hand")
        if "2C" in hand[:-3]:  # (the pass below gives the last three away)
            break
        ctx.close()
    else:
        raise AssertionError("no deal of 40 gave seat 0 the 2♣ to keep")
    page.keyboard.press("h")
    page.wait_for_function("() => !document.getElementById('hint').hidden")
    assert page.inner_text("#hint") == "Thinking about a hint…"
    page.wait_for_function("() => window.heartsState.seq >= 3", timeout=60_000)  # the bots have passed (R2.1)
    assert act_by_clicks(page)  # my pass, which keeps the 2♣ (the hand's last three cards go)
    page.wait_for_function("() => !window.heartsState.view.must_pass && window.heartsState.view.to_move === 0")
    page.wait_for_function("() => document.getElementById('hint').hidden")
    assert page.inner_text("#hint") == ""
    assert not problems, problems
    ctx.close()
