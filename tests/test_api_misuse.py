"""The engine API misused: actions whose fields only compare equal to legal ones (``True`` for
seat 1, ``13.0`` for tile 13, numpy integers, ``"5"``), wrong argument types at ``Round``'s
constructors, ``apply`` and its queries, and R10 defaults that are not the default. Each is one
``TypeError`` naming the argument (or ``IllegalAction`` for a question of legality), raised before
anything changes; a strategy that answers such an action escapes (R10.3); every log still
replays (R12.4).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xuezhan.engine import Round, log_lines, play_hand, replay_log
from xuezhan.engine.actions import VERBS, Action, IllegalAction, act
from xuezhan.engine.match import run_round
from xuezhan.strategies import RandomStrategy


def _state(rnd: Round) -> tuple:
    """Everything an action could change."""
    return (
        len(rnd.ledger.events),
        [bytes(c) for c in rnd.seats.counts],
        copy.deepcopy(rnd.seats.melds),
        list(rnd.seats.river),
        list(rnd.ledger.deltas),
        rnd.wall.pos,
        rnd.turn.cur,
        rnd.turn.phase,
        list(rnd.turn.legal),
        rnd.ledger.defaults_used,
        list(rnd.turn.x_choice),
        list(rnd.turn.v_choice),
    )


def _finish_and_replay(rnd: Round) -> None:
    """Play the hand to its end; its log replays line for line (R12.4)."""
    bot = RandomStrategy(0)
    while not rnd.over:
        rnd.apply(bot.act(rnd.observation(rnd.turn.cur)))
    lines = log_lines(rnd)
    assert log_lines(replay_log(lines)) == lines


def _forged(seat, verb, arg=None) -> Action:
    """An Action built around the constructor's checks (as ``_replace`` or a subclass could)."""
    return tuple.__new__(Action, (seat, verb, arg))


def _legal_of(preset: str, phase: str, seed: int = 3, dealer: int = 0) -> tuple[Round, Action]:
    rnd = Round.from_seed(preset, seed, dealer)
    bot = RandomStrategy(seed)
    while rnd.observation(rnd.turn.cur).phase != phase:
        rnd.apply(bot.act(rnd.observation(rnd.turn.cur)))
    return rnd, rnd.legal_actions(rnd.turn.cur)[0]


@pytest.mark.parametrize(
    ("phase", "field", "convert", "shown"),
    [
        ("turn", "seat", bool, "bool"),
        ("turn", "seat", float, "float"),
        ("turn", "seat", np.int64, "int64"),
        ("turn", "seat", str, "str"),
        ("turn", "arg", float, "float"),
        ("turn", "arg", np.uint8, "uint8"),
        ("turn", "arg", str, "str"),
        ("void", "arg", bool, "bool"),
        ("turn", "verb", str.encode, "bytes"),
    ],
)
def test_action_fields_of_another_type_are_a_type_error_naming_the_field(phase, field, convert, shown):
    # dealer 1: the first turn is seat 1's (True == 1); the void of suit p is 1 (True == 1)
    rnd, _ = _legal_of("chengdu" if phase == "void" else "leshan", phase, dealer=1)
    legal = next(a for a in rnd.legal_actions(rnd.turn.cur) if phase != "void" or a.arg == 1)
    fields = {"seat": legal.seat, "verb": legal.verb, "arg": legal.arg}
    fields[field] = convert(fields[field])
    with pytest.raises(TypeError, match=rf"Action {field}: .*{shown}"):
        Action(**fields)
    forged = _forged(**fields)
    if convert is not str and field != "verb":
        assert forged == legal  # it compares equal: the old engine accepted it
    before = _state(rnd)
    with pytest.raises(TypeError, match=rf"Action {field}"):
        rnd.apply(forged)
    assert _state(rnd) == before
    rnd.apply(legal)  # a later legal action still works (no OverflowError, no damaged state)
    _finish_and_replay(rnd)


def test_a_void_given_as_a_numpy_integer_is_refused_and_later_actions_work():
    rnd, legal = _legal_of("chengdu", "void")
    with pytest.raises(TypeError, match="numpy"):
        Action(legal.seat, "void", np.uint8(legal.arg))
    before = _state(rnd)
    with pytest.raises(TypeError):
        rnd.apply(_forged(legal.seat, "void", np.uint8(legal.arg)))
    assert _state(rnd) == before
    bot = RandomStrategy(1)
    while not rnd.over:
        rnd.apply(bot.act(rnd.observation(rnd.turn.cur)))
    assert log_lines(replay_log(log_lines(rnd))) == log_lines(rnd)


def test_an_exchange_with_a_float_tile_is_refused():
    rnd, legal = _legal_of("chengdu", "exchange")
    a, b, c = legal.arg
    before = _state(rnd)
    with pytest.raises(TypeError, match="Action arg"):
        rnd.apply(_forged(legal.seat, "exchange", (a, float(b), c)))
    assert _state(rnd) == before


@pytest.mark.parametrize(
    "action",
    [(0, "discard", 0), [0, "discard", 0], 0, 1.5, None, b"0 discard 1m", {"seat": 0}],
    ids=["tuple", "list", "int", "float", "None", "bytes", "dict"],
)
def test_apply_takes_an_action_or_a_script_line_only(action):
    rnd = Round.from_seed("leshan", 1, 0)
    before = _state(rnd)
    with pytest.raises(TypeError, match="apply: action must be an Action or a script line"):
        rnd.apply(action)
    assert _state(rnd) == before


@pytest.mark.parametrize(("kwargs", "name"), [({"default": 1}, "default"), ({"note": 5}, "note")])
def test_apply_default_and_note_types(kwargs, name):
    rnd = Round.from_seed("leshan", 1, 0)
    before = _state(rnd)
    with pytest.raises(TypeError, match=f"apply: {name} must be"):
        rnd.apply(rnd.legal_actions(rnd.turn.cur)[0], **kwargs)
    assert _state(rnd) == before


def test_a_default_that_is_not_the_r10_default_is_refused():
    rnd = Round.from_seed("leshan", 1, 0)
    d = rnd.default_action()
    other = next(a for a in rnd.legal_actions(rnd.turn.cur) if a != d)
    before = _state(rnd)
    with pytest.raises(IllegalAction, match="R10 default"):
        rnd.apply(other, default=True)
    assert _state(rnd) == before
    rnd.apply(d, default=True)  # the real default is accepted and counted (R10)
    assert rnd.ledger.defaults_used == 1
    rnd.apply(act(rnd.turn.cur, "escape"), default=True, note="timeout limit")  # R10.3: an escape may be
    assert rnd.over


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: Round.from_seed("leshan", 1.5), "seed"),
        (lambda: Round.from_seed("leshan", "12"), "seed"),
        (lambda: Round.from_seed("leshan", True), "seed"),
        (lambda: Round.from_seed("leshan", 1, dealer=True), "dealer"),
        (lambda: Round.from_seed("leshan", 1, dealer=np.int8(1)), "dealer"),
        (lambda: Round.from_seed("leshan", 1, scores=[0, 0, 0.5, 0]), r"scores\[2\]"),
        (lambda: Round("leshan", [[0.0] * 14, [1] * 13, [2] * 13, [3] * 13], []), r"hands\[0\]"),
        (lambda: Round("leshan", ["1m" * 14] * 4, [True]), "wall"),
        (lambda: Round("leshan", "123m", ""), "hands"),
    ],
)
def test_round_constructors_refuse_other_types_naming_the_argument(call, name):
    with pytest.raises(TypeError, match=rf"Round: {name}"):
        call()


@pytest.mark.parametrize("seat", [True, 1.0, np.int64(1), "1"])
def test_queries_take_int_seats(seat):
    rnd = Round.from_seed("leshan", 1, 1)
    for query in (rnd.legal_actions, rnd.default_action, rnd.observation, rnd.locked):
        with pytest.raises(TypeError, match="seat"):
            query(seat)


@pytest.mark.parametrize("seat", [-1, 4])
def test_locked_names_a_seat_out_of_range_R14_2(seat):
    with pytest.raises(ValueError, match="seat must be 0-3"):
        Round.from_seed("xueliu", 1, 1).locked(seat)


class _Forger:
    """A strategy answering the legal action it chose with one field of another type."""

    def __init__(self, value_of):
        self.value_of = value_of
        self.inner = RandomStrategy(7)

    def reset(self, seat, rules):
        self.inner.reset(seat, rules)

    def act(self, obs):
        a = self.inner.act(obs)
        return _forged(self.value_of(a.seat), a.verb, a.arg)


@pytest.mark.parametrize(
    "value_of", [lambda s: bool(s) if s == 1 else float(s), np.int64], ids=["bool-or-float", "numpy"]
)
def test_a_strategy_answering_equal_actions_of_another_type_escapes_and_logs_replay(value_of):
    # R10.3: an answer that is not an action of the engine's types is illegal: an escape (R8)
    rnd = Round.from_seed("chengdu", 5, 0)
    bots = [_Forger(value_of), RandomStrategy(1), RandomStrategy(2), RandomStrategy(3)]
    for i, b in enumerate(bots):
        b.reset(i, rnd.rules)
    run_round(rnd, bots)
    assert rnd.seats.escaped[0]
    assert rnd.ledger.events[-5:] and any(getattr(e, "note", None) == "illegal action" for e in rnd.ledger.events)
    lines = log_lines(rnd)
    events = "".join(lines[1:])
    assert '"seat":true' not in events and ".0," not in events
    assert log_lines(replay_log(lines)) == lines


_values = st.one_of(
    st.integers(-2, 30),
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.none(),
    st.builds(np.int64, st.integers(-2, 30)),
    st.tuples(st.integers(0, 26), st.integers(0, 26), st.integers(0, 26)),
    st.tuples(st.integers(0, 26), st.floats(0, 26), st.integers(0, 26)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["leshan", "chengdu"]),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 40),
    seat=_values,
    verb=st.one_of(st.sampled_from(VERBS), st.text(max_size=4), st.integers()),
    arg=_values,
)
def test_random_misuse_of_apply_changes_nothing_or_applies_an_exact_action(preset, seed, steps, seat, verb, arg):
    rnd = Round.from_seed(preset, seed, seed % 4)
    bot = RandomStrategy(seed)
    for _ in range(steps):
        if rnd.over:
            break
        rnd.apply(bot.act(rnd.observation(rnd.turn.cur)))
    forged = _forged(seat, verb, arg)
    before = _state(rnd)
    try:
        rnd.apply(forged)
    except (TypeError, IllegalAction):
        assert _state(rnd) == before  # refused before any change
    else:
        # accepted only with the engine's exact types
        assert type(seat) is int and type(verb) is str
        assert arg is None or type(arg) is int or all(type(k) is int for k in arg)
    _finish_and_replay(rnd)


def test_tournament_hands_are_unchanged_by_the_checks():
    # built-in strategies answer the engine's own actions: nothing is refused, and the hands
    # are those of the engine (spot check of a seeded hand's log against a replay)
    res = play_hand([RandomStrategy(i) for i in range(4)], "chengdu", seed=11)
    assert res["end"] in ("wall", "three_won") and "R10-defaults" not in res["fired"]


def test_a_script_with_a_dealer_that_is_not_an_int_is_a_script_error():
    from xuezhan.engine import ScriptError, replay_script

    doc = {"hands": ["1235679m1235579p", "123456789m3455p", "123456789s1489m", "124468p1356789s"], "dealer": True}
    with pytest.raises(ScriptError, match="dealer must be an int, got bool"):
        replay_script(doc)


@pytest.mark.parametrize(
    ("args", "err", "says"),
    [
        ((True, "hu"), TypeError, "Action seat"),
        ((-1, "discard", 3), ValueError, "seat -1 is not a seat"),  # not seat 3's shared action
        ((0, "discard", -1), ValueError, "tile kind 0-26, got -1"),  # not kind 26
        ((0, "discard", 3.0), TypeError, "Action arg"),
        ((0, "void", np.int8(1)), TypeError, "numpy"),
        ((0, "void", 3), ValueError, "suit 0-2"),
        ((0, "exchange", (1, 2)), ValueError, "three tile kinds"),
        ((0, "hu", 3), ValueError, "not an action"),
    ],
)
def test_act_never_picks_a_shared_action_by_an_equal_or_wrapped_value(args, err, says):
    with pytest.raises(err, match=says):
        act(*args)
