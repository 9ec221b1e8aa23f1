// pyhearts web table: lobby and table, vanilla JS, no build step.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const RANKS = { T: "10" };
  const DIRS = { 1: "left", "-1": "right" };
  // Where the other seats sit around the table, by how many seats clockwise from you they are
  // (index k - 1), and where each seat's card lies in the trick (index k; 0 is you), as
  // fractions of the trick area's free width and height.
  const SEAT_POS = {
    3: ["left", "right"],
    4: ["left", "top", "right"],
    5: ["left", "tl", "tr", "right"],
    6: ["left", "tl", "top", "tr", "right"],
  };
  const POS_WORDS = { left: "on your left", right: "on your right", top: "across", tl: "across, left", tr: "across, right", bottom: "at the bottom" };
  const TRICK_AT = {
    3: [[0.5, 1], [0, 0.3], [1, 0.3]],
    4: [[0.5, 1], [0, 0.5], [0.5, 0], [1, 0.5]],
    5: [[0.5, 1], [0, 0.74], [0.18, 0], [0.82, 0], [1, 0.74]],
    6: [[0.5, 1], [0, 0.78], [0, 0], [0.5, 0], [1, 0], [1, 0.78]],
  };
  const seatPos = (n, k) => (SEAT_POS[n] || SEAT_POS[4])[k - 1] || "top";
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "css") for (const [p, x] of Object.entries(v)) e.style.setProperty(p, x);  // no inline style attribute (CSP)
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  };
  const cardName = (c) => (RANKS[c[0]] || c[0]) + SUITS[c[1]];
  const cardImg = (c) => el("img", { src: "/cards/" + c + ".svg", alt: cardName(c), draggable: "false" });
  let toastTimer = null;
  function toast(text) {
    const t = $("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 4000);
  }
  async function api(method, path, body) {
    const r = await fetch(path, { method, headers: { "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  }

  // ---------------------------------------------------------------- lobby
  // The rule options' form is made from their specs (GET /api/config: Rules.options()): each
  // option's label in words, its help and rule number as a hint, and a control by its kind.
  // ``players`` and ``target`` sit in the first row; the others under "Rule options".
  const HEADLINE = ["players", "target"];
  let config = null, specs = [];

  async function lobby() {
    $("lobby").hidden = false;
    document.title = "pyhearts — lobby";
    config = await api("GET", "/api/config");
    specs = config.options;
    const preset = $("preset");
    for (const name of Object.keys(config.presets)) preset.append(el("option", { value: name, text: readable(name) }));
    const values = config.presets[preset.value];
    const first = $("spectators-option");
    for (const spec of specs) {
      const control = optionControl(spec, values[spec.name]);
      if (HEADLINE.includes(spec.name)) first.before(control);
      else $("options").append(control);
    }
    preset.addEventListener("change", () => {  // the preset's values, but for the first row's
      const chosen = config.presets[preset.value];
      for (const spec of specs) if (!HEADLINE.includes(spec.name)) setOption(spec, chosen[spec.name]);
    });
    $("opt-players").addEventListener("input", fillSeats);
    // "List in lobby" follows the seats (on when one is open: it is taken from the lobby) until it is touched.
    $("listed").addEventListener("change", () => { $("listed").dataset.touched = "true"; });
    $("seats").addEventListener("change", followSeats);
    const timer = $("turn-timer"), standIn = $("stand-in");
    timer.max = config.max_turn_timer;
    for (const l of config.levels) standIn.append(el("option", { value: l, text: l, selected: l === config.stand_in }));
    const showStandIn = () => { $("stand-in-option").hidden = !(Number(timer.value) > 0); };
    timer.addEventListener("input", showStandIn);
    showStandIn();
    fillSeats();
    $("create-form").addEventListener("submit", createTable);
    $("refresh").addEventListener("click", listTables);
    listTables();
  }

  // Words for a value such as "add_to_others": "add to others".
  const readable = (value) => String(value).replace(/_/g, " ");

  function optionControl(spec, value) {
    const id = "opt-" + spec.name;
    const hint = spec.kind === "pass_cycle" ? spec.help + ": a comma list of " + spec.choices.join(", ") + "; empty for the usual rotation" : spec.help;
    const words = el("span", { class: "words" }, spec.label + " ", el("small", { class: "rule", text: spec.rule }));
    let input;
    if (spec.kind === "bool") input = el("input", { type: "checkbox", id });
    else if (spec.kind === "choice") {
      input = el("select", { id });
      for (const c of spec.choices) input.append(el("option", { value: c, text: readable(c) }));
    } else if (spec.kind === "int") input = el("input", { type: "number", id, min: spec.low, max: spec.high, step: 1, required: true });
    else input = el("input", { type: "text", id, placeholder: "usual rotation", spellcheck: "false" });
    input.dataset.option = spec.name;
    const label = el("label", { class: "option" + (spec.kind === "bool" ? " check" : ""), for: id, title: hint + " (RULES.md " + spec.rule + ")" },
      ...(spec.kind === "bool" ? [input, words] : [words, input]), el("small", { class: "hint", text: hint }));
    setOption(spec, value, input);
    return label;
  }

  function setOption(spec, value, input) {
    input = input || $("opt-" + spec.name);
    if (spec.kind === "bool") input.checked = value === true;
    else if (spec.kind === "pass_cycle") input.value = (value || []).join(", ");
    else input.value = String(value);
  }

  function optionValue(spec) {
    const input = $("opt-" + spec.name);
    if (spec.kind === "bool") return input.checked;
    if (spec.kind === "int") return Number(input.value);
    if (spec.kind === "choice") return input.value;
    const steps = input.value.split(",").map((x) => x.trim().toLowerCase()).filter(Boolean);
    return steps.length ? steps.map((x) => (/^\d+$/.test(x) ? Number(x) : x)) : null;
  }

  function fillSeats() {
    const players = specs.find((x) => x.name === "players");
    const n = Number($("opt-players").value);
    if (!Number.isInteger(n) || n < players.low || n > players.high) return;  // still being typed
    const box = $("seats");
    const old = [...box.querySelectorAll(".seat-row")].map((r) => ({
      kind: r.querySelector(".kind").value, name: r.querySelector(".name").value, level: r.querySelector(".level").value,
    }));
    box.textContent = "";
    for (let i = 0; i < n; i++) {
      const prev = old[i] || (i === 0 ? { kind: "human", name: "You", level: "medium" } : { kind: "bot", name: "", level: "medium" });
      const kind = el("select", { class: "kind", "aria-label": "seat " + (i + 1) + " kind" });
      for (const [v, t] of [["human", "person (invite link)"], ["open", "open seat (lobby)"], ["bot", "bot"]]) kind.append(el("option", { value: v, text: t, selected: prev.kind === v }));
      const level = el("select", { class: "level", "aria-label": "seat " + (i + 1) + " bot level" });
      for (const l of config.levels) level.append(el("option", { value: l, text: l, selected: prev.level === l }));
      const name = el("input", { class: "name", placeholder: "name", value: prev.name, maxlength: "40", "aria-label": "seat " + (i + 1) + " name" });
      const sync = () => { level.hidden = kind.value !== "bot"; name.hidden = kind.value === "open"; };
      kind.addEventListener("change", sync);
      sync();
      box.append(el("div", { class: "seat-row" }, el("span", { class: "label", text: i === 0 ? "Seat 1 (you)" : "Seat " + (i + 1) }), kind, name, level));
    }
    followSeats();
  }

  function followSeats() {
    const listed = $("listed");
    if (listed.dataset.touched) return;
    listed.checked = [...$("seats").querySelectorAll(".kind")].some((k) => k.value === "open");
  }

  async function createTable(ev) {
    ev.preventDefault();
    const options = {};  // what differs from the preset; the server checks it (RULES.md R-numbers)
    const preset = config.presets[$("preset").value];
    for (const spec of specs) {
      const v = optionValue(spec);
      if (JSON.stringify(v) !== JSON.stringify(preset[spec.name])) options[spec.name] = v;
    }
    const spectators = $("allow-spectators").checked, listed = $("listed").checked;
    const turn_timer = Number($("turn-timer").value), stand_in = $("stand-in").value;
    const seats = [...$("seats").querySelectorAll(".seat-row")].map((r) => {
      const kind = r.querySelector(".kind").value;
      return kind === "bot" ? { kind, level: r.querySelector(".level").value } : kind === "open" ? { kind } : { kind, name: r.querySelector(".name").value };
    });
    try {
      const t = await api("POST", "/api/tables", { preset: $("preset").value, options, seats, spectators, listed, turn_timer, stand_in });
      const list = el("ul", { class: "links" });
      let mine = null;
      for (const s of t.seats) {
        if (s.link) {
          if (mine === null) mine = s;
          list.append(el("li", {}, el("b", { text: (s.name || "Seat " + (s.seat + 1)) + ": " }), el("a", { href: s.link, class: "invite", "data-seat": s.seat, text: s.link })));
        }
      }
      const box = $("created");
      box.textContent = "";
      box.append(el("h3", { text: "Table " + t.id + " created — invite links (each is a seat's secret):" }), list);
      if (config.local_only) box.append(el("p", { class: "note", text: "These links work on this computer only: the server listens on " + config.public_url + ". To invite friends on other machines, start it with --host 0.0.0.0 (and --public-url, the address they reach it at)." }));
      if (mine) box.append(el("a", { href: mine.link, class: "primary-link", id: "sit", text: "Sit down as " + mine.name + " →" }));
      if (t.watch) box.append(el("p", {}, "Spectators' link (public, no seat): ", el("a", { href: t.watch, class: "watch-link", text: t.watch })));
      box.hidden = false;
      listTables();
    } catch (e) { toast(e.message); }
  }

  async function listTables() {
    try {
      const data = await api("GET", "/api/tables");
      const ul = $("open-tables");
      ul.textContent = "";
      if (!data.tables.length) ul.append(el("li", { text: "No open table yet." }));
      for (const t of data.tables) {
        const who = t.names.map((n, i) => (t.kinds[i] === "open" ? "(free)" : n)).join(", ");
        const li = el("li", { "data-table": t.id }, el("span", { text: t.id + " · " + who + " · round " + t.round + " · to " + t.target + (t.turn_timer ? " · " + t.turn_timer + " s a turn" : "") }));
        if (t.free.length) {
          const name = el("input", { placeholder: "your name", maxlength: "40", class: "join-name" });
          li.append(name, el("button", { type: "button", class: "small join", text: "Join seat " + (t.free[0] + 1), onclick: async () => {
            try {
              const j = await api("POST", "/api/tables/" + t.id + "/join", { seat: t.free[0], name: name.value });
              location.href = j.link;
            } catch (e) { toast(e.message); listTables(); }
          } }));
        }
        if (t.spectators_allowed) {
          li.append(el("a", { href: "/t/" + t.id + "#watch", class: "watch", text: "Watch" + (t.spectators ? " (" + t.spectators + " watching)" : "") }));
        }
        ul.append(li);
      }
    } catch (e) { toast(e.message); }
  }

  // ---------------------------------------------------------------- table
  // A spectator (``watching``: /t/ID#watch, no token) gets the public view only ("you": null,
  // no hand): every seat is drawn around the trick, seat 1 at the bottom, with card backs.
  let ws = null, tableId = null, token = null, watching = false, state = null, selected = new Set();
  let reviewing = false, retry = 0, lastResults = null, shownGameOver = false, focusIndex = 0;
  // The turn timer: when each seat's time runs out (performance.now() milliseconds), from the
  // seconds left that the last state gave; ticked down on the page every quarter second.
  let deadlines = {};

  function tableMain(id) {
    tableId = id;
    const frag = new URLSearchParams(location.hash.slice(1));
    token = frag.get("token");
    watching = !token && frag.has("watch");
    const key = "pyhearts:" + id;
    if (token) localStorage.setItem(key, token);
    else if (!watching) token = localStorage.getItem(key);
    $("table").hidden = false;
    $("pass-btn").addEventListener("click", sendPass);
    $("last-btn").addEventListener("click", () => { reviewing = !reviewing; render(); });
    $("scores-btn").addEventListener("click", () => { $("scores").hidden = !$("scores").hidden; });
    document.addEventListener("keydown", onKey);
    window.addEventListener("resize", balanceHand);
    setInterval(tick, 250);
    if (!token && !watching) { offerWatch(); return; }
    connect();
  }

  // No seat here: say so, and offer to watch if the table allows spectators.
  async function offerWatch() {
    const prompt = $("prompt");
    prompt.textContent = "You have no seat at this table: open your invite link, or join from the lobby.";
    try {
      const t = await api("GET", "/api/tables/" + tableId);
      if (!t.spectators_allowed) return;
      prompt.append(" ", el("button", { type: "button", id: "watch-btn", class: "small", text: "Watch this table", onclick: () => {
        watching = true;
        history.replaceState(null, "", "#watch");
        prompt.textContent = "";
        connect();
      } }));
    } catch (e) { prompt.textContent = e.message; }
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/ws/" + tableId);
    $("conn").textContent = "connecting…";
    ws.onopen = () => { retry = 0; ws.send(JSON.stringify(watching ? { type: "watch" } : { type: "hello", token })); };
    ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
    ws.onclose = (ev) => {
      $("conn").textContent = "disconnected" + (ev.reason ? " (" + ev.reason + ")" : "") + " — reconnecting…";
      document.body.dataset.connected = "false";
      setTimeout(connect, Math.min(5000, 300 * 2 ** retry++));
    };
  }

  function send(msg) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
    else toast("not connected; retrying…");
  }

  function onMessage(m) {
    if (m.type === "state") {
      if (state && m.seq < state.seq && m.reason !== "welcome") return;
      const before = state;
      state = m;
      deadlines = {};
      m.table.time_left.forEach((left, s) => { if (left !== null) deadlines[s] = performance.now() + left * 1000; });
      window.heartsState = m;
      if (m.event && m.reason === "event") {
        window.heartsLog = (window.heartsLog || []).slice(-300);
        window.heartsLog.push(m.event);
      }
      $("conn").textContent = m.you === null ? "watching (spectator)" : "connected as " + m.table.names[m.you];
      document.body.dataset.connected = "true";
      document.body.dataset.spectator = String(m.you === null);
      if (m.you === null) selected.clear();
      else if (!before || before.view.round_number !== m.view.round_number || !m.view.must_pass) selected = new Set([...selected].filter((c) => m.view.hand.includes(c)));
      if (!m.view.must_pass) selected.clear();
      if (before && m.reason !== "welcome" && before.table.results.length < m.table.results.length) showRoundSummary(m);
      render();
    } else if (m.type === "error") {
      toast(m.message);
      if (m.code === "bad_token") { $("prompt").textContent = "This link's token opens no seat here."; ws.onclose = null; ws.close(); }
      else if (["no_table", "no_spectators", "spectators_full"].includes(m.code)) {
        $("prompt").textContent = m.message;
        $("conn").textContent = "not connected";
        ws.onclose = null;
        ws.close();
      }
    } else if (m.type === "presence" && state) {
      state.table.online = m.online;
      state.table.names = m.names;
      state.table.spectators = m.spectators;
      state.table.away = m.away;
      render();
    }
  }

  const seatName = (s) => state.table.names[s] || "Seat " + (s + 1);
  const passWord = (off, n) => (off === 1 ? "left" : off === n - 1 ? "right" : "across");
  function passDirection(v) {
    if (state.you === null) {  // a spectator: this round's direction for everyone
      const off = state.table.pass_offset;
      return off ? "everyone " + passWord(off, v.players) : "hold (no pass)";
    }
    if (v.pass_to === null || v.pass_to === undefined) return "hold (no pass)";
    const off = (v.pass_to - v.seat + v.players) % v.players;
    return passWord(off, v.players) + " → " + seatName(v.pass_to);
  }

  function render() {
    if (!state) return;
    const v = state.view, t = state.table;
    const n = v.players;
    // ``me``: my seat, or null for a spectator; ``base``: the seat drawn at the bottom.
    const me = state.you, spectator = me === null, base = spectator ? 0 : me;
    const myTurn = !spectator && (v.must_pass || v.to_move === me);
    document.body.dataset.seq = state.seq;
    document.body.dataset.phase = v.phase;
    document.body.dataset.round = v.round_number;
    document.body.dataset.myturn = String(myTurn);
    document.title = (myTurn ? "● " : "") + "pyhearts — " + (spectator ? "watching table " : "table ") + t.id;
    // Info bar.
    const info = $("info");
    info.textContent = "";
    const item = (k, val) => info.append(el("span", {}, k + ": ", el("b", { text: val })));
    item("Round", String(v.round_number + 1));
    item("Pass", passDirection(v));
    item("Hearts", v.hearts_broken ? "broken" : "not broken");
    item("Turn", v.phase === "passing" ? "everyone passes" : v.to_move === null ? "—" : v.to_move === me ? "you" : seatName(v.to_move));
    item("Target", String(t.target));
    if (t.spectators) item("Watching", String(t.spectators));
    // The others around the table, clockwise from your left (R1: seat me+1 is on my left); a
    // spectator sees every seat, the first one at the bottom.
    $("table").dataset.players = n;
    $("table").dataset.spectator = String(spectator);
    const opp = $("opponents");
    opp.textContent = "";
    for (let k = spectator ? 0 : 1; k < n; k++) {
      const s = (base + k) % n;
      const pos = k === 0 ? "bottom" : seatPos(n, k);
      const backs = el("div", { class: "backs", "aria-hidden": "true" });
      for (let i = 0; i < Math.min(v.hand_sizes[s], 13); i++) backs.append(el("img", { src: "/cards/back.svg", alt: "" }));
      const online = t.online.includes(s);
      const away = t.away.includes(s) ? " · away: a bot plays" : "";
      const badge = (t.kinds[s] === "bot" ? "bot · " + t.bots[s] : t.kinds[s] === "open" ? "free seat" : online ? "online" : "offline") + away;
      const on = online || t.kinds[s] === "bot";
      const turn = v.to_move === s;
      opp.append(el("div", {
        class: "seat" + (turn ? " turn" : ""), "data-seat": s, "data-pos": pos,
        "aria-label": seatName(s) + ", " + POS_WORDS[pos] + (turn ? ", to play" : ""),
      },
        el("div", { class: "name", title: seatName(s), text: seatName(s) }),
        el("div", { class: "meta badge" }, el("span", { class: "dot" + (on ? " on" : ""), title: on ? "connected" : "not connected" }), badge),
        el("div", { class: "meta", "data-count": v.hand_sizes[s], text: v.hand_sizes[s] + (v.hand_sizes[s] === 1 ? " card" : " cards") }),
        el("div", { class: "meta pts", text: v.points_taken[s] + " pts · total " + t.totals[s] }),
        el("div", { class: "meta clock", "data-seat": s }),
        backs));
    }
    // The trick (or the last one, under review or just after it was won): each card at the
    // place of the seat that played it, mine at the bottom.
    const trick = $("trick");
    trick.textContent = "";
    let shown = v.trick, review = false;
    const last = t.last_trick;
    if ((reviewing || v.trick.plays.length === 0) && last && (reviewing || v.tricks.length > 0)) { shown = last; review = true; }
    trick.className = "trick" + (review ? " review" : "");
    shown.plays.forEach((p, i) => {
      const k = (p.seat - base + n) % n;
      const at = TRICK_AT[n][k];
      trick.append(el("figure", {
        class: (shown.winner === p.seat ? "win" : "") + (i === 0 ? " lead" : ""), "data-card": p.card, "data-seat": p.seat,
        css: { "--px": at[0], "--py": at[1], "z-index": i + 1 },
      }, cardImg(p.card), el("figcaption", { text: (p.seat === me ? "you" : seatName(p.seat)), title: seatName(p.seat) })));
    });
    const note = $("trick-note");
    note.textContent = "";
    if (review && shown.winner !== null) note.textContent = (reviewing ? "Last trick: " : "") + (shown.winner === me ? "you take it" : seatName(shown.winner) + " takes it") + (shown.points ? " (" + shown.points + " pts)" : "");
    else if (!shown.plays.length && v.phase === "playing" && v.to_move !== null) note.textContent = (v.to_move === me ? "You lead" : seatName(v.to_move) + " leads");
    $("last-btn").textContent = reviewing ? "Back to play (L)" : "Last trick (L)";
    // Prompt and buttons.
    const prompt = $("prompt");
    const pass = $("pass-btn");
    pass.hidden = !v.must_pass;
    if (v.game_over) prompt.textContent = "Game over.";
    else if (spectator) {
      prompt.textContent = "Watching — " + (v.phase === "passing" ? "the players are passing cards…"
        : v.phase === "moon_choice" ? seatName(v.to_move) + " shot the moon and chooses how it scores…"
        : v.to_move !== null ? seatName(v.to_move) + " to play." : "");
    } else if (v.must_pass) {
      prompt.textContent = "Choose " + v.pass_count + " cards to pass " + passDirection(v) + " (" + selected.size + "/" + v.pass_count + ")";
      pass.textContent = "Pass " + v.pass_count + " cards";
      pass.disabled = selected.size !== v.pass_count;
    } else if (v.phase === "passing") prompt.textContent = "Waiting for the others to pass…";
    else if (v.moon_choice_pending) prompt.textContent = "You shot the moon!";
    else if (v.to_move === v.seat) prompt.textContent = "Your turn: play a highlighted card.";
    else if (v.to_move !== null) prompt.textContent = "Waiting for " + seatName(v.to_move) + "…";
    else prompt.textContent = "";
    if (!spectator && t.away.includes(me) && !v.game_over) {
      prompt.textContent = "A bot plays for you (your time ran out). ";
      prompt.append(el("button", { type: "button", id: "back-btn", class: "small primary", text: "I'm back: let me play", onclick: () => send({ type: "back" }) }));
    }
    // Me, at the bottom of the table, and my hand (a spectator has neither).
    $("me").hidden = spectator;
    $("hand").hidden = spectator;
    if (spectator) {
      $("me").textContent = "";
      $("hand").textContent = "";
    } else renderMine(v, t, n);
    renderScores();
    tick();
    if (v.moon_choice_pending) showMoon();
    else if ($("dialog").dataset.kind === "moon") closeDialog();
    if (v.game_over && !shownGameOver) { shownGameOver = true; showGameOver(); }
  }

  // Each seat's clock: the seconds it has left to act, while the turn timer runs for it.
  function tick() {
    if (!state) return;
    for (const c of document.querySelectorAll(".clock")) {
      const end = deadlines[c.dataset.seat];
      const left = end === undefined ? null : Math.max(0, Math.ceil((end - performance.now()) / 1000));
      c.textContent = left === null ? "" : left + " s left";
      c.classList.toggle("low", left !== null && left <= 5);
    }
  }

  function renderMine(v, t, n) {
    const meBox = $("me");
    meBox.className = "me" + (v.to_move === v.seat || v.must_pass ? " turn" : "");
    meBox.textContent = "";
    meBox.append(el("span", { class: "name", text: "You (" + seatName(v.seat) + ")" }),
      el("span", { class: "meta", text: v.points_taken[v.seat] + " pts this round · total " + t.totals[v.seat] }),
      el("span", { class: "meta clock", "data-seat": v.seat }));
    if (v.received && v.tricks.length === 0 && v.trick.plays.length < n) meBox.append(el("span", { class: "meta", text: "received " + v.received.map(cardName).join(" ") }));
    // Hand.
    const hand = $("hand");
    hand.textContent = "";
    const legal = new Set(v.legal);
    const received = new Set(v.tricks.length === 0 ? v.received || [] : []);
    v.hand.forEach((c, i) => {
      const playable = v.must_pass || legal.has(c);
      const b = el("button", {
        type: "button", class: "card" + (playable ? " legal" : " dim") + (selected.has(c) ? " selected" : "") + (received.has(c) ? " new" : ""),
        "data-card": c, "aria-label": cardName(c), "aria-selected": String(selected.has(c)), disabled: !playable, tabindex: playable ? "0" : "-1",
        onclick: () => onCard(c),
        onfocus: () => { focusIndex = i; },
      }, cardImg(c));
      hand.append(b);
    });
    balanceHand();
  }

  // A hand too wide for one row is split into rows of (nearly) equal length.
  function balanceHand() {
    const hand = $("hand");
    for (const b of hand.querySelectorAll(".hand-break")) b.remove();
    const cards = [...hand.querySelectorAll(".card")];
    if (cards.length < 2) return;
    const w = cards[0].offsetWidth, step = w + parseFloat(getComputedStyle(cards[0]).marginRight);
    const style = getComputedStyle(hand);
    const avail = hand.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 4;
    const perRow = Math.max(1, Math.floor((avail - w) / step) + 1);
    if (perRow >= cards.length) return;
    const per = Math.ceil(cards.length / Math.ceil(cards.length / perRow));
    for (let i = per; i < cards.length; i += per) cards[i].before(el("div", { class: "hand-break", "aria-hidden": "true" }));
  }

  function renderScores() {
    const t = state.table, n = state.view.players;
    const box = $("scores");
    box.textContent = "";
    box.append(scoreTable(t, n));
  }

  function scoreTable(t, n) {
    const head = el("tr", {}, el("th", { text: "Round" }));
    for (let s = 0; s < n; s++) head.append(el("th", { text: seatName(s) }));
    const table = el("table", {}, head);
    t.score_history.forEach((row, i) => {
      const tr = el("tr", {}, el("td", { text: String(i + 1) }));
      row.forEach((x, s) => tr.append(el("td", { text: x + " (+" + t.results[i].scores[s] + ")" })));
      table.append(tr);
    });
    return table;
  }

  function onCard(c) {
    const v = state.view;
    if (state.you === null) return;
    if (v.must_pass) {
      if (selected.has(c)) selected.delete(c);
      else if (selected.size < v.pass_count) selected.add(c);
      else toast("You pass " + v.pass_count + " cards; unselect one first.");
      render();
      focusCard(c);
    } else if (v.to_move === v.seat && v.legal.includes(c)) {
      send({ type: "play", seq: state.seq, card: c });
    }
  }

  function focusCard(c) {
    const b = $("hand").querySelector('[data-card="' + c + '"]');
    if (b) b.focus();
  }

  function sendPass() {
    const v = state.view;
    if (state.you === null || selected.size !== v.pass_count) return;
    send({ type: "pass", seq: state.seq, cards: [...selected] });
  }

  function onKey(e) {
    if (!state || e.target.tagName === "INPUT") return;
    const buttons = [...$("hand").querySelectorAll(".card:not([disabled])")];
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      if (!buttons.length) return;
      const cur = buttons.indexOf(document.activeElement);
      const next = cur < 0 ? 0 : (cur + (e.key === "ArrowRight" ? 1 : -1) + buttons.length) % buttons.length;
      buttons[next].focus();
      e.preventDefault();
    } else if (e.key === "l" || e.key === "L") { reviewing = !reviewing; render(); }
    else if (e.key === "s" || e.key === "S") { $("scores").hidden = !$("scores").hidden; }
    else if ((e.key === "p" || e.key === "P") && state.view.must_pass) sendPass();
    else if (e.key === "Escape") closeDialog();
  }

  function showDialog(kind, ...content) {
    const d = $("dialog");
    d.textContent = "";
    d.dataset.kind = kind;
    d.append(...content);
    $("overlay").hidden = false;
    const b = d.querySelector("button");
    if (b) b.focus();
  }
  function closeDialog() { $("overlay").hidden = true; $("dialog").dataset.kind = ""; }

  function showMoon() {
    if ($("dialog").dataset.kind === "moon") return;
    const others = state.view.players - 1;
    showDialog("moon", el("h2", { text: "You shot the moon!" }), el("p", { text: "Choose how it scores:" }),
      el("div", { class: "buttons" },
        el("button", { type: "button", class: "primary", id: "moon-add", text: "+26 to each of the " + others + " others", onclick: () => { send({ type: "moon", seq: state.seq, choice: "add" }); closeDialog(); } }),
        el("button", { type: "button", id: "moon-subtract", text: "−26 from my score", onclick: () => { send({ type: "moon", seq: state.seq, choice: "subtract" }); closeDialog(); } })));
  }

  function showRoundSummary(m) {
    if (m.view.game_over) return;
    const t = m.table, r = t.results[t.results.length - 1], n = m.view.players;
    const table = el("table", {}, el("tr", {}, el("th", { text: "" }), el("th", { text: "points" }), el("th", { text: "score" }), el("th", { text: "total" })));
    for (let s = 0; s < n; s++) table.append(el("tr", {}, el("td", { text: seatName(s) + (s === m.you ? " (you)" : "") }), el("td", { text: String(r.points[s]) }), el("td", { text: String(r.scores[s]) }), el("td", { text: String(t.totals[s]) })));
    const moon = r.shooter !== null ? el("p", { text: seatName(r.shooter) + " shot the moon!" }) : null;
    showDialog("summary", el("h2", { text: "Round " + t.results.length + " over" }), moon, table,
      el("div", { class: "buttons" }, el("button", { type: "button", class: "primary", id: "summary-ok", text: "Next round", onclick: closeDialog })));
  }

  function showGameOver() {
    const t = state.table, n = state.view.players;
    const names = (t.winners || []).map(seatName).join(" and ");
    showDialog("gameover", el("h2", { text: "Game over — " + names + (t.winners && t.winners.length > 1 ? " share the win" : " wins") }),
      el("h3", { text: "Score history" }), scoreTable(t, n),
      el("div", { class: "buttons" }, el("a", { href: "/", text: "Back to the lobby" }), el("button", { type: "button", class: "primary", id: "gameover-ok", text: "Close", onclick: closeDialog })));
  }

  const m = location.pathname.match(/^\/t\/([A-Za-z0-9_-]+)/);
  if (m) tableMain(m[1]);
  else lobby();
})();
