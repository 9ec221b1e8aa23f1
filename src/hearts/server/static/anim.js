// pyhearts web table: the cards' movements (Web Animations API) and the pauses between them.
// A moving card is a ghost: a copy drawn over the card, which keeps its place and its box (and
// is hidden until the ghost lands), so a page re-drawn meanwhile is never wrong.
//
//   await wait(ms)             // a pause that hurry() ends at once
//   hurry()                    // ends every pause
//   await fly(node, rect, s)   // a played card flies to the trick from ``rect`` (a DOMRect)
//   await gather(nodes, rect)  // the trick's cards go to the winner's seat
//   still()                    // nothing moves (reduced motion, or a hidden page)
// Nothing moves when the settings ask for less motion (by default the system's "reduce
// motion": settings.js marks the page "reduced-motion"), or when nobody sees the page.
const still = () => document.body.classList.contains("reduced-motion") || document.hidden;

// Pauses that hurry() ends at once (the player acted, the page was hidden, a new full state).
const pending = new Set();
function wait(ms) {
  if (!(ms > 0) || document.hidden) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); pending.delete(done); resolve(); };
    const timer = setTimeout(done, ms);
    pending.add(done);
  });
}
function hurry() { for (const done of [...pending]) done(); }
document.addEventListener("visibilitychange", () => { if (document.hidden) hurry(); });

const centre = (r) => [r.left + r.width / 2, r.top + r.height / 2];

// A ghost of `node` (its image) at the node's place in the same positioned parent; the node
// is hidden meanwhile.
function ghost(node) {
  const g = document.createElement("div");
  g.className = "ghost";
  g.setAttribute("aria-hidden", "true");
  const img = node.querySelector("img");
  if (img) g.append(img.cloneNode());
  for (const [p, v] of [["left", node.offsetLeft], ["top", node.offsetTop], ["width", node.offsetWidth], ["height", node.offsetHeight]]) g.style.setProperty(p, v + "px");
  node.parentNode.append(g);
  node.classList.add("away");
  return g;
}

// Runs `frames` on a ghost of `node`; resolves when done (or soon after, if the page was
// re-drawn under it). `keep`: the node stays hidden (a card that went away).
function move(node, frames, ms, keep, delay = 0) {
  const g = ghost(node);
  const a = g.animate(frames, { duration: ms, delay, easing: keep ? "cubic-bezier(.5,0,.9,.6)" : "cubic-bezier(.2,.75,.3,1)", fill: "both" });
  const end = () => { g.remove(); if (!keep) node.classList.remove("away"); };
  return Promise.race([a.finished, wait(ms + delay + 80)]).catch(() => {}).then(end);
}

// A played card flies to its place in the trick from `from` (a DOMRect: the card in the hand,
// or the seat of the player), growing from `scale`.
function fly(node, from, scale = 1, ms = 260) {
  if (!node || !from || still()) return Promise.resolve();
  const [fx, fy] = centre(from), [tx, ty] = centre(node.getBoundingClientRect());
  const turn = (fx < tx ? -1 : 1) * 9;
  return move(node, [
    { transform: `translate(${fx - tx}px, ${fy - ty}px) rotate(${turn}deg) scale(${scale})`, opacity: 0.6 },
    { transform: "none", opacity: 1 },
  ], ms, false);
}

// The trick's cards (`nodes`) go to `to` (a DOMRect: the winner's seat), shrinking and fading.
function gather(nodes, to, ms = 320) {
  if (!nodes.length || !to || still()) return Promise.resolve();
  const [wx, wy] = centre(to);
  return Promise.all(nodes.map((node, i) => {
    const [x, y] = centre(node.getBoundingClientRect());
    return move(node, [
      { transform: "none", opacity: 1 },
      { transform: `translate(${wx - x}px, ${wy - y}px) scale(.35)`, opacity: 0 },
    ], ms, true, i * 30);
  }));
}

export { wait, hurry, fly, gather, still };
