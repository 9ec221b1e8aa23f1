// pyhearts web table: the table's creator frees a seat. The browser that made
// a table keeps the creator key the server answered with (only its hash is stored there); at
// the table it gets a "Seats" button, whose dialog gives another person's seat a new invite
// link: the old link stops working, and whoever holds it is told.
//
//   remember(tableId, key)          // after POST /api/tables
//   carry(fromId, toId)             // a rematch: the same creator
//   isCreator(tableId)
//   content(tableId, table, me, copyButton)   // the dialog's parts
import { el, call } from "./ui.js";
import { _ } from "./i18n.js";

const storeKey = (id) => "pyhearts:creator:" + id;
const keyOf = (id) => localStorage.getItem(storeKey(id));
function remember(id, key) {
  if (typeof key === "string" && key) localStorage.setItem(storeKey(id), key);
}
const carry = (from, to) => remember(to, keyOf(from));
const isCreator = (id) => keyOf(id) !== null;

// One person's seat, "Seat 2 · Bob", and a button that asks for its new link (shown in its
// place, whole: it wraps). A freed seat is nobody's until its next person names themself.
function seatLine(id, table, s, copy) {
  const who = (freed) => _("Seat {n}", { n: s + 1 }) + " · " + (freed || table.unnamed.includes(s) ? _("waiting for its player (no name yet)") : table.names[s]);
  const label = el("b", { class: "seat-who", text: who(false) });
  const out = el("span", { class: "seat-link" });
  const button = el("button", { type: "button", class: "small free-seat", "data-seat": s, text: _("Free seat: new invite link") });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const r = await call("POST", "/api/tables/" + id + "/seats/" + s + "/invite", { key: keyOf(id) });
      button.remove();
      label.textContent = who(true);
      out.replaceChildren(el("a", { href: r.link, class: "invite", "data-seat": s, text: r.link }), " ",
        copy(r.link, _("Copy seat {n}'s new invite link", { n: s + 1 })));
    } catch (e) {
      out.textContent = e.message;
      button.disabled = false;
    }
  });
  return el("li", { "data-seat": s }, label, " ", button, out);
}

// The dialog's parts: every other person's seat with its button.
function content(id, table, me, copy) {
  const list = el("ul", { class: "seat-links" });
  table.kinds.forEach((kind, s) => { if (kind === "human" && s !== me) list.append(seatLine(id, table, s, copy)); });
  if (!list.children.length) list.append(el("li", { text: _("No other person sits at this table.") }));
  return [el("h2", { id: "dialog-title", text: _("Seats") }),
    el("p", { class: "note", text: _("You made this table. A seat's new invite link replaces its old one: whoever holds the old link is told and can no longer play from it; send the new one to whoever takes the seat.") }),
    list];
}

export { remember, carry, isCreator, content };
