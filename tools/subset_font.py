"""Regenerate the game room's web fonts: Noto Sans CJK SC (SIL OFL 1.1, Debian's fonts-noto-cjk)
subset, renamed "Xuezhan CJK", in slices the browser loads only when a page needs them.

    pip install fonttools brotli        # brotli writes WOFF2
    python tools/subset_font.py          # writes python/xuezhan/serve/static/fonts/

- ``xuezhan-cjk.woff2``: every character above U+007F that the room's pages (static/*.html,
  *.js, *.css) and the texts the server sends them (serve/words.py, serve/replay.py, and the
  labels they take from the package: fan names, payment words) use: the tiles, the labels.
- ``xuezhan-names-NN.woff2``: the rest of GB2312's 6,763 hanzi (the characters of nearly every
  Chinese name, 李 and 明 among them), in slices of :data:`SLICE` characters by code point.
- ``faces.css``: one ``@font-face`` per file, its ``unicode-range`` exactly the characters it
  holds, so a browser downloads a slice only for a character on the page that no font before
  "Xuezhan CJK" in the page's font list draws (room.css imports it).

Characters the source font lacks are listed, not guessed. The subsets keep the source's
copyright; OFL.txt beside them is the licence (the OFL reserves the original's name for
unmodified versions, hence the new one). tests/test_room_font.py checks all of it against the
shipped files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "python" / "xuezhan" / "serve"
STATIC = SERVE / "static"
OUT = STATIC / "fonts"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
FAMILY = "Xuezhan CJK"  # what the pages' font lists call it
DEBIAN_COPYRIGHT = Path("/usr/share/doc/fonts-noto-cjk/copyright")
#: Characters per names slice: a page with a few names loads a few slices of about 40 KB.
SLICE = 300


def source_files() -> list[Path]:
    """The files whose characters the UI font must cover."""
    pages = sorted(p for p in STATIC.iterdir() if p.suffix in (".html", ".js", ".css"))
    return [*pages, SERVE / "words.py", SERVE / "replay.py"]


def server_labels() -> str:
    """The labels the server's texts take from the package: the core's fan item names and the
    engine's payment and fired-rule words (serve/words.py reads them, it does not spell them)."""
    from xuezhan.engine.fired import FIRED, PAYMENTS
    from xuezhan.rules import FAN_NAMES

    return "".join([*FAN_NAMES.values(), *PAYMENTS.values(), *(r.words for r in FIRED.values())])


def characters(files: list[Path]) -> str:
    """Every character above U+007F in ``files`` and in :func:`server_labels`, sorted."""
    chars: set[str] = {c for c in server_labels() if ord(c) > 0x7F}
    for f in files:
        chars.update(c for c in f.read_text(encoding="utf-8") if ord(c) > 0x7F)
    return "".join(sorted(chars))


def gb2312_hanzi() -> str:
    """GB2312's 6,763 hanzi (level 1: rows 16-55, level 2: rows 56-87), from Python's own
    codec, sorted by code point."""
    out = []
    for row in range(16, 88):
        for col in range(1, 95):
            try:
                out.append(bytes([0xA0 + row, 0xA0 + col]).decode("gb2312"))
            except UnicodeDecodeError:
                continue  # the unused cells at the end of row 55
    return "".join(sorted(out))


def unicode_range(chars: Iterable[str]) -> str:
    """A CSS ``unicode-range`` of exactly ``chars``: runs of consecutive code points merged.

    >>> unicode_range("一丁七万")
    'U+4E00-4E01, U+4E03, U+4E07'
    """
    cps = sorted({ord(c) for c in chars})
    parts: list[str] = []
    i = 0
    while i < len(cps):
        j = i
        while j + 1 < len(cps) and cps[j + 1] == cps[j] + 1:
            j += 1
        parts.append(f"U+{cps[i]:04X}" if i == j else f"U+{cps[i]:04X}-{cps[j]:04X}")
        i = j + 1
    return ", ".join(parts)


def licence_text() -> str:
    """The SIL OFL 1.1 text as Debian ships it with the font (its copyright file's licence)."""
    lines = DEBIAN_COPYRIGHT.read_text(encoding="utf-8").splitlines()
    # the stand-alone licence paragraph (a "Files:" stanza also names the licence, without text)
    start = next(i for i, ln in enumerate(lines[:-1]) if ln == "License: SIL-1.1" and lines[i + 1].startswith(" ")) + 1
    out = []
    for ln in lines[start:]:
        if not ln.startswith(" "):
            break
        out.append("" if ln.strip() == "." else ln[1:])
    return "\n".join(out).strip() + "\n"


def _load(source: Path) -> TTFont:
    if source.suffix == ".ttc":
        return next(f for f in TTCollection(str(source)).fonts if f["name"].getDebugName(1) == "Noto Sans CJK SC")
    return TTFont(str(source))


def write_subset(source: Path, text: str, dest: Path, features: bool) -> int:
    """Subset ``source`` to ``text``, renamed, as WOFF2 at ``dest``; its size in bytes."""
    font = _load(source)
    opts = subset.Options()
    opts.flavor = "woff2"
    opts.layout_features = ["*"] if features else []  # the names need no shaping features
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    opts.hinting = False
    opts.desubroutinize = True  # smaller after WOFF2's brotli
    sub = subset.Subsetter(opts)
    sub.populate(text=text)
    sub.subset(font)
    names = font["name"]
    for nid, value in ((1, FAMILY), (4, f"{FAMILY} Regular"), (6, FAMILY.replace(" ", "") + "-Regular"), (3, FAMILY)):
        names.removeNames(nameID=nid)
        names.setName(value, nid, 3, 1, 0x409)
    names.removeNames(nameID=16)
    names.removeNames(nameID=17)
    font.flavor = "woff2"
    font.recalcTimestamp = False  # the same characters give the same bytes
    font.save(str(dest))
    return dest.stat().st_size


def _face(url: str, chars: str) -> str:
    return (
        "@font-face {\n"
        f'  font-family: "{FAMILY}";\n'
        f'  src: url("{url}") format("woff2");\n'
        "  font-display: swap;\n"
        f"  unicode-range: {unicode_range(chars)};\n"
        "}\n"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=SOURCE, help="a Noto Sans CJK .ttc or .otf")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    font = _load(args.source)
    cmap = font.getBestCmap()
    copyright_notice = font["name"].getDebugName(0)
    chars = characters(source_files())
    ui = "".join(c for c in chars if ord(c) in cmap)
    missing = "".join(c for c in chars if ord(c) not in cmap)
    names = "".join(c for c in gb2312_hanzi() if c not in ui and ord(c) in cmap)
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("xuezhan-names-*.woff2"):
        old.unlink()
    faces = [
        "/* The room's web fonts, written by tools/subset_font.py (do not edit): the names slices,\n"
        "   then the pages' own characters. Each file is loaded only for a character on the page\n"
        "   that its unicode-range holds and no font earlier in the page's font list draws. */\n"
    ]
    total = 0
    slices = [names[i : i + SLICE] for i in range(0, len(names), SLICE)]
    for n, part in enumerate(slices):
        dest = args.out / f"xuezhan-names-{n:02d}.woff2"
        total += write_subset(args.source, part, dest, features=False)
        faces.append(_face(f"/static/fonts/{dest.name}", part))
    ui_dest = args.out / "xuezhan-cjk.woff2"
    ui_size = write_subset(args.source, ui, ui_dest, features=True)
    faces.append(_face(f"/static/fonts/{ui_dest.name}", "".join(c for c in ui if ord(c) > 0xFF)))
    (args.out / "faces.css").write_text("".join(faces), encoding="utf-8")
    (args.out / "OFL.txt").write_text(
        f"{FAMILY} (xuezhan-cjk.woff2, xuezhan-names-*.woff2) is a subset of Noto Sans CJK SC, renamed.\n"
        f"{copyright_notice}\n\n" + licence_text(),
        encoding="utf-8",
    )
    print(f"{ui_dest}: {ui_size} bytes, {len(ui)} characters")
    print(f"{len(slices)} names slices: {total} bytes, {len(names)} characters (GB2312's 6,763 hanzi with the pages')")
    if missing:
        print(f"not in the source font (left to the browser's fonts): {' '.join(missing)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
