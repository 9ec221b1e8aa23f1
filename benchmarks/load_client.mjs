// The load benchmarks' clients in Node.js (the `ws` package from npm), driven by cluster_load.py.
//
//     node benchmarks/load_client.mjs SPEC.json RESULT.json
//
// SPEC.json: {"tables": [{"id": ..., "seats": [[port, token], ...]}, ...], "think": seconds,
// "seed": n}. Every seat of every table connects (ws://127.0.0.1:PORT/ws/ID), says hello and
// waits for its first state; then this prints "ready" and waits for a line "go" on its standard
// input. From then on each client plays what server_load.py's Python client plays: a random
// legal move (or pass, or moon choice) when it is its turn, after a pause uniform in
// 0..2 x think, read from its last state (each event applied to the one before, events.js).
// An action the server refuses as "unavailable" ("try again": its database or the table's
// owner did not answer in time) is made again after another pause, as a person would after
// the browser's notice; a hello refused so is said again after 0.1-0.5 s.
// The latency of a play is the time from
// sending it to its broadcast having reached every other seat of its table. When every game is
// over it writes RESULT.json (the parts of server_load.Stats, and the CPU seconds it used while
// playing) and exits.
//
// Why Node: the Python client (websockets on uvloop) costs about 0.9 ms of CPU per action
// (four state messages received and decoded, one sent), as much as half the server's; the
// benchmark's clients share the machine with the servers, so their cost is part of the
// measurement, though real clients are browsers elsewhere. This one costs a fraction of that
// (see docs/server.md).

import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { applyEvent } from "../src/hearts/server/static/events.js"; // the browser's own

const require = createRequire(import.meta.url);
const WebSocket = require("ws"); // from NODE_PATH (cluster_load.py sets it to .venv/npm/node_modules)

const [specPath, resultPath] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, "utf8"));

function rng(seed) { // mulberry32: a small seeded generator
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stats = { spread: [], sent: [], moves: 0, errors: [], retries: 0, resyncs: 0, finished: 0, events: {}, failures: [], lag: [] };
let goAt = 0;
let started = false;
let ready = 0, total = 0, done = 0;
const master = rng(spec.seed);

function decision(m) {
  const v = m.view;
  if (v.game_over) return null;
  if (v.must_pass) return "pass:" + v.round_number;
  if (v.moon_choice_pending) return "moon:" + v.round_number;
  if (v.to_move === v.seat && v.legal.length) return "play:" + m.seq;
  return null;
}

function sample(list, n, random) {
  const copy = list.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

function client(table, timing, port, token) {
  const random = rng(Math.floor(master() * 2 ** 32));
  const events = (stats.events[table.id] ??= {});
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/${table.id}`, { perMessageDeflate: false, maxPayload: 1 << 22 });
  let latest = null, timer = null, first = true;
  const doneKeys = new Set();
  total++;

  function schedule() {
    if (!started || timer !== null || latest === null) return;
    const key = decision(latest);
    if (key === null || doneKeys.has(key)) return;
    timer = setTimeout(act, random() * 2 * spec.think * 1000);
  }

  function act() {
    timer = null;
    const m = latest, key = decision(m);
    if (key === null || doneKeys.has(key)) return schedule();
    doneKeys.add(key);
    const v = m.view;
    let msg;
    if (key.startsWith("pass")) msg = { type: "pass", seq: m.seq, cards: sample(v.hand, v.pass_count, random) };
    else if (key.startsWith("moon")) msg = { type: "moon", seq: m.seq, choice: random() < 0.5 ? "add" : "subtract" };
    else {
      msg = { type: "play", seq: m.seq, card: v.legal[Math.floor(random() * v.legal.length)] };
      if (!timing.plays.has(m.seq + 1)) {  // (a play sent again is timed from its first sending)
        timing.plays.set(m.seq + 1, [performance.now(), new Set([0, 1, 2, 3].filter((s) => s !== v.seat))]);
        stats.moves++;
      }
    }
    ws.send(JSON.stringify(msg));
  }

  ws.on("open", () => ws.send(JSON.stringify({ type: "hello", token })));
  ws.on("error", (e) => { stats.failures.push(String(e)); });
  ws.on("close", () => { if (++done === total) finish(); });
  ws.on("message", (data) => {
    let m = JSON.parse(data);
    if (m.type === "error") {
      stats.errors.push(m.message);
      if (m.code === "unavailable") {  // "try again": as a person does, after a pause
        stats.retries++;
        if (latest === null) setTimeout(() => ws.send(JSON.stringify({ type: "hello", token })), 100 + random() * 400);
        else { doneKeys.delete(decision(latest)); schedule(); }  // (refused: still the state acted on)
      }
      return;
    }
    if (m.type === "event") {  // applied to the last state, as the browser does
      const next = applyEvent(latest, m);
      if (!next) { stats.errors.push("an event that does not follow: " + m.n); ws.send(JSON.stringify({ type: "sync" })); return; }
      m = next;
    } else if (m.type !== "state") return;
    if (first) { first = false; if (++ready === total) { console.log("ready"); } }
    if (m.reason === "resync") stats.resyncs++;
    const ev = m.event;
    if (ev && m.reason === "event") {
      (events[ev.seq] ??= []).push(ev);
      if (ev.type === "play") {
        const play = timing.plays.get(ev.seq);
        if (play) {
          play[1].delete(m.you);
          if (!play[1].size) {
            stats.spread.push((performance.now() - play[0]) / 1000);
            stats.sent.push((play[0] - goAt) / 1000);
            timing.plays.delete(ev.seq);
          }
        }
      }
    }
    latest = m;
    if (m.view.game_over) {
      if (m.you === 0) stats.finished++;
      if (timer !== null) clearTimeout(timer);
      ws.close();
      return;
    }
    schedule();
  });
  return () => schedule();
}

const starters = [];
for (const table of spec.tables) {
  const timing = { plays: new Map() };
  for (const [port, token] of table.seats) starters.push(client(table, timing, port, token));
}

let cpuAtStart = null;
const input = createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (line.trim() !== "go" || started) return;
  started = true;
  goAt = performance.now();
  cpuAtStart = process.cpuUsage();
  // This driver's own event-loop lag (how late a 10 ms timer fires): a driver that cannot
  // keep up adds its lag to every latency it measures.
  let tick = performance.now();
  setInterval(() => { const now = performance.now(); stats.lag.push((now - tick - 10) / 1000); tick = now; }, 10).unref();
  for (const start of starters) start();
});

function finish() {
  const cpu = process.cpuUsage(cpuAtStart ?? undefined);
  writeFileSync(resultPath, JSON.stringify({ ...stats, cpu: (cpu.user + cpu.system) / 1e6 }));
  input.close();
  process.exit(0);
}
