"""The figures of a study's page (matplotlib, Agg backend): the paired differences of the
headline quantities against the base variant, how often each rule fires per variant, and the
score distributions overlaid.
"""

from __future__ import annotations

import math
import re
import textwrap
from typing import Any

import numpy as np

from xuezhan.reporting import NARROW_INCHES, number
from xuezhan.study.cells import study_cells
from xuezhan.study.measure import HEADLINE_KEYS, StudyReport

__all__ = ["study_figures"]


def study_figures(report: StudyReport, *, narrow: bool = False) -> dict[str, Any]:
    """The page's matplotlib figures (Agg backend): name → Figure; ``narrow``: laid out for a
    phone, :data:`~xuezhan.reporting.NARROW_INCHES` wide (one panel a row, labels wrapped)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    t: Any = report.table.set_index(["key", "variant"])
    variants = report.variants
    colors = {v: plt.get_cmap("tab10")(i % 10) for i, v in enumerate(variants)}
    figs: dict[str, Any] = {}

    # 1. forest plot: paired differences against the base, one panel per headline quantity in
    # which some variant differs (the others are named under the tables)
    uniform = {r.key for r in study_cells(report).rows if r.uniform}
    keys = [k for k in HEADLINE_KEYS if (k, report.base) in t.index and k not in uniform]
    keys += [
        k
        for k in dict.fromkeys(report.table["key"])
        if k.startswith("strategy.") and k.endswith(".delta") and k not in uniform
    ]
    others = [v for v in variants if v != report.base]
    ncols = 1 if narrow else 3
    nrows = max(1, math.ceil(len(keys) / ncols))
    panel = 0.3 * max(1, len(others)) + 1.1 if narrow else 0.45 * max(1, len(others)) + 1.4
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(NARROW_INCHES, panel * nrows + 0.5) if narrow else (4.2 * ncols, panel * nrows),
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
    title = f"Paired differences against {report.base} (95% intervals over the same walls)"
    fig.suptitle(textwrap.fill(title, 44) if narrow else title, fontsize=10)
    fig.tight_layout()
    figs["forest"] = fig

    # 2. rule firing side by side (share of hands, with intervals)
    rules = report.table[(report.table["section"] == "rules") & (report.table["kind"] == "share")]
    fired_any = rules.groupby("key", sort=False)["value"].max()
    rkeys = [k for k, v in fired_any.items() if v > 0] or list(fired_any.index[:1])
    bars = 0.32 * len(rkeys) * max(1, len(variants)) ** 0.5
    fig, ax = plt.subplots(figsize=(NARROW_INCHES, 1.3 * bars + 1.8) if narrow else (9, bars + 1.5))
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
    labels = [_plain(t.loc[(k, report.base), "label"]) for k in rkeys]
    ax.set_yticks(y, [textwrap.fill(x, 22) for x in labels] if narrow else labels, fontsize=7 if narrow else 8)
    ax.set_xlabel("share of hands in which the rule fired (%)", fontsize=9 if narrow else None)
    ax.set_title("How often each rule fires")
    ax.legend(fontsize=7 if narrow else 8)
    fig.tight_layout()
    figs["rules"] = fig

    # 3. score distributions overlaid (share of seat-hands at each delta; heavy tails: log axes)
    fig, ax = plt.subplots(figsize=(NARROW_INCHES, 3.6) if narrow else (9, 4.5))
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
    if narrow:  # symlog's own ticks crowd a narrow axis: a few round ones, labelled plainly
        lo, hi = (float(dist["delta"].min()), float(dist["delta"].max())) if len(dist) else (0.0, 0.0)
        ticks = [t for t in (-64, -16, -4, 0, 4, 16, 64) if lo <= t <= hi] or [0]
        ax.set_xticks(ticks, [number(t, 0) for t in ticks], fontsize=8)
    ax.set_xlabel("delta of a seat in a hand (points)", fontsize=9 if narrow else None)
    ax.set_ylabel("share of seat-hands", fontsize=9 if narrow else None)
    ax.set_title("Score distributions")
    ax.legend(fontsize=7 if narrow else 8)
    fig.tight_layout()
    figs["scores"] = fig
    return figs


_CJK = re.compile(r"\s*\([^()]*[\u3000-\u9fff][^()]*\)|[\u3000-\u9fff]+")


def _plain(label: str) -> str:
    """A label without its Chinese words (the plots' default font has no CJK glyphs)."""
    return _CJK.sub("", label).strip(" ,:") or label
