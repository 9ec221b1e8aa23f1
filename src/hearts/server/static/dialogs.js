// pyhearts web table: the dialogs over the table. A dialog takes the focus (its first button),
// keeps it inside (Tab) and gives it back when it closes (Escape, or its button). The round's
// summary (who took what, the totals, the chart; the next round waits until it closes, a
// spectator's closes by itself), the game's end (the winner, the standings, the rematch, the
// review), the moon's choice, a newcomer's name, and the creator's seats (seats.js).
//
//   showDialog(kind, ...content)   // any dialog; ``kind`` names it (#dialog's data-kind)
//   closeDialog()
//   wireDialog()                   // the focus kept inside: once, at the page's start
//   showRoundSummary(m)            // the round just ended (live.lastRound), at the state ``m``
//   showGameOver()                 // the game's end
//   showMoon()                     // I shot the moon: how does it score?
//   showNameDialog(renaming)       // my seat has no name yet; or (true) I change mine
//   showSeats()                    // the creator gives a seat a new invite link
//   winnerWords(t)                 // "You win", "Ann and Bo share the win"
import { $, el, cardChip, copyButton } from "./ui.js";
import { _, ngettext } from "./i18n.js";
import { myName } from "./profile.js";
import { live, seatName, seatLabel, isMyTurn } from "./state.js";
import { act, send } from "./connection.js";
import { focusNear } from "./hand.js";
import { roundRecord } from "./rounds.js";
import { scoreChart, scoreTable } from "./scores.js";
import { rematchParts } from "./rematch.js";
import * as review from "./review.js";
import * as seats from "./seats.js";

// A dialog over the table; the focus goes to its first button, stays inside it (Tab), and
// comes back where it was when it closes.
let focusBefore = null;
export function showDialog(kind, ...content) {
  const d = $("dialog");
  live.releaseSummary();
  if ($("overlay").hidden) focusBefore = document.activeElement;
  d.textContent = "";
  d.dataset.kind = kind;
  d.append(...content.filter((x) => x !== null && x !== undefined));
  $("overlay").hidden = false;
  const b = d.querySelector("button");
  if (b) b.focus();
}
export function closeDialog() {
  live.releaseSummary();
  if ($("overlay").hidden) return;
  $("overlay").hidden = true;
  $("dialog").dataset.kind = "";
  if (focusBefore && focusBefore.isConnected) focusBefore.focus();
  else if (live.state && isMyTurn(live.state)) focusNear(0);
}
function trapFocus(e) {
  if (e.key !== "Tab") return;
  const items = [...$("dialog").querySelectorAll("button, a[href], summary, input")];
  if (!items.length) return;
  const first = items[0], last = items[items.length - 1];
  if (e.shiftKey && document.activeElement === first) { last.focus(); e.preventDefault(); }
  else if (!e.shiftKey && document.activeElement === last) { first.focus(); e.preventDefault(); }
}
export function wireDialog() { $("dialog").addEventListener("keydown", trapFocus); }

export function showMoon() {
  if ($("dialog").dataset.kind === "moon") return;
  const others = live.state.view.players - 1;
  const worth = live.state.view.rules.spade_penalties ? 43 : 26; // R4.4, R4.5: the round's points
  const choose = (choice) => () => { act({ type: "moon", seq: live.state.seq, choice }); closeDialog(); };
  showDialog("moon", el("h2", { id: "dialog-title", text: _("You shot the moon!") }), el("p", { text: _("Choose how it scores:") }),
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "primary", id: "moon-add", text: ngettext("+{worth} to the {n} other", "+{worth} to each of the {n} others", others, { worth }), onclick: choose("add") }),
      el("button", { type: "button", id: "moon-subtract", text: _("−{worth} from my score", { worth }), onclick: choose("subtract") })));
}

// A round's result: each seat's point cards taken (when known), points, score and total.
function roundTable(t, n, result, taken) {
  const me = live.state.you;
  const table = el("table", { class: "round" },
    el("tr", {}, el("th", { text: _("Player") }), el("th", { text: _("points") }), el("th", { text: _("score") }), el("th", { text: _("total") })));
  for (let s = 0; s < n; s++) {
    const cards = taken && el("span", { class: "took" }, ...(taken[s].length ? taken[s].map(cardChip) : [el("span", { class: "none", text: _("no point cards") })]));
    table.append(el("tr", { "data-seat": s },
      el("td", {}, el("span", { class: "who", text: s === me ? _("{name} (you)", { name: seatName(s) }) : seatName(s) }), cards),
      el("td", { text: String(result.points[s]) }), el("td", { text: String(result.scores[s]) }), el("td", { text: String(t.totals[s]) })));
  }
  return table;
}

// Who shot the moon and how it scored, or null.
function moonWords(r) {
  if (r.shooter === null || r.shooter === undefined) return null;
  const own = r.scores[r.shooter], others = Math.max(...r.scores.filter((_, s) => s !== r.shooter));
  return el("p", { class: "moon" }, el("b", { text: _("{name} shot the moon!", { name: seatName(r.shooter) }) }),
    " " + (own < 0 ? _("{points} for {name}.", { points: own, name: seatName(r.shooter) }) : _("+{points} for everyone else.", { points: others })));
}

// A round's summary; the next round waits until it closes. A spectator's closes by itself
// after a few seconds (a countdown on its button): watching never stops at a summary.
const SPECTATOR_SUMMARY = 6;  // seconds
let summaryTimer = null;
export function showRoundSummary(m) {
  const t = m.table, n = m.view.players, r = live.lastRound.result;
  const ok = el("button", { type: "button", class: "primary", id: "summary-ok", text: _("Next round"), onclick: closeDialog });
  showDialog("summary", el("h2", { id: "dialog-title", text: _("Round {n} over", { n: t.results.length }) }), moonWords(r),
    roundTable(t, n, r, live.lastRound.taken),
    el("h3", { text: _("Totals after each round") }), scoreChart(t, n),
    el("div", { class: "buttons" }, ok));
  if (m.you === null) countDown(ok, SPECTATOR_SUMMARY);
}
function countDown(button, seconds) {
  clearInterval(summaryTimer);
  let left = seconds;
  const step = () => {
    if (!button.isConnected) clearInterval(summaryTimer);
    else if (left <= 0) { clearInterval(summaryTimer); closeDialog(); }
    else button.textContent = _("Next round ({n} s)", { n: left-- });
  };
  step();
  summaryTimer = setInterval(step, 1000);
}

// "Ann wins", "You win", "Ann and Bo share the win", "Ada (hard) wins".
export function winnerWords(t) {
  const winners = t.winners || [];
  if (winners.length > 1) {
    const who = winners.map((s) => (s === live.state.you ? _("you") : seatLabel(s)));
    return _("{names} and {last} share the win", { names: who.slice(0, -1).join(", "), last: who[who.length - 1] });
  }
  if (!winners.length) return _("no winner");
  return winners[0] === live.state.you ? _("You win") : _("{name} wins", { name: seatLabel(winners[0]) });
}

// The game's end: the winner(s) first and large, the final standings (lowest total first),
// the score chart, the last round and the history.
export function showGameOver() {
  const s = live.state, t = s.table, n = s.view.players, winners = t.winners || [];
  const order = [...Array(n).keys()].sort((a, b) => t.totals[a] - t.totals[b]);
  const standings = el("ol", { class: "standings" }, ...order.map((seat) => el("li", { class: winners.includes(seat) ? "winner" : "" },
    el("span", { text: seat === s.you ? _("{name} (you)", { name: seatLabel(seat) }) : seatLabel(seat) }), el("b", { text: String(t.totals[seat]) }))));
  const title = winnerWords(t);
  showDialog("gameover",
    el("div", { class: "crown", "aria-hidden": "true", text: "♛" }),
    el("h2", { id: "dialog-title", class: "winner-title", text: title[0].toUpperCase() + title.slice(1) + "!" }),
    el("p", { class: "note", text: ngettext("Game over after {n} round: the lowest total wins (target {target}).", "Game over after {n} rounds: the lowest total wins (target {target}).", t.results.length, { target: t.target }) }),
    standings, scoreChart(t, n),
    finalRound(t, n),
    el("details", {}, el("summary", { text: _("Score history") }), scoreTable(t, n)),
    el("div", { id: "rematch-box", class: "rematch-box" }, ...rematchParts()),
    el("div", { id: "game-over-extra", class: "buttons" },  // the game review's button (review.js): a seated player's
      s.you !== null ? review.control(live.tableId, s.you) : null),
    el("div", { class: "buttons" }, el("a", { href: "/", class: "button-link", text: _("Back to the lobby") }), el("button", { type: "button", class: "primary", id: "gameover-ok", text: _("Close"), onclick: closeDialog })));
}

// The game's last round, who took what: as this page saw it end, or (opened after the end)
// from the final state, with the point cards if its view still holds every trick.
function finalRound(t, n) {
  if (!t.results.length) return null;
  const last = live.lastRound && live.lastRound.round === t.results.length && live.lastRound.taken ? live.lastRound : roundRecord(live.state, live.state);
  return el("details", { class: "last-round" }, el("summary", { text: _("Round {n}: who took what", { n: t.results.length }) }),
    moonWords(last.result), roundTable(t, n, last.result, last.taken));
}

// A person whose seat has no name yet (an invite link whose name nobody chose) is asked for
// one before playing; ``renaming``: a player changes theirs (*Change name*), until the game
// ends. The name goes to the server, which tells everyone at the table; a refusal is shown
// in the dialog (tablepage.js), which closes once the table has taken the name.
export function showNameDialog(renaming) {
  const kind = renaming === true ? "rename" : "name";
  if ($("dialog").dataset.kind === kind) return;
  const mine = live.state && live.state.you !== null && !live.state.table.unnamed.includes(live.state.you) ? seatName(live.state.you) : "";
  const input = el("input", { id: "name-input", type: "text", maxlength: "40", value: kind === "rename" ? mine : myName(), autocomplete: "nickname", "aria-describedby": "name-error" });
  const error = el("p", { id: "name-error", class: "error", role: "alert" });
  const form = el("form", { id: "name-form" }, el("label", { for: "name-input", text: _("Your name") }), input, error,
    el("div", { class: "buttons" },
      kind === "rename" ? el("button", { type: "button", id: "name-cancel", text: _("Cancel"), onclick: closeDialog }) : null,
      el("button", { type: "submit", class: "primary", id: "name-ok", text: kind === "rename" ? _("Save") : _("Sit down") })));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = input.value.trim();
    if (!name) { error.textContent = _("Please type a name: the others at the table will see it."); return; }
    error.textContent = "";
    if (kind === "rename" && name === mine) { closeDialog(); return; }
    localStorage.setItem("pyhearts:name", name);
    live.sentName = name;
    send({ type: "name", name });
  });
  if (kind === "rename") {
    showDialog(kind, el("h2", { id: "dialog-title", text: _("Your name at this table") }),
      el("p", { text: _("Everyone at the table sees it at once. It can change until the game ends.") }), form);
  } else {
    showDialog(kind, el("h2", { id: "dialog-title", text: _("Welcome to the table!") }),
      el("p", { text: _("What should the others call you?") }), form);
  }
  input.focus();
  input.select();
}

// The creator's seats dialog (seats.js): a new invite link for another person's seat.
export function showSeats() {
  if (!live.state) return;
  showDialog("seats", ...seats.content(live.tableId, live.state.table, live.state.you, copyButton),
    el("div", { class: "buttons" }, el("button", { type: "button", class: "primary", id: "seats-ok", text: _("Close"), onclick: closeDialog })));
}
