"""Fuzzing the evaluator API (``xuezhan.is_win`` ... ``xuezhan.batch.fan``) with hypothesis.

Any input — random text, lists of anything, numpy arrays of any dtype and shape, melds, rules
and void values of any type — either gives a correct result (checked against the brute-force
reference of ``tests/_reference.py`` where that is cheap) or raises ``TypeError`` /
``ValueError`` with a message. Never another exception, never a crash of the Rust core (a
panic would surface as ``pyo3_runtime.PanicException``, a ``BaseException``, and fail the test).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xuezhan
from xuezhan import batch
from xuezhan.tiles import parse_melds, parse_void, to_counts

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from _reference import ref_is_win, ref_waits  # noqa: E402  (the reference lives beside the tests)

FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------- input strategies

_scalars = st.one_of(
    st.integers(-3, 30),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(max_magnitude=10),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.binary(max_size=4),
)

_DTYPES = [np.uint8, np.int8, np.int16, np.int64, np.uint64, np.float64, np.float32, np.bool_, np.complex128]


@st.composite
def _arrays(draw: st.DrawFn, shapes: st.SearchStrategy[tuple[int, ...]]) -> np.ndarray:
    dtype = draw(st.sampled_from(_DTYPES))
    shape = draw(shapes)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        elements = st.integers(max(info.min, -2), min(info.max, 6))
        return draw(hnp.arrays(dtype, shape, elements=elements))
    return draw(hnp.arrays(dtype, shape))


@st.composite
def _valid_hands(draw: st.DrawFn, sizes: tuple[int, ...] = (13, 14)) -> str:
    """A tile string of 13 or 14 tiles of at most two suits (likely to win or wait) or any."""
    size = draw(st.sampled_from(sizes))
    pool = draw(st.sampled_from([list(range(27)), list(range(18)), list(range(9, 27)), list(range(9))]))
    wall = [k for k in pool for _ in range(4)]
    kinds = draw(st.permutations(wall))[:size]
    return "".join(f"{k % 9 + 1}{'mps'[k // 9]}" for k in kinds)


@st.composite
def _valid_args(draw: st.DrawFn, size: int) -> tuple[str, list[str], Any]:
    """(hand, melds, void) of ``size`` tiles counting melds: mostly well-formed, two suits."""
    pool = draw(st.sampled_from([list(range(18)), list(range(9, 27)), list(range(9)), list(range(27))]))
    n_melds = draw(st.integers(0, 2))
    meld_kinds = draw(st.lists(st.sampled_from(pool), min_size=n_melds, max_size=n_melds, unique=True))
    shapes = ["{0}{0}{0}{1}", "{0}{0}{0}{0}{1}", "({0}{0}{0}{0}{1})"]
    melds = [draw(st.sampled_from(shapes)).format(k % 9 + 1, "mps"[k // 9]) for k in meld_kinds]
    wall = [k for k in pool if k not in meld_kinds for _ in range(4)]
    kinds = draw(st.permutations(wall))[: size - 3 * n_melds]
    hand = "".join(f"{k % 9 + 1}{'mps'[k // 9]}" for k in kinds)
    void = draw(st.sampled_from([None, None, "m", "p", "s", 0, 2, -1]))
    return hand, melds, void


_hands: st.SearchStrategy[Any] = st.one_of(
    _valid_hands(),
    st.text(alphabet="0123456789mpsMPSx () ,一", max_size=20),
    st.text(max_size=10),
    st.lists(st.integers(-1, 28), max_size=28),
    st.lists(st.integers(0, 4), min_size=27, max_size=27),
    st.lists(_scalars, max_size=28),
    _arrays(st.sampled_from([(27,), (26,), (1, 27), (), (28,)])),
    st.binary(min_size=25, max_size=29),
    _scalars,
)

_melds: st.SearchStrategy[Any] = st.one_of(
    st.just(()),
    st.none(),
    st.sampled_from(["111m", "(2222p)", "333s,444s", "666p 7777s", "12m", "(111m)", "x"]),
    st.text(alphabet="0123456789mps(), ", max_size=16),
    st.lists(st.one_of(st.integers(-1, 90), st.sampled_from(["999p", "(5555s)"]), _scalars), max_size=5),
    st.binary(max_size=5),
    _arrays(st.sampled_from([(0,), (1,), (2,)])),
    _scalars,
)

_rules: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(["leshan", "chengdu", None, "nope", "a/b.toml"]),
    st.fixed_dictionaries(
        {},
        optional={
            "preset": st.sampled_from(["leshan", "chengdu", "other", 3]),
            "max_fan": st.one_of(st.integers(-1, 20), st.floats(), st.text(max_size=2)),
            "self_draw_bonus": st.sampled_from(["none", "point", "fan", "both", 1]),
            "fan": st.dictionaries(st.sampled_from(["gen", "terminals", "self_draw", "bogus"]), _scalars, max_size=3),
            "base": _scalars,
        },
    ),
    st.dictionaries(_scalars.filter(lambda k: k is None or isinstance(k, (int, str))), _scalars, max_size=2),
    _scalars,
    st.lists(st.text(max_size=3), max_size=2),
)

_voids: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from([None, "m", "p", "s", "x", "", "none", 0, 1, 2, -1, 3]), _scalars
)


def _outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """(True, result) or (False, exception); only TypeError / ValueError with a message pass."""
    try:
        res = fn(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        assert str(exc), f"{type(exc).__name__} without a message"
        event(f"{fn.__module__}.{fn.__name__}: {type(exc).__name__}")
        return False, exc
    event(f"{fn.__module__}.{fn.__name__}: result")
    return True, res


def _ref_melds(melds: Any) -> list[tuple[int, int]]:
    return [(int(m.type), m.kind) for m in parse_melds(melds)]


# --------------------------------------------------------------------------- single calls


@st.composite
def _wins(draw: st.DrawFn) -> tuple[tuple[bytes, tuple[()], None], int]:
    """A winning hand (as 27 counts) and its winning kind, from ``batch.random_wins``."""
    hands, win = batch.random_wins(1, seed=draw(st.integers(0, 2**32 - 1)))
    return (bytes(hands[0]), (), None), int(win[0])


def _args(size: int) -> st.SearchStrategy[tuple[Any, Any, Any]]:
    return st.one_of(_valid_args(size), st.tuples(_hands, _melds, _voids))


@FUZZ
@given(args=_args(14))
def test_is_win_is_right_or_refuses(args: tuple[Any, Any, Any]) -> None:
    hand, melds, void = args
    ok, res = _outcome(xuezhan.is_win, hand, melds, void=void)
    if ok:
        assert type(res) is bool
        assert res == ref_is_win(list(to_counts(hand)), _ref_melds(melds), parse_void(void))


@FUZZ
@given(args=_args(13))
def test_wait_mask_and_waits_are_right_or_refuse(args: tuple[Any, Any, Any]) -> None:
    hand, melds, void = args
    ok, mask = _outcome(xuezhan.wait_mask, hand, melds, void=void)
    if ok:
        ref = ref_waits(list(to_counts(hand)), _ref_melds(melds), parse_void(void))
        assert mask == sum(1 << k for k in ref)
        ok2, ws = _outcome(xuezhan.waits, hand, melds, void=void)
        assert ok2 and [w.kind for w in ws] == ref


@FUZZ
@given(args=st.one_of(_args(13), _args(14)))
def test_shanten_is_consistent_or_refuses(args: tuple[Any, Any, Any]) -> None:
    hand, melds, void = args
    ok, s = _outcome(xuezhan.shanten, hand, melds, void=void)
    if ok:
        assert type(s) is int and (-1 <= s <= 14 or s == xuezhan.UNREACHABLE)  # void tiles all count
        parts = xuezhan.shanten_parts(hand, melds, void=void)
        assert parts.total == s
        counts = to_counts(hand)
        if sum(counts) + 3 * len(parse_melds(melds)) == 14:
            assert (s == -1) == ref_is_win(list(counts), _ref_melds(melds), parse_void(void))


@FUZZ
@given(
    case=st.one_of(
        _wins(),
        st.tuples(
            _args(14),
            st.one_of(st.none(), st.integers(-2, 30), st.sampled_from(["1m", "5p", "0m", "x"]), _scalars),
        ),
    ),
    context=st.one_of(st.none(), st.integers(0, 127), st.integers(-1, 200), _scalars),
    rules=st.one_of(st.sampled_from(["leshan", "chengdu", None, {"max_fan": 8}]), _rules),
)
def test_fan_is_a_value_of_a_win_or_refuses(case: tuple[tuple[Any, Any, Any], Any], context: Any, rules: Any) -> None:
    (hand, melds, void), win_tile = case
    ok, res = _outcome(xuezhan.fan, hand, melds, win_tile=win_tile, context=context, rules=rules, void=void)
    if ok:
        assert ref_is_win(list(to_counts(hand)), _ref_melds(melds), parse_void(void))
        r = xuezhan.rules.as_rules(rules)
        assert 1 <= res.fan <= r.max_fan and res.points == r.points(res.fan)
        assert set(res.items) <= set(xuezhan.rules.FAN_ITEMS)


@FUZZ
@given(args=_args(14), visible=st.one_of(st.none(), st.none(), _hands))
def test_best_discards_lists_each_kind_or_refuses(args: tuple[Any, Any, Any], visible: Any) -> None:
    hand, melds, void = args
    ok, rows = _outcome(xuezhan.best_discards, hand, melds, visible=visible, void=void)
    if ok:
        held = {k for k, c in enumerate(to_counts(hand)) if c}
        assert {xuezhan.tiles.tile_kind(d.tile) for d in rows} == held


# --------------------------------------------------------------------------- batch


_batch_hands: st.SearchStrategy[Any] = st.one_of(
    st.lists(_valid_hands(), min_size=1, max_size=4).map(batch.from_strings),
    _arrays(st.sampled_from([(0, 27), (1, 27), (3, 27), (2, 26), (27,), (3,), (2, 27, 1)])),
    st.lists(st.one_of(_valid_hands(), st.text(max_size=6)), max_size=3),
    st.lists(st.lists(_scalars, max_size=27), max_size=2),
    _scalars,
)


@FUZZ
@given(
    hands=st.one_of(st.lists(_valid_hands((14,)), min_size=1, max_size=4).map(batch.from_strings), _batch_hands),
    void=st.one_of(st.none(), st.none(), _voids),
    parallel=st.one_of(st.booleans(), st.booleans(), _scalars),
)
def test_batch_is_win_matches_single_calls_or_refuses(hands: Any, void: Any, parallel: Any) -> None:
    ok, res = _outcome(batch.is_win, hands, void=void, parallel=parallel)
    if ok:
        arr = batch.to_array(hands)
        assert res.dtype == np.bool_ and res.shape == (arr.shape[0],)
        v = parse_void(void)
        assert res.tolist() == [ref_is_win(list(row), (), v) for row in arr.tolist()]


@FUZZ
@given(
    hands=_batch_hands, void=st.one_of(st.none(), _voids), parallel=st.one_of(st.booleans(), st.booleans(), _scalars)
)
def test_batch_shanten_and_wait_mask_match_single_calls_or_refuse(hands: Any, void: Any, parallel: Any) -> None:
    for fn, single in ((batch.shanten, xuezhan.shanten), (batch.wait_mask, xuezhan.wait_mask)):
        ok, res = _outcome(fn, hands, void=void, parallel=parallel)
        if ok:
            arr = batch.to_array(hands)
            assert res.tolist() == [single(bytes(row), void=void) for row in arr]


@FUZZ
@given(
    case=st.one_of(
        st.integers(0, 2**32 - 1).map(lambda seed: batch.random_wins(3, seed=seed)),
        st.tuples(
            _batch_hands,
            st.one_of(
                _arrays(st.sampled_from([(1,), (2,), (3,), (1, 1)])),
                st.lists(st.one_of(st.integers(-1, 27), st.sampled_from(["1m", "9s", "z"]), _scalars), max_size=3),
                _scalars,
            ),
        ),
    ),
    context=st.one_of(st.none(), st.integers(-1, 200), _scalars),
    rules=st.one_of(st.sampled_from(["leshan", "chengdu", None]), _rules),
    parallel=st.one_of(st.booleans(), st.booleans(), _scalars),
)
def test_batch_fan_matches_single_calls_or_refuses(
    case: tuple[Any, Any], context: Any, rules: Any, parallel: Any
) -> None:
    hands, win_tiles = case
    ok, res = _outcome(batch.fan, hands, win_tiles, context=context, rules=rules, parallel=parallel)
    if ok:
        arr = batch.to_array(hands)
        assert res.dtype == np.uint8 and res.shape == (arr.shape[0],)
        kinds = [
            xuezhan.tiles.tile_kind(t) for t in (win_tiles.tolist() if isinstance(win_tiles, np.ndarray) else win_tiles)
        ]
        for row, k, got in zip(arr, kinds, res.tolist(), strict=True):
            single = _outcome(xuezhan.fan, bytes(row), win_tile=k, context=context, rules=rules)
            assert got == (single[1].fan if single[0] else 0)
