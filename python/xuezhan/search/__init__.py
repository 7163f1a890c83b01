"""Search over determinized rounds: estimates of each action at a decision by playing the hand
forward through the engine from samples of the hidden information
(:func:`xuezhan.engine.determinize.determinize`)."""

from xuezhan.search.estimate import ActionEstimate, estimate_actions

__all__ = ["ActionEstimate", "estimate_actions"]
