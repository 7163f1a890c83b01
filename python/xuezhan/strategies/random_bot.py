"""``RandomStrategy``: a uniformly random choice among the legal actions (deterministic given
its seed). Used by the invariant tests and the engine benchmark."""

from __future__ import annotations

import random
from typing import Optional

__all__ = ["RandomStrategy"]


class RandomStrategy:
    """Chooses uniformly among ``observation.legal_actions`` with ``random.Random(seed)``
    (index ``floor(random() × n)``).

    The generator is created once, so a match played with fresh ``RandomStrategy(seed)`` values
    is the same every time."""

    name = "random"

    def __init__(self, seed: Optional[int] = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self._random = self._rng.random
        self.seat = -1

    def reset(self, seat: int, rules: object) -> None:
        self.seat = seat

    def act(self, observation):
        # floor(U × n) with U = random() in [0, 1): uniform up to n / 2^53.
        legal = observation.legal_actions
        return legal[int(self._random() * len(legal))]
