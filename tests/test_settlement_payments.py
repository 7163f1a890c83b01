"""Fan and payments during the hand (docs/rules.md R5, R6). Every payment is a ``pay`` event naming
its rule id, payer, payee and amount."""

from __future__ import annotations

import pytest
from _engine_helpers import KONG_HANDS, PENG_HANDS, SELF_HANDS, W2P5P, pays, run, vector

# --------------------------------------------------------------------------- R5


def test_r5_fan_items_from_the_win_context_and_the_cap():
    # 海底捞月: self-draw of the last wall tile (+1); forced in the last-tiles phase (R4.4).
    res, _ = run(SELF_HANDS, "5p", ["0 discard 9s"])
    assert res["wins"][0]["items"] == {"last_tile": 1} and res["wins"][0]["fan"] == 2
    # Seven pairs in one suit: 5 fan; capped at max_fan 3: 4 points.
    hands = ["24678m2468p13579s", "1122334455667m", "19m13579p123468s", "358m13579p13579s"]
    res, r = run(hands, "", ["0 discard 7m", "1 hu"], rules={"preset": "leshan", "max_fan": 3})
    assert res["wins"][0]["fan"] == 3 and res["wins"][0]["points"] == 4
    assert "R5-capped" in res["fired"]
    # A fan item switched off (R11 fan.<id>) is not counted.
    res, _ = run(hands, "", ["0 discard 7m", "1 hu"], rules={"preset": "leshan", "fan": {"one_suit": False}})
    assert res["wins"][0]["items"] == {"seven_pairs": 2} and res["wins"][0]["fan"] == 3


# --------------------------------------------------------------------------- R6


def test_r6_1_discarder_alone_pays_each_winner():
    res, r = vector("01-discard-win-basic.json")
    assert pays(r) == [("R6.1", 0, 1, 1)]
    res, r = vector("02-kong-then-double-win.json")
    assert [p for p in pays(r) if p[0] == "R6.1"] == [("R6.1", 0, 1, 2), ("R6.1", 0, 2, 4)]


@pytest.mark.parametrize(
    "bonus,deltas,fan", [("none", [-1, 3, -1, -1], 1), ("point", [-2, 6, -2, -2], 1), ("fan", [-2, 6, -2, -2], 2)]
)
def test_r6_2_self_draw_every_other_active_player_pays(bonus, deltas, fan):
    res, r = run(
        SELF_HANDS, "5p1m2m3m4m", ["0 discard 9s", "1 hu"], rules={"preset": "leshan", "self_draw_bonus": bonus}
    )
    assert res["wins"][0]["fan"] == fan
    got = pays(r, "R6.2")
    assert [(p[1], p[2]) for p in got] == [(0, 1), (2, 1), (3, 1)]
    assert [-p[3] for p in got] == [deltas[0], deltas[2], deltas[3]]


def test_r6_2_winners_do_not_pay_later_self_draws():
    # Seat 2 wins on the dealer's 5p; later seat 1 self-draws: seats 0 and 3 pay, seat 2 does not.
    hands = ["12468m24568p1379s", W2P5P, "123m456m789m46p99p", "1379m1379p24678s"]
    # Seat 1 waits 2p/5p and passes the dealer's 5p; seat 2 wins on it.
    res, r = run(hands, "5m7p2p9s8s7s", ["0 discard 5p", "1 pass", "2 hu", "3 discard 2s", "0 discard 2m", "1 hu"])
    wins = [(w["seat"], w["from"]) for w in res["wins"]]
    assert wins == [(2, 0), (1, None)]
    assert sorted(p[1] for p in pays(r, "R6.2")) == [0, 3]


def test_r6_3_kong_on_a_discard_won_on_its_replacement_discarder_pays():
    res, r = vector("07-kong-draw-discarder-pays.json")
    assert pays(r) == [("R6.4", 0, 1, 2), ("R6.3", 0, 1, 4)]
    assert res["wins"][0]["from"] is None  # still a self-draw in the records
    res, r = vector("07-kong-draw-discarder-pays.json", kong_draw_discarder_pays=False)
    assert [p for p in pays(r) if p[0] != "R6.4"] == [("R6.2", 0, 1, 4), ("R6.2", 2, 1, 4), ("R6.2", 3, 1, 4)]


def test_r6_4_kongs_pay_at_once_three_kinds():
    # 暗杠: every other active player pays 2 × base.
    res, r = run(KONG_HANDS, "5m6m7m8m", ["0 angang 9s"], rules={"preset": "leshan", "base": 2})
    assert pays(r)[:3] == [("R6.4", 1, 0, 4), ("R6.4", 2, 0, 4), ("R6.4", 3, 0, 4)]
    # 点杠: the discarder pays 2 × base.
    res, r = vector("07-kong-draw-discarder-pays.json")
    assert pays(r)[0] == ("R6.4", 0, 1, 2)
    # 加杠: every other active player pays 1 × base.
    script = [
        "0 discard 5p",
        "1 peng",
        "2 pass",
        "1 discard 1p",
        "2 discard 1m",
        "3 discard 2s",
        "0 discard 2m",
        "1 jiagang 5p",
        "2 pass",
    ]
    res, r = run(PENG_HANDS, "1m2m3m4m5m6m7m8m9m3p", script)
    assert sorted(pays(r, "R6.4")) == [("R6.4", 0, 1, 1), ("R6.4", 2, 1, 1), ("R6.4", 3, 1, 1)]


def test_r6_5_kong_income_transferred_to_each_winner():
    res, r = vector("02-kong-then-double-win.json")
    assert pays(r, "R6.5") == [("R6.5", 0, 1, 6), ("R6.5", 0, 2, 6)]
    assert res["deltas"] == [-12, 6, 8, -2]
    # kong_transfer off: no transfer, and the dealer (not ready at the wall's end) refunds (R7.5).
    res, r = vector("02-kong-then-double-win.json", kong_transfer=False)
    assert not pays(r, "R6.5")
    assert sorted(pays(r, "R7.5")) == [("R7.5", 0, 1, 2), ("R7.5", 0, 2, 2), ("R7.5", 0, 3, 2)]
    assert res["deltas"] == [-6, 2, 4, 0]


def test_r5_heaven_and_earth_are_the_cap():
    rules = {"preset": "chengdu", "exchange_three": False, "declare_void": False}
    # 天胡: the dealer's first 14 tiles win (chengdu: max_fan 4 = 8 points, +1 each for 自摸加底).
    hands = ["111222333456m99m", "13579p12468s135s", "2468p13579s5678m", "1357p24689s1579m"]
    res, r = run(hands, "1p", ["0 hu"], rules=rules)
    w = res["wins"][0]
    assert (w["seat"], w["from"], w["fan"]) == (0, None, 4) and "heaven_earth" in w["items"]
    assert pays(r, "R6.2") == [("R6.2", s, 0, 9) for s in (1, 2, 3)]
    # 地胡: a non-dealer self-draws on its first draw before any claim.
    hands = ["12468m2468p13579s", "123456789m3455p", "2468m13579p2468s", "13579m1379p2468s"]
    res, _ = run(hands, "5p1m2m3m4m", ["0 discard 9s", "1 hu"], rules=rules)
    assert res["wins"][0]["fan"] == 4 and "heaven_earth" in res["wins"][0]["items"]
    # Off in leshan: an ordinary 1-fan self-draw.
    res, _ = run(hands, "5p1m2m3m4m", ["0 discard 9s", "1 hu"])
    assert res["wins"][0]["fan"] == 1
