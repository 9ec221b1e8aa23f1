// pyhearts web table: the table's WebSocket (/ws/{id}). It says hello with the seat's token
// (or asks to watch), hands every message on, and after a drop reconnects (at once after a
// server's restart, else waiting longer each time, up to 5 s); the header says how it is connected.
// A connection that stops answering is given up: after SILENCE ms without a message (or
// AFTER_ACTION ms after my action) it sends a ping, and if nothing comes within ANSWER_WAIT ms
// (its server process frozen, a hung machine: the socket stays open but silent), or an opening
// takes longer than OPEN_WAIT ms, it connects again at once by another route (/ws/{id}?via=n:
// the proxy hashes the route with the table's id, so the next try may reach another process,
// which serves the table once the frozen owner's lease has run out).
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

const SILENCE = 4000, AFTER_ACTION = 1000, ANSWER_WAIT = 3000, OPEN_WAIT = 3000;

let ws = null, retry = 0, handler = () => {}, via = 0, watchdog = null;
// When a message last came, whether my action waits for one, when the ping unanswered was sent.
let heard = 0, acted = false, pinged = null;

export function connect(onMessage) {
  if (onMessage) handler = onMessage;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = ws = new WebSocket(proto + "//" + location.host + "/ws/" + live.tableId + (via ? "?via=" + via : ""));
  $("conn").textContent = _("connecting…");
  // A spectator with a player profile watches with its key: the lines of those it muted or blocked are not sent.
  const watch = current() && current().key ? { type: "watch", key: current().key } : { type: "watch" };  // (a passkey's: its cookie)
  const opened = Date.now();
  heard = opened; acted = false; pinged = null;
  clearInterval(watchdog);
  watchdog = setInterval(() => checkAnswers(socket, opened), 500);
  socket.onopen = () => { retry = 0; heard = Date.now(); socket.send(JSON.stringify(live.watching ? watch : { type: "hello", token: live.token })); };
  socket.onmessage = (ev) => {
    heard = Date.now(); acted = false; pinged = null;
    const m = JSON.parse(ev.data);
    if (live.watching && m.type === "error" && m.code === "bad_key") socket.send(JSON.stringify({ type: "watch" }));  // (a key of no profile: watch all the same)
    else handler(m);
  };
  socket.onclose = (ev) => {
    clearInterval(watchdog);
    $("conn").textContent = _("disconnected") + (ev.reason ? " (" + ev.reason + ")" : "") + " — " + _("reconnecting…");
    document.body.dataset.connected = "false";
    // 1012, "service restart": the process stopping handed the table to another one, which serves it already.
    const wait = ev.code === 1012 && retry === 0 ? 0 : Math.min(5000, 300 * 2 ** retry);
    retry++;
    setTimeout(() => connect(), wait);
  };
}

// The watchdog of one connection: a ping after a silence, and the connection given up (another
// route tried at once) when the ping or the opening is not answered in time.
function checkAnswers(socket, opened) {
  const now = Date.now();
  if (socket.readyState === 0 && now - opened > OPEN_WAIT) return reroute(socket);
  if (socket.readyState !== 1) return;
  if (pinged !== null) {
    if (now - pinged > ANSWER_WAIT) reroute(socket);
  } else if (now - heard > (acted ? AFTER_ACTION : SILENCE)) {
    pinged = now;
    socket.send(JSON.stringify({ type: "ping" }));
  }
}

function reroute(socket) {
  clearInterval(watchdog);
  socket.onopen = socket.onmessage = socket.onclose = null;
  socket.close();  // (its server does not answer: the socket is let go, not waited for)
  document.body.dataset.connected = "false";
  document.body.dataset.rerouted = String(++via);
  $("conn").textContent = _("disconnected") + " — " + _("reconnecting…");
  connect();
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
  acted = true;
}

export function stop() {
  $("conn").textContent = _("not connected");
  clearInterval(watchdog);
  ws.onclose = null;
  ws.close();
}
