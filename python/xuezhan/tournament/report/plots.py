"""The figures of a tournament report (matplotlib, Agg backend), each with the words the page
says about it (:class:`Plot`): the paired differences, the mean points per strategy, how hands
end and the fan of the wins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from xuezhan.reporting import NARROW_INCHES
from xuezhan.tournament.report.summary import pairwise
from xuezhan.tournament.report.verdict import verdicts

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Plot", "plot_figures", "report_plots"]

#: Score bands of the distribution plot (points of one hand): each twice as wide as the last.
_BANDS: tuple[tuple[float, float, str], ...] = (
    (-math.inf, -32, "≤ −32"),
    (-31, -16, "−31…−16"),
    (-15, -8, "−15…−8"),
    (-7, -4, "−7…−4"),
    (-3, -1, "−3…−1"),
    (0, 0, "0"),
    (1, 3, "1…3"),
    (4, 7, "4…7"),
    (8, 15, "8…15"),
    (16, 31, "16…31"),
    (32, math.inf, "≥ 32"),
)


def _stat(summary: pd.DataFrame, name: str, column: str) -> float:
    value: Any = summary.at[name, column]
    return float(value)


def _groups(summary: pd.DataFrame) -> list[list[str]]:
    """Strategies in groups whose means are close enough to share an axis: a gap of more than
    ten times the wider interval between neighbours starts a new group (so that ``random`` at
    −30 does not squash ``value`` and ``greedy`` 0.7 apart onto one point)."""
    names = list(summary.index)
    groups: list[list[str]] = []
    for i, n in enumerate(names):
        if i == 0:
            groups.append([n])
            continue
        prev = names[i - 1]
        gap = abs(_stat(summary, prev, "mean_delta") - _stat(summary, n, "mean_delta"))
        halves = [(_stat(summary, k, "ci_high") - _stat(summary, k, "ci_low")) / 2 for k in (prev, n)]
        scale = max((h for h in halves if math.isfinite(h)), default=0.0)
        if scale > 0 and gap > 10 * scale:
            groups.append([n])
        else:
            groups[-1].append(n)
    return groups


@dataclass(frozen=True)
class Plot:
    """A figure of the report with what its page says about it."""

    name: str
    figure: Figure
    alt: str
    caption: str


def report_plots(
    df: pd.DataFrame, summary: pd.DataFrame, pairs: pd.DataFrame | None = None, *, narrow: bool = False
) -> list[Plot]:
    """The report's figures (Agg backend), each with a caption that says what to read from it;
    ``narrow``: laid out for a phone, :data:`~xuezhan.reporting.NARROW_INCHES` wide (panels
    stacked, bars on their side, labels above the rows they name)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    wide = NARROW_INCHES if narrow else None
    names = list(summary.index)
    colors = {n: plt.get_cmap("tab10")(i % 10) for i, n in enumerate(names)}
    plots: list[Plot] = []
    if pairs is None:
        pairs = pairwise(df)

    # 1. forest plot of the paired differences, each comparison on its own scale
    vs = verdicts(pairs, names)
    if vs:
        size = (wide, 1.05 * len(vs) + 1.2) if wide else (8.5, 0.85 * len(vs) + 0.9)
        fig, axes = plt.subplots(len(vs), 1, figsize=size, squeeze=False)
        for ax, v in zip(axes[:, 0], vs, strict=True):
            finite = math.isfinite(v.low) and math.isfinite(v.high)
            err = [[v.diff - v.low], [v.high - v.diff]] if finite else None
            ax.errorbar([v.diff], [0], xerr=err, fmt="o", capsize=5, color="black" if v.clear else "grey", ms=7)
            ax.axvline(0, color="#b00", lw=0.9, ls="--")
            lo = min(0.0, v.low if finite else v.diff)
            hi = max(0.0, v.high if finite else v.diff)
            pad = 0.08 * (hi - lo or 1.0)
            ax.set_xlim(lo - pad, hi + pad)
            if wide:  # the comparison above its row: a label beside it would take half the width
                ax.set_yticks([])
                ax.set_title(f"{v.better} − {v.worse}", fontsize=9, loc="left")
            else:
                ax.set_yticks([0], [f"{v.better} − {v.worse}"])
            ax.set_ylim(-0.6, 0.6)
            ax.tick_params(axis="x", labelsize=8)
            ax.grid(axis="x", color="#ddd", lw=0.6)
        axes[-1, 0].set_xlabel(
            "points per hand, first minus second,\non the same walls (95% interval)"
            if wide
            else "points per hand, first minus second, on the same walls (95% interval)",
            fontsize=9 if wide else None,
        )
        fig.tight_layout()
        plots.append(
            Plot(
                "paired_differences",
                fig,
                "forest plot of the paired differences",
                "Paired differences: each row compares two strategies on the same walls, on its own scale. "
                "The dot is how many points per hand the first scores more than the second, the bar its 95% "
                "interval; a bar clear of the dashed zero line (black) is a clear difference, a grey one is not.",
            )
        )

    # 2. mean points per hand with the clustered intervals; far-apart strategies in their own panel
    groups = _groups(summary)
    if wide:  # the panels one above the other
        fig, axes = plt.subplots(
            len(groups), 1, figsize=(wide, sum(0.5 * len(g) + 1.1 for g in groups) + 0.2), squeeze=False
        )
        panels = axes[:, 0]
    else:
        fig, axes = plt.subplots(
            1, len(groups), figsize=(8.5 if len(groups) == 1 else 10, 0.55 * max(map(len, groups)) + 1.5), squeeze=False
        )
        panels = axes[0]
    for ax, group in zip(panels, groups, strict=True):
        y = np.arange(len(group))[::-1]
        for yi, n in zip(y, group, strict=True):
            m, lo, hi = (_stat(summary, n, c) for c in ("mean_delta", "ci_low", "ci_high"))
            err = [[m - lo], [hi - m]] if math.isfinite(lo) and math.isfinite(hi) else None
            ax.errorbar([m], [yi], xerr=err, fmt="o", capsize=5, color=colors[n], ms=8)
        ax.set_yticks(y, group)
        ax.set_ylim(-0.6, len(group) - 0.4)
        ax.grid(axis="x", color="#ddd", lw=0.6)
        ax.tick_params(axis="x", labelsize=8)
        ax.set_xlabel("points per hand")
    fig.tight_layout()
    split = " Strategies far apart are in separate panels, each on its own scale." if len(groups) > 1 else ""
    plots.append(
        Plot(
            "mean_delta",
            fig,
            "mean points per hand per strategy",
            "Mean points per hand of each strategy with its 95% interval (clustered by wall). Overlapping "
            "intervals here do not mean no difference: the paired comparisons above are the sharper test." + split,
        )
    )

    # 3. how hands end: share of each strategy's hands per band of points (on a phone the bars lie
    # on their side, the bands down the page, so that eleven band labels stay readable)
    fig, ax = plt.subplots(figsize=(wide, 0.2 * len(_BANDS) * max(1, len(names)) ** 0.5 + 1.5) if wide else (10, 4.2))
    deltas = df["delta"].to_numpy()
    strat = df["strategy"].to_numpy()
    width = 0.8 / max(1, len(names))
    x = np.arange(len(_BANDS))
    for i, n in enumerate(names):
        d = deltas[strat == n]
        share = [float(((d >= lo) & (d <= hi)).mean()) if d.size else 0.0 for lo, hi, _l in _BANDS]
        at = x + (i - (len(names) - 1) / 2) * width
        if wide:
            ax.barh(at, np.array(share) * 100, width, label=n, color=colors[n])
        else:
            ax.bar(at, np.array(share) * 100, width, label=n, color=colors[n])
    bands = [label for _lo, _hi, label in _BANDS]
    if wide:
        ax.set_yticks(x, bands, fontsize=8)
        ax.set_ylabel("points won or lost in a hand", fontsize=9)
        ax.set_xlabel("% of the strategy's hands", fontsize=9)
        ax.grid(axis="x", color="#ddd", lw=0.6)
        ax.legend(fontsize=8)
    else:
        ax.set_xticks(x, bands, fontsize=9)
        ax.set_xlabel("points won or lost in a hand (bands twice as wide as the last)")
        ax.set_ylabel("% of the strategy's hands")
        ax.grid(axis="y", color="#ddd", lw=0.6)
        ax.legend(fontsize=9)
    fig.tight_layout()
    plots.append(
        Plot(
            "score_distribution",
            fig,
            "share of hands per band of points",
            "How each strategy's hands end: the share of its hands by the points it won or lost. Bars to the "
            "right are hands won; a strategy whose bars lean right wins more often or for more.",
        )
    )

    # 4. fan of the wins
    fig, ax = plt.subplots(figsize=(wide, 3.4) if wide else (8.5, 3.8))
    wins = df[df["won"].astype(bool)]
    fans = sorted(int(f) for f in wins["fan"].unique()) if not wins.empty else [1]
    for i, n in enumerate(names):
        w = wins.loc[wins["strategy"] == n, "fan"]
        share = [100 * float((w == f).mean()) if len(w) else 0.0 for f in fans]
        ax.bar(
            np.arange(len(fans)) + (i - (len(names) - 1) / 2) * width,
            share,
            width,
            label=f"{n} ({len(w):,} wins)",
            color=colors[n],
        )
    ax.set_xticks(np.arange(len(fans)), [str(f) for f in fans])
    ax.set_xlabel("fan of the win (after the cap)", fontsize=9 if wide else None)
    ax.set_ylabel("% of the strategy's wins", fontsize=9 if wide else None)
    ax.grid(axis="y", color="#ddd", lw=0.6)
    ax.legend(fontsize=7 if wide else 9)
    fig.tight_layout()
    plots.append(
        Plot(
            "fan_histogram",
            fig,
            "fan of the wins per strategy",
            "The fan of each strategy's wins: a strategy with more of its wins to the right plays for bigger hands.",
        )
    )
    return plots


def plot_figures(df: pd.DataFrame, summary: pd.DataFrame) -> dict[str, Figure]:
    """The report's matplotlib figures (Agg backend): name → Figure."""
    return {p.name: p.figure for p in report_plots(df, summary)}


# ---------------------------------------------------------------------------- the page
