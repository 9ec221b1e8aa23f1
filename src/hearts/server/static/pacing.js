// pyhearts web table: the pace of the table. The server sends one event per action, as fast
// as the bots play. The page shows them in order: each played card flies to the trick from the
// hand or seat that played it, and a finished trick (a round's last one included) stays
// readable for the settings' pause before it goes to its winner; my turn hurries what waits
// before it, a welcome or a resync (the whole table) replaces it, and a round's summary holds
// the next round back until it closes. ``live.state`` is the state on screen; later ones wait
// in ``queue``.
//
//   receive(m)   // a state: the server's "state" message, or one its "event" made (events.js)
//
// For the browser tests the page keeps window.heartsState (the state on screen), heartsLog
// (the events received) and heartsTricks (the finished tricks as shown): a deliberate hook.
import { $, setText } from "./ui.js";
import { _ } from "./i18n.js";
import { live, hurry, holding, isMyTurn } from "./state.js";
import * as settings from "./settings.js";
import * as sound from "./sound.js";
import * as anim from "./anim.js";
import * as chat from "./chat.js";
import { hideHint, hintHolds } from "./hint.js";
import { roundRecord } from "./rounds.js";
import { showRoundSummary } from "./dialogs.js";
import { render } from "./table.js";

const queue = [];
let pumping = false, lastSeq = -1;

export function receive(m) {
  if (m.seq < lastSeq && m.reason !== "welcome") return;
  lastSeq = m.seq;
  m.at = performance.now();  // the turn timer's seconds left count from now
  if (m.event && m.reason === "event") {
    window.heartsLog = (window.heartsLog || []).slice(-300);
    window.heartsLog.push(m.event);
  }
  if (m.reason === "welcome" || m.reason === "resync") { queue.length = 0; hurry(); }  // the whole table, at once
  else if (urgent(m)) hurry();  // my turn: what is on screen moves on now
  queue.push(m);
  pump();
}

const STALE = 30000;  // milliseconds a state may wait to be shown; older ones are skipped

async function pump() {
  if (pumping) return;
  pumping = true;
  while (queue.length) {
    if (performance.now() - queue[0].at > STALE) queue.splice(0, queue.length - 1);  // far behind: catch up
    const rush = queue.some(urgent);
    try { await show(queue.shift(), rush); } catch (e) { console.error(e); }
    if ($("dialog").dataset.kind === "summary") await summaryClosed();
  }
  pumping = false;
}

// A state in which I am to play, in the round on screen: nothing waits before it (the pauses
// never hold my turn back; the trick just taken is named under the next one).
const urgent = (m) => live.state !== null && isMyTurn(m) && !m.table.away.includes(m.you) && m.view.round_number === live.state.view.round_number;

// Shows the next state received, with its play's movement and the pauses it calls for
// (none if ``rush``: my turn is coming).
async function show(m, rush) {
  const before = live.state, lively = before !== null && m.reason === "event";
  const play = lively && m.event && m.event.type === "play" ? m.event : null;
  const finished = play && !m.view.trick.plays.length ? m.table.last_trick : null;  // the trick the play ended
  const dealt = before !== null && m.view.round_number !== before.view.round_number;
  const ended = finished && dealt ? roundEnd(before, finished) : before;  // the round that ends, as last shown
  const closes = before !== null && m.reason !== "welcome" && before.table.results.length < m.table.results.length;
  if (closes) live.lastRound = roundRecord(ended, m);  // before any drawing: the game-over dialog shows it
  if (lively) await leaveTrick(dealt || m.view.trick.plays.length > 0, rush);
  const summary = closes && !m.view.game_over && before !== null && dealt;
  if (finished && dealt) {  // the round's last trick, shown in its round before the new deal
    await display(ended, play, finished);
    hold();
  }
  if (summary) await summarise(m);  // over the round that ended: the next deal waits for it to close
  if (finished && dealt) {
    await leaveTrick(true);
    await display(m, null, null);
  } else {
    await display(m, play, finished, rush);
    if (finished) hold();
  }
  if (closes && !m.view.game_over && !summary) showRoundSummary(m);
}

// A round's summary (at the state ``m``, the next round's), once the round's last trick has
// been seen, over the round that ended; it returns when the summary closes.
async function summarise(m) {
  await anim.wait(live.holdUntil - performance.now());
  if (!holding()) live.holdUntil = 0;
  showRoundSummary(m);
  await summaryClosed();
}
const summaryClosed = () => new Promise((resolve) => {
  if ($("dialog").dataset.kind !== "summary") resolve();
  else live.releaseSummary = resolve;
});

// The finished trick on screen stays for the settings' pause; dialogs wait for it too.
function hold() {
  const ms = settings.get("trickPause") * 1000;
  live.holdUntil = performance.now() + ms;
  setTimeout(() => { if (!pumping && !holding()) render(); }, ms + 20);
}

// A finished trick on screen, its pause over, goes to its winner when the table moves on
// (``moving``: a new trick is led, or a new round dealt); at once if ``rush``.
async function leaveTrick(moving, rush) {
  const trick = $("trick"), winner = trick.dataset.winner;
  if (!moving || winner === undefined) return;
  if (rush) live.holdUntil = 0;
  await anim.wait(live.holdUntil - performance.now());
  live.holdUntil = 0;
  delete trick.dataset.winner;
  if (!rush) await giveWay(anim.gather([...trick.querySelectorAll("figure")], seatBox(Number(winner))), Number(winner));
}

// Puts the state ``m`` on screen; the card of ``play`` (its event) flies to the trick (the
// next state waits for it to land, unless ``rush``), and ``finished`` is the trick that play
// ended, if it did.
async function display(m, play, finished, rush) {
  const from = play ? origin(play) : null;  // measured before the page changes
  const before = live.state;
  live.state = m;
  window.heartsState = m;
  live.deadlines = {};
  m.table.time_left.forEach((left, s) => { if (left !== null) live.deadlines[s] = m.at + left * 1000; });
  setText($("conn"), m.you === null ? _("watching (spectator)") : _("connected as {name}", { name: m.table.names[m.you] }));
  document.body.dataset.connected = "true";
  document.body.dataset.spectator = String(m.you === null);
  chat.seated(m.you !== null, m.table.chat);
  // A hint is for one decision; one still awaited when I have acted never comes (the server drops it).
  const shown = live.hint || live.asked;
  if (shown ? !hintHolds(shown, m) : !isMyTurn(m)) hideHint();
  if (m.you === null) live.selected.clear();
  else if (!before || before.view.round_number !== m.view.round_number || !m.view.must_pass) live.selected = new Set([...live.selected].filter((c) => m.view.hand.includes(c)));
  if (!m.view.must_pass) live.selected.clear();
  render();
  if (before && m.reason === "event") cue(before, m, play, finished);
  if (finished) {  // the finished tricks as shown, for the tests: none is skipped
    window.heartsTricks = (window.heartsTricks || []).slice(-100);
    window.heartsTricks.push({ round: m.view.round_number, cards: finished.plays.map((p) => p.card), winner: finished.winner });
  }
  const flight = from && giveWay(anim.fly($("trick").querySelector('figure[data-card="' + play.card + '"]'), from.rect, from.scale), play.seat);
  if (flight && !rush) await flight;
}

// The note under the trick gives way (is hidden) while ``moving`` takes a card across it: the
// card of the seat at the bottom (mine, or a spectator's first), between its place and the trick.
async function giveWay(moving, seat) {
  if (seat !== (live.state.you === null ? 0 : live.state.you)) return moving;
  const note = $("trick-note");
  note.classList.add("giving-way");
  try { return await moving; } finally { note.classList.remove("giving-way"); }
}

// Where a played card comes from: the card in my hand, or the seat of its player.
function origin(play) {
  const card = play.seat === live.state.you && $("hand").querySelector('.card[data-card="' + play.card + '"]');
  if (card) return { rect: card.getBoundingClientRect(), scale: 1 };
  const seat = seatBox(play.seat);
  return seat && { rect: seat, scale: 0.5 };
}

// The box of a seat on the table (mine: the bar above my hand).
function seatBox(s) {
  const node = s === live.state.you ? $("me") : $("opponents").querySelector('.seat[data-seat="' + s + '"]');
  return node ? node.getBoundingClientRect() : null;
}

// The sounds of what changed from ``before`` to ``m``.
function cue(before, m, play, finished) {
  if (play) sound.play("play");
  if (finished) sound.play(finished.plays.some((p) => p.card === "QS") ? "queen" : "trick", 0.25);
  if (m.view.hearts_broken && !before.view.hearts_broken && m.view.round_number === before.view.round_number) sound.play("hearts", 0.12);
  if (isMyTurn(m) && !isMyTurn(before)) sound.play("turn", 0.35);
}

// The state that shows a round's last trick before the next deal: the round that ended, with
// every card played and the last trick's points taken.
function roundEnd(before, trick) {
  const v = before.view;
  const points = [...v.points_taken];
  points[trick.winner] += trick.points;
  const mine = v.hand ? { hand: [], legal: [] } : {};  // a spectator's view has no hand
  return {
    ...before, table: { ...before.table, last_trick: trick },
    view: { ...v, ...mine, trick, tricks: [...v.tricks, trick], hand_sizes: v.hand_sizes.map(() => 0), points_taken: points, to_move: null },
  };
}
