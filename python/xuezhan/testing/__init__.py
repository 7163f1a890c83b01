"""Conformance checks for bot authors: :func:`check_strategy` (and ``xuezhan check-bot``).

>>> from xuezhan.strategies import GreedyStrategy
>>> report = check_strategy(GreedyStrategy(), hands=4)
>>> report.ok, report.hands, report.problems
(True, 4, [])
"""

from xuezhan.testing.conformance import CheckReport, Problem, check_strategy

__all__ = ["CheckReport", "Problem", "check_strategy"]
