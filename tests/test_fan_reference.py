"""R5 fan against the reference of ``_reference.ref_fan`` (every reading scored), over random
winning hands, melds, rule switches and win contexts (hypothesis)."""

from __future__ import annotations

from _reference import ref_fan, ref_is_win
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xuezhan
from xuezhan import _core
from xuezhan.rules import FAN_ITEMS, Rules

FREE_ITEMS = [k for k in FAN_ITEMS if k != "self_draw"]


@st.composite
def winning_hands(draw):
    """Four blocks (runs, triplets, melds of every type) and a pair in one or two suits, or
    seven pairs; weighted towards the shapes fan items care about."""
    suits = draw(st.lists(st.integers(0, 2), min_size=1, max_size=2, unique=True))
    # rank pools that make the rarer items likely: 2/5/8 only (将对), 1/9 (带幺九), no 1/9 (中张)
    pool = draw(st.sampled_from([range(9), range(9), [1, 4, 7], [0, 8], range(1, 8)]))
    rank = st.sampled_from(list(pool))
    total = [0] * 27
    counts = [0] * 27
    melds = []
    if draw(st.integers(0, 5)) == 0:  # seven pairs (a quad = two pairs)
        for _ in range(7):
            k = 9 * draw(st.sampled_from(suits)) + draw(rank)
            counts[k] += 2
    else:
        for _ in range(4):
            s = draw(st.sampled_from(suits))
            kinds = ["run", "trip", "trip", "pung", "kong", "ckong"]
            if list(pool) == [0, 8]:  # only four kinds: mostly runs 123/789, or the hand overflows
                kinds = ["run", "run", "run", "run", "trip", "pung", "ckong"]
            elif list(pool) == [1, 4, 7]:  # 2/5/8: no runs, so that 将对 comes up
                kinds = ["trip", "trip", "pung", "kong", "ckong"]
            kind = draw(st.sampled_from(kinds))
            if kind == "run":
                r = draw(st.sampled_from([0, 6] if list(pool) == [0, 8] else range(7)))
                for k in range(9 * s + r, 9 * s + r + 3):
                    counts[k] += 1
            else:
                k = 9 * s + draw(rank)
                if kind == "trip":
                    counts[k] += 3
                else:
                    melds.append(({"pung": 0, "kong": 1, "ckong": 2}[kind], k))
        k = 9 * draw(st.sampled_from(suits)) + draw(rank)
        counts[k] += 2
    for t, k in melds:
        total[k] += 3 if t == 0 else 4
    for k in range(27):
        total[k] += counts[k]
    if max(total) > 4:
        from hypothesis import reject

        reject()
    win = draw(st.sampled_from([k for k in range(27) if counts[k]]))
    return counts, tuple(melds), win


rules_strategy = st.builds(
    lambda on, max_fan, base, bonus: Rules.preset("leshan").replace(
        max_fan=max_fan, base=base, self_draw_bonus=bonus, fan={k: k in on for k in FREE_ITEMS}
    ),
    st.sets(st.sampled_from(FREE_ITEMS)),
    st.integers(1, 16),
    st.integers(1, 5),
    st.sampled_from(["none", "point", "fan"]),
)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(winning_hands(), rules_strategy, st.integers(0, 127))
def test_r5_fan_matches_reference(hand, rules, ctx):
    counts, melds, win = hand
    assert ref_is_win(counts, melds)
    codes = bytes(t * 27 + k for t, k in melds)
    got = _core.fan(bytes(counts), codes, win, ctx, rules.core)
    on = {k for k in FAN_ITEMS if rules.fan[k]}
    ref = ref_fan(counts, melds, ctx, on, rules.max_fan, rules.self_draw_bonus == "fan", rules.base, win=win)
    assert got is not None and ref is not None
    raw, capped, points, items = got
    assert (capped, points) == ref[:2], (xuezhan.format_tiles(bytes(counts)), melds, ctx, on)
    if ref[2] is not None and not (ctx >> 5 & 1 and "heaven_earth" in on):
        assert {FAN_ITEMS[b]: f for b, f in items} == ref[2], (xuezhan.format_tiles(bytes(counts)), melds)
        assert raw == 1 + sum(ref[2].values())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(winning_hands(), st.sampled_from(["leshan", "chengdu", "middle_five"]))
def test_r7_3_wait_value_is_fan_of_the_completed_hand(hand, preset):
    """R7.3: each wait's value is the shape-only fan (no context) of the hand it completes
    (middle_five, a shape item, included)."""
    counts, melds, win = hand
    rules = Rules.preset(preset) if preset != "middle_five" else Rules.from_dict({"fan.middle_five": True})
    c13 = list(counts)
    c13[win] -= 1
    codes = bytes(t * 27 + k for t, k in melds)
    ws = {k: (f, p) for k, f, p in _core.waits(bytes(c13), codes, rules.core)}
    on = {k for k in FAN_ITEMS if rules.fan[k]}
    ref = ref_fan(counts, melds, 0, on, rules.max_fan, False, rules.base, win=win)
    assert ws[win] == ref[:2]
