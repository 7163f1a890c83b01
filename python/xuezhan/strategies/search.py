"""``search``: determinized rollouts through the engine at every decision that matters.

At each decision it takes the candidate actions (:mod:`xuezhan.search.candidates`: the
``value`` strategy's choice and the next-best discards, every kong and win, every claim answer,
the exchange and void choices), draws ``rollouts`` rounds consistent with what its seat knows
from the :class:`~xuezhan.engine.decisions.Sampler` the seat loop gives it
(:func:`~xuezhan.engine.determinize.determinize`), plays each candidate on a copy of each
sample and the rest of the hand with the rollout ``policy`` for all four seats, and takes the
candidate with the best mean result for itself (``value``'s choice on a tie). A decision with
one candidate is not searched. See docs/search.md.

Options (keyword-only; an unknown one is a ``TypeError`` naming it):

- ``rollouts`` (default :data:`DEFAULT_ROLLOUTS`): samples per decision, each played once per
  candidate. The default is sized so that a decision takes at most about 200 ms at the median
  on one core (benchmarks/search.py), so the **default is deterministic**: the same seed
  gives the same decisions, whatever the machine's speed, as long as the budget does not bind.
- ``budget`` (seconds, default :data:`DEFAULT_BUDGET`): a hard cap per decision, far inside
  the 10 s turn limit (R10.1) and the claim limit (R10.2). A new sample begins only while the
  time used plus the slowest sample so far fits, so a decision ends within the budget plus
  one sample (:data:`xuezhan.search.estimate.MARGIN_SAMPLES`). When the budget rather than
  ``rollouts`` binds, decisions depend on timing; ``None``: no cap.
- ``policy`` (default ``"value"``): the built-in strategy that plays every seat in rollouts.
- ``width`` (default 4): discards searched at a turn.
- ``z`` (default 2): standard errors by which an alternative must beat ``value``'s choice.
- ``pick`` (default 12): each sample is the best of ``pick`` determinizations, the one whose
  opponents are closest to ready (lowest total shanten). Uniform samples give the opponents
  random hands, far weaker than the hands real players keep, so rollouts on them
  underestimate the danger of a discard and overestimate what waiting earns (at the ready
  check, R7.3, unready opponents pay); keeping the readiest of a few samples narrows that bias.
- ``ready`` (default true): each other seat still waiting for a tile is dealt a ready hand
  with the chance :func:`ready_rate` gives for the wall's length (measured in ``value``
  self-play); uniform samples are almost never ready (about 0.08 ready opponents per mid- or
  late-hand position with ``pick`` 12, against 0.65 in real play), so rollouts on them
  misjudge both the danger of a discard and how long the hand lasts.
- ``read_discards`` (default false): a ready opponent's hand leaves out the suit it seems to be
  clearing (its shown void, else what its melds and first discards say: the rule ``value``'s
  danger uses) and waits on a tile it has not discarded; see ``read_discards`` in
  :func:`~xuezhan.engine.determinize.determinize`.
- ``native`` (default true): the rollouts are played by the native engine
  (:mod:`xuezhan.native`) when it plays the policy and the rules: the same results, tens of
  times faster (``false``: the Python engine plays them, as it did before it existed).
- ``take_wins`` (default true): a legal win is taken without a search. With the same bias a
  search would pass wins to wait for a self-draw or the ready check, and measured on the true
  rounds such passes lost points.
- ``clock``: the clock the budget is measured by (tests inject one).

Without a sampler (a caller that plays it outside the engine's loops) it plays ``value``; when
the sampler finds no consistent sample (:class:`~xuezhan.engine.determinize.DeterminizeError`:
its search for locked winners' hands, xueliu R14, is bounded; not seen on the tests'
positions) it decides on the samples it has, ``value``'s choice with none.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from time import perf_counter
from typing import Any

from xuezhan.engine.actions import HU, Action
from xuezhan.engine.decisions import Sampler
from xuezhan.engine.determinize import DeterminizeError
from xuezhan.engine.observation import Observation
from xuezhan.search.candidates import candidates
from xuezhan.search.estimate import Rollouts, play_sample
from xuezhan.strategies.policies import rollout_policy
from xuezhan.strategies.value import ValueStrategy, locked_wins

__all__ = ["DEFAULT_BUDGET", "DEFAULT_ROLLOUTS", "SearchStrategy", "ready_rate"]

#: Samples per decision at most by default (sized to about 200 ms at the median, one core).
DEFAULT_ROLLOUTS = 32
#: Samples before an alternative may be dropped, and how often the check is made.
MIN_SAMPLES = 8
CHECK_EVERY = 4
#: Futility: an alternative is dropped once its mean difference plus this many standard errors
#: falls short of what it must reach by the last sample to be played (``z`` standard errors of
#: ``rollouts`` samples). Most alternatives are no better than the base choice; without this
#: they cost every sample (measured: a searched decision costs about half as much with it). The
#: price: an alternative that would pass nine times in ten at 32 samples is dropped at the
#: first check about one time in twenty.
FUTILITY_Z = 1.0
#: Seconds per decision at most by default (a safety cap: the rollout count binds first).
DEFAULT_BUDGET = 1.0
#: The share of other seats (still waiting for a tile) that hold a ready hand, as a straight
#: line in the tiles left in the wall: measured over 400 hands per preset of ``value`` self-play
#: (about 0.70 with the wall empty, 0.40 at 20 tiles, 0.10 at 40; leshan, chengdu and xueliu
#: within 0.08 of the line), see docs/search.md.
READY_AT_EMPTY_WALL = 0.70
READY_PER_WALL_TILE = 0.0145


def ready_rate(wall_count: int) -> float:
    """The chance that another seat holds a ready hand with ``wall_count`` tiles left.

    >>> ready_rate(0), round(ready_rate(20), 2), ready_rate(55)
    (0.7, 0.41, 0.0)
    """
    return min(1.0, max(0.0, READY_AT_EMPTY_WALL - READY_PER_WALL_TILE * wall_count))


class SearchStrategy:
    """Determinized rollouts at every decision that matters; see the module doc."""

    name = "search"
    #: The seat loop gives it a :class:`~xuezhan.engine.decisions.Sampler` (``bind_sampler``).
    uses_sampler = True

    def __init__(
        self,
        seed: int | None = None,
        *,
        rollouts: int = DEFAULT_ROLLOUTS,
        budget: float | None = DEFAULT_BUDGET,
        policy: str = "value",
        width: int = 4,
        z: float = 2.0,
        pick: int = 12,
        take_wins: bool = True,
        ready: bool = True,
        read_discards: bool = False,
        native: bool = True,
        clock: Callable[[], float] = perf_counter,
    ) -> None:
        if type(rollouts) is not int or rollouts < 1:
            raise ValueError(f"rollouts: expected an integer of at least 1, got {rollouts!r}")
        if budget is not None and (type(budget) not in (int, float) or not budget > 0):
            raise ValueError(f"budget: expected a positive number of seconds or None, got {budget!r}")
        if type(width) is not int or width < 1:
            raise ValueError(f"width: expected an integer of at least 1, got {width!r}")
        self.seed = seed
        self.rollouts = rollouts
        self.budget = None if budget is None else float(budget)
        self.width = width
        if type(z) not in (int, float) or not z >= 0:
            raise ValueError(f"z: expected a number of standard errors (at least 0), got {z!r}")
        self.z = float(z)
        if type(pick) is not int or pick < 1:
            raise ValueError(f"pick: expected an integer of at least 1, got {pick!r}")
        self.pick = pick
        if type(take_wins) is not bool:
            raise ValueError(f"take_wins: expected true or false, got {take_wins!r}")
        self.take_wins = take_wins
        if type(ready) is not bool:
            raise ValueError(f"ready: expected true or false, got {ready!r}")
        self.ready = ready
        if type(read_discards) is not bool:
            raise ValueError(f"read_discards: expected true or false, got {read_discards!r}")
        self.read_discards = read_discards
        if not callable(clock):
            raise ValueError(f"clock: expected a function returning seconds, got {clock!r}")
        self.clock = clock
        if type(native) is not bool:
            raise ValueError(f"native: expected true or false, got {native!r}")
        self._play = Rollouts(rollout_policy(policy), native=native)  # an unknown policy fails here, naming it
        self.policy = policy
        self._rng = random.Random(0 if seed is None else seed)
        self._base = ValueStrategy(seed)
        self._sampler: Sampler | None = None
        self.seat = 0
        #: decisions searched, and those the budget cut short (for benchmarks)
        self.searched = 0
        self.cut = 0
        #: searches stopped because no consistent sample was found (see determinize)
        self.unsampled = 0

    def reset(self, seat: int, rules: Any) -> None:
        self.seat = seat
        self._base.reset(seat, rules)
        self._sampler = None  # bound again for each hand by the seat loop

    def bind_sampler(self, sampler: Sampler) -> None:
        """The seat loop's sampler of this hand (see :func:`xuezhan.engine.decisions.bind_samplers`)."""
        self._sampler = sampler

    def act(self, obs: Observation) -> Action:
        start = self.clock()
        base = self._base.act(obs)  # also keeps its void suit up to date
        sampler = self._sampler
        if sampler is None:
            return base
        if self.take_wins and base.verb == HU:
            return base  # see the module doc: a legal win is taken
        cands = candidates(obs, base, self._base.void, self.width, locked_wins(obs, self._base._stay))
        if len(cands) <= 1:
            return base
        self.searched += 1
        ready = ready_rate(obs.wall_count) if self.ready else 0.0
        return cands[self._race(sampler, cands, start, ready)]

    def _race(self, sampler: Sampler, cands: list[Action], start: float, ready: float) -> int:
        """The index of the action to play: each alternative is compared with ``cands[0]`` (the
        base strategy's choice) on the same samples; one clearly worse (its mean difference plus
        ``z`` standard errors at most 0, after :data:`MIN_SAMPLES` samples) or that cannot
        plausibly pass by the last sample (:data:`FUTILITY_Z`) is dropped, and the sampling stops
        when none is left. The best alternative whose mean difference minus ``z`` standard errors
        is above 0 is played, else the base choice."""
        diffs: dict[int, _Diff] = {j: _Diff() for j in range(1, len(cands))}
        budget, clock, rng, seat = self.budget, self.clock, self._rng, self.seat
        slowest = 0.0
        t = start
        for i in range(self.rollouts):
            if budget is not None and t - start + (slowest if i else 0.0) > budget:
                self.cut += 1
                break
            alive = [0, *diffs]
            try:
                sample = sampler.sample(rng, pick=self.pick, ready=ready, read_discards=self.read_discards)
            except DeterminizeError:  # the bounded search for locked hands (R14) gave up: use what it has
                self.unsampled += 1
                break
            vals = play_sample(sample, seat, [cands[j] for j in alive], self._play, rng.getrandbits(62))
            for j, v in zip(alive[1:], vals[1:], strict=True):
                diffs[j].add(v - vals[0])
            if i + 1 >= MIN_SAMPLES and (i + 1) % CHECK_EVERY == 0:
                for j in [j for j, d in diffs.items() if d.high(self.z) <= 0 or d.futile(self.z, self.rollouts)]:
                    del diffs[j]
                if not diffs:
                    break
            if budget is not None:
                now = clock()
                slowest = max(slowest, now - t)
                t = now
        best, gain = 0, 0.0
        for j, d in diffs.items():
            if d.low(self.z) > 0 and d.mean > gain:
                best, gain = j, d.mean
        return best


class _Diff:
    """Running mean and variance of one alternative's paired differences (Welford)."""

    __slots__ = ("m2", "mean", "n")

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    def _se(self) -> float:
        return math.sqrt(self.m2 / (self.n - 1) / self.n) if self.n > 1 else math.inf

    def low(self, z: float) -> float:
        return self.mean - z * self._se()

    def high(self, z: float) -> float:
        return self.mean + z * self._se()

    def futile(self, z: float, last: int) -> bool:
        """True when the mean plus :data:`FUTILITY_Z` standard errors is below the mean the
        difference must show at ``last`` samples to pass ``z`` (at the spread seen so far)."""
        if self.n < 2:
            return False
        sd = math.sqrt(self.m2 / (self.n - 1))
        return self.mean + FUTILITY_Z * sd / math.sqrt(self.n) <= z * sd / math.sqrt(last)
