// The table page: one websocket (docs/room.md), the view of one seat, and the interactions of
// the original game: left click selects, right click discards the selection (or sorts the hand
// when nothing is selected), a countdown on every decision (right click on it passes a claim).
"use strict";
(function (XZ) {
  const $ = (id) => document.getElementById(id);
  const tableId = decodeURIComponent(location.pathname.split("/").pop());
  const TOKEN_KEY = "xuezhan.token." + tableId;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

  let ws = null;
  let mySeat = null;
  let bots = [];
  let table = null;
  let st = null; // last state message
  let events = []; // public views of this hand's events for the seat seen
  let order = []; // the hand in display order (sorting is the player's business)
  let orderKey = "";
  let sel = -1; // index into order
  const xsel = new Set(); // exchange choice (indices)
  let clock = null;
  let shownSettle = -1;
  let lastTick = -1;

  function send(obj) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj));
  }
  function say(text, isError) {
    const m = $("message");
    m.textContent = text || "";
    m.classList.toggle("error", !!isError);
    if (isError) XZ.sound.play("error");
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(tableId)}`);
    ws.onopen = () => {
      const token = localStorage.getItem(TOKEN_KEY);
      if (token) send({ type: "resume", token });
    };
    ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
    ws.onclose = () => {
      say("Connection lost; reconnecting…", true);
      setTimeout(connect, 1000);
    };
  }

  function onMessage(m) {
    if (m.type === "welcome") {
      bots = m.bots;
      if (m.seat !== null && m.seat !== undefined) {
        mySeat = m.seat;
        localStorage.setItem(TOKEN_KEY, m.token);
        say(`You sit in seat ${m.seat}.`);
        if (table) renderTable();
      }
    } else if (m.type === "error") {
      if (m.message.includes("token")) localStorage.removeItem(TOKEN_KEY);
      say(m.message, true);
    } else if (m.type === "table") {
      table = m;
      renderTable();
    } else if (m.type === "state") {
      onState(m);
    }
    document.body.dataset.ready = "1";
  }

  // ------------------------------------------------------------------ state
  function onState(m) {
    if (m.reset) events = [];
    const fresh = m.events;
    events.push(...fresh);
    for (const e of fresh) {
      if (e.type === "discard") XZ.sound.play("discard");
      else if (e.type === "draw" && e.tile) XZ.sound.play("draw");
      else if (e.type === "meld" || e.type === "angang") XZ.sound.play("claim");
      else if (e.type === "win") XZ.sound.play("win");
    }
    st = m;
    clock = m.clock ? { ...m.clock, deadline: performance.now() + m.clock.remaining_ms } : null;
    reconcileHand();
    render();
    if (m.over && shownSettle !== m.hand_no) {
      shownSettle = m.hand_no;
      showSettlement();
    }
  }

  function handTiles() {
    const v = st && st.view;
    return v ? XZ.splitTiles(v.hand) : [];
  }

  // Keep the player's own order: tiles that stay keep their place, new ones go to the right
  // (the drawn tile last). A new hand starts sorted.
  function reconcileHand() {
    if (!st.view) { order = []; sel = -1; return; }
    const tiles = handTiles();
    const key = `${st.hand_no}:${st.seat}`;
    if (key !== orderKey) {
      orderKey = key;
      order = XZ.sortTiles(tiles);
      sel = -1;
      xsel.clear();
      return;
    }
    const pool = {};
    for (const t of tiles) pool[t] = (pool[t] || 0) + 1;
    const selTile = sel >= 0 ? order[sel] : null;
    const kept = [];
    for (const t of order) if (pool[t] > 0) { kept.push(t); pool[t]--; }
    const drawn = st.view.drawn;
    let extra = [];
    for (const t in pool) for (let i = 0; i < pool[t]; i++) extra.push(t);
    extra = XZ.sortTiles(extra);
    if (drawn && extra.includes(drawn)) { extra.splice(extra.indexOf(drawn), 1); extra.push(drawn); }
    const changed = kept.length !== order.length || extra.length;
    order = kept.concat(extra);
    if (changed) {
      xsel.clear();
      sel = selTile && order[sel] === selTile ? sel : -1;
      if (selTile && sel < 0) selectIndex(-1);
    }
  }

  function myDecision() {
    if (!st || st.role !== "player" || !st.view || st.over) return null;
    if (st.view.phase === "exchange" && clock && clock.seat === st.seat) return "exchange";
    if (!st.legal.length) return null;
    return st.view.phase;
  }

  function selectIndex(i) {
    sel = i;
    if (st && st.role === "player") send({ type: "select", tile: i >= 0 ? order[i] : null });
  }

  function discardSelected() {
    if (sel < 0) return false;
    const t = order[sel];
    if (myDecision() === "turn" && st.legal.includes(`discard ${t}`)) {
      send({ type: "act", action: `discard ${t}` });
      sel = -1;
      render();
    } else if (myDecision() === "turn") {
      say(`You may not discard ${t} now` + (st.view.voids[st.seat] ? " (void suit first, R11.2)" : ""), true);
    }
    return true;
  }

  function sortHand() {
    order = XZ.sortTiles(order);
    sel = -1;
    xsel.clear();
    render();
  }

  // ------------------------------------------------------------------ rendering
  function seatName(s) {
    const info = table && table.seats[s];
    if (!info || info.kind === "empty") return `Seat ${s}`;
    return info.kind === "bot" ? `${info.name} (bot)` : info.name;
  }

  function renderTable() {
    $("table-name").textContent = table.name;
    document.title = `xuezhan — ${table.name}`;
    $("match-info").textContent = `${table.preset} · hand ${Math.min(table.hand_no + (table.status === "playing" ? 1 : 0), table.hands)}/${table.hands} · ${table.spectators} watching`;
    $("seating").hidden = table.status === "playing";
    renderSeating();
    render();
  }

  function renderSeating() {
    const box = $("seat-slots");
    const parts = [];
    for (const info of table.seats) {
      const s = info.seat;
      let body;
      if (info.kind === "empty") {
        body = mySeat === null
          ? `<input class="name" placeholder="your name" maxlength="24" value="${esc(localStorage.getItem("xuezhan.name") || "")}"><button data-sit="${s}">Sit here</button>`
          : "<em>empty</em>";
        body += ` <select class="bot">${bots.map((b) => `<option>${esc(b)}</option>`).join("")}</select><button data-bot="${s}">Seat bot</button>`;
      } else if (info.kind === "bot") {
        body = `${esc(info.name)} (bot) <button data-stand="${s}">Remove</button>`;
      } else {
        body = `${esc(info.name)} ${info.started ? "✓ started" : "· not started"}${info.connected ? "" : " · gone"}`;
        if (s === mySeat) body += ` <button data-stand="${s}">Leave seat</button>`;
      }
      parts.push(`<div class="slot" data-slot="${s}"><b>Seat ${s}</b> ${body}</div>`);
    }
    if (mySeat !== null && !table.seats[mySeat].started) parts.push(`<button id="start-btn" class="big">Start</button>`);
    box.innerHTML = parts.join("");
  }

  function viewSeat() {
    return st ? st.seat : mySeat !== null ? mySeat : 0;
  }

  function winOf(s) {
    return events.find((e) => e.type === "win" && e.seat === s);
  }

  function render() {
    if (!table) return;
    const vs = viewSeat();
    const style = XZ.settings.get().tiles;
    const v = st && st.view;
    const voids = v ? v.voids : [null, null, null, null];
    for (let s = 0; s < 4; s++) {
      const pos = (s - vs + 4) % 4;
      const el = document.querySelector(`.seat[data-pos="${pos}"]`);
      const info = table.seats[s];
      // match totals before this hand plus this hand so far (the view has both)
      const score = v ? v.scores[s] + v.deltas[s] : table.scores[s];
      const delta = v ? v.deltas[s] : 0;
      const w = winOf(s);
      let status = "";
      if (w) status = `<span class="won">和 ${w.fan} fan on ${esc(w.tile)}${w.from === null ? " (自摸)" : ` from seat ${w.from}`}</span>`;
      else if (v && v.escaped[s]) status = `<span class="escaped">escaped</span>`;
      const turn = clock && clock.seat === s ? " turn" : "";
      let melds = "";
      if (v) {
        for (const [kind, t] of v.melds[s]) {
          const n = kind === 0 ? 3 : 4;
          let tiles = "";
          for (let i = 0; i < n; i++) tiles += XZ.tileSVG(t, style, "small");
          melds += `<span class="meld${kind === 2 ? " concealed" : ""}" title="${["pung", "kong", "concealed kong"][kind]}">${tiles}</span>`;
        }
      }
      let river = "";
      if (v) for (const t of XZ.splitTiles(v.discards[s])) river += XZ.tileSVG(t, style, "small");
      let backs = "";
      if (v && s !== vs && !w && !v.escaped[s]) {
        const n = 13 - 3 * v.melds[s].length + (clock && clock.seat === s && clock.kind === "turn" ? 1 : 0);
        for (let i = 0; i < n; i++) backs += XZ.tileSVG(null, style, "tiny");
      }
      el.className = `seat pos-${["bottom", "right", "top", "left"][pos]}${turn}${s === vs ? " seen" : ""}`;
      el.innerHTML = `<div class="who" data-seat="${s}" title="${st && st.role === "spectator" ? "Watch this player" : ""}">
          <span class="nm">${esc(seatName(s))}</span>${v && v.dealer === s ? ' <span class="dealer">庄</span>' : ""}
          ${voids[s] ? `<span class="void">缺${XZ.suitName(voids[s])}</span>` : ""}
          <span class="score">${score}</span>${delta ? `<span class="delta">(${delta > 0 ? "+" : ""}${delta})</span>` : ""}
          ${info.kind === "person" && !info.connected ? '<span class="gone">gone</span>' : ""}${status}</div>
        <div class="melds">${melds}</div><div class="backs">${backs}</div><div class="river">${river}</div>`;
    }
    $("wall").textContent = v ? `Wall: ${v.wall_count}${v.last_tiles ? " · last tiles" : ""}` : "Wall: –";
    const turnText = !v ? (table.status === "over" ? "The match is over" : "Waiting for players")
      : st.over ? "The hand is over" : clock ? `${seatName(clock.seat)}: ${clock.kind}` : "…";
    $("turn").textContent = turnText;
    $("claim-tile").innerHTML = v && v.claim_tile ? `Claim on ${XZ.tileSVG(v.claim_tile, style, "small")} from ${esc(seatName(v.claim_from))}` : "";
    $("role").textContent = st ? (st.role === "player" ? `You: seat ${st.seat}` : `Watching seat ${st.seat}`) : mySeat === null ? "Spectator" : "";
    renderHand(style);
    renderActions();
    renderLog();
  }

  function renderHand(style) {
    const v = st && st.view;
    const hand = $("hand");
    if (!v) { hand.innerHTML = ""; return; }
    const drawn = v.drawn;
    hand.innerHTML = order.map((t, i) => {
      const cls = ["htile"];
      if (i === sel || xsel.has(i)) cls.push("selected");
      if (drawn && i === order.length - 1 && t === drawn) cls.push("drawn");
      return `<span class="${cls.join(" ")}" data-i="${i}" data-tile="${t}">${XZ.tileSVG(t, style)}</span>`;
    }).join("");
    hand.classList.toggle("mine", st.role === "player");
  }

  function renderActions() {
    const box = $("actions");
    const d = myDecision();
    const b = [];
    if (d === "turn") {
      const can = sel >= 0 && st.legal.includes(`discard ${order[sel]}`);
      b.push(`<button data-act="discard" ${can ? "" : "disabled"} id="discard-btn">Discard</button>`);
      if (st.legal.includes("hu")) b.push(`<button data-act="hu" class="hu">Hu 和</button>`);
      for (const a of st.legal) if (a.startsWith("angang") || a.startsWith("jiagang")) b.push(`<button data-act="${a}">Kong ${a.split(" ")[1]}</button>`);
    } else if (d === "claim") {
      const names = { hu: "Hu 和", gang: "Kong 杠", peng: "Peng 碰", pass: "Pass 过" };
      for (const a of ["hu", "gang", "peng", "pass"]) if (st.legal.includes(a)) b.push(`<button data-act="${a}" class="${a}">${names[a]}</button>`);
    } else if (d === "exchange") {
      b.push(`<button data-act="exchange" ${xsel.size === 3 ? "" : "disabled"}>Exchange these 3 (换三张)</button>`);
    } else if (d === "void") {
      for (const a of st.legal) b.push(`<button data-act="${a}">Void 缺${XZ.suitName(a.split(" ")[1])}</button>`);
    }
    if (st && st.over && mySeat !== null && table && !table.seats[mySeat].started && table.status !== "playing") {
      b.push(`<button id="next-btn" data-start="1" class="big">Start next hand</button>`);
    }
    box.innerHTML = b.join("");
  }

  function describe(e) {
    const s = e.seat;
    switch (e.type) {
      case "start": return `Hand starts; seat ${e.dealer} deals`;
      case "draw": return `seat ${s} draws ${e.tile || ""}`;
      case "discard": return `seat ${s} discards ${e.tile}${e.default || e.note === "timeout" ? " (timeout)" : ""}`;
      case "meld": return `seat ${s}: ${e.meld} ${e.tile}`;
      case "angang": return `seat ${s}: concealed kong ${e.tile}`;
      case "jiagang": return `seat ${s}: adds ${e.tile} to its pung`;
      case "win": return `seat ${s} wins on ${e.tile}: ${e.fan} fan`;
      case "pay": return `seat ${e.from} pays ${e.to === null ? "the penalty" : "seat " + e.to} ${e.amount} (${e.rule})`;
      case "peng": case "gang": case "hu": case "pass": return `seat ${s}: ${e.type}`;
      case "exchange": return `seat ${s} exchanges ${e.tiles || "three tiles"}`;
      case "received": return `seat ${s} receives ${e.tiles || "three tiles"}`;
      case "voids": return `voids: ${e.voids.join(" ")}`;
      case "end": return `the hand is over (${e.reason})`;
      default: return e.type + (s !== undefined ? ` seat ${s}` : "");
    }
  }

  function renderLog() {
    const items = events.filter((e) => e.type !== "pass").slice(-40).map((e) => `<li>${esc(describe(e))}</li>`);
    $("log").innerHTML = items.join("");
  }

  function showSettlement() {
    $("settle-title").textContent = `Hand ${st.hand_no + 1} is over`;
    $("settle-lines").innerHTML = st.settlement.map((l) => `<li>${esc(l)}</li>`).join("");
    const v = st.view;
    $("settle-scores").textContent = `Scores: ${v.scores.map((x, i) => `${seatName(i)} ${x + v.deltas[i]}`).join(" · ")}`;
    $("settle-start").hidden = mySeat === null || table.status === "over";
    const replay = $("settle-replay");
    replay.hidden = !st.replay_id;
    if (st.replay_id) replay.href = `/replay?log=${encodeURIComponent(st.replay_id)}`;
    const dlg = $("settlement");
    if (!dlg.open) dlg.showModal();
  }

  // ------------------------------------------------------------------ the clock (server-owned)
  setInterval(() => {
    const el = $("clock");
    if (!clock || (st && st.over)) { el.hidden = true; return; }
    el.hidden = false;
    const left = Math.max(0, clock.deadline - performance.now());
    const secs = Math.ceil(left / 1000);
    $("clock-s").textContent = secs;
    $("clock-bar").style.width = `${(100 * left) / Math.max(1, clock.total_ms)}%`;
    el.classList.toggle("mine", st && st.role === "player" && clock.seat === st.seat);
    if (myDecision() && secs <= 3 && secs !== lastTick) { lastTick = secs; XZ.sound.play("tick"); }
  }, 100);

  // ------------------------------------------------------------------ input
  $("hand").addEventListener("click", (ev) => {
    const t = ev.target.closest(".htile");
    if (!t || !st || st.role !== "player") return;
    const i = +t.dataset.i;
    if (myDecision() === "exchange") {
      if (xsel.has(i)) xsel.delete(i);
      else if (xsel.size < 3) xsel.add(i);
    } else {
      selectIndex(sel === i ? -1 : i);
    }
    render();
  });
  document.addEventListener("contextmenu", (ev) => {
    if (ev.target.closest("dialog, input, select, header")) return;
    ev.preventDefault();
    if (!st || st.role !== "player") return;
    if (ev.target.closest("#clock")) {
      if (myDecision() === "claim") send({ type: "act", action: "pass" });
      return;
    }
    if (!discardSelected()) sortHand();
  });
  $("actions").addEventListener("click", (ev) => {
    const btn = ev.target.closest("button");
    if (!btn) return;
    if (btn.dataset.start) { send({ type: "start" }); return; }
    const a = btn.dataset.act;
    if (a === "discard") discardSelected();
    else if (a === "exchange") {
      const ts = [...xsel].map((i) => order[i]);
      send({ type: "act", action: `exchange ${ts.join("")}` });
      xsel.clear();
    } else if (a) send({ type: "act", action: a });
  });
  $("seating").addEventListener("click", (ev) => {
    const btn = ev.target.closest("button");
    if (!btn) return;
    const slot = btn.closest(".slot");
    if (btn.id === "start-btn") send({ type: "start" });
    else if (btn.dataset.sit !== undefined) {
      const name = slot.querySelector("input.name").value.trim() || "Player";
      localStorage.setItem("xuezhan.name", name);
      send({ type: "sit", seat: +btn.dataset.sit, name });
    } else if (btn.dataset.bot !== undefined) send({ type: "bot", seat: +btn.dataset.bot, strategy: slot.querySelector("select.bot").value });
    else if (btn.dataset.stand !== undefined) {
      if (+btn.dataset.stand === mySeat) { mySeat = null; localStorage.removeItem(TOKEN_KEY); }
      send({ type: "stand", seat: +btn.dataset.stand });
    }
  });
  $("board").addEventListener("click", (ev) => {
    const who = ev.target.closest(".who");
    if (who && mySeat === null) send({ type: "watch", seat: +who.dataset.seat });
  });
  $("settlement").addEventListener("close", () => {
    if ($("settlement").returnValue === "start") send({ type: "start" });
    render();
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { selectIndex(-1); render(); }
  });

  XZ.settings.init();
  XZ.settings.onChange(() => render());
  // Debug hook for tests and curious players: the current order of the hand.
  XZ.handOrder = () => order.slice();
  connect();
})(window.XZ);
