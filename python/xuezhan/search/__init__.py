"""Search over determinized rounds (docs/search.md): estimates of each action at a decision by
playing the hand forward through the engine from samples of the hidden information
(:func:`xuezhan.engine.determinize.determinize`).

- :mod:`.estimate`: :func:`estimate_actions` (each action's mean result with its interval) and
  the rollout loop :class:`Rollouts`;
- :mod:`.candidates`: the actions the ``search`` strategy weighs at a decision;
- :mod:`.clone`: a fast structural copy of a sampled round.
"""

from xuezhan.search.estimate import ActionEstimate, Rollouts, estimate_actions

__all__ = ["ActionEstimate", "Rollouts", "estimate_actions"]
