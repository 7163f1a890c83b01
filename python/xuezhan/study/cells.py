"""A study's measurements as the cells of its tables: one :class:`Cell` per (quantity, variant),
one :class:`Row` per quantity, formatted once for the terminal, the page and the verdict.

Each row has one number of decimals: enough to show the narrowest of its intervals'
half-widths to two significant digits (:func:`xuezhan.reporting.decimals_for`), so a cell is
never more precise than its neighbours, and a difference is clear only when its interval
excludes zero at that precision (a ``Δ −0.00 [−0.00, −0.00]`` never is). Shares are shown in %,
their differences in percentage points.

A cell may have no spread. A variant that gives the same value as the base on every wall has
a paired difference of exactly zero with a zero-width interval: its cell is :attr:`Cell.same`,
shown as "same" rather than ``(0.0±0.0)`` (so is a quantile, a point estimate, equal to the
base's). A row in which every variant is the same as the base
(:attr:`Row.uniform`) tells nothing about the rules: the reports leave it out of the tables and
name it in one line, apart from the quantities that never happened at all (:attr:`Row.never`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xuezhan.reporting import clear_at, decimals_for, number
from xuezhan.study.measure import StudyReport

__all__ = ["Cell", "Row", "StudyCells", "study_cells"]


def _scale(kind: str) -> float:
    """Shares are shown in % (their differences in percentage points), numbers as they are."""
    return 100.0 if kind == "share" else 1.0


def _half(low: float, high: float) -> float:
    return (high - low) / 2 if math.isfinite(low) and math.isfinite(high) else math.inf


def _finite(low: float, high: float) -> bool:
    return math.isfinite(low) and math.isfinite(high)


@dataclass(frozen=True)
class Cell:
    """One (quantity, variant): its value and interval in the units shown (shares in %), and for
    a variant other than the base the paired difference against the base with its interval;
    ``decimals`` is the row's."""

    kind: str
    decimals: int
    value: float
    low: float = math.nan
    high: float = math.nan
    diff: float = math.nan
    diff_low: float = math.nan
    diff_high: float = math.nan
    compared: bool = False

    @property
    def unit(self) -> str:
        return "%" if self.kind == "share" else ""

    @property
    def value_text(self) -> str:
        """``12.3%``, ``0.96``; ``-`` when there is no value."""
        return number(self.value, self.decimals) + self.unit if self.value == self.value else "-"

    @property
    def spread(self) -> bool:
        """Whether the value varies from wall to wall (its interval has a width)."""
        return not _finite(self.low, self.high) or self.high > self.low

    @property
    def interval(self) -> str:
        """``[10.1, 14.5]``, empty without an interval."""
        if not _finite(self.low, self.high):
            return ""
        return f"[{number(self.low, self.decimals)}, {number(self.high, self.decimals)}]"

    @property
    def half(self) -> str:
        """``±2.2``; empty without an interval or when the value is the same on every wall."""
        if not _finite(self.low, self.high) or not self.spread:
            return ""
        return f"±{number(_half(self.low, self.high), self.decimals)}"

    @property
    def has_diff_interval(self) -> bool:
        return self.compared and _finite(self.diff_low, self.diff_high)

    @property
    def same(self) -> bool:
        """The variant gives exactly the base's value on every wall (a zero difference with a
        zero-width interval), or, for a point estimate without an interval (a quantile), the
        base's value."""
        if not self.compared or self.diff != 0:
            return False
        if self.diff_low != self.diff_low and self.diff_high != self.diff_high:  # no interval
            return True
        return self.diff_low == 0 and self.diff_high == 0

    @property
    def diff_text(self) -> str:
        """The difference against the base, signed (``+1.2``); ``pp`` after a share's difference
        that has no interval. Empty for the base."""
        if not self.compared or self.diff != self.diff:
            return ""
        pp = " pp" if self.unit and not self.has_diff_interval else ""
        return number(self.diff, self.decimals, signed=True) + pp

    @property
    def diff_interval(self) -> str:
        """``[+0.4, +2.0] pp``; empty without an interval."""
        if not self.has_diff_interval:
            return ""
        d = self.decimals
        return f"[{number(self.diff_low, d, signed=True)}, {number(self.diff_high, d, signed=True)}]" + (
            " pp" if self.unit else ""
        )

    @property
    def diff_half(self) -> str:
        return f"±{number(_half(self.diff_low, self.diff_high), self.decimals)}" if self.has_diff_interval else ""

    @property
    def clear(self) -> bool:
        """The difference's interval excludes zero at the decimals shown."""
        return self.has_diff_interval and clear_at(self.diff_low, self.diff_high, self.decimals)

    @property
    def text(self) -> str:
        """The terminal cell: ``value ±half`` for the base, ``value (diff±half)*`` for another
        variant (``*``: clear), ``value (same)`` when it is the base's on every wall."""
        if not self.diff_text:
            return f"{self.value_text} {self.half}".strip()
        if self.same:
            return f"{self.value_text} (same)"
        return f"{self.value_text} ({self.diff_text}{self.diff_half}){'*' if self.clear else ''}"


@dataclass(frozen=True)
class Row:
    """One quantity: its section, key, words and rule id, and whether the variants differ at all."""

    section: str
    key: str
    label: str
    rule: str
    kind: str
    #: Every variant other than the base gives the base's value on every wall.
    uniform: bool
    #: Uniform, and zero: the thing never happened under any variant.
    never: bool

    @property
    def title(self) -> str:
        """The label with its rule id: ``pig caught (花猪) [R7.2]``."""
        return f"{self.label} [{self.rule}]" if self.rule else self.label


@dataclass(frozen=True)
class StudyCells:
    """The formatted cells of a report: ``cells[(key, variant)]`` and the rows in report order."""

    report: StudyReport
    cells: dict[tuple[str, str], Cell]
    rows: list[Row]

    def shown(self, section: str | None = None) -> list[Row]:
        """The rows the tables show (of one section): those in which some variant differs."""
        return [r for r in self.rows if not r.uniform and (section is None or r.section == section)]

    def left_out(self) -> tuple[list[Row], list[Row]]:
        """The rows left out of the tables: (the same under every variant, never happened)."""
        uniform = [r for r in self.rows if r.uniform]
        return [r for r in uniform if not r.never], [r for r in uniform if r.never]


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


def study_cells(report: StudyReport) -> StudyCells:
    """Format every (quantity, variant) of ``report`` (see the module's docstring)."""
    cells: dict[tuple[str, str], Cell] = {}
    rows: list[Row] = []
    several = len(report.variants) > 1
    for key, g in report.table.groupby("key", sort=False):
        recs: list[Any] = list(g.itertuples(index=False))
        first = recs[0]
        d = _row_decimals(recs)
        k = _scale(first.kind)
        row_cells = []
        for r in recs:
            compared = r.variant != report.base and r.diff == r.diff
            cell = Cell(
                kind=str(first.kind),
                decimals=d,
                value=r.value * k,
                low=r.ci_low * k,
                high=r.ci_high * k,
                diff=r.diff * k if compared else math.nan,
                diff_low=r.diff_low * k if compared else math.nan,
                diff_high=r.diff_high * k if compared else math.nan,
                compared=compared,
            )
            cells[(str(key), str(r.variant))] = cell
            row_cells.append((str(r.variant), cell))
        others = [c for v, c in row_cells if v != report.base]
        uniform = several and len(others) == len(report.variants) - 1 and all(c.same for c in others)
        base = cells.get((str(key), report.base))
        never = uniform and base is not None and base.value == 0 and not base.spread
        rows.append(
            Row(str(first.section), str(key), str(first.label), str(first.rule), str(first.kind), uniform, never)
        )
    return StudyCells(report, cells, rows)
