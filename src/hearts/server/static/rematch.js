// pyhearts web table: the rematch, a new table with the same seats. Whoever presses first makes
// it; everyone at this table is told ("Ann wants a rematch — Join"), and each joins their own
// seat with one click (this browser's token opens it there too); a spectator gets a Watch link.
//
//   onRematch(m)      // the server's "rematch" message
//   rematchParts()    // what the game-over dialog shows: "Rematch", or the one asked for
//   renderRematch()   // the note on the table
import { $, el } from "./ui.js";
import { _ } from "./i18n.js";
import { live } from "./state.js";
import { send } from "./connection.js";
import { carry } from "./seats.js";

function askRematch() {
  live.wantRematch = true;
  if (live.rematch) joinRematch();
  else send({ type: "rematch" });
}

export function onRematch(m) {
  live.rematch = m;
  if (live.wantRematch && live.state && live.state.you !== null) { joinRematch(); return; }
  renderRematch();
  const box = $("rematch-box");
  if (box) box.replaceChildren(...rematchParts());
  $("announce").textContent = rematchWords();
}

function joinRematch() {
  const rematch = live.rematch;
  if (!rematch) return;
  if (live.token) localStorage.setItem("pyhearts:" + rematch.table, live.token);
  carry(live.tableId, rematch.table);  // the rematch is made with the same creator
  location.href = "/t/" + rematch.table + (live.state && live.state.you === null ? "#watch" : "");
}

const rematchWords = () => {
  const rematch = live.rematch, s = live.state;
  return rematch ? (s && rematch.by === s.you ? _("You want a rematch") : _("{name} wants a rematch", { name: rematch.name })) + " — " : "";
};

// What the game-over dialog and the table show of the rematch: a button to ask for one, or
// the one asked for with its Join (or Watch) button.
export function rematchParts() {
  const spectator = !live.state || live.state.you === null, rematch = live.rematch;
  if (!rematch) return spectator ? [] : [el("button", { type: "button", id: "rematch-btn", class: "primary", text: _("Rematch"), onclick: askRematch })];
  return [el("span", { class: "rematch-words", text: rematchWords() }),
    spectator ? el("a", { href: "/t/" + rematch.table + "#watch", class: "button-link rematch-join", text: _("Watch") })
      : el("button", { type: "button", class: "primary rematch-join", text: _("Join"), onclick: joinRematch })];
}

export function renderRematch() {
  const note = $("rematch-note");
  note.hidden = !live.rematch;
  if (live.rematch && !note.querySelector(".rematch-join")) note.replaceChildren(...rematchParts());
}
