"""Small statistics helpers (no SciPy): Student-t quantiles, cluster-robust mean intervals and
paired-difference intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

__all__ = ["t_ppf", "clustered_mean_ci", "mean_ci"]


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Student-t cumulative distribution function."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_ppf(p: float, df: float) -> float:
    """Student-t quantile (inverse CDF) by bisection on :func:`t_cdf`; normal for df > 1e6."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df <= 0:
        raise ValueError(f"df must be positive, got {df}")
    if df > 1e6:
        return NormalDist().inv_cdf(p)
    if p < 0.5:
        return -t_ppf(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def clustered_mean_ci(
    values: Sequence[float] | np.ndarray, clusters: Sequence[int] | np.ndarray, level: float = 0.95
) -> tuple[float, float, float, int]:
    """Mean of ``values`` with a cluster-robust ``level`` interval.

    Sum the values and count the rows per cluster (``Y_k``, ``n_k``); the mean is
    ``m = ΣY_k / Σn_k``; its variance is estimated over clusters as
    ``G/(G-1) · Σ(Y_k − m·n_k)² / (Σn_k)²`` (the CR1 sandwich estimator for a mean), and the
    interval is ``m ± t_{G−1} · se``. When every cluster has the same size this is exactly the
    t-interval over the G cluster means. Returns ``(mean, low, high, G)``; with one cluster the
    interval is infinite.
    """
    v = np.asarray(values, dtype=float)
    c = np.asarray(clusters)
    if v.size == 0:
        return (math.nan, math.nan, math.nan, 0)
    _, inverse = np.unique(c, return_inverse=True)
    sums = np.bincount(inverse, weights=v)
    counts = np.bincount(inverse).astype(float)
    g = sums.size
    total = counts.sum()
    mean = sums.sum() / total
    if g < 2:
        return (float(mean), -math.inf, math.inf, g)
    resid = sums - mean * counts
    var = g / (g - 1) * float(np.sum(resid * resid)) / (total * total)
    half = t_ppf(0.5 + level / 2.0, g - 1) * math.sqrt(var)
    return (float(mean), float(mean - half), float(mean + half), g)


def mean_ci(values: Sequence[float] | np.ndarray, level: float = 0.95) -> tuple[float, float, float, int]:
    """Mean of ``values`` with its Student-t ``level`` interval, ``(mean, low, high, n)``: what a
    paired comparison needs, ``values`` being the per-wall differences of two strategies. With one
    value the interval is infinite; with none, NaN.

    >>> m, lo, hi, n = mean_ci([1.0, 2.0, 3.0])
    >>> m, round(lo, 3), round(hi, 3), n
    (2.0, -0.484, 4.484, 3)
    """
    v = np.asarray(values, dtype=float)
    n = int(v.size)
    if n == 0:
        return (math.nan, math.nan, math.nan, 0)
    mean = float(v.mean())
    if n < 2:
        return (mean, -math.inf, math.inf, n)
    half = t_ppf(0.5 + level / 2.0, n - 1) * float(v.std(ddof=1)) / math.sqrt(n)
    return (mean, mean - half, mean + half, n)
