"""Passkeys across devices (issue 42, item 3), in Chromium with its virtual authenticator (the
DevTools protocol's ``WebAuthn.enable`` and ``WebAuthn.addVirtualAuthenticator``, through
Playwright's CDP session).

A profile made in one browser (its key) adds a passkey on its profile page, then a second one;
a second browser context, holding that passkey, signs in with it (a session cookie:
``HttpOnly``, ``SameSite=Lax``, not ``Secure`` over plain HTTP), sees the profile's unfinished
game and continues it in its seat (it passes its cards there); with the cookie alone it makes a
table of the profile's and joins the quick match, as the key does. A forged assertion (its
signature changed) and a passkey the server does not know are refused with nothing changed (no
session, the passkey's counter and last use as they were). "Sign out everywhere" ends the
second browser's session; the key still works. WebAuthn needs a secure context, and a relying
party named by a host name, never an IP address: the pages are opened at http://localhost.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import test_web_browser
import test_web_lively
from test_server_support import ServerProcess, create_table, http, request
from test_web_browser import ARTIFACTS, TIMEOUT, act_by_clicks, state, wait_seated
from test_web_lively import serious

browser = test_web_browser.browser  # the fixtures: Debian's chromium, a server process (no bot delay)
server = test_web_browser.server
axe = test_web_lively.axe  # axe-core from npm (skipped without it)

AUTHENTICATOR = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
                 "isUserVerified": True, "automaticPresenceSimulation": True}

# The browser's own calls, with the credential changed before it is sent: a forged assertion.
FORGED = """async () => {
  const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const post = (path, body) => fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const o = await (await post("/api/session/options", {})).json();
  const c = await navigator.credentials.get({ publicKey: { ...o, challenge: bytes(o.challenge) } });
  const signature = new Uint8Array(c.response.signature);
  signature[signature.length - 1] ^= 1;
  const forged = { id: c.id, rawId: b64(c.rawId), type: c.type, clientExtensionResults: {}, response: {
    clientDataJSON: b64(c.response.clientDataJSON), authenticatorData: b64(c.response.authenticatorData),
    signature: b64(signature), userHandle: c.response.userHandle ? b64(c.response.userHandle) : undefined } };
  const unknown = { ...forged, id: "AAAA", rawId: "AAAA", response: { ...forged.response, signature: b64(c.response.signature) } };
  const first = await post("/api/session", { credential: forged });
  const o2 = await (await post("/api/session/options", {})).json();
  const c2 = await navigator.credentials.get({ publicKey: { ...o2, challenge: bytes(o2.challenge) } });
  const stranger = { ...unknown, response: { clientDataJSON: b64(c2.response.clientDataJSON), authenticatorData: b64(c2.response.authenticatorData),
    signature: b64(c2.response.signature) } };
  const second = await post("/api/session", { credential: stranger });
  return [first.status, (await first.json()).code, second.status, (await second.json()).code];
}"""


def with_authenticator(ctx: Any, page: Any) -> tuple[Any, str]:
    """A virtual authenticator for ``page`` (a platform one, user verified, always present)."""
    cdp = ctx.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, made["authenticatorId"]


def profile_context(browser: Any, profile: dict[str, Any] | None) -> Any:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    settings = {"trickPause": 0.5, "motion": "reduced"}
    ctx.add_init_script(f"localStorage.setItem('pyhearts:settings', {json.dumps(json.dumps(settings))})")
    if profile is not None:  # (once: a profile forgotten or replaced on a page stays so)
        stored = json.dumps({"id": profile["id"], "name": profile["name"], "key": profile["key"]})
        ctx.add_init_script("if (!localStorage.getItem('test:seeded')) { localStorage.setItem('test:seeded', '1');"
                            f" localStorage.setItem('pyhearts.player', {json.dumps(stored)}); }}")
    return ctx


def local(server: ServerProcess) -> str:
    """The server's address by name (a passkey cannot be for 127.0.0.1)."""
    return server.url.replace("127.0.0.1", "localhost")


def as_key(profile: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": "Bearer " + profile["key"]}


def test_a_passkey_signs_in_on_a_second_browser_which_continues_the_game_in_its_seat(
    server: ServerProcess, browser: Any
) -> None:
    status, profile = http("POST", server.url + "/api/players", {"name": "Pia"})
    assert status == 201
    status, table = http("POST", server.url + "/api/tables",
                         {"seats": [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 3}, as_key(profile))
    assert status == 201  # Pia's seat is her profile's (the table made with her key)

    # The first browser (the key): two passkeys, on two authenticators.
    first = profile_context(browser, profile)
    page = first.new_page()
    page.set_default_timeout(TIMEOUT)
    cdp, authenticator = with_authenticator(first, page)
    page.goto(local(server) + "/me")
    page.fill("#passkey-name", "laptop")
    page.click("#add-passkey")
    page.wait_for_selector("#passkey-list li[data-passkey]")
    assert page.inner_text("#passkey-list").startswith("laptop")
    credential = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert len(credential) == 1 and credential[0]["isResidentCredential"]
    cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})  # another device's
    page.fill("#passkey-name", "phone")
    page.click("#add-passkey")
    page.wait_for_function("() => document.querySelectorAll('#passkey-list li[data-passkey]').length === 2")
    status, listed = http("GET", server.url + "/api/passkeys", headers=as_key(profile))
    assert status == 200 and [k["name"] for k in listed["passkeys"]] == ["laptop", "phone"]
    assert all(k["used"] is None for k in listed["passkeys"])

    # The second browser holds the laptop's passkey: it signs in, and nothing else (no key).
    second = profile_context(browser, None)
    other = second.new_page()
    other.set_default_timeout(TIMEOUT)
    cdp2, authenticator2 = with_authenticator(second, other)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": authenticator2, "credential": credential[0]})
    other.goto(local(server) + "/me")

    # A forged assertion, and a credential the server does not know: refused, nothing changed.
    assert other.evaluate(FORGED) == [401, "bad_passkey", 401, "bad_passkey"]
    assert second.cookies() == []
    status, after = http("GET", server.url + "/api/passkeys", headers=as_key(profile))
    assert after == listed

    other.click("#passkey-sign-in-btn")
    other.wait_for_selector("#profile-unfinished a.continue-link")
    assert other.inner_text("#nav-me") == "Pia"
    stored = json.loads(other.evaluate("localStorage.getItem('pyhearts.player')"))
    assert stored == {"id": profile["id"], "name": "Pia", "key": None}  # no key in this browser
    (cookie,) = [c for c in second.cookies() if c["name"] == "pyhearts_session"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and not cookie["secure"]
    assert other.evaluate("document.cookie") == ""  # (HttpOnly: no script reads it)
    status, after = http("GET", server.url + "/api/passkeys", headers=as_key(profile))
    assert [k["used"] is not None for k in after["passkeys"]] == [True, False]
    ARTIFACTS.mkdir(exist_ok=True)
    other.screenshot(path=str(ARTIFACTS / "passkeys_signed_in.png"))

    # The unfinished game, continued in Pia's seat: her hand, and she passes there.
    other.click(f"#profile-unfinished li[data-table='{table['id']}'] a.continue-link")
    seen = wait_seated(other)
    assert seen["you"] == 0 and len(seen["view"]["hand"]) == 13
    other.wait_for_function("() => window.heartsState.view.must_pass")
    assert act_by_clicks(other)
    other.wait_for_function("() => window.heartsState.view.hand.length !== 13 || !window.heartsState.view.must_pass")
    status, facts = http("GET", f"{server.url}/api/tables/{table['id']}")
    assert status == 200 and facts["seq"] > 0  # (her pass, then the bots' plays)
    assert state(other)["you"] == 0

    # The cookie works where the key does: a table made is the profile's, the quick match queues it.
    made = other.evaluate("""async () => (await (await fetch('/api/tables', {method: 'POST', headers: {'Content-Type':
        'application/json'}, body: JSON.stringify({seats: [{kind: 'human'}, {kind: 'bot'}, {kind: 'bot'}, {kind: 'bot'}]})})).json()).id""")
    status, games = http("GET", server.url + "/api/me/games", headers=as_key(profile))
    assert status == 200 and {g["id"] for g in games["games"]} == {table["id"], made}
    quick = """() => new Promise((done) => {
      const ws = new WebSocket('ws://' + location.host + '/ws/lobby/quick'), said = [];
      ws.onopen = () => ws.send(JSON.stringify({type: 'quick', fill_after: 300}));
      ws.onmessage = (e) => { said.push(JSON.parse(e.data).type); if (said.length === 1) ws.send(JSON.stringify({type: 'leave'})); else { ws.close(); done(said); } };
    })"""
    assert other.evaluate(quick) == ["queued", "left"]

    # Sign out everywhere, from the first browser (its key): the second one's session ends.
    page.goto(local(server) + "/me")
    page.click("#sign-out-everywhere")
    page.wait_for_selector("#profile-passkeys .page-message.ok")
    asked = "async (id) => [(await fetch('/api/me')).status, (await fetch('/api/tables/' + id + '/ticket', {method: 'POST'})).status]"
    assert other.evaluate(asked, table["id"]) == [401, 401]
    other.reload()  # its seat ticket is revoked too: the seat is not its any more
    other.wait_for_function("() => document.getElementById('prompt').textContent.includes('opens no seat')")
    status, me = http("GET", server.url + "/api/me", headers=as_key(profile))
    assert status == 200 and me["name"] == "Pia"  # the key still works
    first.close()
    second.close()


def decided(page: Any) -> bool:
    """Whether the lobby offers the guided first game, once it has decided (its box's
    ``data-offered``, set after the profile's own answer; or the box shown)."""
    page.wait_for_selector("#guide-offer[data-offered], #guide-offer:not([hidden])", state="attached")
    return bool(page.is_visible("#guide-offer"))


def guide_of(server: ServerProcess, profile: dict[str, Any], status: str) -> dict[str, Any]:
    """The profile's guide as the server keeps it (``GET /api/me``), once its status is ``status``."""
    import time

    deadline = time.monotonic() + 10
    while True:
        me = http("GET", server.url + "/api/me", headers=as_key(profile))[1]
        if (me.get("guide") or {}).get("status") == status or time.monotonic() > deadline:
            guide: dict[str, Any] = me.get("guide")
            return guide


def test_the_guided_first_game_is_offered_once_to_a_profile_on_any_device(server: ServerProcess, browser: Any) -> None:
    """The guide's offer belongs to the profile (issue 42): Vic says "No, thanks" in one browser;
    a second browser signed in as Vic with a passkey is not offered it. In the first browser a new
    profile (Vic forgotten there) is offered it all the same."""
    status, vic = http("POST", server.url + "/api/players", {"name": "Vic"})
    assert status == 201
    first = profile_context(browser, vic)
    page = first.new_page()
    page.set_default_timeout(TIMEOUT)
    cdp, authenticator = with_authenticator(first, page)
    page.goto(local(server) + "/")
    assert decided(page)
    page.click("#guide-no")
    assert guide_of(server, vic, "skipped") == {"status": "skipped", "table": None, "seen": []}
    page.goto(local(server) + "/me")
    page.click("#add-passkey")
    page.wait_for_selector("#passkey-list li[data-passkey]")
    (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]

    second = profile_context(browser, None)  # another device: Vic's passkey, nothing else
    other = second.new_page()
    other.set_default_timeout(TIMEOUT)
    cdp2, authenticator2 = with_authenticator(second, other)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": authenticator2, "credential": credential})
    other.goto(local(server) + "/me")
    other.click("#passkey-sign-in-btn")
    other.wait_for_selector("#profile-session")
    other.goto(local(server) + "/")
    assert not decided(other)  # skipped on the first device: not offered here
    second.close()

    page.goto(local(server) + "/me")  # a new profile in the first browser: offered it
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#forget-btn")
    page.fill("#new-name", "Wren")
    page.click("#new-profile-btn")
    page.wait_for_selector("#profile-rating")
    wren = json.loads(page.evaluate("localStorage.getItem('pyhearts.player')"))
    assert wren["name"] == "Wren"
    page.goto(local(server) + "/")
    assert decided(page)
    assert guide_of(server, wren, "offered")["status"] == "offered"
    assert guide_of(server, vic, "skipped")["status"] == "skipped"
    first.close()


def test_passkey_requests_without_a_profile_or_with_bad_input_change_nothing(server: ServerProcess) -> None:
    status, profile = http("POST", server.url + "/api/players", {"name": "Quin"})
    assert status == 201
    assert http("POST", server.url + "/api/passkeys/options")[0] == 401
    for body, words in [({}, "'credential' is missing"), ({"credential": "x"}, "must be the browser's credential"),
                        ({"credential": {"response": {}}}, "no clientDataJSON")]:
        status, answer = http("POST", server.url + "/api/passkeys", body, as_key(profile))
        assert status == 400 and words in answer["error"], answer
        status, answer = http("POST", server.url + "/api/session", body)
        assert status == 400 and words in answer["error"], answer
    status, listed = http("GET", server.url + "/api/passkeys", headers=as_key(profile))
    assert status == 200 and listed == {"passkeys": []}
    table = create_table(server, [{"kind": "human", "name": "Rae"}] + [{"kind": "bot", "level": "easy"}] * 3)
    status, answer = http("POST", f"{server.url}/api/tables/{table['id']}/ticket", {}, as_key(profile))
    assert status == 404 and answer["code"] == "not_seated"  # Quin has no seat there


def test_the_session_cookie_is_secure_behind_a_tls_proxy_and_the_relying_party_is_the_forwarded_host(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Behind a trusted proxy that says ``X-Forwarded-Proto: https``, the session cookie is
    ``Secure`` (its clearing, here; its setting goes the same way), ``HttpOnly`` and
    ``SameSite=Lax``; over plain HTTP it is not ``Secure``. The options of a sign-in name the
    host the request came to (the ``Host`` the proxy forwards) as the relying party."""
    proxied = ServerProcess(tmp_path_factory.mktemp("tls") / "tables.db", forwarded_allow_ips="127.0.0.1").start()
    try:
        for proto, secure in (("https", True), ("http", False)):
            status, headers, _ = request("DELETE", proxied.url + "/api/session", headers={"X-Forwarded-Proto": proto})
            cookie = headers["set-cookie"].lower()
            assert status == 200 and cookie.startswith("pyhearts_session=") and "httponly" in cookie
            assert "samesite=lax" in cookie and ("; secure" in cookie) is secure, cookie
        status, _, options = request("POST", proxied.url + "/api/session/options", {},
                                     {"Host": "cards.example.org", "X-Forwarded-Proto": "https"})
        assert status == 200 and options["rpId"] == "cards.example.org" and options["userVerification"] == "preferred"
    finally:
        proxied.stop()


ENGLISH = ["Passkeys need", "Add a passkey", "Sign out everywhere", "No passkey yet", "Sign in with a passkey",
           "this device", "Your unfinished games", "Remove"]


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_the_passkeys_panels_speak_the_language_and_pass_axe(server: ServerProcess, browser: Any, axe: str, lang: str) -> None:
    """The profile page's passkeys (signed in with the key) and the sign-in panel (no profile)
    in German, French and Spanish: none of their English words left, no serious or critical
    axe-core violation."""
    status, profile = http("POST", server.url + "/api/players", {"name": "Ute"})
    assert status == 201
    for who in (profile, None):
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)  # axe is injected
        ctx.add_init_script(f"localStorage.setItem('pyhearts:lang', '{lang}')")
        if who is not None:
            stored = json.dumps({"id": who["id"], "name": who["name"], "key": who["key"]})
            ctx.add_init_script(f"localStorage.setItem('pyhearts.player', {json.dumps(stored)})")
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(local(server) + "/me")
        page.wait_for_selector("#profile-passkeys #passkey-list li" if who else "#passkey-sign-in-btn")
        text = page.inner_text("#profile-page")
        assert [w for w in ENGLISH if w in text] == [], (lang, who is not None)
        assert serious(page, axe) == [], (lang, who is not None)
        ctx.close()


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
