// pyhearts web table: the lobby (/): Quick match (quickmatch.js), "Play now" against three
// bots, the new-table form (the rules' options made from their specs, the seats, the timer),
// the invite links of the table made, and the open tables to join or watch (kept up to date
// by the live lobby's pushes).
//
//   lobby()   // shows it
import { $, el, call, toast, copyButton, levelName } from "./ui.js";
import { _, ngettext } from "./i18n.js";
import { myName } from "./profile.js";
import * as player from "./player.js";
import { remember } from "./seats.js";
import { offerGuide } from "./guide.js";
import { setupQuick, liveLobby } from "./quickmatch.js";
import * as settings from "./settings.js";

// The rule options' form is made from their specs (GET /api/config: Rules.options()): each
// option's label in words, its help and rule number as a hint, and a control by its kind.
// ``players`` and ``target`` sit in the first row; the others under "Rule options".
const HEADLINE = ["players", "target"];
let config = null, specs = [];

async function lobby() {
  $("lobby").hidden = false;
  document.title = "pyhearts — " + _("lobby");
  player.checked().then(offerGuide);  // a new profile's guided first game, offered once (guide.js)
  config = await call("GET", "/api/config");
  specs = config.options;
  const preset = $("preset");
  for (const name of Object.keys(config.presets)) preset.append(el("option", { value: name, text: presetName(name) }));
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
  for (const l of config.levels) standIn.append(el("option", { value: l, text: levelName(l), selected: l === config.stand_in }));
  const showStandIn = () => { $("stand-in-option").hidden = !(Number(timer.value) > 0); };
  timer.addEventListener("input", showStandIn);
  showStandIn();
  fillSeats();
  setupPlayNow();
  setupQuick();
  $("create-form").addEventListener("submit", createTable);
  $("refresh").addEventListener("click", listTables);
  listTables();
  liveLobby(listTables);  // each change pushed redraws the open tables: no reload
}

// "Play now": you against three bots of the chosen level (remembered in this browser), the
// usual rules, a table nobody else sees listed; one click opens it.
const LEVEL_KEY = "pyhearts:play-level";
function setupPlayNow() {
  const level = $("play-level");
  const chosen = localStorage.getItem(LEVEL_KEY) || "medium";
  for (const l of config.levels) level.append(el("option", { value: l, text: levelName(l), selected: l === chosen }));
  level.addEventListener("change", () => localStorage.setItem(LEVEL_KEY, level.value));
  $("play-now").addEventListener("click", playNow);
}

// The bots' pause the settings ask for at the tables I make (none: the server's).
const pace = () => (settings.get("botPace") === null ? {} : { bot_pace: settings.get("botPace") });

async function playNow() {
  const bot = { kind: "bot", level: $("play-level").value };
  localStorage.setItem(LEVEL_KEY, bot.level);
  try {
    const you = myName() ? { kind: "human", name: myName() } : { kind: "human" };  // no name yet: the table asks for one
    const t = await call("POST", "/api/tables", { seats: [you, bot, bot, bot], listed: false, ...pace() });
    remember(t.id, t.creator_key);
    location.href = t.seats[0].link;
  } catch (e) { toast(e.message); }
}

// Words for a value such as "add_to_others": "add to others" (its name's words in English), in
// the player's language (the presets and the rule options' choices; an unknown value's words
// are its name's).
const VALUES = {
  standard: () => _("standard"), omnibus: () => _("Omnibus (J♦)"), black_maria: () => _("Black Maria (three players)"),
  openspiel: () => _("openspiel"), no_queen_break: () => _("no queen break"), strict_queen: () => _("strict queen"),
  two_of_diamonds: () => _("two of diamonds"), two_of_clubs: () => _("two of clubs"), lowest_club: () => _("lowest club"),
  any_club: () => _("any club"), anytime: () => _("anytime"), after_break: () => _("after break"),
  add_to_others: () => _("add to others"), subtract_from_self: () => _("subtract from self"),
  shooter_chooses: () => _("shooter chooses"), add_unless_losing: () => _("add unless losing"),
  play_on: () => _("play on"), share: () => _("share"),
};
const readable = (value) => (VALUES[value] ? VALUES[value]() : String(value).replace(/_/g, " "));
const presetName = readable;

function optionControl(spec, value) {
  const id = "opt-" + spec.name;
  // The option's words: the server's (English), in the player's language from the catalogs.
  const help = _(spec.help), name = _(spec.label);
  const hint = spec.kind === "pass_cycle" ? help + ": " + _("a comma list of {choices}; empty for the usual rotation", { choices: spec.choices.join(", ") }) : help;
  const words = el("span", { class: "words" }, name + " ", el("small", { class: "rule", text: spec.rule }));
  let input;
  if (spec.kind === "bool") input = el("input", { type: "checkbox", id });
  else if (spec.kind === "choice") {
    input = el("select", { id });
    for (const c of spec.choices) input.append(el("option", { value: c, text: readable(c) }));
  } else if (spec.kind === "int") input = el("input", { type: "number", id, min: spec.low, max: spec.high, step: 1, required: true });
  else input = el("input", { type: "text", id, placeholder: _("usual rotation"), spellcheck: "false" });
  input.dataset.option = spec.name;
  const label = el("label", { class: "option" + (spec.kind === "bool" ? " check" : ""), for: id, title: hint + " (" + _("rule {rule}", { rule: spec.rule }) + ")" },
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
    const kind = el("select", { class: "kind", "aria-label": _("seat {n} kind", { n: i + 1 }) });
    for (const [v, t] of [["human", _("person (invite link)")], ["open", _("open seat (lobby)")], ["bot", _("bot")]]) kind.append(el("option", { value: v, text: t, selected: prev.kind === v }));
    const level = el("select", { class: "level", "aria-label": _("seat {n} bot level", { n: i + 1 }) });
    for (const l of config.levels) level.append(el("option", { value: l, text: levelName(l), selected: prev.level === l }));
    const name = el("input", { class: "name", placeholder: i === 0 ? _("your name (optional)") : _("name (optional)"), value: prev.name, maxlength: "40", "aria-label": _("seat {n} name", { n: i + 1 }) });
    const sync = () => { level.hidden = kind.value !== "bot"; name.hidden = kind.value === "open"; };
    kind.addEventListener("change", sync);
    sync();
    box.append(el("div", { class: "seat-row" }, el("span", { class: "label", text: i === 0 ? _("Seat 1 (you)") : _("Seat {n}", { n: i + 1 }) }), kind, name, level));
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
  const rated = $("rated").checked, chat = $("table-chat").checked;  // counts for the ratings: needs a player profile (player.js)
  const you = seats.find((x) => x.kind === "human");
  try {
    if (you) {
      await player.adopt(you.name);  // a first table makes the profile
      const p = player.current();  // no name typed: the profile's
      if (p && !you.name.trim()) you.name = p.name;
    }
    const t = await call("POST", "/api/tables", { preset: $("preset").value, options, seats, spectators, listed, turn_timer, stand_in, rated, chat, ...pace() });
    remember(t.id, t.creator_key);  // this browser may free the table's seats
    const list = el("ul", { class: "links" });
    let mine = null;
    for (const s of t.seats) {
      if (s.link) {
        if (mine === null) mine = s;
        const who = s.name || _("Seat {n}", { n: s.seat + 1 });
        list.append(el("li", {}, el("b", { text: who + ": " }), el("a", { href: s.link, class: "invite", "data-seat": s.seat, text: s.link }), " ", copyButton(s.link, _("Copy {name}'s invite link", { name: who }))));
      }
    }
    const box = $("created");
    box.textContent = "";
    box.append(el("h3", { text: _("Table {id} created — invite links (each is a seat's secret):", { id: t.id }) }), list);
    if (config.local_only) box.append(el("p", { class: "note", text: _("These links work on this computer only: the server listens on {url}. To invite friends on other machines, start it with --host 0.0.0.0 (and --public-url, the address they reach it at).", { url: config.public_url }) }));
    if (mine) box.append(el("a", { href: mine.link, class: "primary-link", id: "sit", text: mine.name ? _("Sit down as {name} →", { name: mine.name }) : _("Sit down →") }));
    if (t.watch) box.append(el("p", {}, _("Spectators' link (public, no seat):") + " ", el("a", { href: t.watch, class: "watch-link", text: t.watch }), " ", copyButton(t.watch, _("Copy the spectators' link"))));
    box.hidden = false;
    listTables();
  } catch (e) { toast(e.message); }
}

async function listTables() {
  try {
    const data = await call("GET", "/api/tables");
    const ul = $("open-tables");
    ul.textContent = "";
    if (!data.tables.length) ul.append(el("li", { text: _("No open table yet.") }));
    for (const t of data.tables) {
      const who = t.names.map((n, i) => (t.kinds[i] === "open" ? _("(free)") : n)).join(", ");
      const li = el("li", { "data-table": t.id }, el("span", { text: t.id + " · " + who + " · " + _("round {n}", { n: t.round }) + " · " + _("to {n}", { n: t.target }) + (t.turn_timer ? " · " + _("{n} s a turn", { n: t.turn_timer }) : "") }));
      if (t.free.length) {
        const name = el("input", { placeholder: _("your name"), maxlength: "40", class: "join-name", "aria-label": _("your name at table {id}", { id: t.id }) });
        li.append(name, el("button", { type: "button", class: "small join", text: _("Join seat {n}", { n: t.free[0] + 1 }), onclick: async () => {
          try {
            const j = await call("POST", "/api/tables/" + t.id + "/join", { seat: t.free[0], name: name.value });
            location.href = j.link;
          } catch (e) { toast(e.message); listTables(); }
        } }));
      }
      if (t.spectators_allowed) {
        li.append(el("a", { href: "/t/" + t.id + "#watch", class: "watch", text: _("Watch") + (t.spectators ? " (" + ngettext("{n} watching", "{n} watching", t.spectators) + ")" : "") }));
      }
      ul.append(li);
    }
  } catch (e) { toast(e.message); }
}

export { lobby };
