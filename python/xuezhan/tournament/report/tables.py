"""The per-strategy and per-rule tables of a tournament report as text cells
(:class:`TextTable`), shared by the terminal and the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from xuezhan.reporting import decimals_for, number, percent

__all__ = ["MAIN_COLUMNS", "MORE_COLUMNS", "TextTable", "rules_table", "strategy_tables"]

#: (column, header, kind): the main per-strategy table, then the secondary one.
MAIN_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("hands", "hands", "count"),
    ("mean_delta", "points per hand", "points"),
    ("interval", "95% interval", "text"),
    ("win_rate", "won", "share"),
    ("deal_in_rate", "dealt in", "share"),
    ("self_draw_rate", "won by self-draw", "share"),
    ("avg_fan", "fan per win", "fan"),
)
MORE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("pig_rate", "pig (R7.1)", "share"),
    ("ready_rate", "ready at the check (R7.3)", "share"),
    ("escapes", "escapes (R8)", "count"),
    ("timeouts", "timeouts (R10)", "count"),
    ("rating", "rating (μ − 3σ)", "rating"),
    ("rating_mu", "μ", "rating"),
    ("rating_sigma", "σ", "rating"),
)


@dataclass(frozen=True)
class TextTable:
    """A table as text cells, shared by the terminal and the page: ``columns`` are
    ``(header, "num" | "text")``."""

    caption: str
    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple[str, ...], ...]


def _points_decimals(summary: pd.DataFrame) -> int:
    halves = ((summary["ci_high"] - summary["ci_low"]) / 2).to_numpy(dtype=float)
    finite = halves[np.isfinite(halves) & (halves > 0)]
    return decimals_for(float(finite.min()), least=2) if finite.size else 2


def _cell(value: Any, kind: str, points: int) -> str:
    if kind == "count":
        return number(float(value), 0)
    if kind == "share":
        return percent(float(value), 1)
    if kind == "points":
        return number(float(value), points, signed=True)
    if kind in ("fan", "rating"):
        return number(float(value), 2)
    return str(value)


def strategy_tables(summary: pd.DataFrame) -> tuple[TextTable, TextTable]:
    """The per-strategy tables: points and how hands go, then pigs, ready checks, faults and
    the rating. Every column has one number of decimals."""
    d = _points_decimals(summary)
    walls = int(summary["clusters"].max()) if len(summary) else 0

    def rows(cols: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, ...], ...]:
        out = []
        for name, r in summary.iterrows():
            cells = [str(name)]
            for col, _header, kind in cols:
                if col == "interval":
                    ok = math.isfinite(r.ci_low) and math.isfinite(r.ci_high)
                    cells.append(
                        f"{number(r.ci_low, d, signed=True)} to {number(r.ci_high, d, signed=True)}" if ok else "-"
                    )
                else:
                    cells.append(_cell(r[col], kind, d))
            out.append(tuple(cells))
        return tuple(out)

    main = TextTable(
        caption=f"Per strategy: points per hand (95% interval clustered by wall, {walls:,} walls) and how hands go",
        columns=(("strategy", "text"), *((h, "num") for _c, h, _k in MAIN_COLUMNS)),
        rows=rows(MAIN_COLUMNS),
    )
    more = TextTable(
        caption="Per strategy: pigs, ready checks, faults and the OpenSkill rating",
        columns=(("strategy", "text"), *((h, "num") for _c, h, _k in MORE_COLUMNS)),
        rows=rows(MORE_COLUMNS),
    )
    return main, more


def rules_table(rules: pd.DataFrame) -> TextTable:
    """How often each rule fired; the rules id in the caption when there is one."""
    ids = sorted(map(str, rules["rules_id"].unique())) if len(rules) else []
    several = len(ids) > 1
    columns: tuple[tuple[str, str], ...] = (
        *((("rules", "text"),) if several else ()),
        ("rule", "text"),
        ("what it is", "text"),
        ("hands", "num"),
        ("share of hands", "num"),
    )
    rows = []
    for r in rules.to_dict("records"):
        cells = ([str(r["rules_id"])] if several else []) + [
            str(r["rule"]),
            str(r["title"]),
            number(float(r["hands"]), 0),
            percent(float(r["share"]), 1),
        ]
        rows.append(tuple(cells))
    where = f" (rules {ids[0]})" if len(ids) == 1 else ""
    return TextTable(caption=f"How often each rule fired{where}", columns=columns, rows=tuple(rows))
