// pyhearts web table: the table's WebSocket (/ws/{id}). It says hello with the seat's token
// (or asks to watch), hands every message on, and after a drop reconnects (at once after a
// server's restart, else waiting longer each time, up to 5 s); the header says how it is connected.
//
//   connect(onMessage)   // opens it; onMessage(m) for each message of the server
//   send(msg)            // sends, or says "not connected; retrying…"
//   sendIfOpen(msg)      // sends; whether it was connected
//   act(msg)             // my action: the finished trick on screen has been seen (its pause
//                        // ends), then it is sent
//   stop()               // closed for good, no reconnecting: "not connected"
import { $, toast } from "./ui.js";
import { _ } from "./i18n.js";
import { live, hurry } from "./state.js";
import { current } from "./profile.js";

let ws = null, retry = 0, handler = () => {};

export function connect(onMessage) {
  if (onMessage) handler = onMessage;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(proto + "//" + location.host + "/ws/" + live.tableId);
  $("conn").textContent = _("connecting…");
  // A spectator with a player profile watches with its key: the lines of those it muted or blocked are not sent.
  const watch = current() && current().key ? { type: "watch", key: current().key } : { type: "watch" };  // (a passkey's: its cookie)
  ws.onopen = () => { retry = 0; ws.send(JSON.stringify(live.watching ? watch : { type: "hello", token: live.token })); };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (live.watching && m.type === "error" && m.code === "bad_key") ws.send(JSON.stringify({ type: "watch" }));  // (a key of no profile: watch all the same)
    else handler(m);
  };
  ws.onclose = (ev) => {
    $("conn").textContent = _("disconnected") + (ev.reason ? " (" + ev.reason + ")" : "") + " — " + _("reconnecting…");
    document.body.dataset.connected = "false";
    // 1012, "service restart": the process stopping handed the table to another one, which serves it already.
    const wait = ev.code === 1012 && retry === 0 ? 0 : Math.min(5000, 300 * 2 ** retry);
    retry++;
    setTimeout(() => connect(), wait);
  };
}

export function send(msg) {
  if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
  else toast(_("not connected; retrying…"));
}
// Sends ``msg`` if connected; whether it was sent.
export function sendIfOpen(msg) {
  const open = ws && ws.readyState === 1;
  send(msg);
  return open;
}

// Sends my action; the finished trick on screen has been seen, so its pause ends.
export function act(msg) {
  hurry();
  send(msg);
}

export function stop() {
  $("conn").textContent = _("not connected");
  ws.onclose = null;
  ws.close();
}
