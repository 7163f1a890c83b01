"""R5 fan items, one test per item, and every example of R5's examples line, under both presets."""

from __future__ import annotations

import pytest

import xuezhan
from xuezhan import NotAWinError, Rules, WinContext, fan, waits
from xuezhan.rules import FAN_ITEMS, SHAPE_ITEMS

LESHAN = Rules.preset("leshan")
CHENGDU = Rules.preset("chengdu")
ALL_ON = LESHAN.replace(max_fan=16, fan={k: True for k in FAN_ITEMS if k != "self_draw"})

# R5 examples line (leshan, max_fan 5); hands chosen with no 1/9 and not only 2/5/8 tiles,
# so that chengdu's extra items (带幺九, 将对) do not apply and the same raw fan holds.
# (name, hand, melds, raw fan)
EXAMPLES = [
    ("平胡", "234m456m678m345p77p", "", 1),
    ("大对子", "222m444m666p777p33p", "", 2),
    ("七对", "224466m33557788p", "", 3),
    ("清一色", "234m456m678m345m77m", "", 3),
    ("金钩钓", "33p", "222m,444m,666p,777p", 3),
    ("龙七对", "222244m66m335577p", "", 4),
    ("清对", "222m444m666m777m33m", "", 4),
    ("清七对", "22446688m335577m", "", 5),
    ("清金钩钓", "33m", "222m,444m,666m,777m", 5),
    ("清龙七对", "222244m66m335577m", "", 6),
]


@pytest.mark.parametrize("name, hand, melds, raw", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_r5_examples_leshan(name, hand, melds, raw):
    r = fan(hand, melds, rules=LESHAN)
    assert r.raw_fan == raw
    assert r.fan == min(raw, 5)
    assert r.points == 2 ** (min(raw, 5) - 1)
    assert 1 + sum(r.items.values()) == raw


def test_r5_example_qing_long_qi_dui_capped_at_5_is_16_points():
    r = fan("222244m66m335577m", rules="leshan")
    assert (r.raw_fan, r.fan, r.points) == (6, 5, 16)
    assert r.items == {"one_suit": 2, "seven_pairs": 2, "gen": 1}


@pytest.mark.parametrize("name, hand, melds, raw", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_r5_examples_chengdu(name, hand, melds, raw):
    r = fan(hand, melds, rules=CHENGDU)
    assert r.raw_fan == raw
    assert r.fan == min(raw, 4)  # chengdu max_fan = 4 (R11)
    assert r.points == 2 ** (min(raw, 4) - 1)


def test_r5_plain_win_is_one_fan():
    r = fan("234m456m678m345p77p", rules=LESHAN)
    assert (r.fan, r.raw_fan, r.points, r.items) == (1, 1, 1, {})


def test_r5_all_triplets():
    assert fan("222m444m666p777p33p").items == {"all_triplets": 1}
    assert fan("33p", "222m,444m,(6666p),777p").items["all_triplets"] == 1  # kongs count


def test_r5_reading_with_most_fan_counts():
    # 111222333m: three runs (123×3, 1 fan) or three triplets (大对子, 2 fan)
    r = fan("111222333m555p77p")
    assert r.fan == 2 and r.items == {"all_triplets": 1}


def test_r5_one_suit():
    assert fan("234m456m678m345m77m").items == {"one_suit": 2}
    # melds count: a pung of another suit breaks 清一色
    assert "one_suit" not in fan("234m456m678m77m", "555p").items
    assert fan("234m456m678m77m", "999m").items == {"one_suit": 2}


def test_r5_seven_pairs_and_quad_as_two_pairs():
    assert fan("224466m33557788p").items == {"seven_pairs": 2}
    assert fan("222244m66m335577p").items == {"seven_pairs": 2, "gen": 1}  # 龙七对


def test_r4_1_seven_pairs_concealed_only():
    # the same pairs shape with one pair melded as a pung is no seven pairs
    assert xuezhan.shanten_parts("224466m33557p", "999p").seven_pairs is None
    assert xuezhan.shanten_parts("224466m33557p99p").seven_pairs == 0
    assert xuezhan.is_win("22446688m335577p")


def test_r5_gen_each_kind_with_four_copies():
    # four 1m in hand (111m + 123m): one 根
    assert fan("111123m456p789p55p").items == {"gen": 1}
    # a kong is a 根
    assert fan("345m456p789p55p", "(2222m)").items == {"gen": 1}
    assert fan("345m456p789p55p", "2222m").items == {"gen": 1}
    # a pung plus the fourth tile in the hand is a 根 (no kong needed)
    assert fan("123m456p789p55p", "111m").items == {"gen": 1}
    # two 根
    assert fan("111123m456p555p77p").items == {"gen": 2}


def test_r5_single_wait_melded():
    r = fan("55p", "222m,444m,666p,777p", win_tile="5p")
    assert r.items == {"all_triplets": 1, "single_wait_melded": 1}
    # concealed kongs count as melds for 金钩钓
    r = fan("55p", "(2222m),444m,666p,777p")
    assert r.items == {"all_triplets": 1, "gen": 1, "single_wait_melded": 1}
    # three melds: no 金钩钓
    assert "single_wait_melded" not in fan("5p55p66p", "222m,444m,777p").items


@pytest.mark.parametrize(
    "item, context",
    [
        ("kong_draw", WinContext(self_draw=True, kong_draw=True)),
        ("kong_discard", WinContext(kong_discard=True)),
        ("robbing_kong", WinContext(robbing_kong=True)),
        ("last_tile", WinContext(self_draw=True, last_tile=True)),
        ("last_tile", WinContext(last_tile=True)),
    ],
)
@pytest.mark.parametrize("rules", [LESHAN, CHENGDU], ids=["leshan", "chengdu"])
def test_r5_situational_items(item, context, rules):
    r = fan("234m456m678m345p77p", context=context, rules=rules)
    assert r.items == {item: 1} and r.fan == 2
    off = rules.replace(fan={item: False})
    assert fan("234m456m678m345p77p", context=context, rules=off).fan == 1


def test_r5_terminals_chengdu_only():
    hand = "123m789m111p999p11m"
    assert fan(hand, rules=CHENGDU).items == {"terminals": 2}
    assert fan(hand, rules=LESHAN).items == {}
    # one set without a 1 or 9 breaks it
    assert "terminals" not in fan("123m789m111p456p11m", rules=CHENGDU).items


def test_r5_terminals_is_a_four_sets_item_not_a_seven_pairs_item():
    # R5: "every set and the pair contain a 1 or a 9" reads the four-sets-and-a-pair form
    r = fan("11119999m111199p", rules=CHENGDU.replace(max_fan=16))
    assert r.items == {"seven_pairs": 2, "gen": 3}


def test_r5_pairs_258_chengdu_only():
    hand = "222m555m888m222p55p"
    assert fan(hand, rules=CHENGDU).items == {"all_triplets": 1, "pairs_258": 2}
    assert fan(hand, rules=LESHAN).items == {"all_triplets": 1}
    # runs of 2/5/8 tiles do not exist; one other tile breaks it
    assert "pairs_258" not in fan("222m555m888m333p55p", rules=CHENGDU).items


def test_r5_concealed_off_in_presets_on_by_option():
    hand = "234m456m678m345p77p"
    assert fan(hand).items == {} and fan(hand, rules=CHENGDU).items == {}
    on = {"fan": {"concealed": True}}
    assert fan(hand, rules=on).items == {"concealed": 1}
    assert fan("345p678p77p", "(2222m),(3333m)", rules=on).items == {
        "gen": 2,
        "concealed": 1,
    }  # concealed kongs allowed
    assert "concealed" not in fan("234m456m345p77p", "666m", rules=on).items


def test_r5_no_terminals_off_in_presets_on_by_option():
    on = {"fan": {"no_terminals": True}}
    assert fan("234m456m678m345p77p", rules=on).items == {"no_terminals": 1}
    assert fan("234m456m678m345p77p").items == {}
    assert "no_terminals" not in fan("123m456m678m345p77p", rules=on).items
    assert "no_terminals" not in fan("234m456m345p77p", "999p", rules=on).items


def test_r5_heaven_earth_is_max_fan_chengdu():
    ctx = WinContext(self_draw=True, heaven_earth=True)
    r = fan("234m456m678m345p77p", context=ctx, rules=CHENGDU)
    assert r.fan == 4 and r.points == 8 and "heaven_earth" in r.items
    assert fan("234m456m678m345p77p", context=ctx, rules=LESHAN).fan == 1  # off in leshan
    r = fan("234m456m678m345p77p", context=ctx, rules=LESHAN.replace(fan={"heaven_earth": True}))
    assert r.fan == 5 and r.points == 16


def test_r5_r6_2_self_draw_fan_bonus():
    fan_bonus = LESHAN.replace(self_draw_bonus="fan")
    hand = "234m456m678m345p77p"
    assert fan(hand, context=WinContext(self_draw=True), rules=fan_bonus).items == {"self_draw": 1}
    assert fan(hand, context=WinContext(), rules=fan_bonus).items == {}
    # R6.3: a kong-on-discard replacement win paid by the discarder: no self-draw bonus
    ctx = WinContext(self_draw=True, kong_draw=True, discarder_pays=True)
    assert fan(hand, context=ctx, rules=fan_bonus).items == {"kong_draw": 1}
    # self_draw_bonus "none" and "point" give no fan
    assert fan(hand, context=WinContext(self_draw=True), rules=LESHAN).items == {}
    assert fan(hand, context=WinContext(self_draw=True), rules=CHENGDU).items == {}


def test_r0_cap_and_points_follow_rules():
    hand = "222244m66m335577m"  # 清龙七对, raw 6
    assert fan(hand, rules={"max_fan": 8}).points == 32
    assert fan(hand, rules={"max_fan": 8, "base": 3}).points == 96
    assert fan(hand, rules={"max_fan": 2}).fan == 2


def test_r5_item_switches_each_remove_the_item():
    # every shape item on one hand at a time, switched off: the fan drops by that item's value
    cases = {
        "all_triplets": ("222m444m666p777p33p", ""),
        "one_suit": ("234m456m678m345m77m", ""),
        "seven_pairs": ("224466m33557788p", ""),
        "gen": ("111123m456p789p55p", ""),
        "single_wait_melded": ("55p", "222m,444m,666p,777p"),
    }
    for item, (hand, melds) in cases.items():
        on = fan(hand, melds, rules=ALL_ON)
        off = fan(hand, melds, rules=ALL_ON.replace(fan={item: False}))
        assert on.items[item] >= 1
        assert item not in off.items
        assert off.raw_fan <= on.raw_fan - on.items[item] + sum(v for k, v in off.items.items() if k not in on.items)


def test_r4_2_three_suits_never_win_fan_raises():
    with pytest.raises(NotAWinError, match="not a win"):
        fan("123m456p789s11m123m")


def test_r11_2_void_suit_blocks_the_win():
    assert fan("234m456m678m345p77p", void="s").fan == 1
    with pytest.raises(NotAWinError):
        fan("234m456m678m345p77p", void="p")


def test_r7_3_wait_values_shape_items_only():
    # 11122233345m99m: 3m completes with 清一色 + 根 (4 fan, 8 points), 6m and 9m 清一色 (3, 4)
    ws = waits("11122233345m99m", rules="leshan")
    assert [(w.tile, w.fan, w.points) for w in ws] == [("3m", 4, 8), ("6m", 3, 4), ("9m", 3, 4)]
    # capped by max_fan (chengdu 4)
    ws = {w.tile: (w.fan, w.points) for w in waits("22446688m33557m", rules="chengdu")}
    assert ws["7m"] == (4, 8)  # 清七对, 5 fan raw
    ws = {w.tile: (w.fan, w.points) for w in waits("22446688m33557m", rules="leshan")}
    assert ws["7m"] == (5, 16)
    # every value equals fan() of the completed hand as a win on a discard with no situational item
    for w in waits("11122233345m99m", rules=ALL_ON):
        r = fan("11122233345m99m" + w.tile, rules=ALL_ON)
        assert (w.fan, w.points) == (r.fan, r.points)
        assert set(r.items) <= SHAPE_ITEMS


def test_r5_fan_accepts_every_hand_form():
    hand = "111123m456p789p55p"
    base = fan(hand)
    counts = xuezhan.tiles.to_counts(hand)
    assert fan(counts, win_tile="5p") == base
    assert fan(counts, win_tile=13) == base
    assert fan(list(counts), win_tile="5p") == base
    assert fan(xuezhan.parse_tiles(hand)) == base
    assert fan(hand, context=0) == base
    with pytest.raises(xuezhan.TileError, match="win_tile is required"):
        fan(counts)
    with pytest.raises(xuezhan.TileError, match="not among the concealed tiles"):
        fan(hand, win_tile="9s")
