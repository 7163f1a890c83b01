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
  let botLabels = {}; // name -> what the bot is, in a few words (from the welcome)
  let table = null;
  let st = null; // last state message
  let events = []; // public views of this hand's events for the seat seen
  let order = []; // the hand in display order (sorting is the player's business)
  let orderKey = "";
  let sel = -1; // index into order
  const xsel = new Set(); // exchange choice (indices)
  let clock = null;
  let lastTick = -1;
  // What just happened, for the animations of one render only (then cleared): the seats that
  // discarded, drew, claimed (a meld) or won in the newest state message.
  let anim = { discard: new Set(), draw: new Set(), meld: new Set(), win: new Set() };
  let logTouched = false; // the reader scrolled the event list away from its end

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
      const host = localStorage.getItem(XZ.fair.hostKey(tableId));
      if (host) send({ type: "host", token: host });
    };
    ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
    ws.onclose = (ev) => {
      if (ev.code === 4404) { // the server has no such table: say so, do not retry forever
        say("No such table on this server (it may have closed: idle tables expire): open one in the lobby.", true);
        $("turn").textContent = "No such table";
        return;
      }
      say("Connection lost; reconnecting…", true);
      setTimeout(connect, 1000);
    };
  }

  function onMessage(m) {
    if (m.type === "welcome") {
      bots = m.bots;
      botLabels = m.bot_labels || {};
      if (m.seat !== null && m.seat !== undefined) {
        mySeat = m.seat;
        if (m.token) localStorage.setItem(TOKEN_KEY, m.token);
        send({ type: "show_hand", allow: !!XZ.settings.get().showHand }); // 允许旁观看牌
        say(`You sit in seat ${m.seat}: the seat at the bottom of the table.`);
        if (table) renderTable();
      } else if (mySeat !== null) { // the seat moved to another tab, or was freed: we only watch
        mySeat = null;
        if (table) renderTable();
      }
    } else if (m.type === "error") {
      if (m.message.includes("host token")) localStorage.removeItem(XZ.fair.hostKey(tableId));
      else if (m.message.includes("token")) localStorage.removeItem(TOKEN_KEY);
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
    XZ.fair.onState(m);
    if (m.reset) events = [];
    const fresh = m.events;
    events.push(...fresh);
    for (const e of fresh) {
      if (e.type === "discard") XZ.sound.play("discard");
      else if (e.type === "draw" && e.tile) XZ.sound.play("draw");
      else if (e.type === "meld" || e.type === "angang") XZ.sound.play("claim");
      else if (e.type === "win") XZ.sound.play("win");
    }
    // a reset (a new hand, another seat watched, a reconnection) animates nothing
    if (!m.reset) {
      for (const e of fresh) {
        if (e.type === "discard") anim.discard.add(e.seat);
        else if (e.type === "draw") anim.draw.add(e.seat);
        else if (e.type === "meld" || e.type === "angang") anim.meld.add(e.seat);
        else if (e.type === "win") anim.win.add(e.seat);
      }
    }
    st = m;
    clock = m.clock ? { ...m.clock, deadline: performance.now() + m.clock.remaining_ms } : null;
    reconcileHand();
    if (table) renderSeating();
    render();
  }

  function handTiles() {
    const v = st && st.view;
    if (!v) return [];
    if (st.hidden) { // a private seat's tiles come only with the reveal at the end
      const r = st.over && st.reveal && st.reveal[st.seat];
      return r ? XZ.splitTiles(r.hand) : [];
    }
    return XZ.splitTiles(v.hand);
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
  const WIND = "东南西北";
  const WIND_EN = ["East", "South", "West", "North"];
  const POS = ["bottom", "right", "top", "left"];
  const MELD_NAME = ["pung", "kong", "concealed kong"];

  // Assign only when the markup changed: the DOM (and any animation in it) stays as it is
  // when an update did not touch that part of the table.
  function setHTML(el, html) {
    if (el.__html !== html) { el.innerHTML = html; el.__html = html; }
  }

  // What the table calls a seat: the hand's names from the server (two bots of one kind told
  // apart by their wind), else the seat's name.
  function seatName(s) {
    if (st && st.names && st.names.length === 4 && st.view) return st.names[s];
    const info = table && table.seats[s];
    if (!info || info.kind === "empty") return `Seat ${s}`;
    return info.name;
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
    const parts = [];
    for (const info of table.seats) {
      const s = info.seat;
      let body;
      if (info.kind === "empty") {
        body = mySeat === null
          ? `<input class="name" placeholder="your name" maxlength="24" value="${esc(localStorage.getItem("xuezhan.name") || "")}"><button data-sit="${s}">Sit here</button>`
          : "<em>empty</em>";
        body += ` <select class="bot">${bots.map((b) => `<option value="${esc(b)}">${esc(botLabels[b] || b)}</option>`).join("")}</select><button data-bot="${s}">Seat bot</button>`;
      } else if (info.kind === "bot") {
        body = `${esc(info.name)} (bot) <button data-stand="${s}">Remove</button>`;
      } else {
        body = `${esc(info.name)} ${info.started ? "✓ started" : "· not started"}${info.connected ? "" : " · gone"}`;
        if (s === mySeat) body += ` <button data-stand="${s}">Leave seat</button>`;
      }
      parts.push(`<div class="slot" data-slot="${s}"><b>Seat ${s}</b> ${body}</div>`);
    }
    // The first Start of a match is here; between hands the one "Start next hand" button is in
    // the end-of-hand panel.
    if (mySeat !== null && !table.seats[mySeat].started && !(st && st.over)) parts.push(`<button id="start-btn" class="big">Start</button>`);
    setHTML($("seat-slots"), parts.join(""));
  }

  function viewSeat() {
    return st ? st.seat : mySeat !== null ? mySeat : 0;
  }

  function winOf(s) {
    return events.find((e) => e.type === "win" && e.seat === s);
  }

  // 血流成河 (R14): the seat has won and stays in the hand, its hand locked (R14.2).
  function lockedSeat(s) {
    return !!(st && st.locked && st.locked[s]);
  }

  // A locked seat's wins in front of it: each win's tile in order (public: the view's wins),
  // the self-drawn ones set aside face up (R14.1), with the count.
  function winsHTML(s, style, cls, fresh) {
    const v = st && st.view;
    const tiles = v && v.wins ? XZ.splitTiles(v.wins[s]) : [];
    if (!tiles.length) return "";
    const aside = XZ.splitTiles(v.aside[s]);
    const marks = tiles.map((t) => {
      const i = aside.indexOf(t);
      if (i >= 0) aside.splice(i, 1);
      return i >= 0;
    });
    const html = tiles.map((t, i) => `<span class="win-tile${marks[i] ? " aside" : ""}" title="${esc(`win ${i + 1}: ${t}${marks[i] ? ", self-drawn, set aside" : ""}`)}">${XZ.tileSVG(t, style, cls + (fresh && i === tiles.length - 1 ? " fresh" : ""))}</span>`).join("");
    return `<span class="wins" data-seat="${s}" data-count="${tiles.length}" data-wins="${v.wins[s]}" data-aside="${v.aside[s]}"><span class="wins-count">和×${tiles.length}</span>${html}</span>`;
  }

  // How many concealed tiles a seat holds, from what everyone sees: 13 less 3 a meld, and the
  // 14th of the seat whose turn it is (the dealer's before its first discard, also while 换三张
  // and 定缺 are chosen); a locked seat keeps its 13 and draws on its turns (R14.1).
  function concealedCount(s) {
    const v = st.view;
    const w = winOf(s);
    const inPlay = !w || lockedSeat(s);
    const dealing = (v.phase === "exchange" || v.phase === "void") && s === v.dealer;
    const turn = clock && clock.seat === s && !st.over && clock.kind === "turn";
    return 13 - 3 * v.melds[s].length + (inPlay && (turn || dealing) ? 1 : 0);
  }

  function portraitHTML(name, cls) {
    const p = XZ.portrait(name);
    return `<span class="portrait${cls ? " " + cls : ""}" style="background:${p.color}" aria-hidden="true">${esc(p.initials)}</span>`;
  }

  // A meld, its claimed tile lying sideways at the end that points to the seat it came from
  // (the giver on the melder's left: the first tile; across: the middle; right: the last).
  function meldHTML(kind, t, melder, giver, style, cls) {
    const n = kind === 0 ? 3 : 4;
    let turned = -1;
    if (giver !== null && giver !== undefined && kind !== 2) {
      const rel = (giver - melder + 4) % 4; // 1 next (right), 2 across, 3 previous (left)
      turned = rel === 3 ? 0 : rel === 2 ? 1 : n - 1;
    }
    let tiles = "";
    for (let i = 0; i < n; i++) {
      const hidden = kind === 2 && (i === 0 || i === 3);
      tiles += XZ.tileSVG(hidden ? null : t, style, cls, { side: i === turned });
    }
    const from = giver !== null && giver !== undefined && kind !== 2 ? ` from ${seatName(giver)}` : "";
    return `<span class="meld${kind === 2 ? " concealed" : ""}" data-from="${giver === null || giver === undefined ? "" : giver}" title="${esc(`${MELD_NAME[kind]} of ${t}${from}`)}">${tiles}</span>`;
  }

  function meldsOf(s, style, cls, fresh) {
    const v = st && st.view;
    if (!v) return "";
    const from = (st.meld_from && st.meld_from[s]) || [];
    const ms = v.melds[s].map(([kind, t], i) => meldHTML(kind, t, s, from[i], style, cls));
    if (fresh && ms.length) ms[ms.length - 1] = ms[ms.length - 1].replace('class="meld', 'class="meld fresh');
    return ms.join("");
  }

  // How a seat's hand ended, in words (short: for the seat's plate on the table).
  function resultText(r, short) {
    switch (r.result) {
      case "won": {
        const n = r.wins ? r.wins.length : 1; // several when winners stay (R14)
        return short ? (n > 1 ? `和×${n} won` : "和 won") : `和 won${n > 1 ? ` ${n} times` : ""}, ${r.value} points`;
      }
      case "ready": return short ? "ready 听牌" : `ready 听牌 (查叫) · waits ${r.waits.join(" ")} · worth ${r.value}`;
      case "not_ready": return "not ready 未听 (查叫)";
      case "pig": return "pig 花猪";
      case "escaped": return "escaped 逃跑";
      default: return short ? "no win" : "no win (the hand ended with three wins)";
    }
  }

  function render() {
    if (!table) return;
    const vs = viewSeat();
    const style = XZ.settings.get().tiles;
    const v = st && st.view;
    const voids = v ? v.voids : [null, null, null, null];
    const reveal = st && st.over && st.reveal && st.reveal.length === 4 ? st.reveal : null;
    const a = anim;
    anim = { discard: new Set(), draw: new Set(), meld: new Set(), win: new Set() };
    for (let s = 0; s < 4; s++) {
      const pos = (s - vs + 4) % 4;
      const info = table.seats[s];
      const name = seatName(s);
      const score = v ? v.scores[s] + v.deltas[s] : table.scores[s];
      const delta = v ? v.deltas[s] : 0;
      const w = winOf(s);
      const locked = lockedSeat(s);
      const nwins = v && v.wins ? v.wins[s].length / 2 : 0;
      const turn = clock && clock.seat === s && !(st && st.over);
      const wind = v ? (s - v.dealer + 4) % 4 : -1;
      let status = "";
      if (reveal) status = `<span class="result r-${reveal[s].result}">${esc(resultText(reveal[s], true))}</span>`;
      else if (locked) status = `<span class="won">和×${nwins}</span>`;
      else if (w) status = `<span class="won">和 ${w.fan} fan${w.from === null ? " 自摸" : ""}</span>`;
      else if (v && v.escaped[s]) status = `<span class="escaped">escaped</span>`;
      const plate = document.querySelector(`.plate[data-pos="${pos}"]`);
      plate.className = `plate pos-${POS[pos]}${turn ? " turn" : ""}${s === vs ? " seen" : ""}${w ? " has-won" : ""}${locked ? " is-locked" : ""}`;
      const watch = st && st.role === "spectator" && s !== vs ? ` title="Watch ${esc(name)}"` : ` title="${esc(name)}"`;
      const plain = info.kind === "empty" ? name : info.name; // the wind is shown beside it
      setHTML(plate, `<div class="who${st && st.role === "spectator" ? " watchable" : ""}" data-seat="${s}"${watch}>
          ${portraitHTML(plain, (a.win.has(s) ? "fresh-win" : "") + (info.kind === "bot" ? " bot" : ""))}
          <div class="id"><span class="nm">${esc(plain)}</span>
          <span class="tags">${wind >= 0 ? `<span class="wind" title="${WIND_EN[wind]} (seat wind)">${WIND[wind]}</span>` : ""}${v && v.dealer === s ? '<span class="dealer" title="dealer">庄</span>' : ""}${voids[s] ? `<span class="void" title="void suit">缺${XZ.suitName(voids[s])}</span>` : ""}${info.kind === "person" && !info.connected ? '<span class="gone">gone</span>' : ""}${locked ? '<span class="locked" title="won and stays in: its hand is locked, it discards what it draws unless it wins (R14.2)">锁 locked</span>' : ""}</span>
          <span class="score">${score}${delta ? ` <span class="delta">(${delta > 0 ? "+" : ""}${delta})</span>` : ""}</span>${status}</div></div>`);
      // the river: rows of six in front of the seat
      const river = v ? XZ.splitTiles(v.discards[s]) : [];
      const rhtml = river.map((t, i) => XZ.tileSVG(t, style, i === river.length - 1 && a.discard.has(s) ? "fresh" : "")).join("");
      setHTML(document.querySelector(`.river[data-pos="${pos}"]`), rhtml);
      // the other seats' hands along the table's edges: backs and melds; open at the end
      if (pos !== 0) {
        let tiles = "";
        if (v) {
          if (reveal) {
            tiles = XZ.splitTiles(reveal[s].hand).map((t) => XZ.tileSVG(t, style, "edge")).join("");
            if (nwins) tiles += winsHTML(s, style, "edge", false);
            else if (reveal[s].win_tile) tiles += `<span class="win-tile">${XZ.tileSVG(reveal[s].win_tile, style, "edge")}</span>`;
          } else if (!v.escaped[s]) {
            const inPlay = !w || locked;
            const n = concealedCount(s);
            for (let i = 0; i < n; i++) tiles += XZ.tileSVG(null, style, "edge" + (i === n - 1 && a.draw.has(s) && inPlay ? " fresh" : ""));
            if (nwins && locked) tiles += winsHTML(s, style, "edge", a.win.has(s));
            else if (w) tiles += `<span class="win-tile">${XZ.tileSVG(w.tile, style, "edge" + (a.win.has(s) ? " fresh" : ""))}</span>`;
          }
        }
        const slot = document.querySelector(`.slot-hand[data-pos="${pos}"]`);
        setHTML(slot, `<div class="concealed-tiles${reveal ? " open" : ""}" data-seat="${s}">${tiles}</div><div class="melds">${meldsOf(s, style, "edge", a.meld.has(s))}</div>`);
      } else {
        const mine = nwins && locked ? winsHTML(s, style, "", a.win.has(s)) : w ? `<span class="win-tile">${XZ.tileSVG(w.tile, style)}</span>` : "";
        setHTML($("my-melds"), meldsOf(s, style, "mine", a.meld.has(s)) + mine);
      }
      const mark = document.querySelector(`.wind-mark[data-pos="${pos}"]`);
      mark.textContent = wind >= 0 ? WIND[wind] : "";
      mark.classList.toggle("dealer-mark", !!(v && v.dealer === s));
      mark.classList.toggle("turn", !!turn);
    }
    $("wall").innerHTML = v ? `<b>${v.wall_count}</b> <span>${v.last_tiles ? "last tiles" : "in the wall"}</span>` : "–";
    const turnText = !v ? (table.status === "over" ? "The match is over" : "Waiting for players")
      : st.over ? "The hand is over" : clock ? `${seatName(clock.seat)}: ${clock.kind}` : "…";
    $("turn").textContent = turnText;
    setHTML($("claim-tile"), v && v.claim_tile && !st.over && myDecision() === "claim" ? `<span>${esc(seatName(v.claim_from))} discards</span>${XZ.tileSVG(v.claim_tile, style, "small")}` : "");
    $("role").textContent = st ? (st.role === "player" ? `You: ${seatName(st.seat)}` : `Watching ${seatName(st.seat)}`) : mySeat === null ? "Spectator" : "";
    renderHand(style, a);
    renderActions();
    renderLocked();
    renderLog();
    renderSettlement(style);
    tickClock();
  }

  function renderHand(style, a) {
    const v = st && st.view;
    const hand = $("hand");
    if (!v) { setHTML(hand, ""); return; }
    if (st.hidden && !st.over) {
      // the watched player keeps its tiles to itself (允许旁观看牌 is off): backs only
      const n = v.escaped[st.seat] ? 0 : concealedCount(st.seat);
      setHTML(hand, `<span class="hidden-note">🔒 ${esc(seatName(st.seat))} 未允许旁观看牌 · keeps its tiles private</span>` + Array.from({ length: n }, () => `<span class="htile back">${XZ.tileSVG(null, style)}</span>`).join(""));
      hand.classList.remove("mine");
      return;
    }
    const drawn = v.drawn;
    const mine = st.seat;
    setHTML(hand, order.map((t, i) => {
      const cls = ["htile"];
      if (i === sel || xsel.has(i)) cls.push("selected");
      if (drawn && i === order.length - 1 && t === drawn) cls.push("drawn");
      if (drawn && i === order.length - 1 && t === drawn && a.draw.has(mine)) cls.push("fresh");
      return `<span class="${cls.join(" ")}" data-i="${i}" data-tile="${t}">${XZ.tileSVG(t, style)}</span>`;
    }).join(""));
    hand.classList.toggle("mine", st.role === "player");
  }

  function renderActions() {
    const d = myDecision();
    const b = [];
    if (d === "turn") {
      const can = sel >= 0 && st.legal.includes(`discard ${order[sel]}`);
      b.push(`<button data-act="discard" ${can ? "" : "disabled"} id="discard-btn">Discard</button>`);
      if (st.legal.includes("hu")) b.push(`<button data-act="hu" class="hu">Hu 和</button>`);
      // a locked hand (R14.2): one click discards the drawn tile (the table does it by itself
      // after a short pause when that is the only legal move, st.forced)
      const drawn = st.view.drawn;
      if (lockedSeat(st.seat) && drawn && !st.legal.includes("hu") && st.legal.includes(`discard ${drawn}`)) {
        b.push(`<button data-act="discard ${drawn}" id="discard-drawn-btn" class="big">Discard drawn tile ${XZ.tileSVG(drawn, XZ.settings.get().tiles, "small")}</button>`);
      }
      for (const a of st.legal) if (a.startsWith("angang") || a.startsWith("jiagang")) b.push(`<button data-act="${a}">Kong ${a.split(" ")[1]}</button>`);
    } else if (d === "claim") {
      const names = { hu: "Hu 和", gang: "Kong 杠", peng: "Peng 碰", pass: "Pass 过" };
      for (const a of ["hu", "gang", "peng", "pass"]) if (st.legal.includes(a)) b.push(`<button data-act="${a}" class="${a}">${names[a]}</button>`);
    } else if (d === "exchange") {
      b.push(`<button data-act="exchange" ${xsel.size === 3 ? "" : "disabled"}>Exchange these 3 (换三张)</button>`);
    } else if (d === "void") {
      for (const a of st.legal) b.push(`<button data-act="${a}">Void 缺${XZ.suitName(a.split(" ")[1])}</button>`);
    }
    setHTML($("actions"), b.join(""));
  }

  // The player's own locked hand (R14.2), said in words under the actions.
  function renderLocked() {
    const box = $("locked-note");
    const mine = st && st.role === "player" && !st.over && lockedSeat(st.seat);
    box.hidden = !mine;
    if (!mine) return;
    const n = st.view.wins[st.seat].length / 2;
    let text = `Your hand is locked 锁: you won ${n === 1 ? "once" : `${n} times`} and stay in (血流成河). You win on a tile that completes it; any other tile you draw is discarded.`;
    if (st.forced) text += ` The table discards ${st.forced.split(" ")[1]} for you in a moment.`;
    box.textContent = text;
  }

  function describe(e) {
    const n = (s) => seatName(s);
    switch (e.type) {
      case "start": return `Hand starts; ${n(e.dealer)} deals`;
      case "draw": return `${n(e.seat)} draws${e.tile ? " " + e.tile : ""}${e.replacement ? " (kong replacement)" : ""}`;
      case "discard": return `${n(e.seat)} discards ${e.tile}${e.default || e.note === "timeout" ? " (timeout)" : e.note === "locked" ? " (locked hand, played for it)" : ""}`;
      case "meld": return e.meld === "jiagang" ? `${n(e.seat)} adds ${e.tile} to its pung (kong)` : `${n(e.seat)} ${e.meld === "peng" ? "pungs 碰" : "kongs 杠"} ${e.tile} from ${n(e.from)}`;
      case "angang": return `${n(e.seat)}: concealed kong ${e.tile}`;
      case "jiagang": return `${n(e.seat)} adds ${e.tile} to its pung`;
      case "win": return `${n(e.seat)} wins 和 on ${e.tile}${e.how === "self_draw" ? " by self-draw 自摸" : e.from !== null ? ` from ${n(e.from)}` : ""}: ${e.fan} fan`;
      case "pay": return `${n(e.from)} pays ${e.to === null ? "the penalty" : n(e.to)} ${e.amount} (${e.rule})`;
      case "peng": case "gang": case "hu": case "pass": return `${n(e.seat)}: ${e.type}`;
      case "exchange": return `${n(e.seat)} exchanges ${e.tiles || "three tiles"}`;
      case "exchanged": return `the tiles pass ${e.direction}`;
      case "received": return `${n(e.seat)} receives ${e.tiles || "three tiles"}`;
      case "voids": return `voids: ${e.voids.map((x, i) => `${n(i)} 缺${XZ.suitName(x)}`).join(", ")}`;
      case "pig": return `${n(e.seat)} is a pig 花猪`;
      case "ready": return `${n(e.seat)} is ready 听牌, worth ${e.value}`;
      case "escape": return `${n(e.seat)} escapes`;
      case "last_tiles": return `last tiles: ${e.wall_count} left`;
      case "end": return `the hand is over (${e.reason})`;
      default: return e.type + (e.seat !== undefined ? ` ${n(e.seat)}` : "");
    }
  }

  function renderLog() {
    const box = $("log-box");
    const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    const items = events.filter((e) => e.type !== "pass").slice(-200).map((e) => `<li>${esc(describe(e))}</li>`);
    const before = $("log").__html;
    setHTML($("log"), items.join(""));
    // the newest event stays in view (unless the reader scrolled back to read older ones)
    if ($("log").__html !== before && (atEnd || !logTouched)) box.scrollTop = box.scrollHeight;
  }

  function renderSettlement(style) {
    const box = $("settlement");
    if (!st || !st.over || !st.view) { box.hidden = true; return; }
    box.hidden = false;
    $("settle-title").textContent = `Hand ${st.hand_no + 1} is over`;
    const v = st.view;
    const rows = (st.reveal || []).map((r) => {
      const tiles = XZ.splitTiles(r.hand).map((t) => XZ.tileSVG(t, style, "small")).join("");
      const melds = meldsOf(r.seat, style, "small", false);
      const win = lockedSeat(r.seat) ? winsHTML(r.seat, style, "small", false) : r.win_tile ? `<span class="win-tile">${XZ.tileSVG(r.win_tile, style, "small")}</span>` : "";
      const d = v.deltas[r.seat];
      const info = table.seats[r.seat];
      return `<li class="rev r-${r.result}" data-seat="${r.seat}">${portraitHTML(info.kind === "empty" ? r.name : info.name, "mini")}<div><b>${esc(r.name)}</b> <span class="result r-${r.result}">${esc(resultText(r))}</span> <span class="score">${d > 0 ? "+" : ""}${d}</span>
        <div class="rev-tiles">${tiles}${win}<span class="rev-melds">${melds}</span></div></div></li>`;
    });
    setHTML($("reveal"), rows.join(""));
    setHTML($("settle-lines"), st.settlement.map((l) => `<li>${esc(l)}</li>`).join(""));
    $("settle-scores").textContent = `Scores: ${v.scores.map((x, i) => `${seatName(i)} ${x + v.deltas[i]}`).join(" · ")}`;
    const replay = $("settle-replay");
    replay.hidden = !st.replay_id;
    if (st.replay_id) replay.href = `/replay?log=${encodeURIComponent(st.replay_id)}`;
    // exactly one button starts the next hand, here
    let next = "";
    if (mySeat !== null && table.status !== "playing") {
      if (table.seats[mySeat].started) next = `<p class="hint">Waiting for the other players to start…</p>`;
      else if (table.status === "over") next = `<button id="next-btn" data-start="1" class="big">Start a new match</button>`;
      else next = `<button id="next-btn" data-start="1" class="big">Start next hand</button>`;
    }
    setHTML($("next-box"), next);
  }

  // ------------------------------------------------------------------ the clock (server-owned)
  // Drawn on every state message (so the countdown shows with the decision's buttons) and ten
  // times a second.
  function tickClock() {
    const el = $("clock");
    if (!clock || (st && st.over)) { el.hidden = true; return; }
    el.hidden = false;
    const left = Math.max(0, clock.deadline - performance.now());
    const secs = Math.ceil(left / 1000);
    $("clock-s").textContent = secs;
    $("clock-bar").style.width = `${(100 * left) / Math.max(1, clock.total_ms)}%`;
    el.classList.toggle("mine", st && st.role === "player" && clock.seat === st.seat);
    if (myDecision() && secs <= 3 && secs !== lastTick) { lastTick = secs; XZ.sound.play("tick"); }
  }
  setInterval(tickClock, 100);

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
      send({ type: "sit", seat: +btn.dataset.sit, name, secret: XZ.fair.playerSecret() });
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
  $("next-box").addEventListener("click", (ev) => {
    if (ev.target.closest("button[data-start]")) send({ type: "start" });
  });
  $("log-box").addEventListener("scroll", () => {
    const box = $("log-box");
    logTouched = box.scrollHeight - box.scrollTop - box.clientHeight >= 40;
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { selectIndex(-1); render(); }
  });

  XZ.settings.init();
  let showHand = !!XZ.settings.get().showHand;
  XZ.settings.onChange((cur) => {
    if (!!cur.showHand !== showHand) {
      showHand = !!cur.showHand;
      if (mySeat !== null) send({ type: "show_hand", allow: showHand });
    }
    render();
  });
  // Debug hook for tests and curious players: the current order of the hand.
  XZ.handOrder = () => order.slice();
  // ... and the last state message (with how many of the hand's events the page holds).
  XZ.lastState = () => (st ? { ...st, n_events: events.length } : null);
  // ... and a meld's markup (melder, giver), for the test of which tile turns towards whom.
  XZ.meldHTML = (kind, tile, melder, giver) => meldHTML(kind, tile, melder, giver, "cn", "");
  connect();
})(window.XZ);
