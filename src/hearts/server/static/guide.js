// pyhearts web table: the guided first game. A new player is offered once (in the lobby) a game
// against three easy bots in which each part of Hearts is explained at the moment it first
// happens there: the pass, the first trick, following suit, hearts broken, the Q♠, and at the
// first round's end the scoring and shooting the moon. Each tip is shown once, names its rule
// (a link to the rules page) and can be skipped with the rest of the guide. What became of the
// offer — offered, on (at table ``id``), done or skipped — and the tips seen are the player
// profile's: remembered with it on the server (PATCH /api/me {guide}, read back with the profile:
// GET /api/me, a passkey's sign-in), so a profile is offered it once on every device it signs in
// on, and each new profile afresh. This browser keeps a copy (localStorage "pyhearts:guide",
// marked with the profile it is of: ``owner``); a browser without a profile yet keeps its own
// there (``owner`` null), which becomes the profile's once one is made or signs in here.
//
//   offerGuide()       // the lobby's offer, the first time only (once the profile's is known)
//   startGuide()       // a new table against three easy bots, with the guide on
//   observe(state)     // the table page, on each state shown: the tips whose moment it is
//   guideState()       // {status, table, seen}: the profile's (or this browser's, without one)
//   followGuide(me)    // the profile's as the server gave it (player.js, with its language)
//
// Test hooks, deliberate: window.heartsGuide lists the tips shown on this page, in order; the
// lobby's box says whether it offered the guide once it has decided (data-offered="true"/"false").
//
// Accessibility: the tip is a labelled region whose text is announced (aria-live polite);
// "Got it" and "Skip the guide" are its buttons, and closing it gives the focus back to the
// hand when it was there (or on the tip) before.
import { $, el, call, toast } from "./ui.js";
import { _, ngettext } from "./i18n.js";
import { focusNear } from "./hand.js";
import { live } from "./state.js";
import { remember } from "./seats.js";
import { current } from "./profile.js";

const KEY = "pyhearts:guide";
const STEPS = ["pass", "first_trick", "follow", "hearts_broken", "queen", "moon"];  // (hearts.server.players.GUIDE_STEPS)
const NEVER = { status: null, table: null, seen: [] };

// The copy kept here, with the profile it is of (``owner``: null, this browser's own; a copy of
// before the owners were marked is this browser's own too).
function cached() {
  try { return { ...NEVER, owner: null, ...JSON.parse(localStorage.getItem(KEY) || "{}") }; } catch (e) { return { ...NEVER, owner: null }; }
}
function write(g, owner) {
  try { localStorage.setItem(KEY, JSON.stringify({ status: g.status, table: g.table, seen: g.seen, owner })); } catch (e) { /* private mode: this page only */ }
}

// The profile's (this browser's own, without one, or until the profile has its own): another
// profile's copy is not this one's, which was never offered.
export function guideState() {
  const c = cached(), p = current();
  if (c.owner !== null && (!p || c.owner !== p.id)) return { ...NEVER };
  return { status: c.status, table: c.table, seen: c.seen };
}

// Kept here and, with a profile, on the server: the changes sent one after another, in order.
// The promise: sent (or given up: it is kept here all the same).
let sending = Promise.resolve();
function keep(g) {
  const p = current();
  write(g, p ? p.id : null);
  if (p) save(g);
  return sending;
}
function save(g) {
  const guide = { status: g.status, table: g.table, seen: g.seen };
  sending = sending.then(() => call("PATCH", "/api/me", { guide })).catch(() => { /* kept in this browser */ });
}

// The profile ``me`` as the server gave it: its guide, kept here, or this browser's own (or the
// profile's copy here) where that is further along — offered, then on, then done or skipped; the
// tips seen of both — and then sent (an answer older than a change made here takes nothing back).
// Another profile's copy is not this one's.
const RANK = { offered: 1, on: 2, done: 3, skipped: 3 };
const rank = (g) => RANK[g.status] || 0;
function further(a, b) {
  if (rank(a) !== rank(b)) return rank(a) > rank(b) ? a : b;
  return { ...a, seen: [...new Set([...a.seen, ...b.seen])] };
}
export function followGuide(me) {
  const c = cached(), theirs = me.guide || NEVER;
  const g = further(theirs, c.owner === null || c.owner === me.id ? c : NEVER);
  write(g, me.id);
  if (g.status !== theirs.status || g.table !== theirs.table || g.seen.length !== theirs.seen.length) save(g);
}

// The lobby: the offer, once (a profile that was offered it, or played or skipped it, is not
// asked again, on any device).
export function offerGuide() {
  const g = guideState(), box = $("guide-offer");
  if (!box) return;
  box.dataset.offered = String(g.status === null);
  if (g.status !== null) return;
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
    await keep({ status: "on", table: t.id, seen: [] });  // (the profile's, before the page goes)
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
