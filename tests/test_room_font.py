"""The game room ships its own CJK web font (a subset of Noto Sans CJK SC, SIL OFL 1.1) so tiles
and labels render on a machine without a CJK font: every CJK character the pages and the
server's texts use is in the font, the font is small, its licence lies beside it, the page's
stylesheet loads it and the wheel ships both."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "python" / "xuezhan" / "serve"
STATIC = SERVE / "static"
FONT = STATIC / "fonts" / "xuezhan-cjk.woff2"
LICENCE = STATIC / "fonts" / "OFL.txt"

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


def test_every_cjk_character_of_the_pages_is_in_the_font():
    cmap = TTFont(str(FONT)).getBestCmap()
    used = _used()
    assert sum(len(c) for c in used.values()) > 30  # the tiles' numerals and suits at least
    missing = {name: "".join(sorted(c for c in chars if ord(c) not in cmap)) for name, chars in used.items()}
    missing = {k: v for k, v in missing.items() if v}
    assert not missing, f"characters not in the room's font (run tools/subset_font.py): {missing}"
    for ch in "一二三四五六七八九万筒条东南西北庄缺和杠碰过花猪查叫听":
        assert ord(ch) in cmap, ch


def test_the_font_is_a_small_renamed_subset_under_its_licence():
    font = TTFont(str(FONT))
    assert font.flavor == "woff2"
    assert FONT.stat().st_size < 60_000, "the subset should stay small (tens of KB)"
    assert len(font.getBestCmap()) < 300  # a subset, not the whole CJK font
    family = font["name"].getDebugName(1)
    assert family == "Xuezhan CJK" and "Noto" not in family  # a modified version is renamed (OFL 3)
    assert "Adobe" in font["name"].getDebugName(0)  # the copyright notice is kept (OFL 2)
    text = LICENCE.read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in text and "Noto Sans CJK" in text


def test_the_stylesheet_loads_the_font_and_the_wheel_ships_it():
    css = (STATIC / "room.css").read_text(encoding="utf-8")
    face = re.search(r"@font-face\s*\{[^}]*\}", css)
    assert face and 'font-family: "Xuezhan CJK"' in face.group(0)
    url = re.search(r'url\("/static/([^"]+)"\)', face.group(0))
    assert url and (STATIC / url.group(1)) == FONT
    assert "Xuezhan CJK" in (STATIC / "tiles.js").read_text(encoding="utf-8")  # tiles draw with it
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = [i["path"] for i in conf["tool"]["maturin"]["include"] if "wheel" in i["format"]]
    for f in (FONT, LICENCE):
        rel = f.relative_to(ROOT).as_posix()
        assert any(fnmatch.fnmatch(rel, g) and g.count("/") == rel.count("/") for g in wheel), rel
