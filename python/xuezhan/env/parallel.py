"""A PettingZoo ``ParallelEnv`` view of the AEC environment (one decision per parallel step).

Every live seat submits an action each step; only the action of the seat the engine asks
(``infos[agent]["active_agent"]``) is used. A seat that wins leaves the ``agents`` list after
the step it won in, as the parallel API requires; payments it receives after that (a pig's
R7.2 penalty when the wall runs out) are not in its rewards but are in the hand's result
(``infos[agent]["result"]`` of the last step). For exact per-seat returns use the AEC
environment, where a winner takes its last step when the hand ends.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from xuezhan.env.aec import XuezhanAEC, as_int

__all__ = ["XuezhanParallel"]


class XuezhanParallel(ParallelEnv):
    """Wraps a :class:`~xuezhan.env.aec.XuezhanAEC`; see the module doc."""

    def __init__(self, aec: XuezhanAEC) -> None:
        self.aec = aec
        self.possible_agents = list(aec.possible_agents)
        self.metadata = aec.metadata
        self.render_mode = aec.render_mode
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> Any:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> Any:
        return self.aec.action_space(agent)

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        aec = self.aec
        aec.reset(seed=seed, options=options)
        self.agents = list(aec.agents)
        obs = {a: aec.observe(a) for a in self.agents}
        infos = {a: {"active_agent": aec.agent_selection} for a in self.agents}
        return obs, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """One decision: the action of ``infos[agent]["active_agent"]`` is taken (the others are
        only type-checked). ``RuntimeError`` before :meth:`reset` or after the hand;
        ``ValueError`` naming the agent when its action is missing; ``TypeError`` for an action
        that is not an id (as the AEC ``step``)."""
        aec = self.aec
        aec.require_hand("step()")
        if not self.agents:
            raise RuntimeError("the hand is over: call reset()")
        if not isinstance(actions, dict):
            raise TypeError(f"step(actions): expected a dict of agent -> action id, got {type(actions).__name__}")
        unknown = sorted(map(str, set(actions) - set(self.agents)))
        if unknown:
            raise ValueError(
                f"step(actions): {', '.join(unknown)} is not a live agent (agents: {', '.join(self.agents)})"
            )
        for a, v in actions.items():
            as_int(f"step(actions) for {a}", v)
        active = aec.agent_selection
        if active not in actions:
            raise ValueError(f"step(actions): no action for {active}, the agent the engine asks")
        aec.step(actions[active])
        live = self.agents
        rewards = {a: aec.rewards[a] for a in live}
        terms = {a: aec.terminations[a] for a in live}
        truncs = {a: aec.truncations[a] for a in live}
        infos = {a: dict(aec.infos[a]) for a in live}
        obs = {a: aec.observe(a) for a in live}
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)  # the hand is over: every seat takes its last step
        self.agents = [a for a in aec.agents if not (aec.terminations[a] or aec.truncations[a])]
        for a in self.agents:
            infos[a]["active_agent"] = aec.agent_selection
        return obs, rewards, terms, truncs, infos

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    def state(self) -> Any:
        raise NotImplementedError("the full state is not observable by any seat")
