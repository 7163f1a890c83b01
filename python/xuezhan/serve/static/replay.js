// The replay viewer: a logged hand, event by event, all four hands open, forward and back.
"use strict";
(function (XZ) {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  let doc = null;
  let i = 0;
  // what the review panel (review.js) uses: the shown log's source ({id} or {body}: the review
  // asks for the same log), a hook called when a log is shown, and go(step)
  XZ.replay = { source: null, onShow: null, go: (n) => go(n) };

  function show(doc_, src) {
    doc = doc_;
    i = 0;
    // the seed (39 digits) wraps: it never widens a phone's page
    $("name").textContent = `${doc.name} · ${doc.preset || ""}`;
    $("pos").max = doc.frames.length - 1;
    $("settle-lines").innerHTML = doc.settlement.map((l) => `<li>${esc(l)}</li>`).join("");
    XZ.fair.onReplay(doc);
    render();
    XZ.replay.source = src;
    if (XZ.replay.onShow) XZ.replay.onShow(doc, src);
  }
  async function load(url, opts, src) {
    const r = await fetch(url, opts);
    const j = await r.json();
    if (!r.ok) { $("message").textContent = j.error; return; }
    $("message").textContent = "";
    show(j, src);
  }
  function render() {
    if (!doc) return;
    const f = doc.frames[i];
    const style = XZ.settings.get().tiles;
    $("pos").value = i;
    $("count").textContent = `${i} / ${doc.frames.length - 1}`;
    $("event").textContent = f.text;
    $("wall").textContent = XZ.t("rp_wall", { n: f.wall_count });
    $("seats").innerHTML = [0, 1, 2, 3].map((s) => {
      const hand = XZ.splitTiles(f.hands[s]).map((t) => XZ.tileSVG(t, style, "small")).join("");
      const melds = f.melds[s].map(([k, t]) => `<span class="meld${k === "angang" ? " concealed" : ""}">${XZ.tileSVG(t, style, "small").repeat(k === "peng" ? 3 : 4)}</span>`).join("");
      const river = XZ.splitTiles(f.discards[s]).map((t) => XZ.tileSVG(t, style, "small")).join("");
      const nwins = f.wins ? f.wins[s].length / 2 : 0;
      const status = (f.won[s] ? ` <span class="won">won${nwins > 1 ? ` ×${nwins}` : ""}</span>` : f.escaped[s] ? ' <span class="escaped">escaped</span>' : "")
        + (f.locked && f.locked[s] ? ' <span class="locked" title="won and stays in: its hand is locked (R14.2)">锁 locked</span>' : "");
      // each win's tile, in order; the self-drawn ones lie set aside in front of the seat (R14.1)
      const wins = nwins ? `<div class="wins" data-wins="${f.wins[s]}" data-aside="${f.aside[s]}">和 ${XZ.splitTiles(f.wins[s]).map((t) => `<span class="win-tile">${XZ.tileSVG(t, style, "small")}</span>`).join("")}</div>` : "";
      // a tournament's log names no one: its seats are "seat N", said in the page's language
      const given = doc.names && doc.names[s] ? doc.names[s] : `seat ${s}`;
      const name = /^seat \d$/.test(given) ? XZ.t("seat_word", { n: s }) : given;
      const wind = "东南西北"[(s - doc.dealer + 4) % 4];
      return `<div class="rseat" data-seat="${s}"><div class="who"><b class="nm">${esc(name)}</b> <span class="wind">${wind}</span>${doc.dealer === s ? ' <span class="dealer">庄</span>' : ""}
        ${f.voids[s] ? `<span class="void">缺${XZ.suitName(f.voids[s])}</span>` : ""} <span class="score">${f.deltas[s] > 0 ? "+" : ""}${f.deltas[s]}</span>${status}</div>
        <div class="melds hand" data-hand="${f.hands[s]}">${hand}</div><div class="melds">${melds}</div>${wins}<div class="river">${river}</div></div>`;
    }).join("");
    $("settle").hidden = i !== doc.frames.length - 1;
  }
  function go(n) {
    if (!doc) return;
    i = Math.max(0, Math.min(doc.frames.length - 1, n));
    render();
  }
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(i - 1);
  $("next").onclick = () => go(i + 1);
  $("last").onclick = () => go(Infinity);
  $("pos").oninput = (e) => go(+e.target.value);
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: Infinity }[e.key];
    if (to === undefined) return;
    e.preventDefault(); // the keys step the replay; they do not also scroll the (long) page
    go(to);
  });
  $("logs").onchange = (e) => { if (e.target.value !== "") load(`/api/replay/${encodeURIComponent(e.target.value)}`, undefined, { id: e.target.value }); };
  $("file").onchange = async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    const body = await file.arrayBuffer();
    load("/api/replay", { method: "POST", body }, { body });
  };
  XZ.settings.init();
  XZ.settings.onChange(render);
  // The first log is fetched once every script of the page has run: review.js hooks onShow, and
  // a loaded server can answer these requests before it has sent that script (the review the
  // address asks for was then never started).
  async function start() {
    const logs = await (await fetch("/api/logs")).json();
    $("logs").innerHTML += logs.map((l) => `<option value="${l.id}">${esc(l.name)}</option>`).join("");
    const want = new URLSearchParams(location.search).get("log");
    if (want !== null) { $("logs").value = want; load(`/api/replay/${encodeURIComponent(want)}`, undefined, { id: want }); }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(window.XZ);
