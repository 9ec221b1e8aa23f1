// pyhearts web table: the small helpers every page script shares, loaded first (pyhearts.ui).
//
//   const { $, el, cardName, cardImg, call } = pyhearts.ui;
//   el("button", { class: "small", text: "Go", onclick: go })   // an element; text is textContent
//   await call("POST", "/api/tables", { seats })                 // JSON in and out, as the profile
"use strict";
(function (ns) {
  const $ = (id) => document.getElementById(id);
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const RANKS = { T: "10" };
  // An element: attributes, "class", "text" (textContent: never markup), "css" (style
  // properties; no inline style attribute, for the CSP), "on…" listeners; then its children.
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "css") for (const [p, x] of Object.entries(v)) e.style.setProperty(p, x);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  };
  const cardName = (c) => (RANKS[c[0]] || c[0]) + SUITS[c[1]];
  const cardImg = (c) => el("img", { src: "/cards/" + c + ".svg", alt: cardName(c), draggable: "false" });

  // A JSON request, made as this browser's player profile if it has one (player.js:
  // Authorization: Bearer <key>; ``headers`` add to or replace it). A refusal is an Error with
  // the server's message and the HTTP status.
  async function call(method, path, body, headers) {
    const auth = ns.player ? ns.player.auth() : {};
    const r = await fetch(path, { method, headers: { "Content-Type": "application/json", ...auth, ...(headers || {}) }, body: body ? JSON.stringify(body) : undefined });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), { status: r.status });
    return data;
  }

  ns.ui = { $, el, SUITS, RANKS, cardName, cardImg, call };
})(window.pyhearts = window.pyhearts || {});
