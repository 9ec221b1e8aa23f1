// pyhearts web table: the hint (H). What the search bot would do from my view, asked of the
// server at my turn; its card(s) are highlighted in my hand (hand.js) until my decision is made:
// a pass's through the others' passes (R2.1: they do not change mine), a play's for its position.
//
//   askHint()          // asks (or shows again the hint that still holds)
//   showHint(m)        // the server's "hint" message
//   hideHint()         // the table moved on, or the hint was refused
//   hintHolds(h, s)    // whether hint h (or the hint asked, live.asked) is still for the decision of state s
import { $, el, cardName } from "./ui.js";
import { _, lang } from "./i18n.js";
import { live, isMyTurn, redraw } from "./state.js";
import { send } from "./connection.js";

export function askHint() {
  const s = live.state;
  if (!s || s.you === null || !isMyTurn(s) || s.view.game_over) return;
  if (live.hint && hintHolds(live.hint, s)) { drawHint(live.hint); return; }
  const box = $("hint");
  box.textContent = _("Thinking about a hint…");
  box.hidden = false;
  live.asked = { seq: s.seq, action: { type: s.view.must_pass ? "pass" : "play" }, round: s.view.round_number };
  send({ type: "hint", seq: s.seq });
}

export function showHint(m) {
  if (!live.state || m.seq !== live.state.seq) return;  // the table moved on: that hint is no use now
  live.hint = { ...m, round: live.state.view.round_number };
  live.asked = null;
  drawHint(live.hint);
}

function drawHint(h) {
  const box = $("hint");
  box.textContent = "";
  box.append(el("b", { text: hintWords(h) }));
  box.hidden = false;
  redraw();
}

// The hint in words: the server's (English), or made from its action in the player's language.
function hintWords(m) {
  const a = m.action;
  if (lang() === "en" || !a) return m.text;
  const worth = live.state.view.rules.spade_penalties ? 43 : 26;  // R4.4, R4.5: the round's points
  if (a.type === "pass") return _("Hint: pass {cards}", { cards: a.cards.map(cardName).join(" ") });
  if (a.type === "moon") return a.choice === "add" ? _("Hint: add {n} to everyone else", { n: worth }) : _("Hint: take {n} off your own score", { n: worth });
  return _("Hint: play {card}", { card: cardName(a.card) });
}

export function hideHint() {
  live.hint = live.asked = null;
  $("hint").hidden = true;
  $("hint").textContent = "";
}

export function hintHolds(h, s) {
  return h.seq === s.seq || (h.action.type === "pass" && s.view.must_pass && s.view.round_number === h.round);
}
