"""End of the hand: the ready check (docs/rules.md R7) and escapes (R8)."""

from __future__ import annotations

import json

from _engine_helpers import KONG_HANDS, SELF_HANDS, VECTORS, pays, run, types, vector

from xuezhan.engine import replay_script


def test_r7_1_pig_holds_three_suits():
    res, r = vector("03-ready-check-pig-refund.json")
    assert [e["seat"] for e in types(r, "pig")] == [1]


def test_r7_1_with_declare_void_a_pig_still_holds_its_void_suit():
    from _engine_helpers import build

    from xuezhan.engine.settlement import is_pig
    from xuezhan.rules import Rules

    r = build(SELF_HANDS, wall="1m2m3m4m5m", rules=Rules.preset("leshan").replace(declare_void=True))
    for s, v in enumerate("mpsm"):
        r.apply(f"{s} void {v}")
    assert is_pig(r.seats.holdings()[1], True) is True  # holds m, its void suit, although only two suits
    r.seats.void[1] = 2
    assert is_pig(r.seats.holdings()[1], True) is False


def test_r7_2_pig_pays_every_non_pig_the_capped_maximum():
    res, r = vector("03-ready-check-pig-refund.json")
    assert pays(r, "R7.2") == [("R7.2", 1, 0, 16), ("R7.2", 1, 2, 16), ("R7.2", 1, 3, 16)]
    res, r = vector("03-ready-check-pig-refund.json", pig_penalty=False)
    assert not pays(r, "R7.2")


def test_r7_3_ready_value_is_the_best_wait_as_a_discard_win():
    res, r = vector("03-ready-check-pig-refund.json")
    assert [(e["seat"], e["value"]) for e in types(r, "ready")] == [(2, 8)]


def test_r7_4_not_ready_players_pay_each_ready_player_its_value():
    res, r = vector("03-ready-check-pig-refund.json")
    assert pays(r, "R7.4") == [("R7.4", 0, 2, 8), ("R7.4", 3, 2, 8)]  # the pig (seat 1) pays R7.2 only


def test_r7_5_kong_refund_by_players_not_ready():
    res, r = vector("03-ready-check-pig-refund.json")
    assert pays(r, "R7.5") == [("R7.5", 3, 0, 2), ("R7.5", 3, 1, 2), ("R7.5", 3, 2, 2)]
    assert res["deltas"] == [8, -48, 32, 8]
    res, r = vector("03-ready-check-pig-refund.json", kong_refund=False)
    assert not pays(r, "R7.5")
    # Income already handed on by R6.5 is not refunded (vector 02: the dealer is not ready).
    res, r = vector("02-kong-then-double-win.json")
    assert not pays(r, "R7.5") and res["deltas"] == [-12, 6, 8, -2]


def test_r7_no_ready_check_when_three_have_won():
    path = VECTORS / "random" / "random-leshan-106.json"
    res = replay_script(json.loads(path.read_text()))
    assert res["end"] == "three_won" and "R7-ready-check" not in res["fired"]


def test_r8_escape_ends_the_hand_and_pays_ready_players_and_penalty():
    res, r = run(SELF_HANDS, "1m2m3m4m5m", ["0 discard 9s", "3 escape"])
    # Seat 1 (holding a 14th tile at that moment) is ready on 2p/5p: value 1. The others are pigs:
    # no pig penalty in an escape.
    assert res["end"] == "escape"
    assert pays(r) == [("R8", 3, 1, 1), ("R8", 3, None, 50)]
    assert res["deltas"] == [0, 1, 0, -51] and sum(res["deltas"]) == -50


def test_r8_escapee_kong_income_is_refunded():
    res, r = run(KONG_HANDS, "5m6m7m8m", ["0 angang 9s", "0 escape"])
    assert ("R8", 0, 1, 2) in pays(r) and ("R8", 0, None, 50) in pays(r)
    assert res["deltas"] == [-50, 0, 0, 0]
    assert res["next_dealer"] == 0  # nobody won: the dealer stays (R9.2)


def test_r8_escape_vector_with_ready_check_among_the_others():
    path = VECTORS / "random" / "random-leshan-103.json"
    doc = json.loads(path.read_text())
    res, r = replay_script(doc, return_round=True)
    assert res["deltas"] == doc["expect"]["deltas"]
    assert ("R8", 3, 2, 8) in pays(r)
