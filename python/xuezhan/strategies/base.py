"""The ``Strategy`` protocol (defined in :mod:`xuezhan.engine.decisions`): the only thing the
engine knows of a bot.

A strategy sees :class:`~xuezhan.engine.observation.Observation` values (what its seat may
know, with its legal actions) and, optionally, the public views of events. It answers one
:class:`~xuezhan.engine.actions.Action` per decision; an exception, an illegal action or a
timeout past ``max_timeouts`` is an escape (docs/rules.md R8, R10.3).

Every built-in strategy is built the same way: ``Strategy(seed=None, **options)``, the options
being keyword-only; an unknown option is a ``TypeError`` naming it. Tournaments pass each hand's
strategies a seed derived from the hand's seed and the seat, building them afresh for every
hand, unless the class says ``deterministic = True`` (its decisions never depend on its seed,
and ``reset`` clears everything a hand leaves): then one instance per worker is reset before
every hand.
"""

from __future__ import annotations

# The protocol lives in the engine (its seat loop is what calls strategies); this module keeps
# the name where strategies have always imported it from.
from xuezhan.engine.decisions import Strategy

__all__ = ["Strategy"]
