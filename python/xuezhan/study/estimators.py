"""Cluster-robust means and paired differences, vectorised over variants and metrics.

Every quantity a study reports is a ratio of sums, ``m = ΣY / ΣN`` over rows: a plain mean of
a per-hand value (``N`` = 1 per hand), a share of hands, or a mean over some rows only (the fan
of wins: ``Y`` = fan, ``N`` = won). Rows are clustered by wall seed (``seed_index``: under
duplicate seating the four rotations of a wall share its luck), so the sums are taken per
cluster, ``Y_g`` and ``N_g``, and the estimate's influence of cluster ``g`` is

    u_g = (Y_g − m · N_g) / ΣN.

Its variance is the CR1 sandwich ``G/(G−1) · Σ u_g²`` and the interval is
``m ± t_{G−1} · se`` (Student t quantile from SciPy). For a plain mean over equal clusters this
is exactly the t-interval over the G cluster means.

Every variant of a study plays the same walls, so a variant ``v`` and the base ``b`` are
compared cluster by cluster: the paired difference ``m_v − m_b`` has the influences
``u_{v,g} − u_{b,g}``, and its interval is ``± t_{G−1} · sqrt(G/(G−1) · Σ (u_{v,g} − u_{b,g})²)``.
For plain means over equal clusters this is the paired t-interval over the per-wall
differences (``scipy.stats.ttest_rel`` on the cluster means gives the same interval).

    >>> import numpy as np
    >>> y = np.array([[[1.0], [2.0], [3.0]], [[2.0], [2.0], [5.0]]])  # 2 variants, 3 walls, 1 metric
    >>> est = ratio_estimates(y, np.ones_like(y))
    >>> est.value.ravel().tolist()
    [2.0, 3.0]
    >>> diff, low, high = est.paired(base=0)
    >>> float(diff[1, 0]), round(float(low[1, 0]), 3), round(float(high[1, 0]), 3)
    (1.0, -1.484, 3.484)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["Estimates", "ratio_estimates", "t_quantile"]


def t_quantile(level: float, clusters: int) -> float:
    """The two-sided ``level`` quantile of Student's t with ``clusters − 1`` degrees of freedom
    (infinite with fewer than two clusters: no interval)."""
    if clusters < 2:
        return float("inf")
    return float(stats.t.ppf(0.5 + level / 2.0, clusters - 1))


@dataclass(frozen=True)
class Estimates:
    """Estimates ``value[v, m]`` of metric ``m`` under variant ``v`` and their per-cluster
    influences ``influence[v, g, m]`` (see the module's docstring)."""

    value: np.ndarray
    influence: np.ndarray
    level: float = 0.95

    @property
    def clusters(self) -> int:
        return int(self.influence.shape[1])

    def _half(self, influence: np.ndarray) -> np.ndarray:
        g = self.clusters
        with np.errstate(invalid="ignore"):
            var = (
                g / (g - 1) * np.sum(influence * influence, axis=1) if g >= 2 else np.full(influence.shape[::2], np.inf)
            )
        return t_quantile(self.level, g) * np.sqrt(var)

    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` of each estimate, shape ``(V, M)``."""
        half = self._half(self.influence)
        return self.value - half, self.value + half

    def paired(self, base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(diff, low, high)``: each variant minus variant ``base``, paired over clusters."""
        diff = self.value - self.value[base]
        half = self._half(self.influence - self.influence[base])
        return diff, diff - half, diff + half

    def take(self, columns: np.ndarray | list[int]) -> Estimates:
        return Estimates(self.value[:, columns], self.influence[:, :, columns], self.level)

    def concat(self, other: Estimates) -> Estimates:
        return Estimates(
            np.concatenate([self.value, other.value], axis=1),
            np.concatenate([self.influence, other.influence], axis=2),
            self.level,
        )


def ratio_estimates(y: np.ndarray, n: np.ndarray, level: float = 0.95) -> Estimates:
    """Estimates of ``ΣY/ΣN`` from per-cluster sums ``y[v, g, m]`` and ``n[v, g, m]``.

    A metric with ``ΣN = 0`` under a variant (e.g. the fan of wins when nobody won) is NaN.
    """
    y = np.asarray(y, dtype=float)
    n = np.asarray(n, dtype=float)
    total_n = n.sum(axis=1)  # (V, M)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = y.sum(axis=1) / total_n
        influence = (y - value[:, None, :] * n) / total_n[:, None, :]
    return Estimates(value, influence, level)


def sd_estimates(mean: Estimates, mean_square: Estimates) -> Estimates:
    """The standard deviation ``sqrt(E[x²] − E[x]²)`` from the estimates of ``E[x]`` and
    ``E[x²]`` (one metric each), with influences by the delta method."""
    m1, m2 = mean.value, mean_square.value
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(np.maximum(m2 - m1 * m1, 0.0))
        influence = (mean_square.influence - 2.0 * m1[:, None, :] * mean.influence) / (2.0 * sd[:, None, :])
    return Estimates(sd, influence, mean.level)
