// pyhearts web table: the words in the player's language. The catalog is the server's
// (GET /i18n/<lang>.json, made from the same gettext catalogs as the terminal's words: one set
// of strings); it is loaded before any module that imports this one runs (top-level await).
// The language: the one chosen in the settings (localStorage "pyhearts:lang", and the player
// profile's), else the browser's (Accept-Language: /i18n/auto.json), else English.
//
//   import { _, ngettext, translatePage, lang, languages, choose } from "./i18n.js";
//   _("Lobby")                                // the translation, or the English itself
//   _("Seat {n}", { n: 3 })                   // {name} placeholders filled in
//   ngettext("{n} card", "{n} cards", n)      // the language's plural form; {n} is n
//   translatePage(document)                   // the page's data-i18n marks translated, once
//   lang()                                    // "de"; languages(): [{code, name}] offered
//   choose("fr")                              // kept, and the page shown again in French
//   chosen()                                  // the language chosen in this browser, or null
//
// The page's own text is marked in index.html: data-i18n translates an element's own text
// (each run between its children), data-i18n-title / -aria-label / -placeholder an attribute.
// `python -m hearts.i18n --check` finds every message (these calls and those marks).
const KEY = "pyhearts:lang";
const ENGLISH = { language: "en", name: "English", plural: "(n != 1)", nplurals: 2, messages: {}, languages: [{ code: "en", name: "English" }] };

function stored() {
  try { return localStorage.getItem(KEY); } catch (e) { return null; }
}

async function load(code) {
  const r = await fetch("/i18n/" + encodeURIComponent(code) + ".json");
  if (!r.ok) throw new Error("no catalog " + code);
  return r.json();
}

let catalog = ENGLISH;
try { catalog = await load(stored() || "auto"); } catch (e) {
  try { catalog = await load("auto"); } catch (e2) { catalog = ENGLISH; }
}

// The plural rule of the catalog (its Plural-Forms expression, C syntax: n, integers, ! % < >
// <= >= == != && || ?: and parentheses), read by a small parser, never eval: the CSP forbids it
// and a catalog is data. An expression it cannot read falls back to English's (n != 1).
export function pluralRule(expr) {
  const tokens = [];
  const re = /\s*(\d+|n|\|\||&&|[=!<>]=|[<>%?:()!])/y;
  let m;
  while (re.lastIndex < expr.length && (m = re.exec(expr))) tokens.push(m[1]);
  if (expr.slice(re.lastIndex).trim()) throw new Error("bad plural expression: " + expr);
  let i = 0;
  const peek = () => tokens[i], take = (t) => { if (tokens[i] !== t) throw new Error("expected " + t); i++; };
  const BIN = { "||": (a, b) => +(a || b), "&&": (a, b) => +(a && b), "==": (a, b) => +(a === b), "!=": (a, b) => +(a !== b),
    "<": (a, b) => +(a < b), ">": (a, b) => +(a > b), "<=": (a, b) => +(a <= b), ">=": (a, b) => +(a >= b), "%": (a, b) => a % b };
  const level = (ops, next) => () => {
    let left = next();
    while (ops.includes(peek())) { const op = tokens[i++], a = left, b = next(); left = (n) => BIN[op](a(n), b(n)); }
    return left;
  };
  const primary = () => {
    const t = tokens[i++];
    if (t === "n") return (n) => n;
    if (t === "!") { const a = primary(); return (n) => +!a(n); }
    if (t === "(") { const a = ternary(); take(")"); return a; }
    if (/^\d+$/.test(t || "")) { const k = Number(t); return () => k; }
    throw new Error("unexpected " + t);
  };
  const mod = level(["%"], primary), rel = level(["<", ">", "<=", ">="], mod), eq = level(["==", "!="], rel);
  const and = level(["&&"], eq), or = level(["||"], and);
  function ternary() {
    const c = or();
    if (peek() !== "?") return c;
    i++;
    const a = ternary();
    take(":");
    const b = ternary();
    return (n) => (c(n) ? a(n) : b(n));
  }
  const rule = ternary();
  if (i !== tokens.length) throw new Error("bad plural expression: " + expr);
  return rule;
}

let plural;
try { plural = pluralRule(catalog.plural); } catch (e) { plural = (n) => +(n !== 1); }

const fill = (text, params) => (params ? text.replace(/\{([a-z_]+)\}/g, (all, k) => (k in params ? String(params[k]) : all)) : text);

export function _(message, params) {
  const t = catalog.messages[message];
  return fill(typeof t === "string" && t ? t : message, params);
}

export function ngettext(singular, pluralText, n, params) {
  const forms = catalog.messages[singular];
  const k = plural(n);
  const text = Array.isArray(forms) && forms[k] ? forms[k] : n === 1 ? singular : pluralText;
  return fill(text, { n, ...(params || {}) });
}

export const lang = () => catalog.language;
export const languages = () => catalog.languages;

// The page's marked text in the language: each data-i18n element's own text (the runs of text
// between its children, spaces kept around them) and each data-i18n-<attribute>'s value.
export function translatePage(root) {
  document.documentElement.lang = catalog.language;
  for (const e of root.querySelectorAll("[data-i18n]")) {
    for (const node of e.childNodes) {
      if (node.nodeType !== 3 || !node.nodeValue.trim()) continue;
      const m = node.nodeValue.match(/^(\s*)([\s\S]*?)(\s*)$/);
      node.nodeValue = m[1] + _(m[2].split(/\s+/).join(" ")) + m[3];
    }
  }
  for (const attr of ["title", "aria-label", "placeholder"]) {
    for (const e of root.querySelectorAll("[data-i18n-" + attr + "]")) e.setAttribute(attr, _(e.getAttribute(attr)));
  }
}

export const chosen = () => stored();

// A language chosen in the settings (or the player profile's): kept in this browser, and the
// page drawn again in it — once, however many answers ask for it (the profile is read by the
// header and by the profile page alike: a second reload interrupted the first).
let reloading = false;
export function choose(code) {
  try { localStorage.setItem(KEY, code); } catch (e) { /* private mode: this page only */ }
  if (!reloading) location.reload();
  reloading = true;
}
