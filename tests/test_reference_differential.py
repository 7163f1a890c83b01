"""The core against the independent reference of ``_reference.py`` (R4.1, R4.2, R7.3, R11.2).

Exhaustive over every hand of small alphabets (one, two and three suits), then hypothesis over
the whole tile set with melds and void suits, and the literal BFS definition of shanten on
small cases.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from _reference import (
    meld_counts,
    ref_is_win,
    ref_shanten_bfs,
    ref_shanten_parts,
    ref_waits,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xuezhan
from xuezhan import _core, batch
from xuezhan.tiles import tile_kind


def _kinds(spec: str) -> list[int]:
    return [tile_kind(f"{d}{spec[-1]}") for d in spec[:-1]]


ALPHABETS_8 = {
    "one_suit": _kinds("12345678m"),
    "two_suits": _kinds("2345m") + _kinds("4567s"),
    "three_suits": _kinds("123m") + _kinds("456p") + _kinds("78s"),
}
ALPHABETS_7 = {
    "one_suit": _kinds("234567m"),  # six kinds: one suit has the most distinct configurations
    "two_suits": _kinds("1234m") + _kinds("789p"),
    "three_suits": _kinds("123m") + _kinds("56p") + _kinds("89s"),
}


def all_hands(kinds: list[int], n: int) -> np.ndarray:
    """Every multiset of ``n`` tiles over ``kinds`` (at most four of each), as (N, 27) counts."""
    rows: list[list[int]] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if i == len(kinds) - 1:
            if left <= 4:
                rows.append(acc + [left])
            return
        for c in range(min(4, left) + 1):
            rec(i + 1, left - c, acc + [c])

    rec(0, n, [])
    out = np.zeros((len(rows), 27), dtype=np.uint8)
    out[:, kinds] = np.array(rows, dtype=np.uint8)
    return out


@cache
def _parts(row: bytes, melds: tuple = (), void: int = -1) -> tuple:
    return ref_shanten_parts(list(row), melds, void)


# ------------------------------------------------------------------ exhaustive, small alphabets


@pytest.mark.parametrize("alphabet", list(ALPHABETS_8))
def test_r4_1_r4_2_is_win_exhaustive_small_alphabet(alphabet):
    hands = all_hands(ALPHABETS_8[alphabet], 14)
    ours = batch.is_win(hands)
    ref = np.array([ref_is_win(list(r)) for r in hands])
    bad = np.flatnonzero(ours != ref)
    assert bad.size == 0, [(xuezhan.format_tiles(bytes(hands[i])), bool(ours[i])) for i in bad[:10]]
    if alphabet == "three_suits":
        # R4.2: a hand holding all three suits never wins
        three = (hands[:, :9].sum(1) > 0) & (hands[:, 9:18].sum(1) > 0) & (hands[:, 18:].sum(1) > 0)
        assert three.any() and not ours[three].any()
    assert ours.any()


@pytest.mark.parametrize("size", [13, 14])
@pytest.mark.parametrize("alphabet", list(ALPHABETS_7))
def test_r4_shanten_exhaustive_small_alphabet(alphabet, size):
    hands = all_hands(ALPHABETS_7[alphabet], size)
    ours_total = batch.shanten(hands)
    mism = []
    for i, row in enumerate(hands):
        b = bytes(row)
        ref = _parts(b)
        got = _core.shanten_parts(b)
        if got != ref or ours_total[i] != ref[0]:
            mism.append((xuezhan.format_tiles(b), got, int(ours_total[i]), ref))
    assert not mism, mism[:10]


@pytest.mark.parametrize("alphabet", list(ALPHABETS_7))
def test_r7_3_waits_exhaustive_small_alphabet(alphabet):
    hands = all_hands(ALPHABETS_7[alphabet], 13)
    masks = batch.wait_mask(hands)
    ready = 0
    for i, row in enumerate(hands):
        b = bytes(row)
        if _parts(b)[0] > 0:  # not ready: no tile completes it
            assert masks[i] == 0, xuezhan.format_tiles(b)
            continue
        ready += 1
        ref = ref_waits(list(row))
        assert batch.mask_to_kinds(masks[i]) == ref, xuezhan.format_tiles(b)
        assert [w.kind for w in xuezhan.waits(b)] == ref
    assert ready > 50


def test_r11_2_void_exhaustive_small_alphabet():
    hands = all_hands(ALPHABETS_7["three_suits"], 14)[::7]
    for void in range(3):
        wins = batch.is_win(hands, void=void)
        sh = batch.shanten(hands, void=void)
        for i, row in enumerate(hands):
            b = bytes(row)
            assert wins[i] == ref_is_win(list(row), (), void), (xuezhan.format_tiles(b), void)
            assert sh[i] == _parts(b, (), void)[0], (xuezhan.format_tiles(b), void)


# ------------------------------------------------------------------ hypothesis, whole tile set


@st.composite
def hands_with_melds(draw, size: int, suits: int = 3) -> tuple[bytes, tuple[tuple[int, int], ...], int]:
    """A random legal hand: 0-4 melds, the rest concealed, no kind over four, optionally a void."""
    n_melds = draw(st.integers(0, 4))
    top = 9 * suits
    melds = []
    used = [0] * 27
    for _ in range(n_melds):
        t = draw(st.integers(0, 2))
        k = draw(st.integers(0, top - 1))
        need = 3 if t == 0 else 4
        if used[k] + need > 4:
            continue
        used[k] += need
        melds.append((t, k))
    n = size - 3 * len(melds)
    # concealed tiles: biased towards near-complete hands by drawing runs/triplets sometimes
    counts = [0] * 27
    while sum(counts) < n:
        if draw(st.booleans()) and n - sum(counts) >= 3:
            k = draw(st.integers(0, top - 1))
            if draw(st.booleans()) and k % 9 <= 6:
                block = [k, k + 1, k + 2]
            else:
                block = [k, k, k]
        else:
            block = [draw(st.integers(0, top - 1))]
        if all(counts[b] + used[b] + block.count(b) <= 4 for b in block):
            for b in block:
                counts[b] += 1
    void = draw(st.sampled_from([-1, -1, 0, 1, 2]))
    return bytes(counts), tuple(melds), void


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large],
)
@given(hands_with_melds(14))
def test_r4_1_r4_2_is_win_and_shanten14_match_reference(hand):
    counts, melds, void = hand
    codes = bytes(t * 27 + k for t, k in melds)
    assert _core.is_win(counts, codes, void) == ref_is_win(list(counts), melds, void)
    ref = ref_shanten_parts(list(counts), melds, void)
    got = _core.shanten_parts(counts, codes, void)
    if ref[0] >= 99:  # no win reachable (melds in three suits or in the void suit)
        assert got[0] == _core.UNREACHABLE
    else:
        assert got == ref


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large],
)
@given(hands_with_melds(13))
def test_r7_3_waits_and_shanten13_match_reference(hand):
    counts, melds, void = hand
    codes = bytes(t * 27 + k for t, k in melds)
    ref = ref_shanten_parts(list(counts), melds, void)
    got = _core.shanten_parts(counts, codes, void)
    if ref[0] >= 99:
        assert got[0] == _core.UNREACHABLE
    else:
        assert got == ref
    ref_w = ref_waits(list(counts), melds, void)
    assert batch.mask_to_kinds(_core.wait_mask(counts, codes, void)) == ref_w
    assert [w.kind for w in xuezhan.waits(counts, [xuezhan.tiles.Meld(t, k) for t, k in melds], void=void)] == ref_w
    assert (ref[0] == 0) == bool(ref_w)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large],
)
@given(hands_with_melds(13, suits=2))
def test_r7_3_ready_iff_some_wait(hand):
    counts, melds, void = hand
    codes = bytes(t * 27 + k for t, k in melds)
    s = _core.shanten(counts, codes, void)
    assert (s == 0) == (_core.wait_mask(counts, codes, void) != 0)


# ------------------------------------------------------------------ the literal definition (BFS)


def test_r4_shanten_equals_fewest_swaps_bfs():
    """On hands with 3 melds (4-5 concealed tiles) and near-complete full hands, the shanten is
    exactly the fewest tile swaps to a ready/complete hand found by breadth-first search."""
    rng = np.random.default_rng(7)
    checked = 0
    wins, _ = batch.random_wins(60, seed=11)
    cases = []
    # near-complete 14-tile hands: a win with one tile swapped
    for row in wins:
        c = row.astype(int)
        out = rng.choice(np.flatnonzero(c))
        inn = rng.integers(27)
        if c[inn] >= 4 or inn == out:
            continue
        c[out] -= 1
        c[inn] += 1
        cases.append((c.tolist(), (), 1))  # one swap from a win: depth 1 always finds it
    # 3 melds + 5 or 4 concealed tiles, random
    for _ in range(150):
        kinds = rng.choice(27, size=3, replace=False)
        melds = tuple((int(rng.integers(3)), int(k)) for k in kinds)
        mc = meld_counts(melds)
        c = [0] * 27
        n = 5 if rng.random() < 0.5 else 4
        while sum(c) < n:
            k = int(rng.integers(27))
            if c[k] + mc[k] < 4:
                c[k] += 1
        cases.append((c, melds, 2 if n == 5 else 1))  # 13 tiles: depth 1 per draw (27 draws)
    for c, melds, depth in cases:
        codes = bytes(t * 27 + k for t, k in melds)
        got = _core.shanten(bytes(c), codes)
        if got == _core.UNREACHABLE:
            assert ref_shanten_parts(c, melds)[0] >= 99
            continue
        bfs = ref_shanten_bfs(c, melds, max_depth=depth)
        if bfs is None:  # deeper than the search: the shanten must say so too
            assert got >= depth + (0 if sum(c) + 3 * len(melds) == 14 else 1)
        else:
            assert got == bfs, (xuezhan.format_tiles(bytes(c)), melds)
            checked += 1
    assert checked > 80  # exact matches; the rest are checked against the search depth bound
