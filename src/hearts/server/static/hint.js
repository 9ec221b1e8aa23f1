// pyhearts web table: the hint (H). What the search bot would do from my view, asked of the
// server at my turn; its card(s) are highlighted in my hand (hand.js) until the table moves on.
//
//   askHint()     // asks (or shows again the hint of this position)
//   showHint(m)   // the server's "hint" message
//   hideHint()    // the table moved on, or the hint was refused
import { $, el } from "./ui.js";
import { _ } from "./i18n.js";
import { live, isMyTurn, redraw } from "./state.js";
import { send } from "./connection.js";

export function askHint() {
  const s = live.state;
  if (!s || s.you === null || !isMyTurn(s) || s.view.game_over) return;
  if (live.hint && live.hint.seq === s.seq) { showHint(live.hint); return; }
  const box = $("hint");
  box.textContent = _("Thinking about a hint…");
  box.hidden = false;
  send({ type: "hint", seq: s.seq });
}

export function showHint(m) {
  if (!live.state || m.seq !== live.state.seq) return;  // the table moved on: that hint is no use now
  live.hint = m;
  const box = $("hint");
  box.textContent = "";
  box.append(el("b", { text: m.text }));
  box.hidden = false;
  redraw();
}

export function hideHint() {
  live.hint = null;
  $("hint").hidden = true;
  $("hint").textContent = "";
}
