"""The rollout policies: the built-in strategies fast enough to play thousands of hands for one
decision, by name (what ``SearchStrategy(policy=...)``, ``xuezhan review --policy`` and the
room's reviews name). A search is handed the strategy class itself
(:class:`xuezhan.search.estimate.Rollouts`), never a name to look up.

    >>> rollout_policy("greedy").__name__
    'GreedyStrategy'
    >>> rollout_policy("search")
    Traceback (most recent call last):
    ...
    ValueError: policy 'search' is not a rollout policy (one of random, greedy, value)
"""

from __future__ import annotations

from collections.abc import Callable

from xuezhan.strategies.base import Strategy
from xuezhan.strategies.greedy import GreedyStrategy
from xuezhan.strategies.random_bot import RandomStrategy
from xuezhan.strategies.value import ValueStrategy

__all__ = ["ROLLOUT_POLICIES", "rollout_policy"]

#: The rollout policies by name (each is also a built-in strategy of the same name).
ROLLOUT_POLICIES: dict[str, Callable[..., Strategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "value": ValueStrategy,
}


def rollout_policy(name: str) -> Callable[..., Strategy]:
    """The strategy class of the rollout policy ``name``; a ``ValueError`` naming the policies
    for any other name."""
    policy = ROLLOUT_POLICIES.get(name) if isinstance(name, str) else None
    if policy is None:
        raise ValueError(f"policy {name!r} is not a rollout policy (one of {', '.join(ROLLOUT_POLICIES)})")
    return policy
