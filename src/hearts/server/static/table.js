// pyhearts web table: the table drawn from the state on screen (live.state): the info bar, the
// other seats around the felt (layout.js), the trick with the note under it, the prompt and
// the buttons, my seat and hand (hand.js), the scores panel, and the dialogs the state calls
// for (a name first, the moon's choice, the game's end). A spectator sees every seat around
// the trick, seat 1 at the bottom, with card backs, and no hand.
//
//   render()   // draws the table (also on redraw(): state.js)
//   tick()     // each seat's clock: the seconds it has left to act
import { $, el, cardImg, cardChip, announce, setText, levelName } from "./ui.js";
import { _, ngettext } from "./i18n.js";
import { POS_WORDS, seatPos, trickAt } from "./layout.js";
import { live, seatName, seatLabel, isMyTurn, holding, onRedraw } from "./state.js";
import { send } from "./connection.js";
import { renderMine } from "./hand.js";
import { renderScores } from "./scores.js";
import { renderRematch } from "./rematch.js";
import { closeDialog, showGameOver, showMoon, showNameDialog, winnerWords } from "./dialogs.js";
import { isCreator } from "./seats.js";
import * as player from "./player.js";
import { nameNode } from "./company.js";
import { observe as observeGuide } from "./guide.js";

export function render() {
  const s = live.state;
  if (!s) return;
  const v = s.view, t = s.table, n = v.players;
  // ``me``: my seat, or null for a spectator; ``base``: the seat drawn at the bottom.
  const me = s.you, spectator = me === null, base = spectator ? 0 : me;
  const myTurn = isMyTurn(s);
  document.body.dataset.seq = s.seq;
  document.body.dataset.phase = v.phase;
  document.body.dataset.round = v.round_number;
  document.body.dataset.myturn = String(myTurn);
  document.title = (myTurn ? "● " : "") + "pyhearts — " + (spectator ? _("watching table {id}", { id: t.id }) : _("table {id}", { id: t.id }));
  setText($("table-title"), spectator ? _("Watching table {id}", { id: t.id }) : _("Table {id}", { id: t.id }));
  renderInfo(v, t, me);
  $("table").dataset.players = n;
  $("table").dataset.spectator = String(spectator);
  renderSeats(v, t, base, spectator);
  renderTrick(v, t, me, base);
  const prompt = renderPrompt(v, t, me, myTurn);
  // Me, at the bottom of the table, and my hand (a spectator has neither).
  $("me").hidden = spectator;
  $("hand").hidden = spectator;
  if (spectator) {
    $("me").textContent = "";
    $("hand").textContent = "";
    delete $("hand").dataset.drawn;
  } else renderMine(v, t, n);
  renderScores();
  renderRematch();
  tick();
  announce(prompt.textContent);
  openDialogs(v, t, me);
  observeGuide(s);  // the guided first game's tip, when its moment has come (guide.js)
}
onRedraw(render);

// The info bar: the round, the pass, hearts, whose turn, the target, the spectators.
function renderInfo(v, t, me) {
  const info = $("info");
  info.textContent = "";
  const item = (k, val) => info.append(el("span", {}, k + ": ", el("b", { text: val })));
  item(_("Round"), String(v.round_number + 1));
  item(_("Pass"), passDirection(v));
  item(_("Hearts"), v.hearts_broken ? _("broken") : _("not broken"));
  item(_("Turn"), v.phase === "passing" ? _("everyone passes") : v.to_move === null ? "—" : v.to_move === me ? _("you") : seatName(v.to_move));
  item(_("Target"), String(t.target));
  if (t.spectators) item(_("Watching"), String(t.spectators));
}

const passWord = (off, n) => (off === 1 ? _("left") : off === n - 1 ? _("right") : _("across"));
function passDirection(v) {
  if (live.state.you === null) {  // a spectator: this round's direction for everyone
    const off = live.state.table.pass_offset;
    return off ? _("everyone {direction}", { direction: passWord(off, v.players) }) : _("hold (no pass)");
  }
  if (v.pass_to === null || v.pass_to === undefined) return _("hold (no pass)");
  const off = (v.pass_to - v.seat + v.players) % v.players;
  return passWord(off, v.players) + " → " + seatName(v.pass_to);
}

// The others around the table, clockwise from your left (R1: seat me+1 is on my left); a
// spectator sees every seat, the first one at the bottom.
function renderSeats(v, t, base, spectator) {
  const n = v.players, seats = [];
  for (let k = spectator ? 0 : 1; k < n; k++) seats.push(seatNode(v, t, (base + k) % n, seatPos(n, k)));
  keep($("opponents"), ".seat", seats);
}

// One seat: its name, whether it is connected (or a bot, or free), its cards, its points, its
// clock, and its cards' backs.
function seatNode(v, t, s, pos) {
  const backs = el("div", { class: "backs", "aria-hidden": "true" });
  for (let i = 0; i < Math.min(v.hand_sizes[s], 13); i++) backs.append(el("img", { src: "/cards/back.svg", alt: "" }));
  const online = t.online.includes(s);
  const away = t.handed_over.includes(s) ? " · " + _("left: a bot plays to the end") : t.away.includes(s) ? " · " + _("away: a bot plays") : "";
  const badge = (t.kinds[s] === "bot" ? _("bot") + " · " + levelName(t.bots[s]) : t.kinds[s] === "open" ? _("free seat") : online ? _("online") : _("offline")) + away;
  const on = online || t.kinds[s] === "bot";
  const turn = v.to_move === s;
  return el("div", {
    class: "seat" + (turn ? " turn" : ""), "data-seat": s, "data-pos": pos, role: "group",
    "aria-label": seatName(s) + ", " + POS_WORDS[pos] + (turn ? ", " + _("to play") : ""),
  },
    nameNode(s, t),
    el("div", { class: "meta badge" }, el("span", { class: "dot" + (on ? " on" : ""), title: on ? _("connected") : _("not connected") }), badge),
    el("div", { class: "meta", "data-count": v.hand_sizes[s], text: ngettext("{n} card", "{n} cards", v.hand_sizes[s]) }),
    el("div", { class: "meta pts", text: ngettext("{n} pt", "{n} pts", v.points_taken[s]) + " · " + _("total {total}", { total: t.totals[s] }) }),
    el("div", { class: "meta clock", "data-seat": s }),
    backs);
}

// The trick (or the last one, under review or just after it was won): each card at the
// place of the seat that played it, mine at the bottom. A won trick on screen (not under
// review) names its winner, to whom it goes when the table moves on.
function renderTrick(v, t, me, base) {
  const n = v.players, reviewing = live.reviewing, trick = $("trick");
  let shown = v.trick;
  const last = t.last_trick;
  if ((reviewing || v.trick.plays.length === 0) && last && (reviewing || v.tricks.length > 0)) shown = last;
  const won = shown.winner !== null && shown.winner !== undefined;
  trick.className = "trick" + (reviewing ? " review" : "");
  if (won && !reviewing) trick.dataset.winner = shown.winner;
  else delete trick.dataset.winner;
  keep(trick, "figure", shown.plays.map((p, i) => {
    const at = trickAt(n, (p.seat - base + n) % n);
    return el("figure", {
      class: (shown.winner === p.seat ? "win" : "") + (i === 0 ? " lead" : ""), "data-card": p.card, "data-seat": p.seat,
      css: { "--px": at[0], "--py": at[1], "z-index": i + 1 },
    }, cardImg(p.card), el("figcaption", { text: (p.seat === me ? _("you") : seatName(p.seat)), title: seatName(p.seat) }));
  }));
  const note = $("trick-note");
  note.textContent = "";
  if (won) {
    const taker = shown.winner === me ? _("you take it") : _("{name} takes it", { name: seatName(shown.winner) });
    const points = shown.points ? " (" + ngettext("{n} point", "{n} points", shown.points) + ")" : "";
    note.textContent = (reviewing ? _("Last trick:") + " " : "") + taker + points;
  } else if (!shown.plays.length && v.phase === "playing" && v.to_move !== null) note.textContent = (v.to_move === me ? _("You lead") : _("{name} leads", { name: seatName(v.to_move) }));
  else if (last && v.tricks.length && !reviewing) note.append(lastTrickWords(last, me));
  $("last-btn").textContent = reviewing ? _("Back to play (L)") : _("Last trick (L)");
}

// The trick just taken, in words under the next one: "Last trick: Bob took 5♠ 9♠ Q♠ 2♠".
function lastTrickWords(last, me) {
  const words = last.winner === me ? _("Last trick: you took") : _("Last trick: {name} took", { name: seatName(last.winner) });
  return el("span", { class: "last-words" }, words + " ", ...last.plays.map((p) => cardChip(p.card)));
}

// The prompt (what happens, what I am to do) and the buttons under the table; the prompt.
function renderPrompt(v, t, me, myTurn) {
  const spectator = me === null, prompt = $("prompt"), pass = $("pass-btn"), selected = live.selected;
  pass.hidden = !v.must_pass;
  $("hint-btn").hidden = spectator || !myTurn || v.game_over || t.away.includes(me);
  $("seats-btn").hidden = v.game_over || !isCreator(live.tableId);
  $("name-btn").hidden = spectator || v.game_over || t.unnamed.includes(me);
  if (v.game_over) {
    prompt.textContent = _("Game over: {winner}.", { winner: winnerWords(t) }) + " ";
    prompt.append(el("button", { type: "button", id: "result-btn", class: "small", text: _("See the result"), onclick: showGameOver }));
  } else if (spectator) {
    const what = v.phase === "passing" ? _("the players are passing cards…")
      : v.phase === "moon_choice" ? _("{name} shot the moon and chooses how it scores…", { name: seatName(v.to_move) })
      : v.to_move !== null ? _("{name} to play.", { name: seatName(v.to_move) }) : "";
    prompt.textContent = what ? _("Watching") + " — " + what : _("Watching");
  } else if (v.must_pass) {
    prompt.textContent = ngettext("Choose {n} card to pass {direction}", "Choose {n} cards to pass {direction}", v.pass_count, { direction: passDirection(v) }) + " (" + selected.size + "/" + v.pass_count + ")";
    pass.textContent = ngettext("Pass {n} card", "Pass {n} cards", v.pass_count);
    pass.disabled = selected.size !== v.pass_count;
  } else if (v.phase === "passing") prompt.textContent = _("Waiting for the others to pass…");
  else if (v.moon_choice_pending) prompt.textContent = _("You shot the moon!");
  else if (v.to_move === v.seat) prompt.textContent = _("Your turn: play a highlighted card.");
  else if (v.to_move !== null) prompt.textContent = _("Waiting for {name}…", { name: seatName(v.to_move) });
  else prompt.textContent = "";
  if (!spectator && t.away.includes(me) && !v.game_over) {
    prompt.textContent = (t.handed_over.includes(me) ? _("You missed your turns: a bot plays your seat for the rest of the game.") : _("A bot plays for you (your time ran out).")) + " ";
    prompt.append(el("button", { type: "button", id: "back-btn", class: "small primary", text: t.handed_over.includes(me) ? _("Take my seat back") : _("I'm back: let me play"), onclick: () => send({ type: "back" }) }));
  }
  return prompt;
}

// The dialogs the state calls for: a name first; then, once the finished trick has been seen,
// the moon's choice and the game's end (that one by itself only once).
function openDialogs(v, t, me) {
  if (me !== null && live.sentName !== null && t.names[me] === live.sentName) {  // the table took the name asked for
    if ($("dialog").dataset.kind === "rename") closeDialog();
    named(live.sentName);
  }
  if (v.game_over && $("dialog").dataset.kind === "rename") closeDialog();
  if (me !== null && t.unnamed.includes(me) && !v.game_over) { showNameDialog(); return; }  // a name first
  if ($("dialog").dataset.kind === "name") closeDialog();
  if (holding()) return;  // the dialogs wait until the finished trick has been seen
  if (v.moon_choice_pending) showMoon();
  else if ($("dialog").dataset.kind === "moon") closeDialog();
  if (v.game_over && !live.shownGameOver) { live.shownGameOver = true; showGameOver(); }
}

// The table took the name I asked for: a browser without a player profile makes it of that
// name, and the seat is the profile's (one identity: the lobby, "My games" and the server know it).
async function named(name) {
  live.sentName = null;
  await player.adopt(name);
  await player.claimSeat();
}

// Makes the children of ``parent`` that match ``selector`` the ``fresh`` ones, in order: one
// with the same key (``data-seat`` or ``data-card``) already there is changed to the fresh one,
// not replaced, so what a reader, a test or a moving card holds stays (a card in flight keeps
// its ``away`` mark); the others go.
function keep(parent, selector, fresh) {
  const key = (e) => e.dataset.card || e.dataset.seat;
  const old = new Map([...parent.querySelectorAll(":scope > " + selector)].map((e) => [key(e), e]));
  for (const f of fresh) {
    const e = old.get(key(f));
    old.delete(key(f));
    if (!e) { parent.append(f); continue; }
    const away = e.classList.contains("away");
    for (const a of [...e.attributes]) if (a.name !== "style" && !f.hasAttribute(a.name)) e.removeAttribute(a.name);
    for (const a of [...f.attributes]) if (a.name !== "style") e.setAttribute(a.name, a.value);
    e.style.cssText = f.style.cssText;  // CSSOM: allowed by the Content-Security-Policy
    e.classList.toggle("away", away);
    e.replaceChildren(...f.childNodes);
    parent.append(e);  // moved, in order, not made anew
  }
  for (const e of old.values()) e.remove();
}

// Each seat's clock: the seconds it has left to act, while the turn timer runs for it.
export function tick() {
  if (!live.state) return;
  for (const c of document.querySelectorAll(".clock")) {
    const end = live.deadlines[c.dataset.seat];
    const left = end === undefined ? null : Math.max(0, Math.ceil((end - performance.now()) / 1000));
    c.textContent = left === null ? "" : _("{n} s left", { n: left });
    c.classList.toggle("low", left !== null && left <= 5);
  }
}
