// Fair deals and identities in the browser (docs/room.md): the player secret and host keys kept
// in localStorage, and the deal's commitment shown at the deal and checked when the seed is
// revealed (SHA-256 of "xuezhan-deal:<seed>").
"use strict";
(function (XZ) {
  const SECRET_KEY = "xuezhan.player.secret";
  const hostKey = (tableId) => "xuezhan.host." + tableId;

  // The browser's player secret: made once (32 random URL-safe characters), kept for good.
  function playerSecret() {
    let s = localStorage.getItem(SECRET_KEY);
    if (!s) {
      const bytes = crypto.getRandomValues(new Uint8Array(24));
      s = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
      localStorage.setItem(SECRET_KEY, s);
    }
    return s;
  }

  // SHA-256 of the seed's text, or null where the page cannot compute it (WebCrypto needs a
  // secure context: https or localhost); the page then shows the sha256sum command instead.
  async function commitmentOf(seed) {
    if (!(window.crypto && crypto.subtle)) return null;
    const data = new TextEncoder().encode("xuezhan-deal:" + seed);
    const h = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
    return Array.from(h, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  const t = (key, params) => (XZ.t ? XZ.t(key, params) : key);

  // The check of a revealed seed: its code ("matches", "differs", "unchecked": no WebCrypto)
  // and its words in the page's language (for "unchecked", the command to check it by hand).
  async function verdict(seed, commitment) {
    const got = await commitmentOf(seed);
    if (got === null) return { code: "unchecked", text: t("fair_check", { seed }) };
    return got === commitment ? { code: "matches", text: t("fair_matches") } : { code: "differs", text: t("fair_differs") };
  }

  function badge() {
    let el = document.getElementById("deal");
    if (!el) {
      el = document.createElement("span");
      el.id = "deal";
      el.className = "deal";
      el.style.wordBreak = "break-all"; // a 64-digit hash must not widen a phone screen
      const bar = document.querySelector("header.bar") || document.body;
      bar.insertBefore(el, bar.querySelector("#settings-btn"));
    }
    return el;
  }

  // The table page: the commitment from the deal on, the seed and its check once over.
  let shown = "";
  function onState(m) {
    if (!m.commitment) return;
    const key = m.commitment + (m.seed || "");
    if (key === shown) return;
    shown = key;
    const el = badge();
    el.dataset.commitment = m.commitment;
    el.title = t("fair_title", { c: m.commitment });
    el.textContent = `${t("fair_deal")} ${m.commitment.slice(0, 12)}…`;
    if (m.seed) {
      el.dataset.seed = m.seed;
      verdict(m.seed, m.commitment).then((v) => {
        el.textContent = `${t("fair_deal")} ${m.commitment.slice(0, 12)}… ${t("fair_seed")} ${m.seed} ${v.text}`;
        el.dataset.verdict = v.code;
      });
    }
  }

  // The replay page: the stored commitment and seed, checked here.
  function onReplay(doc) {
    const el = badge();
    if (!doc.commitment) { el.textContent = doc.seed ? `${t("fair_seed")} ${doc.seed}` : ""; return; }
    el.dataset.commitment = doc.commitment;
    el.textContent = `${t("fair_seed")} ${doc.seed} · ${t("fair_commitment")} ${doc.commitment}`;
    verdict(doc.seed, doc.commitment).then((v) => {
      el.textContent = `${t("fair_seed")} ${doc.seed} · ${t("fair_commitment")} ${doc.commitment} · ${v.text}`;
      el.dataset.verdict = v.code;
    });
  }

  XZ.fair = { playerSecret, hostKey, commitmentOf, onState, onReplay };
})(window.XZ = window.XZ || {});
