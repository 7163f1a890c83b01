"""The verdict of a study: what each variant changes against the base variant, in sentences.

A study's report opens, like a tournament's, with sentences a reader can act on. For each
variant other than the base (:class:`VariantVerdict`), on the same walls with 95% intervals:

- every strategy of the line-up: does the variant make it score more or less per hand
  ("value scores 0.30 points per hand less than under max_fan=5 (95% interval −0.52 to −0.08):
  max_fan=4 hurts value");
- the quantities it clearly changes, the headline ones first
  (:data:`~xuezhan.study.measure.HEADLINE_KEYS`), then the clearest: at most
  :data:`MOST_CHANGES`, and how many more the tables mark;
- or, when every quantity is the base's on every wall, that the variant changes nothing.

The numbers are those of the tables (:mod:`.cells`): the same decimals, and "clear" only when
the interval excludes zero at the decimals shown.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from xuezhan.reporting import number
from xuezhan.study.cells import Cell, Row, StudyCells
from xuezhan.study.measure import HEADLINE_KEYS

__all__ = ["MOST_CHANGES", "Change", "VariantVerdict", "rule_changes", "study_verdicts"]

#: At most this many changes named per variant besides the strategies' points.
MOST_CHANGES = 5
#: Rule changes named in a variant's heading before "and N more".
MOST_RULE_CHANGES = 4


def _interval(cell: Cell) -> str:
    if not cell.has_diff_interval:
        return "too few walls for an interval"
    d = cell.decimals
    return f"95% interval {number(cell.diff_low, d, signed=True)} to {number(cell.diff_high, d, signed=True)}"


@dataclass(frozen=True)
class Change:
    """One quantity of one variant against the base, in words. ``strategy`` is set for a
    strategy's points per hand, which get a sentence of their own."""

    variant: str
    base: str
    row: Row
    cell: Cell
    base_cell: Cell
    strategy: str | None = None

    @property
    def clear(self) -> bool:
        return self.cell.clear

    @property
    def sentence(self) -> str:
        c, d = self.cell, self.cell.decimals
        if self.strategy is not None:
            s = self.strategy
            if c.same:
                return f"{s} scores exactly as under {self.base}, wall by wall"
            amount = number(abs(c.diff), d)
            if amount == number(0.0, d):
                return f"{s} scores the same as under {self.base} ({_interval(c)}): no clear difference"
            more = "more" if c.diff > 0 else "less"
            verdict = f"{self.variant} {'helps' if c.diff > 0 else 'hurts'} {s}" if c.clear else "no clear difference"
            return f"{s} scores {amount} points per hand {more} than under {self.base} ({_interval(c)}): {verdict}"
        unit = " percentage points" if c.unit else ""
        return (
            f"{self.row.label}: from {self.base_cell.value_text} to {c.value_text}, "
            f"{number(c.diff, d, signed=True)}{unit} ({_interval(c)})"
        )


@dataclass(frozen=True)
class VariantVerdict:
    """What one variant changes against the base: its rule changes in words (``rules``, empty
    when unknown), the strategies' points and the clear changes (:class:`Change`), how many
    more clear changes the tables mark, and whether nothing changes at all."""

    variant: str
    base: str
    rules: str
    strategies: tuple[Change, ...]
    changes: tuple[Change, ...]
    more: int
    identical: bool

    @property
    def heading(self) -> str:
        return f"{self.variant} ({self.rules})" if self.rules else self.variant

    @property
    def marked(self) -> list[tuple[str, bool]]:
        """The sentences, each with whether it states a clear difference."""
        if self.identical:
            return [
                (
                    f"every quantity is the same as under {self.base} on every wall: these rules change nothing here",
                    False,
                )
            ]
        out = [(c.sentence, c.clear) for c in (*self.strategies, *self.changes)]
        if self.more:
            many = self.more > 1
            out.append(
                (f"and {self.more} more quantit{'ies' if many else 'y'} change{'' if many else 's'} clearly "
                 "(marked in the tables)", False)
            )  # fmt: skip
        elif not self.changes:
            out.append(("no other quantity changes clearly", False))
        return out

    @property
    def sentences(self) -> list[str]:
        return [text for text, _clear in self.marked]


def _strength(c: Cell) -> float:
    """How far from zero a clear difference is, in half-widths of its interval."""
    half = (c.diff_high - c.diff_low) / 2
    return abs(c.diff) / half if half > 0 else math.inf


def study_verdicts(cells: StudyCells, rules: Mapping[str, str] | None = None) -> list[VariantVerdict]:
    """One :class:`VariantVerdict` per variant other than the base, in the study's order;
    ``rules``: each variant's rule changes in words (:func:`rule_changes`)."""
    report = cells.report
    base = report.base
    by_key = {r.key: r for r in cells.rows}
    strategy_keys = [r.key for r in cells.rows if r.key.startswith("strategy.") and r.key.endswith(".delta")]
    order = {k: i for i, k in enumerate(HEADLINE_KEYS)}
    out = []
    for v in report.variants:
        if v == base:
            continue
        mine = {k: c for (k, var), c in cells.cells.items() if var == v}
        strategies = tuple(
            Change(v, base, by_key[k], mine[k], cells.cells[(k, base)], strategy=k[len("strategy.") : -len(".delta")])
            for k in strategy_keys
            if k in mine and mine[k].compared
        )
        clear = [
            Change(v, base, by_key[k], c, cells.cells[(k, base)])
            for k, c in mine.items()
            if c.clear and k not in strategy_keys
        ]
        clear.sort(key=lambda ch: (order.get(ch.row.key, len(order)), -_strength(ch.cell)))
        compared = [c for c in mine.values() if c.has_diff_interval]
        identical = bool(compared) and all(c.same for c in compared)
        out.append(
            VariantVerdict(
                variant=v,
                base=base,
                rules=(rules or {}).get(v, ""),
                strategies=strategies,
                changes=tuple(clear[:MOST_CHANGES]),
                more=max(0, len(clear) - MOST_CHANGES),
                identical=identical,
            )
        )
    return out


def _flat(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _word(value: Any) -> str:
    """A rule's value as the study file writes it, without quotes: ``3``, ``true``, ``chengdu``."""
    return value if isinstance(value, str) else json.dumps(value)


def rule_changes(rules: Mapping[str, Mapping[str, Any]], base: str) -> dict[str, str]:
    """Each variant's rules against the base's, in words (``rules``: variant → the rules'
    fields, as a study's manifest records them; the rules id is ignored).

    >>> rule_changes({"a": {"max_fan": 5, "fan": {"gen": True}}, "b": {"max_fan": 3, "fan": {"gen": False}}}, "a")
    {'a': '', 'b': 'max_fan 3 instead of 5, fan.gen false instead of true'}
    """
    if base not in rules:
        return {}
    ref = _flat(rules[base])
    out = {}
    for v, r in rules.items():
        mine = _flat(r)
        words = [
            f"{k} {_word(mine.get(k))} instead of {_word(ref.get(k))}"
            for k in sorted(set(mine) | set(ref), key=lambda k: (k != "preset", k.startswith("fan."), k))
            if k != "rules_id" and mine.get(k) != ref.get(k)
        ]
        if len(words) > MOST_RULE_CHANGES + 1:
            words = [*words[:MOST_RULE_CHANGES], f"and {len(words) - MOST_RULE_CHANGES} more rule changes"]
        out[v] = ", ".join(words)
    return out
