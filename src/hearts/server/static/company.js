// pyhearts web table: safe company. Another person's name at the table is a button that opens
// a menu — Mute (their chat hidden from you), Block (your chat hidden from each other, and never
// seated together again), Report… (a reason for the operator) — kept by the server with your
// player profile (the WebSocket's mark and report, answered by company and reported). The chat
// panel's *Chat on* box is your profile's chat setting (PATCH /api/me {chat}): off, no chat line
// is shown to you and you write none.
//
//   import * as company from "./company.js";
//   company.setup()            // the Chat on box
//   company.receive(m)         // {type: "company", muted, blocked, chat}
//   company.reported(m)        // {type: "reported", seat}
//   company.nameNode(s, t)     // a seat's name: a button with the menu for another person
//   company.companyPanel()     // the profile page's list of whom you muted and blocked, to undo
import { $, el, call, toast } from "./ui.js";
import { _ } from "./i18n.js";
import { live, seatLabel, redraw } from "./state.js";
import { sendIfOpen } from "./connection.js";
import { closeDialog, showDialog } from "./dialogs.js";
import { current } from "./profile.js";

const company = { muted: [], blocked: [], chat: true };

export function setup() {
  $("chat-on").addEventListener("change", () => setChat($("chat-on").checked));
}

export function receive(m) {
  company.muted = m.muted;
  company.blocked = m.blocked;
  showChat(m.chat);
  if (live.state) redraw();
}

export function reported(m) {
  toast(_("Thank you: your report of {name} was sent to the operator.", { name: seatLabel(m.seat) }));
}

// The chat setting: the profile's (the server stops sending lines at once), else this page's.
async function setChat(on) {
  showChat(on);
  if (!current()) return;
  try {
    await call("PATCH", "/api/me", { chat: on });
    if (on) toast(_("Chat on: new lines will show."));
  } catch (e) {
    toast(e.message);
    showChat(!on);
  }
}

function showChat(on) {
  company.chat = on;
  $("chat-on").checked = on;
  $("chat-body").classList.toggle("chat-off", !on);
  $("chat-off-note").hidden = on;
}

export function nameNode(s, t) {
  const label = seatLabel(s);
  const me = live.state ? live.state.you : null;
  if (me === null || s === me || t.kinds[s] !== "human") return el("div", { class: "name", title: label, text: label });
  const marks = [company.muted.includes(s) ? _("muted") : null, company.blocked.includes(s) ? _("blocked") : null].filter(Boolean);
  return el("button", {
    type: "button", class: "name menu", title: _("{name}: mute, block or report", { name: label }), "aria-haspopup": "dialog",
    onclick: () => showMenu(s),
  }, label, marks.length ? el("span", { class: "marks", text: " · " + marks.join(", ") }) : null);
}

function showMenu(s) {
  const muted = company.muted.includes(s), blocked = company.blocked.includes(s);
  showDialog("company",
    el("h2", { id: "dialog-title", text: seatLabel(s) }),
    el("p", { class: "note", text: _("Mute hides their chat from you. Block hides your chat from each other too, and you are not seated together again. Both stay with your player profile, at every table.") }),
    el("div", { class: "actions" },
      el("button", { type: "button", id: "company-mute", text: muted ? _("Unmute") : _("Mute"), onclick: () => mark(s, "mute", !muted) }),
      el("button", { type: "button", id: "company-block", text: blocked ? _("Unblock") : _("Block"), onclick: () => mark(s, "block", !blocked) }),
      el("button", { type: "button", id: "company-report", text: _("Report…"), onclick: () => showReport(s) }),
      el("button", { type: "button", id: "company-close", class: "small", text: _("Close"), onclick: closeDialog })));
}

function mark(s, kind, on) {
  if (sendIfOpen({ type: "mark", seat: s, kind, on })) closeDialog();
}

function showReport(s) {
  const reason = el("textarea", { id: "report-reason", maxlength: "500", rows: "4", "aria-label": _("what happened (at most 500 characters)") });
  const error = el("p", { id: "report-error", class: "chat-error", role: "alert" });
  const send = () => {
    const text = reason.value.trim();
    if (!text) { error.textContent = _("Please say what happened."); return; }
    if (sendIfOpen({ type: "report", seat: s, reason: text })) closeDialog();
  };
  showDialog("report",
    el("h2", { id: "dialog-title", text: _("Report {name}", { name: seatLabel(s) }) }),
    el("p", { class: "note", text: _("Say what happened: the operator reads it with this table's chat and game as they are now.") }),
    reason, error,
    el("div", { class: "actions" },
      el("button", { type: "button", id: "report-send", text: _("Send report"), onclick: send }),
      el("button", { type: "button", class: "small", text: _("Cancel"), onclick: closeDialog })));
  reason.focus();
}

// The profile page's panel (/me): whom you muted and blocked, each with its undo (a block too:
// the two never meet at a table again to undo it there).
export function companyPanel() {
  const list = el("ul", { id: "company-list", class: "company-list" });
  const panel = el("div", { class: "panel", id: "company-panel" }, el("h2", { text: _("Muted and blocked players") }),
    el("p", { class: "note", text: _("Muted players' chat is hidden from you; blocked players' chat is hidden both ways, and you are not seated together.") }),
    list);
  const fill = (m) => {
    list.textContent = "";
    const rows = [...m.muted.map((p) => [p, "mute"]), ...m.blocked.map((p) => [p, "block"])];
    if (!rows.length) list.append(el("li", { class: "note", text: _("Nobody.") }));
    for (const [p, kind] of rows) {
      list.append(el("li", { "data-player": p.id, "data-kind": kind }, p.name + " (" + (kind === "mute" ? _("muted") : _("blocked")) + ") ",
        el("button", { type: "button", class: "small", text: kind === "mute" ? _("Unmute") : _("Unblock"), onclick: async () => {
          try { fill(await call("DELETE", "/api/me/marks/" + kind + "/" + encodeURIComponent(p.id))); } catch (e) { toast(e.message); }
        } })));
    }
  };
  call("GET", "/api/me/marks").then(fill, (e) => list.append(el("li", { class: "note", text: e.message })));
  return panel;
}
