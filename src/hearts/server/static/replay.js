// pyhearts web table: the replay viewer (/replay/{id}) of a finished game. The server rebuilds
// the game step by step with the engine (GET /api/tables/{id}/replay: every hand, the trick,
// the points, each round's scores; refused before the game is over, R7). The viewer shows the
// hands face up around the table as the table does, and steps through the game:
//
//   ← →             one action back / on          ↑ ↓ (PgUp PgDn)   one trick back / on
//   Home End        the game's start / end        the round menu    a round's deal
//
// Each round starts with a frame of its own (the deal, before any pass or play); then one
// frame per action of the game's history. /replay/{id}?seat=S&review=1 also fetches seat S's
// review (GET /api/tables/{id}/review?seat=S, built by the review jobs) and annotates each of
// S's decisions: its verdict, what was played and what was better, the points it lost (an
// estimate, ± 2 standard errors), the flagged ones listed (and marked on the timeline) with a
// "Next mistake" button, and each round's summary. The seats sit as at the table (layout.js).
//
//   show(match)   // the page, for the address's match of /replay/{id}
import { el, $, cardName, cardImg, call } from "./ui.js";
import { _, ngettext } from "./i18n.js";
import { seatPos, trickAt } from "./layout.js";

const VERDICT_WORDS = { best: _("Best"), ok: _("Fine"), inaccuracy: _("Inaccuracy"), mistake: _("Mistake"), blunder: _("Blunder") };
const VERDICTS = { best: _("best"), ok: _("fine"), inaccuracy: _("inaccuracy"), mistake: _("mistake"), blunder: _("blunder") };
const FLAGGED = ["inaccuracy", "mistake", "blunder"];

let data = null, frames = [], at = 0, base = 0, decisions = new Map(), reviewSeat = null, page = null;

async function show(match) {
  page = $("replay-page");
  page.hidden = false;
  const id = match[1];
  document.title = "pyhearts — " + _("replay of table {id}", { id });
  page.append(el("h1", { id: "replay-title", text: _("Replay of table {id}", { id }) }));
  try { data = await call("GET", "/api/tables/" + encodeURIComponent(id) + "/replay"); } catch (e) {
    page.append(el("p", { role: "alert", class: "replay-error", text: e.status === 403 ? _("This game is not over yet: its replay opens when it ends (the cards stay secret until then).") : e.message }),
      el("p", {}, el("a", { href: "/games", text: _("Back to my games") })));
    return;
  }
  const params = new URLSearchParams(location.search);
  const seat = Number(params.get("seat"));
  if (params.has("seat") && Number.isInteger(seat) && seat >= 0 && seat < data.players) base = reviewSeat = seat;
  data.rounds.forEach((r, k) => {
    frames.push({ round: k, step: null });
    for (let i = r.start; i <= r.end; i++) frames.push({ round: k, step: i });
  });
  build();
  if (params.get("review") === "1" && reviewSeat !== null) await loadReview(id, reviewSeat);
  go(0);
  document.addEventListener("keydown", onKey);
}

const frameOfStep = (i) => frames.findIndex((f) => f.step === i);
const name = (s) => data.names[s] || _("Seat {n}", { n: s + 1 });

// ---------------------------------------------------------------- the page
function build() {
  const sub = el("p", { class: "note replay-sub", text: data.describe + (data.rated ? " · " + _("rated") : "") + " · " + _("winner: {names}", { names: (data.winners || []).map(name).join(", ") }) });
  const felt = el("div", { class: "felt replay-felt", id: "replay-felt" },
    el("div", { class: "opponents", id: "replay-seats", role: "group", "aria-label": _("the players' hands") }),
    el("div", { class: "trick-area" }, el("div", { class: "trick", id: "replay-trick", role: "group", "aria-label": _("the trick") }),
      el("div", { class: "trick-note", id: "replay-note", "aria-live": "polite" })));
  const button = (id, text, label, onclick) => el("button", { type: "button", class: "small", id, "aria-label": label, title: label, text, onclick });
  const rounds = el("select", { id: "replay-round", "aria-label": _("jump to a round's deal") },
    ...data.rounds.map((r, k) => el("option", { value: String(k), text: _("Round {n}", { n: k + 1 }) })));
  rounds.addEventListener("change", () => go(frames.findIndex((f) => f.round === Number(rounds.value) && f.step === null)));
  const slider = el("input", { type: "range", id: "replay-slider", min: "0", max: String(frames.length - 1), step: "1", value: "0", "aria-label": _("position in the game") });
  slider.addEventListener("input", () => go(Number(slider.value)));
  const controls = el("div", { class: "replay-controls", role: "group", "aria-label": "step through the game (keys: arrows, Page Up and Down, Home, End)" },
    button("replay-start", _("Start"), _("the start (Home)"), () => go(0)),
    button("replay-prev-trick", "◀◀ " + _("Trick"), _("the trick before (↑ or Page Up)"), () => go(trickBefore())),
    button("replay-prev", "◀ " + _("Step"), _("one step back (←)"), () => go(at - 1)),
    button("replay-next", _("Step") + " ▶", _("one step on (→)"), () => go(at + 1)),
    button("replay-next-trick", _("Trick") + " ▶▶", _("the next trick (↓ or Page Down)"), () => go(trickAfter())),
    button("replay-end", _("End"), _("the end (End)"), () => go(frames.length - 1)),
    rounds);
  const where = el("p", { class: "replay-where", id: "replay-where", "aria-live": "polite" });
  const timeline = el("div", { class: "timeline" }, el("div", { class: "ticks", id: "replay-ticks", "aria-hidden": "true" }), slider);
  page.dataset.players = data.players;
  page.append(sub, el("div", { id: "replay-review", class: "replay-review" }), felt, where, controls, timeline,
    el("div", { class: "panel scores replay-scores", id: "replay-scores" }));
}

// The frames where a trick is complete, and the rounds' deals: where ↑ and ↓ stop.
const isStop = (f) => f.step === null || (data.steps[f.step].trick && data.steps[f.step].trick.winner !== null);
function trickAfter() { for (let k = at + 1; k < frames.length; k++) if (isStop(frames[k])) return k; return frames.length - 1; }
function trickBefore() { for (let k = at - 1; k >= 0; k--) if (isStop(frames[k])) return k; return 0; }

function go(k) {
  at = Math.max(0, Math.min(frames.length - 1, k));
  render();
}

function onKey(e) {
  if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName) || e.ctrlKey || e.metaKey || e.altKey) return;
  const moves = { ArrowLeft: () => at - 1, ArrowRight: () => at + 1, ArrowUp: trickBefore, PageUp: trickBefore,
    ArrowDown: trickAfter, PageDown: trickAfter, Home: () => 0, End: () => frames.length - 1 };
  if (!(e.key in moves)) return;
  e.preventDefault();
  go(moves[e.key]());
}

// ---------------------------------------------------------------- one frame
function render() {
  const f = frames[at], n = data.players, r = data.rounds[f.round];
  const step = f.step === null ? null : data.steps[f.step];
  const hands = step ? step.hands : r.dealt;
  const points = step ? step.points_taken : Array(n).fill(0);
  const totals = step ? step.totals : f.round > 0 ? data.rounds[f.round - 1].totals : Array(n).fill(0);
  document.body.dataset.frame = String(at);
  document.body.dataset.step = step ? String(f.step) : "";
  const seats = $("replay-seats");
  seats.textContent = "";
  for (let k = 0; k < n; k++) {
    const s = (base + k) % n;
    const pos = seatPos(n, k);
    const acted = step && step.seat === s;
    const hand = el("div", { class: "replay-hand", "data-seat": s, role: "list", "aria-label": _("{name}'s hand", { name: name(s) }) },
      ...hands[s].map((c) => el("span", { role: "listitem", class: "replay-card", "data-card": c }, cardImg(c))));
    if (!hands[s].length) hand.append(el("span", { class: "note", text: _("no card left") }));
    seats.append(el("div", { class: "seat replay-seat" + (acted ? " turn" : ""), "data-seat": s, "data-pos": pos, role: "group", "aria-label": name(s) },
      el("div", { class: "name", text: s === reviewSeat ? _("{name} (reviewed)", { name: name(s) }) : name(s) }),
      el("div", { class: "meta", text: ngettext("{n} point this round", "{n} points this round", points[s]) + " · " + _("total {total}", { total: totals[s] }) }),
      hand));
  }
  const trick = $("replay-trick");
  trick.textContent = "";
  const t = step && step.trick;
  if (t) t.plays.forEach((p, i) => {
    const spot = trickAt(n, (p.seat - base + n) % n);
    const fig = el("figure", { class: (t.winner === p.seat ? "win" : "") + (i === t.plays.length - 1 ? " last" : ""), "data-card": p.card, "data-seat": p.seat },
      cardImg(p.card), el("figcaption", { text: name(p.seat) }));
    fig.style.setProperty("--px", spot[0]);
    fig.style.setProperty("--py", spot[1]);
    fig.style.setProperty("z-index", String(i + 1));
    trick.append(fig);
  });
  $("replay-note").textContent = words(f, step, r);
  const where = step
    ? _("Step {n} of {of}", { n: f.step + 1, of: data.steps.length }) + " · " + _("round {n}", { n: f.round + 1 }) + ", " + (step.trick_number !== null ? _("trick {n}", { n: step.trick_number + 1 }) : _("passing"))
    : _("Round {n}: the deal", { n: f.round + 1 }) + " " + passWords(r);
  $("replay-where").textContent = where;
  $("replay-slider").value = String(at);
  $("replay-round").value = String(f.round);
  $("replay-prev").disabled = $("replay-start").disabled = $("replay-prev-trick").disabled = at === 0;
  $("replay-next").disabled = $("replay-end").disabled = $("replay-next-trick").disabled = at === frames.length - 1;
  renderScores(f.round, step !== null && f.step === r.end);
  renderDecision(step ? f.step : null);
}

function passWords(r) {
  if (!r.pass_offset) return "(" + _("no pass this round") + ")";
  const n = data.players;
  return "(" + _("passing {direction}", { direction: r.pass_offset === 1 ? _("left") : r.pass_offset === n - 1 ? _("right") : _("across") }) + ")";
}

// The action of a step in words (and the trick's end, and the round's).
function words(f, step, r) {
  if (!step) return _("Round {n}: every hand as dealt.", { n: f.round + 1 });
  const a = step.action, who = name(step.seat);
  let text;
  if (a.type === "pass") text = _("{name} passes {cards} to {to}.", { name: who, cards: a.cards.map(cardName).join(" "), to: name((step.seat + r.pass_offset) % data.players) });
  else if (a.type === "moon") {
    const worth = data.rules.spade_penalties ? 43 : 26; // R4.4, R4.5: the round's points
    text = a.choice === "add" ? _("{name} shot the moon and chose to add {n} to the others.", { name: who, n: worth })
      : _("{name} shot the moon and chose to take {n} off their own score.", { name: who, n: worth });
  }
  else {
    text = _("{name} plays {card}.", { name: who, card: cardName(a.card) });
    const t = step.trick;
    if (t && t.winner !== null) {
      text += " " + (t.points ? _("{name} takes the trick ({points}).", { name: name(t.winner), points: ngettext("{n} point", "{n} points", t.points) })
        : _("{name} takes the trick.", { name: name(t.winner) }));
    }
  }
  if (f.step === r.end && r.scores) text += " " + _("Round over: {scores}.", { scores: r.scores.map((x, s) => name(s) + " " + (x >= 0 ? "+" : "") + x).join(", ") });
  return text;
}

// The score sheet: each round's points and the totals after it, up to the one on screen.
function renderScores(round, over) {
  const box = $("replay-scores"), n = data.players;
  const head = el("tr", {}, el("th", { scope: "col", text: _("Round") }), ...Array.from({ length: n }, (_, s) => el("th", { scope: "col", text: name(s) })));
  const table = el("table", { class: "history", id: "replay-sheet" }, el("caption", { text: "Score sheet (each round's score, and the total after it)" }), el("thead", {}, head));
  const body = el("tbody");
  data.rounds.forEach((r, k) => {
    const shown = k < round || (k === round && over);
    body.append(el("tr", { class: k === round ? "current" : "", "data-round": k },
      el("th", { scope: "row", text: String(k + 1) }),
      ...Array.from({ length: n }, (_, s) => el("td", { text: shown && r.totals ? r.totals[s] + " (" + (r.scores[s] >= 0 ? "+" : "") + r.scores[s] + ")" : "·" }))));
  });
  table.append(body);
  box.replaceChildren(table);
}

// ---------------------------------------------------------------- the review's annotations
async function loadReview(id, seat) {
  const box = $("replay-review");
  let job;
  try { job = await call("GET", "/api/tables/" + encodeURIComponent(id) + "/review?seat=" + seat); } catch (e) {
    box.append(el("p", { class: "note review-missing", text: _("The review could not be read: {error}", { error: e.message }) }));
    return;
  }
  if (job.status !== "done" || !job.review) {
    const what = job.status === "failed" ? _("it failed") : job.status === "none" || !job.status ? _("nobody asked for it yet") : _("it is being computed");
    box.append(el("p", { class: "note review-missing", id: "review-not-ready", text: _("The review of {name}'s decisions is not ready ({what}): the replay is shown without it. Reload this page in a moment.", { name: name(seat), what }) }));
    return;
  }
  const rounds = (job.review.rounds || []).filter((r) => r.seat === seat);
  for (const r of rounds) for (const d of r.decisions) decisions.set(d.index, d);
  const flagged = [...decisions.values()].filter((d) => FLAGGED.includes(d.verdict)).sort((a, b) => a.index - b.index);
  const list = el("ol", { class: "decision-list", id: "decision-list", "aria-label": _("flagged decisions") }, ...flagged.map((d) =>
    el("li", {}, el("button", { type: "button", class: "small verdict-" + d.verdict, "data-step": d.index,
      text: _("Round {n}", { n: d.round + 1 }) + ", " + (d.trick === null ? _("pass") : _("trick {n}", { n: d.trick + 1 })) + ": " + (VERDICTS[d.verdict] || d.verdict) + " (−" + d.loss.toFixed(1) + ")",
      onclick: () => go(frameOfStep(d.index)) }))));
  const nextMistake = el("button", { type: "button", class: "small primary", id: "next-mistake", text: _("Next mistake"), onclick: () => {
    const cur = frames[at].step === null ? -1 : frames[at].step;
    const next = flagged.find((d) => d.index > cur && d.verdict !== "inaccuracy") || flagged.find((d) => d.verdict !== "inaccuracy");
    if (next) go(frameOfStep(next.index));
  } });
  nextMistake.disabled = !flagged.some((d) => d.verdict !== "inaccuracy");
  const summary = el("table", { class: "history review-rounds" }, el("caption", { text: _("Each round of {name}", { name: name(seat) }) }),
    el("tr", {}, ...[_("Round"), _("Points lost"), _("Accuracy"), _("Flags")].map((t) => el("th", { scope: "col", text: t }))),
    ...rounds.map((r) => el("tr", {}, el("th", { scope: "row", text: String(r.round + 1) }),
      el("td", { text: _("about {n}", { n: r.summary.points_lost.toFixed(1) }) }),
      el("td", { text: r.summary.accuracy === null ? "—" : Math.round(r.summary.accuracy) + "%" }),
      el("td", { text: [[r.summary.blunders, VERDICTS.blunder], [r.summary.mistakes, VERDICTS.mistake], [r.summary.inaccuracies, VERDICTS.inaccuracy]].filter(([x]) => x).map(([x, w]) => x + " " + w).join(", ") || _("none") }))));
  box.append(el("div", { class: "panel" }, el("h2", { text: _("Review of {name}'s decisions", { name: name(seat) }) }),
    el("div", { class: "decision", id: "decision", "aria-live": "polite" }),
    el("div", { class: "row" }, nextMistake), list,
    el("details", {}, el("summary", { text: _("Each round's summary") }), summary)));
  const ticks = $("replay-ticks");
  for (const d of flagged) {
    const tick = el("span", { class: "tick verdict-" + d.verdict });
    tick.style.setProperty("left", (100 * frameOfStep(d.index) / Math.max(1, frames.length - 1)) + "%");
    ticks.append(tick);
  }
}

const actionWords = (a) => (a.type === "play" ? cardName(a.card) : a.type === "pass" ? _("a pass of {cards}", { cards: a.cards.map(cardName).join(" ") }) : _("the moon: {choice}", { choice: a.choice }));

function renderDecision(stepIndex) {
  const box = $("decision");
  if (!box) return;
  const d = stepIndex === null ? null : decisions.get(stepIndex);
  box.className = "decision" + (d ? " verdict-" + d.verdict : "");
  if (!d) { box.textContent = decisions.size ? _("No decision of {name} at this step.", { name: name(reviewSeat) }) : ""; return; }
  const same = JSON.stringify(d.chosen) === JSON.stringify(d.best);
  box.replaceChildren(el("b", { text: (VERDICT_WORDS[d.verdict] || d.verdict) + ": " }),
    same ? _("you played {action}, the best choice found.", { action: actionWords(d.chosen) })
      : _("you played {action}, better {best}: about {loss} ± {range} points lost (an estimate).", { action: actionWords(d.chosen), best: actionWords(d.best), loss: d.loss.toFixed(1), range: (2 * d.loss_stderr).toFixed(1) }));
}

export { show };
