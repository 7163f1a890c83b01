"""The ``expert`` strategy (高手): its options, determinism for a seed, its time budget, and its
places: tournaments on either engine (tests/test_native_differential.py compares them), the
single-agent environment's opponents, the seat loop's time limit."""

from __future__ import annotations

import pytest

from xuezhan.engine import Round, first_dealer, play_hand, run_round
from xuezhan.strategies import REGISTRY, ExpertStrategy, ValueStrategy
from xuezhan.tournament import TournamentConfig, run


def _hand(seed: int, expert: ExpertStrategy, preset: str = "chengdu") -> list[str]:
    seats = [expert, ValueStrategy(), ValueStrategy(), ValueStrategy()]
    rnd = Round.from_seed(preset, seed, first_dealer(seed))
    for s, b in enumerate(seats):
        b.reset(s, rnd.rules)
    run_round(rnd, seats)
    return [str(e) for e in rnd.ledger.events]


def test_expert_is_deterministic_for_a_seed_and_its_seed_matters():
    def e(seed: int) -> ExpertStrategy:
        return ExpertStrategy(seed=seed, rollouts=6, samples=12, budget=3600)

    for seed in range(6):
        assert _hand(seed, e(4)) == _hand(seed, e(4))
    differ = sum(_hand(s, e(4)) != _hand(s, e(5)) for s in range(12))
    assert differ >= 1  # its simulations draw from its own generator


def test_expert_without_simulations_or_search_plays_value():
    """``samples = 0``, ``rollouts = 0`` and no locked winners (winners leave): value's play."""
    for seed in range(10):
        seats = [ExpertStrategy(seed=1, samples=0, rollouts=0), ValueStrategy(), ValueStrategy(), ValueStrategy()]
        a = play_hand(seats, "leshan", seed)
        b = play_hand([ValueStrategy() for _ in range(4)], "leshan", seed)
        assert a == b


def test_expert_searches_turns_and_claims_each_behind_its_option():
    """``search_turns`` and ``search_claims`` each gate the search of their decisions: with
    both off two expert seats play ``value`` (winners leave, so no locked winners), with either
    one on some hands go otherwise; each must be a boolean."""

    def plays(s: int, turns: bool, claims: bool) -> dict:
        def e(seed: int) -> ExpertStrategy:
            return ExpertStrategy(seed=seed, rollouts=16, search_turns=turns, search_claims=claims)

        return play_hand([e(4), ValueStrategy(), e(5), ValueStrategy()], "leshan", s)

    seeds = range(24)
    value = {s: play_hand([ValueStrategy() for _ in range(4)], "leshan", s) for s in seeds}
    assert all(plays(s, False, False) == value[s] for s in seeds)
    assert any(plays(s, True, False) != value[s] for s in seeds)
    assert any(plays(s, False, True) != value[s] for s in seeds)
    for option in ("search_turns", "search_claims"):
        with pytest.raises(TypeError, match=f"{option} must be true or false"):
            ExpertStrategy(**{option: 0})


def test_expert_searches_wins_where_a_self_draw_earns_a_bonus_R4_3():
    """``search_wins`` weighs a win against playing on (``value`` always wins). Its default,
    "auto", is on where a self-draw earns a bonus (``self_draw_bonus`` "point" or "fan"): there
    an expert seat passes some of the wins it is offered outside the last tiles (R4.3), under
    plain leshan ("none") it passes none, and ``False`` passes none under any; the hands stay
    whole (R12.2) however it answers."""
    from xuezhan.engine import Round
    from xuezhan.engine.decisions import bind_samplers

    def passed_wins(bonus: str, **opts: object) -> tuple[int, int]:
        offered = passed = 0
        for s in range(30):
            rnd = Round.from_seed({"preset": "leshan", "self_draw_bonus": bonus}, s, s % 4)
            seats = [ExpertStrategy(seed=s, rollouts=16, **opts), ValueStrategy()]
            seats += [ExpertStrategy(seed=s + 1, rollouts=16, **opts), ValueStrategy()]
            for i, b in enumerate(seats):
                b.reset(i, rnd.rules)
            bind_samplers(rnd, seats)
            while not rnd.over:
                seat = rnd.turn.cur
                obs = rnd.observation(seat)
                a = seats[seat].act(obs)
                if seat % 2 == 0 and obs.legal_actions[0].verb == "hu" and not obs.last_tiles:
                    offered += 1
                    passed += a.verb != "hu"
                rnd.apply(a)
            assert sum(rnd.result()["deltas"]) == 0
        return offered, passed

    auto = passed_wins("fan")
    assert auto[0] > 10 and auto[1] > 0, auto
    assert passed_wins("fan", search_wins="auto") == auto
    assert passed_wins("point")[1] > 0
    for bonus, opts in (("none", {}), ("fan", {"search_wins": False}), ("none", {"search_wins": False})):
        offered, passed = passed_wins(bonus, **opts)
        assert offered > 10 and passed == 0, (bonus, opts, offered, passed)
    assert passed_wins("none", search_wins=True)[1] > 0  # on, it searches them under any rules
    with pytest.raises(TypeError, match='search_wins must be true, false or "auto"'):
        ExpertStrategy(search_wins="yes")


@pytest.mark.parametrize("option, not_a_boolean", [("void_plans", 1), ("read_voids", "yes")])
def test_expert_leshan_options_change_play_only_where_no_void_is_declared(option, not_a_boolean):
    """The options for a game without declared voids (leshan, R11.2 off): ``void_plans`` makes
    the suit to clear a choice of the search, ``read_voids`` has the samples read the suits the
    others clear (their own constraint is checked in the Rust tests of the determinizer). Under
    leshan some hands go otherwise; under chengdu the voids are declared and nothing changes."""

    def e(on: bool) -> ExpertStrategy:
        return ExpertStrategy(seed=4, rollouts=16, **{option: on})

    assert any(_hand(s, e(True), "leshan") != _hand(s, e(False), "leshan") for s in range(12))
    for seed in range(4):
        assert _hand(seed, e(True), "chengdu") == _hand(seed, e(False), "chengdu")
    with pytest.raises(TypeError, match=f"{option} must be true or false"):
        ExpertStrategy(**{option: not_a_boolean})


def test_expert_nested_search_is_deterministic_and_changes_play():
    """``nest`` (off by default) has each rollout's acting seat search its next decisions
    again: the same seed plays the same hands, and under leshan some hands go otherwise than
    with the plain search of the same seed."""

    def e(nest: int) -> ExpertStrategy:
        return ExpertStrategy(seed=4, rollouts=8, nest=nest, nest_width=2, nest_depth=1, budget=3600)

    for seed in range(3):
        assert _hand(seed, e(3), "leshan") == _hand(seed, e(3), "leshan")
    assert any(_hand(s, e(3), "leshan") != _hand(s, e(0), "leshan") for s in range(8))
    strict = ExpertStrategy(seed=4, rollouts=8, nest=3, nest_width=2, nest_z=6.0, budget=3600)
    assert any(_hand(s, strict, "leshan") != _hand(s, e(3), "leshan") for s in range(8))  # its own test
    for option, bad, message in (
        ("nest", "some", "nest must be a number"),
        ("nest_width", 0, "nest_width must be a number from 1"),
        ("nest_depth", 256, "nest_depth must be a number from 0"),
        ("nest_z", -1, "nest_z must be a number from 0"),
    ):
        with pytest.raises(TypeError, match=message):
            ExpertStrategy(**{option: bad})


def test_expert_options_are_checked_and_named():
    with pytest.raises(TypeError, match="'colour'"):
        ExpertStrategy(colour=1)
    with pytest.raises(TypeError, match="samples must be a number"):
        ExpertStrategy(samples="many")
    with pytest.raises(TypeError, match="survival must be a number from 0"):
        ExpertStrategy(survival=1.5)
    with pytest.raises(TypeError, match="defence must be true or false"):
        ExpertStrategy(defence=1)
    e = ExpertStrategy(seed=2, samples=8, width=2, defence=False)  # value's options too
    assert e.options == {"samples": 8, "width": 2, "defence": False}
    assert REGISTRY["expert"] is ExpertStrategy


@pytest.mark.parametrize("nest", [0, 64])
def test_expert_decides_inside_a_tiny_budget_and_never_times_out_R10(nest):
    """Past its budget a decision answers with its best so far, a nested search's inner
    searches included (they get what is left of the decision's budget)."""
    expert = ExpertStrategy(seed=3, budget=0.001, samples=400, rollouts=400, nest=nest, nest_width=14)
    timeouts = [0, 0, 0, 0]
    for seed in range(3):
        seats = [expert, ValueStrategy(), ValueStrategy(), ValueStrategy()]
        rnd = Round.from_seed("leshan", seed, first_dealer(seed))
        for s, b in enumerate(seats):
            b.reset(s, rnd.rules)
        run_round(rnd, seats, timeouts)
        assert not rnd.seats.escaped[0]
    assert timeouts == [0, 0, 0, 0]


def test_expert_sits_in_the_single_agent_environment():
    from xuezhan.env import single_agent

    env = single_agent(opponents=["expert", "value", "expert"], seat=0, rules="xueliu")  # defaults: searching
    obs, info = env.reset(seed=5)
    done = False
    steps = 0
    while not done and steps < 400:
        action = int(obs["action_mask"].nonzero()[0][0])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    assert done


def test_expert_plays_tournaments_on_either_engine(tmp_path):
    light = {"strategy": "expert", "options": {"rollouts": 6, "samples": 12, "budget": 3600}}
    config = TournamentConfig(strategies=[light, "value", light, "value"], hands=24, seed=6, workers=1)
    native = run(config.replace(engine="native"), output=tmp_path / "n", progress=False)
    python = run(config.replace(engine="python"), output=tmp_path / "p", progress=False)
    assert native.equals(python)
