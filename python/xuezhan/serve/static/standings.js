// The standings (积分): the leaderboard, and with ?name=PLAYER that player's history with
// replay links (GET /api/standings, GET /api/players/{name}).
"use strict";
(function (XZ) {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const PAGE = 100;
  let offset = 0;
  const WHAT = { hand: "hand", escape: "escape penalty (逃跑, R8)", reset: "reset (清零)" };

  async function board() {
    const r = await fetch(`/api/standings?offset=${offset}&limit=${PAGE}`);
    const rows = await r.json();
    if (!r.ok) { $("message").textContent = rows.error; return; }
    if (offset === 0 && rows.length) $("rows").innerHTML = "";
    $("rows").insertAdjacentHTML("beforeend", rows.map((p, i) => `<tr><td>${offset + i + 1}</td>
      <td><a href="/standings?name=${encodeURIComponent(p.name)}">${esc(p.name)}</a></td><td>${p.points}</td><td>${p.hands}</td></tr>`).join(""));
    offset += rows.length;
    $("more").hidden = rows.length < PAGE;
  }

  async function player(name) {
    $("board").hidden = true;
    $("player").hidden = false;
    $("player-name").textContent = name;
    const r = await fetch(`/api/players/${encodeURIComponent(name)}`);
    const p = await r.json();
    if (!r.ok) { $("message").textContent = p.error; return; }
    $("player-total").textContent = `${p.points} points over ${p.hands} hand${p.hands === 1 ? "" : "s"}`;
    $("history").innerHTML = p.history.map((h) => `<tr><td>${esc(new Date(h.at * 1000).toLocaleString())}</td>
      <td>${esc(h.table || "")}</td><td>${h.seat === null ? "" : h.seat}</td><td>${esc(WHAT[h.kind] || h.kind)}</td>
      <td>${h.points > 0 ? "+" : ""}${h.points}</td>
      <td>${h.replay_id ? `<a href="/replay?log=${encodeURIComponent(h.replay_id)}">Replay</a>` : ""}</td></tr>`).join("");
  }

  XZ.settings.init();
  const name = new URLSearchParams(location.search).get("name");
  $("more").addEventListener("click", board);
  if (name) player(name); else board();
})(window.XZ);
