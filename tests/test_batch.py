"""Batch API (numpy) against single calls, parallel against serial (R4, R5, R7.3)."""

from __future__ import annotations

import numpy as np
import pytest

import xuezhan
from xuezhan import batch
from xuezhan.evaluate import WinContext

N = 3000


@pytest.fixture(scope="module")
def hands13():
    return np.concatenate(
        [
            batch.random_hands(N, 13, seed=1),
            batch.random_hands(N, 13, suits=2, seed=2),
            _minus_one(batch.random_wins(N, seed=3)[0]),
        ]
    )


@pytest.fixture(scope="module")
def hands14():
    return np.concatenate(
        [batch.random_hands(N, 14, seed=4), batch.random_hands(N, 14, suits=1, seed=5), batch.random_wins(N, seed=6)[0]]
    )


def _minus_one(wins):
    rng = np.random.default_rng(0)
    out = wins.copy()
    for row in out:
        row[rng.choice(np.flatnonzero(row))] -= 1
    return out


@pytest.mark.parametrize("void", [None, "m", 2])
def test_r4_batch_is_win_and_shanten_match_single_calls(hands13, hands14, void):
    for parallel in (False, True):
        w = batch.is_win(hands14, void=void, parallel=parallel)
        s13 = batch.shanten(hands13, void=void, parallel=parallel)
        s14 = batch.shanten(hands14, void=void, parallel=parallel)
        assert w.dtype == np.bool_ and s13.dtype == np.int8 and w.shape == (len(hands14),)
        assert w.tolist() == [xuezhan.is_win(bytes(r), void=void) for r in hands14]
        assert s13.tolist() == [xuezhan.shanten(bytes(r), void=void) for r in hands13]
        assert s14.tolist() == [xuezhan.shanten(bytes(r), void=void) for r in hands14]
    assert w.any() and not w.all()


def test_r7_3_batch_wait_mask_matches_waits(hands13):
    for parallel in (False, True):
        m = batch.wait_mask(hands13, parallel=parallel)
        assert m.dtype == np.uint32
        assert [batch.mask_to_kinds(x) for x in m] == [[w.kind for w in xuezhan.waits(bytes(r))] for r in hands13]
    assert (m != 0).sum() > N // 2


@pytest.mark.parametrize("rules", ["leshan", "chengdu", {"self_draw_bonus": "fan", "max_fan": 8}])
def test_r5_batch_fan_matches_single_calls(hands14, rules):
    rng = np.random.default_rng(9)
    kinds = np.array([rng.choice(np.flatnonzero(r)) for r in hands14], dtype=np.uint8)
    ctx = WinContext(self_draw=True, last_tile=True)
    for parallel in (False, True):
        f = batch.fan(hands14, kinds, context=ctx, rules=rules, parallel=parallel)
        assert f.dtype == np.uint8
        expect = []
        for r, k in zip(hands14, kinds, strict=True):
            try:
                expect.append(xuezhan.fan(bytes(r), win_tile=int(k), context=ctx, rules=rules).fan)
            except xuezhan.NotAWinError:
                expect.append(0)
        assert f.tolist() == expect
    assert (f > 0).sum() >= N
    # win tiles as strings, context as flags
    assert (
        batch.fan(
            hands14[:50], [xuezhan.tiles.tile_str(int(k)) for k in kinds[:50]], context=ctx.flags, rules=rules
        ).tolist()
        == f[:50].tolist()
    )


def test_batch_array_helpers():
    a = batch.from_strings(["11122233345m99m", "123m456p789s1122m"])
    assert a.shape == (2, 27) and a.dtype == np.uint8 and a.flags.c_contiguous
    assert batch.to_strings(a) == ["1112223334599m", "1112223m456p789s"]
    assert batch.from_strings([]).shape == (0, 27)
    assert batch.shanten(batch.from_strings([])).shape == (0,)
    # non-contiguous, other dtypes and a single row are accepted
    big = np.zeros((4, 54), dtype=np.int64)
    big[:, ::2] = np.repeat(a[:1], 4, axis=0)
    assert batch.shanten(big[:, ::2]).tolist() == [0] * 4
    assert batch.shanten(a[0]).tolist() == [0]
    with pytest.raises(xuezhan.TileError, match="shape"):
        batch.shanten(np.zeros((2, 26), dtype=np.uint8))
    with pytest.raises(xuezhan.TileError, match="0-4"):
        batch.shanten(np.full((1, 27), 7, dtype=np.int64))
    with pytest.raises(xuezhan.TileError):
        batch.is_win(a)  # 13-tile rows: the core names the row
    with pytest.raises(xuezhan.TileError, match="one entry per hand"):
        batch.fan(a, [0])
    with pytest.raises(xuezhan.TileError, match="0-26"):
        batch.fan(a, np.array([0, 256 + 2]))


def test_batch_random_generators_are_seeded_and_legal():
    a = batch.random_hands(500, 13, seed=5)
    assert (a == batch.random_hands(500, 13, seed=5)).all()
    assert not (a == batch.random_hands(500, 13, seed=6)).all()
    assert (a.sum(1) == 13).all() and a.max() <= 4
    assert batch.random_hands(100, 14, suits=1, seed=1)[:, 9:].sum() == 0
    w, k = batch.random_wins(300, seed=2)
    assert batch.is_win(w).all() and (w[np.arange(300), k] > 0).all()
    assert ((w > 0).reshape(-1, 3, 9).any(2).sum(1) <= 2).all()


def test_batch_calls_from_several_threads_agree():
    import threading

    a = batch.random_hands(20000, 13, seed=8)
    expected = batch.shanten(a)
    results = [None] * 4

    def work(i):
        results[i] = batch.shanten(a)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all((r == expected).all() for r in results)
