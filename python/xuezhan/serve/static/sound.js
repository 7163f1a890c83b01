// Sound effects and music generated in the browser with WebAudio oscillators (no files).
// Nothing touches WebAudio before the page has had a click or a key press: browsers refuse
// sound until then (and warn for every attempt), so a spectator who never clicks hears nothing
// and gets no warnings; the first gesture starts the sound.
"use strict";
window.XZ = window.XZ || {};
(function (XZ) {
  let ctx = null;
  let gestured = !!(navigator.userActivation && navigator.userActivation.hasBeenActive);
  for (const ev of ["pointerdown", "keydown", "touchstart"]) {
    window.addEventListener(ev, () => { gestured = true; }, { capture: true, once: true, passive: true });
  }
  function audio() {
    if (!gestured) return null;
    if (!ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      ctx = new AC();
    }
    if (ctx.state === "suspended") ctx.resume();
    return ctx;
  }
  function beep(freq, dur, when, type, vol) {
    const a = audio();
    if (!a) return;
    const t = a.currentTime + (when || 0);
    const o = a.createOscillator(), g = a.createGain();
    o.type = type || "sine";
    o.frequency.value = freq;
    g.gain.setValueAtTime(vol || 0.12, t);
    g.gain.exponentialRampToValueAtTime(0.0001, t + dur);
    o.connect(g).connect(a.destination);
    o.start(t);
    o.stop(t + dur + 0.02);
  }
  // Each cue its own shape, so 碰, 杠, 胡 and 自摸 are told apart without looking.
  const EFFECTS = {
    discard: () => beep(660, 0.08, 0, "triangle"),
    draw: () => beep(440, 0.05, 0, "sine", 0.06),
    peng: () => { beep(523, 0.09, 0, "square", 0.07); beep(523, 0.09, 0.11, "square", 0.07); },          // two knocks
    gang: () => [392, 392, 392, 523].forEach((f, i) => beep(f, 0.08, i * 0.08, "square", 0.07)),          // four knocks
    hu: () => [523, 659, 784, 1047].forEach((f, i) => beep(f, 0.22, i * 0.11, "triangle", 0.15)),         // rising
    zimo: () => [1047, 784, 1047, 1319, 1568].forEach((f, i) => beep(f, 0.2, i * 0.09, "sine", 0.15)),    // a bright run
    pay: () => beep(988, 0.06, 0, "sine", 0.05),
    tick: () => beep(1200, 0.03, 0, "square", 0.04),
    error: () => beep(180, 0.15, 0, "sawtooth", 0.06),
  };
  XZ.sound = {
    play(name) {
      if (XZ.settings && XZ.settings.get().sound && EFFECTS[name]) EFFECTS[name]();
    },
    names: Object.keys(EFFECTS),
  };
  // Music: a slow pentatonic loop, quiet.
  let musicTimer = null;
  const TUNE = [392, 440, 523, 587, 659, 587, 523, 440, 392, 330, 392, 440];
  XZ.music = {
    set(on) {
      if (on && !musicTimer) {
        let i = 0;
        musicTimer = setInterval(() => { beep(TUNE[i % TUNE.length], 0.5, 0, "sine", 0.035); i++; }, 600);
      } else if (!on && musicTimer) {
        clearInterval(musicTimer);
        musicTimer = null;
      }
    },
  };
})(window.XZ);
