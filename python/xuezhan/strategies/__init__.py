"""Strategies (bots). The engine knows them only through the :class:`Strategy` protocol."""

from xuezhan.strategies.base import Strategy
from xuezhan.strategies.random_bot import RandomStrategy

__all__ = ["Strategy", "RandomStrategy"]
