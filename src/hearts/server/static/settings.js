// pyhearts web table: the player's settings (kept in localStorage) and their panel.
//
//   get("trickPause")        // seconds a finished trick stays; "sound", "fourColour": booleans
//   set("sound", true)       // kept, and shown
//   wire()                   // the header's settings panel, once at the page's start
// The language is i18n.js's (its own key, read before any module draws a word).
import { choose, lang, languages } from "./i18n.js";
import { saveLanguage } from "./player.js";

const KEY = "pyhearts:settings";
// What each setting is, its default, and how a stored value is made valid.
const SPECS = {
  trickPause: { value: 1.2, check: (x) => Math.min(3, Math.max(0.5, Number(x) || 1.2)) },  // seconds a finished trick stays
  sound: { value: false, check: (x) => x === true },
  fourColour: { value: false, check: (x) => x === true },  // clubs green, diamonds blue
};
const values = load();

function load() {
  let stored = {};
  try { stored = JSON.parse(localStorage.getItem(KEY)) || {}; } catch (e) { stored = {}; }
  const out = {};
  for (const [name, spec] of Object.entries(SPECS)) out[name] = name in stored ? spec.check(stored[name]) : spec.value;
  return out;
}

const get = (name) => values[name];
function set(name, value) {
  values[name] = SPECS[name].check(value);
  try { localStorage.setItem(KEY, JSON.stringify(values)); } catch (e) { /* private mode: this page only */ }
  show();
}

// The page follows the settings: the deck's colours, and the panel's controls.
function show() {
  document.body.classList.toggle("four-colour", values.fourColour);
  const $ = (id) => document.getElementById(id);
  $("set-pause").value = String(values.trickPause);
  $("set-pause-out").textContent = values.trickPause.toLocaleString(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }) + " s";
  $("set-sound").checked = values.sound;
  $("set-four").checked = values.fourColour;
}

// The panel opens under the header's button and closes on Escape or a click elsewhere.
function wire() {
  const $ = (id) => document.getElementById(id);
  const panel = $("settings"), button = $("settings-btn");
  const open = (yes) => {
    panel.hidden = !yes;
    button.setAttribute("aria-expanded", String(yes));
  };
  button.addEventListener("click", () => {
    open(panel.hidden);
    if (!panel.hidden) $("set-pause").focus();
  });
  panel.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { open(false); button.focus(); e.stopPropagation(); }
  });
  document.addEventListener("click", (e) => {
    if (!panel.hidden && !panel.contains(e.target) && !button.contains(e.target)) open(false);
  });
  $("set-pause").addEventListener("input", (e) => set("trickPause", e.target.value));
  $("set-sound").addEventListener("change", (e) => set("sound", e.target.checked));
  $("set-four").addEventListener("change", (e) => set("fourColour", e.target.checked));
  const select = $("set-lang");
  for (const l of languages()) select.append(new Option(l.name, l.code, false, l.code === lang()));
  select.addEventListener("change", async () => {
    await saveLanguage(select.value);  // the player profile's, if there is one
    choose(select.value);
  });
  show();
}

export { get, set, wire };
