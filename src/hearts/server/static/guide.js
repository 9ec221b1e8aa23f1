// pyhearts web table: the guided first game. A new player is offered once (in the lobby) a game
// against three easy bots in which each part of Hearts is explained at the moment it first
// happens there: the pass, the first trick, following suit, hearts broken, the Q♠, and at the
// first round's end the scoring and shooting the moon. Each tip is shown once, names its rule
// (a link to the rules page) and can be skipped with the rest of the guide. What became of the
// offer — offered, on (at table ``id``), done or skipped — and the tips seen are kept in this
// browser (localStorage, like the player profile).
//
//   offerGuide()       // the lobby's offer, the first time only
//   startGuide()       // a new table against three easy bots, with the guide on
//   observe(state)     // the table page, on each state shown: the tips whose moment it is
//   guideState()       // {status, table, seen}: what is kept
//
// Test hook, deliberate: window.heartsGuide lists the tips shown on this page, in order.
//
// Accessibility: the tip is a labelled region whose text is announced (aria-live polite);
// "Got it" and "Skip the guide" are its buttons, and closing it gives the focus back to the
// hand when it was there (or on the tip) before.
import { $, el, call, toast } from "./ui.js";
import { _, ngettext } from "./i18n.js";
import { focusNear } from "./hand.js";
import { live } from "./state.js";
import { remember } from "./seats.js";

const KEY = "pyhearts:guide";
const STEPS = ["pass", "first_trick", "follow", "hearts_broken", "queen", "moon"];

export function guideState() {
  try { return { status: null, table: null, seen: [], ...JSON.parse(localStorage.getItem(KEY) || "{}") }; } catch (e) { return { status: null, table: null, seen: [] }; }
}
function keep(g) {
  try { localStorage.setItem(KEY, JSON.stringify(g)); } catch (e) { /* private mode: this page only */ }
}

// The lobby: the offer, once (a browser that was offered it, or played or skipped it, is not asked again).
export function offerGuide() {
  const g = guideState(), box = $("guide-offer");
  if (!box || g.status !== null) return;
  keep({ ...g, status: "offered" });
  box.hidden = false;
  $("guide-start").addEventListener("click", startGuide);
  $("guide-no").addEventListener("click", () => { keep({ ...guideState(), status: "skipped" }); box.hidden = true; });
}

export async function startGuide() {
  const bot = { kind: "bot", level: "easy" };
  try {
    const t = await call("POST", "/api/tables", { seats: [{ kind: "human" }, bot, bot, bot], listed: false });
    remember(t.id, t.creator_key);
    keep({ status: "on", table: t.id, seen: [] });
    location.href = t.seats[0].link;
  } catch (e) { toast(e.message); }
}

// Each step: whether its moment has come in state ``s`` (my view ``v``), its title, words and rule.
const suitOf = (card) => card[card.length - 1];
const TIPS = {
  pass: {
    when: (v) => v.must_pass,
    title: () => _("Passing cards"),
    text: (v) => ngettext("Before the first trick everyone passes {n} card to another player, face down. Pass the cards you least want: the Q♠, high spades, high hearts. Mark them, then press Pass.",
      "Before the first trick everyone passes {n} cards to another player, face down. Pass the cards you least want: the Q♠, high spades, high hearts. Mark them, then press Pass.", v.pass_count),
    rule: "R2.1",
  },
  first_trick: {
    when: (v) => v.phase === "playing" && v.tricks.length === 0,
    title: () => _("The first trick"),
    text: () => _("The player holding the lowest club (the 2♣) leads it. On this first trick nobody may throw a heart or the Q♠ unless they hold nothing else: no points on the first trick."),
    rule: "R3.3",
  },
  follow: {
    when: (v) => v.phase === "playing" && v.to_move === v.seat && v.trick.plays.length > 0
      && v.hand.some((c) => suitOf(c) === suitOf(v.trick.plays[0].card)),
    title: () => _("Following suit"),
    text: () => _("You must play a card of the suit that was led while you have one: the cards you may play are the highlighted ones. With none of that suit you may play any card. The highest card of the suit led takes the trick."),
    rule: "R3.2",
  },
  hearts_broken: {
    when: (v) => v.hearts_broken,
    title: () => _("Hearts are broken"),
    text: () => _("A heart has been played (or the Q♠, which breaks hearts too at the usual rules): hearts are broken, and from the next trick on a heart may be led. Each heart you take costs a point."),
    rule: "R3.5",
  },
  queen: {
    when: (v) => [v.trick, ...v.tricks].some((t) => t.plays.some((p) => p.card === "QS")),
    title: () => _("The Q♠"),
    text: () => _("The Q♠ has been played: whoever takes this trick takes 13 points with her. Keep her away from you, or throw her on a trick someone else takes."),
    rule: "R4.1",
  },
  moon: {
    when: (v) => v.phase === "over" || v.round_number > 0,  // the first round's end (or later, if a tip was open then)
    title: () => _("Scoring, and shooting the moon"),
    text: (v) => (v.result && v.result.shooter !== null && v.result.shooter !== undefined
      ? _("Someone took every heart and the Q♠: they shot the moon! Instead of 26 points for them, every other player scores 26 (at the usual rules).")
      : _("The round is over: each heart taken is a point, the Q♠ 13, and the lowest total wins when someone reaches the target. Whoever takes every heart and the Q♠ shoots the moon: every other player scores 26 instead."))
      + " " + _("That was the last tip: enjoy the game!"),
    rule: "R4.4",
  },
};

let showing = null;

// The table page: the tips whose moment has come in the state on screen, one at a time (the next
// after "Got it"), each once.
export function observe(s) {
  const g = guideState();
  if (g.status !== "on" || !s || s.you === null || g.table !== live.tableId || showing) return;
  const v = s.view;
  const step = STEPS.find((k) => !g.seen.includes(k) && TIPS[k].when(v));
  if (step) show(step, v);
}

function show(step, v) {
  const tip = TIPS[step], box = $("guide");
  const g = guideState();
  keep({ ...g, seen: [...g.seen, step] });
  showing = step;
  (window.heartsGuide = window.heartsGuide || []).push(step);  // test hook: the tips shown, in order
  const hadFocus = $("hand").contains(document.activeElement);
  box.dataset.step = step;
  box.replaceChildren(
    el("h2", { id: "guide-title", text: tip.title() }),
    el("p", { id: "guide-text" }, tip.text(v) + " ",
      el("a", { href: "/rules?table=" + encodeURIComponent(live.tableId) + "#" + tip.rule, target: "_blank", rel: "noopener", text: _("rule {rule}", { rule: tip.rule }) })),
    el("div", { class: "row" },
      el("button", { type: "button", id: "guide-ok", class: "small primary", text: _("Got it"), onclick: () => close(step, hadFocus) }),
      el("button", { type: "button", id: "guide-skip", class: "small", text: _("Skip the guide"), onclick: () => skip(hadFocus) })));
  box.hidden = false;
}

function close(step, hadFocus) {
  $("guide").hidden = true;
  showing = null;
  const g = guideState();
  if (step === "moon" || STEPS.every((k) => g.seen.includes(k))) keep({ ...g, status: "done" });
  if (hadFocus || document.activeElement === document.body) focusNear(live.focusIndex || 0);
  if (live.state) observe(live.state);  // a second tip that came at the same moment
}

function skip(hadFocus) {
  keep({ ...guideState(), status: "skipped" });
  $("guide").hidden = true;
  showing = null;
  if (hadFocus || document.activeElement === document.body) focusNear(live.focusIndex || 0);
}
