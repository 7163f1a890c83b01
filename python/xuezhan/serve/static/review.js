// The replay page's review: one seat's decisions in the shown hand, each with the played action
// and the best one estimated by the server (determinized rollouts), sorted by the points lost;
// a step link jumps the replay to the position of that decision.
"use strict";
(function (XZ) {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const num = (x) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(2);
  const est = (v) => `${esc(v.action)} <span class="mean">${num(v.mean)}</span> <span class="ci">[${num(v.low)}, ${num(v.high)}]</span>`;
  let source = null;
  let busy = false;
  let autoSeat = new URLSearchParams(location.search).get("review");

  function where(d) {
    const p = d.position;
    if (p.phase === "claim") return `${esc(p.hand)}, ${esc(p.claim_tile)} from seat ${p.claim_from}`;
    return p.drawn ? `${esc(p.hand)}, drew ${esc(p.drawn)}` : esc(p.hand);
  }

  function show(rv) {
    const who = rv.name ? `${rv.name} (seat ${rv.seat})` : `seat ${rv.seat}`;
    $("review-note").hidden = false;
    $("review-note").textContent = rv.decisions.length === 0
      ? `No decision of ${who} had a choice: nothing to review.`
      : `${who}: ${rv.decisions.length} decisions, ${rv.total_loss.toFixed(2)} points lost in all (the hand's result ${num(rv.delta)}). ` +
        `Each estimate is the seat's mean result for the whole hand after the action, with its 95% interval, over ` +
        `${rv.rollouts} rollouts from hands consistent with what the seat knew (${rv.policy} bots at all four seats). ` +
        `Loss = the best action's mean less the played one's.` +
        (rv.unreviewed.length ? ` Not reviewed (no consistent sample): log lines ${rv.unreviewed.join(", ")}.` : "");
    $("review-rows").innerHTML = rv.by_loss.map((k) => {
      const d = rv.decisions[k];
      const best = d.best.length && d.best[0].mean > d.played.mean ? d.best[0] : d.played;
      const phase = d.position.phase + (d.default ? " (timeout)" : "");
      const n = d.estimated < d.legal ? `${d.played.rollouts} (best ${d.estimated} of ${d.legal})` : `${d.played.rollouts}`;
      return `<tr data-event="${d.event}" class="${d.loss > 0 ? "lost" : "kept"}"><td class="loss">${d.loss.toFixed(2)}</td>` +
        `<td><a href="#" class="step" data-step="${d.step}">step ${d.step}</a></td><td>${d.position.turn}</td><td>${esc(phase)}</td>` +
        `<td class="pos">${where(d)}</td><td class="played">${est(d.played)}</td><td class="best">${est(best)}</td><td>${n}</td></tr>`;
    }).join("");
    $("review-table").hidden = rv.decisions.length === 0;
  }

  async function review() {
    if (!source || busy) return;
    const seat = $("review-seat").value;
    const asked = source; // another hand may be opened meanwhile: its panel must not get this review
    busy = true;
    $("review-go").disabled = true;
    $("review-status").textContent = `reviewing seat ${seat}… (the server plays the hand forward thousands of times; up to a minute)`;
    try {
      const r = source.id !== undefined
        ? await fetch(`/api/review/${encodeURIComponent(source.id)}?seat=${seat}`)
        : await fetch(`/api/review?seat=${seat}`, { method: "POST", body: source.body });
      const j = await r.json();
      if (asked !== source) return;
      if (!r.ok) { $("review-status").textContent = j.error; return; }
      $("review-status").textContent = "";
      show(j);
    } catch (e) {
      if (asked === source) $("review-status").textContent = `the review failed: ${e}`;
    } finally {
      busy = false;
      $("review-go").disabled = false;
    }
  }

  XZ.replay.onShow = (doc, src) => {
    source = src;
    $("review").hidden = !src;
    $("review-table").hidden = true;
    $("review-note").hidden = true;
    $("review-status").textContent = "";
    $("review-seat").innerHTML = [0, 1, 2, 3].map((s) => `<option value="${s}">${esc(doc.names && doc.names[s] ? doc.names[s] : `seat ${s}`)}</option>`).join("");
    if (autoSeat !== null && /^[0-3]$/.test(autoSeat)) { $("review-seat").value = autoSeat; autoSeat = null; review(); }
  };
  $("review-go").onclick = review;
  $("review-rows").onclick = (e) => {
    const a = e.target.closest("a.step");
    if (!a) return;
    e.preventDefault();
    XZ.replay.go(+a.dataset.step);
    window.scrollTo({ top: 0 });
  };
})(window.XZ);
