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
import { seatPos, trickAt } from "./layout.js";

const VERDICT_WORDS = { best: "Best", ok: "Fine", inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
const FLAGGED = ["inaccuracy", "mistake", "blunder"];
const plural = (n, one, many) => n + " " + (n === 1 ? one : many);

let data = null, frames = [], at = 0, base = 0, decisions = new Map(), reviewSeat = null, page = null;

async function show(match) {
  page = $("replay-page");
  page.hidden = false;
  const id = match[1];
  document.title = "pyhearts — replay of table " + id;
  page.append(el("h1", { id: "replay-title", text: "Replay of table " + id }));
  try { data = await call("GET", "/api/tables/" + encodeURIComponent(id) + "/replay"); } catch (e) {
    page.append(el("p", { role: "alert", class: "replay-error", text: e.status === 403 ? "This game is not over yet: its replay opens when it ends (the cards stay secret until then)." : e.message }),
      el("p", {}, el("a", { href: "/games", text: "Back to my games" })));
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
const name = (s) => data.names[s] || "Seat " + (s + 1);

// ---------------------------------------------------------------- the page
function build() {
  const sub = el("p", { class: "note replay-sub", text: data.describe + (data.rated ? " · rated" : "") + " · winner: " + (data.winners || []).map(name).join(" and ") });
  const felt = el("div", { class: "felt replay-felt", id: "replay-felt" },
    el("div", { class: "opponents", id: "replay-seats", role: "group", "aria-label": "the players' hands" }),
    el("div", { class: "trick-area" }, el("div", { class: "trick", id: "replay-trick", role: "group", "aria-label": "the trick" }),
      el("div", { class: "trick-note", id: "replay-note", "aria-live": "polite" })));
  const button = (id, text, label, onclick) => el("button", { type: "button", class: "small", id, "aria-label": label, title: label, text, onclick });
  const rounds = el("select", { id: "replay-round", "aria-label": "jump to a round's deal" },
    ...data.rounds.map((r, k) => el("option", { value: String(k), text: "Round " + (k + 1) })));
  rounds.addEventListener("change", () => go(frames.findIndex((f) => f.round === Number(rounds.value) && f.step === null)));
  const slider = el("input", { type: "range", id: "replay-slider", min: "0", max: String(frames.length - 1), step: "1", value: "0", "aria-label": "position in the game" });
  slider.addEventListener("input", () => go(Number(slider.value)));
  const controls = el("div", { class: "replay-controls", role: "group", "aria-label": "step through the game (keys: arrows, Page Up and Down, Home, End)" },
    button("replay-start", "Start", "the start (Home)", () => go(0)),
    button("replay-prev-trick", "◀◀ Trick", "the trick before (↑ or Page Up)", () => go(trickBefore())),
    button("replay-prev", "◀ Step", "one step back (←)", () => go(at - 1)),
    button("replay-next", "Step ▶", "one step on (→)", () => go(at + 1)),
    button("replay-next-trick", "Trick ▶▶", "the next trick (↓ or Page Down)", () => go(trickAfter())),
    button("replay-end", "End", "the end (End)", () => go(frames.length - 1)),
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
    const hand = el("div", { class: "replay-hand", "data-seat": s, role: "list", "aria-label": name(s) + "'s hand" },
      ...hands[s].map((c) => el("span", { role: "listitem", class: "replay-card", "data-card": c }, cardImg(c))));
    if (!hands[s].length) hand.append(el("span", { class: "note", text: "no card left" }));
    seats.append(el("div", { class: "seat replay-seat" + (acted ? " turn" : ""), "data-seat": s, "data-pos": pos, role: "group", "aria-label": name(s) },
      el("div", { class: "name", text: name(s) + (s === reviewSeat ? " (reviewed)" : "") }),
      el("div", { class: "meta", text: points[s] + (points[s] === 1 ? " point" : " points") + " this round · total " + totals[s] }),
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
    ? "Step " + (f.step + 1) + " of " + data.steps.length + " · round " + (f.round + 1) + (step.trick_number !== null ? ", trick " + (step.trick_number + 1) : ", passing")
    : "Round " + (f.round + 1) + ": the deal" + passWords(r);
  $("replay-where").textContent = where;
  $("replay-slider").value = String(at);
  $("replay-round").value = String(f.round);
  $("replay-prev").disabled = $("replay-start").disabled = $("replay-prev-trick").disabled = at === 0;
  $("replay-next").disabled = $("replay-end").disabled = $("replay-next-trick").disabled = at === frames.length - 1;
  renderScores(f.round, step !== null && f.step === r.end);
  renderDecision(step ? f.step : null);
}

function passWords(r) {
  if (!r.pass_offset) return " (no pass this round)";
  const n = data.players;
  return " (passing " + (r.pass_offset === 1 ? "left" : r.pass_offset === n - 1 ? "right" : "across") + ")";
}

// The action of a step in words (and the trick's end, and the round's).
function words(f, step, r) {
  if (!step) return "Round " + (f.round + 1) + ": every hand as dealt.";
  const a = step.action, who = name(step.seat);
  let text;
  if (a.type === "pass") text = who + " passes " + a.cards.map(cardName).join(" ") + " to " + name((step.seat + r.pass_offset) % data.players) + ".";
  else if (a.type === "moon") {
    const worth = data.rules.spade_penalties ? 43 : 26; // R4.4, R4.5: the round's points
    text = who + " shot the moon and chose to " + (a.choice === "add" ? "add " + worth + " to the others." : "take " + worth + " off their own score.");
  }
  else {
    text = who + " plays " + cardName(a.card) + ".";
    const t = step.trick;
    if (t && t.winner !== null) text += " " + name(t.winner) + " takes the trick" + (t.points ? " (" + plural(t.points, "point", "points") + ")." : ".");
  }
  if (f.step === r.end && r.scores) text += " Round over: " + r.scores.map((x, s) => name(s) + " " + (x >= 0 ? "+" : "") + x).join(", ") + ".";
  return text;
}

// The score sheet: each round's points and the totals after it, up to the one on screen.
function renderScores(round, over) {
  const box = $("replay-scores"), n = data.players;
  const head = el("tr", {}, el("th", { scope: "col", text: "Round" }), ...Array.from({ length: n }, (_, s) => el("th", { scope: "col", text: name(s) })));
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
    box.append(el("p", { class: "note review-missing", text: "The review could not be read: " + e.message }));
    return;
  }
  if (job.status !== "done" || !job.review) {
    const what = job.status === "failed" ? "it failed" : job.status === "none" || !job.status ? "nobody asked for it yet" : "it is being computed";
    box.append(el("p", { class: "note review-missing", id: "review-not-ready", text: "The review of " + name(seat) + "'s decisions is not ready (" + what + "): the replay is shown without it. Reload this page in a moment." }));
    return;
  }
  const rounds = (job.review.rounds || []).filter((r) => r.seat === seat);
  for (const r of rounds) for (const d of r.decisions) decisions.set(d.index, d);
  const flagged = [...decisions.values()].filter((d) => FLAGGED.includes(d.verdict)).sort((a, b) => a.index - b.index);
  const list = el("ol", { class: "decision-list", id: "decision-list", "aria-label": "flagged decisions" }, ...flagged.map((d) =>
    el("li", {}, el("button", { type: "button", class: "small verdict-" + d.verdict, "data-step": d.index,
      text: "Round " + (d.round + 1) + (d.trick === null ? ", pass" : ", trick " + (d.trick + 1)) + ": " + d.verdict + " (−" + d.loss.toFixed(1) + ")",
      onclick: () => go(frameOfStep(d.index)) }))));
  const nextMistake = el("button", { type: "button", class: "small primary", id: "next-mistake", text: "Next mistake", onclick: () => {
    const cur = frames[at].step === null ? -1 : frames[at].step;
    const next = flagged.find((d) => d.index > cur && d.verdict !== "inaccuracy") || flagged.find((d) => d.verdict !== "inaccuracy");
    if (next) go(frameOfStep(next.index));
  } });
  nextMistake.disabled = !flagged.some((d) => d.verdict !== "inaccuracy");
  const summary = el("table", { class: "history review-rounds" }, el("caption", { text: "Each round of " + name(seat) }),
    el("tr", {}, ...["Round", "Points lost", "Accuracy", "Flags"].map((t) => el("th", { scope: "col", text: t }))),
    ...rounds.map((r) => el("tr", {}, el("th", { scope: "row", text: String(r.round + 1) }),
      el("td", { text: "about " + r.summary.points_lost.toFixed(1) }),
      el("td", { text: r.summary.accuracy === null ? "—" : Math.round(r.summary.accuracy) + "%" }),
      el("td", { text: [[r.summary.blunders, "blunder"], [r.summary.mistakes, "mistake"], [r.summary.inaccuracies, "inaccuracy"]].filter(([x]) => x).map(([x, w]) => x + " " + w).join(", ") || "none" }))));
  box.append(el("div", { class: "panel" }, el("h2", { text: "Review of " + name(seat) + "'s decisions" }),
    el("div", { class: "decision", id: "decision", "aria-live": "polite" }),
    el("div", { class: "row" }, nextMistake), list,
    el("details", {}, el("summary", { text: "Each round's summary" }), summary)));
  const ticks = $("replay-ticks");
  for (const d of flagged) {
    const tick = el("span", { class: "tick verdict-" + d.verdict });
    tick.style.setProperty("left", (100 * frameOfStep(d.index) / Math.max(1, frames.length - 1)) + "%");
    ticks.append(tick);
  }
}

const actionWords = (a) => (a.type === "play" ? cardName(a.card) : a.type === "pass" ? "a pass of " + a.cards.map(cardName).join(" ") : "the moon: " + a.choice);

function renderDecision(stepIndex) {
  const box = $("decision");
  if (!box) return;
  const d = stepIndex === null ? null : decisions.get(stepIndex);
  box.className = "decision" + (d ? " verdict-" + d.verdict : "");
  if (!d) { box.textContent = decisions.size ? "No decision of " + name(reviewSeat) + " at this step." : ""; return; }
  const same = JSON.stringify(d.chosen) === JSON.stringify(d.best);
  box.replaceChildren(el("b", { text: (VERDICT_WORDS[d.verdict] || d.verdict) + ": " }),
    same ? "you played " + actionWords(d.chosen) + ", the best choice found."
      : "you played " + actionWords(d.chosen) + ", better " + actionWords(d.best) + ": about " + d.loss.toFixed(1) + " ± " + (2 * d.loss_stderr).toFixed(1) + " points lost (an estimate).");
}

export { show };
