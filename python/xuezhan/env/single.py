"""One seat as a Gymnasium environment; the other three seats are played by strategies.

>>> from xuezhan.env import single_agent
>>> env = single_agent(opponents=["greedy", "greedy", "greedy"], seat=0)
>>> obs, info = env.reset(seed=3)
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((64, 27), True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from xuezhan.engine.decisions import Delivery, bind_samplers, decide
from xuezhan.env.actions import N_ACTIONS
from xuezhan.env.aec import (
    AGENTS,
    IllegalMode,
    RewardMode,
    XuezhanAEC,
    as_int,
    observation_space,
)
from xuezhan.rules import Rules

__all__ = ["SingleAgentEnv"]


def _strategy(spec: Any, index: int) -> Any:
    if isinstance(spec, str):
        from xuezhan.strategies import builtin

        return builtin(spec, seed=index, role="opponent")
    if not (hasattr(spec, "act") and hasattr(spec, "reset")):
        raise ValueError(f"opponent {spec!r} is neither a built-in strategy name nor a Strategy (reset, act)")
    return spec


class SingleAgentEnv(gymnasium.Env):
    """Seat ``seat`` is the learner; ``opponents`` (three built-in names or ``Strategy``
    objects, for the other seats in turn order from ``seat + 1``) play the rest.

    An episode is one hand. ``step`` applies the learner's action, then lets the opponents play
    until the learner must decide again or the hand is over for it. The reward of a step is what
    the learner received minus what it paid in that time. Once the learner has won the rest of
    the hand is played out at once (it can still be paid, R7.2) and the episode terminates, so
    the return of an episode is the learner's hand delta. Options as for the AEC environment
    (``rules``, ``reward``, ``illegal``, ``dealer``, ``seed``). Built-in opponents named by a
    string are seeded from each hand's seed, so the same seed and actions give the same
    episode; a ``Strategy`` object is kept as given (reset before each hand). An opponent that raises or answers
    an illegal action escapes (R10.3), as in a tournament.
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - gymnasium.Env declares it an instance field

    def __init__(
        self,
        opponents: Sequence[Any] = ("value", "value", "value"),
        seat: int = 0,
        rules: Rules | str | dict | None = "leshan",
        *,
        reward: RewardMode = "step",
        illegal: IllegalMode = "escape",
        dealer: int | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        seat = as_int("seat", seat)  # type: ignore[assignment]
        if seat not in (0, 1, 2, 3):
            raise ValueError(f"seat={seat!r} is not a seat (0-3)")
        if isinstance(opponents, (str, bytes)) or not isinstance(opponents, Sequence):
            raise TypeError(f"opponents: expected three strategies (names or objects), got {opponents!r}")
        if len(opponents) != 3:
            raise ValueError(f"three opponents are needed, got {len(opponents)}")
        self.aec = XuezhanAEC(
            rules,
            reward=reward,
            illegal=illegal,
            dealer=dealer,
            seed=seed,
            render_mode=render_mode,
        )
        self.seat = seat
        self.agent = AGENTS[seat]
        self.opponents: list[Any] = [None] * 4
        self._specs: list[Any] = [None] * 4
        for i, spec in enumerate(opponents):
            s = (seat + 1 + i) & 3
            self._specs[s] = spec
            self.opponents[s] = _strategy(spec, s)
        self.observation_space = observation_space()
        self.action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.render_mode = render_mode

    @property
    def round(self) -> Any:
        """The engine's :class:`~xuezhan.engine.Round` of the current hand."""
        return self.aec.round

    def action_masks(self) -> np.ndarray:
        """The learner's mask now (the hook maskable-PPO implementations call)."""
        return self.aec.action_mask(self.agent, "action_masks()").astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        seed = as_int("reset seed", seed, optional=True)
        super().reset(seed=seed)
        aec = self.aec
        aec.reset(seed=seed, options=options)
        rules = aec.rules
        hs = aec.hand_seed or 0
        for s, spec in enumerate(self._specs):
            if isinstance(spec, str):
                # Built-in opponents are seeded from the hand's seed: same seed, same hand.
                self.opponents[s] = _strategy(spec, (hs * 4 + s) % 2**63)
            strat = self.opponents[s]
            if strat is not None:
                strat.reset(s, rules)
        self._delivery = Delivery(self.opponents)
        assert aec.round is not None  # just dealt
        bind_samplers(aec.round, self.opponents)  # a searching opponent samples this hand
        self._return = 0.0
        self._play_opponents()
        obs = aec.observe(self.agent)
        return obs, {"hand_seed": aec.hand_seed}

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        aec = self.aec
        aec.require_hand("step()")
        if aec.agent_selection != self.agent or aec.terminations[self.agent]:
            raise RuntimeError("the episode is over: call reset()")
        aec.step(action)
        self._play_opponents()
        reward = aec._cumulative_rewards[self.agent]
        aec._cumulative_rewards[self.agent] = 0.0
        terminated = bool(aec.terminations[self.agent])
        info = dict(aec.infos[self.agent])
        return aec.observe(self.agent), float(reward), terminated, False, info

    def _play_opponents(self) -> None:
        """Let the opponents act until the learner must decide or the hand is over; a hand the
        learner has left (won) is played to its end."""
        aec = self.aec
        rnd = aec.round
        assert rnd is not None
        learner = self.seat
        while not rnd.over:
            cur = rnd.turn.cur
            if cur is None or cur == learner:
                break
            self._delivery(rnd.ledger.events)
            # The engine's seat loop: a crash or an illegal answer is an escape (R10.3, R8).
            # Untimed (no limit): an episode must not depend on the machine's speed.
            decide(rnd, cur, self.opponents[cur].act, [0, 0, 0, 0], limit=math.inf)
            aec._after(rnd)
        self._delivery(rnd.ledger.events)

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        for strat in self.opponents:
            close = getattr(strat, "close", None)
            if close is not None:
                close()
