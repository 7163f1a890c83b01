"""The statistics of a tournament's results table: per strategy (:func:`summarize`), per pair of
strategies on the same walls (:func:`pairwise`) and per rule (:func:`rule_frequencies`).

The intervals come from :mod:`xuezhan.tournament.stats`, the ratings from
:mod:`xuezhan.tournament.rating`; this module only aggregates the table.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from xuezhan.tournament.rating import ratings
from xuezhan.tournament.stats import clustered_mean_ci, mean_ci

__all__ = ["SUMMARY_COLUMNS", "pairwise", "rule_frequencies", "summarize"]

#: The columns of :func:`summarize`, in order.
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
    - ``rating_mu``, ``rating_sigma``, ``rating``: OpenSkill Plackett-Luce
      (:func:`xuezhan.tournament.rating.ratings`).
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
    clusters and a t-interval over them (:func:`~xuezhan.tournament.stats.mean_ci`). Under
    duplicate seating both met exactly the same walls from every seat, so most of the luck
    cancels and the interval is far narrower than the two separate intervals of
    :func:`summarize` suggest. Rows: ``a``, ``b``, ``diff`` (A − B), ``ci_low``, ``ci_high``,
    ``clusters``; A is the better of the two.
    """
    per = df.groupby(["strategy", "seed_index"], sort=True)["delta"].mean().unstack(0)
    names = list(per.columns)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            m, lo, hi, g = mean_ci((per[a] - per[b]).dropna().to_numpy(), level)
            if g == 0:
                continue
            if m < 0:  # A is the better one
                a, b, m, lo, hi = b, a, -m, -hi, -lo
            rows.append({"a": a, "b": b, "diff": m, "ci_low": lo, "ci_high": hi, "clusters": g})
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
