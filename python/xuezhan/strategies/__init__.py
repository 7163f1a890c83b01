"""Strategies (bots). The engine knows them only through the :class:`Strategy` protocol."""

from collections.abc import Callable

from xuezhan.strategies.base import Strategy
from xuezhan.strategies.expert import ExpertStrategy
from xuezhan.strategies.greedy import GreedyStrategy
from xuezhan.strategies.policies import ROLLOUT_POLICIES, rollout_policy
from xuezhan.strategies.random_bot import RandomStrategy
from xuezhan.strategies.search import SearchStrategy
from xuezhan.strategies.value import ValueStrategy

#: Built-in strategies by name (the names tournament files use): the rollout policies, and the
#: two that search.
REGISTRY: dict[str, Callable[..., Strategy]] = {**ROLLOUT_POLICIES, "search": SearchStrategy, "expert": ExpertStrategy}

__all__ = [
    "Strategy",
    "RandomStrategy",
    "GreedyStrategy",
    "ValueStrategy",
    "SearchStrategy",
    "ExpertStrategy",
    "REGISTRY",
    "ROLLOUT_POLICIES",
    "builtin",
    "rollout_policy",
]


def builtin(name: str, seed: int | None = None, *, role: str = "strategy") -> Strategy:
    """A new built-in strategy by name; ``role`` names it in the error for an unknown name.

    >>> type(builtin("greedy", seed=1)).__name__
    'GreedyStrategy'
    """
    cls = REGISTRY.get(name)
    if cls is None:
        raise ValueError(f"{role} {name!r} is not a built-in strategy (one of {', '.join(REGISTRY)})")
    return cls(seed=seed)
