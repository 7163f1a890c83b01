"""The terminal report of a tournament (:func:`format_report`): the header, the verdict, the
per-strategy tables and the biggest losses, laid out by rich at a given width; :func:`print_report`
prints it at the terminal's width (:func:`xuezhan.reporting.terminal_width`) and writes the page,
at the end of a run and again from ``xuezhan report``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from xuezhan.reporting import TERMINAL_WIDTH, bullets, fitted_tables, terminal_text, terminal_width
from xuezhan.tournament.report.header import ReportHeader
from xuezhan.tournament.report.losses import format_lost_hands, lost_hands
from xuezhan.tournament.report.summary import pairwise, summarize
from xuezhan.tournament.report.tables import TextTable, strategy_tables
from xuezhan.tournament.report.verdict import verdicts

__all__ = ["format_report", "format_summary", "print_report"]


def format_summary(summary: pd.DataFrame, *, title: str | None = None, width: int = TERMINAL_WIDTH) -> str:
    """The per-strategy tables of :func:`summarize` as terminal text (rich), ``width`` columns wide."""
    main, more = strategy_tables(summary)
    return terminal_text([*([title] if title else []), *_rich(main, width), *_rich(more, width)], width)


def _rich(t: TextTable, width: int) -> list[Any]:
    """The table laid out in ``width`` columns: split by columns, each part with the strategy
    names, when it is wider."""
    tables = fitted_tables(t.caption, ((h, "right" if k == "num" else "left") for h, k in t.columns), t.rows, width)
    return [x for i, tab in enumerate(tables) for x in ([""] if i else []) + [tab]]


def format_report(
    df: pd.DataFrame,
    header: ReportHeader,
    *,
    summary: pd.DataFrame | None = None,
    out: Path | None = None,
    width: int = TERMINAL_WIDTH,
) -> str:
    """The terminal report, ``width`` columns wide: the header, the verdict, the per-strategy
    tables and (with hand logs) the biggest losses. ``xuezhan tournament`` and ``xuezhan
    report`` print this. The verdict's sentences wrap at words, indented under their first
    line; only the header's command line and the losses' commands may be longer than
    ``width``, as they must paste back into a shell whole."""
    from rich.text import Text

    if summary is None:
        summary = summarize(df)
    lines = header.lines()  # never wrapped
    parts: list[Any] = []
    if len(summary) > 1:
        parts.append(Text("Verdict (paired: each comparison on the same walls, 95% intervals):"))
        parts.append(bullets(v.sentence for v in verdicts(pairwise(df), list(summary.index))))
        parts.append(Text(""))
    main, more = strategy_tables(summary)
    parts += [*_rich(main, width), Text(""), *_rich(more, width)]
    text = "\n".join(lines) + "\n\n" + terminal_text(parts, width)
    lost = format_lost_hands(lost_hands(df, out), width) if out is not None else ""
    return text + ("\n\n" + lost if lost else "")


def print_report(
    df: pd.DataFrame,
    out: Path | None,
    header: ReportHeader,
    *,
    page: bool = True,
    echo: Callable[[str], None] = print,
    width: int | None = None,
) -> None:
    """Print the terminal report and write the page: what ``xuezhan tournament`` does at the end
    of a run and ``xuezhan report`` does again from the results, with the same words.
    ``width``: the terminal's (:func:`~xuezhan.reporting.terminal_width`) unless given."""
    from xuezhan.tournament.report.page import write_report

    summary = summarize(df)
    echo(format_report(df, header, summary=summary, out=out, width=width or terminal_width()))
    if out is not None and page:
        from xuezhan.tournament.report.header import save_header

        paths = write_report(df, out, summary=summary, header=header)
        save_header(out, header)  # says whose report the folder holds
        echo(f"report: {paths['html']}  (plots, summary.csv and rules.csv beside it)")
