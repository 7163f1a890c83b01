"""The public single-hand API: input forms, errors, best_discards (R4, R7.3, R11.2)."""

from __future__ import annotations

import numpy as np
import pytest
from _reference import ref_shanten_parts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xuezhan
from xuezhan import (
    Discard,
    ShantenParts,
    TileError,
    Wait,
    WinContext,
    best_discards,
    is_win,
    shanten,
    shanten_parts,
    wait_mask,
    waits,
)
from xuezhan.tiles import Meld, MeldType, parse_tiles, to_counts

WIN = "11122233345m99m3m"


def test_r4_1_hand_forms_agree():
    c = to_counts(WIN)
    forms = [
        WIN,
        WIN.upper(),
        c,
        bytearray(c),
        list(c),
        np.frombuffer(c, dtype=np.uint8),
        parse_tiles(WIN),
        tuple(parse_tiles(WIN)),
    ]
    for f in forms:
        assert is_win(f) is True
        assert shanten(f) == -1
    assert shanten_parts(c) == ShantenParts(-1, -1, 1)


def test_r4_1_meld_forms_agree():
    hand = "55p"
    forms = [
        "222m,444m,666p,(7777p)",
        "222m 444m 666p (7777p)",
        ["222m", "444m", "666p", "(7777p)"],
        [Meld(MeldType.PUNG, 1), Meld(MeldType.PUNG, 3), "666p", Meld(MeldType.CONCEALED_KONG, 15)],
        bytes([1, 3, 14, 54 + 15]),
    ]
    for f in forms:
        assert is_win(hand, f)
        assert xuezhan.fan(hand, f).fan == 4


def test_r11_2_void_forms():
    hand = "234m456m678m345p77p"
    assert is_win(hand, void="s") and is_win(hand, void=2) and is_win(hand, void=None)
    assert not is_win(hand, void="p") and not is_win(hand, void=1) and not is_win(hand, void="M")
    with pytest.raises(TileError, match="not a suit"):
        is_win(hand, void="x")


def test_r11_2_shanten_with_void_counts_void_tiles_against_the_hand():
    # 13 tiles with 3 s tiles: void s means they all go
    assert shanten("123m456p789s1122m", void="s") == 3
    assert shanten("123m456p789s1122m", void="m") > shanten("123m456p789s1122m", void="s")
    assert shanten("123m456p789s1122m") == 3


@pytest.mark.parametrize(
    "call, hand, words",
    [
        (is_win, "123m", ["has 3 tiles", "expected 14"]),
        (shanten, "123m", ["has 3 tiles", "expected 13 or 14"]),
        (waits, WIN, ["has 14 tiles", "expected 13"]),
        (wait_mask, WIN, ["has 14 tiles", "expected 13"]),
        (best_discards, "11122233345m99m", ["has 13 tiles", "expected 14"]),
        (is_win, "1m2x", ['"1m2x" is not a tile', "'x' is not a suit"]),
        (is_win, "11111m222333m44m", ['"11111m222333m44m" has five 1m']),
    ],
)
def test_r0_errors_name_the_input(call, hand, words):
    with pytest.raises(TileError) as exc:
        call(hand)
    for w in words:
        assert w in str(exc.value)


def test_r0_bytes_fast_path_errors_are_the_same():
    with pytest.raises(TileError, match="has 3 tiles"):
        is_win(to_counts("123m"))
    with pytest.raises(TileError, match="expected 13 or 14"):
        shanten(to_counts("123m"))
    with pytest.raises(TileError, match="expected 13"):
        waits(to_counts(WIN))
    with pytest.raises(TileError):
        is_win(bytes([5] + [0] * 26))
    with pytest.raises(TileError, match="27 entries"):
        is_win(b"\x01" * 14)


def test_r1_1_fifth_copy_across_melds_is_an_error():
    with pytest.raises(TileError, match="five 2m"):
        is_win("2m345m456p789p5p", "(2222m)")


def test_r7_3_waits_types_and_order():
    ws = waits("1112345678999m")  # nine gates: every 1m-9m
    assert [w.tile for w in ws] == [f"{r}m" for r in range(1, 10)]
    assert all(isinstance(w, Wait) for w in ws)
    assert [w.kind for w in ws] == sorted(w.kind for w in ws)
    assert wait_mask("1112345678999m") == 0b111111111


def test_r7_3_waits_rules_forms():
    hand = "11122233345m99m"
    base = waits(hand)
    assert waits(hand, rules="leshan") == base == waits(hand, rules=xuezhan.Rules.preset("leshan"))
    assert waits(hand, rules={"preset": "leshan"}) == base
    assert [w.fan for w in waits(hand, rules={"max_fan": 3})] == [3, 3, 3]
    with pytest.raises(xuezhan.RulesError, match="unknown preset"):
        waits(hand, rules="tokyo")


def test_r5_win_context_flags():
    assert WinContext().flags == 0
    assert WinContext(discarder_pays=True).flags == 64
    for f in range(128):
        assert WinContext.from_flags(f).flags == f
    with pytest.raises(ValueError):
        WinContext.from_flags(128)
    assert WinContext(self_draw=np.bool_(True), last_tile=1).flags == 0b10001
    with pytest.raises(ValueError, match="kong_draw"):
        WinContext(kong_draw="yes")
    with pytest.raises(ValueError, match="not a win context"):
        xuezhan.fan(WIN, context=300)


def _brute_best_discards(hand, visible: bytes, melds=()) -> dict[str, tuple[int, int]]:
    """Discard each kind, shanten by the reference, ukeire by trying every draw (internals.md:
    unseen copies max(0, 4 - hand_after - visible) of each kind whose draw lowers the shanten)."""
    c = list(to_counts(hand))
    mc = [0] * 27
    for t, k in melds:
        mc[k] += 3 if t == 0 else 4
    out = {}
    for k in range(27):
        if not c[k]:
            continue
        after = c.copy()
        after[k] -= 1
        s = ref_shanten_parts(after, melds)[0]
        uke = 0
        for t in range(27):
            if after[t] + mc[t] >= 4:
                continue
            drawn = after.copy()
            drawn[t] += 1
            if ref_shanten_parts(drawn, melds)[0] < s:
                uke += max(0, 4 - after[t] - visible[t])
        out[xuezhan.tiles.tile_str(k)] = (min(s, 99), uke)
    return out


@pytest.mark.parametrize("hand", ["1112345678999m5p", "123m456p789s1122m3m", "11223344556677m", "1234m5678p2468s99m"])
def test_best_discards_match_brute_force(hand):
    visible = to_counts("1m5p9m")
    got = best_discards(hand, visible="1m5p9m")
    assert {d.tile: (d.shanten, d.ukeire) for d in got} == _brute_best_discards(hand, visible)
    # sorted best first
    keys = [(d.shanten, -d.ukeire) for d in got]
    assert keys == sorted(keys)
    assert all(isinstance(d, Discard) for d in got)
    # visible as counts gives the same
    assert best_discards(hand, visible=visible) == got


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 17), min_size=14, max_size=14).filter(lambda ks: all(ks.count(k) <= 4 for k in ks)))
def test_r4_public_api_agrees_with_reference(kinds):
    c = list(to_counts(kinds))
    assert shanten_parts(kinds) == ShantenParts(*ref_shanten_parts(c))
    c13 = to_counts(kinds[:13])
    assert shanten_parts(c13) == ShantenParts(*ref_shanten_parts(list(c13)))


def test_r4_2_melds_in_three_suits_are_unreachable():
    assert shanten("55m23p", "111m,222p,333s") == xuezhan.UNREACHABLE
    assert shanten_parts("55m23p", "111m,222p,333s").standard == xuezhan.UNREACHABLE
    assert not is_win("55m234p", "111m,222p,333s")
    assert waits("55m2p3p", "111m,222p,333s") == [] and wait_mask("55m2p3p", "111m,222p,333s") == 0
    # R11.2: a meld in the declared void suit
    assert shanten("55m23p", "111m,222p,333p", void="p") == xuezhan.UNREACHABLE


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.large_base_example, HealthCheck.too_slow])
@given(st.data())
def test_best_discards_with_melds_and_visible_match_brute_force(data):
    n_melds = data.draw(st.integers(0, 2))
    suits = data.draw(st.lists(st.integers(0, 2), min_size=2, max_size=2, unique=True))
    kinds = [9 * s + r for s in suits for r in range(9)]
    melds = tuple(
        (data.draw(st.integers(0, 2)), k)
        for k in data.draw(st.lists(st.sampled_from(kinds), min_size=n_melds, max_size=n_melds, unique=True))
    )
    mc = [0] * 27
    for t, k in melds:
        mc[k] += 3 if t == 0 else 4
    hand: list[int] = []
    while len(hand) < 14 - 3 * n_melds:
        k = data.draw(st.sampled_from(kinds))
        if hand.count(k) + mc[k] < 4:
            hand.append(k)
    counts = to_counts(hand)
    # visible: the melds plus some random discards, never more than the unseen copies
    vis = [min(mc[k] + data.draw(st.integers(0, 2)), 4 - counts[k]) for k in range(27)]
    got = best_discards(counts, [Meld(MeldType(t), k) for t, k in melds], visible=bytes(vis))
    ref = _brute_best_discards(counts, bytes(vis), melds)
    got_map = {d.tile: (min(d.shanten, 99), d.ukeire) for d in got}
    assert got_map == ref, (xuezhan.format_tiles(counts), melds)
