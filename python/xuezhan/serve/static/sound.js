// Sound effects and music generated in the browser with WebAudio oscillators (no files).
"use strict";
window.XZ = window.XZ || {};
(function (XZ) {
  let ctx = null;
  function audio() {
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
  const EFFECTS = {
    discard: () => beep(660, 0.08, 0, "triangle"),
    draw: () => beep(440, 0.05, 0, "sine", 0.06),
    claim: () => { beep(523, 0.1); beep(784, 0.14, 0.09); },
    win: () => [523, 659, 784, 1047].forEach((f, i) => beep(f, 0.22, i * 0.11, "triangle", 0.15)),
    tick: () => beep(1200, 0.03, 0, "square", 0.04),
    error: () => beep(180, 0.15, 0, "sawtooth", 0.06),
  };
  XZ.sound = {
    play(name) {
      if (XZ.settings && XZ.settings.get().sound && EFFECTS[name]) EFFECTS[name]();
    },
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
