// pyhearts web table: your player profile, without a password. A name and a secret key that
// this browser keeps (localStorage "pyhearts.player" = {id, name, key}; the server stores only
// the key's hash). Requests act as the profile with "Authorization: Bearer <key>" (auth()).
// A first visit to the lobby offers to make one (a small welcome form, never in the way); a
// first table made with a typed name makes one too (adopt()). The profile page (/me): your
// name (editable), your rating, whom you muted and blocked (company.js: undone there), and
// export / import: the key with a copy button, and a link /me#import=<key> that another
// browser opens to take the profile (after confirming).
//
//   current()        // {id, name, key} or null (profile.js)
//   adopt(name)      // a first table's typed name makes a profile, if there is none
//   claimSeat()      // the table page's seat (its token) is linked to the profile, once
//   check()          // the server still knows the stored key (else it is forgotten); the
//                    // settings remembered with the profile followed (language, guide.js's)
//   checked()        // the page's first check: a promise of the profile (or null)
//   forget()         // forgets the profile in this browser
//   start()          // the header's link, the lobby's welcome, the table's seat claimed
//   showProfile()    // the profile page (/me)
//   signInWithPasskey(), addPasskey(name)   // WebAuthn: navigator.credentials.get / create
// Passkeys: a profile adds some on its page (several: one per device or password manager);
// another browser signs in with one (no key there: the server's session cookie), lists the
// profile's unfinished games and continues them in its seat; "Sign out everywhere" ends every
// session of the profile (its key stays valid: the fallback).
import { $, el, call as request } from "./ui.js";
import { _, ngettext, choose, chosen, lang, languages } from "./i18n.js";
import { current, store, clear, auth } from "./profile.js";
import { companyPanel } from "./company.js";
import { followGuide } from "./guide.js";

const LATER = "pyhearts.welcome";

// ---------------------------------------------------------------- the stored profile
// Kept or forgotten (profile.js), and the header shows it.
// A profile kept here answers the lobby's welcome too: it asks for a name no more.
function keep(p) {
  store(p);
  showNav();
  greet(p);
}
function forget() {
  clear();
  showNav();
}

// A JSON request as the profile (or with ``key``); a refusal is an Error with its status.
const call = (method, path, body, key) => request(method, path, body, key ? auth(key) : undefined);

async function create(name) {
  const p = await call("POST", "/api/players", { name });
  keep(p);
  if (chosen()) saveLanguage(chosen());  // the language chosen before the profile: now the profile's
  followGuide(p);  // and the guided first game of this browser (guide.js)
  return p;
}

// Makes a profile from the name typed at a first table (the new-table form's, or the one a
// table asked for: Play now, an invite link), if this browser has none: one identity.
async function adopt(name) {
  const typed = (name || "").trim();
  if (current() || !typed || typed === "You") return;
  try { await create(typed); } catch (e) { /* the table is made without one */ }
}

// The stored key is still known to the server (a new database forgets it): else forgotten.
async function check() {
  const p = current();
  if (!p) return null;
  try {
    const me = await call("GET", "/api/me");
    if (me.name !== p.name) keep({ ...p, name: me.name });
    followLanguage(me.language);
    followGuide(me);
    return me;
  } catch (e) {
    if (e.status === 401) forget();
    return null;
  }
}

// ---------------------------------------------------------------- the profile's language
// The language chosen in the settings is the profile's too (PATCH /api/me), so another browser
// of the same profile shows it; a profile's language differing from this page's is taken.
async function saveLanguage(code) {
  if (!current()) return;
  try { await call("PATCH", "/api/me", { language: code }); } catch (e) { /* kept in this browser all the same */ }
}
function followLanguage(code) {
  if (code && code !== lang() && languages().some((l) => l.code === code)) choose(code);
}

// ---------------------------------------------------------------- the header
function showNav() {
  const me = $("nav-me"), p = current();
  if (me) me.textContent = p ? p.name : _("Your profile");
  for (const a of document.querySelectorAll(".site-nav a")) {
    if (a.getAttribute("href") === location.pathname) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

// ---------------------------------------------------------------- the welcome (lobby)
function welcome() {
  const lobby = $("lobby");
  if (!lobby || current() || localStorage.getItem(LATER) || location.pathname !== "/") return;
  const name = el("input", { id: "welcome-name", maxlength: "40", autocomplete: "nickname", required: true });
  const box = el("div", { class: "panel welcome", id: "welcome", role: "region", "aria-labelledby": "welcome-title" },
    el("h2", { id: "welcome-title", text: _("Welcome! What should we call you?") }),
    el("p", { class: "note", text: _("A name keeps your games and your rating. No password: this browser keeps a key for you (take it to another browser from your profile page).") }));
  const form = el("form", { class: "row welcome-form" },
    el("label", { for: "welcome-name" }, _("Your name"), name),
    el("button", { type: "submit", class: "primary", id: "welcome-save", text: _("Save my name") }),
    el("button", { type: "button", class: "small", id: "welcome-later", text: _("Not now"), onclick: () => { localStorage.setItem(LATER, "1"); box.remove(); } }));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try { await create(name.value); } catch (e) { say(box, e.message); }  // keep() greets
  });
  box.append(form);
  lobby.prepend(box);
}

// The welcome box, if it still asks for a name, greets the profile ``p`` instead (made by the
// box, by the new-table form or elsewhere), then goes.
function greet(p) {
  const box = $("welcome");
  if (!box || !box.querySelector("form")) return;
  box.replaceChildren(el("p", { class: "welcome-done", role: "status", text: _("Hello {name}! Your profile is ready.", { name: p.name }) }));
  setTimeout(() => box.remove(), 2500);
}

// A message in ``box`` (replacing the last one).
function say(box, text, kind) {
  let m = box.querySelector(".page-message");
  if (!m) { m = el("p", { class: "page-message", role: "alert" }); box.append(m); }
  m.className = "page-message" + (kind ? " " + kind : "");
  m.textContent = text;
}

// ---------------------------------------------------------------- an invited seat is yours
// A table page opened with a seat's token (kept by tablepage.js in localStorage "pyhearts:<id>")
// links that seat to the profile, once (at the page's load, and once a profile is made there).
async function claimSeat() {
  const m = location.pathname.match(/^\/t\/([A-Za-z0-9_-]+)/);
  if (!m || !current()) return;
  const token = localStorage.getItem("pyhearts:" + m[1]), done = "pyhearts.claimed:" + m[1];
  if (!token || localStorage.getItem(done) === token) return;
  try {
    await call("POST", "/api/tables/" + m[1] + "/claim", { token });
    localStorage.setItem(done, token);
  } catch (e) { if (e.status === 409 || e.status === 403) localStorage.setItem(done, token); }
}

// ---------------------------------------------------------------- passkeys (WebAuthn)
// The server's options and the browser's credentials cross as JSON, binary fields in base64url.
const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
const base64url = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const descriptors = (list) => (list || []).map((c) => ({ ...c, id: bytes(c.id) }));

function credentialJSON(c) {
  const r = c.response;
  const response = { clientDataJSON: base64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = base64url(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  }
  if (r.authenticatorData) {
    response.authenticatorData = base64url(r.authenticatorData);
    response.signature = base64url(r.signature);
    if (r.userHandle) response.userHandle = base64url(r.userHandle);
  }
  return { id: c.id, rawId: base64url(c.rawId), type: c.type, response, clientExtensionResults: c.getClientExtensionResults() };
}

async function addPasskey(name) {
  const o = await call("POST", "/api/passkeys/options");
  const made = await navigator.credentials.create({ publicKey: {
    ...o, challenge: bytes(o.challenge), user: { ...o.user, id: bytes(o.user.id) }, excludeCredentials: descriptors(o.excludeCredentials) } });
  return call("POST", "/api/passkeys", { credential: credentialJSON(made), name });
}

async function signInWithPasskey() {
  const o = await call("POST", "/api/session/options");
  const got = await navigator.credentials.get({ publicKey: { ...o, challenge: bytes(o.challenge), allowCredentials: descriptors(o.allowCredentials) } });
  const me = await call("POST", "/api/session", { credential: credentialJSON(got) });
  keep({ id: me.id, name: me.name, key: null });
  followLanguage(me.language);
  followGuide(me);
  return me;
}

// A passkey's failure in words: the browser's refusal (cancelled, or no passkey of this site; an
// address by IP, which no passkey can be for), or the server's.
const passkeyError = (e) => (e && e.name === "NotAllowedError" ? _("No passkey was used (cancelled, or none of this site's).")
  : e && e.name === "SecurityError" ? _("Passkeys need the server's name in the address (such as localhost), not its IP address.") : e.message);
const when = (iso) => new Date(iso).toLocaleDateString(lang(), { dateStyle: "medium" });

// The profile page's passkeys: each with its name and date, a button that removes it, one that
// adds one (named), and "Sign out everywhere".
function passkeyPanel() {
  const list = el("ul", { class: "passkeys", id: "passkey-list" });
  const box = el("div", { class: "panel", id: "profile-passkeys" }, el("h2", { text: _("Passkeys") }),
    el("p", { class: "note", text: _("Sign in on your other devices with a passkey (this device's, your phone's, a password manager's): no key to copy. Your key still works everywhere.") }), list);
  const draw = (keys) => list.replaceChildren(...(keys.length ? keys.map((k) => el("li", { "data-passkey": k.id },
    el("b", { text: k.name }), " · " + _("added {date}", { date: when(k.created) }) + " ",
    el("button", { type: "button", class: "small remove-passkey", text: _("Remove"), onclick: async () => {
      try { draw((await call("DELETE", "/api/passkeys/" + encodeURIComponent(k.id))).passkeys); } catch (e) { say(box, e.message); }
    } }))) : [el("li", { class: "note", text: _("No passkey yet.") })]));
  const name = el("input", { id: "passkey-name", maxlength: "60", value: _("this device") });
  const add = el("button", { type: "button", class: "primary", id: "add-passkey", text: _("Add a passkey"), onclick: async () => {
    try {
      draw((await addPasskey(name.value)).passkeys);
      say(box, _("Passkey added: sign in with it on your other devices."), "ok");
    } catch (e) { say(box, passkeyError(e)); }
  } });
  if (!window.PublicKeyCredential) add.disabled = true;
  const everywhere = el("button", { type: "button", class: "small", id: "sign-out-everywhere", text: _("Sign out everywhere"), onclick: async () => {
    try {
      const r = await call("POST", "/api/me/sign-out-everywhere");
      if (!current().key) { forget(); showProfile(); return; }  // this browser was one of them
      say(box, ngettext("{n} session signed out: your passkeys sign in again.", "{n} sessions signed out: your passkeys sign in again.", r.ended), "ok");
    } catch (e) { say(box, e.message); }
  } });
  box.append(el("div", { class: "row" }, el("label", { for: "passkey-name" }, _("Name"), name), add), el("p", {}, everywhere));
  call("GET", "/api/passkeys").then((r) => draw(r.passkeys)).catch((e) => say(box, e.message));
  return box;
}

// Signed in with a passkey (no key in this browser): say so, and sign out here.
function sessionPanel() {
  return el("div", { class: "panel", id: "profile-session" }, el("h2", { text: _("Signed in with a passkey") }),
    el("p", { class: "note", text: _("This browser holds no key: your passkey signs you in.") }),
    el("button", { type: "button", class: "small", id: "sign-out", text: _("Sign out"), onclick: async () => {
      try { await call("DELETE", "/api/session"); } catch (e) { /* forgotten here all the same */ }
      forget();
      showProfile();
    } }));
}

// The profile's unfinished games, each to continue in its seat (tablepage.js asks for a ticket).
async function unfinishedPanel() {
  let games = [];
  try { games = (await call("GET", "/api/me/games")).games.filter((g) => !g.finished); } catch (e) { return null; }
  if (!games.length) return null;
  const others = (g) => g.players.filter((p) => !p.you).map((p) => p.name).join(", ");
  return el("div", { class: "panel", id: "profile-unfinished" }, el("h2", { text: _("Your unfinished games") }),
    el("ul", { class: "links" }, ...games.map((g) => el("li", { "data-table": g.id },
      el("a", { href: "/t/" + g.id, class: "button-link continue-link", text: _("Continue") }), " " + _("with {names}", { names: others(g) })))));
}

function passkeySignIn() {
  const box = el("div", { class: "panel", id: "passkey-sign-in" }, el("h2", { text: _("Sign in with a passkey") }),
    el("p", { class: "note", text: _("Your profile on this device too, with a passkey you added to it on another one.") }));
  box.append(el("button", { type: "button", class: "primary", id: "passkey-sign-in-btn", text: _("Sign in with a passkey"), onclick: async () => {
    try { await signInWithPasskey(); showProfile(); } catch (e) { say(box, passkeyError(e)); }
  } }));
  return box;
}

// ---------------------------------------------------------------- the profile page (/me)
function copyControl(text, label, id) {
  const b = el("button", { type: "button", class: "small copy", id, "aria-label": label, text: _("Copy") });
  b.addEventListener("click", async () => {
    let ok = false;
    try { await navigator.clipboard.writeText(text); ok = true; } catch (e) {
      const field = b.previousElementSibling;
      if (field && field.select) { field.select(); try { ok = document.execCommand("copy"); } catch (x) { ok = false; } }
    }
    b.textContent = ok ? _("Copied ✓") : _("Press Ctrl+C");
    setTimeout(() => { b.textContent = _("Copy"); }, 2500);
  });
  return b;
}

async function showProfile() {
  const page = $("profile-page");
  page.hidden = false;
  document.title = "pyhearts — " + _("your profile");
  const wanted = new URLSearchParams(location.hash.slice(1)).get("import");
  if (wanted) { await offerImport(page, wanted); return; }
  let me = await check();
  for (let i = 0; !me && current() && i < 3; i++) {  // no answer (not "no such profile"): ask again
    await new Promise((done) => setTimeout(done, 1000));
    me = await check();
  }
  page.textContent = "";
  page.append(el("h1", { id: "profile-title", text: _("Your profile") }));
  if (!me && current()) {
    page.append(el("p", { class: "page-message", role: "alert", text: _("The server did not answer; your profile is kept in this browser. Reload the page to try again.") }));
    return;
  }
  if (!me) { page.append(passkeySignIn(), newProfileForm(), importForm()); return; }
  const p = current();
  const name = el("input", { id: "profile-name", value: me.name, maxlength: "40", required: true, autocomplete: "nickname" });
  const rename = el("form", { class: "row", id: "rename-form" }, el("label", { for: "profile-name" }, _("Your name"), name),
    el("button", { type: "submit", class: "primary", id: "rename-btn", text: _("Save") }));
  const box = el("div", { class: "panel" }, el("h2", { text: _("Name") }), rename);
  rename.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const got = await call("PATCH", "/api/me", { name: name.value });
      keep({ ...current(), name: got.name });
      name.value = got.name;
      say(box, _("Saved: you are {name} at your next tables.", { name: got.name }), "ok");
    } catch (e) { say(box, e.message); }
  });
  const r = me.rating;
  const rating = el("div", { class: "panel", id: "profile-rating" }, el("h2", { text: _("Rating") }),
    el("p", {}, el("b", { class: "big-rating", id: "my-rating", text: String(r.shown) }),
      (r.provisional ? _("provisional") + ", " : "") + ngettext("after {n} rated game", "after {n} rated games", r.games) + " (" + _("skill {mu} ± {range}", { mu: r.mu.toFixed(1), range: (3 * r.sigma).toFixed(1) }) + ")"),
    el("p", { class: "note", text: _("Your rating is a cautious estimate of your skill, from 0 up: it rises as rated games show more of it, and stays provisional for your first few. Bots have fixed ratings and anchor the scale.") }),
    el("p", {}, el("a", { href: "/games", text: _("My games") }), " · ", el("a", { href: "/leaderboard", text: _("Leaderboard") })));
  const unfinished = await unfinishedPanel();
  if (unfinished) page.append(unfinished);
  if (!p.key) { page.append(box, rating, companyPanel(), passkeyPanel(), sessionPanel()); return; }
  const link = location.origin + "/me#import=" + encodeURIComponent(p.key);
  const keyField = el("input", { id: "profile-key", value: p.key, readonly: true, spellcheck: "false", class: "secret" });
  const linkField = el("input", { id: "import-link", value: link, readonly: true, spellcheck: "false", class: "secret" });
  const exporting = el("div", { class: "panel", id: "profile-export" }, el("h2", { text: _("Use this profile in another browser") }),
    el("p", { class: "note", text: _("Open this link in the other browser (or paste the key there, on its profile page). Whoever has it plays as you: keep it like a password.") }),
    el("div", { class: "copy-row" }, el("label", { for: "import-link", text: _("Link") }), linkField, copyControl(link, _("Copy the link to your profile"), "copy-link")),
    el("div", { class: "copy-row" }, el("label", { for: "profile-key", text: _("Key") }), keyField, copyControl(p.key, _("Copy your key"), "copy-key")),
    el("button", { type: "button", class: "small", id: "forget-btn", text: _("Forget this profile in this browser"), onclick: () => {
      if (!window.confirm(_("Forget {name} in this browser? Keep your key first if you want it back.", { name: p.name }))) return;
      forget();
      showProfile();
    } }));
  page.append(box, rating, companyPanel(), passkeyPanel(), exporting);
}

function newProfileForm() {
  const name = el("input", { id: "new-name", maxlength: "40", required: true, autocomplete: "nickname" });
  const form = el("form", { class: "row" }, el("label", { for: "new-name" }, _("Your name"), name),
    el("button", { type: "submit", class: "primary", id: "new-profile-btn", text: _("Make my profile") }));
  const box = el("div", { class: "panel" }, el("h2", { text: _("Make a profile") }),
    el("p", { class: "note", text: _("A name keeps your games and a rating. No password: this browser keeps a key for you.") }), form);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try { await create(name.value); showProfile(); } catch (e) { say(box, e.message); }
  });
  return box;
}

function importForm() {
  const key = el("input", { id: "import-key", spellcheck: "false", autocomplete: "off", required: true });
  const form = el("form", { class: "row" }, el("label", { for: "import-key" }, _("Your key"), key),
    el("button", { type: "submit", id: "import-key-btn", text: _("Use this key") }));
  const box = el("div", { class: "panel" }, el("h2", { text: _("Already have a profile?") }), form);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    history.replaceState(null, "", "/me#import=" + encodeURIComponent(key.value.trim()));
    showProfile();
  });
  return box;
}

// /me#import=<key>: whose profile it is, then take it after the person confirms.
async function offerImport(page, key) {
  page.textContent = "";
  page.append(el("h1", { id: "profile-title", text: _("Use a profile in this browser") }));
  const box = el("div", { class: "panel", id: "import-box" });
  page.append(box);
  const done = () => { history.replaceState(null, "", "/me"); showProfile(); };
  let found;
  try { found = await call("GET", "/api/me", null, key); } catch (e) {
    box.append(el("p", { role: "alert", text: e.status === 401 ? _("This link's key is not known here: no profile to use.") : e.message }),
      el("button", { type: "button", class: "small", text: _("Back to your profile"), onclick: done }));
    return;
  }
  const mine = current();
  const replacing = mine && mine.id !== found.id;
  const [before, after] = _("Use the profile {name} in this browser?").split("{name}");
  box.append(el("p", {}, before, el("b", { class: "import-name", text: found.name }), after));
  if (replacing) box.append(el("p", { class: "note", text: _("It takes the place of {name} here (keep {name}'s key first if you want it back).", { name: mine.name }) }));
  box.append(el("div", { class: "buttons" },
      el("button", { type: "button", class: "primary", id: "import-yes", text: _("Yes, use {name}", { name: found.name }), onclick: () => { keep({ id: found.id, name: found.name, key }); followGuide(found); done(); } }),
      el("button", { type: "button", id: "import-no", text: _("No"), onclick: done })));
  $("import-yes").focus();
}

// The profile page (/me); a link to another profile's import opens there too.
function showProfilePage() {
  window.addEventListener("hashchange", () => { if (location.hash.startsWith("#import=")) showProfile(); });
  return showProfile();
}

// Every page: the header's link, the stored key checked, the lobby's welcome, a seat claimed.
// checked(): the profile as the server gave it then (null: none, or no answer).
let checking = Promise.resolve(null);
const checked = () => checking;
function start() {
  showNav();
  checking = check();
  welcome();
  window.addEventListener("load", claimSeat);
}

export { current, adopt, claimSeat, check, checked, forget, start, showProfilePage, saveLanguage, signInWithPasskey, addPasskey };
