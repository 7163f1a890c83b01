"""The PettingZoo AEC environment over the round engine (docs/env.md).

One episode is one hand. ``agent_selection`` is always the seat the engine asks
(``Round.cur``): claims on a discard are asked one seat at a time, in turn order from the
discarder (docs/rules.md R13). A seat that wins is terminated at once and never selected to act
again while the other seats play on (血战到底, R4.5); it takes its final step (``None``) when the
hand ends, so the payments it still receives (a pig's R7.2 penalty) reach it. Nothing is
truncated unless ``max_cycles`` / ``max_steps`` ask for it: the environment has no clock (R10).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar, Literal

import gymnasium
import numpy as np
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from xuezhan.engine import Observation, Round, first_dealer, hand_seed
from xuezhan.engine.actions import ESCAPE, EXCHANGE, Action, IllegalAction, act
from xuezhan.env.actions import (
    ACTION_NAMES,
    EXCHANGE0,
    ID_OF,
    N_ACTIONS,
    id_action,
    pick_kinds,
)
from xuezhan.env.encoding import N_PLANES, Encoder, plane_bounds
from xuezhan.rules import Rules, as_rules

__all__ = ["AGENTS", "IllegalActionError", "XuezhanAEC", "as_int"]

#: Agent names, by seat.
AGENTS = ("player_0", "player_1", "player_2", "player_3")
_SEAT = {a: i for i, a in enumerate(AGENTS)}

RENDER_MODES = ("ansi", "human")
RewardMode = Literal["step", "final"]
IllegalMode = Literal["escape", "raise", "default"]


# _BY_ID[seat][id]: the shared engine action of every non-exchange id (ids 0-87).
_BY_ID = tuple(tuple(id_action(s, i) for i in range(EXCHANGE0)) for s in range(4))


def as_int(name: str, value: Any, optional: bool = False) -> int | None:
    """``value`` as an ``int``: a Python ``int`` or a numpy integer scalar (``np.int64`` from
    ``argmax``, ``action_space.sample()``), converted explicitly; None when ``optional``.
    ``bool``, ``float``, ``str`` and anything else raise ``TypeError`` naming ``name``: an
    environment never guesses (``3.9`` is not action 3, ``True`` not 1, ``"5"`` not 5)."""
    if value is None and optional:
        return None
    if type(value) is int:
        return value
    if isinstance(value, np.integer):
        return int(value)
    what = "an int" + (" or None" if optional else "")
    raise TypeError(f"{name}: expected {what} (or a numpy integer), got {type(value).__name__} {value!r}")


class IllegalActionError(ValueError):
    """An action id that is not legal now (with ``illegal="raise"``); the message names it."""


def observation_space() -> gymnasium.spaces.Dict:
    """The space of one observation: the plane tensor and the action mask."""
    low, high = plane_bounds()
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(low, high, (N_PLANES, 27), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        }
    )


class XuezhanAEC(AECEnv):
    """Xuezhan Daodi as a PettingZoo AEC environment; build it with :func:`xuezhan.env.aec_env`.

    Parameters (all keyword):

    - ``rules``: a preset name, ``Rules`` value or dict (R11).
    - ``reward``: ``"step"`` credits each payment to the two seats it moves between at the step
      it happens; ``"final"`` credits each seat its whole hand delta when the hand ends.
    - ``illegal``: what an action outside the mask does. ``"escape"`` (default): the seat escapes
      as a bot making an illegal move does in a tournament (R10.3, R8: the hand ends, the
      escapee pays the ready players and the escape penalty); ``"raise"``:
      :class:`IllegalActionError`; ``"default"``: the engine's R10 default action is played.
    - ``dealer``: a fixed dealer seat; default: drawn from each hand's seed (R9.1).
    - ``seed``: where the hand seeds of ``reset()`` calls without a seed start.
    - ``max_cycles``: truncate a seat once it has taken that many steps (cycles are counted
      per seat: claims make the order irregular); the engine then plays its R10 defaults until
      every seat is truncated or terminated. ``max_steps``: truncate after that many steps in all.
      Both default to ``None`` (a hand always ends by the rules).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "xuezhan_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str | dict | None = "leshan",
        *,
        reward: RewardMode = "step",
        illegal: IllegalMode = "escape",
        dealer: int | None = None,
        seed: int | None = None,
        max_cycles: int | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in ("step", "final"):
            raise ValueError(f"reward={reward!r}: expected 'step' or 'final'")
        if illegal not in ("escape", "raise", "default"):
            raise ValueError(f"illegal={illegal!r}: expected 'escape', 'raise' or 'default'")
        dealer = as_int("dealer", dealer, optional=True)
        if dealer is not None and dealer not in (0, 1, 2, 3):
            raise ValueError(f"dealer={dealer!r} is not a seat (0-3)")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode={render_mode!r}: expected one of {', '.join(RENDER_MODES)}")
        max_cycles = as_int("max_cycles", max_cycles, optional=True)
        max_steps = as_int("max_steps", max_steps, optional=True)
        for name, v in (("max_cycles", max_cycles), ("max_steps", max_steps)):
            if v is not None and v < 1:
                raise ValueError(f"{name}={v!r}: expected a positive integer or None")
        seed = as_int("seed", seed, optional=True)
        self.rules = as_rules(rules)
        self.reward_mode = reward
        self.illegal = illegal
        self.fixed_dealer = dealer
        self.max_cycles = max_cycles
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self._obs_space = observation_space()
        self._act_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self._obs_spaces = {a: self._obs_space for a in AGENTS}
        self._act_spaces = {a: self._act_space for a in AGENTS}
        self._base_seed = seed if seed is not None else int.from_bytes(os.urandom(8), "big")
        self._hand_index = -1
        self.round: Round | None = None
        self.hand_seed: int | None = None
        self._skip_agent_selection = None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._act_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new hand. ``reset(seed=s)`` deals ``Round.from_seed(rules, s)`` (the hand a
        tournament or ``play_hand`` deals from seed ``s``) and restarts the sequence; a reset
        without a seed deals the next hand of the sequence (``hand_seed(s, i)``).
        ``options={"hand_seed": h}`` deals the hand of seed ``h`` and leaves the sequence
        where it was."""
        seed = as_int("reset seed", seed, optional=True)
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"reset options: expected a dict or None, got {type(options).__name__}")
        if options and "hand_seed" in options:
            hs = as_int("reset options hand_seed", options["hand_seed"])
            assert hs is not None
        elif seed is not None:
            self._base_seed = seed
            self._hand_index = 0
            hs = self._base_seed
        else:
            self._hand_index += 1
            i = self._hand_index
            hs = self._base_seed if i == 0 else hand_seed(self._base_seed, i)
        dealer = self.fixed_dealer if self.fixed_dealer is not None else first_dealer(hs)
        self.hand_seed = hs
        self.round = rnd = Round.from_seed(self.rules, hs, dealer)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self._encoder = Encoder(stay=self.rules.stay)
        self._picks: list[int] = []
        self._seat_steps = [0, 0, 0, 0]
        self._paid = False
        self._steps = 0
        self._deltas: tuple = (0, 0, 0, 0)
        self._won: tuple | None = None
        self._obs_key: tuple = (0, rnd.turn.cur)
        self._obs: Observation | None = None
        self._skip_agent_selection = None
        self.agent_selection = AGENTS[rnd.turn.cur]  # type: ignore[index]

    def require_hand(self, call: str) -> Round:
        """The current hand's :class:`Round`; before the first :meth:`reset` there is none, and
        ``call`` (what was asked, e.g. ``"last()"``) is refused with one ``RuntimeError``.

        >>> from xuezhan.env import aec_env
        >>> aec_env("leshan").last()
        Traceback (most recent call last):
        ...
        RuntimeError: last() before reset(): call reset() first
        """
        if self.round is None:
            raise RuntimeError(f"{call} before reset(): call reset() first")
        return self.round

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``: the observation, reward, termination, truncation and info of
        ``agent_selection`` (one clear error before :meth:`reset`)."""
        self.require_hand("last()")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's ``agent_iter()`` over the agents of the hand (one clear error before
        :meth:`reset`, instead of an iteration over no agents)."""
        self.require_hand("agent_iter()")
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._observe(agent, "observe()")

    def _observe(self, agent: str, call: str) -> dict[str, np.ndarray]:
        seat = _SEAT[agent]
        rnd = self.require_hand(call)
        obs = self._obs
        if obs is None or self._obs_key != (self._steps, seat):
            obs = rnd.observation(seat)
        legal = obs.legal_actions
        m = bytearray(N_ACTIONS)
        picks: Any = ()
        if legal and not self.terminations[agent] and not self.truncations[agent]:
            if obs.phase == "exchange":
                picks = self._picks
                for k in pick_kinds(obs.hand, picks):
                    m[EXCHANGE0 + k] = 1
            else:
                for a in legal:
                    m[ID_OF[a]] = 1
        return {
            "observation": self._encoder.encode(obs, picks),
            "action_mask": np.frombuffer(m, np.int8),
        }

    @property
    def exchange_picks(self) -> tuple[int, ...]:
        """The kinds the seat to act has picked so far in the exchange (R11.1)."""
        self.require_hand("exchange_picks")
        return tuple(self._picks)

    def action_mask(self, agent: str, call: str = "action_mask()") -> np.ndarray:
        """The mask of ``agent`` now (as in its observation); ``call`` names the caller in the
        error before :meth:`reset`."""
        return self._observe(agent, call)["action_mask"]

    def step(self, action: int | np.integer | None) -> None:
        """Take ``action`` (an id 0-114: an ``int`` or a numpy integer; None for an agent that is
        terminated or truncated) for ``agent_selection``. ``TypeError`` for any other type,
        ``RuntimeError`` before :meth:`reset` and once every agent has taken its last step."""
        rnd = self.require_hand("step()")
        if not self.agents:
            raise RuntimeError("the hand is over and every agent has taken its last step: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                as_int("action", action)  # the type is checked even where the value is ignored
            self._was_dead_step(None)
            return
        action = as_int("action", action, optional=True)
        seat = _SEAT[agent]
        self._cumulative_rewards[agent] = 0.0
        if self.infos[agent]:
            self.infos[agent] = {}  # infos describe the agent's last step
        if action is None:
            raise IllegalActionError(f"{agent} must act (None is only for a terminated agent)")
        aid = action
        if 0 <= aid < EXCHANGE0 and not self._picks:
            # The engine checks legality itself and refuses without changing anything.
            try:
                rnd.apply(_BY_ID[seat][aid])
            except IllegalAction:
                self._illegal(seat, aid, rnd.legal_actions(seat))
        else:
            obs = self._obs
            if obs is None or self._obs_key != (self._steps, seat):
                obs = rnd.observation(seat)
            pick = aid - EXCHANGE0
            if obs.phase == "exchange" and 0 <= pick < 27 and pick in pick_kinds(obs.hand, self._picks):
                self._pick(seat, pick, default=False)
            else:
                self._illegal(seat, aid, list(obs.legal_actions))
        self._steps += 1
        self._seat_steps[seat] += 1
        self._after(rnd)

    def _pick(self, seat: int, kind: int, default: bool) -> None:
        """One exchange pick (R11.1); the third passes the three tiles to the engine."""
        self._picks.append(kind)
        if len(self._picks) == 3:
            rnd = self.round
            assert rnd is not None
            choice = act(seat, EXCHANGE, tuple(self._picks))
            self._picks = []
            # an exchange is the R10 default only when its three tiles are the default's (R11.1)
            rnd.apply(choice, default=default and choice == rnd.default_action(seat))

    def _illegal(self, seat: int, aid: int, legal: list[Action]) -> None:
        rnd = self.round
        assert rnd is not None
        name = ACTION_NAMES[aid] if 0 <= aid < N_ACTIONS else repr(aid)
        if self.illegal == "raise":
            allowed = ", ".join(ACTION_NAMES[i] for i in np.flatnonzero(self.action_mask(AGENTS[seat])))
            raise IllegalActionError(f"action {aid} ({name}) is not legal for player_{seat}; legal: {allowed}")
        self.infos[AGENTS[seat]] = {"illegal_action": aid}
        if self.illegal == "default":
            self._default_step(seat, f"illegal action {name}")
            return
        self._picks = []
        # R10.3: an illegal action is an escape (R8)
        rnd.apply(act(seat, ESCAPE), note=f"illegal action {name}")

    def _default_step(self, seat: int, note: str) -> None:
        """One step of the engine's R10 default for ``seat`` (an exchange: one pick of it)."""
        rnd = self.round
        assert rnd is not None
        legal = rnd.legal_actions(seat)
        if legal and legal[0].verb == EXCHANGE:
            # One step, one pick: the next tile of the R11.1 default choice that the
            # picks so far allow (the highest allowed kind once they leave it).
            kinds = pick_kinds(rnd.observation(seat).hand, self._picks)
            rest = list(rnd.default_action(seat).arg)  # type: ignore[arg-type]
            for k in self._picks:
                if k in rest:
                    rest.remove(k)
            pick = next((k for k in rest if k in kinds), kinds[-1])
            self._pick(seat, pick, default=True)
        else:
            rnd.apply(rnd.default_action(seat), default=True, note=note)

    def _after(self, rnd: Round, fresh: bool = True) -> None:
        """Credit what was paid in this step, terminate winners, select the next agent.

        The payments of a step (every ``pay`` event, R6–R8) add up to the change of the hand's
        deltas, which every seat's observation shows; so do the wins. One observation of the
        next seat to act gives both and is kept for its ``observe``."""
        rewards = self.rewards
        if fresh and self._paid:  # rewards are those of the last step only
            for a in rewards:
                rewards[a] = 0.0
            self._paid = False
        cur = rnd.turn.cur
        obs = rnd.observation(cur if cur is not None else 0)
        self._obs_key = (self._steps, cur)
        self._obs = obs
        final = self.reward_mode == "final"
        deltas = obs.deltas
        old = self._deltas
        if deltas != old:
            if not final:
                self._paid = True
                cum = self._cumulative_rewards
                for s in range(4):
                    d = deltas[s] - old[s]
                    if d:
                        rewards[AGENTS[s]] += d
                        cum[AGENTS[s]] += d
            self._deltas = deltas
        won = obs.won
        if won is not self._won:
            if not rnd.rules.stay:  # a winner that stays in the hand (R14) plays on
                for s in range(4):
                    if won[s]:
                        self.terminations[AGENTS[s]] = True
            self._won = won
        if rnd.over:
            for s, a in enumerate(AGENTS):
                self.terminations[a] = True
                if final:
                    rewards[a] = float(deltas[s])
                    self._cumulative_rewards[a] += deltas[s]
            self._paid = True
            result = rnd.result()
            for a in self.agents:
                self.infos[a] = {**self.infos[a], "result": result}
            self.agent_selection = self.agents[0]
            return
        assert cur is not None
        if self.max_steps is not None and self._steps >= self.max_steps:
            for a in self.agents:
                if not self.terminations[a]:
                    self.truncations[a] = True
            self.agent_selection = self.agents[0]
            return
        if self.max_cycles is not None and self._seat_steps[cur] >= self.max_cycles:
            # This seat has had its cycles: it is truncated, and from now on the engine plays
            # its R10 defaults while the others play on. A cycle is counted per seat, since
            # claims (asked of whoever can claim, R3) make the order of seats irregular.
            self.truncations[AGENTS[cur]] = True
            if all(self.terminations[a] or self.truncations[a] for a in self.agents):
                self.agent_selection = self.agents[0]
                return
            self._default_step(cur, "truncated (max_cycles)")
            self._after(rnd, fresh=False)  # credit what the default step paid, select again
            return
        self.agent_selection = AGENTS[cur]

    # ------------------------------------------------------------------ display
    def render(self) -> str | None:
        """``ansi``: the public state and the hand of the seat to act, as text."""
        rnd = self.round
        if rnd is None or self.render_mode is None:
            return None
        lines = []
        seat = rnd.turn.cur
        view = rnd.observation(seat if seat is not None else 0).to_dict()
        lines.append(f"wall {view['wall_count']}  phase {view['phase']}  deltas {view['deltas']}  won {view['won']}")
        for s in range(4):
            melds = " ".join(f"{t}:{k}" for t, k in view["melds"][s])
            lines.append(f"  seat {s}: discards {view['discards'][s] or '-'}  melds {melds or '-'}")
        if seat is not None:
            lines.append(f"  seat {seat} to act, hand {view['hand']}; legal: {', '.join(view['legal_actions'])}")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
