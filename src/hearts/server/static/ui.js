// pyhearts web table: the small helpers every page module shares.
//
//   import { $, el, cardName, cardImg, call, toast, setText, copyButton } from "./ui.js";
//   el("button", { class: "small", text: "Go", onclick: go })   // an element; text is textContent
//   cardName("TH"), cardImg("TH"), cardChip("TH")                // "10♥", its image, in words
//   cardWords("QS")                                              // "queen of spades" (the language's)
//   await call("POST", "/api/tables", { seats })                 // JSON in and out, as the profile
//   toast("not connected")                                       // a message for four seconds
//   setText(node, text)                                          // written only when it changes
//   announce(text)                                               // said to a screen reader
//   copyButton(link, "Copy the link")                            // a button that copies a link
import { auth } from "./profile.js";
import { _, lang } from "./i18n.js";

export const $ = (id) => document.getElementById(id);
export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const RANKS = { T: "10" };
// An element: attributes, "class", "text" (textContent: never markup), "css" (style
// properties; no inline style attribute, for the CSP), "on…" listeners; then its children.
export const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "css") for (const [p, x] of Object.entries(v)) e.style.setProperty(p, x);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
};
export const cardName = (c) => (RANKS[c[0]] || c[0]) + SUITS[c[1]];
// A card in words, as a player of the language says it ("queen of spades", "Pik-Dame", "dame de
// pique", "reina de picas"): the images' and the hand's names for a screen reader.
const RANK_WORDS = { J: () => _("jack"), Q: () => _("queen"), K: () => _("king"), A: () => _("ace") };
const SUIT_WORDS = { C: (rank) => _("{rank} of clubs", { rank }), D: (rank) => _("{rank} of diamonds", { rank }),
  H: (rank) => _("{rank} of hearts", { rank }), S: (rank) => _("{rank} of spades", { rank }) };
export const cardWords = (c) => SUIT_WORDS[c[1]](RANK_WORDS[c[0]] ? RANK_WORDS[c[0]]() : RANKS[c[0]] || c[0]);
export const cardImg = (c) => el("img", { src: "/cards/" + c + ".svg", alt: cardWords(c), draggable: "false" });
// A bot level in words ("medium" → "mittel"); a spec the server allows (serve --bots) as it is.
const LEVELS = { random: () => _("random"), easy: () => _("easy"), medium: () => _("medium"), hard: () => _("hard"), expert: () => _("expert") };
export const levelName = (level) => (LEVELS[level] ? LEVELS[level]() : level);

// The server's refusal in the player's language: its code's words when the client knows the
// code, else the server's own (English) message. The JSON API's codes stay English.
const ERRORS = {
  no_table: () => _("There is no such table."),
  bad_name: () => _("That name cannot be used: choose another one."),
  name_taken: () => _("Someone at this table already has that name."),
  not_your_turn: () => _("It is not your turn."),
  bad_token: () => _("This link's token opens no seat here."),
  seat_freed: () => _("Your seat was given a new invite link: this one no longer opens it."),
  no_spectators: () => _("This table does not allow spectators."),
  spectators_full: () => _("This table has as many spectators as it allows."),
  rate_limited: () => _("Too many messages: wait a moment."),
  too_long: () => _("That message is too long."),
  chat_off: () => _("Chat is off at this table."),
  game_over: () => _("The game is over."),
  unavailable: () => _("The server cannot reach its database: nothing changed, try again in a few seconds."),
  internal: () => _("The server failed: nothing changed."),
  illegal: () => _("The rules do not allow that move."),
  not_seated: () => _("Spectators cannot play or write."),
  not_over: () => _("A rematch can be asked for once the game is over."),
  seated: () => _("This connection holds a seat: open another window to watch."),
  bad_key: () => _("No player profile has this key."),
  in_queue: () => _("You are in the queue already."),
  at_table: () => _("Your quick match is not finished: go back to its table first."),
  banned: () => _("This player profile is banned."),
  no_profile: () => _("This needs a player profile."),
  timeout: () => _("The connection took too long to start: reload the page."),
};
// (English: the server's message, which says more.)
export const errorText = (code, message) => (lang() !== "en" && ERRORS[code] ? ERRORS[code]() : message);

// A card in words, coloured by its suit (as the deck is: two or four colours).
export const cardChip = (c) => el("span", { class: "chip suit-" + c[1], text: cardName(c) });

// A JSON request, made as this browser's player profile if it has one (profile.js:
// Authorization: Bearer <key>; ``headers`` add to or replace it). A refusal is an Error with
// the server's message and the HTTP status; so is an answer whose body cannot be read (status
// 0: cut off, as when the page is left while it arrives), never taken for an empty one.
const UNREAD = {};
export async function call(method, path, body, headers) {
  const r = await fetch(path, { method, headers: { "Content-Type": "application/json", ...auth(), ...(headers || {}) }, body: body ? JSON.stringify(body) : undefined });
  const data = await r.json().catch(() => UNREAD);
  if (!r.ok) throw Object.assign(new Error(errorText(data.code, data.error || r.statusText)), { status: r.status, code: data.code });
  if (data === UNREAD) throw Object.assign(new Error(_("The server's answer was cut off: try again.")), { status: 0 });
  return data;
}

// A message at the bottom of the page, for four seconds (the next one replaces it).
let toastTimer = null;
export function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 4000);
}

// Writes ``text`` in ``node`` only when it changes (a live region speaks when its text
// changes); announce() says it to a screen reader.
export const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
export const announce = (text) => setText($("announce"), text);

// A button that puts ``text`` (a link) on the clipboard; where the page may not (a plain
// http address other than this computer's), it copies the selected link the older way, or
// leaves it selected for Ctrl+C.
export function copyButton(text, label) {
  const b = el("button", { type: "button", class: "small copy", "aria-label": label, title: label, text: _("Copy") });
  b.addEventListener("click", async () => {
    let done = false;
    try {
      await navigator.clipboard.writeText(text);
      done = true;
    } catch (e) { done = copySelected(b.previousElementSibling); }
    b.textContent = done ? _("Copied ✓") : _("Press Ctrl+C");
    $("announce").textContent = done ? _("Link copied") : _("The link is selected: press Ctrl+C to copy it");
    setTimeout(() => { b.textContent = _("Copy"); }, 2500);
  });
  return b;
}

function copySelected(node) {
  const range = document.createRange();
  range.selectNodeContents(node);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  try { return document.execCommand("copy"); } catch (e) { return false; }
}
