// pyhearts web table: lobby and table, the entry module (the one script of index.html,
// type="module"; plain ES modules, no build step). It starts what every page has (the
// settings panel, the sounds, the profile in the header), then shows the page of the address.
//
// Test hook, deliberate: window.pyhearts = { settings, sound } lets the browser tests change a
// setting and read the sounds played (the table also keeps window.heartsState and the like).
import { $, el, cardName, cardImg, cardChip, call as api, toast, setText, announce, copyButton } from "./ui.js";
import { myName } from "./profile.js";
import { POS_WORDS, seatPos, trickAt } from "./layout.js";
import * as settings from "./settings.js";
import * as sound from "./sound.js";
import * as anim from "./anim.js";
import * as chart from "./chart.js";
import * as chat from "./chat.js";
import * as creator from "./seats.js";
import * as review from "./review.js";
import * as player from "./player.js";
import { showGames, showLeaderboard } from "./history.js";
import { show as showReplay } from "./replay.js";

window.pyhearts = { settings, sound };
settings.wire();
sound.wire();
player.start();

// ---------------------------------------------------------------- lobby
// The rule options' form is made from their specs (GET /api/config: Rules.options()): each
// option's label in words, its help and rule number as a hint, and a control by its kind.
// ``players`` and ``target`` sit in the first row; the others under "Rule options".
const HEADLINE = ["players", "target"];
let config = null, specs = [];

async function lobby() {
  $("lobby").hidden = false;
  document.title = "pyhearts — lobby";
  config = await api("GET", "/api/config");
  specs = config.options;
  const preset = $("preset");
  for (const name of Object.keys(config.presets)) preset.append(el("option", { value: name, text: readable(name) }));
  const values = config.presets[preset.value];
  const first = $("spectators-option");
  for (const spec of specs) {
    const control = optionControl(spec, values[spec.name]);
    if (HEADLINE.includes(spec.name)) first.before(control);
    else $("options").append(control);
  }
  preset.addEventListener("change", () => {  // the preset's values, but for the first row's
    const chosen = config.presets[preset.value];
    for (const spec of specs) if (!HEADLINE.includes(spec.name)) setOption(spec, chosen[spec.name]);
  });
  $("opt-players").addEventListener("input", fillSeats);
  // "List in lobby" follows the seats (on when one is open: it is taken from the lobby) until it is touched.
  $("listed").addEventListener("change", () => { $("listed").dataset.touched = "true"; });
  $("seats").addEventListener("change", followSeats);
  const timer = $("turn-timer"), standIn = $("stand-in");
  timer.max = config.max_turn_timer;
  for (const l of config.levels) standIn.append(el("option", { value: l, text: l, selected: l === config.stand_in }));
  const showStandIn = () => { $("stand-in-option").hidden = !(Number(timer.value) > 0); };
  timer.addEventListener("input", showStandIn);
  showStandIn();
  fillSeats();
  setupPlayNow();
  $("create-form").addEventListener("submit", createTable);
  $("refresh").addEventListener("click", listTables);
  listTables();
}

// "Play now": you against three bots of the chosen level (remembered in this browser), the
// usual rules, a table nobody else sees listed; one click opens it.
const LEVEL_KEY = "pyhearts:play-level";
function setupPlayNow() {
  const level = $("play-level");
  const chosen = localStorage.getItem(LEVEL_KEY) || "medium";
  for (const l of config.levels) level.append(el("option", { value: l, text: l, selected: l === chosen }));
  level.addEventListener("change", () => localStorage.setItem(LEVEL_KEY, level.value));
  $("play-now").addEventListener("click", playNow);
}

async function playNow() {
  const bot = { kind: "bot", level: $("play-level").value };
  localStorage.setItem(LEVEL_KEY, bot.level);
  try {
    const you = myName() ? { kind: "human", name: myName() } : { kind: "human" };  // no name yet: the table asks for one
    const t = await api("POST", "/api/tables", { seats: [you, bot, bot, bot], listed: false });
    creator.remember(t.id, t.creator_key);
    location.href = t.seats[0].link;
  } catch (e) { toast(e.message); }
}

// Words for a value such as "add_to_others": "add to others".
const readable = (value) => String(value).replace(/_/g, " ");

function optionControl(spec, value) {
  const id = "opt-" + spec.name;
  const hint = spec.kind === "pass_cycle" ? spec.help + ": a comma list of " + spec.choices.join(", ") + "; empty for the usual rotation" : spec.help;
  const words = el("span", { class: "words" }, spec.label + " ", el("small", { class: "rule", text: spec.rule }));
  let input;
  if (spec.kind === "bool") input = el("input", { type: "checkbox", id });
  else if (spec.kind === "choice") {
    input = el("select", { id });
    for (const c of spec.choices) input.append(el("option", { value: c, text: readable(c) }));
  } else if (spec.kind === "int") input = el("input", { type: "number", id, min: spec.low, max: spec.high, step: 1, required: true });
  else input = el("input", { type: "text", id, placeholder: "usual rotation", spellcheck: "false" });
  input.dataset.option = spec.name;
  const label = el("label", { class: "option" + (spec.kind === "bool" ? " check" : ""), for: id, title: hint + " (rule " + spec.rule + ")" },
    ...(spec.kind === "bool" ? [input, words] : [words, input]), el("small", { class: "hint", text: hint }));
  setOption(spec, value, input);
  return label;
}

function setOption(spec, value, input) {
  input = input || $("opt-" + spec.name);
  if (spec.kind === "bool") input.checked = value === true;
  else if (spec.kind === "pass_cycle") input.value = (value || []).join(", ");
  else input.value = String(value);
}

function optionValue(spec) {
  const input = $("opt-" + spec.name);
  if (spec.kind === "bool") return input.checked;
  if (spec.kind === "int") return Number(input.value);
  if (spec.kind === "choice") return input.value;
  const steps = input.value.split(",").map((x) => x.trim().toLowerCase()).filter(Boolean);
  return steps.length ? steps.map((x) => (/^\d+$/.test(x) ? Number(x) : x)) : null;
}

function fillSeats() {
  const players = specs.find((x) => x.name === "players");
  const n = Number($("opt-players").value);
  if (!Number.isInteger(n) || n < players.low || n > players.high) return;  // still being typed
  const box = $("seats");
  const old = [...box.querySelectorAll(".seat-row")].map((r) => ({
    kind: r.querySelector(".kind").value, name: r.querySelector(".name").value, level: r.querySelector(".level").value,
  }));
  box.textContent = "";
  for (let i = 0; i < n; i++) {
    const prev = old[i] || (i === 0 ? { kind: "human", name: myName(), level: "medium" } : { kind: "bot", name: "", level: "medium" });
    const kind = el("select", { class: "kind", "aria-label": "seat " + (i + 1) + " kind" });
    for (const [v, t] of [["human", "person (invite link)"], ["open", "open seat (lobby)"], ["bot", "bot"]]) kind.append(el("option", { value: v, text: t, selected: prev.kind === v }));
    const level = el("select", { class: "level", "aria-label": "seat " + (i + 1) + " bot level" });
    for (const l of config.levels) level.append(el("option", { value: l, text: l, selected: prev.level === l }));
    const name = el("input", { class: "name", placeholder: i === 0 ? "your name (optional)" : "name (optional)", value: prev.name, maxlength: "40", "aria-label": "seat " + (i + 1) + " name" });
    const sync = () => { level.hidden = kind.value !== "bot"; name.hidden = kind.value === "open"; };
    kind.addEventListener("change", sync);
    sync();
    box.append(el("div", { class: "seat-row" }, el("span", { class: "label", text: i === 0 ? "Seat 1 (you)" : "Seat " + (i + 1) }), kind, name, level));
  }
  followSeats();
}

function followSeats() {
  const listed = $("listed");
  if (listed.dataset.touched) return;
  listed.checked = [...$("seats").querySelectorAll(".kind")].some((k) => k.value === "open");
}

async function createTable(ev) {
  ev.preventDefault();
  const options = {};  // what differs from the preset; the server checks it (the rule book's R-numbers)
  const preset = config.presets[$("preset").value];
  for (const spec of specs) {
    const v = optionValue(spec);
    if (JSON.stringify(v) !== JSON.stringify(preset[spec.name])) options[spec.name] = v;
  }
  const spectators = $("allow-spectators").checked, listed = $("listed").checked;
  const turn_timer = Number($("turn-timer").value), stand_in = $("stand-in").value;
  const seats = [...$("seats").querySelectorAll(".seat-row")].map((r) => {
    const kind = r.querySelector(".kind").value;
    return kind === "bot" ? { kind, level: r.querySelector(".level").value } : kind === "open" ? { kind } : { kind, name: r.querySelector(".name").value };
  });
  const rated = $("rated").checked;  // counts for the ratings: needs a player profile (player.js)
  const you = seats.find((x) => x.kind === "human");
  try {
    if (you) {
      await player.adopt(you.name);  // a first table makes the profile
      const p = player.current();  // no name typed: the profile's
      if (p && !you.name.trim()) you.name = p.name;
    }
    const t = await api("POST", "/api/tables", { preset: $("preset").value, options, seats, spectators, listed, turn_timer, stand_in, rated });
    creator.remember(t.id, t.creator_key);  // this browser may free the table's seats
    const list = el("ul", { class: "links" });
    let mine = null;
    for (const s of t.seats) {
      if (s.link) {
        if (mine === null) mine = s;
        const who = s.name || "Seat " + (s.seat + 1);
        list.append(el("li", {}, el("b", { text: who + ": " }), el("a", { href: s.link, class: "invite", "data-seat": s.seat, text: s.link }), " ", copyButton(s.link, "Copy " + who + "'s invite link")));
      }
    }
    const box = $("created");
    box.textContent = "";
    box.append(el("h3", { text: "Table " + t.id + " created — invite links (each is a seat's secret):" }), list);
    if (config.local_only) box.append(el("p", { class: "note", text: "These links work on this computer only: the server listens on " + config.public_url + ". To invite friends on other machines, start it with --host 0.0.0.0 (and --public-url, the address they reach it at)." }));
    if (mine) box.append(el("a", { href: mine.link, class: "primary-link", id: "sit", text: mine.name ? "Sit down as " + mine.name + " →" : "Sit down →" }));
    if (t.watch) box.append(el("p", {}, "Spectators' link (public, no seat): ", el("a", { href: t.watch, class: "watch-link", text: t.watch }), " ", copyButton(t.watch, "Copy the spectators' link")));
    box.hidden = false;
    listTables();
  } catch (e) { toast(e.message); }
}

async function listTables() {
  try {
    const data = await api("GET", "/api/tables");
    const ul = $("open-tables");
    ul.textContent = "";
    if (!data.tables.length) ul.append(el("li", { text: "No open table yet." }));
    for (const t of data.tables) {
      const who = t.names.map((n, i) => (t.kinds[i] === "open" ? "(free)" : n)).join(", ");
      const li = el("li", { "data-table": t.id }, el("span", { text: t.id + " · " + who + " · round " + t.round + " · to " + t.target + (t.turn_timer ? " · " + t.turn_timer + " s a turn" : "") }));
      if (t.free.length) {
        const name = el("input", { placeholder: "your name", maxlength: "40", class: "join-name", "aria-label": "your name at table " + t.id });
        li.append(name, el("button", { type: "button", class: "small join", text: "Join seat " + (t.free[0] + 1), onclick: async () => {
          try {
            const j = await api("POST", "/api/tables/" + t.id + "/join", { seat: t.free[0], name: name.value });
            location.href = j.link;
          } catch (e) { toast(e.message); listTables(); }
        } }));
      }
      if (t.spectators_allowed) {
        li.append(el("a", { href: "/t/" + t.id + "#watch", class: "watch", text: "Watch" + (t.spectators ? " (" + t.spectators + " watching)" : "") }));
      }
      ul.append(li);
    }
  } catch (e) { toast(e.message); }
}

// ---------------------------------------------------------------- table
// A spectator (``watching``: /t/ID#watch, no token) gets the public view only ("you": null,
// no hand): every seat is drawn around the trick, seat 1 at the bottom, with card backs.
let ws = null, tableId = null, token = null, watching = false, state = null, selected = new Set();
let reviewing = false, retry = 0, lastResults = null, shownGameOver = false, focusIndex = 0;
let keyboardPlay = false;  // the last card was played or marked by a key: the hand keeps the focus
// The turn timer: when each seat's time runs out (performance.now() milliseconds), from the
// seconds left that the last state gave; ticked down on the page every quarter second.
let deadlines = {};

function tableMain(id) {
  tableId = id;
  const frag = new URLSearchParams(location.hash.slice(1));
  token = frag.get("token");
  watching = !token && frag.has("watch");
  const key = "pyhearts:" + id;
  if (token) {  // an invite link: its secret goes to this browser's storage, out of the address bar and history
    localStorage.setItem(key, token);
    history.replaceState(null, "", location.pathname + location.search);
  } else if (!watching) token = localStorage.getItem(key);
  $("table").hidden = false;
  $("pass-btn").addEventListener("click", sendPass);
  $("last-btn").addEventListener("click", () => { reviewing = !reviewing; render(); });
  $("scores-btn").addEventListener("click", toggleScores);
  $("hint-btn").addEventListener("click", askHint);
  $("seats-btn").addEventListener("click", showSeats);
  chat.setup({ send: (text) => sendIfOpen({ type: "chat", text }), nameOf: (s) => (state ? seatLabel(s) : "Seat " + (s + 1)), max: 200 });
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", balanceHand);
  setInterval(tick, 250);
  if (!token && !watching) { offerWatch(); return; }
  connect();
}

// The token opens no seat (any more: the table's creator gave the seat a new invite link):
// this browser forgets it and says why; no reconnecting.
function shutOut(m) {
  const key = "pyhearts:" + tableId;
  if (token && localStorage.getItem(key) === token) localStorage.removeItem(key);
  $("prompt").textContent = m.code === "seat_freed" ? m.message[0].toUpperCase() + m.message.slice(1) + "." : "This link's token opens no seat here.";
  $("conn").textContent = "not connected";
  ws.onclose = null;
  ws.close();
}

// The creator's seats dialog (seats.js): a new invite link for another person's seat.
function showSeats() {
  if (!state) return;
  showDialog("seats", ...creator.content(tableId, state.table, state.you, copyButton),
    el("div", { class: "buttons" }, el("button", { type: "button", class: "primary", id: "seats-ok", text: "Close", onclick: closeDialog })));
}

// No seat here: say so, and offer to watch if the table allows spectators.
async function offerWatch() {
  const prompt = $("prompt");
  prompt.textContent = "You have no seat at this table: open your invite link, or join from the lobby.";
  try {
    const t = await api("GET", "/api/tables/" + tableId);
    if (!t.spectators_allowed) return;
    prompt.append(" ", el("button", { type: "button", id: "watch-btn", class: "small", text: "Watch this table", onclick: () => {
      watching = true;
      history.replaceState(null, "", "#watch");
      prompt.textContent = "";
      connect();
    } }));
  } catch (e) { prompt.textContent = e.message; }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(proto + "//" + location.host + "/ws/" + tableId);
  $("conn").textContent = "connecting…";
  ws.onopen = () => { retry = 0; ws.send(JSON.stringify(watching ? { type: "watch" } : { type: "hello", token })); };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = (ev) => {
    $("conn").textContent = "disconnected" + (ev.reason ? " (" + ev.reason + ")" : "") + " — reconnecting…";
    document.body.dataset.connected = "false";
    setTimeout(connect, Math.min(5000, 300 * 2 ** retry++));
  };
}

function send(msg) {
  if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
  else toast("not connected; retrying…");
}
// Sends ``msg`` if connected; whether it was sent.
function sendIfOpen(msg) {
  const open = ws && ws.readyState === 1;
  send(msg);
  return open;
}

function onMessage(m) {
  if (m.type === "state") receive(m);
  else if (m.type === "chat") chat.receive(m);
  else if (m.type === "hint") showHint(m);
  else if (m.type === "rematch") onRematch(m);
  else if (m.type === "error") {
    toast(m.message);
    if ($("name-error") && ["bad_name", "name_taken", "game_over"].includes(m.code)) $("name-error").textContent = m.message;
    if (m.code === "not_your_turn") hideHint();
    if (m.code === "bad_token" || m.code === "seat_freed") shutOut(m);
    else if (["no_table", "no_spectators", "spectators_full"].includes(m.code)) {
      $("prompt").textContent = m.message;
      $("conn").textContent = "not connected";
      ws.onclose = null;
      ws.close();
    }
  } else if (m.type === "presence" && state) {
    state.table.online = m.online;
    state.table.names = m.names;
    state.table.spectators = m.spectators;
    state.table.away = m.away;
    render();
  }
}

// ---------------------------------------------------------------- pacing
// The server sends one state per action, as fast as the bots play. The page shows them in
// order: each played card flies to the trick from the hand or seat that played it, and a
// finished trick (a round's last one included) stays readable for the settings' pause before
// it goes to its winner. ``state`` is the state on screen; later ones wait in ``queue``.
const queue = [];
let pumping = false, holdUntil = 0, lastSeq = -1;
let releaseSummary = () => {};  // a round's summary holds the next round back until it closes

function receive(m) {
  if (m.seq < lastSeq && m.reason !== "welcome") return;
  lastSeq = m.seq;
  m.at = performance.now();  // the turn timer's seconds left count from now
  if (m.event && m.reason === "event") {
    window.heartsLog = (window.heartsLog || []).slice(-300);
    window.heartsLog.push(m.event);
  }
  if (m.reason === "welcome" || m.reason === "resync") { queue.length = 0; hurry(); }  // the whole table, at once
  else if (urgent(m)) hurry();  // my turn: what is on screen moves on now
  queue.push(m);
  pump();
}

// Ends the pauses: the player acted, or a whole new state came.
function hurry() { holdUntil = 0; anim.hurry(); releaseSummary(); }
const holding = () => holdUntil > performance.now();
const STALE = 30000;  // milliseconds a state may wait to be shown; older ones are skipped

async function pump() {
  if (pumping) return;
  pumping = true;
  while (queue.length) {
    if (performance.now() - queue[0].at > STALE) queue.splice(0, queue.length - 1);  // far behind: catch up
    const rush = queue.some(urgent);
    try { await show(queue.shift(), rush); } catch (e) { console.error(e); }
    if ($("dialog").dataset.kind === "summary") await new Promise((resolve) => { releaseSummary = resolve; });
  }
  pumping = false;
}

// A state in which I am to play, in the round on screen: nothing waits before it (the pauses
// never hold my turn back; the trick just taken is named under the next one).
const urgent = (m) => state !== null && isMyTurn(m) && !m.table.away.includes(m.you) && m.view.round_number === state.view.round_number;

// Shows the next state received, with its play's movement and the pauses it calls for
// (none if ``rush``: my turn is coming).
async function show(m, rush) {
  const before = state, lively = before !== null && m.reason === "event";
  const play = lively && m.event && m.event.type === "play" ? m.event : null;
  const finished = play && !m.view.trick.plays.length ? m.table.last_trick : null;  // the trick the play ended
  const dealt = before !== null && m.view.round_number !== before.view.round_number;
  const ended = finished && dealt ? roundEnd(before, finished) : before;  // the round that ends, as last shown
  const closes = before !== null && m.reason !== "welcome" && before.table.results.length < m.table.results.length;
  if (closes) lastRound = roundRecord(ended, m);  // before any drawing: the game-over dialog shows it
  if (lively) await leaveTrick(dealt || m.view.trick.plays.length > 0, rush);
  if (finished && dealt) {  // the round's last trick, shown in its round before the new deal
    await display(ended, play, finished);
    hold();
    await leaveTrick(true);
    await display(m, null, null);
  } else {
    await display(m, play, finished, rush);
    if (finished) hold();
  }
  if (closes && !m.view.game_over) showRoundSummary(m);
}

// The finished trick on screen stays for the settings' pause; dialogs wait for it too.
function hold() {
  const ms = settings.get("trickPause") * 1000;
  holdUntil = performance.now() + ms;
  setTimeout(() => { if (!pumping && !holding()) render(); }, ms + 20);
}

// A finished trick on screen, its pause over, goes to its winner when the table moves on
// (``moving``: a new trick is led, or a new round dealt); at once if ``rush``.
async function leaveTrick(moving, rush) {
  const trick = $("trick"), winner = trick.dataset.winner;
  if (!moving || winner === undefined) return;
  if (rush) holdUntil = 0;
  await anim.wait(holdUntil - performance.now());
  holdUntil = 0;
  delete trick.dataset.winner;
  if (!rush) await giveWay(anim.gather([...trick.querySelectorAll("figure")], seatBox(Number(winner))), Number(winner));
}

// Puts the state ``m`` on screen; the card of ``play`` (its event) flies to the trick (the
// next state waits for it to land, unless ``rush``), and ``finished`` is the trick that play
// ended, if it did.
async function display(m, play, finished, rush) {
  const from = play ? origin(play) : null;  // measured before the page changes
  const before = state;
  state = m;
  window.heartsState = m;
  deadlines = {};
  m.table.time_left.forEach((left, s) => { if (left !== null) deadlines[s] = m.at + left * 1000; });
  setText($("conn"), m.you === null ? "watching (spectator)" : "connected as " + m.table.names[m.you]);
  document.body.dataset.connected = "true";
  document.body.dataset.spectator = String(m.you === null);
  chat.seated(m.you !== null);
  if (hint && hint.seq !== m.seq) hideHint();  // a hint is for one position
  if (m.you === null) selected.clear();
  else if (!before || before.view.round_number !== m.view.round_number || !m.view.must_pass) selected = new Set([...selected].filter((c) => m.view.hand.includes(c)));
  if (!m.view.must_pass) selected.clear();
  render();
  if (before && m.reason === "event") cue(before, m, play, finished);
  if (finished) {  // the finished tricks as shown, for the tests: none is skipped
    window.heartsTricks = (window.heartsTricks || []).slice(-100);
    window.heartsTricks.push({ round: m.view.round_number, cards: finished.plays.map((p) => p.card), winner: finished.winner });
  }
  const flight = from && giveWay(anim.fly($("trick").querySelector('figure[data-card="' + play.card + '"]'), from.rect, from.scale), play.seat);
  if (flight && !rush) await flight;
}

// The note under the trick gives way (is hidden) while ``moving`` takes a card across it: the
// card of the seat at the bottom (mine, or a spectator's first), between its place and the trick.
async function giveWay(moving, seat) {
  if (seat !== (state.you === null ? 0 : state.you)) return moving;
  const note = $("trick-note");
  note.classList.add("giving-way");
  try { return await moving; } finally { note.classList.remove("giving-way"); }
}

// Where a played card comes from: the card in my hand, or the seat of its player.
function origin(play) {
  const card = play.seat === state.you && $("hand").querySelector('.card[data-card="' + play.card + '"]');
  if (card) return { rect: card.getBoundingClientRect(), scale: 1 };
  const seat = seatBox(play.seat);
  return seat && { rect: seat, scale: 0.5 };
}

// The box of a seat on the table (mine: the bar above my hand).
function seatBox(s) {
  const node = s === state.you ? $("me") : $("opponents").querySelector('.seat[data-seat="' + s + '"]');
  return node ? node.getBoundingClientRect() : null;
}

const isMyTurn = (m) => m.you !== null && (m.view.must_pass || m.view.to_move === m.you);

// The sounds of what changed from ``before`` to ``m``.
function cue(before, m, play, finished) {
  if (play) sound.play("play");
  if (finished) sound.play(finished.plays.some((p) => p.card === "QS") ? "queen" : "trick", 0.25);
  if (m.view.hearts_broken && !before.view.hearts_broken && m.view.round_number === before.view.round_number) sound.play("hearts", 0.12);
  if (isMyTurn(m) && !isMyTurn(before)) sound.play("turn", 0.35);
}

// The state that shows a round's last trick before the next deal: the round that ended, with
// every card played and the last trick's points taken.
function roundEnd(before, trick) {
  const v = before.view;
  const points = [...v.points_taken];
  points[trick.winner] += trick.points;
  const mine = v.hand ? { hand: [], legal: [] } : {};  // a spectator's view has no hand
  return {
    ...before, table: { ...before.table, last_trick: trick },
    view: { ...v, ...mine, trick, tricks: [...v.tricks, trick], hand_sizes: v.hand_sizes.map(() => 0), points_taken: points, to_move: null },
  };
}

// ---------------------------------------------------------------- a round's end
// The round's result, with the point cards each seat took (from the tricks the page saw).
const DECK = { 3: 51, 4: 52, 5: 50, 6: 48 };  // R1.2: cards dealt in a round
const RANK_ORDER = "23456789TJQKA";
let lastRound = null;

// The last round of the state ``m`` (its table's last result) with the point cards each seat
// took, from the round's tricks as the state ``ended`` showed them, or ``m`` itself (the
// game's end: its view holds the last round); null cards when neither holds every trick.
function roundRecord(ended, m) {
  const t = m.table, round = t.results.length;
  const tricks = [ended, m].map((s) => (s.view.round_number === round - 1 ? roundTricks(s, t.last_trick) : null));
  const known = tricks.findIndex((x) => x !== null);
  return { round, result: t.results[round - 1], taken: known < 0 ? null : pointCards(tricks[known], [ended, m][known].view) };
}

// The tricks of the round ``ended`` showed, its last one included (null if some are missing).
function roundTricks(ended, last) {
  const tricks = [...ended.view.tricks];
  const cards = (t) => (t ? t.plays.map((p) => p.card).join() : "");
  if (last && cards(tricks[tricks.length - 1]) !== cards(last)) tricks.push(last);
  const played = tricks.reduce((k, t) => k + t.plays.length, 0);
  return played === DECK[ended.view.players] ? tricks : null;
}

// The point cards each seat took in ``tricks`` (hearts, the Q♠, the J♦ when the rules count
// it), highest first; null when the tricks are not known.
function pointCards(tricks, v) {
  if (!tricks) return null;
  const counts = (c) => c[1] === "H" || c === "QS" || (c === "JD" && v.rules.jack_of_diamonds);
  const order = (c) => (c === "QS" ? 20 : c === "JD" ? 19 : RANK_ORDER.indexOf(c[0]));
  const taken = Array.from({ length: v.players }, () => []);
  for (const t of tricks) for (const p of t.plays) if (counts(p.card)) taken[t.winner].push(p.card);
  return taken.map((cards) => cards.sort((a, b) => order(b) - order(a)));
}

const seatName = (s) => state.table.names[s] || "Seat " + (s + 1);
// A seat's name with a bot's level: "Ada (hard)".
const seatLabel = (s) => {
  const name = seatName(s), level = state.table.kinds[s] === "bot" ? state.table.bots[s] : null;
  return level && !name.endsWith(")") ? name + " (" + level + ")" : name;
};
const passWord = (off, n) => (off === 1 ? "left" : off === n - 1 ? "right" : "across");
function passDirection(v) {
  if (state.you === null) {  // a spectator: this round's direction for everyone
    const off = state.table.pass_offset;
    return off ? "everyone " + passWord(off, v.players) : "hold (no pass)";
  }
  if (v.pass_to === null || v.pass_to === undefined) return "hold (no pass)";
  const off = (v.pass_to - v.seat + v.players) % v.players;
  return passWord(off, v.players) + " → " + seatName(v.pass_to);
}

function render() {
  if (!state) return;
  const v = state.view, t = state.table;
  const n = v.players;
  // ``me``: my seat, or null for a spectator; ``base``: the seat drawn at the bottom.
  const me = state.you, spectator = me === null, base = spectator ? 0 : me;
  const myTurn = isMyTurn(state);
  document.body.dataset.seq = state.seq;
  document.body.dataset.phase = v.phase;
  document.body.dataset.round = v.round_number;
  document.body.dataset.myturn = String(myTurn);
  document.title = (myTurn ? "● " : "") + "pyhearts — " + (spectator ? "watching table " : "table ") + t.id;
  // Info bar.
  const info = $("info");
  info.textContent = "";
  const item = (k, val) => info.append(el("span", {}, k + ": ", el("b", { text: val })));
  item("Round", String(v.round_number + 1));
  item("Pass", passDirection(v));
  item("Hearts", v.hearts_broken ? "broken" : "not broken");
  item("Turn", v.phase === "passing" ? "everyone passes" : v.to_move === null ? "—" : v.to_move === me ? "you" : seatName(v.to_move));
  item("Target", String(t.target));
  if (t.spectators) item("Watching", String(t.spectators));
  // The others around the table, clockwise from your left (R1: seat me+1 is on my left); a
  // spectator sees every seat, the first one at the bottom.
  $("table").dataset.players = n;
  $("table").dataset.spectator = String(spectator);
  const opp = $("opponents");
  const seats = [];
  for (let k = spectator ? 0 : 1; k < n; k++) {
    const s = (base + k) % n;
    const pos = seatPos(n, k);
    const backs = el("div", { class: "backs", "aria-hidden": "true" });
    for (let i = 0; i < Math.min(v.hand_sizes[s], 13); i++) backs.append(el("img", { src: "/cards/back.svg", alt: "" }));
    const online = t.online.includes(s);
    const away = t.away.includes(s) ? " · away: a bot plays" : "";
    const badge = (t.kinds[s] === "bot" ? "bot · " + t.bots[s] : t.kinds[s] === "open" ? "free seat" : online ? "online" : "offline") + away;
    const on = online || t.kinds[s] === "bot";
    const turn = v.to_move === s;
    seats.push(el("div", {
      class: "seat" + (turn ? " turn" : ""), "data-seat": s, "data-pos": pos, role: "group",
      "aria-label": seatName(s) + ", " + POS_WORDS[pos] + (turn ? ", to play" : ""),
    },
      el("div", { class: "name", title: seatLabel(s), text: seatLabel(s) }),
      el("div", { class: "meta badge" }, el("span", { class: "dot" + (on ? " on" : ""), title: on ? "connected" : "not connected" }), badge),
      el("div", { class: "meta", "data-count": v.hand_sizes[s], text: v.hand_sizes[s] + (v.hand_sizes[s] === 1 ? " card" : " cards") }),
      el("div", { class: "meta pts", text: v.points_taken[s] + " pts · total " + t.totals[s] }),
      el("div", { class: "meta clock", "data-seat": s }),
      backs));
  }
  keep(opp, ".seat", seats);
  // The trick (or the last one, under review or just after it was won): each card at the
  // place of the seat that played it, mine at the bottom. A won trick on screen (not under
  // review) names its winner, to whom it goes when the table moves on.
  const trick = $("trick");
  let shown = v.trick;
  const last = t.last_trick;
  if ((reviewing || v.trick.plays.length === 0) && last && (reviewing || v.tricks.length > 0)) shown = last;
  const won = shown.winner !== null && shown.winner !== undefined;
  trick.className = "trick" + (reviewing ? " review" : "");
  if (won && !reviewing) trick.dataset.winner = shown.winner;
  else delete trick.dataset.winner;
  keep(trick, "figure", shown.plays.map((p, i) => {
    const at = trickAt(n, (p.seat - base + n) % n);
    return el("figure", {
      class: (shown.winner === p.seat ? "win" : "") + (i === 0 ? " lead" : ""), "data-card": p.card, "data-seat": p.seat,
      css: { "--px": at[0], "--py": at[1], "z-index": i + 1 },
    }, cardImg(p.card), el("figcaption", { text: (p.seat === me ? "you" : seatName(p.seat)), title: seatName(p.seat) }));
  }));
  const note = $("trick-note");
  note.textContent = "";
  if (won) note.textContent = (reviewing ? "Last trick: " : "") + (shown.winner === me ? "you take it" : seatName(shown.winner) + " takes it") + (shown.points ? " (" + shown.points + (shown.points === 1 ? " point)" : " points)") : "");
  else if (!shown.plays.length && v.phase === "playing" && v.to_move !== null) note.textContent = (v.to_move === me ? "You lead" : seatName(v.to_move) + " leads");
  else if (last && v.tricks.length && !reviewing) note.append(lastTrickWords(last, me));
  $("last-btn").textContent = reviewing ? "Back to play (L)" : "Last trick (L)";
  // Prompt and buttons.
  const prompt = $("prompt");
  const pass = $("pass-btn");
  pass.hidden = !v.must_pass;
  $("hint-btn").hidden = spectator || !myTurn || v.game_over || t.away.includes(me);
  $("seats-btn").hidden = v.game_over || !creator.isCreator(tableId);
  if (v.game_over) {
    prompt.textContent = "Game over: " + winnerWords(t) + ". ";
    prompt.append(el("button", { type: "button", id: "result-btn", class: "small", text: "See the result", onclick: showGameOver }));
  } else if (spectator) {
    const what = v.phase === "passing" ? "the players are passing cards…"
      : v.phase === "moon_choice" ? seatName(v.to_move) + " shot the moon and chooses how it scores…"
      : v.to_move !== null ? seatName(v.to_move) + " to play." : "";
    prompt.textContent = what ? "Watching — " + what : "Watching";
  } else if (v.must_pass) {
    prompt.textContent = "Choose " + v.pass_count + " cards to pass " + passDirection(v) + " (" + selected.size + "/" + v.pass_count + ")";
    pass.textContent = "Pass " + v.pass_count + " cards";
    pass.disabled = selected.size !== v.pass_count;
  } else if (v.phase === "passing") prompt.textContent = "Waiting for the others to pass…";
  else if (v.moon_choice_pending) prompt.textContent = "You shot the moon!";
  else if (v.to_move === v.seat) prompt.textContent = "Your turn: play a highlighted card.";
  else if (v.to_move !== null) prompt.textContent = "Waiting for " + seatName(v.to_move) + "…";
  else prompt.textContent = "";
  if (!spectator && t.away.includes(me) && !v.game_over) {
    prompt.textContent = "A bot plays for you (your time ran out). ";
    prompt.append(el("button", { type: "button", id: "back-btn", class: "small primary", text: "I'm back: let me play", onclick: () => send({ type: "back" }) }));
  }
  // Me, at the bottom of the table, and my hand (a spectator has neither).
  $("me").hidden = spectator;
  $("hand").hidden = spectator;
  if (spectator) {
    $("me").textContent = "";
    $("hand").textContent = "";
    delete $("hand").dataset.drawn;
  } else renderMine(v, t, n);
  renderScores();
  renderRematch();
  tick();
  announce(prompt.textContent);
  if (!spectator && t.unnamed.includes(me) && !v.game_over) { showNameDialog(); return; }  // a name first
  if ($("dialog").dataset.kind === "name") closeDialog();
  if (holding()) return;  // the dialogs wait until the finished trick has been seen
  if (v.moon_choice_pending) showMoon();
  else if ($("dialog").dataset.kind === "moon") closeDialog();
  if (v.game_over && !shownGameOver) { shownGameOver = true; showGameOver(); }
}

// The trick just taken, in words under the next one: "Last trick: Bob took 5♠ 9♠ Q♠ 2♠".
function lastTrickWords(last, me) {
  return el("span", { class: "last-words" }, "Last trick: " + (last.winner === me ? "you" : seatName(last.winner)) + " took ",
    ...last.plays.map((p) => cardChip(p.card)));
}

// Makes the children of ``parent`` that match ``selector`` the ``fresh`` ones, in order: one
// with the same key (``data-seat`` or ``data-card``) already there is changed to the fresh one,
// not replaced, so what a reader, a test or a moving card holds stays (a card in flight keeps
// its ``away`` mark); the others go.
function keep(parent, selector, fresh) {
  const key = (e) => e.dataset.card || e.dataset.seat;
  const old = new Map([...parent.querySelectorAll(":scope > " + selector)].map((e) => [key(e), e]));
  for (const f of fresh) {
    const e = old.get(key(f));
    old.delete(key(f));
    if (!e) { parent.append(f); continue; }
    const away = e.classList.contains("away");
    for (const a of [...e.attributes]) if (a.name !== "style" && !f.hasAttribute(a.name)) e.removeAttribute(a.name);
    for (const a of [...f.attributes]) if (a.name !== "style") e.setAttribute(a.name, a.value);
    e.style.cssText = f.style.cssText;  // CSSOM: allowed by the Content-Security-Policy
    e.classList.toggle("away", away);
    e.replaceChildren(...f.childNodes);
    parent.append(e);  // moved, in order, not made anew
  }
  for (const e of old.values()) e.remove();
}

// Each seat's clock: the seconds it has left to act, while the turn timer runs for it.
function tick() {
  if (!state) return;
  for (const c of document.querySelectorAll(".clock")) {
    const end = deadlines[c.dataset.seat];
    const left = end === undefined ? null : Math.max(0, Math.ceil((end - performance.now()) / 1000));
    c.textContent = left === null ? "" : left + " s left";
    c.classList.toggle("low", left !== null && left <= 5);
  }
}

function renderMine(v, t, n) {
  const meBox = $("me");
  meBox.className = "me" + (v.to_move === v.seat || v.must_pass ? " turn" : "");
  meBox.textContent = "";
  meBox.append(el("span", { class: "name", text: t.unnamed.includes(v.seat) ? "You" : "You (" + seatName(v.seat) + ")" }),
    el("span", { class: "meta", text: v.points_taken[v.seat] + " pts this round · total " + t.totals[v.seat] }),
    el("span", { class: "meta clock", "data-seat": v.seat }));
  if (v.received && v.tricks.length === 0 && v.trick.plays.length < n) meBox.append(el("span", { class: "meta", text: "received " + v.received.map(cardName).join(" ") }));
  // Hand.
  const hand = $("hand");
  const legal = new Set(v.legal);
  const received = new Set(v.tricks.length === 0 ? v.received || [] : []);
  const hinted = new Set(hint && hint.seq === state.seq ? hintCards(hint) : []);
  const drawn = JSON.stringify([v.hand, v.must_pass, [...legal], [...selected], [...received], [...hinted]]);
  if (hand.dataset.drawn === drawn) return;  // the same hand: left as it is (its focus, its hover)
  hand.dataset.drawn = drawn;
  const keepFocus = hand.contains(document.activeElement) || (keyboardPlay && document.activeElement === document.body);
  hand.textContent = "";
  v.hand.forEach((c, i) => {
    const playable = v.must_pass || legal.has(c);
    const b = el("button", {
      type: "button", class: "card" + (playable ? " legal" : " dim") + (selected.has(c) ? " selected" : "") + (received.has(c) ? " new" : "") + (hinted.has(c) ? " hinted" : ""),
      "data-card": c, "aria-label": cardName(c) + (received.has(c) ? ", received" : "") + (hinted.has(c) ? ", the hint" : ""), "aria-pressed": v.must_pass ? String(selected.has(c)) : null,
      disabled: !playable, tabindex: playable ? "0" : "-1",
      onclick: (e) => { keyboardPlay = e.detail === 0; onCard(c); },  // detail 0: Enter or Space, not a pointer
      onfocus: () => { focusIndex = i; },
    }, cardImg(c));
    hand.append(b);
  });
  balanceHand();
  if (keepFocus && $("overlay").hidden) focusNear(focusIndex);
}

// Keyboard play goes on in the hand: the playable card nearest to the ``i``-th gets the focus.
function focusNear(i) {
  const cards = [...$("hand").querySelectorAll(".card")];
  const best = cards.map((b, k) => [Math.abs(k - i), b]).filter(([, b]) => !b.disabled).sort((a, b) => a[0] - b[0])[0];
  if (best) best[1].focus();
}

// A hand too wide for one row is split into rows of (nearly) equal length.
function balanceHand() {
  const hand = $("hand");
  for (const b of hand.querySelectorAll(".hand-break")) b.remove();
  const cards = [...hand.querySelectorAll(".card")];
  if (cards.length < 2) return;
  const w = cards[0].offsetWidth, step = w + parseFloat(getComputedStyle(cards[0]).marginRight);
  const style = getComputedStyle(hand);
  const avail = hand.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 4;
  const perRow = Math.max(1, Math.floor((avail - w) / step) + 1);
  if (perRow >= cards.length) return;
  const per = Math.ceil(cards.length / Math.ceil(cards.length / perRow));
  for (let i = per; i < cards.length; i += per) cards[i].before(el("div", { class: "hand-break", "aria-hidden": "true" }));
}

// The scores panel (S): the totals after each round, as a table and a chart; drawn when shown.
function renderScores() {
  const box = $("scores");
  $("scores-btn").setAttribute("aria-expanded", String(!box.hidden));
  if (box.hidden) return;
  const t = state.table, n = state.view.players;
  box.textContent = "";
  box.append(scoreTable(t, n), scoreChart(t, n));
}
function toggleScores() { $("scores").hidden = !$("scores").hidden; renderScores(); }

const seatNames = (n) => Array.from({ length: n }, (_, s) => seatName(s));
const scoreChart = (t, n) => chart.scoreChart(t.score_history, seatNames(n), t.target);

function scoreTable(t, n) {
  const head = el("tr", {}, el("th", { text: "Round" }));
  for (let s = 0; s < n; s++) head.append(el("th", { text: seatName(s) }));
  const table = el("table", { class: "history" }, head);
  t.score_history.forEach((row, i) => {
    const tr = el("tr", {}, el("td", { text: String(i + 1) }));
    row.forEach((x, s) => tr.append(el("td", { text: x + " (+" + t.results[i].scores[s] + ")" })));
    table.append(tr);
  });
  return table;
}

function onCard(c) {
  const v = state.view;
  if (state.you === null) return;
  if (v.must_pass) {
    if (selected.has(c)) selected.delete(c);
    else if (selected.size < v.pass_count) selected.add(c);
    else toast("You pass " + v.pass_count + " cards; unselect one first.");
    render();
    focusCard(c);
  } else if (v.to_move === v.seat && v.legal.includes(c)) {
    act({ type: "play", seq: state.seq, card: c });
  }
}

// Sends my action; the finished trick on screen has been seen, so its pause ends.
function act(msg) {
  hurry();
  send(msg);
}

function focusCard(c) {
  const b = $("hand").querySelector('[data-card="' + c + '"]');
  if (b) b.focus();
}

function sendPass() {
  const v = state.view;
  if (state.you === null || selected.size !== v.pass_count) return;
  act({ type: "pass", seq: state.seq, cards: [...selected] });
}

// Keys: arrows, Home and End move among the playable cards (Enter plays, Space marks a card to
// pass: the card buttons' own keys), P passes, L shows the last trick, S the scores.
function onKey(e) {
  if (!state || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName) || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "Escape") { closeDialog(); return; }
  if (!$("overlay").hidden) return;
  const buttons = [...$("hand").querySelectorAll(".card:not([disabled])")];
  const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: "first", End: "last" };
  if (e.key in moves) {
    if (!buttons.length) return;
    const cur = buttons.indexOf(document.activeElement), step = moves[e.key];
    const next = step === "first" ? 0 : step === "last" ? buttons.length - 1
      : cur < 0 ? 0 : (cur + step + buttons.length) % buttons.length;
    buttons[next].focus();
    keyboardPlay = true;
    e.preventDefault();
  } else if (e.key === "l" || e.key === "L") { reviewing = !reviewing; render(); }
  else if (e.key === "s" || e.key === "S") toggleScores();
  else if ((e.key === "p" || e.key === "P") && state.view.must_pass) sendPass();
  else if (e.key === "h" || e.key === "H") askHint();
}

// A dialog over the table; the focus goes to its first button, stays inside it (Tab), and
// comes back where it was when it closes.
let focusBefore = null;
function showDialog(kind, ...content) {
  const d = $("dialog");
  releaseSummary();
  if ($("overlay").hidden) focusBefore = document.activeElement;
  d.textContent = "";
  d.dataset.kind = kind;
  d.append(...content.filter((x) => x !== null && x !== undefined));
  $("overlay").hidden = false;
  const b = d.querySelector("button");
  if (b) b.focus();
}
function closeDialog() {
  releaseSummary();
  if ($("overlay").hidden) return;
  $("overlay").hidden = true;
  $("dialog").dataset.kind = "";
  if (focusBefore && focusBefore.isConnected) focusBefore.focus();
  else if (state && isMyTurn(state)) focusNear(0);
}
function trapFocus(e) {
  if (e.key !== "Tab") return;
  const items = [...$("dialog").querySelectorAll("button, a[href], summary, input")];
  if (!items.length) return;
  const first = items[0], last = items[items.length - 1];
  if (e.shiftKey && document.activeElement === first) { last.focus(); e.preventDefault(); }
  else if (!e.shiftKey && document.activeElement === last) { first.focus(); e.preventDefault(); }
}
$("dialog").addEventListener("keydown", trapFocus);

function showMoon() {
  if ($("dialog").dataset.kind === "moon") return;
  const others = state.view.players - 1;
  const choose = (choice) => () => { act({ type: "moon", seq: state.seq, choice }); closeDialog(); };
  showDialog("moon", el("h2", { id: "dialog-title", text: "You shot the moon!" }), el("p", { text: "Choose how it scores:" }),
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "primary", id: "moon-add", text: "+26 to each of the " + others + " others", onclick: choose("add") }),
      el("button", { type: "button", id: "moon-subtract", text: "−26 from my score", onclick: choose("subtract") })));
}

// A round's result: each seat's point cards taken (when known), points, score and total.
function roundTable(t, n, result, taken) {
  const me = state.you;
  const table = el("table", { class: "round" },
    el("tr", {}, el("th", { text: "Player" }), el("th", { text: "points" }), el("th", { text: "score" }), el("th", { text: "total" })));
  for (let s = 0; s < n; s++) {
    const cards = taken && el("span", { class: "took" }, ...(taken[s].length ? taken[s].map(cardChip) : [el("span", { class: "none", text: "no point cards" })]));
    table.append(el("tr", { "data-seat": s },
      el("td", {}, el("span", { class: "who", text: seatName(s) + (s === me ? " (you)" : "") }), cards),
      el("td", { text: String(result.points[s]) }), el("td", { text: String(result.scores[s]) }), el("td", { text: String(t.totals[s]) })));
  }
  return table;
}

// Who shot the moon and how it scored, or null.
function moonWords(r) {
  if (r.shooter === null || r.shooter === undefined) return null;
  const own = r.scores[r.shooter], others = Math.max(...r.scores.filter((_, s) => s !== r.shooter));
  return el("p", { class: "moon" }, el("b", { text: seatName(r.shooter) + " shot the moon!" }),
    " " + (own < 0 ? own + " for " + seatName(r.shooter) : "+" + others + " for everyone else") + ".");
}

// A round's summary; the next round waits until it closes. A spectator's closes by itself
// after a few seconds (a countdown on its button): watching never stops at a summary.
const SPECTATOR_SUMMARY = 6;  // seconds
let summaryTimer = null;
function showRoundSummary(m) {
  const t = m.table, n = m.view.players, r = lastRound.result;
  const ok = el("button", { type: "button", class: "primary", id: "summary-ok", text: "Next round", onclick: closeDialog });
  showDialog("summary", el("h2", { id: "dialog-title", text: "Round " + t.results.length + " over" }), moonWords(r),
    roundTable(t, n, r, lastRound.taken),
    el("h3", { text: "Totals after each round" }), scoreChart(t, n),
    el("div", { class: "buttons" }, ok));
  if (m.you === null) countDown(ok, SPECTATOR_SUMMARY);
}
function countDown(button, seconds) {
  clearInterval(summaryTimer);
  let left = seconds;
  const step = () => {
    if (!button.isConnected) clearInterval(summaryTimer);
    else if (left <= 0) { clearInterval(summaryTimer); closeDialog(); }
    else button.textContent = "Next round (" + left-- + " s)";
  };
  step();
  summaryTimer = setInterval(step, 1000);
}

// "Ann wins", "You win", "Ann and Bo share the win", "Ada (hard) wins".
function winnerWords(t) {
  const who = (t.winners || []).map((s) => (s === state.you ? "you" : seatLabel(s)));
  if (who.length > 1) return who.join(" and ") + " share the win";
  return who.length ? (who[0] === "you" ? "You win" : who[0] + " wins") : "no winner";
}

// The game's end: the winner(s) first and large, the final standings (lowest total first),
// the score chart, the last round and the history.
function showGameOver() {
  const t = state.table, n = state.view.players, winners = t.winners || [];
  const order = [...Array(n).keys()].sort((a, b) => t.totals[a] - t.totals[b]);
  const standings = el("ol", { class: "standings" }, ...order.map((s) => el("li", { class: winners.includes(s) ? "winner" : "" },
    el("span", { text: seatLabel(s) + (s === state.you ? " (you)" : "") }), el("b", { text: String(t.totals[s]) }))));
  const title = winnerWords(t);
  showDialog("gameover",
    el("div", { class: "crown", "aria-hidden": "true", text: "♛" }),
    el("h2", { id: "dialog-title", class: "winner-title", text: title[0].toUpperCase() + title.slice(1) + "!" }),
    el("p", { class: "note", text: "Game over after " + t.results.length + (t.results.length === 1 ? " round" : " rounds") + ": the lowest total wins (target " + t.target + ")." }),
    standings, scoreChart(t, n),
    finalRound(t, n),
    el("details", {}, el("summary", { text: "Score history" }), scoreTable(t, n)),
    el("div", { id: "rematch-box", class: "rematch-box" }, ...rematchParts()),
    el("div", { id: "game-over-extra", class: "buttons" },  // the game review's button (review.js): a seated player's
      state.you !== null ? review.control(tableId, state.you) : null),
    el("div", { class: "buttons" }, el("a", { href: "/", class: "button-link", text: "Back to the lobby" }), el("button", { type: "button", class: "primary", id: "gameover-ok", text: "Close", onclick: closeDialog })));
}

// The game's last round, who took what: as this page saw it end, or (opened after the end)
// from the final state, with the point cards if its view still holds every trick.
function finalRound(t, n) {
  if (!t.results.length) return null;
  const last = lastRound && lastRound.round === t.results.length && lastRound.taken ? lastRound : roundRecord(state, state);
  return el("details", { class: "last-round" }, el("summary", { text: "Round " + t.results.length + ": who took what" }),
    moonWords(last.result), roundTable(t, n, last.result, last.taken));
}

// ---------------------------------------------------------------- a name, a hint, a rematch
// A person whose seat has no name yet (an invite link whose name nobody chose) is asked for
// one before playing; the name goes to the server, which tells everyone at the table.
function showNameDialog() {
  if ($("dialog").dataset.kind === "name") return;
  const input = el("input", { id: "name-input", type: "text", maxlength: "40", value: myName(), autocomplete: "nickname", "aria-describedby": "name-error" });
  const error = el("p", { id: "name-error", class: "error", role: "alert" });
  const form = el("form", { id: "name-form" }, el("label", { for: "name-input", text: "Your name" }), input, error,
    el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", id: "name-ok", text: "Sit down" })));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = input.value.trim();
    if (!name) { error.textContent = "Please type a name: the others at the table will see it."; return; }
    error.textContent = "";
    localStorage.setItem("pyhearts:name", name);
    send({ type: "name", name });
  });
  showDialog("name", el("h2", { id: "dialog-title", text: "Welcome to the table!" }),
    el("p", { text: "What should the others call you?" }), form);
  input.focus();
  input.select();
}

// The hint (H): what the search bot would do from my view, asked at my turn; its card(s)
// are highlighted in my hand until the table moves on.
let hint = null;
const hintCards = (h) => (h.action.cards ? h.action.cards : h.action.card ? [h.action.card] : []);
function askHint() {
  if (!state || state.you === null || !isMyTurn(state) || state.view.game_over) return;
  if (hint && hint.seq === state.seq) { showHint(hint); return; }
  const box = $("hint");
  box.textContent = "Thinking about a hint…";
  box.hidden = false;
  send({ type: "hint", seq: state.seq });
}
function showHint(m) {
  if (!state || m.seq !== state.seq) return;  // the table moved on: that hint is no use now
  hint = m;
  const box = $("hint");
  box.textContent = "";
  box.append(el("b", { text: m.text }));
  box.hidden = false;
  render();
}
function hideHint() {
  hint = null;
  $("hint").hidden = true;
  $("hint").textContent = "";
}

// The rematch: a new table with the same seats. Whoever presses first makes it; everyone at
// this table is told ("Ann wants a rematch — Join"), and each joins their own seat with one
// click (this browser's token opens it there too); a spectator gets a Watch link.
let rematch = null, wantRematch = false;
function askRematch() {
  wantRematch = true;
  if (rematch) joinRematch();
  else send({ type: "rematch" });
}
function onRematch(m) {
  rematch = m;
  if (wantRematch && state && state.you !== null) { joinRematch(); return; }
  renderRematch();
  const box = $("rematch-box");
  if (box) box.replaceChildren(...rematchParts());
  $("announce").textContent = rematchWords();
}
function joinRematch() {
  if (!rematch) return;
  if (token) localStorage.setItem("pyhearts:" + rematch.table, token);
  creator.carry(tableId, rematch.table);  // the rematch is made with the same creator
  location.href = "/t/" + rematch.table + (state && state.you === null ? "#watch" : "");
}
const rematchWords = () => (rematch ? (state && rematch.by === state.you ? "You want" : rematch.name + " wants") + " a rematch — " : "");
// What the game-over dialog and the table show of the rematch: a button to ask for one, or
// the one asked for with its Join (or Watch) button.
function rematchParts() {
  const spectator = !state || state.you === null;
  if (!rematch) return spectator ? [] : [el("button", { type: "button", id: "rematch-btn", class: "primary", text: "Rematch", onclick: askRematch })];
  return [el("span", { class: "rematch-words", text: rematchWords() }),
    spectator ? el("a", { href: "/t/" + rematch.table + "#watch", class: "button-link rematch-join", text: "Watch" })
      : el("button", { type: "button", class: "primary rematch-join", text: "Join", onclick: joinRematch })];
}
function renderRematch() {
  const note = $("rematch-note");
  note.hidden = !rematch;
  if (rematch && !note.querySelector(".rematch-join")) note.replaceChildren(...rematchParts());
}

// The profile, my games, the leaderboard and the replay are pages of their own (player.js,
// history.js, replay.js).
const PAGES = [
  { path: /^\/t\/([A-Za-z0-9_-]+)/, show: (m) => tableMain(m[1]) },
  { path: /^\/me\/?$/, show: player.showProfilePage },
  { path: /^\/games\/?$/, show: showGames },
  { path: /^\/leaderboard\/?$/, show: showLeaderboard },
  { path: /^\/replay\/([A-Za-z0-9_-]+)\/?$/, show: showReplay },
];
const page = PAGES.find((p) => p.path.test(location.pathname));
if (page) page.show(location.pathname.match(page.path));
else lobby();
