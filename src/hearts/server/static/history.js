// pyhearts web table: "My games" (/games: every table your profile sat at, newest first, with
// your points and place, the winner, and links to continue or replay it) and the leaderboard
// (/leaderboard: rated players and the bots' fixed anchors by conservative rating, yours
// highlighted).
//
//   showGames()        // the /games page
//   showLeaderboard()  // the /leaderboard page
import { el, $, call } from "./ui.js";
import * as player from "./player.js";
import * as review from "./review.js";

const ordinal = (n) => n + (n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th");
const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

function noProfile(page) {
  page.append(el("p", {}, "Make a player profile first: it keeps your games and your rating. ",
    el("a", { href: "/me", text: "Make my profile" })));
}

// ---------------------------------------------------------------- my games
async function showGames() {
  const page = $("games-page");
  page.hidden = false;
  document.title = "pyhearts — my games";
  page.append(el("h1", { id: "games-title", text: "My games" }));
  if (!player.current()) { noProfile(page); return; }
  let data;
  try { data = await call("GET", "/api/me/games"); } catch (e) {
    if (e.status === 401) { player.forget(); noProfile(page); } else page.append(el("p", { role: "alert", text: e.message }));
    return;
  }
  if (!data.games.length) {
    page.append(el("p", {}, "No game yet. ", el("a", { href: "/", text: "Take a seat in the lobby" }), "."));
    return;
  }
  page.append(el("ol", { class: "game-list", id: "game-list" }, ...data.games.map(gameItem)));
}

function gameItem(g) {
  const players = el("ul", { class: "game-players", "aria-label": "players" }, ...g.players.map((p) =>
    el("li", { class: (p.you ? "you" : "") + (g.winners && g.winners.includes(p.name) ? " winner" : "") },
      p.name + (p.you ? " (you)" : "") + (p.bot ? " · bot " + p.bot : ""),
      el("b", { text: " " + g.totals[p.seat] }))));
  const result = g.finished
    ? (g.place === 1 ? "You won" + (g.winners.length > 1 ? " (shared)" : "") : "You came " + ordinal(g.place)) + " with " + g.points + (g.points === 1 ? " point" : " points")
    : "In progress: " + g.points + (g.points === 1 ? " point" : " points") + " so far (" + ordinal(g.place) + ")";
  const links = el("div", { class: "game-links" });
  if (g.finished) {
    links.append(el("a", { href: "/replay/" + g.id, class: "button-link replay-link", text: "Replay" }));
    const mine = g.players.find((p) => p.you);  // your decisions reviewed (review.js)
    if (mine) links.append(review.control(g.id, mine.seat, { small: true, check: false }));
  } else if (localStorage.getItem("pyhearts:" + g.id)) {
    links.append(el("a", { href: "/t/" + g.id, class: "button-link continue-link", text: "Continue" }));
  } else {
    links.append(el("span", { class: "note", text: "Open your invite link to continue (this browser has no seat token for it)." }));
  }
  return el("li", { class: "game " + (g.finished ? "finished" : "playing"), "data-table": g.id },
    el("div", { class: "game-head" },
      el("span", { class: "game-when", text: when(g.created) }),
      el("span", { class: "game-state", text: g.state + (g.rated ? " · rated" : "") }),
      el("span", { class: "game-rules", text: g.rules + " · " + g.rounds + (g.rounds === 1 ? " round" : " rounds") })),
    el("p", { class: "game-result" }, el("b", { text: result }),
      g.finished ? ". Winner: " + g.winners.join(" and ") + "." : "."),
    players, links);
}

// ---------------------------------------------------------------- the leaderboard
async function showLeaderboard() {
  const page = $("leaderboard-page");
  page.hidden = false;
  document.title = "pyhearts — leaderboard";
  page.append(el("h1", { id: "leaderboard-title", text: "Leaderboard" }),
    el("p", { class: "note", text: "Rated games only. The rating is a cautious estimate of skill (OpenSkill: μ − 3σ, from 0 up; provisional for a player's first games): it grows as you play and win. The bots' ratings are fixed: they anchor the scale." }));
  let data;
  try { data = await call("GET", "/api/leaderboard"); } catch (e) {
    if (e.status === 401) { player.forget(); page.hidden = true; page.textContent = ""; showLeaderboard(); }
    else page.append(el("p", { role: "alert", text: e.message }));
    return;
  }
  const head = el("tr", {}, ...["#", "Player", "Rating", "Rated games"].map((t) => el("th", { scope: "col", text: t })));
  const table = el("table", { class: "leaderboard", id: "leaderboard" }, el("caption", { class: "sr-only", text: "Players by rating, highest first" }), el("thead", {}, head));
  const body = el("tbody");
  data.players.forEach((p, i) => {
    body.append(el("tr", { class: (p.bot ? "bot" : "") + (p.you ? " you" : ""), "aria-current": p.you ? "true" : null, "data-bot": p.bot || null },
      el("td", { text: String(i + 1) }),
      el("th", { scope: "row", text: p.name + (p.you ? " (you)" : "") }),
      el("td", { class: "rating", text: String(p.shown) }),
      el("td", { text: p.bot ? "fixed" : String(p.games) + (p.provisional ? " · provisional" : "") })));
  });
  table.append(body);
  page.append(el("div", { class: "panel table-wrap" }, table));
  if (data.me && !data.players.some((p) => p.you)) {
    page.append(el("p", { id: "leaderboard-me" }, "You (" + data.me.name + ") have no rated game yet: tick “Rated” when you make a table in the ",
      el("a", { href: "/", text: "lobby" }), "."));
  } else if (!data.me) {
    page.append(el("p", { class: "note" }, el("a", { href: "/me", text: "Make a profile" }), " to play rated games."));
  }
}

export { showGames, showLeaderboard };
