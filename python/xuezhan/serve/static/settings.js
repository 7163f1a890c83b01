// The settings dialog: sound effects, animation, music, background, tile style (localStorage).
"use strict";
window.XZ = window.XZ || {};
(function (XZ) {
  const KEY = "xuezhan.settings";
  const DEFAULTS = { sound: true, animation: true, music: false, background: "felt", tiles: "cn", showHand: false };
  const BACKGROUNDS = { felt: "Green felt", blue: "Blue", wood: "Wood", dark: "Dark" };
  let current = load();
  const listeners = [];

  function load() {
    try {
      return Object.assign({}, DEFAULTS, JSON.parse(localStorage.getItem(KEY) || "{}"));
    } catch (e) {
      return Object.assign({}, DEFAULTS);
    }
  }
  function apply() {
    const b = document.body;
    b.dataset.bg = current.background;
    b.classList.toggle("anim", !!current.animation);
    if (XZ.music) XZ.music.set(!!current.music);
    listeners.forEach((f) => f(current));
  }
  XZ.settings = {
    get: () => current,
    onChange: (f) => listeners.push(f),
    set(k, v) {
      current[k] = v;
      localStorage.setItem(KEY, JSON.stringify(current));
      apply();
    },
    // Build the dialog into <dialog id="settings"> and wire the button #settings-btn.
    init() {
      const dlg = document.getElementById("settings");
      if (dlg) {
        dlg.innerHTML = `<form method="dialog" class="settings-form">
          <h2>Settings</h2>
          <label><input type="checkbox" name="sound"> Sound effects</label>
          <label><input type="checkbox" name="animation"> Animation</label>
          <label><input type="checkbox" name="music"> Music</label>
          <label><input type="checkbox" name="showHand"> 允许旁观看牌 · let spectators see my tiles</label>
          <label>Background <select name="background">${Object.entries(BACKGROUNDS).map(([k, v]) => `<option value="${k}">${v}</option>`).join("")}</select></label>
          <label>Tiles <select name="tiles"><option value="cn">Chinese characters (五筒)</option><option value="label">Labels (5p)</option></select></label>
          <button value="close" id="settings-close">Close</button></form>`;
        for (const el of dlg.querySelectorAll("input,select")) {
          const k = el.name;
          if (el.type === "checkbox") el.checked = !!current[k];
          else el.value = current[k];
          el.addEventListener("change", () => XZ.settings.set(k, el.type === "checkbox" ? el.checked : el.value));
        }
        const btn = document.getElementById("settings-btn");
        if (btn) btn.addEventListener("click", () => dlg.showModal());
      }
      apply();
    },
  };
})(window.XZ);
