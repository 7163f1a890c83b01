// The settings dialog (localStorage "xuezhan.settings"): language (Chinese first, English on
// request), sound effects, animation, music, background, tile style, 允许旁观看牌, and each
// player aid. Animation starts off when the system asks for reduced motion.
"use strict";
window.XZ = window.XZ || {};
(function (XZ) {
  const KEY = "xuezhan.settings";
  const reduced = !!(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);
  const DEFAULTS = {
    lang: "zh", sound: true, animation: !reduced, music: false, background: "felt", tiles: "cn", showHand: false,
    aidWaits: true, aidVoids: true, aidSuggest: true, aidFloat: true,
  };
  const BACKGROUNDS = ["felt", "blue", "wood", "dark"];
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
    if (XZ.i18n) XZ.i18n.apply(document);
    listeners.forEach((f) => f(current));
  }
  function check(name, key) {
    return `<label><input type="checkbox" name="${name}"> <span data-i18n="${key}"></span></label>`;
  }
  function build(dlg) {
    const t = XZ.t;
    dlg.innerHTML = `<form method="dialog" class="settings-form">
      <h2 data-i18n="s_title"></h2>
      <label><span data-i18n="s_lang"></span> <select name="lang"><option value="zh">中文</option><option value="en">English</option></select></label>
      ${check("sound", "s_sound")}${check("animation", "s_anim")}${check("music", "s_music")}
      <label><span data-i18n="s_bg"></span> <select name="background">${BACKGROUNDS.map((k) => `<option value="${k}">${t("bg_" + k)}</option>`).join("")}</select></label>
      <label><span data-i18n="s_tiles"></span> <select name="tiles"><option value="cn">${t("s_tiles_cn")}</option><option value="label">${t("s_tiles_label")}</option></select></label>
      ${check("showHand", "s_show")}
      <fieldset><legend data-i18n="s_aids"></legend>${check("aidWaits", "s_aid_waits")}${check("aidVoids", "s_aid_voids")}${check("aidSuggest", "s_aid_suggest")}${check("aidFloat", "s_aid_float")}</fieldset>
      <button value="close" id="settings-close" data-i18n="close"></button></form>`;
    for (const el of dlg.querySelectorAll("input,select")) {
      const k = el.name;
      if (el.type === "checkbox") el.checked = !!current[k];
      else el.value = current[k];
      el.addEventListener("change", () => {
        XZ.settings.set(k, el.type === "checkbox" ? el.checked : el.value);
        if (k === "lang") build(dlg); // the dialog's own words change language too
      });
    }
    if (XZ.i18n) XZ.i18n.apply(dlg);
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
        build(dlg);
        const btn = document.getElementById("settings-btn");
        if (btn) btn.addEventListener("click", () => dlg.showModal());
      }
      apply();
    },
  };
})(window.XZ);
