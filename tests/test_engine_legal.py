"""engine/legal.py: the legal actions of each decision and, for every action left out, the reason
naming its rule (R2.1, R3.1, R3.3, R4, R4.3, R11.1, R11.2)."""

from __future__ import annotations

import pytest
from _engine_helpers import PENG_HANDS, build

from xuezhan.engine import IllegalAction, Round, flow
from xuezhan.engine.actions import (
    ANGANG,
    DISCARD,
    EXCHANGE,
    GANG,
    HU,
    JIAGANG,
    PASS,
    PENG,
    Action,
    act,
)
from xuezhan.engine.legal import (
    claim_actions,
    exchange_actions,
    exchange_reason,
    refusal,
    turn_actions,
)
from xuezhan.rules import Rules
from xuezhan.tiles import parse_tiles


def counts(tiles: str) -> bytearray:
    c = bytearray(27)
    for k in parse_tiles(tiles):
        c[k] += 1
    return c


def k(tile: str) -> int:
    return parse_tiles(tile)[0]


def reason(fn, *args, action: Action) -> str:
    why: dict = {}
    legal = fn(*args, why=why)
    assert action not in legal
    return refusal(action, legal, why, "decision")


# ------------------------------------------------------------------ turns (R2.1, R4, R11.2)
HAND = "5555m123p456p789s1s"  # four 5m, a pung of 9s melded below


def test_r2_1_kongs_are_legal_on_a_turn_with_tiles_on_the_wall():
    legal = turn_actions(0, counts(HAND), [k("1s")], -1, False, False, False)
    assert act(0, ANGANG, k("5m")) in legal and act(0, JIAGANG, k("1s")) in legal
    assert act(0, HU) not in legal and act(0, DISCARD, k("5m")) in legal


def test_r2_1_no_kong_right_after_a_peng():
    msg = reason(
        turn_actions,
        0,
        counts(HAND),
        [k("1s")],
        -1,
        False,
        True,
        False,
        action=act(0, ANGANG, k("5m")),
    )
    assert "no kong right after a peng (R2.1)" in msg


def test_r2_1_no_kong_when_the_wall_is_empty():
    msg = reason(
        turn_actions,
        0,
        counts(HAND),
        [k("1s")],
        -1,
        False,
        False,
        True,
        action=act(0, JIAGANG, k("1s")),
    )
    assert "wall is empty (R2.1)" in msg


def test_r2_1_kong_needs_the_tiles():
    msg = reason(
        turn_actions,
        0,
        counts(HAND),
        [],
        -1,
        False,
        False,
        False,
        action=act(0, ANGANG, k("1p")),
    )
    assert "does not hold four 1p" in msg
    msg = reason(
        turn_actions,
        0,
        counts(HAND),
        [],
        -1,
        False,
        False,
        False,
        action=act(0, JIAGANG, k("1s")),
    )
    assert "no pung of 1s" in msg


def test_r4_no_self_draw_win_without_a_winning_hand():
    msg = reason(turn_actions, 0, counts(HAND), [], -1, False, False, False, action=act(0, HU))
    assert "(R4)" in msg


def test_r11_2_must_discard_the_void_suit_and_never_kong_it():
    c = counts(HAND)
    legal = turn_actions(0, c, [], 0, False, False, False)  # void in m
    assert {a.arg for a in legal if a.verb == DISCARD} == {k("5m")}
    msg = reason(turn_actions, 0, c, [], 0, False, False, False, action=act(0, DISCARD, k("1p")))
    assert "must discard one (R11.2)" in msg
    msg = reason(turn_actions, 0, c, [], 0, False, False, False, action=act(0, ANGANG, k("5m")))
    assert "void suit (R11.2)" in msg


def test_r2_1_discard_needs_the_tile_and_claims_are_not_turn_actions():
    msg = reason(
        turn_actions,
        0,
        counts(HAND),
        [],
        -1,
        False,
        False,
        False,
        action=act(0, DISCARD, k("9m")),
    )
    assert "does not hold 9m" in msg
    msg = reason(turn_actions, 0, counts(HAND), [], -1, False, False, False, action=act(0, PENG))
    assert "peng is a claim, not a turn action" in msg


# ------------------------------------------------------------------ claims (R3, R4.3, R11.2)
def test_r3_1_claims_on_a_discard():
    c = counts("555p123m456m789s1s")
    assert claim_actions(1, c, k("5p"), -1, 0, 0) == [
        act(1, PENG),
        act(1, GANG),
        act(1, PASS),
    ]
    assert claim_actions(1, c, k("9p"), -1, 0, 0) == []  # nothing to claim: not asked


def test_r3_1_no_kong_on_a_discard_when_the_wall_is_empty():
    c = counts("555p123m456m789s1s")
    msg = reason(claim_actions, 1, c, k("5p"), -1, 0, 0, False, True, action=act(1, GANG))
    assert "no kong when the wall is empty (R3.1)" in msg


def test_r3_3_an_added_kong_can_only_be_robbed():
    c = counts("55p123m456m789s1s")
    msg = reason(claim_actions, 1, c, k("5p"), -1, 0, 0, True, action=act(1, PENG))
    assert "(R3.3)" in msg


def test_r4_3_a_passed_win_locks_equal_or_smaller_wins():
    c = counts("123m456m789m46p99p")
    assert act(1, HU) in claim_actions(1, c, k("5p"), -1, 2, 1)  # worth more than the passed win
    msg = reason(claim_actions, 1, c, k("5p"), -1, 1, 1, action=act(1, HU))
    assert "passed a win of 1 fan" in msg and "(R4.3)" in msg


def test_r4_no_win_on_a_tile_that_does_not_complete_the_hand():
    msg = reason(
        claim_actions,
        1,
        counts("55p123m456m789s1s"),
        k("5p"),
        -1,
        0,
        0,
        action=act(1, HU),
    )
    assert "does not win on 5p (R4)" in msg


def test_r11_2_no_peng_of_the_void_suit():
    msg = reason(
        claim_actions,
        1,
        counts("55p123m456m789s1s"),
        k("5p"),
        1,
        0,
        0,
        action=act(1, PENG),
    )
    assert "void suit (R11.2)" in msg


# ------------------------------------------------------------------ exchange (R11.1)
def test_r11_1_exchange_reasons():
    c = counts("1112m5p")
    assert [a.arg for a in exchange_actions(0, c)] == [(0, 0, 1), (0, 0, 0)]
    assert "one suit (R11.1)" in exchange_reason(Action(0, EXCHANGE, (0, 1, 13)), c)
    assert "does not hold 2 × 2m" in exchange_reason(Action(0, EXCHANGE, (0, 1, 1)), c)
    assert "three tiles to exchange (R11.1)" in exchange_reason(Action(0, DISCARD, 0), c)


# ------------------------------------------------------------------ one derivation
@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
def test_every_action_of_a_decision_is_legal_or_refused_with_its_reason(preset):
    """At every turn and claim of seeded hands, each candidate action is either legal or has a
    reason, never both, and Round.apply refuses it with that reason."""
    checked = 0
    for seed in range(12):
        r = Round.from_seed(preset, seed, seed % 4)
        while not r.over:
            s = r.turn.cur
            if r.turn.phase in (2, 3):
                cands = [act(s, v) for v in (HU, PENG, GANG, PASS)]
                cands += [act(s, v, t) for v in (DISCARD, ANGANG, JIAGANG) for t in range(27)]
                why: dict = {}
                if r.turn.phase == 2:
                    legal, mask = flow.turn_legal_of(r, s, flow.can_hu(r, s), why)
                    assert mask == r.turn.discard_mask
                else:
                    legal = flow.claim_legal(r, s, r.turn.claims, why)
                assert legal == r.turn.legal
                for a in cands:
                    if a in legal:
                        assert a not in why
                    elif a in why:
                        with pytest.raises(IllegalAction) as ei:
                            r.apply(a)
                        assert why[a] in str(ei.value)
                        checked += 1
                    else:
                        assert r.turn.phase == 3 and a.verb not in (HU, PENG, GANG, PASS)
            r.apply(r.default_action())
    assert checked > 1000


def test_r11_2_round_refuses_a_non_void_discard_naming_the_rule():
    rules = Rules.preset("leshan").replace(declare_void=True)
    r = build(PENG_HANDS, wall="1m2m", rules=rules)
    for s, v in enumerate(["m", "p", "s", "m"]):
        r.apply(f"{s} void {v}")
    with pytest.raises(IllegalAction, match=r"R11\.2"):
        r.apply("0 discard 5p")
