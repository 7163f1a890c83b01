"""A study's report: terminal tables, tidy Parquet and one self-contained HTML page with plots.

:func:`format_study` renders :class:`~xuezhan.study.measure.StudyReport` as terminal tables
(rich: one per section, a column per variant, ``value ±half-width`` for the base variant and
``value (Δ±half-width)`` for the others, ``*`` when the paired interval excludes 0 at
the decimals shown). :func:`write_study_report` writes ``summary.parquet`` (the tidy table of
estimates), ``distribution.parquet`` and ``report.html`` (the template
``xuezhan/templates/study.html.j2``): the tables and three figures embedded as PNG — a forest
plot of paired differences, rule firing side by side, and the score distributions overlaid.

Each row of a table has one number of decimals: enough to show the narrowest of its intervals'
half-widths to two significant digits (:func:`xuezhan.reporting.decimals_for`), so a cell is
never more precise than its neighbours, and a difference is marked only when its interval
excludes zero at that precision (a ``Δ −0.00 [−0.00, −0.00]`` is never marked).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xuezhan.reporting import (
    clear_at,
    decimals_for,
    needed_width,
    number,
    png_data_uri,
    render_page,
    table,
    terminal_text,
)
from xuezhan.study.measure import SECTIONS, StudyReport

__all__ = ["FOREST_KEYS", "format_study", "study_figures", "study_meta", "write_study_report"]

#: The headline quantities of the forest plot (the strategies' mean deltas are added).
FOREST_KEYS: tuple[str, ...] = (
    "end.three_won",
    "end.wall",
    "score.abs_delta",
    "score.sd",
    "score.capped",
    "fan.mean",
    "dealer.delta",
    "rule.R6.5-kong-transfer",
    "rule.R7.2-pig",
)


def _scale(kind: str) -> float:
    """Shares are shown in % (their differences in percentage points), numbers as they are."""
    return 100.0 if kind == "share" else 1.0


def _half(low: float, high: float) -> float:
    return (high - low) / 2 if math.isfinite(low) and math.isfinite(high) else math.inf


@dataclass(frozen=True)
class Cell:
    """One (quantity, variant) of a table, formatted: the value, its interval, and for the
    variants other than the base the paired difference, its interval and whether it is clear."""

    value: str
    interval: str = ""
    half: str = ""
    diff: str = ""
    diff_interval: str = ""
    diff_half: str = ""
    clear: bool = False

    @property
    def text(self) -> str:
        """The terminal cell: ``value ±half`` or ``value (diff±half)*`` (diff: Δ against the base)."""
        if not self.diff:
            return f"{self.value} {self.half}".strip()
        return f"{self.value} ({self.diff}{self.diff_half}){'*' if self.clear else ''}"


def _row_decimals(rows: Sequence[Any]) -> int:
    """One number of decimals for a quantity across its variants: the base variant's interval
    to two significant digits, or one decimal more when a paired difference needs it (a
    difference's interval is often far narrower); integers without intervals (quantiles of
    whole-point deltas) have none."""
    kind = rows[0].kind
    k = _scale(kind)
    least = 1 if kind == "share" else 2
    own = [_half(r.ci_low, r.ci_high) * k for r in rows]
    diffs = [_half(r.diff_low, r.diff_high) * k for r in rows if r.diff == r.diff]
    own = [h for h in own if math.isfinite(h) and h > 0]
    diffs = [h for h in diffs if math.isfinite(h) and h > 0]
    if not own and not diffs:
        values = [r.value * k for r in rows if r.value == r.value]
        whole = kind != "share" and values and all(float(v).is_integer() for v in values)
        return 0 if whole else least
    d = decimals_for(min(own), least=least) if own else least
    if diffs:
        d = max(d, min(decimals_for(min(diffs), least=least) - 1, d + 1))
    return d


def _cells(report: StudyReport) -> tuple[dict[tuple[str, str], Cell], list[tuple[str, str, str, str]]]:
    """Formatted cells by (key, variant), and the rows: (section, key, label, rule)."""
    t = report.table
    cells: dict[tuple[str, str], Cell] = {}
    rows: list[tuple[str, str, str, str]] = []
    for key, g in t.groupby("key", sort=False):
        recs: list[Any] = list(g.itertuples(index=False))
        first = recs[0]
        rows.append((str(first.section), str(key), str(first.label), str(first.rule)))
        d = _row_decimals(recs)
        k = _scale(first.kind)
        pct = "%" if first.kind == "share" else ""
        for r in recs:
            value = number(r.value * k, d) + pct if r.value == r.value else "-"
            finite = math.isfinite(r.ci_low) and math.isfinite(r.ci_high)
            interval = f"[{number(r.ci_low * k, d)}, {number(r.ci_high * k, d)}]" if finite else ""
            half = f"±{number(_half(r.ci_low, r.ci_high) * k, d)}" if finite else ""
            if r.variant == report.base or r.diff != r.diff:
                cells[(str(key), str(r.variant))] = Cell(value, interval, half)
                continue
            dfin = math.isfinite(r.diff_low) and math.isfinite(r.diff_high)
            lo, hi = r.diff_low * k, r.diff_high * k
            cells[(str(key), str(r.variant))] = Cell(
                value,
                interval,
                half,
                diff=number(r.diff * k, d, signed=True) + (" pp" if pct and not dfin else ""),
                diff_interval=(
                    f"[{number(lo, d, signed=True)}, {number(hi, d, signed=True)}]" + (" pp" if pct else "")
                    if dfin
                    else ""
                ),
                diff_half=f"±{number(_half(lo, hi), d)}" if dfin else "",
                clear=bool(dfin and clear_at(lo, hi, d)),
            )
    return cells, rows


def _label(label: str, rule: str) -> str:
    return f"{label} [{rule}]" if rule else label


def format_study(report: StudyReport, *, title: str | None = None, label_width: int = 40) -> str:
    """Terminal tables of a study report, one per section (``label_width`` is kept for
    callers of the earlier fixed-width layout: labels now wrap instead of being cut)."""
    del label_width
    cells, rows = _cells(report)
    headers = [f"{v} (base)" if v == report.base else v for v in report.variants]
    lines: list[Any] = [title] if title else []
    lines.append(
        f"{report.clusters:,} walls, each played by every variant with the same seats; hands per variant: "
        f"{', '.join(f'{n:,}' for n in dict.fromkeys(report.hands.values()))}"
    )
    lines.append(
        f"value (Δ±h): Δ = paired difference against the base variant {report.base!r} over the same walls; "
        "±h: half-width of the 95% interval (clustered by wall; shares in %, their differences in "
        "percentage points); * = the interval excludes 0 at the decimals shown"
    )
    lines += report.notes
    tables = []
    for section, heading in SECTIONS.items():
        body = [
            (_label(label, rule), *(cells[(key, v)].text if (key, v) in cells else "-" for v in report.variants))
            for sec, key, label, rule in rows
            if sec == section
        ]
        if not body:
            continue
        columns = [(heading, "left"), *((h, "right") for h in headers)]
        tables.append((columns, body))
    width = max([100] + [needed_width(c, b, wrap_text=True) for c, b in tables])
    parts: list[Any] = list(lines)
    for columns, body in tables:
        parts += ["", table(None, columns, body, width=width)]
    return terminal_text(parts, width=width)


def study_meta(config: Any, command: str | None = None) -> list[tuple[str, str]]:
    """The page's header lines for a study ``config`` (a :class:`~xuezhan.study.StudyConfig`):
    seed, rules, line-up, date, version and the command."""
    import time

    from xuezhan import __version__
    from xuezhan.tournament.report import describe_rules

    out = [
        ("seed", str(config.seed)),
        ("rules", describe_rules(dict(config.rules))),
        ("variants", ", ".join(v.name for v in config.variants)),
        ("line-up", ", ".join(config.labels)),
        ("played", f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with xuezhan {__version__}"),
    ]
    if command:
        out.append(("command", command))
    return out


# ---------------------------------------------------------------------------- figures


def study_figures(report: StudyReport) -> dict[str, Any]:
    """The page's matplotlib figures (Agg backend): name → Figure."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    t: Any = report.table.set_index(["key", "variant"])
    variants = report.variants
    colors = {v: plt.get_cmap("tab10")(i % 10) for i, v in enumerate(variants)}
    figs: dict[str, Any] = {}

    # 1. forest plot: paired differences against the base, one panel per headline quantity
    keys = [k for k in FOREST_KEYS if (k, report.base) in t.index]
    keys += [k for k in dict.fromkeys(report.table["key"]) if k.startswith("strategy.") and k.endswith(".delta")]
    others = [v for v in variants if v != report.base]
    ncols = 3
    nrows = max(1, math.ceil(len(keys) / ncols))
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(4.2 * ncols, 0.45 * max(1, len(others)) * nrows + 1.4 * nrows),
        squeeze=False,
    )
    for ax, key in zip(axes.ravel(), keys, strict=False):  # the grid may have spare axes
        scale = 100.0 if t.loc[(key, report.base), "kind"] == "share" else 1.0
        y = np.arange(len(others))[::-1]
        for yi, v in zip(y, others, strict=True):
            r = t.loc[(key, v)]
            d, lo, hi = r["diff"] * scale, r["diff_low"] * scale, r["diff_high"] * scale
            if not math.isnan(d):
                xerr = [[d - lo], [hi - d]] if math.isfinite(lo) and math.isfinite(hi) else None
                ax.errorbar([d], [yi], xerr=xerr, fmt="o", capsize=4, color=colors[v])
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_yticks(y, others if others else [])
        label = _plain(t.loc[(key, report.base), "label"])
        ax.set_title(label if len(label) < 42 else label[:40] + "…", fontsize=9)
        ax.set_xlabel("Δ percentage points" if scale == 100.0 else "Δ", fontsize=8)
        ax.tick_params(labelsize=8)
    for ax in axes.ravel()[len(keys) :]:
        ax.axis("off")
    fig.suptitle(
        f"Paired differences against {report.base} (95% intervals over the same walls)",
        fontsize=10,
    )
    fig.tight_layout()
    figs["forest"] = fig

    # 2. rule firing side by side (share of hands, with intervals)
    rules = report.table[(report.table["section"] == "rules") & (report.table["kind"] == "share")]
    fired_any = rules.groupby("key", sort=False)["value"].max()
    rkeys = [k for k, v in fired_any.items() if v > 0] or list(fired_any.index[:1])
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(rkeys) * max(1, len(variants)) ** 0.5 + 1.5))
    height = 0.8 / max(1, len(variants))
    y = np.arange(len(rkeys))[::-1]
    for i, v in enumerate(variants):
        vals = np.array([t.loc[(k, v), "value"] for k in rkeys]) * 100
        lo = np.array([t.loc[(k, v), "ci_low"] for k in rkeys]) * 100
        hi = np.array([t.loc[(k, v), "ci_high"] for k in rkeys]) * 100
        spread = np.vstack([np.clip(vals - lo, 0, None), np.clip(hi - vals, 0, None)])
        spread = np.where(np.isfinite(spread), spread, 0)
        ax.barh(
            y + (len(variants) - 1 - 2 * i) * height / 2,
            vals,
            height,
            xerr=spread,
            label=v,
            color=colors[v],
            error_kw={"lw": 0.8, "capsize": 2},
        )
    ax.set_yticks(y, [_plain(t.loc[(k, report.base), "label"]) for k in rkeys], fontsize=8)
    ax.set_xlabel("share of hands in which the rule fired (%)")
    ax.set_title("How often each rule fires")
    ax.legend(fontsize=8)
    fig.tight_layout()
    figs["rules"] = fig

    # 3. score distributions overlaid (share of seat-hands at each delta; heavy tails: log axes)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    dist = report.distribution
    for v in variants:
        g = dist[dist["variant"] == v]
        ax.plot(
            g["delta"],
            g["share"],
            marker="o",
            ms=3,
            lw=1,
            label=v,
            color=colors[v],
            alpha=0.85,
        )
    ax.set_xscale("symlog", linthresh=4)
    ax.set_yscale("log")
    ax.set_xlabel("delta of a seat in a hand (points)")
    ax.set_ylabel("share of seat-hands")
    ax.set_title("Score distributions")
    ax.legend(fontsize=8)
    fig.tight_layout()
    figs["scores"] = fig
    return figs


_CJK = re.compile(r"\s*\([^()]*[\u3000-\u9fff][^()]*\)|[\u3000-\u9fff]+")


def _plain(label: str) -> str:
    """A label without its Chinese words (the plots' default font has no CJK glyphs)."""
    return _CJK.sub("", label).strip(" ,:") or label


def write_study_report(
    report: StudyReport,
    out_dir: str | Path,
    *,
    title: str = "Rule study",
    meta: Sequence[tuple[str, str]] = (),
) -> dict[str, Path]:
    """Write ``summary.parquet``, ``distribution.parquet`` and ``report.html`` to ``out_dir``;
    ``meta`` (see :func:`study_meta`) heads the page."""
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "summary": out / "summary.parquet",
        "distribution": out / "distribution.parquet",
        "html": out / "report.html",
    }
    report.table.to_parquet(paths["summary"], index=False)
    report.distribution.to_parquet(paths["distribution"], index=False)
    alts = {
        "forest": "forest plot of paired differences",
        "rules": "rule firing per variant",
        "scores": "score distributions",
    }
    captions = {
        "forest": "Each panel is one quantity; each dot the paired difference of a variant against the base "
        f"variant {report.base} on the same walls, the bar its 95% interval. A bar clear of the dashed zero "
        "line is a change the rules make; shares are in percentage points.",
        "rules": "How often each rule fires under each variant (share of hands, with 95% intervals): "
        "bars of different lengths are rules the variants make fire more or less often.",
        "scores": "The share of seat-hands at each score change (both axes logarithmic): a variant whose "
        "line reaches further out makes bigger wins and losses.",
    }
    figures = {}
    for name, fig in study_figures(report).items():
        _data, uri = png_data_uri(fig, dpi=100)
        width = int(fig.get_figwidth() * 100)
        plt.close(fig)
        figures[name] = {"alt": alts[name], "caption": captions[name], "uri": uri, "width": width}
    explain = {
        "ends": "Share of hands ending with three winners, an exhausted wall or an escape.",
        "rules": "Share of hands in which each rule fired at least once (per-hand counts where stated).",
        "scores": "A seat's score change per hand. Quantiles are point estimates (no interval).",
        "fan": "Capped fan of the wins, and the share of wins that scored each fan item.",
        "dealer": "The dealer's result (every variant deals the same walls to the same seats).",
        "strategies": "How each strategy of the line-up fares: does the rule change favour a style of play?",
    }
    cells, rows = _cells(report)
    sections = []
    for key, heading in SECTIONS.items():
        body = [
            {
                "label": label,
                "rule": rule,
                "cells": [cells.get((k, v)) for v in report.variants],
            }
            for sec, k, label, rule in rows
            if sec == key
        ]
        sections.append({"key": key, "heading": heading, "explain": explain[key], "rows": body})
    page = render_page(
        "study.html.j2",
        title=title,
        meta=list(meta),
        report=report,
        hands=", ".join(f"{v}: {n:,}" for v, n in report.hands.items()),
        sections=sections,
        figures=figures,
    )
    paths["html"].write_text(page, encoding="utf-8")
    return paths
