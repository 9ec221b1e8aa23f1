// pyhearts web table: the score chart, an inline SVG line chart of each seat's total after
// every round (the table's score_history), with the game's target as a dashed line; equal
// totals are drawn side by side, none hidden.
//
//   scoreChart(history, names, target)   // a <figure>: the chart and its legend
import { _, ngettext } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 480, H = 210, LEFT = 40, RIGHT = 12, TOP = 12, BOTTOM = 30;  // the drawing and its margins

// An SVG element with attributes and children (text given as `text`).
function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
}

const DOT = 3.2;  // a point's radius

// Seats with equal totals would hide one another's points and lines: each is drawn a point's
// width apart from the others of its total (a vertical offset, in seat order, centred on the
// total's place); the legend and each point's title give the totals themselves.
function dodge(row, s) {
  const same = row.map((v, k) => [v, k]).filter(([v]) => v === row[s]).map(([, k]) => k);
  return (same.indexOf(s) - (same.length - 1) / 2) * (2 * DOT + 0.8);
}

// A round step between axis labels: 1, 2 or 5 times a power of ten, about `count` of them.
function step(span, count) {
  const raw = Math.max(1, span / count), ten = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((k) => k * ten).find((s) => s >= raw);
}

// The chart: `history` is a list of rounds, each the seats' totals after it; `names` the
// seats' names; `target` the score that ends the game (drawn when it is near the scores).
function scoreChart(history, names, target) {
  const rows = [names.map(() => 0), ...history];
  const all = rows.flat();
  const showTarget = target > 0 && target <= 2 * Math.max(...all, 1);
  let lo = Math.min(0, ...all), hi = Math.max(showTarget ? target : 0, ...all, 10);
  const dy = step(hi - lo, 5);
  lo = Math.floor(lo / dy) * dy;
  hi = Math.ceil(hi / dy) * dy;
  const x = (i) => LEFT + (i * (W - LEFT - RIGHT)) / Math.max(1, rows.length - 1);
  const y = (v) => TOP + ((hi - v) * (H - TOP - BOTTOM)) / (hi - lo);
  const words = names.map((n, s) => n + " " + rows[rows.length - 1][s]).join(", ");
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": ngettext("Score chart after {n} round: {words}", "Score chart after {n} rounds: {words}", history.length, { words }) },
    svg("title", { text: _("Totals after each round") }));
  for (let v = lo; v <= hi; v += dy) {  // the grid and the score axis
    chart.append(svg("line", { class: "grid" + (v === 0 ? " zero" : ""), x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v) }),
      svg("text", { class: "axis", x: LEFT - 6, y: y(v) + 4, "text-anchor": "end", text: String(v) }));
  }
  const dx = step(rows.length - 1, 10);
  for (let i = 0; i < rows.length; i += dx) chart.append(svg("text", { class: "axis", x: x(i), y: H - BOTTOM + 16, "text-anchor": "middle", text: String(i) }));
  chart.append(svg("text", { class: "axis", x: W - RIGHT, y: H - 2, "text-anchor": "end", text: _("round") }));
  if (showTarget) {
    chart.append(svg("line", { class: "target", x1: LEFT, x2: W - RIGHT, y1: y(target), y2: y(target) }),
      svg("text", { class: "axis", x: LEFT + 4, y: y(target) - 4, text: _("target {n}", { n: target }) }));
  }
  const at = (r, i, s) => y(r[s]) + dodge(r, s);
  names.forEach((name, s) => {
    const points = rows.map((r, i) => x(i) + "," + at(r, i, s)).join(" ");
    const line = svg("g", { class: "seat-line s" + s, "data-seat": s }, svg("polyline", { class: "line", points }));
    rows.forEach((r, i) => {
      if (i > 0) line.append(svg("circle", { cx: x(i), cy: at(r, i, s), r: DOT }, svg("title", { text: _("{name}: {total} after round {n}", { name, total: r[s], n: i }) })));
    });
    chart.append(line);
  });
  const legend = document.createElement("ul");
  legend.className = "legend";
  names.forEach((name, s) => {
    const li = document.createElement("li");
    li.className = "s" + s;
    li.textContent = name + " " + rows[rows.length - 1][s];
    legend.append(li);
  });
  const figure = document.createElement("figure");
  figure.className = "score-chart";
  figure.append(chart, legend);
  return figure;
}

export { scoreChart };
