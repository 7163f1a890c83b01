"""What a study measures: the metric catalogue and its vectorised computation.

:func:`study_report` turns a tidy study table (``variant`` + the tournament's columns, one row
per variant, hand and seat) into :class:`StudyReport`: for each variant and metric the estimate
with its 95% interval and, against the base variant, the paired difference over the shared
walls (clustered by wall seed, :mod:`.estimators`). Sections (the rule ids are those of docs/rules.md):

- ``ends``: how hands end — three players won, the wall ran out, an escape (R4.5, R8);
- ``rules``: share of hands in which each rule fired (the ``fired`` column, R9.3), with words;
  plus kongs, wins and pigs per hand;
- ``scores``: mean absolute delta of a seat, points changing hands, standard deviation of a
  seat's delta, share of hands with a win at the cap (R5), quantiles of a seat's delta;
- ``fan``: average fan of a win and the share of wins with each fan item (R5);
- ``dealer``: the dealer's mean delta and win rate (R1.2);
- ``strategies``: each line-up entry's mean delta, win rate and deal-in rate.

No Python loop runs per hand or per row: strings are parsed once per distinct value
(``pd.factorize``) and every sum is a ``np.bincount`` over (variant, wall) cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from xuezhan.engine.fired import FIRED, HEADLINE
from xuezhan.rules import FAN_ITEMS, FAN_NAMES
from xuezhan.study.estimators import Estimates, ratio_estimates, sd_estimates

__all__ = [
    "HEADLINE_KEYS",
    "QUANTILES",
    "REPORT_COLUMNS",
    "RULE_WORDS",
    "SECTIONS",
    "Metric",
    "StudyReport",
    "study_report",
    "study_report_file",
]

#: The report's sections, in order: key → heading.
SECTIONS: dict[str, str] = {
    "ends": "How hands end",
    "rules": "How often each rule fires",
    "scores": "Scores",
    "fan": "Fan",
    "dealer": "Dealer",
    "strategies": "Strategies",
}

#: The study's own rule row: hands with a 杠上开花 win (read from the fan items, not ``fired``).
KONG_DRAW = "kong_draw"
#: Words for the rule ids of the ``fired`` column, in the order the report lists them: the
#: engine's registry (:mod:`xuezhan.engine.fired`), then the study's own row.
RULE_WORDS: dict[str, str] = {
    **{r.id: r.words for r in FIRED.values()},
    KONG_DRAW: "win on a kong replacement (杠上开花)",
}
#: Rules listed even when they never fired in a study (0% is worth reading too).
HEADLINE_RULES: tuple[str, ...] = (*HEADLINE, KONG_DRAW)
#: The columns :func:`study_report` reads (load only these for a large study).
REPORT_COLUMNS: tuple[str, ...] = (
    "variant",
    "hand",
    "seed_index",
    "strategy",
    "dealer",
    "delta",
    "won",
    "wins",
    "fan",
    "fan_items",
    "dealt_in",
    "kongs",
    "pig",
    "end",
    "fired",
)
#: The headline quantities: the forest plot's panels, and the changes a study's verdict names
#: first (each strategy's points per hand come before them).
HEADLINE_KEYS: tuple[str, ...] = (
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
#: Quantiles of a seat's delta reported in ``scores``.
QUANTILES: tuple[float, ...] = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)
_ENDS = {
    "three_won": ("three players won", "R4.5"),
    "wall": ("the wall ran out", "R4.5"),
    "escape": ("a player escaped", "R8"),
}


@dataclass(frozen=True)
class Metric:
    """One reported quantity: ``key`` (stable id), its section, words, rule id and kind
    (``share``: a proportion shown in %, ``mean``: a number)."""

    key: str
    section: str
    label: str
    rule: str
    kind: str = "share"


@dataclass
class StudyReport:
    """A study's measurements. ``table`` is tidy: one row per (metric, variant) with columns
    ``section, key, label, rule, kind, variant, value, ci_low, ci_high, diff, diff_low,
    diff_high, significant, clusters`` (``diff*`` NaN for the base variant; the quantiles have
    no interval). ``distribution`` holds, per variant, the share of seat-hands at each delta."""

    variants: list[str]
    base: str
    table: pd.DataFrame
    distribution: pd.DataFrame
    clusters: int
    hands: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _indicator(strings: pd.Series, sep: str = "+") -> tuple[np.ndarray, list[str]]:
    """A 0/1 matrix (rows × ids) of the ``sep``-joined ids in each string, and the ids.
    Parsed once per distinct string, so a million rows cost a factorize."""
    codes, uniques = pd.factorize(strings.astype(object), sort=False)
    sets = [set(filter(None, str(u).split(sep))) for u in uniques]
    ids = sorted(set().union(*sets)) if sets else []
    col = {k: i for i, k in enumerate(ids)}
    table = np.zeros((len(uniques), len(ids)), dtype=np.int8)
    for r, s in enumerate(sets):
        for k in s:
            table[r, col[k]] = 1
    return table[codes], ids


def _cells(key: np.ndarray, values: np.ndarray, cells: int) -> np.ndarray:
    """Per-cell sums of each column of ``values`` (rows × M) → (cells, M)."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    return np.stack(
        [np.bincount(key, weights=values[:, j], minlength=cells) for j in range(values.shape[1])],
        axis=1,
    )


def study_report(
    df: pd.DataFrame,
    *,
    variants: list[str] | None = None,
    base: str | None = None,
    level: float = 0.95,
) -> StudyReport:
    """Measure a tidy study table (see :mod:`xuezhan.study.runner`): every metric per variant
    with its ``level`` interval, and paired differences against ``base`` (default: the first
    variant) over the walls every variant played. (:func:`study_report_file` measures a results
    file batch by batch, in bounded memory, with the same result.)

    >>> from xuezhan.study.runner import run_study
    >>> df = run_study({"strategies": ["greedy"] * 4, "hands": 16, "workers": 1,
    ...                 "variants": [{"max_fan": [5, 3]}]}, progress=False)
    >>> rep = study_report(df)
    >>> row = rep.table.set_index(["key", "variant"]).loc[("score.abs_delta", "max_fan=3")]
    >>> bool(row["diff"] <= 0)  # a lower cap never makes a hand's wins worth more
    True
    """
    if df.empty:
        raise ValueError("no results to report")
    cells = _Cells.of(df["variant"], df["seed_index"].to_numpy(), variants)
    cells.add(df)
    return cells.report(base, level)


def study_report_file(
    path: str | Path,
    *,
    variants: list[str] | None = None,
    base: str | None = None,
    level: float = 0.95,
    batch_rows: int = 1 << 16,
) -> StudyReport:
    """:func:`study_report` of a tidy results Parquet file (a study's ``results.parquet``),
    read ``batch_rows`` rows at a time: memory is bounded by one batch and the (variant, wall)
    sums, however many hands. The file must hold each hand's rows together (as a study writes
    them); a hand cut by a batch boundary is carried over to the next batch."""
    f = pq.ParquetFile(str(path))
    # first pass: the walls each variant played (two columns, a batch at a time)
    walls: dict[str, np.ndarray] = {}
    for batch in f.iter_batches(batch_size=batch_rows, columns=["variant", "seed_index"]):
        names = batch.column(0).dictionary_encode()
        codes, seeds = names.indices.to_numpy(), batch.column(1).to_numpy()
        for i, v in enumerate(names.dictionary.to_pylist()):
            new = np.unique(seeds[codes == i])
            walls[v] = np.union1d(walls[v], new) if v in walls else new
    if not walls:
        raise ValueError("no results to report")
    cells = _Cells.from_walls(walls, variants)
    carry: pd.DataFrame | None = None
    for batch in f.iter_batches(batch_size=batch_rows, columns=list(REPORT_COLUMNS)):
        d = batch.to_pandas()
        if carry is not None:
            d = pd.concat([carry, d], ignore_index=True)
        # the last hand of the batch may go on in the next one: keep it for then
        variant, hand = d["variant"].to_numpy(), d["hand"].to_numpy()
        last = (variant == variant[-1]) & (hand == hand[-1])
        carry = d.loc[last]
        if not last.all():
            cells.add(d.loc[~last])
    if carry is not None and len(carry):
        cells.add(carry)
    return cells.report(base, level)


class _Cells:
    """The sums a study report is made of, per (variant, wall) cell, added batch by batch:
    each metric's numerator, its own denominator or a shared one (hands, seat rows, wins), the
    moments of a seat's delta, and the count of seat-hands at each delta per variant."""

    def __init__(self, variants: list[str], common: np.ndarray, notes: list[str]) -> None:
        self.variants = variants
        self.common = common
        self.notes = notes
        self.V, self.G = len(variants), len(common)
        self.y: dict[str, np.ndarray] = {}
        self.n: dict[str, np.ndarray] = {}  # metrics with a denominator of their own
        self.den: dict[str, np.ndarray] = {}  # shared denominators: hands, rows, won
        self.metric: dict[str, tuple[Metric, str]] = {}  # key -> (metric, denominator name)
        self.moments = np.zeros((self.V * self.G, 2))
        self.dist: dict[tuple[int, int], int] = {}
        self.hands = np.zeros(self.V, dtype=np.int64)
        self.lo = self.hi = 0  # the cells of the batch being added

    @classmethod
    def of(cls, variant: pd.Series, seeds: np.ndarray, variants: list[str] | None) -> _Cells:
        """The variants reported and the walls every one of them played."""
        present = list(pd.unique(variant))
        vcode = pd.Categorical(variant, categories=present).codes
        return cls.from_walls({v: np.unique(seeds[vcode == i]) for i, v in enumerate(present)}, variants)

    @classmethod
    def from_walls(cls, walls: dict[str, np.ndarray], variants: list[str] | None) -> _Cells:
        """From each variant's sorted walls (in the order the variants were met)."""
        chosen = [v for v in (variants or list(walls)) if v in walls]
        per_variant = [walls[v] for v in chosen]
        common = per_variant[0]
        for w in per_variant[1:]:
            common = np.intersect1d(common, w, assume_unique=True)
        notes = []
        if any(len(w) != len(common) for w in per_variant):
            notes.append(f"compared on the {len(common)} walls every variant played (the study is incomplete)")
        return cls(chosen, common, notes)

    def _sum(self, key: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Per-cell sums over the batch's cells ``lo:hi`` (a batch covers a run of walls)."""
        return np.bincount(key - self.lo, weights=values, minlength=self.hi - self.lo)

    def _into(self, acc: dict[str, np.ndarray], name: str, key: np.ndarray, values: np.ndarray) -> None:
        if name not in acc:
            # float32 holds every per-wall sum exactly (integers and halves far below 2^24: a
            # wall is at most 16 seat-hands a variant) in half the memory of float64; the
            # squares of the deltas, which could pass 2^24, are kept in float64 (moments)
            acc[name] = np.zeros(self.V * self.G, dtype=np.float32)
        acc[name][self.lo : self.hi] += self._sum(key, values)

    def _add(self, m: Metric, key: np.ndarray, y: np.ndarray, den: str | np.ndarray) -> None:
        """Add a metric's numerator sums (and its own denominator's, when ``den`` is values)."""
        if m.key not in self.metric:
            self.metric[m.key] = (m, den if isinstance(den, str) else "own")
        self._into(self.y, m.key, key, y)
        if not isinstance(den, str):
            self._into(self.n, m.key, key, den)

    def add(self, df: pd.DataFrame) -> None:
        """Add the rows of whole hands (no Python loop per row or hand: strings are parsed once
        per distinct value, every sum is a ``np.bincount`` over the cells)."""
        V, G = self.V, self.G
        vcode_all = pd.Categorical(df["variant"], categories=self.variants).codes
        seeds_all = df["seed_index"].to_numpy()
        keep = (vcode_all >= 0) & np.isin(seeds_all, self.common)
        d = df if keep.all() else df.loc[keep]  # no copy of a complete study
        if d.empty:
            return
        vcode = vcode_all[keep].astype(np.int64)
        key = vcode * G + np.searchsorted(self.common, d["seed_index"].to_numpy())
        self.lo, self.hi = int(key.min()), int(key.max()) + 1
        delta = d["delta"].to_numpy().astype(float)
        won = d["won"].to_numpy().astype(float)
        # --- per-hand sums over the four seats (hand id unique within a variant)
        hand = d["hand"].to_numpy().astype(np.int64)
        hcodes, hunique = pd.factorize(vcode * (int(hand.max()) + 1) + hand, sort=False)
        H = len(hunique)
        first = np.unique(hcodes, return_index=True)[1]  # the first row of each hand
        hand_key = key[first]
        self.hands += np.bincount(vcode[first], minlength=V)
        fan_items, fan_ids = _indicator(d["fan_items"])

        def per_hand(values: np.ndarray) -> np.ndarray:
            return np.bincount(hcodes, weights=values, minlength=H)

        for name, k, values in (("hands", hand_key, np.ones(H)), ("rows", key, np.ones(len(key))), ("won", key, won)):
            self._into(self.den, name, k, values)

        def add(m: Metric, hand_level: bool, y: np.ndarray, n: np.ndarray | str | None = None) -> None:
            self._add(m, hand_key if hand_level else key, y, n if n is not None else "hands" if hand_level else "rows")

        # ends (R4.5, R8)
        end = d["end"].to_numpy()[first]
        for e, (words, rule) in _ENDS.items():
            add(Metric(f"end.{e}", "ends", words, rule), True, (end == e).astype(float))
        # rules fired (R9.3)
        fired, fired_ids = _indicator(d["fired"].iloc[first])
        kong_draw = (
            per_hand(fan_items[:, fan_ids.index("kong_draw")]) > 0 if "kong_draw" in fan_ids else np.zeros(H, bool)
        )
        rule_cols = {r: fired[:, i] for i, r in enumerate(fired_ids)}
        rule_cols[KONG_DRAW] = kong_draw
        for r in HEADLINE_RULES:
            rule_cols.setdefault(r, np.zeros(H, dtype=bool))
        for r, col in rule_cols.items():
            if r == "R5-capped":  # reported once, in scores
                continue
            rule_id = "R5 kong_draw" if r == KONG_DRAW else FIRED[r].rule if r in FIRED else r.split("-")[0]
            add(Metric(f"rule.{r}", "rules", RULE_WORDS.get(r, r), rule_id), True, col.astype(float))
        add(
            Metric("count.kongs", "rules", "kongs made per hand", "R6.4", "mean"),
            True,
            per_hand(d["kongs"].to_numpy().astype(float)),
        )
        # R14: a winner that stays may win again; results written before `wins` count one each
        wins = d["wins"].to_numpy().astype(float) if "wins" in d else won
        add(Metric("count.wins", "rules", "wins per hand (repeat wins too, R14)", "R4.5", "mean"), True, per_hand(wins))
        add(
            Metric("count.pigs", "rules", "pigs per hand", "R7.1", "mean"),
            True,
            per_hand(d["pig"].to_numpy().astype(float)),
        )
        # scores
        add(Metric("score.abs_delta", "scores", "mean absolute delta of a seat", "R6–R8", "mean"), False, np.abs(delta))
        add(
            Metric("score.swing", "scores", "points changing hands per hand (Σ|delta|/2)", "R6–R8", "mean"),
            True,
            per_hand(np.abs(delta)) / 2.0,
        )
        add(
            Metric("score.capped", "scores", "hands with a win at the cap (极品)", "R5"),
            True,
            rule_cols.get("R5-capped", np.zeros(H)).astype(float),
        )
        # moments for the standard deviation (derived in report(), not listed themselves)
        self.moments[self.lo : self.hi, 0] += self._sum(key, delta)
        self.moments[self.lo : self.hi, 1] += self._sum(key, delta * delta)
        # fan (R5)
        add(
            Metric("fan.mean", "fan", "average fan of a seat's (first) win", "R5", "mean"),
            False,
            d["fan"].to_numpy().astype(float),
            "won",
        )
        for item in FAN_ITEMS:
            if item in fan_ids:
                col = fan_items[:, fan_ids.index(item)].astype(float)
                add(
                    Metric(f"fan_item.{item}", "fan", f"wins with {item} ({FAN_NAMES.get(item, item)})", "R5"),
                    False,
                    col,
                    "won",
                )
        # dealer (R1.2)
        dealer = d["dealer"].to_numpy().astype(float)
        add(
            Metric("dealer.delta", "dealer", "dealer's mean delta per hand", "R1.2", "mean"),
            False,
            delta * dealer,
            dealer,
        )
        add(Metric("dealer.win", "dealer", "dealer's win rate", "R1.2"), False, won * dealer, dealer)
        # strategies: each line-up label
        strat_codes, strat_names = pd.factorize(d["strategy"].astype(object), sort=True)
        dealt_in = (d["dealt_in"].to_numpy() > 0).astype(float)
        for i, s in enumerate(strat_names):
            mask = (strat_codes == i).astype(float)
            add(
                Metric(f"strategy.{s}.delta", "strategies", f"{s}: mean delta per hand", "", "mean"),
                False,
                delta * mask,
                mask,
            )
            add(Metric(f"strategy.{s}.win", "strategies", f"{s}: win rate", "R4"), False, won * mask, mask)
            add(
                Metric(f"strategy.{s}.deal_in", "strategies", f"{s}: deal-in rate", "R6.1"),
                False,
                dealt_in * mask,
                mask,
            )
        # the count of seat-hands at each delta, per variant (distribution and quantiles)
        counts = pd.DataFrame({"v": vcode, "delta": delta.astype(np.int64)}).value_counts()
        for (v, x), c in zip(counts.index.tolist(), counts.tolist(), strict=True):
            self.dist[(v, x)] = self.dist.get((v, x), 0) + c

    def _order(self) -> list[str]:
        """The metric keys in report order: each section's fixed metrics, the rules in the
        order of RULE_WORDS then any other id, fan items in FAN_ITEMS order, strategies by name."""
        keys = list(self.metric)
        rules = [k[5:] for k in keys if k.startswith("rule.")]
        rule_order = [r for r in RULE_WORDS if r in rules] + sorted(r for r in rules if r not in RULE_WORDS)
        strategies = sorted({k.split(".", 1)[1].rsplit(".", 1)[0] for k in keys if k.startswith("strategy.")})
        return [
            *[f"end.{e}" for e in _ENDS],
            *[f"rule.{r}" for r in rule_order],
            "count.kongs",
            "count.wins",
            "count.pigs",
            "score.abs_delta",
            "score.swing",
            "score.capped",
            "fan.mean",
            *[f"fan_item.{i}" for i in FAN_ITEMS if f"fan_item.{i}" in self.metric],
            "dealer.delta",
            "dealer.win",
            *[f"strategy.{s}.{m}" for s in strategies for m in ("delta", "win", "deal_in")],
        ]

    def report(self, base: str | None, level: float) -> StudyReport:
        variants, V, G = self.variants, self.V, self.G
        base = base if base in variants else variants[0]
        order = self._order()
        metrics = [self.metric[k][0] for k in order]
        b = variants.index(base)

        def figures(est: Estimates) -> np.ndarray:
            """(value, low, high, diff, diff_low, diff_high), each (V, metrics)."""
            low, high = est.interval()
            return np.stack([est.value, low, high, *est.paired(b)])

        # A few metrics at a time: the per-wall arrays of all of them at once would be the
        # largest thing in memory (walls × metrics × variants floats, several copies).
        parts = []
        for lo in range(0, len(order), 8):
            keys = order[lo : lo + 8]
            Y = np.stack([self.y[k] for k in keys], axis=1).reshape(V, G, -1)
            N = np.stack(
                [self.n[k] if self.metric[k][1] == "own" else self.den[self.metric[k][1]] for k in keys], axis=1
            ).reshape(V, G, -1)
            parts.append(figures(ratio_estimates(Y, N, level)))
        rows = self.den["rows"]
        moments = ratio_estimates(self.moments.reshape(V, G, 2), np.stack([rows, rows], axis=1).reshape(V, G, 2), level)
        sd = figures(sd_estimates(moments.take([0]), moments.take([1])))
        at = order.index("score.swing") + 1
        metrics.insert(at, Metric("score.sd", "scores", "standard deviation of a seat's delta", "R6–R8", "mean"))
        fig = np.concatenate(parts, axis=2)
        value, low, high, diff, dlow, dhigh = np.concatenate([fig[:, :, :at], sd, fig[:, :, at:]], axis=2)
        M = len(metrics)
        vv = np.repeat(np.arange(V), M)
        mm = np.tile(np.arange(M), V)
        table = pd.DataFrame(
            {
                "section": [metrics[j].section for j in mm],
                "key": [metrics[j].key for j in mm],
                "label": [metrics[j].label for j in mm],
                "rule": [metrics[j].rule for j in mm],
                "kind": [metrics[j].kind for j in mm],
                "variant": [variants[i] for i in vv],
                "value": value.ravel(),
                "ci_low": low.ravel(),
                "ci_high": high.ravel(),
                "diff": diff.ravel(),
                "diff_low": dlow.ravel(),
                "diff_high": dhigh.ravel(),
            }
        )
        base_rows = table["variant"] == base
        table.loc[base_rows, ["diff", "diff_low", "diff_high"]] = np.nan
        table["significant"] = (table["diff_low"] > 0) | (table["diff_high"] < 0)
        table["clusters"] = G

        # score distribution: share of seat-hands at each delta, per variant
        dist = pd.DataFrame(
            [(v, x, c) for (v, x), c in self.dist.items()], columns=["variant", "delta", "count"]
        ).sort_values(["variant", "delta"], kind="stable")
        dist["share"] = dist["count"] / dist.groupby("variant")["count"].transform("sum")
        # quantiles of a seat's delta (numpy's "inverted_cdf": the least delta whose cumulative
        # count reaches q of the seat-hands): point estimates, differences against base
        qvals = np.full((V, len(QUANTILES)), np.nan)
        for i in range(V):
            part = dist[dist["variant"] == i]
            if len(part):
                cum = part["count"].cumsum().to_numpy()
                at_q = np.searchsorted(cum, np.asarray(QUANTILES) * cum[-1], side="left")
                qvals[i] = part["delta"].to_numpy()[np.minimum(at_q, len(cum) - 1)]
        qrows = []
        for i, v in enumerate(variants):
            for j, q in enumerate(QUANTILES):
                qrows.append(
                    {
                        "section": "scores",
                        "key": f"score.q{round(q * 100):02d}",
                        "label": f"{q:.0%} quantile of a seat's delta",
                        "rule": "R6–R8",
                        "kind": "mean",
                        "variant": v,
                        "value": qvals[i, j],
                        "ci_low": np.nan,
                        "ci_high": np.nan,
                        "diff": np.nan if v == base else qvals[i, j] - qvals[b, j],
                        "diff_low": np.nan,
                        "diff_high": np.nan,
                        "significant": False,
                        "clusters": G,
                    }
                )
        table = pd.concat([table, pd.DataFrame(qrows)], ignore_index=True)
        sec_order = {s: i for i, s in enumerate(SECTIONS)}
        met_order = {k: i for i, k in enumerate(dict.fromkeys(table["key"]))}
        table = table.assign(
            _s=table["section"].map(sec_order),
            _m=table["key"].map(met_order),
            _v=table["variant"].map({v: i for i, v in enumerate(variants)}),
        )
        table = (
            table.sort_values(["_s", "_m", "_v"], kind="stable").drop(columns=["_s", "_m", "_v"]).reset_index(drop=True)
        )
        dist["variant"] = np.asarray(variants, dtype=object)[dist["variant"].to_numpy()]
        dist = dist.sort_values(["variant", "delta"], kind="stable").reset_index(drop=True)
        hands = {v: int(self.hands[i]) for i, v in enumerate(variants)}
        return StudyReport(variants, base, table, dist, G, hands, self.notes)
