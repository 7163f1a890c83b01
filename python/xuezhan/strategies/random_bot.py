"""``RandomStrategy``: a uniformly random choice among the legal actions (deterministic given
its seed). Used by the invariant tests and the engine benchmark."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.actions import Action
    from xuezhan.engine.observation import Observation

__all__ = ["RandomStrategy"]


class RandomStrategy:
    """Chooses uniformly among ``observation.legal_actions`` with ``random.Random(seed)``
    (index ``floor(random() × n)``).

    The generator is created once, so a match played with fresh ``RandomStrategy(seed)`` values
    is the same every time; ``seed=None`` is seed 0 (deterministic by default, like every
    built-in strategy)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = 0 if seed is None else seed
        self._rng = random.Random(self.seed)
        self._random = self._rng.random
        self.seat = -1

    def reset(self, seat: int, rules: object) -> None:
        self.seat = seat

    def act(self, observation: Observation) -> Action:
        # floor(U × n) with U = random() in [0, 1): uniform up to n / 2^53.
        legal = observation.legal_actions
        return legal[int(self._random() * len(legal))]
