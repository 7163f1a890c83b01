// The standings (积分): the leaderboard, and with ?name=PLAYER that player's history with
// replay links (GET /api/standings, GET /api/players/{name}).
"use strict";
(function (XZ) {
  const $ = (id) => document.getElementById(id);
  const t = XZ.t;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const PAGE = 100;
  let offset = 0;
  let shown = null; // the player shown, for a change of language
  const WHAT = { hand: "st_hand", escape: "st_escape", reset: "st_reset" };

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

  function renderPlayer(p) {
    $("player-total").textContent = t("st_total", { points: XZ.points(p.points), hands: XZ.i18n.handsText(p.hands) });
    $("history").innerHTML = p.history.map((h) => `<tr><td>${esc(new Date(h.at * 1000).toLocaleString())}</td>
      <td>${esc(h.table || "")}</td><td>${h.seat === null ? "" : h.seat}</td><td>${esc(WHAT[h.kind] ? t(WHAT[h.kind]) : h.kind)}</td>
      <td>${h.points > 0 ? "+" : ""}${h.points}</td>
      <td>${h.replay_id ? `<a href="/replay?log=${encodeURIComponent(h.replay_id)}">${esc(t("st_replay"))}</a>` : ""}</td></tr>`).join("");
  }

  async function player(name) {
    $("leaderboard").hidden = true;
    $("player").hidden = false;
    $("player-name").textContent = name;
    const r = await fetch(`/api/players/${encodeURIComponent(name)}`);
    const p = await r.json();
    if (!r.ok) { $("message").textContent = p.error; return; }
    shown = p;
    renderPlayer(p);
  }

  XZ.settings.init();
  XZ.settings.onChange(() => { if (shown) renderPlayer(shown); });
  const name = new URLSearchParams(location.search).get("name");
  $("more").addEventListener("click", board);
  if (name) player(name); else board();
})(window.XZ);
