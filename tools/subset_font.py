"""Regenerate the game room's web font: Noto Sans CJK SC (SIL OFL 1.1, Debian's fonts-noto-cjk)
subset to exactly the non-ASCII characters the room's pages and its server-side texts use.

    pip install fonttools brotli        # brotli writes WOFF2
    python tools/subset_font.py          # writes python/xuezhan/serve/static/fonts/

The pages (static/*.html, *.js, *.css) and the texts the server sends to them (serve/words.py,
serve/replay.py, and the labels they take from the package: fan names, payment words) are
read; every character above U+007F that the source font has goes in
(ASCII is left to the browser's own fonts). Characters the font lacks are listed, not guessed.
The subset is renamed (the OFL reserves the original's name for unmodified versions) and keeps
the source's copyright; OFL.txt beside it is the licence. tests/test_room_font.py checks that
every CJK character of those files is in the shipped font.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "python" / "xuezhan" / "serve"
STATIC = SERVE / "static"
OUT = STATIC / "fonts"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
FAMILY = "Xuezhan CJK"  # what room.css's @font-face calls it
DEBIAN_COPYRIGHT = Path("/usr/share/doc/fonts-noto-cjk/copyright")


def source_files() -> list[Path]:
    """The files whose characters the font must cover."""
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=SOURCE, help="a Noto Sans CJK .ttc or .otf")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if args.source.suffix == ".ttc":
        coll = TTCollection(str(args.source))
        font = next(f for f in coll.fonts if f["name"].getDebugName(1) == "Noto Sans CJK SC")
    else:
        from fontTools.ttLib import TTFont

        font = TTFont(str(args.source))
    cmap = font.getBestCmap()
    chars = characters(source_files())
    have = "".join(c for c in chars if ord(c) in cmap)
    missing = "".join(c for c in chars if ord(c) not in cmap)
    copyright_notice = font["name"].getDebugName(0)
    opts = subset.Options()
    opts.flavor = "woff2"
    opts.layout_features = ["*"]
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    opts.hinting = False
    opts.desubroutinize = True  # smaller after WOFF2's brotli
    sub = subset.Subsetter(opts)
    sub.populate(text=have)
    sub.subset(font)
    names = font["name"]
    for nid, value in ((1, FAMILY), (4, f"{FAMILY} Regular"), (6, FAMILY.replace(" ", "") + "-Regular"), (3, FAMILY)):
        names.removeNames(nameID=nid)
        names.setName(value, nid, 3, 1, 0x409)
    names.removeNames(nameID=16)
    names.removeNames(nameID=17)
    args.out.mkdir(parents=True, exist_ok=True)
    dest = args.out / "xuezhan-cjk.woff2"
    font.flavor = "woff2"
    font.recalcTimestamp = False  # the same characters give the same bytes
    font.save(str(dest))
    (args.out / "OFL.txt").write_text(
        f"{FAMILY} (xuezhan-cjk.woff2) is a subset of Noto Sans CJK SC, renamed.\n"
        f"{copyright_notice}\n\n" + licence_text(),
        encoding="utf-8",
    )
    print(f"{dest}: {dest.stat().st_size} bytes, {len(have)} characters")
    if missing:
        print(f"not in the source font (left to the browser's fonts): {' '.join(missing)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
