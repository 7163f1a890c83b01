// The lobby: the list of tables and a form to open one.
"use strict";
(function (XZ) {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

  async function refresh() {
    const r = await fetch("/api/tables");
    const tables = await r.json();
    if (!tables.length) return;
    $("tables").innerHTML = tables.map((t) => {
      const seats = t.seats.map((s) => (s.kind === "empty" ? "·" : s.kind === "bot" ? `${esc(s.name)} (bot)` : esc(s.name))).join(", ");
      // data-label: on a phone each row is a card, every cell saying what it is
      return `<tr><td class="tname">${esc(t.name)}</td><td data-label="Rules">${esc(t.preset)}</td><td data-label="Hand">${t.hand_no}/${t.hands} (${t.status})</td><td data-label="Seats">${seats}</td><td data-label="Watching">${t.spectators}</td>
        <td><a href="/table/${encodeURIComponent(t.id)}">Open</a></td></tr>`;
    }).join("");
  }

  async function init() {
    const bots = await (await fetch("/api/bots?labels=1")).json();
    // each bot by its label (what it is: "search" looks ahead and is slower); its name is the value
    $("seat-choices").innerHTML = [0, 1, 2, 3].map((s) => `<label>Seat ${s} <select name="seat${s}"><option value="">a person</option>${bots.map((b) => `<option value="${esc(b.name)}">${esc(b.label)}</option>`).join("")}</select></label>`).join(" ");
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
  init();
})(window.XZ);
