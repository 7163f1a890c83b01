"""``RandomStrategy``: a uniformly random choice among the legal actions (deterministic given
its seed). Used by the invariant tests and the engine benchmark."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from xuezhan.engine.actions import HU

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.actions import Action
    from xuezhan.engine.observation import Observation

__all__ = ["RandomStrategy"]


class RandomStrategy:
    """Chooses uniformly among ``observation.legal_actions`` with ``random.Random(seed)``
    (index ``floor(random() × n)``), except that a locked hand (R14.2: it has won and winners
    stay) always takes a legal win; otherwise its choices are the drawn tile's discard or a kong
    of it that keeps its waits, the only ones the engine offers it.

    The generator is created once, so a match played with fresh ``RandomStrategy(seed)`` values
    is the same every time; ``seed=None`` is seed 0 (deterministic by default, like every
    built-in strategy)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = 0 if seed is None else seed
        self._rng = random.Random(self.seed)
        self._random = self._rng.random
        self.seat = -1
        self._stay = False

    def reset(self, seat: int, rules: object) -> None:
        self.seat = seat
        # R14: when winners stay, a seat that has won plays a locked hand
        self._stay = bool(getattr(rules, "stay", False))

    def act(self, observation: Observation) -> Action:
        # floor(U × n) with U = random() in [0, 1): uniform up to n / 2^53.
        legal = observation.legal_actions
        choice = legal[int(self._random() * len(legal))]
        if self._stay and legal[0].verb == HU and observation.won[observation.seat]:
            # A locked hand (R14.2) has nothing to build: it takes every win it is offered. The
            # draw above is made all the same, so the generator's stream (and every other
            # choice) stays as it was.
            return legal[0]
        return choice
