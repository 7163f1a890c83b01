"""The value of each action at one seat's decision, estimated by determinized rollouts.

Each sample draws one round consistent with what the seat knows
(:func:`~xuezhan.engine.determinize.determinize`), then plays every candidate action on a copy
of that same sample (common random numbers: the actions are compared on the same hidden tiles)
and the rest of the hand with the rollout policy for all four seats, through the engine
itself (its one seat loop, :func:`xuezhan.engine.decisions.decide`). An action's estimate is the
seat's mean result (its delta for the hand) over the samples, with a normal 95% interval.

Speed (see benchmarks/search.py): the copies are :func:`~xuezhan.search.clone.clone` (a
structural copy about three times faster than ``copy.deepcopy``), and a deterministic rollout
policy's four bots are built once and reset before each rollout.

A time ``budget`` (seconds, measured by ``clock`` from ``start``) stops the sampling early: a
new sample is begun only while the time used plus the slowest sample so far fits in the
budget, so the estimate ends within the budget plus one sample (:data:`MARGIN_SAMPLES`). At
least one sample is always played.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from xuezhan.engine.actions import Action
from xuezhan.engine.decisions import Strategy, decide
from xuezhan.engine.determinize import DeterminizeError, determinize
from xuezhan.engine.round import Round
from xuezhan.engine.turn import Phase
from xuezhan.search.clone import clone

__all__ = [
    "MARGIN_SAMPLES",
    "ActionEstimate",
    "Rollouts",
    "estimate_actions",
    "estimate_expert",
    "estimate_sampled",
    "play_sample",
]

#: A budgeted estimate ends within its budget plus the time of this many samples.
MARGIN_SAMPLES = 1

_OVER = Phase.OVER
_NO_LIMIT = math.inf


@dataclass(frozen=True, slots=True)
class ActionEstimate:
    """One action's estimated result for the deciding seat: the mean delta over ``rollouts``
    rollouts and its 95% interval ``[low, high]``."""

    action: Action
    mean: float
    low: float
    high: float
    rollouts: int


class Rollouts:
    """Plays rounds to their end with one rollout policy for all four seats: a strategy class
    (or any factory taking ``seed=``) that does not search itself, such as
    :class:`~xuezhan.strategies.GreedyStrategy` (:func:`xuezhan.strategies.rollout_policy`
    finds one by name). A deterministic policy's bots are built once and reset before each
    rollout; another's are built per rollout from the rollout's seed.

    ``native`` (default true): play the rollouts of :func:`play_sample` in the native engine
    (:func:`xuezhan.native.from_round`) when it plays the policy (a built-in strategy class it
    has, by its ``name``) and the round's rules: the same results
    (tests/test_native_differential.py), tens of times faster."""

    def __init__(self, policy: Callable[..., Strategy], *, native: bool = True) -> None:
        if isinstance(policy, str) or not callable(policy):
            raise TypeError(
                f"policy: expected a strategy class (e.g. GreedyStrategy; xuezhan.strategies.rollout_policy(name) "
                f"finds one by name), got {type(policy).__name__} {policy!r}"
            )
        if getattr(policy, "uses_sampler", False):
            raise ValueError(f"policy {_name(policy)!r} searches itself: it cannot be a rollout policy")
        self.policy = policy
        self._reuse = bool(getattr(policy, "deterministic", False))
        self._bots: list[Any] = [policy(seed=s) for s in range(4)] if self._reuse else []
        self._native: Any = None
        if native:
            from xuezhan import native as nat

            name = getattr(policy, "name", None)
            # only the project's own class of that name: a user's class named "value" is not value
            if (
                name in nat.NATIVE_STRATEGIES
                and isinstance(policy, type)
                and policy.__module__.startswith("xuezhan.strategies.")
            ):
                self._native = nat.lineup([name] * 4)

    def native_lineup(self, rnd: Round) -> Any:
        """The native line-up that plays this policy on ``rnd`` (None: the Python engine does).
        Rollouts are untimed in both engines, so any rules do."""
        return self._native

    def play(self, rnd: Round, seed: int) -> Round:
        """Play ``rnd`` to its end (in place) and return it. ``seed`` seeds the bots of a policy
        that is not deterministic."""
        bots = self._bots if self._reuse else [self.policy(seed=seed + s) for s in range(4)]
        rules = rnd.rules
        for s, b in enumerate(bots):
            b.reset(s, rules)
        acts = [b.act for b in bots]
        timeouts = [0, 0, 0, 0]
        while rnd.turn.phase is not _OVER:
            seat = rnd.turn.cur
            assert seat is not None  # a hand that is not over has a pending decision
            decide(rnd, seat, acts[seat], timeouts, _NO_LIMIT)  # untimed: a rollout must not depend on speed
        return rnd


def estimate_actions(
    rnd: Round,
    seat: int,
    *,
    rollouts: int,
    rng: random.Random,
    policy: Callable[..., Strategy],
    actions: Sequence[Action] | None = None,
    budget: float | None = None,
    clock: Callable[[], float] = perf_counter,
) -> list[ActionEstimate]:
    """Estimates of ``actions`` (default: every legal action of ``seat``), best first.

    ``rnd`` is not changed. Each of the ``rollouts`` samples is one determinization shared by
    every action, played on by ``policy`` at all four seats (see :class:`Rollouts`).
    ``budget`` (seconds by ``clock``, from the call) may stop it after fewer samples (see the
    module doc).

        >>> from xuezhan.strategies import GreedyStrategy
        >>> r = Round.from_seed("leshan", 3, dealer=0)
        >>> est = estimate_actions(r, 0, rollouts=2, rng=random.Random(0), policy=GreedyStrategy)
        >>> est[0].rollouts, len(est) == len(r.legal_actions(0))
        (2, True)
    """
    start = clock()
    cands = list(actions) if actions is not None else rnd.legal_actions(seat)
    out = estimate_sampled(
        lambda g: determinize(rnd, seat, g),
        seat,
        cands,
        rollouts=rollouts,
        rng=rng,
        play=Rollouts(policy),
        budget=budget,
        clock=clock,
        start=start,
    )
    out.sort(key=lambda e: -e.mean)
    return out


def estimate_expert(
    rnd: Round, seat: int, *, rollouts: int, rng: random.Random, actions: Sequence[Action] | None = None, pick: int = 12
) -> list[ActionEstimate]:
    """Estimates of ``actions`` (default: every legal action of ``seat``), best first, as the
    ``expert`` strategy's search makes them: ``rollouts`` samples of what the seat cannot see
    drawn by the native engine's determinizer (the readiest of ``pick`` deals), every action
    played on each and the hand finished by ``value`` at all four seats, natively (untimed, so
    any rules). ``rnd`` is not changed.

        >>> r = Round.from_seed("leshan", 3, dealer=0)
        >>> est = estimate_expert(r, 0, rollouts=4, rng=random.Random(0))
        >>> est[0].rollouts, len(est) == len(r.legal_actions(0))
        (4, True)
    """
    from xuezhan import native

    if rollouts < 1:
        raise ValueError(f"rollouts: expected at least 1, got {rollouts}")
    cands = list(actions) if actions is not None else rnd.legal_actions(seat)
    if not cands:
        raise ValueError("actions: nothing to estimate")
    hand = native.from_round(rnd)
    results = hand.estimate([(a.seat, a.verb, a.arg) for a in cands], rollouts, rng.getrandbits(63), pick)
    out = [_summary(a, r) for a, r in zip(cands, results, strict=True) if r]
    if len(out) < len(cands):
        raise DeterminizeError("no sample of the hands that must win was found")
    out.sort(key=lambda e: -e.mean)
    return out


def estimate_sampled(
    sample: Callable[[random.Random], Round],
    seat: int,
    actions: Sequence[Action],
    *,
    rollouts: int,
    rng: random.Random,
    play: Rollouts,
    budget: float | None = None,
    clock: Callable[[], float] = perf_counter,
    start: float | None = None,
) -> list[ActionEstimate]:
    """Estimates of ``actions``, in their order, from rounds drawn by ``sample(rng)`` (a
    determinization of ``seat``'s decision) played on by ``play``: at most ``rollouts`` samples,
    fewer when ``budget`` seconds from ``start`` (default: now) would be passed."""
    if rollouts < 1:
        raise ValueError(f"rollouts: expected at least 1, got {rollouts}")
    if not actions:
        raise ValueError("actions: nothing to estimate")
    if start is None:
        start = clock()
    results: list[list[int]] = [[] for _ in actions]
    slowest = 0.0
    t = start
    for i in range(rollouts):
        if budget is not None and i and t - start + slowest > budget:
            break
        for j, x in enumerate(play_sample(sample(rng), seat, actions, play, rng.getrandbits(62))):
            results[j].append(x)
        if budget is not None:
            now = clock()
            slowest = max(slowest, now - t)
            t = now
    return [_summary(a, r) for a, r in zip(actions, results, strict=True)]


def play_sample(base: Round, seat: int, actions: Sequence[Action], play: Rollouts, seed: int) -> list[int]:
    """``seat``'s result of each action of ``actions`` played on a copy of the sample ``base``
    (the last on ``base`` itself, unless the native engine plays them) and the hand played on to
    its end by ``play``."""
    lineup = play.native_lineup(base)
    if lineup is not None:
        from xuezhan import native as nat

        hand = nat.from_round(base)
        return [d[seat] for d in hand.rollouts([(a.seat, a.verb, a.arg) for a in actions], lineup, seed)]
    shared = (base.rules, base.core)
    last = len(actions) - 1
    out = []
    for j, a in enumerate(actions):
        rnd = base if j == last else clone(base, shared)
        rnd.apply(a)
        play.play(rnd, seed)
        out.append(rnd.ledger.deltas[seat])
    return out


def _summary(action: Action, xs: list[int]) -> ActionEstimate:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n) if n > 1 else math.inf
    return ActionEstimate(action, mean, mean - half, mean + half, n)


def _name(policy: Callable[..., Strategy]) -> str:
    return str(getattr(policy, "name", getattr(policy, "__name__", policy)))
