"""A study's report: terminal tables, tidy Parquet and one self-contained HTML page with plots.

:func:`format_study` renders :class:`~xuezhan.study.measure.StudyReport` as plain-text tables
(one per section: a column per variant, ``value ±half-width`` for the base variant and
``value (Δ ±half-width)`` for the others, ``*`` when the paired interval excludes 0).
:func:`write_study_report` writes ``summary.parquet`` (the tidy table of estimates),
``distribution.parquet`` and ``report.html``: the tables and three figures embedded as PNG —
a forest plot of paired differences, rule firing side by side, and the score distributions
overlaid.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from xuezhan.study.measure import SECTIONS, StudyReport

__all__ = ["FOREST_KEYS", "format_study", "study_figures", "write_study_report"]

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


def _decimals(low: float, high: float, kind: str) -> int:
    """Decimals that show an interval's half-width to about two significant digits."""
    h = (high - low) / 2 * (100 if kind == "share" else 1)
    if not (math.isfinite(h) and h > 0):
        return 1 if kind == "share" else 2
    return int(min(4, max(0, 1 - math.floor(math.log10(h)))))


def _fmt(value: float, kind: str, signed: bool = False, decimals: int | None = None) -> str:
    if math.isnan(value):
        return "-"
    x = 100 * value if kind == "share" else value
    dec = (1 if kind == "share" else 2) if decimals is None else decimals
    text = f"{x:+.{dec}f}" if signed else f"{x:.{dec}f}"
    return text + ("%" if kind == "share" and not signed else "")


def _half(low: float, high: float, kind: str, decimals: int) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return ""
    h = (high - low) / 2 * (100 if kind == "share" else 1)
    return f"±{h:.{decimals}f}"


def _cell(r: Any, base: bool) -> str:
    if base:
        dec = _decimals(r.ci_low, r.ci_high, r.kind)
        return f"{_fmt(r.value, r.kind, decimals=dec)} {_half(r.ci_low, r.ci_high, r.kind, dec)}".strip()
    if r.diff != r.diff:
        return _fmt(r.value, r.kind)
    dec = _decimals(r.diff_low, r.diff_high, r.kind)
    star = "*" if r.significant else ""
    diff = _fmt(r.diff, r.kind, True, dec) + _half(r.diff_low, r.diff_high, r.kind, dec)
    return f"{_fmt(r.value, r.kind, decimals=dec)} ({diff}{star})"


def format_study(report: StudyReport, *, title: str | None = None, label_width: int = 40) -> str:
    """Plain-text tables of a study report, one per section."""
    variants = report.variants
    t = report.table
    cells: dict[tuple[Any, str], str] = {}
    rows_all: list[Any] = list(t.itertuples(index=False))
    for r in rows_all:
        cells[(r.key, r.variant)] = _cell(r, r.variant == report.base)
    widths = [
        max([len(v) + (7 if v == report.base else 0)] + [len(cells.get((k, v), "")) for k in t["key"].unique()])
        for v in variants
    ]
    lines = [title] if title else []
    lines.append(
        f"{report.clusters} walls, each played by every variant with the same seats; "
        f"hands per variant: {', '.join(str(n) for n in dict.fromkeys(report.hands.values()))}"
    )
    lines.append(
        f"Δ = paired difference against the base variant {report.base!r} over the same walls, "
        "±: half-width of the 95% interval (clustered by wall; shares in percentage points), "
        "* = the interval excludes 0"
    )
    lines += report.notes
    for section, heading in SECTIONS.items():
        rows = t[t["section"] == section]
        if rows.empty:
            continue
        head = f"{heading:<{label_width}} " + " ".join(
            f"{(v + ' (base)') if v == report.base else v:>{w}}" for v, w in zip(variants, widths, strict=True)
        )
        lines += ["", head, "-" * len(head)]
        for key, g in rows.groupby("key", sort=False):
            first: Any = g.iloc[0]
            label = f"{first.label} [{first.rule}]" if first.rule else first.label
            if len(label) > label_width:
                label = label[: label_width - 1] + "…"
            lines.append(
                f"{label:<{label_width}} "
                + " ".join(f"{cells.get((key, v), '-'):>{w}}" for v, w in zip(variants, widths, strict=True))
            )
    return "\n".join(lines)


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


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return base64.b64encode(buf.getvalue()).decode()


def _section_html(report: StudyReport, section: str) -> str:
    rows = report.table[report.table["section"] == section]
    if rows.empty:
        return "<p>nothing to report</p>"
    out = ["<table><thead><tr><th>quantity</th><th>rule</th>"]
    out += [f"<th>{html.escape(v)}{' (base)' if v == report.base else ''}</th>" for v in report.variants]
    out.append("</tr></thead><tbody>")
    for _key, g in rows.groupby("key", sort=False):
        first: Any = g.iloc[0]
        out.append(f"<tr><td>{html.escape(first.label)}</td><td>{html.escape(first.rule)}</td>")
        tuples: list[Any] = list(g.itertuples(index=False))
        by_v: dict[str, Any] = {r.variant: r for r in tuples}
        for v in report.variants:
            r = by_v.get(v)
            if r is None:
                out.append("<td>-</td>")
                continue
            value = html.escape(_fmt(r.value, r.kind))
            ci = (
                f"<br><small>[{html.escape(_fmt(r.ci_low, r.kind))}, {html.escape(_fmt(r.ci_high, r.kind))}]</small>"
                if math.isfinite(r.ci_low)
                else ""
            )
            diff = ""
            if r.diff == r.diff:
                unit = " pp" if r.kind == "share" else ""
                iv = (
                    f" [{_fmt(r.diff_low, r.kind, True)}, {_fmt(r.diff_high, r.kind, True)}]"
                    if math.isfinite(r.diff_low)
                    else ""
                )
                cls = "sig" if r.significant else "ns"
                diff = f'<br><span class="{cls}">Δ {html.escape(_fmt(r.diff, r.kind, True) + unit + iv)}</span>'
            out.append(f"<td>{value}{ci}{diff}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def write_study_report(report: StudyReport, out_dir: str | Path, *, title: str = "Rule study") -> dict[str, Path]:
    """Write ``summary.parquet``, ``distribution.parquet`` and ``report.html`` to ``out_dir``."""
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
    images = {}
    for name, fig in study_figures(report).items():
        images[name] = _png(fig)
        plt.close(fig)

    def img(name: str, alt: str) -> str:
        return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{images[name]}"></figure>'

    explain = {
        "ends": "Share of hands ending with three winners, an exhausted wall or an escape.",
        "rules": "Share of hands in which each rule fired at least once (per-hand counts where stated).",
        "scores": "A seat's score change per hand. Quantiles are point estimates (no interval).",
        "fan": "Capped fan of the wins, and the share of wins that scored each fan item.",
        "dealer": "The dealer's result (every variant deals the same walls to the same seats).",
        "strategies": "How each strategy of the line-up fares: does the rule change favour a style of play?",
    }
    sections = []
    for key, heading in SECTIONS.items():
        body = _section_html(report, key)
        if key == "rules":
            body = img("rules", "rule firing per variant") + body
        if key == "scores":
            body = img("scores", "score distributions") + body
        sections.append(f'<h2 id="{key}">{html.escape(heading)}</h2><p>{html.escape(explain[key])}</p>{body}')
    notes = "".join(f"<p class='meta'>{html.escape(n)}</p>" for n in report.notes)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1400px; }}
table {{ border-collapse: collapse; font-variant-numeric: tabular-nums; margin-bottom: 1em; }}
th, td {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; vertical-align: top; }}
th:first-child, td:first-child {{ text-align: left; }}
small {{ color: #666; }} .sig {{ color: #b00; font-weight: 600; }} .ns {{ color: #777; }}
img {{ max-width: 100%; }} .meta {{ color: #555; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p class="meta">Variants: {html.escape(", ".join(report.variants))}; base variant: {html.escape(report.base)}.
{report.clusters} walls, each played by every variant with the same seats (hands per variant:
{html.escape(", ".join(f"{v}: {n}" for v, n in report.hands.items()))}).</p>
{notes}
<p>Every value has a 95% interval clustered by wall seed. <b>Δ</b> is the paired difference
against the base variant over the same walls (same seeds, same seats), so it measures what the
rules alone change; <span class="sig">red</span> when its interval excludes 0. Shares are in %,
their differences in percentage points (pp).</p>
<h2 id="forest">At a glance: paired differences</h2>
{img("forest", "forest plot of paired differences")}
{"".join(sections)}
</body></html>
"""
    paths["html"].write_text(page, encoding="utf-8")
    return paths
