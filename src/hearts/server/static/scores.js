// pyhearts web table: the scores, as a table (each round's score and the total after it) and
// as a chart (chart.js), in the scores panel (S) and in the round's and the game's dialogs.
//
//   renderScores()       // the panel, drawn while it is shown
//   toggleScores()       // shows or hides it (S, the "Scores" button)
//   scoreTable(t, n)     // the table of the table ``t`` with ``n`` seats
//   scoreChart(t, n)     // its chart
import { $, el } from "./ui.js";
import { _ } from "./i18n.js";
import { live, seatName } from "./state.js";
import * as chart from "./chart.js";

// The scores panel (S): the totals after each round, as a table and a chart; drawn when shown.
export function renderScores() {
  const box = $("scores");
  $("scores-btn").setAttribute("aria-expanded", String(!box.hidden));
  if (box.hidden) return;
  const t = live.state.table, n = live.state.view.players;
  box.textContent = "";
  box.append(scoreTable(t, n), scoreChart(t, n));
}
export function toggleScores() { $("scores").hidden = !$("scores").hidden; renderScores(); }

const seatNames = (n) => Array.from({ length: n }, (_, s) => seatName(s));
export const scoreChart = (t, n) => chart.scoreChart(t.score_history, seatNames(n), t.target);

export function scoreTable(t, n) {
  const head = el("tr", {}, el("th", { text: _("Round") }));
  for (let s = 0; s < n; s++) head.append(el("th", { text: seatName(s) }));
  const table = el("table", { class: "history" }, head);
  t.score_history.forEach((row, i) => {
    const tr = el("tr", {}, el("td", { text: String(i + 1) }));
    row.forEach((x, s) => tr.append(el("td", { text: x + " (+" + t.results[i].scores[s] + ")" })));
    table.append(tr);
  });
  return table;
}
