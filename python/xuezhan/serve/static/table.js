// The table page: one websocket (docs/room.md), the view of one seat, and the interactions of
// the original game: left click selects, right click discards the selection (or sorts the hand
// when nothing is selected), a countdown on every decision (right click on it passes a claim).
// Every word comes from i18n.js (Chinese first); the end-of-hand grid and the aids are the
// server's (state.summary, state.aids), shown as the player's settings ask.
"use strict";
(function (XZ) {
  const $ = (id) => document.getElementById(id);
  const t = XZ.t;
  const tableId = decodeURIComponent(location.pathname.split("/").pop());
  const TOKEN_KEY = "xuezhan.token." + tableId;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");

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
  let settleHidden = false; // the player folded the end-of-hand panel away
  let settleFor = ""; // the hand the panel was last opened for
  // What just happened, for the animations of one render only (then cleared): the seats that
  // discarded, drew, claimed (a meld) or won in the newest state message.
  let anim = { discard: new Set(), draw: new Set(), meld: new Set(), win: new Set() };
  let logTouched = false; // the reader scrolled the event list away from its end
  let messageTimer = null;
  // Each payment rule's name in both languages: the server's (the engine's registry).
  const ruleWords = {};

  function send(obj) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj));
  }
  // A short message over the table (it goes after a few seconds; errors stay a little longer).
  function say(text, isError) {
    const m = $("message");
    m.textContent = text || "";
    m.classList.toggle("error", !!isError);
    m.classList.toggle("shown", !!text);
    clearTimeout(messageTimer);
    if (text) messageTimer = setTimeout(() => m.classList.remove("shown"), isError ? 7000 : 4000);
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
        say(t("no_table"), true);
        $("turn").textContent = t("no_table_short");
        return;
      }
      say(t("reconnecting"), true);
      setTimeout(connect, 1000);
    };
  }

  function onMessage(m) {
    if (m.type === "welcome") {
      bots = m.bots;
      botLabels = m.bot_labels || {};
      Object.assign(ruleWords, m.rule_words || {});
      if (m.seat !== null && m.seat !== undefined) {
        mySeat = m.seat;
        if (m.token) localStorage.setItem(TOKEN_KEY, m.token);
        send({ type: "show_hand", allow: !!XZ.settings.get().showHand }); // 允许旁观看牌
        say(t("sat", { n: m.seat }));
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
    // a reset (a new hand, another seat watched, a reconnection) sounds and animates nothing:
    // only what just happened does
    const pays = [];
    if (!m.reset) {
      for (const e of fresh) {
        if (e.type === "discard") XZ.sound.play("discard");
        else if (e.type === "draw" && e.tile) XZ.sound.play("draw");
        else if (e.type === "meld") XZ.sound.play(e.meld === "peng" ? "peng" : "gang");
        else if (e.type === "angang") XZ.sound.play("gang");
        else if (e.type === "win") XZ.sound.play(e.how === "self_draw" ? "zimo" : "hu");
      }
      for (const e of fresh) {
        if (e.type === "discard") anim.discard.add(e.seat);
        else if (e.type === "draw") anim.draw.add(e.seat);
        else if (e.type === "meld" || e.type === "angang") anim.meld.add(e.seat);
        else if (e.type === "win") anim.win.add(e.seat);
        else if (e.type === "pay") pays.push(e);
      }
    }
    st = m;
    clock = m.clock ? { ...m.clock, deadline: performance.now() + m.clock.remaining_ms } : null;
    reconcileHand();
    if (table) renderSeating();
    render();
    floatPayments(pays);
  }

  function voidSuit() {
    const v = st && st.view;
    return v && XZ.settings.get().aidVoids ? v.voids[st.seat] : null;
  }

  // The display order of a hand: by suit and rank, the void suit last (when that aid is on).
  function sortHand(tiles) {
    const vs = voidSuit();
    const key = (x) => (x[1] === vs ? 100 : 0) + XZ.tileKey(x);
    return tiles.slice().sort((a, b) => key(a) - key(b));
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
  // (the drawn tile last). A new hand starts sorted, and so does a hand whose void is chosen.
  function reconcileHand() {
    if (!st.view) { order = []; sel = -1; return; }
    const tiles = handTiles();
    const key = `${st.hand_no}:${st.seat}:${st.hidden}:${voidSuit() || ""}`;
    if (key !== orderKey) {
      orderKey = key;
      order = sortHand(tiles);
      sel = -1;
      xsel.clear();
      return;
    }
    const pool = {};
    for (const x of tiles) pool[x] = (pool[x] || 0) + 1;
    const selTile = sel >= 0 ? order[sel] : null;
    const kept = [];
    for (const x of order) if (pool[x] > 0) { kept.push(x); pool[x]--; }
    const drawn = st.view.drawn;
    let extra = [];
    for (const x in pool) for (let i = 0; i < pool[x]; i++) extra.push(x);
    extra = sortHand(extra);
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
    const x = order[sel];
    if (myDecision() === "turn" && st.legal.includes(`discard ${x}`)) {
      send({ type: "act", action: `discard ${x}` });
      sel = -1;
      render();
    } else if (myDecision() === "turn") {
      say(t("may_not_discard", { tile: XZ.tileName(x) }) + (st.view.voids[st.seat] ? t("void_first") : ""), true);
    }
    return true;
  }

  function sortMine() {
    order = sortHand(order);
    sel = -1;
    xsel.clear();
    render();
  }

  // ------------------------------------------------------------------ rendering
  const POS = ["bottom", "right", "top", "left"];
  const MELD_KEY = ["peng", "gang", "e_angang"];

  // Assign only when the markup changed: the DOM (and any animation in it) stays as it is
  // when an update did not touch that part of the table.
  function setHTML(el, html) {
    if (el.__html !== html) { el.innerHTML = html; el.__html = html; }
  }
  // (the same for text: even an equal text is a new text node the browser lays out again)
  function setText(el, text) {
    const s = String(text);
    if (el.textContent !== s) el.textContent = s;
  }

  // What the table calls a seat: the hand's names from the server (two bots of one kind told
  // apart by their wind), else the seat's name.
  const WIND_EN = ["East", "South", "West", "North"];
  function seatName(s) {
    if (st && st.names && st.names.length === 4 && st.view) {
      // two seats of one name are told apart by their seat wind: "greedy (East)" / "greedy（东）"
      const m = / \((East|South|West|North)\)$/.exec(st.names[s]);
      if (m && XZ.i18n.lang() === "zh") return `${st.names[s].slice(0, m.index)}（${t("wind")[WIND_EN.indexOf(m[1])]}）`;
      return st.names[s];
    }
    const info = table && table.seats[s];
    if (!info || info.kind === "empty") return t("seat_n", { n: s });
    return info.name;
  }

  function windName(w) {
    return XZ.i18n.lang() === "zh" ? t("wind")[w] : WIND_EN[w];
  }

  function renderTable() {
    $("table-name").textContent = table.name;
    document.title = `xuezhan — ${table.name}`;
    $("match-info").textContent = `${table.preset} · ${t("hand_of", { n: XZ.i18n.handNo(table), of: table.hands })} · ${t("watching_n", { n: table.spectators })}`;
    $("seating").hidden = table.status === "playing";
    document.body.classList.toggle("seating-open", table.status !== "playing" && !(st && st.over && st.view));
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
          ? `<input class="name" placeholder="${esc(t("your_name"))}" maxlength="24" value="${esc(localStorage.getItem("xuezhan.name") || "")}"><button data-sit="${s}">${esc(t("sit_here"))}</button>`
          : `<em>${esc(t("empty"))}</em>`;
        body += ` <select class="bot">${bots.map((b) => `<option value="${esc(b)}">${esc(botLabels[b] || b)}</option>`).join("")}</select><button data-bot="${s}">${esc(t("seat_bot"))}</button>`;
      } else if (info.kind === "bot") {
        body = `${esc(info.name)} (${esc(t("bot"))}) <button data-stand="${s}">${esc(t("remove"))}</button>`;
      } else {
        body = `${esc(info.name)} ${info.started ? esc(t("started")) : esc(t("not_started"))}${info.connected ? "" : " · " + esc(t("gone"))}`;
        if (s === mySeat) body += ` <button data-stand="${s}">${esc(t("leave_seat"))}</button>`;
      }
      parts.push(`<div class="slot" data-slot="${s}"><b>${esc(t("seat_n", { n: s }))}</b> ${body}</div>`);
    }
    // The first Start of a match is here; between hands the one "Start next hand" button is in
    // the end-of-hand panel.
    if (mySeat !== null && !table.seats[mySeat].started && !(st && st.over)) parts.push(`<button id="start-btn" class="big">${esc(t("start"))}</button>`);
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
    const marks = tiles.map((x) => {
      const i = aside.indexOf(x);
      if (i >= 0) aside.splice(i, 1);
      return i >= 0;
    });
    const html = tiles.map((x, i) => `<span class="win-tile${marks[i] ? " aside" : ""}" title="${esc(`${i + 1}: ${XZ.tileName(x)}${marks[i] ? " " + t("how_self") : ""}`)}">${XZ.tileSVG(x, style, cls + (fresh && i === tiles.length - 1 ? " fresh" : ""))}</span>`).join("");
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
  function meldHTML(kind, x, melder, giver, style, cls) {
    const n = kind === 0 ? 3 : 4;
    let turned = -1;
    const given = giver !== null && giver !== undefined && kind !== 2;
    if (given) {
      const rel = (giver - melder + 4) % 4; // 1 next (right), 2 across, 3 previous (left)
      turned = rel === 3 ? 0 : rel === 2 ? 1 : n - 1;
    }
    let tiles = "";
    for (let i = 0; i < n; i++) {
      const hidden = kind === 2 && (i === 0 || i === 3);
      tiles += XZ.tileSVG(hidden ? null : x, style, cls, { side: i === turned });
    }
    const what = kind === 2 ? t("e_angang", { seat: seatName(melder), tile: XZ.tileName(x) })
      : t(kind === 0 ? "e_peng" : "e_gang", { seat: seatName(melder), tile: XZ.tileName(x), from: given ? seatName(giver) : "?" });
    return `<span class="meld${kind === 2 ? " concealed" : ""}" data-kind="${MELD_KEY[kind]}" data-from="${given ? giver : ""}" title="${esc(what)}">${tiles}</span>`;
  }

  function meldsOf(s, style, cls, fresh) {
    const v = st && st.view;
    if (!v) return "";
    const from = (st.meld_from && st.meld_from[s]) || [];
    const ms = v.melds[s].map(([kind, x], i) => meldHTML(kind, x, s, from[i], style, cls));
    if (fresh && ms.length) ms[ms.length - 1] = ms[ms.length - 1].replace('class="meld', 'class="meld fresh');
    return ms.join("");
  }

  // How a seat's hand ended, in words (short: for the seat's plate on the table).
  function resultText(r, short) {
    switch (r.result) {
      case "won": {
        const n = r.wins ? r.wins.length : 1; // several when winners stay (R14)
        return n > 1 ? `${t("r_won")}×${n}` : t("r_won");
      }
      case "ready": return short ? t("r_ready") : t("r_ready_waits", { waits: r.waits.map(XZ.tileName).join(" ") });
      case "not_ready": return t("r_not_ready");
      case "pig": return t("r_pig");
      case "escaped": return t("r_escaped");
      default: return t("r_playing");
    }
  }

  // The newest discard still lying in its river (a claimed tile leaves it): marked on the table.
  function lastDiscard() {
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i];
      if (e.type === "discard") {
        const claimed = events.slice(i + 1).some((x) => x.type === "meld" && x.from === e.seat);
        return claimed ? null : e;
      }
    }
    return null;
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
    const last = v ? lastDiscard() : null;
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
      else if (w) status = `<span class="won">${esc(t("won_fan", { fan: w.fan }))}${w.from === null ? " 自摸" : ""}</span>`;
      else if (v && v.escaped[s]) status = `<span class="escaped">${esc(t("escaped"))}</span>`;
      const plate = document.querySelector(`.plate[data-pos="${pos}"]`);
      plate.className = `plate pos-${POS[pos]}${turn ? " turn" : ""}${s === vs ? " seen" : ""}${w ? " has-won" : ""}${locked ? " is-locked" : ""}`;
      plate.dataset.seat = s;
      const watch = st && st.role === "spectator" && s !== vs ? ` title="${esc(t("watch_who", { name }))}"` : ` title="${esc(name)}"`;
      const plain = info.kind === "empty" ? name : info.name; // the wind is shown beside it
      const shown = info.shown ? ' <span class="shown-tag" title="允许旁观看牌">👁</span>' : "";
      setHTML(plate, `<div class="who${st && st.role === "spectator" ? " watchable" : ""}" data-seat="${s}"${watch}>
          <span class="avatar">${portraitHTML(plain, (a.win.has(s) ? "fresh-win" : "") + (info.kind === "bot" ? " bot" : ""))}<span class="secs"></span></span>
          <div class="id"><span class="nm">${esc(plain)}</span>${shown}
          <span class="tags">${wind >= 0 ? `<span class="wind" title="${esc(t("wind_title", { w: windName(wind) }))}">${t("wind")[wind]}</span>` : ""}${v && v.dealer === s ? `<span class="dealer" title="${esc(t("dealer_title"))}">庄</span>` : ""}${voids[s] ? `<span class="void" title="${esc(t("void_title"))}">缺${XZ.suitName(voids[s])}</span>` : ""}${info.kind === "person" && !info.connected ? `<span class="gone">${esc(t("gone"))}</span>` : ""}${locked ? `<span class="locked" title="${esc(t("locked_title"))}">${esc(t("locked_tag"))}</span>` : ""}</span>
          <span class="score">${score}${delta ? ` <span class="delta">(${delta > 0 ? "+" : ""}${delta})</span>` : ""}</span>${status}</div></div>`);
      // the river: rows of six in front of the seat, the newest discard marked
      const river = v ? XZ.splitTiles(v.discards[s]) : [];
      const rhtml = river.map((x, i) => {
        const cls = [];
        if (i === river.length - 1 && a.discard.has(s)) cls.push("fresh");
        if (last && last.seat === s && i === river.length - 1) cls.push("last");
        return XZ.tileSVG(x, style, cls.join(" "));
      }).join("");
      setHTML(document.querySelector(`.river[data-pos="${pos}"]`), rhtml);
      // the other seats' hands along the table's edges: backs and melds; open at the end
      if (pos !== 0) {
        let tiles = "";
        if (v) {
          if (reveal) {
            tiles = XZ.splitTiles(reveal[s].hand).map((x) => XZ.tileSVG(x, style, "edge")).join("");
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
      setText(mark, wind >= 0 ? t("wind")[wind] : "");
      mark.classList.toggle("dealer-mark", !!(v && v.dealer === s));
      mark.classList.toggle("turn", !!turn);
    }
    setHTML($("wall"), v ? `<b>${v.wall_count}</b> <span>${esc(v.last_tiles ? t("last_tiles") : t("in_wall"))}</span>` : "–");
    // whose decision it is: the name, then what kind (two lines, so a phone's small centre shows both)
    const turnHTML = !v ? esc(table.status === "over" ? t("match_over") : t("waiting_players"))
      : st.over ? esc(t("hand_over")) : clock ? `<span class="acts">${esc(seatName(clock.seat))}</span><span class="kind">${esc(t("k_" + clock.kind))}</span>` : "…";
    setHTML($("turn"), turnHTML);
    $("turn").dataset.seat = clock && v && !st.over ? clock.seat : "";
    setHTML($("claim-tile"), v && v.claim_tile && !st.over && myDecision() === "claim" ? `<span>${esc(t("discards_it", { name: seatName(v.claim_from) }))}</span>${XZ.tileSVG(v.claim_tile, style, "small")}` : "");
    setText($("role"), st ? (st.role === "player" ? t("you_are", { name: seatName(st.seat) }) : t("watching_who", { name: seatName(st.seat) })) : mySeat === null ? t("spectator") : "");
    $("role").dataset.seat = st ? st.seat : "";
    $("role").dataset.role = st ? st.role : "";
    document.body.classList.toggle("seating-open", table.status !== "playing" && !(st && st.over && st.view));
    renderHand(style, a);
    renderActions();
    renderLocked();
    renderAid(style);
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
      setHTML(hand, `<span class="hidden-note">🔒 ${esc(t("hidden_note", { name: seatName(st.seat) }))}</span>` + Array.from({ length: n }, () => `<span class="htile back">${XZ.tileSVG(null, style)}</span>`).join(""));
      hand.classList.remove("mine");
      return;
    }
    const drawn = v.drawn;
    const mine = st.seat;
    const aids = st.aids || {};
    const set = XZ.settings.get();
    const vs = voidSuit();
    const ting = set.aidWaits && aids.discards ? aids.discards : {};
    const suggested = set.aidSuggest && aids.suggest && aids.suggest.startsWith("exchange ") ? XZ.splitTiles(aids.suggest.split(" ")[1]) : [];
    setHTML(hand, order.map((x, i) => {
      const cls = ["htile"];
      if (i === sel || xsel.has(i)) cls.push("selected");
      if (drawn && i === order.length - 1 && x === drawn) cls.push("drawn");
      if (drawn && i === order.length - 1 && x === drawn && a.draw.has(mine)) cls.push("fresh");
      if (vs && x[1] === vs) cls.push("void-tile");
      let badge = "";
      if (ting[x]) { cls.push("ting"); badge = '<span class="ting-badge">听</span>'; }
      const k = suggested.indexOf(x);
      if (k >= 0) { cls.push("suggest"); suggested.splice(k, 1); }
      return `<span class="${cls.join(" ")}" data-i="${i}" data-tile="${x}">${XZ.tileSVG(x, style)}${badge}</span>`;
    }).join(""));
    hand.classList.toggle("mine", st.role === "player");
  }

  function renderActions() {
    const d = myDecision();
    const b = [];
    const set = XZ.settings.get();
    const suggest = set.aidSuggest && st && st.aids ? st.aids.suggest : null;
    if (d === "turn") {
      const can = sel >= 0 && st.legal.includes(`discard ${order[sel]}`);
      if (st.legal.includes("hu")) b.push(`<button data-act="hu" class="hu big">${esc(st.view.drawn ? t("zimo") : t("hu"))}</button>`);
      b.push(`<button data-act="discard" ${can ? "" : "disabled"} id="discard-btn" class="big">${esc(t("discard"))}</button>`);
      // a locked hand (R14.2): one click discards the drawn tile (the table does it by itself
      // after a short pause when that is the only legal move, st.forced)
      const drawn = st.view.drawn;
      if (lockedSeat(st.seat) && drawn && !st.legal.includes("hu") && st.legal.includes(`discard ${drawn}`)) {
        b.push(`<button data-act="discard ${drawn}" id="discard-drawn-btn" class="big">${esc(t("discard_drawn"))} ${XZ.tileSVG(drawn, XZ.settings.get().tiles, "small")}</button>`);
      }
      for (const x of st.legal) if (x.startsWith("angang") || x.startsWith("jiagang")) b.push(`<button data-act="${x}" class="gang big">${esc(t("kong_n", { tile: XZ.tileName(x.split(" ")[1]) }))}</button>`);
    } else if (d === "claim") {
      for (const x of ["hu", "gang", "peng", "pass"]) if (st.legal.includes(x)) b.push(`<button data-act="${x}" class="${x} big">${esc(t(x))}</button>`);
    } else if (d === "exchange") {
      b.push(`<button data-act="exchange" class="big" ${xsel.size === 3 ? "" : "disabled"}>${esc(t("exchange_btn"))}</button>`);
    } else if (d === "void") {
      for (const x of st.legal) {
        const mark = suggest === x ? " suggest" : "";
        b.push(`<button data-act="${x}" class="big${mark}">${esc(t("void_btn", { suit: XZ.suitName(x.split(" ")[1]) }))}</button>`);
      }
    }
    setHTML($("actions"), b.join(""));
  }

  // The player's own locked hand (R14.2), said in words beside the actions.
  function renderLocked() {
    const box = $("locked-note");
    const mine = st && st.role === "player" && !st.over && lockedSeat(st.seat);
    box.hidden = !mine;
    if (!mine) return;
    const n = st.view.wins[st.seat].length / 2;
    let text = t("locked_note", { n });
    if (st.forced) text += " " + t("locked_soon", { tile: XZ.tileName(st.forced.split(" ")[1]) });
    setText(box, text);
  }

  // The aids: the waits of a ready hand with what is left of each, or those of the selected
  // discard; the exchange and void suggestions (each only when switched on in the settings).
  function renderAid(style) {
    const box = $("aid");
    const aids = st && !st.over && st.aids;
    const set = XZ.settings.get();
    let html = "";
    const list = (ws) => ws.map((w) => `<span class="wait" data-tile="${w.tile}">${XZ.tileSVG(w.tile, style, "small")}<small>${esc(t("aid_left", { n: w.left }))}</small></span>`).join("");
    if (aids && set.aidWaits) {
      const chosen = sel >= 0 ? order[sel] : null;
      if (chosen && aids.discards && aids.discards[chosen]) html = `<span>${esc(t("aid_if", { tile: XZ.tileName(chosen) }))}</span>${list(aids.discards[chosen])}`;
      else if (aids.waits && aids.waits.length) html = `<span>${esc(t("aid_waits"))}</span>${list(aids.waits)}`;
    }
    if (aids && set.aidSuggest && aids.suggest && !html) {
      const [verb, arg] = aids.suggest.split(" ");
      html = `<span class="suggest-text">${esc(verb === "exchange" ? t("aid_suggest_ex", { tiles: XZ.splitTiles(arg).map(XZ.tileName).join(" ") }) : t("aid_suggest_void", { suit: XZ.suitName(arg) }))}</span>`;
    }
    box.hidden = !html;
    setHTML(box, html);
  }

  function describe(e) {
    const n = (s) => seatName(s);
    const tn = XZ.tileName;
    switch (e.type) {
      case "start": return t("e_start", { dealer: n(e.dealer) });
      case "draw": return (e.tile ? t("e_draw_t", { seat: n(e.seat), tile: tn(e.tile) }) : t("e_draw", { seat: n(e.seat) })) + (e.replacement ? t("e_repl") : "");
      case "discard": return t("e_discard", { seat: n(e.seat), tile: tn(e.tile) }) + (e.default || e.note === "timeout" ? t("e_timeout") : e.note === "locked" ? t("e_locked") : "");
      case "meld":
        if (e.meld === "jiagang") return t("e_jiagang", { seat: n(e.seat), tile: tn(e.tile) });
        return t(e.meld === "peng" ? "e_peng" : "e_gang", { seat: n(e.seat), tile: tn(e.tile), from: n(e.from) });
      case "angang": return t("e_angang", { seat: n(e.seat), tile: tn(e.tile) });
      case "jiagang": return t("e_jiagang", { seat: n(e.seat), tile: tn(e.tile) });
      case "win": {
        const how = e.how === "self_draw" ? t("e_win_self") : e.how === "rob" && e.from !== null ? t("e_win_rob", { from: n(e.from) }) : e.from !== null ? t("e_win_from", { from: n(e.from) }) : "";
        return t("e_win", { seat: n(e.seat), tile: tn(e.tile) }) + how + t("e_fan", { fan: e.fan });
      }
      case "pay": {
        const rule = payName(e.rule);
        return e.to === null ? t("e_penalty", { from: n(e.from), amount: XZ.points(e.amount), rule }) : t("e_pay", { from: n(e.from), to: n(e.to), amount: XZ.points(e.amount), rule });
      }
      case "peng": case "gang": case "hu": case "pass": return t("e_claim", { seat: n(e.seat), what: t(e.type) });
      case "exchange": return t("e_exchange", { seat: n(e.seat), tiles: e.tiles ? XZ.splitTiles(e.tiles).map(tn).join("") : t("e_three") });
      case "exchanged": return t("e_exchanged", { dir: t("dir_" + e.direction) });
      case "received": return t("e_received", { seat: n(e.seat), tiles: e.tiles ? XZ.splitTiles(e.tiles).map(tn).join("") : t("e_three") });
      case "voids": return t("e_voids", { list: e.voids.map((x, i) => `${n(i)} 缺${XZ.suitName(x)}`).join("，") });
      case "pig": return t("e_pig", { seat: n(e.seat) });
      case "ready": return t("e_ready", { seat: n(e.seat), value: e.value });
      case "escape": return t("e_escape", { seat: n(e.seat) });
      case "last_tiles": return t("e_last", { n: e.wall_count });
      case "end": return t("e_end", { reason: t("end_" + e.reason) });
      default: return e.type + (e.seat !== undefined ? ` ${n(e.seat)}` : "");
    }
  }

  function payName(rule) {
    const w = ruleWords[rule];
    return w ? XZ.i18n.name(w) : rule;
  }

  // The newest event stays in view unless the reader scrolled back to read older ones
  // (logTouched, kept by the box's scroll listener). Scrolled in the next animation frame: read
  // in the middle of a render, the box's height made the browser lay the page out there and
  // then, twice a message, and again for the frame (most of the table's CPU in a browser).
  let logScroll = 0;
  let logOwnTop = -1; // where the page last scrolled it to (its own scroll is not the reader's)
  // The list's last line as the last frame showed it (null until lines come in after it): the
  // end a reader (or the browser's scroll anchoring) scrolled to, when lines have come in
  // below before the frame that would have scrolled to them.
  let logFrameEnd = null;
  function scrollLogToEnd() {
    if (logScroll) return;
    logScroll = requestAnimationFrame(() => {
      logScroll = 0;
      logFrameEnd = null;
      if (logTouched) return;
      const box = $("log-box");
      box.scrollTop = box.scrollHeight;
      logOwnTop = box.scrollTop;
    });
  }

  // The event list's lines (the last 200 events but the passes), as markup.
  function logItems() {
    return events.filter((e) => e.type !== "pass").slice(-200).map((e) => {
      const attrs = `data-type="${e.type}"${e.seat !== undefined ? ` data-seat="${e.seat}"` : ""}${e.tile ? ` data-tile="${e.tile}"` : ""}${e.note ? ` data-note="${esc(e.note)}"` : e.default ? ' data-note="timeout"' : ""}${e.rule ? ` data-rule="${esc(e.rule)}" title="${esc(e.rule)}"` : ""}`;
      return `<li ${attrs}>${esc(describe(e))}</li>`;
    });
  }

  function renderLog() {
    const items = logItems();
    const log = $("log");
    const old = log.__items || [];
    if (items.length === old.length && items.every((x, i) => x === old[i])) return;
    // Usually one event more (and, past 200, one fewer at the start): only those lines change,
    // so the browser lays out one line, not the 200 it would rebuild from markup. Anything
    // else (a new hand, another language, a seat's new name) is rebuilt whole.
    // (lines repeat, "东 draws" above all: the first cut whose lines go on as the new ones)
    let cut = -1;
    for (let c = 0; c < old.length && cut < 0; c++) {
      if (old.length - c <= items.length && old.slice(c).every((x, i) => x === items[i])) cut = c;
    }
    if (logFrameEnd === null) logFrameEnd = log.lastElementChild;
    if (cut >= 0) {
      for (let i = 0; i < cut; i++) log.firstElementChild.remove();
      log.insertAdjacentHTML("beforeend", items.slice(old.length - cut).join(""));
    } else {
      log.innerHTML = items.join("");
    }
    log.__items = items;
    scrollLogToEnd();
  }

  // ------------------------------------------------------------------ the end of the hand
  function winCell(w, style) {
    const how = w.how === "self_draw" ? t("how_self") : w.discarder === null ? t(w.how === "rob" ? "how_rob" : "how_discard")
      : t(w.how === "rob" ? "how_rob_from" : "how_from", { from: seatName(w.discarder) });
    return `<div class="gwin" data-tile="${w.tile}" data-how="${w.how}">${XZ.tileSVG(w.tile, style, "small")} <span>${esc(how)}</span></div>`;
  }

  function fansCell(w) {
    const items = w.items.length ? w.items.map((i) => `<span class="fan-item" title="${esc(i.key)}">${esc(XZ.i18n.name(i))}${i.fan ? ` +${i.fan}` : ""}</span>`).join(" ") : `<span class="fan-item">${esc(t("pinghu"))}</span>`;
    return `<div class="gfans">${items}</div>`;
  }

  function pointsCell(n, col, rules) {
    return `<td class="pts ${n > 0 ? "plus" : n < 0 ? "minus" : "zero"}" data-col="${col}" data-label="${esc(t("g_" + (col === "hu" ? "hu_pts" : col)))}"${rules ? ` title="${esc(rules)}"` : ""}>${n ? signed(n) : "·"}</td>`;
  }

  function renderGrid(style) {
    const s = st.summary;
    if (!s) { setHTML($("grid"), ""); setHTML($("payments"), ""); return; }
    for (const p of s.payments) ruleWords[p.rule] = p.words;
    const reveal = st.reveal || [];
    const rulesOf = (seat, col) => s.payments.filter((p) => p.column === col && (p.payer === seat || p.payee === seat)).map((p) => p.title).filter((x, i, a) => a.indexOf(x) === i).join("; ");
    const head = `<thead><tr><th>${esc(t("g_player"))}</th><th>${esc(t("g_hu"))}</th><th>${esc(t("g_fans"))}</th><th>${esc(t("g_fan"))}</th><th>${esc(t("g_hu_pts"))}</th><th>${esc(t("g_kong"))}</th><th>${esc(t("g_check"))}</th><th>${esc(t("g_escape"))}</th><th>${esc(t("g_total"))}</th></tr></thead>`;
    const rows = s.rows.map((r) => {
      const rv = reveal[r.seat];
      const info = table.seats[r.seat];
      const tiles = rv ? XZ.splitTiles(rv.hand).map((x) => XZ.tileSVG(x, style, "small")).join("") : "";
      const melds = meldsOf(r.seat, style, "small", false);
      // its wins: every win's tile in order when winners stay (R14), else the tile it won on
      const won = lockedSeat(r.seat) ? winsHTML(r.seat, style, "small", false) : rv && rv.win_tile ? `<span class="win-tile">${XZ.tileSVG(rv.win_tile, style, "small")}</span>` : "";
      const result = rv ? `<span class="result r-${rv.result}">${esc(resultText(rv, false))}</span>` : "";
      return `<tr class="grow" data-seat="${r.seat}">
        <td class="gplayer" data-label="${esc(t("g_player"))}">${portraitHTML(info.kind === "empty" ? r.name : info.name, "mini")}<b>${esc(seatName(r.seat))}</b> ${result}
          <div class="rev-tiles">${tiles}${won}<span class="rev-melds">${melds}</span></div></td>
        <td data-col="wins" data-label="${esc(t("g_hu"))}">${r.wins.map((w) => winCell(w, style)).join("") || "·"}</td>
        <td data-col="fans" data-label="${esc(t("g_fans"))}">${r.wins.map(fansCell).join("") || "·"}</td>
        <td data-col="fan" data-label="${esc(t("g_fan"))}">${r.wins.length ? r.wins.map((w) => `<div>${w.fan}</div>`).join("") : "·"}</td>
        ${pointsCell(r.hu, "hu", rulesOf(r.seat, "hu"))}${pointsCell(r.kong, "kong", rulesOf(r.seat, "kong"))}${pointsCell(r.check, "check", rulesOf(r.seat, "check"))}${pointsCell(r.escape, "escape", rulesOf(r.seat, "escape"))}
        <td class="total ${r.total > 0 ? "plus" : r.total < 0 ? "minus" : "zero"}" data-col="total" data-label="${esc(t("g_total"))}">${signed(r.total)}</td></tr>`;
    });
    setHTML($("grid"), head + `<tbody>${rows.join("")}</tbody>`);
    const pays = s.payments.map((p) => {
      const who = p.payee === null ? t("g_penalty", { from: seatName(p.payer) }) : t("g_pays", { from: seatName(p.payer), to: seatName(p.payee) });
      return `<li data-rule="${esc(p.rule)}" data-payer="${p.payer}" data-payee="${p.payee === null ? "" : p.payee}" data-amount="${p.amount}" title="${esc(p.title)}"><span class="pay-who">${esc(who)}</span> <b>${esc(XZ.points(p.amount))}</b> <span class="pay-rule">${esc(XZ.i18n.name(p.words))}</span></li>`;
    });
    setHTML($("payments"), pays.join(""));
  }

  function renderSettlement(style) {
    const box = $("settlement");
    const show = $("settle-show");
    if (!st || !st.over || !st.view) { box.hidden = true; show.hidden = true; document.body.classList.remove("settling"); return; }
    const key = `${st.hand_no}:${st.commitment}`;
    if (key !== settleFor) { settleFor = key; settleHidden = false; } // a new end opens the panel
    box.hidden = settleHidden;
    show.hidden = !settleHidden;
    document.body.classList.toggle("settling", !settleHidden);
    $("settle-title").textContent = t("settle_title", { n: st.hand_no + 1 });
    renderGrid(style);
    const v = st.view;
    $("settle-scores").textContent = `${t("scores")}: ${v.scores.map((x, i) => `${seatName(i)} ${x + v.deltas[i]}`).join(" · ")}`;
    const replay = $("settle-replay");
    replay.hidden = !st.replay_id;
    if (st.replay_id) replay.href = `/replay?log=${encodeURIComponent(st.replay_id)}`;
    // exactly one button starts the next hand, here
    let next = "";
    if (mySeat !== null && table.status !== "playing") {
      if (table.seats[mySeat].started) next = `<p class="hint">${esc(t("waiting_others"))}</p>`;
      else if (table.status === "over") next = `<button id="next-btn" data-start="1" class="big">${esc(t("new_match"))}</button>`;
      else next = `<button id="next-btn" data-start="1" class="big">${esc(t("next_hand"))}</button>`;
    }
    setHTML($("next-box"), next);
  }

  // A floating +N / −N over each plate a payment touched (Settings → aids), as it happens.
  function floatPayments(pays) {
    if (!pays.length || !XZ.settings.get().aidFloat || !table) return;
    const sum = [0, 0, 0, 0];
    for (const p of pays) {
      sum[p.from] -= p.amount;
      if (p.to !== null) sum[p.to] += p.amount;
    }
    sum.forEach((n, s) => {
      if (!n) return;
      const plate = document.querySelector(`.plate[data-seat="${s}"]`);
      if (!plate) return;
      const el = document.createElement("span");
      el.className = `float-delta ${n > 0 ? "plus" : "minus"}`;
      el.textContent = signed(n);
      plate.appendChild(el);
      setTimeout(() => el.remove(), 1800);
    });
  }

  // ------------------------------------------------------------------ the clock (server-owned)
  // Drawn on every state message (so the countdown shows with the decision's buttons) and ten
  // times a second: the seconds in the centre, a ring round the acting seat's portrait.
  function tickClock() {
    const el = $("clock");
    const ring = document.querySelector(".plate.turn .avatar");
    if (!clock || (st && st.over)) { el.hidden = true; return; }
    el.hidden = false;
    const left = Math.max(0, clock.deadline - performance.now());
    const secs = Math.ceil(left / 1000);
    const frac = left / Math.max(1, clock.total_ms);
    setText($("clock-s"), secs);
    $("clock-bar").style.width = `${100 * frac}%`;
    if (ring) {
      ring.style.setProperty("--p", frac.toFixed(3));
      setText(ring.querySelector(".secs"), secs);
    }
    el.classList.toggle("mine", !!(st && st.role === "player" && clock.seat === st.seat));
    if (myDecision() && secs <= 3 && secs !== lastTick) { lastTick = secs; XZ.sound.play("tick"); }
  }
  setInterval(tickClock, 100);

  // ------------------------------------------------------------------ input
  $("hand").addEventListener("click", (ev) => {
    const x = ev.target.closest(".htile");
    if (!x || !st || st.role !== "player" || x.classList.contains("back")) return;
    const i = +x.dataset.i;
    if (myDecision() === "exchange") {
      if (xsel.has(i)) xsel.delete(i);
      else if (xsel.size < 3) xsel.add(i);
    } else {
      selectIndex(sel === i ? -1 : i);
    }
    render();
  });
  document.addEventListener("contextmenu", (ev) => {
    if (ev.target.closest("dialog, input, select, header, #settlement")) return;
    ev.preventDefault();
    if (!st || st.role !== "player") return;
    if (ev.target.closest("#clock")) {
      if (myDecision() === "claim") send({ type: "act", action: "pass" });
      return;
    }
    if (!discardSelected()) sortMine();
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
  const watchClick = (ev) => {
    const who = ev.target.closest(".who");
    if (who && mySeat === null) send({ type: "watch", seat: +who.dataset.seat });
  };
  $("board").addEventListener("click", watchClick);
  $("bottom-bar").addEventListener("click", watchClick);
  $("next-box").addEventListener("click", (ev) => {
    if (ev.target.closest("button[data-start]")) send({ type: "start" });
  });
  $("settle-hide").addEventListener("click", () => { settleHidden = true; render(); });
  $("settle-show").addEventListener("click", () => { settleHidden = false; render(); });
  $("log-box").addEventListener("scroll", () => {
    const box = $("log-box");
    // (the scroll event of the page's own scroll comes a frame later, when more lines may
    // have come in below: it is not the reader's. Nor are the lines that came in since the
    // last frame: the end scrolled to is that frame's last line, and a line cut at the top
    // past 200 is the browser's anchoring, which keeps that line where it was)
    const end = logFrameEnd && logFrameEnd.isConnected ? logFrameEnd : $("log").lastElementChild;
    const below = end ? end.getBoundingClientRect().bottom - box.getBoundingClientRect().bottom : 0;
    logTouched = box.scrollTop !== logOwnTop && below >= 40;
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { selectIndex(-1); render(); }
  });

  XZ.settings.init();
  let showHand = !!XZ.settings.get().showHand;
  let lang = XZ.i18n.lang();
  XZ.settings.onChange((cur) => {
    if (!!cur.showHand !== showHand) {
      showHand = !!cur.showHand;
      if (mySeat !== null) send({ type: "show_hand", allow: showHand });
    }
    if (XZ.i18n.lang() !== lang) { lang = XZ.i18n.lang(); if (table) renderTable(); }
    if (st) reconcileHand(); // the void-suit aid may sort the hand anew
    render();
  });
  // Debug hook for tests and curious players: the current order of the hand.
  XZ.handOrder = () => order.slice();
  // ... and the last state message (with how many of the hand's events the page holds).
  XZ.lastState = () => (st ? { ...st, n_events: events.length } : null);
  // ... and the public views of this hand's events the page holds.
  XZ.handEvents = () => events.slice();
  // ... and a meld's markup (melder, giver), for the test of which tile turns towards whom.
  // ... and the event list's lines as the page would build them whole.
  XZ.logLines = logItems;
  XZ.meldHTML = (kind, tile, melder, giver) => meldHTML(kind, tile, melder, giver, "cn", "");
  connect();
})(window.XZ);
