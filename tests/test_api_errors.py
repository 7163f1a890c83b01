"""The evaluator API refuses input of the wrong type or value with one clear error naming the
argument (docs/evaluator.md, "Errors"), in single calls and in ``xuezhan.batch`` alike: nothing
is truncated (a row holding 0.9 of a tile is not "a win"), nothing passes as a count that is not
an integer."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import xuezhan
from xuezhan import _core, batch
from xuezhan.rules import RulesError, RulesTypeError
from xuezhan.tiles import TileError, TileTypeError

WIN = "11122233345m99m3m"  # 14 tiles, a win
ROW = batch.from_strings([WIN])[0]


# --------------------------------------------------------------------------- single calls


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.bool_])
def test_single_call_refuses_non_integer_count_arrays(dtype: type) -> None:
    with pytest.raises(TypeError, match="hand: counts must be integers"):
        xuezhan.is_win(ROW.astype(dtype))
    with pytest.raises(TileTypeError):
        xuezhan.shanten(ROW.astype(dtype))


def test_single_call_refuses_a_row_of_fractional_tiles() -> None:
    # 0.9 of each tile: truncation would read it as an empty hand, rounding as a win
    with pytest.raises(TypeError, match="hand"):
        xuezhan.is_win(ROW * 0.9)


@pytest.mark.parametrize("bad", [float("nan"), 1.0, 0.5, 1 + 0j, True])
def test_single_call_refuses_non_integer_counts_in_a_list(bad: object) -> None:
    counts = [int(x) for x in ROW]
    counts[0] = bad  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="hand: count .* of 1m is not an integer"):
        xuezhan.is_win(counts)


@pytest.mark.parametrize("bad", [2.7, float("nan"), True, 1 + 0j, [3]])
def test_fan_refuses_a_non_integer_win_tile(bad: object) -> None:
    with pytest.raises(TypeError, match="win_tile"):
        xuezhan.fan(bytes(ROW), win_tile=bad)  # type: ignore[arg-type]


def test_single_call_refuses_float_kinds() -> None:
    with pytest.raises(TileTypeError, match="hand"):
        xuezhan.shanten([0, 1, 2.0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])


def test_best_discards_names_visible() -> None:
    with pytest.raises(TypeError, match="visible"):
        xuezhan.best_discards(WIN, visible=np.zeros(27))


@pytest.mark.parametrize("melds", [5, 1.5, {"666p": 1}, [1.5], [None], object()])
def test_melds_of_the_wrong_type_are_a_type_error(melds: object) -> None:
    with pytest.raises(TypeError, match="meld"):
        xuezhan.is_win("11m", melds=melds)  # type: ignore[arg-type]


def test_melds_as_a_numpy_array_of_codes_are_read_not_asked_for_truth() -> None:
    codes = np.array([27 * 2 + 9 + 1, 9 + 2, 9 + 3, 9 + 4])  # (2222p) 333p 444p 555p
    assert xuezhan.is_win("11m", melds=codes)
    assert xuezhan.is_win(bytes(ROW), melds=np.array([], dtype=np.int64))  # empty: no truth-value error
    with pytest.raises(TileError, match="expected 14"):
        xuezhan.is_win(bytes(ROW), melds=np.array([0]))


@pytest.mark.parametrize("rules", [5, 1.5, ["leshan"], object(), b"leshan"])
def test_rules_of_the_wrong_type_are_a_type_error(rules: object) -> None:
    with pytest.raises(RulesTypeError, match="rules"):
        xuezhan.waits("11122233345m99m", rules=rules)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        batch.fan(ROW[None], [2], rules=rules)  # type: ignore[arg-type]


def test_rules_with_non_string_field_names_are_refused() -> None:
    with pytest.raises(RulesTypeError, match="field names"):
        xuezhan.fan(WIN, rules={1: 2})  # type: ignore[dict-item]


@pytest.mark.parametrize("void", [1.0, [1], b"m", True])
def test_void_of_the_wrong_type_is_a_type_error(void: object) -> None:
    with pytest.raises(TypeError, match="void"):
        xuezhan.is_win(bytes(ROW), void=void)  # type: ignore[arg-type]


def test_errors_stay_in_the_value_error_family() -> None:
    # TileTypeError / RulesTypeError are TypeErrors and still TileError / RulesError (ValueError)
    with pytest.raises(TileError):
        xuezhan.is_win(ROW.astype(float))
    with pytest.raises(RulesError):
        xuezhan.fan(WIN, rules=3)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- batch


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.complex64, np.bool_])
def test_batch_refuses_float_counts(dtype: type) -> None:
    hands = np.stack([ROW, ROW]).astype(dtype)
    for fn in (batch.is_win, batch.shanten):
        with pytest.raises(TypeError, match="hands: counts must be integers"):
            fn(hands)
    with pytest.raises(TypeError, match="hands"):
        batch.fan(hands, [2, 2])


def test_batch_refuses_a_row_holding_point_nine_of_a_tile() -> None:
    hands = np.zeros((1, 27))
    hands[0, :14] = 0.9
    with pytest.raises(TypeError):
        batch.is_win(hands)


def test_batch_refuses_bool_arrays_as_counts() -> None:
    with pytest.raises(TileTypeError, match="bool"):
        batch.wait_mask(np.ones((3, 27), dtype=bool))


def test_batch_integer_arrays_of_other_dtypes_are_range_checked() -> None:
    assert batch.is_win(np.stack([ROW]).astype(np.int64)).tolist() == [True]
    bad = np.stack([ROW]).astype(np.int16)
    bad[0, 0] = -1
    with pytest.raises(TileError, match="0-4"):
        batch.is_win(bad)


@pytest.mark.parametrize("win_tiles", [np.array([np.nan]), np.array([2.7]), np.array([2.0]), np.array([True])])
def test_batch_fan_refuses_non_integer_win_tile_arrays(win_tiles: np.ndarray) -> None:
    with pytest.raises(TypeError, match="win_tiles must be integer tile kinds"):
        batch.fan(ROW[None], win_tiles)


@pytest.mark.parametrize("bad", [2.7, float("nan"), True])
def test_batch_fan_refuses_non_integer_win_tiles_in_a_list(bad: object) -> None:
    with pytest.raises(TypeError, match=r"win_tiles\[0\]"):
        batch.fan(ROW[None], [bad])  # type: ignore[list-item]


@pytest.mark.parametrize("parallel", [1, 0, "yes", None, 1.0])
def test_batch_parallel_must_be_a_bool(parallel: object) -> None:
    with pytest.raises(TypeError, match="parallel must be True or False"):
        batch.is_win(ROW[None], parallel=parallel)  # type: ignore[arg-type]
    assert batch.is_win(ROW[None], parallel=np.True_).tolist() == [True]


@pytest.mark.parametrize("hands", [5, 1.5, "11122233345m99m3m", None])
def test_batch_hands_of_the_wrong_type_are_a_type_error(hands: object) -> None:
    with pytest.raises(TypeError, match="hands"):
        batch.is_win(hands)  # type: ignore[arg-type]


def test_core_batch_refuses_wrong_dtypes_with_type_error() -> None:
    # the raw binding too: a type error is a TypeError, a wrong shape a ValueError
    with pytest.raises(TypeError, match="dtype uint8"):
        _core.batch_is_win(np.zeros((1, 27), dtype=np.float64))
    with pytest.raises(TypeError, match="numpy array"):
        _core.batch_is_win([[0] * 27])
    with pytest.raises(ValueError, match="shape"):
        _core.batch_is_win(np.zeros((1, 26), dtype=np.uint8))
    with pytest.raises(TypeError, match="win_kinds must have dtype"):
        _core.batch_fan(batch.from_strings([WIN]), np.array([2.0]), 0, xuezhan.Rules.preset("leshan").core)


# --------------------------------------------------------------------------- random_hands


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n": 2.5}, TypeError),
        ({"n": -1}, ValueError),
        ({"n": 3, "size": 1.0}, TypeError),
        ({"n": 3, "suits": 4}, ValueError),
    ],
)
def test_random_hands_refuses_bad_arguments(kwargs: dict[str, object], error: type) -> None:
    with pytest.raises(error):
        batch.random_hands(**kwargs)  # type: ignore[arg-type]


def _random_hands_one_shot(n: int, size: int, suits: int, seed: int) -> np.ndarray:
    """The generator drawn in one (n, wall) step: the definition the chunked one must match."""
    rng = np.random.default_rng(seed)
    wall = np.repeat(np.arange(9 * suits), 4)
    keys = rng.random((n, wall.size))
    idx = np.argpartition(keys, size - 1, axis=1)[:, :size] if size < wall.size else np.argsort(keys, axis=1)
    out = np.zeros((n, 27), dtype=np.uint8)
    np.add.at(out, (np.repeat(np.arange(n), size), wall[idx].ravel()), 1)
    return out


@pytest.mark.parametrize(("size", "suits"), [(13, 3), (14, 2), (36, 1)])
def test_random_hands_chunks_do_not_change_the_hands(monkeypatch: pytest.MonkeyPatch, size: int, suits: int) -> None:
    expected = _random_hands_one_shot(1000, size, suits, 7)
    assert (batch.random_hands(1000, size, suits=suits, seed=7) == expected).all()
    monkeypatch.setattr(batch, "_SCRATCH_BYTES", 16 * 108 * 37)  # chunks of 37 rows (or fewer)
    assert (batch.random_hands(1000, size, suits=suits, seed=7) == expected).all()


def test_random_hands_memory_is_proportional_to_the_output() -> None:
    batch.random_hands(10)  # warm up
    tracemalloc.start()
    try:
        out = batch.random_hands(100_000, 13, seed=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # output 2.7 MB + a fixed scratch of ~8 MB (one (n, 108) float draw would be 86 MB)
    assert peak < out.nbytes + 24 * 2**20
