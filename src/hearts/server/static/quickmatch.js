// pyhearts web table: the lobby's Quick match (WS /ws/lobby/quick: one button, your player
// profile queued with the rule set chosen; a countdown until bots fill the empty seats; the
// table opened when it is made) and the live lobby (WS /ws/lobby/live: people waiting per rule
// set and games in progress, pushed; each push also redraws the open tables).
//
//   setupQuick()            // the Quick match panel
//   liveLobby(onChange)     // listens to the lobby; onChange() after each push
import { $, el, toast, setText, announce, errorText } from "./ui.js";
import { _, ngettext } from "./i18n.js";
import { current, myName } from "./profile.js";
import * as player from "./player.js";

const WORDS = { standard: _("standard"), omnibus: _("Omnibus (J♦)"), black_maria: _("Black Maria (three players)"), any: _("any") };
const PREFS = "pyhearts:quick";
let socket = null, countdown = null, leaving = false;

const wsUrl = (path) => (location.protocol === "https:" ? "wss:" : "ws:") + "//" + location.host + path;

function setupQuick() {
  const saved = JSON.parse(localStorage.getItem(PREFS) || "{}");
  const preset = $("quick-preset");
  for (const [v, t] of Object.entries(WORDS)) preset.append(el("option", { value: v, text: t, selected: saved.preset === v }));
  // What was typed before the page was ready (a slow connection) is kept.
  const wait = $("quick-wait"), name = $("quick-name");
  if (saved.wait && wait.value === wait.defaultValue) wait.value = saved.wait;
  $("quick-rated").checked = saved.rated === true;
  if (!name.value) name.value = myName();
  name.hidden = current() !== null;
  $("quick-btn").addEventListener("click", () => join().catch((e) => toast(e.message)));
  $("quick-leave").addEventListener("click", leave);
}

async function join() {
  if (socket) return;
  const name = $("quick-name").value.trim();
  if (!current()) {
    if (!name) { toast(_("Type a name first: quick match seats you with your player profile.")); $("quick-name").focus(); return; }
    await player.adopt(name);
    if (!current()) throw new Error(_("your player profile could not be made; try again"));
    $("quick-name").hidden = true;
  }
  const request = { type: "quick", key: current().key || undefined, preset: $("quick-preset").value,  // (a passkey's: its cookie)
    rated: $("quick-rated").checked, fill_after: Math.min(300, Math.max(3, Math.round(Number($("quick-wait").value) || 20))) };
  localStorage.setItem(PREFS, JSON.stringify({ preset: request.preset, rated: request.rated, wait: request.fill_after }));
  leaving = false;
  socket = new WebSocket(wsUrl("/ws/lobby/quick"));
  socket.onopen = () => socket.send(JSON.stringify(request));
  socket.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  socket.onclose = () => {
    const wasWaiting = socket !== null && !leaving;
    stopWaiting();
    if (wasWaiting) toast(_("the connection to the quick match was lost: ask again"));
  };
  showWaiting(true);
  setText($("quick-status"), _("Joining the queue…"));
}

function leave() {
  if (!socket) return;
  leaving = true;
  if (socket.readyState === 1) socket.send(JSON.stringify({ type: "leave" }));
  else socket.close();
}

function onMessage(m) {
  if (m.type === "queued") {
    const started = Date.now() - m.waited * 1000;
    clearInterval(countdown);
    const tick = () => {
      const left = Math.max(0, Math.ceil(m.fill_after - (Date.now() - started) / 1000));
      const people = m.waiting === 1 ? _("you alone so far") : ngettext("{n} person waiting", "{n} people waiting", m.waiting);
      const what = WORDS[m.preset] + (m.rated ? ", " + _("rated") : "");
      setText($("quick-status"), _("Waiting for players ({what}):", { what }) + " " + people + " · " +
        (left > 0 ? _("bots fill the empty seats in {n} s", { n: left }) : _("bots take the empty seats now…")));
      $("quick-status").dataset.left = String(left);
    };
    tick();
    countdown = setInterval(tick, 250);
  } else if (m.type === "seated") {
    announce(_("Your table is ready — opening it…"));
    setText($("quick-status"), _("Your table is ready — opening it…"));
    leaving = true;
    socket.close();
    location.href = m.link;
  } else if (m.type === "left") {
    leaving = true;
    socket.close();
    setText($("quick-status"), m.reason === "replaced" ? _("You queued in another window: this one left the queue.") : _("You left the queue."));
  } else if (m.type === "error") {
    toast(errorText(m.code, m.message));
    if (m.code !== "in_queue") { leaving = true; socket.close(); }
  }
}

function showWaiting(on) {
  $("quick-btn").hidden = on;
  $("quick-leave").hidden = !on;
  for (const id of ["quick-preset", "quick-rated", "quick-wait"]) $(id).disabled = on;
}

function stopWaiting() {
  clearInterval(countdown);
  countdown = null;
  socket = null;
  showWaiting(false);
  delete $("quick-status").dataset.left;
  if (!leaving) setText($("quick-status"), "");
}

// The live lobby: the people waiting per rule set and the games in progress, as pushed; a lost
// connection is made again (after 1, 2, 4… s, at most 15).
function liveLobby(onChange) {
  let retry = 0;
  const open = () => {
    const ws = new WebSocket(wsUrl("/ws/lobby/live"));
    ws.onopen = () => { retry = 0; };
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type !== "lobby") return;
      const waiting = Object.entries(m.waiting).filter(([, n]) => n > 0).map(([p, n]) => n + " " + WORDS[p]);
      setText($("lobby-live"), (waiting.length ? _("Waiting for a quick match: {list}", { list: waiting.join(", ") }) : _("Nobody is waiting for a quick match")) +
        " · " + _("games in progress: {n}", { n: m.playing }));
      $("lobby-live").dataset.playing = String(m.playing);
      onChange(m);
    };
    ws.onclose = () => { if (!$("lobby").hidden) setTimeout(open, Math.min(15000, 1000 * 2 ** retry++)); };
  };
  open();
}

export { setupQuick, liveLobby };
