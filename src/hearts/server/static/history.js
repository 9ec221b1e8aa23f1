// pyhearts web table: "My games" (/games: every table your profile sat at, newest first, with
// your points and place, the winner, and links to continue or replay it) and the leaderboard
// (/leaderboard: rated players and the bots' fixed anchors by conservative rating, yours
// highlighted).
//
//   showGames()        // the /games page
//   showLeaderboard()  // the /leaderboard page
import { el, $, call, levelName } from "./ui.js";
import { _, ngettext, lang } from "./i18n.js";
import * as player from "./player.js";
import * as review from "./review.js";

// An ordinal, "2nd": the language's ordinal category (the browser's Intl.PluralRules) picks
// one of the catalog's four forms (German writes each "{n}.", French "1er" and "{n}e").
const ORDINALS = { one: () => _("{n}st"), two: () => _("{n}nd"), few: () => _("{n}rd"), other: () => _("{n}th") };
function ordinal(n) {
  let category = "other";
  try { category = new Intl.PluralRules(lang(), { type: "ordinal" }).select(n); } catch (e) { /* an unknown language: other */ }
  return (ORDINALS[category] || ORDINALS.other)().replace("{n}", String(n));
}
const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

function noProfile(page) {
  page.append(el("p", {}, _("Make a player profile first: it keeps your games and your rating.") + " ",
    el("a", { href: "/me", text: _("Make my profile") })));
}

// ---------------------------------------------------------------- my games
async function showGames() {
  const page = $("games-page");
  page.hidden = false;
  document.title = "pyhearts — " + _("my games");
  page.append(el("h1", { id: "games-title", text: _("My games") }));
  if (!player.current()) { noProfile(page); return; }
  let data;
  try { data = await call("GET", "/api/me/games"); } catch (e) {
    if (e.status === 401) { player.forget(); noProfile(page); } else page.append(el("p", { role: "alert", text: e.message }));
    return;
  }
  if (!data.games.length) {
    page.append(el("p", {}, _("No game yet.") + " ", el("a", { href: "/", text: _("Take a seat in the lobby") }), "."));
    return;
  }
  page.append(el("ol", { class: "game-list", id: "game-list" }, ...data.games.map(gameItem)));
}

function gameItem(g) {
  const players = el("ul", { class: "game-players", "aria-label": _("players") }, ...g.players.map((p) =>
    el("li", { class: (p.you ? "you" : "") + (g.winners && g.winners.includes(p.name) ? " winner" : "") },
      (p.you ? _("{name} (you)", { name: p.name }) : p.name) + (p.bot ? " · " + _("bot") + " " + levelName(p.bot) : ""),
      el("b", { text: " " + g.totals[p.seat] }))));
  const points = ngettext("{n} point", "{n} points", g.points);
  const result = g.finished
    ? (g.place === 1 ? (g.winners.length > 1 ? _("You won (shared) with {points}", { points }) : _("You won with {points}", { points }))
      : _("You came {place} with {points}", { place: ordinal(g.place), points }))
    : _("In progress: {points} so far ({place})", { points, place: ordinal(g.place) });
  const links = el("div", { class: "game-links" });
  if (g.finished) {
    links.append(el("a", { href: "/replay/" + g.id, class: "button-link replay-link", text: _("Replay") }));
    const mine = g.players.find((p) => p.you);  // your decisions reviewed (review.js)
    if (mine) links.append(review.control(g.id, mine.seat, { small: true, check: false }));
  } else {  // (a seat token kept in this browser, else a ticket for the profile's seat: tablepage.js)
    links.append(el("a", { href: "/t/" + g.id, class: "button-link continue-link", text: _("Continue") }));
  }
  return el("li", { class: "game " + (g.finished ? "finished" : "playing"), "data-table": g.id },
    el("div", { class: "game-head" },
      el("span", { class: "game-when", text: when(g.created) }),
      el("span", { class: "game-state", text: g.state + (g.rated ? " · " + _("rated") : "") }),
      el("span", { class: "game-rules", text: g.rules + " · " + ngettext("{n} round", "{n} rounds", g.rounds) })),
    el("p", { class: "game-result" }, el("b", { text: result }),
      g.finished ? ". " + ngettext("Winner: {names}.", "Winners: {names}.", g.winners.length, { names: g.winners.join(", ") }) : "."),
    players, links);
}

// ---------------------------------------------------------------- the leaderboard
async function showLeaderboard() {
  const page = $("leaderboard-page");
  page.hidden = false;
  document.title = "pyhearts — " + _("leaderboard");
  page.append(el("h1", { id: "leaderboard-title", text: _("Leaderboard") }),
    el("p", { class: "note", text: _("Rated games only. The rating is a cautious estimate of skill (OpenSkill: μ − 3σ, from 0 up; provisional for a player's first games): it grows as you play and win. The bots' ratings are fixed: they anchor the scale.") }));
  let data;
  try { data = await call("GET", "/api/leaderboard"); } catch (e) {
    if (e.status === 401) { player.forget(); page.hidden = true; page.textContent = ""; showLeaderboard(); }
    else page.append(el("p", { role: "alert", text: e.message }));
    return;
  }
  const head = el("tr", {}, ...["#", _("Player"), _("Rating"), _("Rated games")].map((t) => el("th", { scope: "col", text: t })));
  const table = el("table", { class: "leaderboard", id: "leaderboard" }, el("caption", { class: "sr-only", text: _("Players by rating, highest first") }), el("thead", {}, head));
  const body = el("tbody");
  data.players.forEach((p, i) => {
    body.append(el("tr", { class: (p.bot ? "bot" : "") + (p.you ? " you" : ""), "aria-current": p.you ? "true" : null, "data-bot": p.bot || null },
      el("td", { text: String(i + 1) }),
      el("th", { scope: "row", text: p.you ? _("{name} (you)", { name: p.name }) : p.bot ? _("Bot ({level})", { level: levelName(p.bot) }) : p.name }),
      el("td", { class: "rating", text: String(p.shown) }),
      el("td", { text: p.bot ? _("fixed") : String(p.games) + (p.provisional ? " · " + _("provisional") : "") })));
  });
  table.append(body);
  page.append(el("div", { class: "panel table-wrap" }, table));
  if (data.me && !data.players.some((p) => p.you)) {
    const [before, after] = _("You ({name}) have no rated game yet: tick “Rated” when you make a table in the {lobby}.", { name: data.me.name }).split("{lobby}");
    page.append(el("p", { id: "leaderboard-me" }, before, el("a", { href: "/", text: _("lobby") }), after));
  } else if (!data.me) {
    page.append(el("p", { class: "note" }, el("a", { href: "/me", text: _("Make a profile") }), " " + _("to play rated games.")));
  }
}

export { showGames, showLeaderboard };
