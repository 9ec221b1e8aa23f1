// pyhearts web table: game reviews. A "Review game" control (in the game-over dialog and in
// "my games") asks the server to review one seat's decisions (POST /api/tables/{id}/review),
// shows the progress while it is computed in the background (GET …/review?seat=S, every
// second), then the summary with its caveat and the link to the replay viewer, which shows
// each decision annotated (/replay/{id}?seat=S&review=1).
//
//   const box = control(tableId, seat);                    // an element: put it in the page
//   control(tableId, seat, { small: true, check: false });  // a small button that asks the
//                                                           // server only once pressed
//   summary(review, seat)                                   // the summary of a done review
//   replayUrl(tableId, seat)                                // the annotated replay's address
import { el, call } from "./ui.js";
import { _, ngettext } from "./i18n.js";

const POLL_MS = 1000;

const replayUrl = (tableId, seat) => "/replay/" + encodeURIComponent(tableId) + "?seat=" + seat + "&review=1";

// What the progress line says for a review job (GET …/review).
function progressText(job) {
  if (job.status === "queued") return _("Your game is waiting for a free reviewer…");
  if (!job.total) return _("Starting the review of your game…");
  return ngettext("Reviewing your game: {done} of {n} decision", "Reviewing your game: {done} of {n} decisions", job.total, { done: job.done });
}

// A done review's summary for a seat: expected points lost with their uncertainty, the
// accuracy, the flags, and what the numbers are (estimates from sampled deals).
function summary(review, seat) {
  const s = (review.summaries || []).find((x) => x.seat === seat);
  if (!s) return el("p", { class: "review-summary", text: _("This review has no decision of that seat.") });
  const flags = [
    s.blunders && ngettext("{n} blunder", "{n} blunders", s.blunders),
    s.mistakes && ngettext("{n} mistake", "{n} mistakes", s.mistakes),
    s.inaccuracies && ngettext("{n} inaccuracy", "{n} inaccuracies", s.inaccuracies),
  ].filter(Boolean);
  const lines = s.decisions ? [
    el("li", {}, _("Points lost by your decisions: about") + " ", el("b", { class: "review-lost", text: s.points_lost.toFixed(1) }),
      " ± " + s.points_lost_stderr.toFixed(1) + " " + ngettext("over {n} decision", "over {n} decisions", s.decisions)),
    el("li", {}, _("Accuracy:") + " ", el("b", { class: "review-accuracy", text: Math.round(s.accuracy) + "%" }),
      " (" + (flags.length ? flags.join(", ") : _("nothing flagged")) + ")"),
  ] : [el("li", { text: _("You had no choice to make: nothing to review.") })];
  return el("div", { class: "review-summary" },
    el("ul", {}, ...lines),
    el("p", { class: "note review-caveat", text: _("These are estimates: each decision was played out on {n} sampled deals of the cards you could not see, so every number has an uncertainty (± one standard error). A decision is flagged only when its loss is clearly above that noise.", { n: review.budget }) }));
}

// The "Review game" control of one seat of a finished game: a button, then the progress,
// then the summary and the link to the annotated replay. It picks up a review asked for
// before (from another page, or another player's press), and stops polling once removed.
function control(tableId, seat, options) {
  const label = (options && options.label) || _("Review game");
  const button = el("button", { type: "button", class: (options && options.small) ? "small review-btn" : "review-btn", text: label });
  const bar = el("progress", { class: "review-bar", max: "1", value: "0", "aria-label": _("review progress"), hidden: true });
  const status = el("p", { class: "review-status", role: "status", "aria-live": "polite" });
  const result = el("div", { class: "review-result" });
  const box = el("div", { class: "review-box", "data-seat": String(seat) }, button, bar, status, result);
  const path = "/api/tables/" + encodeURIComponent(tableId) + "/review";
  let timer = null;

  function show(job) {
    clearTimeout(timer);
    bar.hidden = !(job.status === "queued" || job.status === "running");
    if (job.status === "done") {
      box.dataset.status = "done";
      button.hidden = true;
      status.textContent = _("Your review is ready.");
      const link = el("a", { href: replayUrl(tableId, seat), class: "button-link review-open", text: _("See each decision in the replay") });
      result.replaceChildren(summary(job.review, seat), link);
      link.focus();
      return;
    }
    box.dataset.status = job.status;
    if (job.status === "failed" || job.status === "none") {
      button.hidden = false;
      button.disabled = false;
      button.textContent = job.status === "failed" ? _("Try the review again") : label;
      status.textContent = job.status === "failed" ? _("The review could not be made: {error}", { error: job.error || _("an error") }) : "";
      return;
    }
    button.hidden = true;
    bar.max = Math.max(1, job.total);
    bar.value = job.done;
    status.textContent = progressText(job);
    timer = setTimeout(poll, POLL_MS);
  }
  function failed(e) {
    box.dataset.status = "error";
    button.hidden = false;
    button.disabled = false;
    bar.hidden = true;
    status.textContent = e.message;
  }
  async function poll() {
    if (!box.isConnected) return;  // the dialog was closed: stop asking
    try { show(await call("GET", path + "?seat=" + seat)); } catch (e) { failed(e); }
  }
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = _("Asking for a review…");
    try { show(await call("POST", path, { seat })); } catch (e) { failed(e); }
  });
  // A review asked for already (by you elsewhere, or before a reload) is shown as it is;
  // with `check: false` (a list of many games) only once the button is pressed.
  if (!options || options.check !== false) setTimeout(() => { if (box.isConnected) poll(); }, 0);
  return box;
}

export { control, summary, replayUrl };
