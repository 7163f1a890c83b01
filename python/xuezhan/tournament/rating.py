"""OpenSkill Plackett-Luce ratings of a tournament's strategies, fast enough for a million hands.

A rating is sequential by nature (each hand updates the ratings the next hand starts from), so
it cannot be one vectorised pass. :func:`plackett_luce` therefore does two things:

- the update of one hand is the Plackett-Luce update of OpenSkill (Weng and Lin 2011, as in
  ``openskill.models.PlackettLuce`` with its defaults: μ = 25, σ = 25/3, β = 25/6, τ = 25/300,
  κ = 0.0001) for one-player teams, written on plain floats: about 20× faster than building
  OpenSkill's rating objects per seat (the tests check it gives OpenSkill's numbers);
- at most :data:`RATED_HANDS` hands are rated: a larger table is rated on that many hands
  spread evenly over it, in hand order (a deterministic sample). With τ > 0 the ratings settle
  within a few thousand hands, so the sample gives the ratings a full pass would give within
  their own uncertainty; the report says when a sample was used.

Every seat of a hand is one team, ranked by the hand's delta (equal deltas tie). When a
strategy fills several seats of a hand, each seat is rated from the strategy's current rating
and the strategy then takes the mean of those seats' updated ``mu`` and ``sigma``.

    >>> import numpy as np
    >>> mu, sigma = plackett_luce(np.array([0, 0, 0, 0]), np.array([0, 1, 2, 3]),
    ...                           np.array([3, 1, -1, -3]), 4)
    >>> [round(m, 3) for m in mu]
    [27.795, 26.553, 24.689, 20.962]
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["MU", "RATED_HANDS", "SIGMA", "plackett_luce", "rated_hands", "ratings"]

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
TAU = 25.0 / 300.0
KAPPA = 0.0001
#: The most hands rated; a larger table is rated on a sample of this many, spread evenly.
RATED_HANDS = 50_000


def rated_hands(n_hands: int, limit: int = RATED_HANDS) -> np.ndarray:
    """Positions (0-based, increasing) of the hands rated among ``n_hands``: all of them up to
    ``limit``, else ``limit`` positions spread evenly."""
    if n_hands <= limit:
        return np.arange(n_hands)
    return np.unique(np.linspace(0, n_hands - 1, limit).round().astype(np.int64))


def _rate(mu: list[float], sigma: list[float], delta: list[int]) -> tuple[list[float], list[float]]:
    """One hand: the updated (mu, sigma) of each seat (one-player teams, ranked by delta)."""
    k = len(mu)
    sig2 = [s * s + TAU * TAU for s in sigma]
    c = math.sqrt(sum(sig2) + k * BETA * BETA)
    e = [math.exp(m / c) for m in mu]
    # rank: the better (higher delta) first; ties share a rank
    sum_q = [sum(e[i] for i in range(k) if delta[i] <= delta[q]) for q in range(k)]
    a = [sum(1 for i in range(k) if delta[i] == delta[q]) for q in range(k)]
    new_mu, new_sigma = [], []
    for i in range(k):
        omega = 0.0
        dlt = 0.0
        for q in range(k):
            if delta[q] >= delta[i]:
                t = e[i] / sum_q[q]
                dlt += t * (1.0 - t) / a[q]
                omega += ((1.0 - t) if q == i else -t) / a[q]
        omega *= sig2[i] / c
        dlt *= sig2[i] / (c * c) * (math.sqrt(sig2[i]) / c)
        new_mu.append(mu[i] + omega)
        new_sigma.append(math.sqrt(sig2[i]) * math.sqrt(max(1.0 - dlt, KAPPA)))
    return new_mu, new_sigma


def plackett_luce(
    hand: np.ndarray, code: np.ndarray, delta: np.ndarray, n: int, *, limit: int = RATED_HANDS
) -> tuple[list[float], list[float]]:
    """Ratings (``mu``, ``sigma`` per strategy code ``0..n-1``) from rows sorted by (hand, seat):
    ``hand`` ids, the strategy ``code`` of each row and its ``delta``. Hands with fewer than two
    rows are skipped; at most ``limit`` hands are rated (see the module's docstring)."""
    mu = [MU] * n
    sigma = [SIGMA] * n
    if len(hand) == 0:
        return mu, sigma
    bounds = np.flatnonzero(np.diff(hand)) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.concatenate((bounds, [len(hand)]))
    pick = rated_hands(len(starts), limit)
    codes = code.tolist()
    deltas = delta.tolist()
    for a, b in zip(starts[pick].tolist(), ends[pick].tolist(), strict=True):
        if b - a < 2:
            continue
        seats = codes[a:b]
        new_mu, new_sigma = _rate([mu[s] for s in seats], [sigma[s] for s in seats], deltas[a:b])
        if len(set(seats)) == len(seats):
            for s, m, g in zip(seats, new_mu, new_sigma, strict=True):
                mu[s], sigma[s] = m, g
            continue
        acc: dict[int, list[tuple[float, float]]] = {}
        for s, m, g in zip(seats, new_mu, new_sigma, strict=True):
            acc.setdefault(s, []).append((m, g))
        for s, vals in acc.items():
            mu[s] = sum(v[0] for v in vals) / len(vals)
            sigma[s] = sum(v[1] for v in vals) / len(vals)
    return mu, sigma


def ratings(df: pd.DataFrame) -> pd.DataFrame:
    """OpenSkill (Plackett-Luce) ratings per strategy, hands processed in hand order.

    Every seat of a hand is one team, ranked by the hand's delta (equal deltas tie). When a
    strategy fills several seats of a hand, each seat is rated from the strategy's current
    rating and the strategy then takes the mean of those seats' updated ``mu`` and ``sigma``.
    Tables of more than :data:`RATED_HANDS` hands are rated on that many hands spread evenly
    over them (see the module's docstring).
    Returns ``mu``, ``sigma`` and the conservative ``rating`` (ordinal, ``mu − 3σ``) per strategy.
    """
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
