// Tiles drawn as SVG by the project (no images, nothing fetched): a tile is "5p" (RULES.md R0).
"use strict";
window.XZ = window.XZ || {};
(function (XZ) {
  const NUM = "一二三四五六七八九";
  const SUIT = { m: "万", p: "筒", s: "条" };
  const COLOR = { m: "#a3161a", p: "#16488f", s: "#15693a" };
  const ORDER = { m: 0, p: 1, s: 2 };
  // pip positions in the 60x80 face, per count (dots and sticks share them)
  const PIPS = {
    1: [[30, 40]],
    2: [[30, 22], [30, 58]],
    3: [[16, 18], [30, 40], [44, 62]],
    4: [[19, 22], [41, 22], [19, 58], [41, 58]],
    5: [[18, 20], [42, 20], [30, 40], [18, 60], [42, 60]],
    6: [[19, 18], [41, 18], [19, 40], [41, 40], [19, 62], [41, 62]],
    7: [[14, 15], [30, 24], [46, 33], [19, 52], [41, 52], [19, 68], [41, 68]],
    8: [[19, 14], [41, 14], [19, 31], [41, 31], [19, 48], [41, 48], [19, 65], [41, 65]],
    9: [[15, 18], [30, 18], [45, 18], [15, 40], [30, 40], [45, 40], [15, 62], [30, 62], [45, 62]],
  };

  XZ.tileKey = (t) => ORDER[t[1]] * 9 + (+t[0] - 1);
  XZ.sortTiles = (ts) => ts.slice().sort((a, b) => XZ.tileKey(a) - XZ.tileKey(b));
  // "5p5p6m" or the compact "556p" (as in "exchange 129p"): one "5p" per tile
  XZ.splitTiles = (s) => (s ? (s.match(/[1-9]+[mps]/g) || []).flatMap((g) => [...g.slice(0, -1)].map((d) => d + g.slice(-1))) : []);
  XZ.suitName = (s) => SUIT[s] || "";

  // The characters are drawn with the room's own CJK web font (static/fonts), so tiles look
  // the same on a machine without a CJK font.
  const CJK = "'Xuezhan CJK', 'Noto Sans CJK SC', serif";

  // A sideways tile (a claimed tile in a meld, turned towards the seat it came from): the face
  // turned a quarter to the left inside an 80x60 box.
  function sideways(svg) {
    return svg.replace(/^<svg class="tile([^"]*)" viewBox="0 0 60 80"([^>]*)>/, '<svg class="tile side$1" viewBox="0 0 80 60"$2><g transform="translate(0,60) rotate(-90)">')
      .replace(/<\/svg>$/, "</g></svg>");
  }

  // One tile as an SVG string; style "cn" (五 / 筒) or "label" (5p); back = face down;
  // opts.side: lying sideways (a claimed tile).
  XZ.tileSVG = function (tile, style, cls, opts) {
    const c = cls ? ` ${cls}` : "";
    if (!tile) {
      const back = `<svg class="tile back${c}" viewBox="0 0 60 80" aria-label="hidden tile"><rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#e8dcb8" stroke="#9c8f70" stroke-width="3"/><rect x="1.5" y="14" width="57" height="64.5" rx="6" fill="#2f7d57" stroke="#1c4a33" stroke-width="3"/><rect x="9" y="22" width="42" height="49" rx="4" fill="none" stroke="#9fd3b5" stroke-width="2"/></svg>`;
      return opts && opts.side ? sideways(back) : back;
    }
    const n = +tile[0], s = tile[1], col = COLOR[s];
    let body;
    if (style === "label") {
      body = `<text x="30" y="53" font-size="30" font-weight="700" fill="${col}" text-anchor="middle" font-family="sans-serif">${tile}</text>`;
    } else if (s === "m") {
      // 万: the numeral over the suit character
      body = `<text x="31" y="38" font-size="27" font-weight="700" fill="#1d1d1d" text-anchor="middle" font-family="${CJK}">${NUM[n - 1]}</text>` +
        `<text x="31" y="68" font-size="25" fill="${col}" text-anchor="middle" font-family="${CJK}">万</text>`;
    } else {
      // 筒 dots and 条 sticks drawn as pips, the way the tiles look
      const r = n === 1 ? 15 : n <= 5 ? 8.5 : 6.8;
      body = PIPS[n].map(([x, y]) => s === "p"
        ? `<circle cx="${x}" cy="${y}" r="${r}" fill="none" stroke="${col}" stroke-width="${n === 1 ? 4 : 2.6}"/><circle cx="${x}" cy="${y}" r="${r / 3}" fill="${n === 1 ? "#a3161a" : col}"/>`
        : `<rect x="${x - 3.2}" y="${y - (n === 1 ? 22 : n <= 6 ? 10 : 7.5)}" width="6.4" height="${n === 1 ? 44 : n <= 6 ? 20 : 15}" rx="3" fill="${(n === 5 || n === 9) && y === 40 ? "#a3161a" : col}"/>`).join("");
    }
    if (style !== "label") body += `<text x="6" y="14" font-size="11" font-weight="700" fill="#555" font-family="sans-serif">${n}</text>`;
    const svg = `<svg class="tile${c}" viewBox="0 0 60 80" data-tile="${tile}" role="img" aria-label="${tile}"><rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#fbf6e6" stroke="#9c8f70" stroke-width="3"/>${body}</svg>`;
    return opts && opts.side ? sideways(svg) : svg;
  };

  // A generated portrait: the name's initials on a colour derived from the name (the same
  // name always gets the same colour).
  XZ.portrait = function (name) {
    const words = String(name || "?").split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    const first = (w) => Array.from(w)[0] || "";
    let initials = words.length > 1 ? first(words[0]) + first(words[1]) : Array.from(words[0] || "?").slice(0, 2).join("");
    if (/^[a-z]/i.test(initials)) initials = initials[0].toUpperCase() + initials.slice(1);
    let h = 2166136261;
    for (const ch of String(name)) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
    return { initials, color: `hsl(${h % 360} 55% 38%)` };
  };
})(window.XZ);
