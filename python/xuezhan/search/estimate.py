"""The value of each action at one seat's decision, estimated by determinized rollouts.

Each sample draws one round consistent with what the seat knows
(:func:`~xuezhan.engine.determinize.determinize`), then plays every candidate action on a copy
of that same sample (common random numbers: the actions are compared on the same hidden tiles)
and the rest of the hand with the rollout policy for all four seats, through the engine
itself. An action's estimate is the seat's mean result (its delta for the hand) over the
samples, with a normal 95% interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from xuezhan.engine.actions import Action
from xuezhan.engine.determinize import determinize
from xuezhan.engine.match import run_round
from xuezhan.engine.round import Round
from xuezhan.strategies import builtin

__all__ = ["ActionEstimate", "estimate_actions"]


@dataclass(frozen=True, slots=True)
class ActionEstimate:
    """One action's estimated result for the deciding seat: the mean delta over ``rollouts``
    rollouts and its 95% interval ``[low, high]``."""

    action: Action
    mean: float
    low: float
    high: float
    rollouts: int


def estimate_actions(
    rnd: Round,
    seat: int,
    *,
    rollouts: int,
    rng: random.Random,
    policy: str = "greedy",
    actions: Sequence[Action] | None = None,
) -> list[ActionEstimate]:
    """Estimates of ``actions`` (default: every legal action of ``seat``), best first.

    ``rnd`` is not changed. Each of the ``rollouts`` samples is one determinization shared by
    every action.

        >>> r = Round.from_seed("leshan", 3, dealer=0)
        >>> est = estimate_actions(r, 0, rollouts=2, rng=random.Random(0))
        >>> est[0].rollouts, len(est) == len(r.legal_actions(0))
        (2, True)
    """
    if rollouts < 1:
        raise ValueError(f"rollouts: expected at least 1, got {rollouts}")
    cands = list(actions) if actions is not None else rnd.legal_actions(seat)
    results: list[list[int]] = [[] for _ in cands]
    for _ in range(rollouts):
        base = determinize(rnd, seat, rng)
        seed = rng.getrandbits(64)
        for i, a in enumerate(cands):
            sample = base if i == len(cands) - 1 else determinize_copy(base)
            sample.apply(a)
            bots = [builtin(policy, seed=seed + s) for s in range(4)]
            for s, b in enumerate(bots):
                b.reset(s, sample.rules)
            run_round(sample, bots)
            results[i].append(sample.deltas[seat])
    out = [_summary(a, r) for a, r in zip(cands, results, strict=True)]
    out.sort(key=lambda e: -e.mean)
    return out


def determinize_copy(rnd: Round) -> Round:
    """An independent copy of a determinized round (nothing hidden left to protect)."""
    import copy

    return copy.deepcopy(rnd)


def _summary(action: Action, xs: list[int]) -> ActionEstimate:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n) if n > 1 else math.inf
    return ActionEstimate(action, mean, mean - half, mean + half, n)
