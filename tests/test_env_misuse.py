"""The RL environments misused (docs/env.md): action ids, seeds, seats, the dealer and the cycle
limits are integers (Python ``int`` or a numpy integer, converted explicitly); ``bool``, ``float``
and ``str`` are a ``TypeError`` naming the argument, before anything changes (``step(3.9)`` never
plays action 3, ``step(True)`` never action 1, ``reset(seed=1.5)`` never deals seed 1). ``step``
before ``reset`` and after the hand, and a parallel ``step`` without the asked agent's action,
are one clear error each."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo")

from xuezhan.env import aec_env, parallel_env, single_agent  # noqa: E402


def _legal_id(env) -> int:
    obs = env.observe(env.agent_selection)
    return int(np.flatnonzero(obs["action_mask"])[0])


def _snapshot(env) -> tuple:
    rnd = env.round
    return (len(rnd.ledger.events), env.agent_selection, tuple(env.exchange_picks), rnd.turn.cur)


@pytest.mark.parametrize("bad", [3.9, 3.0, "5", True, False, None, [3], np.float32(3)])
def test_aec_step_refuses_ids_of_another_type(bad):
    env = aec_env("chengdu")
    env.reset(seed=1)
    before = _snapshot(env)
    err = TypeError if bad is not None else ValueError  # None: only for a finished agent
    with pytest.raises(err, match="action|must act"):
        env.step(bad)
    assert _snapshot(env) == before


@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint8, int])
def test_aec_step_takes_python_and_numpy_integers_alike(kind):
    a, b = aec_env("chengdu"), aec_env("chengdu")
    a.reset(seed=4)
    b.reset(seed=4)
    for _ in range(30):
        i = _legal_id(a)
        a.step(kind(i))
        b.step(i)
    assert [str(e) for e in a.round.ledger.events] == [str(e) for e in b.round.ledger.events]


@pytest.mark.parametrize("seed", [1.5, "12", True, np.float64(1.0)])
def test_reset_refuses_seeds_of_another_type(seed):
    env = aec_env("leshan")
    with pytest.raises(TypeError, match="reset seed"):
        env.reset(seed=seed)
    with pytest.raises(TypeError, match="hand_seed"):
        env.reset(options={"hand_seed": seed})
    with pytest.raises(TypeError, match="reset seed"):
        parallel_env("leshan").reset(seed=seed)
    with pytest.raises(TypeError, match="reset seed"):
        single_agent(["random"] * 3).reset(seed=seed)


def test_reset_takes_a_numpy_integer_seed():
    a, b = aec_env("leshan"), aec_env("leshan")
    a.reset(seed=np.int64(12))
    b.reset(seed=12)
    assert a.hand_seed == b.hand_seed == 12 and a.round.wall == b.round.wall


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"dealer": True}, "dealer"),
        ({"dealer": 1.0}, "dealer"),
        ({"max_cycles": True}, "max_cycles"),
        ({"max_cycles": 10.5}, "max_cycles"),
        ({"max_steps": "9"}, "max_steps"),
        ({"seed": 2.5}, "seed"),
    ],
)
def test_aec_constructor_refuses_other_types(kwargs, name):
    with pytest.raises(TypeError, match=name):
        aec_env("leshan", **kwargs)


@pytest.mark.parametrize("seat", [True, 1.0, "1"])
def test_single_agent_seat_is_an_int(seat):
    with pytest.raises(TypeError, match="seat"):
        single_agent(["random"] * 3, seat=seat)


def test_parallel_max_cycles_is_an_int():
    with pytest.raises(TypeError, match="max_steps"):
        parallel_env("leshan", max_cycles=True)


def test_step_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="before reset"):
        aec_env("leshan").step(0)
    with pytest.raises(RuntimeError, match="before reset"):
        aec_env("leshan").observe("player_0")
    with pytest.raises(RuntimeError, match="before reset"):
        parallel_env("leshan").step({"player_0": 0})
    with pytest.raises(RuntimeError, match="before reset"):
        single_agent(["random"] * 3).step(0)


def test_step_after_the_hand_is_a_clear_error():
    env = aec_env("leshan")
    env.reset(seed=3)
    for _agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _legal_id(env))
    assert not env.agents
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    env.reset(seed=3)  # and a reset starts again
    assert env.agents


def test_parallel_step_after_the_hand_is_a_clear_error():
    env = parallel_env("leshan")
    env.reset(seed=2)
    while env.agents:
        active = env.aec.agent_selection
        env.step({a: (_legal_id(env.aec) if a == active else 0) for a in env.agents})
    with pytest.raises(RuntimeError, match="the hand is over"):
        env.step({})


@pytest.mark.parametrize(
    ("actions", "err", "match"),
    [
        ({}, ValueError, "no action for player_"),
        ({"player_9": 0}, ValueError, "player_9 is not a live agent"),
        ([0, 0, 0, 0], TypeError, "expected a dict"),
    ],
)
def test_parallel_step_without_the_asked_agents_action_is_a_clear_error(actions, err, match):
    env = parallel_env("chengdu")
    env.reset(seed=1)
    before = _snapshot(env.aec)
    with pytest.raises(err, match=match):
        env.step(actions)
    assert _snapshot(env.aec) == before


def test_parallel_step_refuses_ids_of_another_type_for_any_agent():
    env = parallel_env("chengdu")
    env.reset(seed=1)
    actions = {a: 0 for a in env.agents}
    other = next(a for a in env.agents if a != env.aec.agent_selection)
    actions[other] = 2.5
    before = _snapshot(env.aec)
    with pytest.raises(TypeError, match=f"for {other}"):
        env.step(actions)
    assert _snapshot(env.aec) == before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31),
    steps=st.integers(0, 60),
    bad=st.one_of(st.floats(), st.booleans(), st.text(max_size=3), st.lists(st.integers(), max_size=2)),
)
def test_random_misuse_of_step_changes_nothing(seed, steps, bad):
    env = aec_env("chengdu", illegal="escape")
    env.reset(seed=seed)
    for _ in range(steps):
        agent = env.agent_selection
        if not env.agents:
            break
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(_legal_id(env))
    if not env.agents:
        with pytest.raises(RuntimeError):
            env.step(bad)
        return
    before = _snapshot(env)
    with pytest.raises(TypeError, match="action"):
        env.step(bad)
    assert _snapshot(env) == before


@pytest.mark.parametrize(
    ("make", "call", "name"),
    [
        (lambda: aec_env("leshan"), lambda e: e.last(), "last()"),
        (lambda: aec_env("chengdu"), lambda e: e.last(observe=False), "last()"),
        (lambda: aec_env("leshan"), lambda e: e.observe("player_0"), "observe()"),
        (lambda: aec_env("leshan"), lambda e: e.step(0), "step()"),
        (lambda: aec_env("leshan"), lambda e: e.action_mask("player_0"), "action_mask()"),
        (lambda: aec_env("chengdu"), lambda e: e.exchange_picks, "exchange_picks"),
        (lambda: aec_env("leshan"), lambda e: next(iter(e.agent_iter())), "agent_iter()"),
        (lambda: parallel_env("leshan"), lambda e: e.step({"player_0": 0}), "step()"),
        (lambda: single_agent(["random"] * 3), lambda e: e.step(0), "step()"),
        (lambda: single_agent(["random"] * 3), lambda e: e.action_masks(), "action_masks()"),
    ],
)
def test_play_before_reset_is_one_clear_error_in_every_environment(make, call, name):
    """``aec_env("leshan").last()`` before ``reset()`` raised AttributeError; every call that
    needs a hand is one RuntimeError naming the call and what to do."""
    env = make()
    with pytest.raises(RuntimeError) as err:
        call(env)
    assert type(err.value) is RuntimeError and str(err.value) == f"{name} before reset(): call reset() first"
