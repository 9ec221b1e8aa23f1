// pyhearts web table: the table page (/t/{id}). The seat's token comes from the invite link
// (kept in this browser, taken out of the address bar) or from this browser's storage, else,
// for a player profile that sits at the table (another device's game), a seat ticket from the
// server (POST /api/tables/{id}/ticket, kept as the token); a spectator's link ends in #watch;
// with none of them, the page offers to watch. Then the buttons,
// the keys and the server's messages are wired to the parts of the table that handle them.
//
//   openTable(id)   // the page of table ``id``
import { $, el, call, toast, errorText } from "./ui.js";
import { current } from "./profile.js";
import { _ } from "./i18n.js";
import { live, seatLabel } from "./state.js";
import { connect, sendIfOpen, stop } from "./connection.js";
import { receive } from "./pacing.js";
import { applyEvent } from "./events.js";
import { render, tick } from "./table.js";
import { balanceHand, moveFocus, sendPass } from "./hand.js";
import { closeDialog, showNameDialog, showSeats } from "./dialogs.js";
import { toggleScores } from "./scores.js";
import { askHint, hideHint, showHint } from "./hint.js";
import { onRematch } from "./rematch.js";
import * as chat from "./chat.js";
import * as company from "./company.js";

export function openTable(id) {
  live.tableId = id;
  const frag = new URLSearchParams(location.hash.slice(1));
  live.token = frag.get("token");
  live.watching = !live.token && frag.has("watch");
  const key = "pyhearts:" + id;
  if (live.token) {  // an invite link: its secret goes to this browser's storage, out of the address bar and history
    localStorage.setItem(key, live.token);
    history.replaceState(null, "", location.pathname + location.search);
  } else if (!live.watching) live.token = localStorage.getItem(key);
  $("table").hidden = false;
  $("rules-link").href = "/rules?table=" + encodeURIComponent(id);
  $("pass-btn").addEventListener("click", sendPass);
  $("last-btn").addEventListener("click", toggleLastTrick);
  $("scores-btn").addEventListener("click", toggleScores);
  $("hint-btn").addEventListener("click", askHint);
  $("seats-btn").addEventListener("click", showSeats);
  $("name-btn").addEventListener("click", () => showNameDialog(true));
  chat.setup({ send: (text) => sendIfOpen({ type: "chat", text }), nameOf: (s) => (live.state ? seatLabel(s) : _("Seat {n}", { n: s + 1 })),
    me: () => (live.state ? live.state.you : null), max: 200 });
  company.setup();
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", balanceHand);
  setInterval(tick, 250);
  if (!live.token && !live.watching) { resume(key); return; }
  connect(onMessage);
}

// No token here: a profile seated at the table (on another device) continues in its seat with
// a ticket; else the page offers to watch.
async function resume(key) {
  if (current()) {
    try {
      live.token = (await call("POST", "/api/tables/" + live.tableId + "/ticket")).ticket;
      localStorage.setItem(key, live.token);
      connect(onMessage);
      return;
    } catch (e) { /* not seated here: watch */ }
  }
  offerWatch();
}

const toggleLastTrick = () => { live.reviewing = !live.reviewing; render(); };

// No seat here: say so, and offer to watch if the table allows spectators.
async function offerWatch() {
  const prompt = $("prompt");
  prompt.textContent = _("You have no seat at this table: open your invite link, or join from the lobby.");
  try {
    const t = await call("GET", "/api/tables/" + live.tableId);
    if (!t.spectators_allowed) return;
    prompt.append(" ", el("button", { type: "button", id: "watch-btn", class: "small", text: _("Watch this table"), onclick: () => {
      live.watching = true;
      history.replaceState(null, "", "#watch");
      prompt.textContent = "";
      connect(onMessage);
    } }));
  } catch (e) { prompt.textContent = e.message; }
}

// The last state the server sent, or an event made of the one before (on screen, or waiting
// in pacing.js's queue): the next event applies to it.
let latest = null;

function onMessage(m) {
  if (m.type === "state") receive(latest = m);
  else if (m.type === "event") {
    const next = applyEvent(latest, m);
    if (next) receive(latest = next);
    else sendIfOpen({ type: "sync" });  // a message was missed: the whole state again
  } else if (m.type === "chat") chat.receive(m);
  else if (m.type === "hint") showHint(m);
  else if (m.type === "rematch") onRematch(m);
  else if (m.type === "company") company.receive(m);
  else if (m.type === "reported") company.reported(m);
  else if (m.type === "error") onError(m);
  else if (m.type === "presence" && live.state) {  // on screen only: the events apply to what the server sent
    const { online, names, spectators, away } = m;
    live.state = window.heartsState = { ...live.state, table: { ...live.state.table, online, names, spectators, away } };
    render();
  }
}

const CHAT_REFUSALS = ["rate_limited", "too_long", "bad_message", "unavailable", "chat_off", "banned"];

function onError(error) {
  // in the player's language; a refused card: the rule in words (the server's English words, translated)
  const m = { ...error, message: error.why ? _(error.why) : errorText(error.code, error.message) };
  if (CHAT_REFUSALS.includes(m.code) && chat.refused(m.message)) return;  // the chat panel says it
  toast(m.message);
  if ($("name-error") && ["bad_name", "name_taken", "game_over"].includes(m.code)) $("name-error").textContent = m.message;
  if (m.code === "not_your_turn") hideHint();
  if (m.code === "bad_token" || m.code === "seat_freed" || m.code === "banned") shutOut(m);
  else if (["no_table", "no_spectators", "spectators_full"].includes(m.code)) {
    $("prompt").textContent = m.message;
    stop();
  }
}

// The token opens no seat (any more: the table's creator gave the seat a new invite link):
// this browser forgets it and says why; no reconnecting.
function shutOut(m) {
  const key = "pyhearts:" + live.tableId;
  if (live.token && localStorage.getItem(key) === live.token) localStorage.removeItem(key);
  $("prompt").textContent = m.code === "seat_freed" || m.code === "banned" ? m.message[0].toUpperCase() + m.message.slice(1).replace(/\.$/, "") + "." : _("This link's token opens no seat here.");
  stop();
}

// Keys: arrows, Home and End move among the playable cards (hand.js; Enter plays, Space marks
// a card to pass: the card buttons' own keys), P passes, L shows the last trick, S the scores,
// H asks for a hint, Escape closes a dialog.
function onKey(e) {
  if (!live.state || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName) || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "Escape") { closeDialog(); return; }
  if (!$("overlay").hidden) return;
  if (moveFocus(e)) return;
  if (e.key === "l" || e.key === "L") toggleLastTrick();
  else if (e.key === "s" || e.key === "S") toggleScores();
  else if ((e.key === "p" || e.key === "P") && live.state.view.must_pass) sendPass();
  else if (e.key === "h" || e.key === "H") askHint();
}
