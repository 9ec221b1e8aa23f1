// pyhearts web table: the entry module, the one script of index.html (type="module"; plain
// ES modules, no build step). It starts what every page has (the settings panel, the sounds,
// the profile in the header, the dialogs' focus), then shows the page of the address: a table
// (/t/{id}: tablepage.js), the profile (/me), my games, the leaderboard, a replay, else the lobby.
//
// The modules: i18n (the words in the player's language), ui (helpers), profile (the stored profile), settings, sound, anim, chart, chat,
// layout (the seats around the table), state (the table page's shared state), connection (the
// WebSocket), pacing (the states shown in order, the pauses), table (the table drawn), hand,
// scores, dialogs, hint, rematch, rounds, seats, review, tablepage, lobby, player, history, replay,
// rules (the rule book's page).
//
// Test hook, deliberate: window.pyhearts = { settings, sound } lets the browser tests change a
// setting and read the sounds played (pacing.js also keeps window.heartsState and the like).
import { translatePage } from "./i18n.js";
import * as settings from "./settings.js";
import * as sound from "./sound.js";
import * as player from "./player.js";
import { wireDialog } from "./dialogs.js";
import { openTable } from "./tablepage.js";
import { lobby } from "./lobby.js";
import { showGames, showLeaderboard } from "./history.js";
import { show as showReplay } from "./replay.js";
import { showRules } from "./rules.js";

window.pyhearts = { settings, sound };
translatePage(document);  // the page's own words (index.html's data-i18n marks) in the language
settings.wire();
sound.wire();
player.start();
wireDialog();

const PAGES = [
  { path: /^\/t\/([A-Za-z0-9_-]+)/, show: (m) => openTable(m[1]) },
  { path: /^\/me\/?$/, show: player.showProfilePage },
  { path: /^\/games\/?$/, show: showGames },
  { path: /^\/leaderboard\/?$/, show: showLeaderboard },
  { path: /^\/replay\/([A-Za-z0-9_-]+)\/?$/, show: showReplay },
  { path: /^\/rules\/?$/, show: showRules },
];
const page = PAGES.find((p) => p.path.test(location.pathname));
if (page) page.show(location.pathname.match(page.path));
else lobby();
