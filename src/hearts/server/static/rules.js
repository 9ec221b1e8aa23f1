// pyhearts web table: the rules page (/rules; /rules?table={id} with that table's options). The
// rule book is the project's one (docs/rules.md, read by hearts.book: GET /api/rules), every
// rule under its R-number, each paragraph shown in the player's language (a message of the
// catalogs, its Markdown's `code`, **bold** and *italic* kept); the table's options (or the
// usual ones) first, and each beside its rule ("At this table: …").
//
//   showRules()    // the page, for the table of the address's ?table= (else the usual rules)
import { $, el, call } from "./ui.js";
import { _ } from "./i18n.js";

// A paragraph's Markdown inline (`code`, **bold**, *italic*) as elements: never markup.
export function inline(text) {
  const out = [];
  for (const part of text.split(/(`[^`]*`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*)/)) {
    if (!part) continue;
    if (part.startsWith("`") && part.endsWith("`") && part.length > 1) out.push(el("code", { text: part.slice(1, -1) }));
    else if (part.startsWith("**") && part.endsWith("**") && part.length > 3) out.push(el("strong", { text: part.slice(2, -2) }));
    else if (part.startsWith("*") && part.endsWith("*") && part.length > 1) out.push(el("em", { text: part.slice(1, -1) }));
    else out.push(document.createTextNode(part));
  }
  return out;
}

const words = (text) => inline(_(text));
const valueWords = (o) => o.value.map((v) => _(v)).join(" / ");

function block(b) {
  if (b.kind === "table") {
    const [head, ...rows] = b.rows;
    return el("div", { class: "rules-table" }, el("table", {},
      el("thead", {}, el("tr", {}, ...head.map((c) => el("th", { scope: "col" }, ...words(c))))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", {}, ...words(c))))))));
  }
  return el(b.kind === "li" ? "li" : "p", {}, ...words(b.text));
}

// A rule's blocks, the list items of a run together in one list.
function blocks(list) {
  const out = [];
  for (const b of list) {
    const node = block(b);
    if (b.kind === "li") {
      const last = out[out.length - 1];
      if (last && last.tagName === "UL") last.append(node);
      else out.push(el("ul", {}, node));
    } else out.push(node);
  }
  return out;
}

export async function showRules() {
  const page = $("rules-page");
  page.hidden = false;
  const table = new URLSearchParams(location.search).get("table");
  const status = $("rules-status");
  status.textContent = _("loading…");
  let data;
  try {
    data = await call("GET", "/api/rules" + (table ? "?table=" + encodeURIComponent(table) : ""));
  } catch (e) { status.textContent = e.message; return; }
  status.textContent = "";
  if (table) $("rules-back").append(el("a", { href: "/t/" + encodeURIComponent(table), text: _("Back to the table") }));
  $("rules-options-title").textContent = table ? _("This table's rules") : _("The usual rules (no option chosen)");
  const byRule = {};
  for (const o of data.options) (byRule[o.rule] = byRule[o.rule] || []).push(o);
  $("rules-options").replaceChildren(...data.options.map((o) => el("li", { "data-option": o.name },
    el("a", { href: "#" + o.rule, class: "rule", text: o.rule }), " ", _(o.label) + ": ", el("strong", { text: valueWords(o) }))));
  $("rules-toc").replaceChildren(el("ul", {}, ...data.rules.filter((r) => !r.number.includes(".")).map((r) =>
    el("li", {}, el("a", { href: "#" + r.number, text: r.number + " " + _(r.title) })))));
  $("rules-book").replaceChildren(...data.rules.map((r) => {
    const section = el("section", { id: r.number, class: "rule-" + (r.number.includes(".") ? "rule" : "section"), "aria-labelledby": "h-" + r.number });
    section.append(el(r.number.includes(".") ? "h3" : "h2", { id: "h-" + r.number }, el("span", { class: "rule-number", text: r.number }), " " + _(r.title)));
    for (const o of byRule[r.number] || []) {
      section.append(el("p", { class: "at-table", "data-option": o.name }, _("At this table: {option} is {value}.", { option: _(o.label), value: valueWords(o) })));
    }
    section.append(...blocks(r.blocks));
    return section;
  }));
  if (location.hash) { const target = document.getElementById(location.hash.slice(1)); if (target) target.scrollIntoView(); }
}
