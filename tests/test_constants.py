"""The constants shared by the Rust core and the Python package are defined once (in the core)
and both sides agree on them: fan item ids and their bits (R5), the shape items (R7.3), the win
context flags, and the tile-name table (R0)."""

from __future__ import annotations

import os
import tomllib

import pytest
from _reference import ref_fan

import xuezhan
from xuezhan import _core, batch, rules, tiles
from xuezhan.engine import _core_adapter, actions, log, observation, settlement
from xuezhan.evaluate import WinContext

PRESET_DIR = os.path.join(os.path.dirname(rules.__file__), "presets")
PRESET_FILES = sorted(n for n in os.listdir(PRESET_DIR) if n.endswith(".toml"))


def test_fan_item_ids_come_from_the_core() -> None:
    assert rules.FAN_ITEMS is _core.FAN_ITEMS
    assert len(set(_core.FAN_ITEMS)) == len(_core.FAN_ITEMS) == len(_core.FAN_LABELS) == 16
    assert all(k.isidentifier() and k == k.lower() for k in _core.FAN_ITEMS)
    assert dict(zip(_core.FAN_ITEMS, _core.FAN_LABELS, strict=True)) == rules.FAN_NAMES
    # The mask of a Rules value is read bit by bit against the core's order.
    r = rules.Rules.preset("leshan")
    assert r.core.items == r.fan.mask == sum(1 << i for i, k in enumerate(_core.FAN_ITEMS) if r.fan[k])


def test_shape_items_are_the_cores_shape_mask() -> None:
    assert _core.SHAPE_MASK >> len(_core.FAN_ITEMS) == 0
    assert {k for i, k in enumerate(_core.FAN_ITEMS) if _core.SHAPE_MASK >> i & 1} == rules.SHAPE_ITEMS
    assert set(_core.FAN_ITEMS) == rules.SHAPE_ITEMS | rules.SITUATIONAL_ITEMS
    assert not rules.SHAPE_ITEMS & rules.SITUATIONAL_ITEMS
    # R7.3: a ready-check value counts shape items only, so a situational item switched on
    # never changes a wait's value, and a shape item can.
    hand = "11122233345m99m"
    base = xuezhan.waits(hand, rules="leshan")
    for item in rules.SITUATIONAL_ITEMS - {"self_draw"}:
        assert xuezhan.waits(hand, rules={"fan": {item: True}}) == base, item
    assert xuezhan.waits(hand, rules={"fan": {"one_suit": False}}) != base


@pytest.mark.parametrize("name", PRESET_FILES)
def test_every_preset_fan_item_is_a_core_item(name: str) -> None:
    with open(os.path.join(PRESET_DIR, name), "rb") as f:
        data = tomllib.load(f)
    assert set(data["fan"]) <= set(_core.FAN_ITEMS)
    # the derived item is the only one a preset does not list (R5, R6.2)
    assert set(_core.FAN_ITEMS) - set(data["fan"]) == {"self_draw"}


@pytest.mark.parametrize("name", PRESET_FILES)
def test_preset_values_are_the_toml_values(name: str) -> None:
    with open(os.path.join(PRESET_DIR, name), "rb") as f:
        data = tomllib.load(f)
    r = rules.Rules.preset(name[: -len(".toml")])
    for key, value in data.items():
        if key == "fan":
            assert {k: r.fan[k] for k in value} == value
        else:
            assert getattr(r, key) == value, key


def test_rules_defaults_are_the_leshan_file() -> None:
    with open(os.path.join(PRESET_DIR, "leshan.toml"), "rb") as f:
        data = tomllib.load(f)
    default = rules.Rules()
    assert default == rules.Rules.preset("leshan")
    assert all(getattr(default, k) == v for k, v in data.items() if k != "fan")


def test_win_context_flags_come_from_the_core() -> None:
    assert WinContext._NAMES is _core.CONTEXT_FLAGS
    assert len(_core.CONTEXT_FLAGS) == 7
    for bit, name in enumerate(_core.CONTEXT_FLAGS):
        assert WinContext(**{name: True}).flags == 1 << bit
        assert WinContext.from_flags(1 << bit) == WinContext(**{name: True})
        assert getattr(_core_adapter, name.upper()) == 1 << bit


@pytest.mark.parametrize("flag", [n for n in _core.CONTEXT_FLAGS if n in _core.FAN_ITEMS and n != "self_draw"])
def test_context_flag_scores_the_fan_item_of_the_same_name(flag: str) -> None:
    # R5 situational items: the flag's bit and the item's bit are read by name on each side.
    everything = {"fan": {k: True for k in _core.FAN_ITEMS if k != "self_draw"}, "max_fan": 16}
    r = xuezhan.fan("123456m789m11p234p", win_tile="4p", context=WinContext(**{flag: True}), rules=everything)
    assert flag in r.items


def test_fan_names_items_by_the_core_ids_like_the_reference() -> None:
    # The reference (tests/_reference.py) writes the item names itself: an independent view.
    hands, win = batch.random_wins(300, seed=11)
    on = set(_core.FAN_ITEMS) - {"self_draw"}
    r = rules.Rules.from_dict({"fan": {k: True for k in on}, "max_fan": 16})
    compared = 0
    for row, w in zip(hands, win, strict=True):
        counts = bytes(row)
        got = xuezhan.fan(counts, win_tile=int(w), rules=r)
        assert set(got.items) <= set(_core.FAN_ITEMS)
        ref = ref_fan(list(counts), (), 0, on, 16, False, win=int(w))
        assert ref is not None
        if ref[2] is not None:
            assert got.items == ref[2]
            compared += 1
    assert compared > 250


def test_one_tile_name_table() -> None:
    assert tuple(f"{r}{s}" for s in "mps" for r in range(1, 10)) == tiles.TILE_STR
    assert tiles.TILE_NAMES_CN[0] == "一万" and tiles.TILE_NAMES_CN[13] == "五筒" and tiles.TILE_NAMES_CN[26] == "九条"
    assert [tiles.parse_tiles(t) for t in tiles.TILE_STR] == [[k] for k in range(27)]
    # the engine's tables are that table, not copies
    assert settlement.TILE_STR is tiles.TILE_STR
    assert actions.TILE_STR is tiles.TILE_STR
    assert log._TILE is tiles.TILE_STR
    assert observation._TILE is tiles.TILE_STR
