// pyhearts web table: my seat and my hand. The bar above the hand (my name, points, clock, the
// cards received), the hand's cards (the playable ones highlighted, the ones marked to pass,
// the received ones, the hint's), a click or a key on a card (it is played, or marked to pass),
// the pass (a card the rules refuse is sent all the same: the server's answer says which rule,
// in words), and the keys that move among the playable cards (arrows, Home, End; Enter plays
// and Space marks: the card buttons' own keys). A hand too wide for one row is split into rows
// of (nearly) equal length.
//
//   renderMine(v, t, n)   // the bar and the hand, from my view ``v`` and the table ``t``
//   moveFocus(e)          // an arrow, Home or End key among the playable cards: whether it was one
//   focusNear(i)          // the focus to the playable card nearest to the i-th
//   sendPass()            // passes the marked cards (when as many as the pass asks are marked)
//   balanceHand()         // the hand's rows again (the window was resized)
import { $, el, cardName, cardWords, cardImg, toast } from "./ui.js";
import { _, ngettext } from "./i18n.js";
import { live, seatName, redraw } from "./state.js";
import { act } from "./connection.js";
import { hintHolds } from "./hint.js";

export function renderMine(v, t, n) {
  const meBox = $("me");
  meBox.className = "me" + (v.to_move === v.seat || v.must_pass ? " turn" : "");
  meBox.textContent = "";
  meBox.append(el("span", { class: "name", text: t.unnamed.includes(v.seat) ? _("You") : _("You ({name})", { name: seatName(v.seat) }) }),
    el("span", { class: "meta", text: ngettext("{n} pt this round", "{n} pts this round", v.points_taken[v.seat]) + " · " + _("total {total}", { total: t.totals[v.seat] }) }),
    el("span", { class: "meta clock", "data-seat": v.seat }));
  if (v.received && v.tricks.length === 0 && v.trick.plays.length < n) meBox.append(el("span", { class: "meta", text: _("received {cards}", { cards: v.received.map(cardName).join(" ") }) }));
  renderHand(v);
}

// The cards of the hint (a pass's three, or the card to play).
const hintCards = (h) => (h.action.cards ? h.action.cards : h.action.card ? [h.action.card] : []);

function renderHand(v) {
  const hand = $("hand"), selected = live.selected, hint = live.hint;
  const legal = new Set(v.legal);
  const received = new Set(v.tricks.length === 0 ? v.received || [] : []);
  const hinted = new Set(hint && hintHolds(hint, live.state) ? hintCards(hint) : []);
  const drawn = JSON.stringify([v.hand, v.must_pass, [...legal], [...selected], [...received], [...hinted]]);
  if (hand.dataset.drawn === drawn) return;  // the same hand: left as it is (its focus, its hover)
  hand.dataset.drawn = drawn;
  const keepFocus = hand.contains(document.activeElement) || (live.keyboardPlay && document.activeElement === document.body);
  hand.textContent = "";
  const myTurn = v.to_move === v.seat && !v.must_pass;  // a card that may not be played still answers why (aria-disabled)
  v.hand.forEach((c, i) => {
    const playable = v.must_pass || legal.has(c);
    const b = el("button", {
      type: "button", class: "card" + (playable ? " legal" : " dim") + (selected.has(c) ? " selected" : "") + (received.has(c) ? " new" : "") + (hinted.has(c) ? " hinted" : ""),
      "data-card": c, "data-new": received.has(c) ? _("new") : null, "data-hint": hinted.has(c) ? _("hint") : null,  // the badges' words (style.css)
      "aria-label": cardWords(c) + (received.has(c) ? ", " + _("received") : "") + (hinted.has(c) ? ", " + _("the hint") : ""), "aria-pressed": v.must_pass ? String(selected.has(c)) : null,
      disabled: !playable && !myTurn, "aria-disabled": !playable && myTurn ? "true" : null, tabindex: playable ? "0" : "-1",
      onclick: (e) => { live.keyboardPlay = e.detail === 0; onCard(c); },  // detail 0: Enter or Space, not a pointer
      onfocus: () => { live.focusIndex = i; },
    }, cardImg(c));
    hand.append(b);
  });
  balanceHand();
  if (keepFocus && $("overlay").hidden) focusNear(live.focusIndex);
}

// Keyboard play goes on in the hand: the playable card nearest to the ``i``-th gets the focus.
export function focusNear(i) {
  const cards = [...$("hand").querySelectorAll(".card")];
  const best = cards.map((b, k) => [Math.abs(k - i), b]).filter(([, b]) => b.classList.contains("legal")).sort((a, b) => a[0] - b[0])[0];
  if (best) best[1].focus();
}

// A hand too wide for one row is split into rows of (nearly) equal length.
export function balanceHand() {
  const hand = $("hand");
  for (const b of hand.querySelectorAll(".hand-break")) b.remove();
  const cards = [...hand.querySelectorAll(".card")];
  if (cards.length < 2) return;
  const w = cards[0].offsetWidth, step = w + parseFloat(getComputedStyle(cards[0]).marginRight);
  const style = getComputedStyle(hand);
  const avail = hand.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 4;
  const perRow = Math.max(1, Math.floor((avail - w) / step) + 1);
  if (perRow >= cards.length) return;
  const per = Math.ceil(cards.length / Math.ceil(cards.length / perRow));
  for (let i = per; i < cards.length; i += per) cards[i].before(el("div", { class: "hand-break", "aria-hidden": "true" }));
}

// A card chosen: marked (or unmarked) to pass, or played if it may be.
function onCard(c) {
  const s = live.state, v = s.view, selected = live.selected;
  if (s.you === null) return;
  if (v.must_pass) {
    if (selected.has(c)) selected.delete(c);
    else if (selected.size < v.pass_count) selected.add(c);
    else toast(ngettext("You pass {n} card; unselect one first.", "You pass {n} cards; unselect one first.", v.pass_count));
    redraw();
    focusCard(c);
  } else if (v.to_move === v.seat) {  // a card the rules refuse too: the server answers why (the rule in words)
    act({ type: "play", seq: s.seq, card: c });
  }
}

function focusCard(c) {
  const b = $("hand").querySelector('[data-card="' + c + '"]');
  if (b) b.focus();
}

export function sendPass() {
  const s = live.state, v = s.view;
  if (s.you === null || live.selected.size !== v.pass_count) return;
  act({ type: "pass", seq: s.seq, cards: [...live.selected] });
}

// Arrows, Home and End move the focus among the playable cards; whether ``e`` was one of them.
const MOVES = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: "first", End: "last" };
export function moveFocus(e) {
  if (!(e.key in MOVES)) return false;
  const buttons = [...$("hand").querySelectorAll(".card.legal")];
  if (!buttons.length) return true;
  const cur = buttons.indexOf(document.activeElement), step = MOVES[e.key];
  const next = step === "first" ? 0 : step === "last" ? buttons.length - 1
    : cur < 0 ? 0 : (cur + step + buttons.length) % buttons.length;
  buttons[next].focus();
  live.keyboardPlay = true;
  e.preventDefault();
  return true;
}
