"""Reinforcement-learning environments over the round engine (the ``rl`` extra: ``pip install
'.[rl]'`` in a clone, ``pip install 'xuezhan[rl]'`` from PyPI; without it, importing this
package raises :class:`~xuezhan.extras.MissingExtra` saying so).

- :func:`aec_env`: the four seats as a PettingZoo AEC environment (per-seat termination: a
  seat that wins leaves while the others play on, docs/rules.md R4.5).
- :func:`parallel_env`: the same as a PettingZoo parallel environment (one decision per step).
- :func:`single_agent`: one seat as a Gymnasium environment, the other three played by
  strategies.

Action ids, observation planes and rewards are documented in ``docs/env.md``.

    >>> env = aec_env("leshan")
    >>> env.reset(seed=1)
    >>> obs, reward, terminated, truncated, info = env.last()
    >>> obs["observation"].shape, obs["action_mask"].shape
    ((64, 27), (115,))
"""

from __future__ import annotations

from typing import Any

from xuezhan.extras import require

require("rl", "xuezhan.env")  # before the modules below import pettingzoo and gymnasium

from xuezhan.env.actions import ACTION_NAMES, N_ACTIONS, action_id, id_action  # noqa: E402
from xuezhan.env.aec import AGENTS, IllegalActionError, XuezhanAEC  # noqa: E402
from xuezhan.env.encoding import N_PLANES, PLANES, Encoder  # noqa: E402

__all__ = [
    "ACTION_NAMES",
    "AGENTS",
    "N_ACTIONS",
    "N_PLANES",
    "PLANES",
    "Encoder",
    "IllegalActionError",
    "XuezhanAEC",
    "action_id",
    "aec_env",
    "env",
    "id_action",
    "parallel_env",
    "single_agent",
]


def aec_env(rules: Any = "leshan", **kwargs: Any) -> XuezhanAEC:
    """The PettingZoo AEC environment (see :class:`~xuezhan.env.aec.XuezhanAEC` for options)."""
    return XuezhanAEC(rules, **kwargs)


def env(**kwargs: Any) -> XuezhanAEC:
    """PettingZoo's conventional module-level constructor (``rules`` as a keyword)."""
    return XuezhanAEC(**kwargs)


def parallel_env(rules: Any = "leshan", max_cycles: int | None = None, **kwargs: Any) -> Any:
    """A PettingZoo ``ParallelEnv`` view (:class:`~xuezhan.env.parallel.XuezhanParallel`):
    each parallel step is one decision, taken from the action of the seat the engine asks (the
    other seats' actions are ignored); ``max_cycles`` caps the number of such steps."""
    from xuezhan.env.parallel import XuezhanParallel

    return XuezhanParallel(XuezhanAEC(rules, max_steps=max_cycles, **kwargs))


def single_agent(*args: Any, **kwargs: Any) -> Any:
    """One seat as a Gymnasium environment (see :class:`~xuezhan.env.single.SingleAgentEnv`)."""
    from xuezhan.env.single import SingleAgentEnv

    return SingleAgentEnv(*args, **kwargs)
