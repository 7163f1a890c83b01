"""The game room ships its own CJK web font, "Xuezhan CJK" (a subset of Noto Sans CJK SC, SIL
OFL 1.1), so tiles, labels and names render on a machine without a CJK font:

- the UI face holds every CJK character the pages and the server's texts use, and is small;
- the names slices hold GB2312's 6,763 hanzi (Python's own gb2312 codec is the oracle), each
  slice small, together about 1.1 MB;
- faces.css declares each file with a unicode-range of exactly the characters it holds (so a
  browser downloads only what a page needs), every page's stylesheet imports it, no page
  preloads a font, and the wheel ships every file with the licence;
- in Debian chromium with no CJK font at all (a fontconfig of DejaVu only), the standings page
  of the player 李明 draws every CJK character as a glyph, not a box, and downloads the UI face
  and the one slice that holds 李 and 明, nothing else; with the machine's CJK fonts it
  downloads no font at all.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import time
import tomllib
from pathlib import Path

import pytest
from _browser import ART, CHROMIUM
from _room_helpers import live_server
from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "python" / "xuezhan" / "serve"
STATIC = SERVE / "static"
FONTS = STATIC / "fonts"
FONT = FONTS / "xuezhan-cjk.woff2"
FACES = FONTS / "faces.css"
LICENCE = FONTS / "OFL.txt"

# CJK radicals, symbols and punctuation, kana, unified ideographs (and extension A),
# compatibility ideographs, full-width forms: what a Latin-only machine cannot draw
CJK = re.compile("[\u2e80-\u2fdf\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _used() -> dict[str, set[str]]:
    files = [p for p in STATIC.iterdir() if p.suffix in (".html", ".js", ".css")]
    files += [SERVE / "words.py", SERVE / "replay.py"]  # texts the server sends to the pages
    used = {p.name: set(CJK.findall(p.read_text(encoding="utf-8"))) for p in files}
    # labels the server's texts read from the package (fan names from the core, payment words)
    from xuezhan.engine.fired import FIRED, PAYMENTS
    from xuezhan.rules import FAN_NAMES

    labels = "".join([*FAN_NAMES.values(), *PAYMENTS.values(), *(r.words for r in FIRED.values())])
    used["labels"] = set(CJK.findall(labels))
    return used


def _gb2312() -> set[str]:
    out = set()
    for hi in range(0xB0, 0xF8):
        for lo in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):  # the unused cells at the end of row 55
                out.add(bytes([hi, lo]).decode("gb2312"))
    return out


def _faces() -> list[tuple[str, set[int]]]:
    """Each @font-face of faces.css: its file and the code points of its unicode-range."""
    out = []
    for url, rng in re.findall(r'url\("/static/fonts/([^"]+)"\).*?unicode-range: ([^;]+);', FACES.read_text(), re.S):
        cps: set[int] = set()
        for part in rng.split(","):
            lo, _, hi = part.strip().removeprefix("U+").partition("-")
            cps.update(range(int(lo, 16), int(hi or lo, 16) + 1))
        out.append((url, cps))
    return out


def test_every_cjk_character_of_the_pages_is_in_the_font():
    cmap = TTFont(str(FONT)).getBestCmap()
    used = _used()
    assert sum(len(c) for c in used.values()) > 30  # the tiles' numerals and suits at least
    missing = {name: "".join(sorted(c for c in chars if ord(c) not in cmap)) for name, chars in used.items()}
    missing = {k: v for k, v in missing.items() if v}
    assert not missing, f"characters not in the room's font (run tools/subset_font.py): {missing}"
    for ch in "一二三四五六七八九万筒条东南西北庄缺和杠碰过花猪查叫听积分":
        assert ord(ch) in cmap, ch


def test_the_names_slices_cover_gb2312_each_face_declaring_exactly_what_it_holds():
    faces = _faces()
    assert faces[-1][0] == FONT.name  # the pages' own face last: checked first by a browser
    covered: set[int] = set()
    for name, cps in faces:
        cmap = set(TTFont(str(FONTS / name)).getBestCmap())
        cjk = {cp for cp in cmap if cp > 0xFF}
        assert cps == cjk, f"{name}: its unicode-range is not the characters it holds"
        assert not covered & cps, f"{name} overlaps another face"
        covered |= cps
    gb = _gb2312()
    assert len(gb) == 6763
    missing = "".join(sorted(c for c in gb if ord(c) not in covered))
    assert not missing, f"GB2312 hanzi no face holds: {missing[:40]}"
    assert {ord("李"), ord("明"), ord("张")} <= covered
    assert len(faces) >= 10  # sliced: a page never loads them all for a name


def test_the_fonts_are_small_renamed_subsets_under_their_licence():
    ui = FONT.stat().st_size
    slices = sorted(FONTS.glob("xuezhan-names-*.woff2"))
    sizes = [p.stat().st_size for p in slices]
    assert ui < 100_000, f"the pages' face is {ui} bytes"
    assert max(sizes) < 64_000 and sum(sizes) < 1_300_000, (max(sizes), sum(sizes))
    for path in [FONT, *slices]:
        font = TTFont(str(path))
        assert font.flavor == "woff2"
        family = font["name"].getDebugName(1)
        assert family == "Xuezhan CJK" and "Noto" not in family  # a modified version is renamed (OFL 3)
        assert "Adobe" in font["name"].getDebugName(0)  # the copyright notice is kept (OFL 2)
    text = LICENCE.read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in text and "Noto Sans CJK" in text


#: CJK families a machine may have, whose names do not say so
_CJK_FAMILIES = {
    "Source Han Sans SC",
    "PingFang SC",
    "Hiragino Sans GB",
    "Microsoft YaHei",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
}


def test_every_page_imports_the_faces_none_preloads_a_font_and_the_wheel_ships_them():
    css = (STATIC / "room.css").read_text(encoding="utf-8")
    assert '@import url("/static/fonts/faces.css");' in css and "@font-face" not in css
    # after the machine's own CJK fonts, and before any Latin one (see the test below)
    families = [f.strip().strip('"') for f in re.search(r"body \{[^}]*?font: [^ ]+ ([^;]+);", css).group(1).split(",")]
    assert families[-3:] == ["Xuezhan CJK", "system-ui", "sans-serif"], families
    assert all("CJK" in f or f in _CJK_FAMILIES for f in families[:-2]), families
    assert "Xuezhan CJK" in (STATIC / "tiles.js").read_text(encoding="utf-8")  # tiles draw with it
    for page in STATIC.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert '<link rel="stylesheet" href="/static/room.css">' in html, page.name
        assert 'rel="preload"' not in html, f"{page.name} preloads a font it may not need"
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = [i["path"] for i in conf["tool"]["maturin"]["include"] if "wheel" in i["format"]]
    for f in [FONT, FACES, LICENCE, *FONTS.glob("xuezhan-names-*.woff2")]:
        rel = f.relative_to(ROOT).as_posix()
        assert any(fnmatch.fnmatch(rel, g) and g.count("/") == rel.count("/") for g in wheel), rel


# --------------------------------------------------------------------------- in the browser
_NO_CJK = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>{cache}</cachedir></fontconfig>
"""

#: Each text of the page with CJK in it: the advance of its first CJK character against the
#: font size (a CJK glyph is one em wide; a missing one, drawn as a box, is not).
_WIDTHS = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest("[hidden], dialog, script")) continue;
    const i = [...n.textContent].findIndex((c) => c >= "\\u4e00" && c <= "\\u9fff");
    if (i < 0) continue;
    const at = n.textContent.indexOf([...n.textContent][i]);
    const r = document.createRange();
    r.setStart(n, at);
    r.setEnd(n, at + 1);
    const w = r.getBoundingClientRect().width;
    if (w === 0) continue;
    out.push([n.textContent.trim().slice(0, 20), w / parseFloat(getComputedStyle(el).fontSize)]);
  }
  return out;
}"""


#: The advance of a CJK glyph against the font size: one em, give or take (a box is not).
_EM = (0.9, 1.15)


def _fonts_fetched(page) -> list[str]:
    names = page.evaluate("performance.getEntriesByType('resource').map((e) => e.name.split('/').pop())")
    return [n for n in names if n.endswith(".woff2")]


@pytest.fixture(scope="module")
def standings_of_li_ming():
    from xuezhan.serve.app import create_app
    from xuezhan.serve.lobby import Room

    room = Room()
    room.ledger.identify("李明", "s" * 32, None)
    with live_server(create_app(room)) as base:
        yield base + "/standings?name=" + "李明"


def test_a_machine_without_cjk_fonts_draws_names_and_labels_loading_only_what_the_page_needs(
    standings_of_li_ming, tmp_path
):
    from playwright import sync_api

    conf = tmp_path / "fonts.conf"
    conf.write_text(_NO_CJK.format(cache=tmp_path / "cache"))
    env = dict(os.environ, FONTCONFIG_FILE=str(conf))
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], env=env)
        page = b.new_page(viewport={"width": 390, "height": 844})
        # the page's script held back 0.3 s, as on a busy machine: the names slice then loads
        # after the page's face has drawn the header (with a Latin font named before the room's,
        # Chromium drew the title as boxes from then on, every time)
        page.route("**/standings.js", lambda route: (time.sleep(0.3), route.continue_()))
        page.goto(standings_of_li_ming)
        page.wait_for_function("document.getElementById('player-name').textContent === '李明'")
        # a face is fetched only once layout asks for it, so fonts.ready can resolve before the
        # slices are in: wait (bounded) until every CJK text measures one em, then check
        with contextlib.suppress(sync_api.TimeoutError):  # the assertion below names what is not
            page.wait_for_function(f"(({_WIDTHS})()).every(([, w]) => w >= {_EM[0]} && w <= {_EM[1]})", timeout=15_000)
        # the premise: this browser has no CJK font of its own (李 in sans-serif is a box)
        tofu = page.evaluate(
            """() => { const draw = (t, f) => { const c = document.createElement('canvas'); c.width = c.height = 40;
              const x = c.getContext('2d'); x.font = f; x.fillText(t, 2, 30); return c.toDataURL(); };
              return draw('李', '22px sans-serif') === draw('\\uE000', '22px sans-serif'); }"""
        )
        assert tofu, "the test browser found a CJK font of its own"
        widths = page.evaluate(_WIDTHS)
        assert len(widths) >= 5
        boxes = [(text, round(w, 2)) for text, w in widths if not _EM[0] <= w <= _EM[1]]
        assert not boxes, f"characters drawn as boxes (their advance is not one em): {boxes}"
        page.screenshot(path=str(ART / "fonts-no-cjk-standings.png"))
        slice_of = {name for name, cps in _faces() if ord("李") in cps or ord("明") in cps}
        assert sorted(_fonts_fetched(page)) == sorted({"xuezhan-cjk.woff2", *slice_of})
        b.close()


def test_a_machine_with_cjk_fonts_downloads_no_font_for_the_standings(standings_of_li_ming, browser):
    page = browser.new_page()
    page.goto(standings_of_li_ming)
    page.wait_for_function("document.getElementById('player-name').textContent === '李明'")
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(300)
    assert _fonts_fetched(page) == []
    page.close()
