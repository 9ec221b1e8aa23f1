// pyhearts web table: the player's settings (kept in localStorage) and their panel. Each
// applies at once: the page's classes and data attributes (style.css follows them), the pauses
// (pacing.js), the sounds (sound.js), the movements (anim.js reads the "reduced-motion" class).
//
//   get("trickPause")        // seconds a finished trick stays; "sound", "fourColour",
//                            // "highContrast": booleans; "cardSize": small, normal or large;
//                            // "motion": system (the OS's prefers-reduced-motion), reduced or full;
//                            // "botPace": seconds before each bot move at the tables I make
//                            // (null: the server's; the server holds it within its limits)
//   set("sound", true)       // kept, and shown
//   reducedMotion()          // whether the cards move (the setting, or the system's)
//   wire()                   // the header's settings panel, once at the page's start
// The language is i18n.js's (its own key, read before any module draws a word).
import { _, choose, lang, languages } from "./i18n.js";
import { saveLanguage } from "./player.js";
import { call } from "./ui.js";

const KEY = "pyhearts:settings";
// What each setting is, its default, and how a stored value is made valid.
const SPECS = {
  trickPause: { value: 1.2, check: (x) => Math.min(3, Math.max(0.5, Number(x) || 1.2)) },  // seconds a finished trick stays
  sound: { value: false, check: (x) => x === true },
  fourColour: { value: false, check: (x) => x === true },  // clubs green, diamonds blue
  cardSize: { value: "normal", check: (x) => (["small", "normal", "large"].includes(x) ? x : "normal") },
  motion: { value: "system", check: (x) => (["system", "reduced", "full"].includes(x) ? x : "system") },
  highContrast: { value: false, check: (x) => x === true },
  botPace: { value: null, check: (x) => (x === null || x === "" || !(Number(x) >= 0) ? null : Math.min(60, Number(x))) },
};
const systemMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
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

const reducedMotion = () => values.motion === "reduced" || (values.motion === "system" && systemMotion.matches);

// The page follows the settings: the deck's colours, the cards' size, the motion, the
// contrast, and the panel's controls.
function show() {
  const body = document.body;
  body.classList.toggle("four-colour", values.fourColour);
  body.classList.toggle("high-contrast", values.highContrast);
  body.classList.toggle("reduced-motion", reducedMotion());
  body.dataset.cardSize = values.cardSize;
  const $ = (id) => document.getElementById(id);
  $("set-pause").value = String(values.trickPause);
  $("set-pause-out").textContent = values.trickPause.toLocaleString(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }) + " s";
  $("set-sound").checked = values.sound;
  $("set-four").checked = values.fourColour;
  $("set-size").value = values.cardSize;
  $("set-motion").value = values.motion;
  $("set-contrast").checked = values.highContrast;
  showPace();
}

// The bots' pace at the tables I make: the server's, or one of the paces within its limits
// (GET /api/config: bot_pace {min, max, default}), read when the panel first opens.
let paces = null;
const seconds = (x) => _("{s} s", { s: x.toLocaleString(lang(), { maximumFractionDigits: 1 }) });
async function loadPaces() {
  if (paces) return;
  const limits = (await call("GET", "/api/config")).bot_pace;
  paces = [0.2, 0.5, 1, 1.5, 2, 3].filter((x) => x >= limits.min && x <= limits.max);
  if (!paces.length) paces = [limits.min, limits.max];
  const select = document.getElementById("set-bots");
  select.replaceChildren(new Option(_("the server's ({pace})", { pace: seconds(limits.default) }), ""));
  for (const x of paces) select.append(new Option(seconds(x), String(x)));
  showPace();
}
function showPace() {
  const select = document.getElementById("set-bots"), pace = values.botPace;
  if (pace !== null && paces && !paces.includes(pace)) select.append(new Option(seconds(pace), String(pace)));
  if (paces) select.value = pace === null ? "" : String(pace);
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
    if (!panel.hidden) {
      $("set-pause").focus();
      loadPaces().catch(() => {});  // (the server's answer: the choices; without it, none)
    }
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
  $("set-size").addEventListener("change", (e) => set("cardSize", e.target.value));
  $("set-motion").addEventListener("change", (e) => set("motion", e.target.value));
  $("set-contrast").addEventListener("change", (e) => set("highContrast", e.target.checked));
  $("set-bots").addEventListener("change", (e) => set("botPace", e.target.value));
  systemMotion.addEventListener("change", show);  // the system's setting, followed while the page is open
  const select = $("set-lang");
  for (const l of languages()) select.append(new Option(l.name, l.code, false, l.code === lang()));
  select.addEventListener("change", async () => {
    await saveLanguage(select.value);  // the player profile's, if there is one
    choose(select.value);
  });
  show();
}

export { get, set, reducedMotion, wire };
