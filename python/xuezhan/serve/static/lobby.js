// The lobby: the list of tables and a form to open one.
"use strict";
(function (XZ) {
  const $ = (id) => document.getElementById(id);
  const t = XZ.t;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  let tables = [];
  let bots = [];

  function renderTables() {
    if (!tables.length) return;
    $("tables").innerHTML = tables.map((x) => {
      const seats = x.seats.map((s) => (s.kind === "empty" ? "·" : s.kind === "bot" ? `${esc(s.name)} (${esc(t("bot"))})` : esc(s.name))).join(", ");
      // data-label: on a phone each row is a card, every cell saying what it is; the hand
      // number is the table page's (XZ.i18n.handNo)
      return `<tr data-table="${esc(x.id)}"><td class="tname">${esc(x.name)}</td><td data-label="${esc(t("t_rules"))}">${esc(x.preset)}</td><td data-label="${esc(t("t_hand"))}" class="hand-no">${XZ.i18n.handNo(x)}/${x.hands}</td><td data-label="${esc(t("t_seats"))}">${seats}</td><td data-label="${esc(t("t_watching"))}">${x.spectators}</td>
        <td><a href="/table/${encodeURIComponent(x.id)}">${esc(t("t_open"))}</a></td></tr>`;
    }).join("");
  }

  function renderSeats() {
    // each bot by its label (what it is: "search" looks ahead and is slower); its name is the value
    const kept = [0, 1, 2, 3].map((s) => { const el = document.querySelector(`select[name=seat${s}]`); return el ? el.value : ""; });
    $("seat-choices").innerHTML = [0, 1, 2, 3].map((s) => `<label>${esc(t("seat_n", { n: s }))} <select name="seat${s}"><option value="">${esc(t("a_person"))}</option>${bots.map((b) => `<option value="${esc(b.name)}">${esc(b.label)}</option>`).join("")}</select></label>`).join(" ");
    kept.forEach((v, s) => { document.querySelector(`select[name=seat${s}]`).value = v; });
  }

  async function refresh() {
    const r = await fetch("/api/tables");
    tables = await r.json();
    renderTables();
  }

  async function init() {
    bots = await (await fetch("/api/bots?labels=1")).json();
    renderSeats();
    $("create").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = new FormData(ev.target);
      const body = { name: f.get("name") || "", preset: f.get("preset"), hands: +f.get("hands"), bots: [0, 1, 2, 3].map((s) => f.get(`seat${s}`) || null) };
      const r = await fetch("/api/tables", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const j = await r.json();
      if (!r.ok) { $("message").textContent = j.error; return; }
      localStorage.setItem("xuezhan.host." + j.id, j.host_token); // this browser opened it: its host
      location.href = `/table/${encodeURIComponent(j.id)}`;
    });
    refresh();
    setInterval(refresh, 2000);
  }
  XZ.settings.init();
  XZ.settings.onChange(() => { renderTables(); if (bots.length) renderSeats(); });
  init();
})(window.XZ);
