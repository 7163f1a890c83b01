"""The ``value`` strategy's discard (one Rust call) against a plain-Python statement of the
same policy (``tests/_value_reference.py``): every decision of seeded hands under both
presets and each option, and random crafted positions (hypothesis) that reach the rare
branches: folding late (R7.4), clearing the void suit (R4.2), the 清一色 route (R5), the
opponents' voids (R4.2, R11.2). Bad input is one ValueError naming it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from _value_reference import value_discard as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from xuezhan import _core
from xuezhan.engine import Round
from xuezhan.engine.actions import DISCARD
from xuezhan.rules import Rules
from xuezhan.strategies import GreedyStrategy, ValueStrategy
from xuezhan.strategies.greedy import discard_mask

OPTIONS = {
    "default": {},
    "lookahead": {"lookahead": True},
    "no_defence": {"defence": False},
    "no_fan": {"fan": False},
    "no_steer": {"steer": False},
    "no_fold": {"fold": False},
    "eager_one_suit": {"one_suit_min": 6, "one_suit_wall": 0, "one_suit_step": 1},
}


def _compare(bot: ValueStrategy, obs) -> int:
    """Compare the core's choice with the reference's at one turn of ``bot``; 1 if compared."""
    mask, _ = discard_mask(obs.legal_actions)
    if not mask:
        return 0
    counts = obs.hand
    melds = bytes(t * 27 + k for t, k in obs.melds[obs.seat])
    bot._update_void(obs, counts, melds)
    vis = obs.seen
    got = _core.value_discard(obs, counts, melds, vis, bot.void, mask, bot.rules.core, bot._params)
    want = reference(bot, obs, counts, melds, vis, mask)
    assert got == want, (obs.hand, obs.melds, obs.discards, obs.wall_count, bot.void)
    return 1


@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_value_discard_equals_the_reference_in_seeded_hands_r4_r5_r7(preset, option):
    """At every turn of two value bots (against greedy) in seeded hands, the core's choice
    and the lowest shanten equal the reference's."""
    compared = 0
    rules = Rules.preset(preset)
    for seed in range(8):
        r = Round.from_seed(rules, 500 + seed, dealer=seed % 4)
        bots = [ValueStrategy(**OPTIONS[option]), GreedyStrategy(), ValueStrategy(**OPTIONS[option]), GreedyStrategy()]
        for s, b in enumerate(bots):
            b.reset(s, r.rules)
        while not r.over:
            obs = r.observation(r.turn.cur)
            bot = bots[r.turn.cur]
            if isinstance(bot, ValueStrategy) and obs.phase == "turn":
                compared += _compare(bot, obs)
            r.apply(bot.act(obs))
    assert compared > 100


def _position(draw) -> tuple[SimpleNamespace, bytes]:
    """A random position of seat 0: 14 concealed tiles (pungs count three) in one to three
    suits, up to two own pungs, opponents with piles, melds and voids, any wall count."""
    suits = draw(st.lists(st.integers(0, 2), min_size=1, max_size=3, unique=True))
    kinds = [k for k in range(27) if k // 9 in suits]
    pung_kinds = draw(st.lists(st.sampled_from(kinds), max_size=2, unique=True))
    left = [0 if k not in kinds else 1 if k in pung_kinds else 4 for k in range(27)]
    tiles = [k for k in range(27) for _ in range(left[k])]
    # which of those tiles are held (distinct places: a kind at most as often as it is left);
    # cheaper for hypothesis to draw than a permutation of the whole pool
    n = 14 - 3 * len(pung_kinds)
    hand = [tiles[i] for i in draw(st.lists(st.integers(0, len(tiles) - 1), min_size=n, max_size=n, unique=True))]
    counts = bytearray(27)
    for k in hand:
        counts[k] += 1
    unseen = [4 - counts[k] - 3 * (k in pung_kinds) for k in range(27)]
    rest = [k for k in range(27) for _ in range(unseen[k])]
    rivers, all_melds = [], [tuple((0, k) for k in pung_kinds)]
    for _ in range(3):
        rivers.append(tuple(draw(st.lists(st.sampled_from(rest), max_size=14))))
        all_melds.append(tuple((0, k) for k in draw(st.lists(st.sampled_from(rest), max_size=2, unique=True))))
    vis = bytearray(27)
    for r in rivers:
        for k in r:
            vis[k] += 1
    for ms in all_melds:
        for _, k in ms:
            vis[k] += 3
    for k in range(27):  # what the seat sees is at most what it does not hold
        vis[k] = min(vis[k], 4 - counts[k])
    obs = SimpleNamespace(
        seat=0,
        hand=bytes(counts),
        melds=tuple(all_melds),
        discards=((), *rivers),
        voids=tuple(draw(st.integers(-1, 2)) for _ in range(4)),
        won=(False, draw(st.booleans()), False, False),
        escaped=(False, False, False, False),
        wall_count=draw(st.integers(0, 55)),
    )
    return obs, bytes(vis)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.data(), st.sampled_from(sorted(OPTIONS)), st.sampled_from(["leshan", "chengdu"]))
def test_value_discard_equals_the_reference_on_crafted_positions(data, option, preset):
    obs, vis = _position(data.draw)
    counts = obs.hand
    assert sum(counts) + 3 * len(obs.melds[0]) == 14
    bot = ValueStrategy(**OPTIONS[option])
    bot.reset(0, Rules.preset(preset))
    bot.void = data.draw(st.integers(-1, 2).filter(lambda v: all(k // 9 != v for _, k in obs.melds[0])))
    melds = bytes(t * 27 + k for t, k in obs.melds[0])
    kinds = [k for k in range(27) if counts[k]]
    mask = sum(1 << k for k in data.draw(st.lists(st.sampled_from(kinds), min_size=1, unique=True)))
    got = _core.value_discard(obs, counts, melds, vis, bot.void, mask, bot.rules.core, bot._params)
    assert got == reference(bot, obs, counts, melds, vis, mask)
    assert mask >> got[0] & 1


def test_value_discard_names_bad_input():
    r = Round.from_seed("leshan", 1)
    obs = r.observation(r.turn.cur)
    bot = ValueStrategy()
    bot.reset(r.turn.cur, r.rules)
    counts, vis = obs.hand, bytes(27)
    held = sum(1 << k for k in range(27) if counts[k])
    p, core = bot._params, r.rules.core
    with pytest.raises(ValueError, match="value_discard: .*legal"):
        _core.value_discard(obs, counts, b"", vis, -1, ~held & ((1 << 27) - 1), core, p)
    broken = SimpleNamespace(**{k: getattr(obs, k) for k in ("seat", "melds", "voids", "won", "escaped", "wall_count")})
    broken.discards = ((), (30,), (), ())
    with pytest.raises(ValueError, match="value_discard: .*30"):
        _core.value_discard(broken, counts, b"", vis, -1, held, core, p)
    with pytest.raises(ValueError, match="one_suit_step"):
        ValueStrategy(one_suit_step=0)
    with pytest.raises(ValueError, match="value_danger: .*27"):
        _core.value_danger(obs, 27, vis)


def test_value_turn_is_one_discard_or_a_kong_r2_1():
    """The strategy's turn returns a legal discard (or a kong) at every decision of seeded hands."""
    for seed in range(4):
        r = Round.from_seed("chengdu", seed)
        bots = [ValueStrategy() for _ in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, r.rules)
        while not r.over:
            obs = r.observation(r.turn.cur)
            a = bots[r.turn.cur].act(obs)
            if obs.phase == "turn" and a.verb != "hu":
                assert a in obs.legal_actions and (a.verb == DISCARD or "gang" in a.verb)
            r.apply(a)
