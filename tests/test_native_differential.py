"""The native engine (``xuezhan.native``, ``rust/core/src/hand``) against the Python engine, which
is the specification: any difference in a result row or a log byte is a failure.

- Whole tournament hands of ``random``, ``greedy`` and ``value`` under every preset and under
  rules drawn by hypothesis from every option (R3–R8, R11, R14): the results tables are equal
  column for column and the gzip hand logs byte for byte (more than 3,000 hands per run).
- Hands stepped action by action with legal actions drawn at random (escapes and R10 defaults
  among them): the legal actions and the events agree after every action, and the native
  hand's R12 invariants hold.
- Every rule vector (R13), its logged decisions applied natively, gives the same events.
- The mid-hand hand-off: a round played part-way in Python, handed to the native engine and
  played out there, ends exactly as the Python rollout of the same position.
- The seeds (R1.4, R9.1), the fired-rule registry (R9.3) and the refusals of what the native
  engine does not play.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xuezhan import _core, native
from xuezhan.engine import Round, first_dealer
from xuezhan.engine.actions import Action, act
from xuezhan.engine.decisions import decide
from xuezhan.engine.events import DECISION_TYPES, dumps
from xuezhan.engine.fired import FIRED
from xuezhan.engine.log import event_action
from xuezhan.engine.script import replay_script
from xuezhan.engine.seeds import derive_seed
from xuezhan.rules import FAN_ITEMS, PRESETS, Rules
from xuezhan.search.clone import clone
from xuezhan.search.estimate import Rollouts
from xuezhan.strategies import REGISTRY, ValueStrategy, rollout_policy
from xuezhan.tournament.config import ConfigError, TournamentConfig
from xuezhan.tournament.engines import NativeRunner, resolve_engine
from xuezhan.tournament.play import HandRunner
from xuezhan.tournament.results import rows_to_table
from xuezhan.tournament.scheduling import game

VECTORS = Path(__file__).resolve().parent / "vectors"

LINEUPS = {
    "mixed": ["random", "greedy", "value", "value"],
    "random": ["random"] * 4,
    "greedy": ["greedy"] * 4,
    "value": ["value"] * 4,
    # expert with light settings: every path (simulations, search, determinization) runs
    "expert": [
        {"strategy": "expert", "options": {"rollouts": 6, "samples": 12, "budget": 3600}},
        "value",
        {"strategy": "expert", "options": {"rollouts": 6, "samples": 12, "budget": 3600, "seed": 3}},
        "greedy",
    ],
}


def _both_ways(config: TournamentConfig, tmp: Path) -> None:
    """Play every hand of ``config`` with the Python engine and the native one; assert the
    tables and the hand logs are the same."""
    games = [game(config, i) for i in range(config.n_games)]
    py_config = config.replace(hand_logs=str(tmp / "python"))
    rows: list[dict] = []
    runner = HandRunner(py_config)
    for g in games:
        rows.extend(runner.play(g))
    expected = rows_to_table(rows)
    got = NativeRunner(config.replace(hand_logs=str(tmp / "native"))).play_games(games)
    assert got.schema == expected.schema
    for name in expected.column_names:
        assert got.column(name).equals(expected.column(name)), f"column {name} differs"
    python_logs = sorted((tmp / "python").iterdir())
    assert len(python_logs) == len(games)
    for p in python_logs:
        q = tmp / "native" / p.name
        if p.read_bytes() != q.read_bytes():  # name the first line that differs
            a = gzip.decompress(p.read_bytes()).decode().splitlines()
            b = gzip.decompress(q.read_bytes()).decode().splitlines()
            i = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y) if a[:1] == b[:1] else 0
            left, right = (a[i] if i < len(a) else None), (b[i] if i < len(b) else None)
            pytest.fail(f"{p.name} line {i + 1}: python {left}, native {right}")


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("lineup", LINEUPS)
def test_r13_native_tournament_rows_and_logs_equal_the_python_engine(preset, lineup, tmp_path):
    hands = 40 if lineup == "expert" else 200  # expert simulates and searches: slower
    config = TournamentConfig(strategies=LINEUPS[lineup], hands=hands, seed=2026, rules={"preset": preset})
    _both_ways(config, tmp_path)


def test_native_plays_experts_win_search_as_python_R4_3(tmp_path):
    """``search_wins`` (passing a win, R4.3, or playing on past a self-draw) decides the same on
    both engines: on by default where a self-draw earns a bonus (a fan; under 血流成河, R14, a
    point), turned on under leshan's plain self-draw."""
    light = {"rollouts": 6, "budget": 3600}
    for name, rules, opts in (
        ("fan", {"preset": "leshan", "self_draw_bonus": "fan"}, light),
        ("xueliu", {"preset": "xueliu"}, light),
        ("leshan", {"preset": "leshan"}, {**light, "search_wins": True}),
    ):
        expert = {"strategy": "expert", "options": opts}
        config = TournamentConfig(strategies=[expert, "value", expert, "value"], hands=40, seed=9, rules=rules)
        _both_ways(config, tmp_path / name)


def test_native_plays_experts_nested_search_as_python(tmp_path):
    """``nest`` (each rollout's acting seat searching its next decision again) decides the same
    on both engines, under leshan and under 血流成河 (R14)."""
    options = {"rollouts": 4, "nest": 3, "nest_width": 2, "nest_z": 1.0, "budget": 3600}
    nested = {"strategy": "expert", "options": options}
    for preset in ("leshan", "xueliu"):
        lineup = [nested, "value", nested, "value"]
        config = TournamentConfig(strategies=lineup, hands=16, seed=5, rules={"preset": preset})
        _both_ways(config, tmp_path / preset)


def test_native_plays_value_options_and_seed_options_as_python(tmp_path):
    # every value option differs from its default; a random entry's seed option is mixed in
    value = {
        "defence": False,
        "fan": True,
        "smart_void": False,
        "strict_peng": True,
        "steer": False,
        "fold": False,
        "alpha": 0.5,
        "lookahead": True,
        "kong_slack": 0,
        "fold_wall": 30,
        "one_suit": True,
        "one_suit_min": 8,
        "one_suit_slack": 2,
        "one_suit_wall": 20,
        "one_suit_step": 5,
    }
    strategies = [
        {"strategy": "value", "options": value},
        {"strategy": "random", "options": {"seed": 7}},
        {"strategy": "value", "name": "v2", "options": {"defence": False, "one_suit": False}},
        "greedy",
    ]
    for preset in ("leshan", "xueliu"):
        config = TournamentConfig(strategies=strategies, hands=120, seed=5, rules={"preset": preset})
        _both_ways(config, tmp_path / preset)


_BOOL_OPTIONS = (
    "rob_kong",
    "pass_win_lock",
    "last_tiles_forced",
    "kong_transfer",
    "kong_draw_discarder_pays",
    "pig_penalty",
    "kong_refund",
    "declare_void",
    "exchange_three",
)
_FREE_ITEMS = [i for i in FAN_ITEMS if i != "self_draw"]


@st.composite
def rules_tables(draw: st.DrawFn) -> dict:
    """Every option of the R11 table drawn (the clock at least the native engine's minimum)."""
    table: dict = {"preset": draw(st.sampled_from(PRESETS))}
    table["max_fan"] = draw(st.integers(1, 16))
    table["base"] = draw(st.sampled_from([1, 2, 3, 1000]))
    table["self_draw_bonus"] = draw(st.sampled_from(["none", "point", "fan"]))
    for name in _BOOL_OPTIONS:
        table[name] = draw(st.booleans())
    table["escape_penalty"] = draw(st.integers(0, 100))
    table["after_win"] = draw(st.sampled_from(["leave", "stay"]))
    table["turn_timeout"] = draw(st.sampled_from([1, 5, 10]))
    table["fan"] = {item: draw(st.booleans()) for item in _FREE_ITEMS}
    return table


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    table=rules_tables(),
    lineup=st.lists(st.sampled_from(["random", "greedy", "value"]), min_size=4, max_size=4),
    seed=st.integers(0, 2**63 - 1),
    seating=st.sampled_from(["duplicate", "random"]),
)
def test_r11_native_equals_python_under_rules_drawn_from_every_option(table, lineup, seed, seating, tmp_path_factory):
    config = TournamentConfig(strategies=lineup, hands=40, seed=seed, rules=table, seating=seating)
    assert resolve_engine(config) == "native"
    _both_ways(config, tmp_path_factory.mktemp("hands"))


# ---------------------------------------------------------------- stepped hands


def _native_action(a: Action) -> tuple:
    return (a.seat, a.verb, a.arg)


@settings(max_examples=60, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 2**40),
    choices=st.randoms(use_true_random=False),
    escape_rate=st.sampled_from([0.0, 0.0, 0.01]),
)
def test_r12_native_hand_follows_python_action_by_action(preset, seed, choices, escape_rate):
    rules = Rules.preset(preset)
    dealer = first_dealer(seed)
    rnd = Round.from_seed(rules, seed, dealer)
    nh = _core.NativeHand.from_seed(native.native_rules(rules), seed, dealer)
    while not rnd.over:
        legal = rnd.legal_actions(rnd.turn.cur)
        assert nh.legal() == [_native_action(a) for a in legal]
        assert nh.default_action() == _native_action(rnd.default_action())
        if choices.random() < escape_rate:
            active = [s for s in range(4) if rnd.seats.active[s]]
            a, default = act(choices.choice(active), "escape"), False
        elif choices.random() < 0.2:
            a, default = rnd.default_action(), True
        else:
            a, default = choices.choice(legal), False
        rnd.apply(a, default=default)
        nh.apply(a.seat, a.verb, a.arg, default)
        assert nh.events() == [dumps(e) for e in rnd.ledger.events]
        nh.check_invariants()
    assert nh.over and nh.cur is None and nh.deltas == list(rnd.ledger.deltas)
    assert nh.next_dealer == rnd.ledger.next_dealer


def test_native_hand_refuses_what_python_refuses():
    rules = Rules.preset("leshan")
    nh = _core.NativeHand.from_seed(native.native_rules(rules), 3, 0)
    seat, verb, arg = nh.legal()[-1]
    with pytest.raises(ValueError, match="not seat 1's decision"):
        nh.apply(1, verb, arg)
    with pytest.raises(ValueError, match="R10 default"):
        nh.apply(seat, "hu", None, True)
    with pytest.raises(ValueError, match="not a verb"):
        nh.apply(seat, "chow")
    with pytest.raises(ValueError, match="tile kind 0-26"):
        nh.apply(seat, "discard", 27)
    before = nh.events()
    with pytest.raises(ValueError, match="not a legal action"):
        nh.apply(seat, "peng")
    assert nh.events() == before  # nothing changed


def _vector_files() -> list[Path]:
    subs = [f for sub in ("random", "xueliu") for f in sorted((VECTORS / sub).glob("*.json"))]
    return [*sorted(VECTORS.glob("*.json")), *subs]


@pytest.mark.parametrize("path", _vector_files(), ids=lambda p: p.stem)
def test_r13_every_vector_plays_the_same_natively(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    if "error" in doc.get("expect", {}):
        return  # a refused line is the Python engine's business (it names the line)
    _, rnd = replay_script(doc, return_round=True)
    rules = rnd.rules
    exchange = None if rnd.exchange_dir is None else ("next", "prev", "across").index(rnd.exchange_dir)
    nh = _core.NativeHand.deal(native.native_rules(rules), rnd.hands0, list(rnd.wall.tiles), rnd.dealer, exchange)
    for e in rnd.ledger.events:
        if e.type in DECISION_TYPES and not getattr(e, "forced", False):
            a = event_action(e)
            nh.apply(a.seat, a.verb, a.arg, e.default)
    assert nh.events() == [dumps(e) for e in rnd.ledger.events]
    assert nh.deltas == list(rnd.ledger.deltas)


# ---------------------------------------------------------------- mid-hand hand-off


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("policy", ["value", "random"])
def test_native_play_out_from_any_python_position_equals_the_python_rollout(preset, policy):
    rng = random.Random(f"{preset}-{policy}")
    lineup = native.lineup([policy] * 4)
    played = 0
    for _ in range(60):
        seed = rng.getrandbits(40)
        rnd = Round.from_seed(preset, seed, first_dealer(seed))
        bots = [REGISTRY["value"]() for _ in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, rnd.rules)
        stop = rng.randrange(0, 90)
        for _ in range(stop):
            if rnd.over:
                break
            decide(rnd, rnd.turn.cur, bots[rnd.turn.cur].act, [0] * 4, float("inf"))
        if rnd.over:
            continue
        played += 1
        nh = native.from_round(rnd, record=True)
        assert nh.legal() == [_native_action(a) for a in rnd.turn.legal]
        before = len(rnd.ledger.events)
        py = clone(rnd, (rnd.rules, rnd.core))
        Rollouts(rollout_policy(policy)).play(py, 77)
        nh.play_out(lineup, [77 + s for s in range(4)])
        assert nh.events() == [dumps(e) for e in py.ledger.events[before:]]
        assert nh.deltas == list(py.ledger.deltas)
    assert played >= 25


def test_native_rollouts_equal_python_samples_of_each_action():
    from xuezhan.search.estimate import play_sample

    for seed in range(8):
        rnd = Round.from_seed("xueliu", seed, 0)
        for _ in range(30 + seed):
            if rnd.over:
                break
            rnd.apply(rnd.default_action())
        if rnd.over:
            continue
        actions = rnd.legal_actions(rnd.turn.cur)
        seat = rnd.turn.cur
        expected = play_sample(
            clone(rnd, (rnd.rules, rnd.core)), seat, actions, Rollouts(ValueStrategy, native=False), 11
        )
        got = native.from_round(rnd).rollouts([_native_action(a) for a in actions], native.lineup(["value"] * 4), 11)
        assert [d[seat] for d in got] == expected
        assert play_sample(rnd, seat, actions, Rollouts(ValueStrategy), 11) == expected  # the native path


def test_from_round_refuses_a_state_that_breaks_conservation():
    rnd = Round.from_seed("leshan", 4, 0)
    rnd.seats.counts[1][0] += 1  # a tile from nowhere (R12.1)
    with pytest.raises(ValueError, match="R12.1"):
        native.from_round(rnd)


def test_a_native_panic_is_one_runtime_error_naming_the_hand():
    # a claim decision without its claim window cannot arise in play; handed over as a state
    # it makes the engine fail inside, which must come back as one clear error, not a panic
    rnd = Round.from_seed("leshan", 4, 0)
    state = native.round_state(rnd)
    state["turn"]["phase"] = 3
    state["turn"]["legal"] = [(0, "pass", None)]
    h = _core.NativeHand.from_state(native.native_rules(rnd.rules), state)
    with pytest.raises(RuntimeError, match="native engine failed on the hand.*a bug in xuezhan"):
        h.apply(0, "pass")


# ---------------------------------------------------------------- seeds, registry, refusals


def test_r1_4_r9_1_native_seeds_are_the_python_seeds():
    rng = random.Random(0)
    for _ in range(3000):
        seed = rng.getrandbits(rng.choice([8, 32, 33, 63]))
        seat = rng.randrange(4)
        option = rng.choice(["", "7", "abc", "-3"])
        dealer, strategy_seed = _core.native_seeds(seed, seat, option)
        assert dealer == first_dealer(seed)
        assert strategy_seed == derive_seed(seed, "strategy", seat, option)


def test_the_native_determinizers_ready_rate_is_searchs():
    from xuezhan.strategies.search import ready_rate

    for wall in range(0, 70):
        assert _core.native_ready_rate(wall) == pytest.approx(ready_rate(wall), abs=1e-12)


def test_r9_3_native_fired_ids_are_the_registry():
    assert tuple(FIRED) == native.FIRED_IDS


def test_native_play_columns_and_threads_give_the_same_table():
    seeds = np.arange(60, dtype=np.int64) * 7919
    one = native.play("chengdu", seeds, ["random", "greedy", "value", "value"])
    two = native.play("chengdu", seeds, ["random", "greedy", "value", "value"], threads=2)
    assert one.equals(two)
    assert one.num_rows == 240 and one.column("hand").to_pylist()[:5] == [0, 0, 0, 0, 1]
    delta = np.asarray(one.column("delta")).reshape(-1, 4)
    assert (delta.sum(axis=1) == 0).all()  # R12.2 (no escapes)
    assert isinstance(one.column("fired").type, pa.DictionaryType)


def test_engine_choice_falls_back_or_refuses_naming_the_entry_or_option():
    builtins = TournamentConfig(strategies=["random", "greedy", "value", "value"])
    assert resolve_engine(builtins) == "native"
    assert resolve_engine(builtins.replace(engine="python")) == "python"
    searching = builtins.replace(strategies=("random", "greedy", "value", "search"))
    assert resolve_engine(searching) == "python"
    with pytest.raises(ConfigError, match=r"strategies\[3\] \('search'\).*not a strategy the native engine plays"):
        resolve_engine(searching.replace(engine="native"))
    fast_clock = builtins.replace(rules={"preset": "leshan", "claim_timeout": 0.5}, engine="native")
    with pytest.raises(ConfigError, match="claim_timeout = 0.5"):
        resolve_engine(fast_clock)
    assert resolve_engine(fast_clock.replace(engine="auto")) == "python"
    with pytest.raises(ConfigError, match="engine: expected one of auto, native, python"):
        builtins.replace(engine="rust")
    with pytest.raises(native.NativeUnsupported, match="value has no option 'speed'"):
        native.lineup([native.Entry("value", {"speed": 3}), "random", "random", "random"])
