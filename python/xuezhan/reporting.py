"""What the tournament and study reports share: number formats, the page templates, the
terminal tables.

- Numbers: :func:`decimals_for` picks the decimals that show an interval's half-width to two
  significant digits; :func:`number` formats with thousands separators and a true minus sign.
  A difference counts as clear (:func:`clear_at`) only when its interval, rounded to the
  decimals shown, excludes zero, so ``−0.00 [−0.00, −0.00]`` is never marked.
- Pages: one Jinja2 environment (:func:`render_page`) over the templates of
  ``xuezhan/templates`` (a base page with the shared style, one template per report). A page
  fits any screen: its tables scroll sideways inside their own box, and each figure is drawn
  twice (:class:`PageFigure`): wide for a desktop, and :data:`NARROW_INCHES` wide, laid out for
  a phone, which the page shows on screens up to :data:`NARROW_SCREEN` pixels wide.
- Terminal: :func:`terminal_text` lays rich tables and text out at a given width without
  colour (East Asian wide characters take two columns, as a terminal shows them). A report
  printed to a terminal follows its width (:func:`terminal_width`: rich's measure of the
  terminal, or ``COLUMNS``), so nothing is wrapped by the terminal itself; printed to a file or
  a pipe it is :data:`TERMINAL_WIDTH` columns wide, the same text every time.
  :func:`fitted_tables` splits a table by columns when it would not fit.
"""

from __future__ import annotations

import base64
import io
import math
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TextIO

    import jinja2
    from matplotlib.figure import Figure
    from rich.console import RenderableType
    from rich.table import Table

__all__ = [
    "NARROW_INCHES",
    "NARROW_SCREEN",
    "PageFigure",
    "page_figure",
    "MAX_WIDTH",
    "MIN_WIDTH",
    "MINUS",
    "needed_width",
    "TERMINAL_WIDTH",
    "bullets",
    "fitted_tables",
    "clear_at",
    "decimals_for",
    "number",
    "percent",
    "png_data_uri",
    "render_page",
    "table",
    "terminal_text",
    "terminal_width",
]

#: The minus sign of every report (U+2212, the width of a plus sign in tabular figures).
MINUS = "\u2212"
#: Columns of a report written to a file or a pipe: the same text every time.
TERMINAL_WIDTH = 100
#: The narrowest and widest layouts a report takes on a terminal: below ``MIN_WIDTH`` a table's
#: numbers no longer fit whole; beyond ``MAX_WIDTH`` a line of prose is too long to read.
MIN_WIDTH = 60
MAX_WIDTH = 120


def decimals_for(half_width: float, *, least: int = 0, most: int = 4) -> int:
    """Decimals that show ``half_width`` (an interval's half-width, in the unit shown) to about
    two significant digits, within ``least`` and ``most``.

    >>> decimals_for(0.118), decimals_for(0.74), decimals_for(3.1), decimals_for(40.0)
    (2, 2, 1, 0)
    >>> decimals_for(0.0), decimals_for(float("inf"), least=1)
    (4, 1)
    """
    if not math.isfinite(half_width):
        return least
    if half_width <= 0:
        return most
    return int(min(most, max(least, 1 - math.floor(math.log10(half_width)))))


def number(x: float, decimals: int, *, signed: bool = False, grouped: bool = True) -> str:
    """``x`` with ``decimals`` decimals, thousands separators and a true minus sign; ``-`` for NaN.

    >>> number(-30.0184, 2), number(0.694, 2, signed=True), number(8000, 0), number(float("nan"), 2)
    ('−30.02', '+0.69', '8,000', '-')
    >>> number(-0.001, 2)
    '0.00'
    """
    if x != x:
        return "-"
    text = f"{x:{'+' if signed else ''}{',' if grouped else ''}.{decimals}f}"
    if float(text.replace(",", "")) == 0:  # a value that rounds to zero has no sign
        return text.lstrip("+-")
    return text.replace("-", MINUS)


def percent(share: float, decimals: int = 1, *, signed: bool = False) -> str:
    """A share (0–1) as a percentage: ``percent(0.7205) == '72.1%'``; ``-`` for NaN."""
    if share != share:
        return "-"
    return number(100 * share, decimals, signed=signed) + "%"


def clear_at(low: float, high: float, decimals: int) -> bool:
    """Whether the interval ``[low, high]`` excludes zero at the precision shown.

    >>> clear_at(0.575, 0.814, 2), clear_at(-0.004, -0.001, 2), clear_at(0.0, 0.0, 2)
    (True, False, False)
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return False
    return round(low, decimals) > 0 or round(high, decimals) < 0


# ---------------------------------------------------------------------------- pages


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("xuezhan", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,  # a missing value is a bug, never an empty cell
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["number"] = number
    env.filters["percent"] = percent
    env.globals["narrow_screen"] = NARROW_SCREEN  # the page's phone layout starts below this width
    return env


def render_page(template: str, **context: Any) -> str:
    """Render one of the package's page templates (``xuezhan/templates/TEMPLATE``)."""
    return _environment().get_template(template).render(**context)


def png_data_uri(fig: Figure, dpi: int = 100) -> tuple[bytes, str]:
    """The figure as PNG bytes and as a ``data:`` URI for a self-contained page."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    data = buf.getvalue()
    return data, "data:image/png;base64," + base64.b64encode(data).decode()


#: A figure's phone layout is drawn this many inches wide, shown at 100 CSS pixels per inch:
#: 350 px, the width of a 390 px screen less the page's margins.
NARROW_INCHES = 3.5
#: The widest screen (CSS pixels) that is shown the phone layout of the figures.
NARROW_SCREEN = 700


@dataclass(frozen=True)
class PageFigure:
    """A figure as a page embeds it: the wide drawing (``uri``, ``width`` × ``height`` CSS
    pixels; ``png``, its bytes) and, when there is one, the phone layout (``narrow_uri``,
    drawn at two device pixels per CSS pixel so that it stays sharp on a phone's screen)."""

    name: str
    alt: str
    caption: str
    png: bytes
    uri: str
    width: int
    height: int
    narrow_uri: str = ""
    narrow_width: int = 0
    narrow_height: int = 0


def page_figure(name: str, figure: Figure, narrow: Figure | None = None, *, alt: str, caption: str) -> PageFigure:
    """Embed ``figure`` (and its phone layout ``narrow``) for a page; both figures are closed."""
    import matplotlib.pyplot as plt

    png, uri = png_data_uri(figure, dpi=100)
    width, height = (int(round(x * 100)) for x in figure.get_size_inches())
    plt.close(figure)
    if narrow is None:
        return PageFigure(name, alt, caption, png, uri, width, height)
    _png, narrow_uri = png_data_uri(narrow, dpi=200)
    narrow_width, narrow_height = (int(round(x * 100)) for x in narrow.get_size_inches())
    plt.close(narrow)
    return PageFigure(name, alt, caption, png, uri, width, height, narrow_uri, narrow_width, narrow_height)


# ---------------------------------------------------------------------------- terminal


def _needs(columns: list[tuple[str, str]], rows: list[list[str]], wrap_text: bool) -> tuple[list[int], list[int]]:
    """Per column: the least width (a number's widest cell, else the longest word of a wrapping
    text column or of the header) and the width without any wrapping."""
    from rich.cells import cell_len

    least, full = [], []
    for i, (header, justify) in enumerate(columns):
        cells = [r[i] for r in rows]
        words = [cell_len(w) for c in [header, *cells] for w in c.split()] + [1]
        widest = max([cell_len(c) for c in cells] + [1])
        least.append(max(words) if wrap_text and justify == "left" else max(widest, max(words)))
        full.append(max(widest, cell_len(header)))
    return least, full


def needed_width(columns: Iterable[tuple[str, str]], rows: Iterable[Iterable[str]], *, wrap_text: bool = True) -> int:
    """The fewest terminal columns :func:`table` needs to show every cell uncut."""
    least, _full = _needs(list(columns), [list(r) for r in rows], wrap_text)
    return sum(least) + _GAP * (len(least) - 1)


#: Columns between two table columns: padding either side and the (blank) divider.
_GAP = 3


def table(
    title: str | None,
    columns: Iterable[tuple[str, str]],
    rows: Iterable[Iterable[str]],
    width: int = TERMINAL_WIDTH,
    *,
    wrap_text: bool = True,
) -> Table:
    """A rich table ``width`` columns wide at most: ``columns`` are ``(header, justify)`` pairs
    (``"left"`` or ``"right"``). No cell is ever cut: a number column is at least as wide as its
    widest cell, a text column (with ``wrap_text``) as its longest word, in terminal columns
    (East Asian characters count two). The room left goes first to text cells, so that labels
    stand on one line, then to headers; what does not fit wraps at spaces."""
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table

    cols = list(columns)
    body = [list(r) for r in rows]
    need, full = _needs(cols, body, wrap_text)
    room = width - _GAP * (len(cols) - 1) - sum(need)
    text_first = sorted(range(len(cols)), key=lambda i: (cols[i][1] != "left", full[i] - need[i]))
    for i in text_first:
        target = full[i] if cols[i][1] == "left" else max(need[i], max((cell_len(r[i]) for r in body), default=0))
        grow = min(max(0, room), max(0, target - need[i]))
        need[i] += grow
        room -= grow
    for i in sorted(range(len(cols)), key=lambda i: full[i] - need[i]):  # then as many whole headers as fit
        grow = min(max(0, room), max(0, full[i] - need[i]))
        need[i] += grow
        room -= grow
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for (header, justify), w in zip(cols, need, strict=True):
        t.add_column(header, justify=justify, width=w, overflow="fold")  # type: ignore[arg-type]
    for row in body:
        t.add_row(*row)
    return t


def fitted_tables(
    title: str | None,
    columns: Iterable[tuple[str, str]],
    rows: Iterable[Iterable[str]],
    width: int = TERMINAL_WIDTH,
    *,
    keep: Iterable[int] = (0,),
    wrap_text: bool = True,
) -> list[Table]:
    """:func:`table` of these cells, or when it needs more than ``width`` columns, several
    tables of the same rows, each with the columns ``keep`` (the row labels; a study's base
    variant) and as many of the others, in order, as fit. Never a column cut or folded: a
    column that does not fit even beside ``keep`` alone gets a table of its own.

    >>> cols = [("name", "left")] + [(f"column {i}", "right") for i in range(6)]
    >>> [len(t.columns) for t in fitted_tables("t", cols, [["x", *["123,456"] * 6]], 40)]
    [4, 4]
    """
    cols = list(columns)
    body = [list(r) for r in rows]
    kept = sorted(set(keep))
    groups: list[list[int]] = []
    for i in (i for i in range(len(cols)) if i not in kept):
        trial = sorted([*kept, *(groups[-1] if groups else []), i])
        if (
            groups
            and needed_width([cols[j] for j in trial], ([r[j] for j in trial] for r in body), wrap_text=wrap_text)
            <= width
        ):
            groups[-1].append(i)
        else:
            groups.append([i])
    out = []
    for n, group in enumerate(groups or [[]]):
        pick = sorted([*kept, *group])
        caption = title if n == 0 or title is None else "(continued)"
        out.append(
            table(caption, [cols[j] for j in pick], ([r[j] for j in pick] for r in body), width, wrap_text=wrap_text)
        )
    return out


def terminal_width(
    file: TextIO | None = None, *, default: int = TERMINAL_WIDTH, least: int = MIN_WIDTH, most: int | None = MAX_WIDTH
) -> int:
    """The columns a report printed to ``file`` (default: standard output) is laid out in: the
    terminal's width as rich measures it (``COLUMNS`` when set), between ``least`` and ``most``;
    ``default`` when ``file`` is not a terminal and ``COLUMNS`` is not set (a file, a pipe)."""
    from rich.console import Console

    columns = os.environ.get("COLUMNS", "")
    console = Console(file=file or sys.stdout)
    if not console.is_terminal and not columns.isdigit():
        return default
    width = max(least, console.width)
    return width if most is None else min(most, width)


def bullets(lines: Iterable[str], mark: str = "-") -> RenderableType:
    """Lines as a list whose wrapped lines stay indented under their first word."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    # "fold", not rich's default "ellipsis": a wrapped line holding wide (CJK) characters keeps a
    # trailing space one column too wide, which "ellipsis" would turn into "…" over the last word
    grid.add_column(overflow="fold")
    for line in lines:
        grid.add_row(mark, line)
    return grid


def terminal_text(parts: Iterable[RenderableType], width: int = TERMINAL_WIDTH) -> str:
    """Plain text of rich renderables (tables, strings) laid out ``width`` columns wide."""
    from rich.console import Console

    console = Console(
        file=io.StringIO(),
        width=width,
        color_system=None,
        force_terminal=False,
        highlight=False,
        emoji=False,
        markup=False,
        record=True,
    )
    for part in parts:
        console.print(part)
    lines = console.export_text(styles=False).splitlines()
    return "\n".join(line.rstrip() for line in lines)
