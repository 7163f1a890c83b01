"""The page of a tournament report: one self-contained HTML file (the template
``xuezhan/templates/tournament.html.j2``, images embedded) with the PNG plots, ``summary.csv``
and ``rules.csv`` beside it (:func:`write_report`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from xuezhan.reporting import number, page_figure, render_page
from xuezhan.tournament.report.header import ReportHeader, load_header
from xuezhan.tournament.report.losses import VIEW_NEEDS, lost_hands, review_command
from xuezhan.tournament.report.plots import report_plots
from xuezhan.tournament.report.summary import pairwise, rule_frequencies, summarize
from xuezhan.tournament.report.tables import rules_table, strategy_tables
from xuezhan.tournament.report.verdict import verdicts

__all__ = ["write_report"]


def write_report(
    df: pd.DataFrame,
    out_dir: str | Path,
    *,
    title: str | None = None,
    summary: pd.DataFrame | None = None,
    notes: Iterable[str] = (),
    header: ReportHeader | None = None,
) -> dict[str, Path]:
    """Write ``summary.csv``, ``rules.csv``, the PNG plots and ``report.html`` (one
    self-contained page, images embedded) to ``out_dir``. Returns the paths written, by name.

    The page opens with the header (seed, date, version, rules, line-up, command), then one
    sentence per paired comparison and their forest plot, then the per-strategy tables.
    """
    from xuezhan.tournament.rating import RATED_HANDS

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if summary is None:
        summary = summarize(df)
    if header is None:
        header = load_header(out, df)
    paths: dict[str, Path] = {}
    paths["summary_csv"] = out / "summary.csv"
    summary.to_csv(paths["summary_csv"])
    pairs = pairwise(df)
    figures = {}
    for plot, narrow in zip(
        report_plots(df, summary, pairs), report_plots(df, summary, pairs, narrow=True), strict=True
    ):
        figure = page_figure(plot.name, plot.figure, narrow.figure, alt=plot.alt, caption=plot.caption)
        p = out / f"{plot.name}.png"
        p.write_bytes(figure.png)
        paths[plot.name] = p
        figures[plot.name] = figure
    rules = rule_frequencies(df)
    paths["rules_csv"] = out / "rules.csv"
    rules.to_csv(paths["rules_csv"], index=False)
    main, more = strategy_tables(summary)
    notes = list(notes)
    n_hands = int(df["hand"].nunique())
    if n_hands > RATED_HANDS:
        notes.append(f"Ratings are computed over {RATED_HANDS:,} of the {n_hands:,} hands, spread evenly.")
    lost = [
        {
            "strategy": w.strategy,
            "hand": w.hand,
            "seat": w.seat,
            "delta": number(w.delta, 0, signed=True),
            "href": f"{w.log.parent.name}/{w.log.name}",
            "review": review_command(w),
        }
        for w in lost_hands(df, out)
    ]
    page = render_page(
        "tournament.html.j2",
        title=title or header.title,
        meta=header.items(),
        verdicts=verdicts(pairs, list(summary.index)),
        figures=figures,
        main=main,
        more=more,
        rules=rules_table(rules),
        notes=notes,
        lost=lost,
        view_needs=VIEW_NEEDS,
    )
    paths["html"] = out / "report.html"
    paths["html"].write_text(page, encoding="utf-8")
    return paths
