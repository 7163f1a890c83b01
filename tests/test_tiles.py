"""R0 notation: parsing, canonical formatting, Chinese names, counts, melds, and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from xuezhan.tiles import (
    Meld,
    MeldType,
    TileError,
    check_size,
    chinese_name,
    counts_to_kinds,
    format_melds,
    format_tiles,
    parse_meld,
    parse_melds,
    parse_tiles,
    parse_void,
    tile_kind,
    tile_str,
    to_counts,
)


def test_r0_kind_indices():
    assert [tile_kind(f"{r}m") for r in range(1, 10)] == list(range(0, 9))
    assert [tile_kind(f"{r}p") for r in range(1, 10)] == list(range(9, 18))
    assert [tile_kind(f"{r}s") for r in range(1, 10)] == list(range(18, 27))
    assert [tile_str(k) for k in range(27)] == [f"{r}{s}" for s in "mps" for r in range(1, 10)]


def test_r0_run_of_digits_shares_following_suit():
    assert parse_tiles("123m55p") == [0, 1, 2, 13, 13]
    assert parse_tiles("1m2m3m5p5p") == [0, 1, 2, 13, 13]


def test_r0_upper_case_and_spaces_accepted():
    assert parse_tiles(" 123M 5 5P ") == parse_tiles("123m55p")
    assert tile_kind("9S") == 26


def test_r0_canonical_output_sorted_m_p_s():
    assert format_tiles("9s1p55p321m") == "123m155p9s"
    assert format_tiles([26, 0]) == "1m9s"
    assert format_tiles(to_counts("5p5m")) == "5m5p"
    assert format_tiles("") == ""


def test_r0_chinese_names():
    assert [chinese_name(k) for k in range(9)] == [
        "一万",
        "二万",
        "三万",
        "四万",
        "五万",
        "六万",
        "七万",
        "八万",
        "九万",
    ]
    assert [chinese_name(k) for k in range(9, 18)] == [
        "一筒",
        "二筒",
        "三筒",
        "四筒",
        "五筒",
        "六筒",
        "七筒",
        "八筒",
        "九筒",
    ]
    assert [chinese_name(k) for k in range(18, 27)] == [
        "一条",
        "二条",
        "三条",
        "四条",
        "五条",
        "六条",
        "七条",
        "八条",
        "九条",
    ]
    assert chinese_name("5p") == "五筒"


@pytest.mark.parametrize(
    "text, message",
    [
        ("1m2x", "\"1m2x\" is not a tile: 'x' is not a suit"),
        ("0m", '"0m" is not a tile: 0 is not a rank'),
        ("1203m", '"1203m" is not a tile: 0 is not a rank'),
        ("123m45", "\"123m45\" is not a tile: the digits '45' at the end have no suit letter"),
        ("m1", "\"m1\" is not a tile: the suit letter 'm' has no digits before it"),
        ("11111m", '"11111m" has five 1m'),
        ("1111m1m", '"1111m1m" has five 1m'),
        ("5z", "'z' is not a suit"),
    ],
)
def test_r0_parse_errors_name_the_input(text, message):
    with pytest.raises(TileError) as exc:
        parse_tiles(text)
    assert message in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_r0_tile_kind_accepts_numpy_integers():
    assert tile_kind(np.uint8(13)) == 13 and tile_kind(np.int64(0)) == 0
    with pytest.raises(TileError):
        tile_kind(np.int64(27))


def test_r1_1_tile_kind_rejects_bad_values():
    for bad in (27, -1, True, "12m", 1.5):
        with pytest.raises(TileError):
            tile_kind(bad)


def test_r0_counts_forms_agree():
    s = "1123m456p99s"
    c = to_counts(s)
    assert len(c) == 27 and c[0] == 2 and c[26] == 2
    assert to_counts(parse_tiles(s)) == c
    assert to_counts(np.frombuffer(c, dtype=np.uint8)) == c
    assert to_counts(list(c)) == c
    assert to_counts(bytearray(c)) == c
    assert to_counts(["1m", "1m", "2m", "3m", "4p", "5p", "6p", "9s", "9s"]) == c
    assert counts_to_kinds(c) == sorted(parse_tiles(s))


def test_r0_counts_errors():
    with pytest.raises(TileError, match="27 entries, got 3"):
        to_counts(b"\x01\x02\x03")
    with pytest.raises(TileError, match="count 5 of 1m is not 0-4"):
        to_counts(bytes([5] + [0] * 26))
    with pytest.raises(TileError, match="shape"):
        to_counts(np.zeros((2, 27), dtype=np.uint8))
    with pytest.raises(TileError, match="five 1m"):
        to_counts([0, 0, 0, 0, 0])


def test_r2_3_meld_notation():
    assert parse_meld("666p") == Meld(MeldType.PUNG, 14)
    assert parse_meld("7777s") == Meld(MeldType.KONG, 24)
    assert parse_meld("(7777s)") == Meld(MeldType.CONCEALED_KONG, 24)
    assert parse_meld("666P").code == 14
    assert parse_meld("7777s").code == 27 + 24
    assert parse_meld("(7777s)").code == 54 + 24
    for m in ("666p", "7777s", "(7777s)"):
        assert str(parse_meld(m)) == m
        assert Meld.from_code(parse_meld(m).code) == parse_meld(m)
    assert parse_melds("666p,(7777s)") == (parse_meld("666p"), parse_meld("(7777s)"))
    assert parse_melds("666p (7777s)") == parse_melds(["666p", "(7777s)"])
    assert parse_melds(bytes([14, 78])) == parse_melds("666p,(7777s)")
    assert format_melds(parse_melds("(7777s),666p")) == "(7777s),666p"


@pytest.mark.parametrize("bad", ["66p", "667p", "(666p)", "66666p", "6x", "((7777s))", "7777s)"])
def test_r2_3_meld_errors_name_the_meld(bad):
    with pytest.raises(TileError) as exc:
        parse_meld(bad)
    assert bad in str(exc.value)


def test_r0_at_most_four_melds():
    with pytest.raises(TileError, match="5 melds"):
        parse_melds("111m,222m,333m,444m,555m")


def test_r11_2_void_forms():
    assert [parse_void(v) for v in ("m", "P", "s", 0, 1, 2, None, -1)] == [0, 1, 2, 0, 1, 2, -1, -1]
    for bad in ("x", 3, "mp", True):
        with pytest.raises(TileError):
            parse_void(bad)


def test_r0_hand_size_message_gives_expected_and_got():
    with pytest.raises(TileError) as exc:
        check_size(to_counts("123m"), parse_melds("666p"), (13,), "waits")
    assert "has 6 tiles" in str(exc.value) and "expected 13" in str(exc.value)


@given(st.lists(st.integers(0, 26), max_size=14).filter(lambda ks: all(ks.count(k) <= 4 for k in ks)))
def test_r0_format_parse_roundtrip(kinds):
    s = format_tiles(kinds)
    assert sorted(parse_tiles(s)) == sorted(kinds)
    assert format_tiles(s.upper()) == s
    assert format_tiles(parse_tiles(s)[::-1]) == s


@given(st.text(alphabet="0123456789mpsMPSx() ,", max_size=20))
def test_r0_any_text_parses_or_raises_tile_error(text):
    try:
        kinds = parse_tiles(text)
    except TileError as exc:
        assert text in str(exc) or "has" in str(exc)
    else:
        assert all(0 <= k < 27 for k in kinds)
        assert format_tiles(kinds) == format_tiles(text)
    try:
        melds = parse_melds(text)
    except TileError:
        pass
    else:
        assert parse_melds(format_melds(melds)) == melds
