"""Strategies (bots). The engine knows them only through the :class:`Strategy` protocol."""

from xuezhan.strategies.base import Strategy
from xuezhan.strategies.greedy import GreedyStrategy
from xuezhan.strategies.random_bot import RandomStrategy
from xuezhan.strategies.value import ValueStrategy

#: Built-in strategies by name (the names tournament files use).
REGISTRY = {"random": RandomStrategy, "greedy": GreedyStrategy, "value": ValueStrategy}

__all__ = ["Strategy", "RandomStrategy", "GreedyStrategy", "ValueStrategy", "REGISTRY"]
