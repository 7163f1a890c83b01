"""The verdict of a tournament: one sentence per paired comparison of :func:`~.summary.pairwise`,
close calls first, each saying who is better, by how much and how sure (:class:`Verdict`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from xuezhan.reporting import clear_at, decimals_for, number

__all__ = ["Verdict", "format_pairwise", "verdicts"]


def _ranked_pairs(pairs: pd.DataFrame, ranking: list[str]) -> list[dict[str, Any]]:
    """The paired comparisons, neighbours in the ranking first (the close calls), then wider gaps."""
    rank = {n: i for i, n in enumerate(ranking)}

    def key(r: dict[str, Any]) -> tuple[int, int]:
        i, j = sorted((rank.get(r["a"], 0), rank.get(r["b"], 0)))
        return (j - i, i)

    records: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in pairs.to_dict("records")]
    return sorted(records, key=key)


@dataclass(frozen=True)
class Verdict:
    """One paired comparison in words: ``better`` scores ``diff`` points per hand more than
    ``worse`` on the same walls, with its interval; ``clear`` when the interval excludes zero at
    the decimals shown."""

    better: str
    worse: str
    diff: float
    low: float
    high: float
    walls: int
    decimals: int
    clear: bool

    @property
    def sentence(self) -> str:
        d = self.decimals
        walls = f"{self.walls:,} wall{'s' if self.walls != 1 else ''}"
        if math.isfinite(self.low) and math.isfinite(self.high):
            interval = f"95% interval {number(self.low, d)} to {number(self.high, d)}, {walls}"
        else:
            interval = f"{walls}: too few for an interval"
        conclusion = f"{self.better} is better" if self.clear else "no clear difference"
        if number(self.diff, d) == number(0.0, d):
            return f"{self.better} and {self.worse} score the same on the same walls ({interval}): {conclusion}"
        return (
            f"{self.better} scores {number(self.diff, d)} points per hand more than {self.worse} "
            f"on the same walls ({interval}): {conclusion}"
        )


def verdicts(pairs: pd.DataFrame, ranking: list[str] | None = None) -> list[Verdict]:
    """One :class:`Verdict` per row of :func:`pairwise` (close calls first when ``ranking``, the
    strategies best first, is given). Decimals show each interval's half-width to two
    significant digits (at least two decimals)."""
    rows = _ranked_pairs(pairs, ranking) if ranking else pairs.to_dict("records")
    out = []
    for r in rows:
        half = (r["ci_high"] - r["ci_low"]) / 2
        d = decimals_for(half, least=2)
        out.append(
            Verdict(
                better=str(r["a"]),
                worse=str(r["b"]),
                diff=float(r["diff"]),
                low=float(r["ci_low"]),
                high=float(r["ci_high"]),
                walls=int(r["clusters"]),
                decimals=d,
                clear=clear_at(float(r["ci_low"]), float(r["ci_high"]), d),
            )
        )
    return out


def format_pairwise(pairs: pd.DataFrame, ranking: list[str] | None = None) -> str:
    """The verdict: one sentence per paired comparison (see :class:`Verdict`)."""
    return "\n".join(f"- {v.sentence}" for v in verdicts(pairs, ranking))


# ---------------------------------------------------------------------------- the header
