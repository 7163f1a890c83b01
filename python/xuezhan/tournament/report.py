"""Summaries, ratings, plots and the HTML report of a tournament's per-(hand, seat) table.

The table has one row per (hand, seat) (see :mod:`xuezhan.tournament.results` for the
columns). :func:`summarize` aggregates it per strategy; :func:`write_report` renders the summary
to the terminal, PNG plots and one self-contained HTML page.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from xuezhan.tournament.stats import clustered_mean_ci

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "summarize",
    "pairwise",
    "rule_frequencies",
    "ratings",
    "format_summary",
    "format_pairwise",
    "write_report",
    "plot_figures",
]

SUMMARY_COLUMNS = [
    "hands",
    "mean_delta",
    "ci_low",
    "ci_high",
    "clusters",
    "win_rate",
    "deal_in_rate",
    "self_draw_rate",
    "avg_fan",
    "pig_rate",
    "ready_rate",
    "escapes",
    "timeouts",
    "rating_mu",
    "rating_sigma",
    "rating",
]


def ratings(df: pd.DataFrame) -> pd.DataFrame:
    """OpenSkill (Plackett-Luce) ratings per strategy, hands processed in hand order.

    Every seat of a hand is one team, ranked by the hand's delta (equal deltas tie). When a
    strategy fills several seats of a hand, each seat is rated from the strategy's current
    rating and the strategy then takes the mean of those seats' updated ``mu`` and ``sigma``.
    Tables of more than :data:`~xuezhan.tournament.rating.RATED_HANDS` hands are rated on that
    many hands spread evenly over them (:mod:`xuezhan.tournament.rating`).
    Returns ``mu``, ``sigma`` and the conservative ``rating`` (ordinal, ``mu − 3σ``) per strategy.
    """
    from xuezhan.tournament.rating import plackett_luce

    hand = df["hand"].to_numpy()
    seat = df["seat"].to_numpy()
    if len(hand) > 1 and not _in_order(hand, seat):
        order = np.lexsort((seat, hand))
        df = df.iloc[order]
        hand = hand[order]
    codes, names = pd.factorize(df["strategy"].astype(object), sort=True)
    mu, sigma = plackett_luce(hand, codes, df["delta"].to_numpy(), len(names))
    return pd.DataFrame(
        {
            "rating_mu": mu,
            "rating_sigma": sigma,
            "rating": [m - 3.0 * s for m, s in zip(mu, sigma, strict=True)],
        },
        index=pd.Index(list(names), name="strategy"),
    )


def _in_order(hand: np.ndarray, seat: np.ndarray) -> bool:
    dh = np.diff(hand)
    return bool(np.all((dh > 0) | ((dh == 0) & (np.diff(seat) > 0))))


def summarize(df: pd.DataFrame, *, level: float = 0.95, rating: bool = True) -> pd.DataFrame:
    """Per-strategy summary of a results table, best mean delta first.

    - ``mean_delta``, ``ci_low``, ``ci_high``: mean delta per hand and its ``level`` interval,
      clustered by wall seed (``seed_index``): the deltas of one seed group are summed per
      cluster and the interval is a t-interval over clusters (see
      :func:`xuezhan.tournament.stats.clustered_mean_ci`). Under duplicate seating a cluster holds
      the four rotations of one wall, so the luck of the wall is shared and cancels out.
    - ``win_rate``: hands won; ``deal_in_rate``: hands in which the seat's discard (or robbed
      kong) was won on; ``self_draw_rate``: hands won by self-draw; ``avg_fan``: mean capped fan
      of the wins; ``pig_rate``: hands ending as a pig (R7.1); ``ready_rate``: ready at the ready
      check (R7.3) among the seats that went to it; ``escapes`` and ``timeouts``: totals (R8, R10).
    - ``rating_mu``, ``rating_sigma``, ``rating``: OpenSkill Plackett-Luce (see :func:`ratings`).
    """
    if df.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS, index=pd.Index([], name="strategy"))
    rows = {}
    for name, g in df.groupby("strategy", sort=True):
        mean, lo, hi, nclus = clustered_mean_ci(g["delta"].to_numpy(), g["seed_index"].to_numpy(), level)
        won = g["won"].astype(bool)
        checked = g["checked"].astype(bool) if "checked" in g else pd.Series(False, index=g.index)
        rows[name] = {
            "hands": int(len(g)),
            "mean_delta": mean,
            "ci_low": lo,
            "ci_high": hi,
            "clusters": nclus,
            "win_rate": float(won.mean()),
            "deal_in_rate": float((g["dealt_in"] > 0).mean()),
            "self_draw_rate": float((won & g["self_draw"].astype(bool)).mean()),
            "avg_fan": float(g.loc[won, "fan"].mean()) if won.any() else math.nan,
            "pig_rate": float(g["pig"].astype(bool).mean()),
            "ready_rate": float(g.loc[checked, "ready"].astype(bool).mean()) if checked.any() else math.nan,
            "escapes": int(g["escape"].astype(bool).sum()),
            "timeouts": int(g["timeouts"].sum()),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "strategy"
    if rating:
        out = out.join(ratings(df))
    else:
        for c in ("rating_mu", "rating_sigma", "rating"):
            out[c] = math.nan
    out = out[SUMMARY_COLUMNS]
    return out.sort_values("mean_delta", ascending=False, kind="stable")


def pairwise(df: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Paired differences of mean delta per hand between every two strategies.

    For strategies A and B, each wall-seed cluster that both played gives the difference of
    their mean deltas in that cluster; the table gives the mean of those differences over the
    clusters and a t-interval over them. Under duplicate seating both met exactly the same walls
    from every seat, so most of the luck cancels and the interval is far narrower than the two
    separate intervals of :func:`summarize` suggest. Rows: ``a``, ``b``, ``diff`` (A − B),
    ``ci_low``, ``ci_high``, ``clusters``; A is the better of the two.
    """
    from xuezhan.tournament.stats import t_ppf

    per = df.groupby(["strategy", "seed_index"], sort=True)["delta"].mean().unstack(0)
    names = list(per.columns)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d = (per[a] - per[b]).dropna().to_numpy()
            g = d.size
            if g == 0:
                continue
            m = float(d.mean())
            if g >= 2:
                half = t_ppf(0.5 + level / 2, g - 1) * float(d.std(ddof=1)) / math.sqrt(g)
            else:
                half = math.inf
            if m < 0:
                a2, b2, m = b, a, -m
            else:
                a2, b2 = a, b
            rows.append({"a": a2, "b": b2, "diff": m, "ci_low": m - half, "ci_high": m + half, "clusters": g})
    out = pd.DataFrame(rows, columns=["a", "b", "diff", "ci_low", "ci_high", "clusters"])
    return out.sort_values("diff", ascending=False, kind="stable").reset_index(drop=True)


def _rule_title(name: str) -> str:
    """The heading of the rule a fired-rule name cites, in the rules reference (docs/rules.md)."""
    from xuezhan import rulebook

    try:
        return rulebook.title(name)
    except rulebook.UnknownRuleError:
        return ""


def rule_frequencies(df: pd.DataFrame) -> pd.DataFrame:
    """How often each rule fired (share of hands, per rules id), from the ``fired`` column —
    for rule studies: the same walls under several rule variants. ``title`` is the rule's
    heading in the rules reference docs/rules.md (``xuezhan rules ID`` prints the rule)."""
    columns = ["rules_id", "rule", "title", "hands", "share"]
    if "fired" not in df or df.empty:
        return pd.DataFrame(columns=columns)
    first = np.flatnonzero(np.r_[True, df["hand"].to_numpy()[1:] != df["hand"].to_numpy()[:-1]])
    hands = df.iloc[first][["hand", "rules_id", "fired"]].drop_duplicates("hand")
    rows = []
    # one pass per distinct (rules id, fired) string, not per hand
    counted = hands.groupby(["rules_id", "fired"], sort=False, observed=True).size()
    per_rid = hands.groupby("rules_id", sort=True, observed=True).size()
    counts: dict[str, dict[str, int]] = {}
    # a two-level index: each key is a (rules id, fired) pair
    for (rid, fired), n in zip(counted.index.tolist(), counted.tolist(), strict=True):
        for rule in filter(None, str(fired).split("+")):
            c = counts.setdefault(str(rid), {})
            c[rule] = c.get(rule, 0) + int(n)
    for rid, total in per_rid.items():
        for rule, n in sorted(counts.get(str(rid), {}).items()):
            rows.append({"rules_id": rid, "rule": rule, "title": _rule_title(rule), "hands": n, "share": n / total})
    return pd.DataFrame(rows, columns=columns)


def format_pairwise(pairs: pd.DataFrame) -> str:
    """Text table of :func:`pairwise`."""
    lines = ["paired differences (same walls; 95% interval over wall seeds):"]
    for r in pairs.to_dict("records"):
        sig = "" if r["ci_low"] > 0 else "  (not significant)"
        lines.append(
            f"  {r['a']} − {r['b']}: {r['diff']:+.3f} per hand [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"
            f" over {r['clusters']} walls{sig}"
        )
    return "\n".join(lines)


def format_summary(summary: pd.DataFrame, *, title: str | None = None) -> str:
    """A fixed-width text table of :func:`summarize`'s output, for the terminal."""
    head = (
        f"{'strategy':<16} {'hands':>7} {'delta/hand':>10} {'95% interval':>19} {'win':>6} "
        f"{'deal-in':>7} {'tsumo':>6} {'fan':>5} {'pig':>6} {'ready':>6} {'esc':>4} {'t/o':>4} {'rating':>7}"
    )
    lines = []
    if title:
        lines.append(title)
    lines += [head, "-" * len(head)]

    def pct(x: float) -> str:
        return "   -  " if x != x else f"{100 * x:5.1f}%"

    for name, r in summary.iterrows():
        interval = f"[{r.ci_low:+7.3f},{r.ci_high:+7.3f}]" if math.isfinite(r.ci_low) else "[   n/a  ,  n/a   ]"
        fan = "  -  " if r.avg_fan != r.avg_fan else f"{r.avg_fan:5.2f}"
        rating = "   -   " if r.rating != r.rating else f"{r.rating:7.2f}"
        lines.append(
            f"{str(name)[:16]:<16} {int(r.hands):>7} {r.mean_delta:>+10.3f} {interval:>19} {pct(r.win_rate):>6} "
            f"{pct(r.deal_in_rate):>7} {pct(r.self_draw_rate):>6} {fan:>5} {pct(r.pig_rate):>6} "
            f"{pct(r.ready_rate):>6} {int(r.escapes):>4} {int(r.timeouts):>4} {rating}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------- plots


def plot_figures(df: pd.DataFrame, summary: pd.DataFrame) -> dict[str, Figure]:
    """The report's matplotlib figures (Agg backend): name → Figure."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    names = list(summary.index)
    colors = {n: plt.get_cmap("tab10")(i % 10) for i, n in enumerate(names)}
    figs: dict[str, Figure] = {}

    # 1. mean delta per hand with the clustered 95% intervals
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(names) + 1.6))
    y = np.arange(len(names))[::-1]
    means = summary["mean_delta"].to_numpy()
    lo = summary["ci_low"].to_numpy()
    hi = summary["ci_high"].to_numpy()
    finite = np.isfinite(lo) & np.isfinite(hi)
    err = np.vstack([np.where(finite, means - lo, 0), np.where(finite, hi - means, 0)])
    ax.errorbar(means, y, xerr=err, fmt="o", capsize=5, color="black")
    for yi, n, m in zip(y, names, means, strict=True):
        ax.plot([m], [yi], "o", color=colors[n], markersize=9)
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, names)
    ax.set_xlabel("mean delta per hand (95% interval, clustered by wall seed)")
    ax.set_title("Mean score per hand")
    fig.tight_layout()
    figs["mean_delta"] = fig

    # 2. score distribution per strategy (symmetric-log x axis: deltas have heavy tails)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    lo_d, hi_d = int(df["delta"].min()), int(df["delta"].max())
    for n in names:
        d = df.loc[df["strategy"] == n, "delta"]
        vals, counts = np.unique(d.to_numpy(), return_counts=True)
        ax.plot(vals, counts / counts.sum(), marker="o", ms=3, lw=1, label=n, color=colors[n])
    ax.set_xscale("symlog", linthresh=4)
    ax.set_yscale("log")
    ax.set_xlim(lo_d - 1, hi_d + 1)
    ax.set_xlabel("delta of a hand (points)")
    ax.set_ylabel("share of hands")
    ax.set_title("Score distribution per strategy")
    ax.legend()
    fig.tight_layout()
    figs["score_distribution"] = fig

    # 3. fan histogram of wins per strategy
    fig, ax = plt.subplots(figsize=(8, 4.5))
    wins = df[df["won"].astype(bool)]
    fans = sorted(int(f) for f in wins["fan"].unique()) if not wins.empty else [1]
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        w = wins.loc[wins["strategy"] == n, "fan"]
        share = [(w == f).mean() if len(w) else 0.0 for f in fans]
        ax.bar(
            np.arange(len(fans)) + (i - (len(names) - 1) / 2) * width,
            share,
            width,
            label=f"{n} ({len(w)} wins)",
            color=colors[n],
        )
    ax.set_xticks(np.arange(len(fans)), [str(f) for f in fans])
    ax.set_xlabel("fan of the win (capped)")
    ax.set_ylabel("share of the strategy's wins")
    ax.set_title("Fan of wins")
    ax.legend()
    fig.tight_layout()
    figs["fan_histogram"] = fig
    return figs


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def _lost_hands_html(df: pd.DataFrame, out: Path) -> str:
    """With hand logs beside the results (``xuezhan tournament --logs``): each strategy's
    biggest losses, each a link to its log and the command that replays it."""
    from xuezhan.tournament.hand_logs import LOG_DIR, worst_hands

    folder = out / LOG_DIR
    if not folder.is_dir():
        return ""
    rows = []
    for name, hand, delta, path in worst_hands(df, folder):
        if not path.is_file():
            continue
        rel = f"{LOG_DIR}/{path.name}"
        rows.append(
            f"<tr><td>{html.escape(name)}</td><td>{hand}</td><td>{delta:+d}</td>"
            f'<td><a href="{html.escape(rel)}">{html.escape(rel)}</a></td>'
            f"<td><code>xuezhan view {html.escape(str(path))}</code></td></tr>"
        )
    if not rows:
        return ""
    return (
        "<h2>Lost hands to replay</h2>\n<p>Each strategy's biggest losses; <code>xuezhan view LOG</code> "
        "steps through a hand with all four hands open.</p>\n<table><tr><th>strategy</th><th>hand</th>"
        "<th>delta</th><th>log</th><th>replay</th></tr>\n" + "\n".join(rows) + "\n</table>"
    )


def write_report(
    df: pd.DataFrame,
    out_dir: str | Path,
    *,
    title: str = "Tournament report",
    summary: pd.DataFrame | None = None,
    notes: Iterable[str] = (),
) -> dict[str, Path]:
    """Write ``summary.csv``, the PNG plots and ``report.html`` (images embedded) to ``out_dir``.

    Returns the paths written, by name.
    """
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if summary is None:
        summary = summarize(df)
    paths: dict[str, Path] = {}
    paths["summary_csv"] = out / "summary.csv"
    summary.to_csv(paths["summary_csv"])
    images: dict[str, bytes] = {}
    for name, fig in plot_figures(df, summary).items():
        data = _png(fig)
        plt.close(fig)
        p = out / f"{name}.png"
        p.write_bytes(data)
        paths[name] = p
        images[name] = data

    table = summary.copy()
    table.insert(3, "interval", [f"[{a:+.3f}, {b:+.3f}]" for a, b in zip(table.ci_low, table.ci_high, strict=True)])
    table = table.drop(columns=["ci_low", "ci_high"])
    for c in ("win_rate", "deal_in_rate", "self_draw_rate", "pig_rate", "ready_rate"):
        table[c] = [("-" if v != v else f"{100 * v:.1f}%") for v in table[c]]
    for c in ("mean_delta", "avg_fan", "rating_mu", "rating_sigma", "rating"):
        table[c] = [("-" if v != v else f"{v:+.3f}" if c == "mean_delta" else f"{v:.2f}") for v in table[c]]
    meta = []
    if "rules_id" in df:
        meta.append(f"rules: {', '.join(sorted(map(str, df['rules_id'].unique())))}")
    from xuezhan.tournament.rating import RATED_HANDS

    n_hands = df["hand"].nunique()
    meta.append(f"hands: {n_hands}; wall seeds (clusters): {df['seed_index'].nunique()}")
    if n_hands > RATED_HANDS:
        meta.append(f"ratings over {RATED_HANDS} of the {n_hands} hands, spread evenly (see xuezhan.tournament.rating)")
    meta += list(notes)
    pairs = pairwise(df)
    pairs_html = pairs.to_html(index=False, float_format=lambda v: f"{v:+.3f}", escape=True)
    rules = rule_frequencies(df)
    paths["rules_csv"] = out / "rules.csv"
    rules.to_csv(paths["rules_csv"], index=False)
    rules_html = rules.to_html(index=False, float_format=lambda v: f"{100 * v:.1f}%", escape=True)
    lost_html = _lost_hands_html(df, out)
    img_html = "\n".join(
        f'<figure><img alt="{html.escape(n)}" src="data:image/png;base64,{base64.b64encode(d).decode()}">'
        f"<figcaption>{html.escape(n.replace('_', ' '))}</figcaption></figure>"
        for n, d in images.items()
    )
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-variant-numeric: tabular-nums; }}
th, td {{ border: 1px solid #ccc; padding: 4px 8px; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
figure {{ display: inline-block; margin: 1em; }} img {{ max-width: 100%; }}
.meta {{ color: #555; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p class="meta">{"<br>".join(html.escape(m) for m in meta)}</p>
<p>Mean delta per hand with a 95% interval clustered by wall seed; rating = OpenSkill
Plackett-Luce ordinal (μ − 3σ), each hand ranked by delta.</p>
{table.reset_index().to_html(index=False, escape=True)}
<h2>Paired differences</h2>
<p>Mean delta per hand of A minus B over the wall seeds both played (same walls, same seats
under duplicate seating), with a 95% t-interval over the walls.</p>
{pairs_html}
{img_html}
<h2>Rules fired</h2>
<p>Share of hands in which each rule fired. Rule ids and titles are those of the project's rules
reference, docs/rules.md (anchors <code>docs/rules.md#R6.5</code>); <code>xuezhan rules R6.5</code>
prints a rule.</p>
{rules_html}
{lost_html}
</body></html>
"""
    paths["html"] = out / "report.html"
    paths["html"].write_text(page, encoding="utf-8")
    return paths
