// pyhearts web table: the chat panel (short messages between the players of a table).
// Lines are shown with textContent only (never as HTML); Enter sends; a spectator reads. A line
// sent stays in the input until the server brings it back: one it refuses (too many lines, too
// long) is still there to send again, and the panel says why.
//
//   import * as chat from "./chat.js";
//   chat.setup({ send: (text) => ..., nameOf: (seat) => "Ann", me: () => 0, max: 200 });
//   chat.receive({ type: "chat", lines: [{ id, seat, text }], history: false });
//   chat.refused("too many chat messages …")   // the line sent was refused: whether one was waiting
//   chat.seated(true, tableChat);   // a player may write; a spectator (false) reads only; a table without chat says so
const $ = (id) => document.getElementById(id);
const KEEP = 100;  // lines kept on the page
let options = null, unread = 0;
let pending = null;  // the line sent, until the server brings it back or refuses it
const seen = new Set();

function setup(opts) {
  options = opts;
  const input = $("chat-input"), form = $("chat-form"), toggle = $("chat-toggle");
  input.maxLength = opts.max || 200;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (options.send(text)) { pending = text; say(""); }
  });
  toggle.addEventListener("click", () => open($("chat-body").hidden));
  // A phone starts with the chat folded; a wider screen with it open.
  open(!window.matchMedia("(max-width: 700px)").matches);
}

function open(yes) {
  $("chat-body").hidden = !yes;
  $("chat-toggle").setAttribute("aria-expanded", String(yes));
  if (yes) { unread = 0; badge(); }
}

function badge() {
  const b = $("chat-unread");
  b.textContent = unread ? String(unread) : "";
  b.hidden = !unread;
}

function receive(m) {
  const list = $("chat-lines");
  if (m.history) { list.textContent = ""; seen.clear(); }
  for (const line of m.lines) {
    if (seen.has(line.id)) continue;
    seen.add(line.id);
    const li = document.createElement("li");
    li.dataset.seat = line.seat;
    const who = document.createElement("b");
    who.textContent = options.nameOf(line.seat) + ": ";
    li.append(who, document.createTextNode(line.text));
    list.append(li);
    if (!m.history && $("chat-body").hidden) unread++;
    if (pending !== null && line.seat === options.me() && line.text === pending) {  // mine, taken: the input empties
      if ($("chat-input").value.trim() === pending) $("chat-input").value = "";
      pending = null;
    }
  }
  while (list.children.length > KEEP) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
  badge();
}

// The server refused the line sent (``message`` says why): it stays in the input.
function refused(message) {
  if (pending === null) return false;
  pending = null;
  say(message);
  return true;
}

function say(text) {
  const e = $("chat-error");
  e.textContent = text ? text[0].toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".") : "";
  e.hidden = !text;
}

function seated(yes, tableChat = true) {
  $("chat-form").hidden = !yes || !tableChat;
  $("chat-spectator").hidden = yes || !tableChat;
  $("chat-table-off").hidden = tableChat;
}

export { setup, receive, refused, seated, open };
