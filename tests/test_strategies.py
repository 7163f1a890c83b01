"""Built-in strategies on crafted observations (greedy, value) and over many seeded hands:
always legal, sensible choices (docs/rules.md R2.1 turns, R3.1 claims, R4.2 two suits / void,
R7.1 pigs, R11.1 exchange, R11.2 void declaration)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from xuezhan import _core
from xuezhan.engine import Observation, Round, act
from xuezhan.engine.actions import DISCARD, EXCHANGE, GANG, HU, PASS, PENG, VOID
from xuezhan.engine.observation import seen_counts
from xuezhan.rules import Rules
from xuezhan.strategies import REGISTRY, ExpertStrategy, GreedyStrategy, RandomStrategy, SearchStrategy, ValueStrategy
from xuezhan.strategies.value import danger, likely_void, triplets_shanten
from xuezhan.tiles import parse_tiles, tile_kind, to_counts
from xuezhan.tournament import TournamentConfig, run

LESHAN = Rules.preset("leshan")
K = tile_kind


def rnd(hands, wall=None, dealer=0, rules=LESHAN, exchange=None):
    """A crafted hand (R13 style: hands and a short wall). ``wall=None``: four spare tiles."""
    kinds = [parse_tiles(h) for h in hands]
    if wall is None:
        used = [0] * 27
        for h in kinds:
            for k in h:
                used[k] += 1
        spare = [k for k in range(27) for _ in range(4 - used[k])]
        w = spare[-4:]
    else:
        w = parse_tiles(wall)
    return Round(rules, kinds, w, dealer, exchange)


def decide(strategy, r, seat=None):
    seat = r.turn.cur if seat is None else seat
    strategy.reset(seat, r.rules)
    obs = r.observation(seat)
    action = strategy.act(obs)
    assert action in obs.legal_actions or action.verb == EXCHANGE, f"{action} is not legal"
    return action


def crafted(obs, **changes):
    """A copy of a real observation with some fields replaced (what a seat could see later);
    ``seen`` follows the piles and melds."""
    d = {k: getattr(obs, k) for k in Observation.__slots__}
    d.update(changes)
    d["seen"] = seen_counts(d["discards"], d["melds"])
    return SimpleNamespace(**d)


BOTH = [GreedyStrategy, ValueStrategy]

# The docstring hand of the round engine: seat 1 can win on 5p (R3.1).
WIN_HANDS = ["1235679m1235579p", "123456789m3455p", "123456789s1489m", "124468p1356789s"]


def test_registry_names_the_built_in_strategies():
    assert {
        "random": RandomStrategy,
        "greedy": GreedyStrategy,
        "value": ValueStrategy,
        "search": SearchStrategy,
        "expert": ExpertStrategy,
    } == REGISTRY


@pytest.mark.parametrize("cls", BOTH)
def test_always_wins_on_a_discard_r3_1(cls):
    r = rnd(WIN_HANDS)
    r.apply(act(0, DISCARD, K("5p")))
    assert {a.verb for a in r.legal_actions(1)} == {HU, PENG, PASS}
    assert decide(cls(), r, 1).verb == HU


@pytest.mark.parametrize("cls", BOTH)
def test_always_wins_by_self_draw_r2_1(cls):
    r = rnd(["123456789m11p567p", "2468m13579p2468s", "13579m2468p1357s", "2468m13579p1357s"])
    assert any(a.verb == HU for a in r.legal_actions(0))
    assert decide(cls(), r).verb == HU


@pytest.mark.parametrize("cls", BOTH)
def test_discards_the_void_suit_first_r4_2(cls):
    # 14 tiles, fewest in s (78s): both commit to s as the void suit and throw it away first,
    # although 5p is just as useless to the hand.
    r = rnd(["123456789m115p78s", "2468m13579p2468s", "13579m2468p1357s", "2468m13579p1357s"])
    a = decide(cls(), r)
    assert a.verb == DISCARD and a.arg in (K("7s"), K("8s"))


def test_greedy_voids_the_suit_it_holds_fewest_of_value_the_one_that_costs_least():
    # m: nine tiles; p: 2p 5p 8p (no two connect); s: the pair 88s. Greedy counts tiles (s has
    # fewest) and throws an 8s; value sees that dropping p costs less shanten (R4.2).
    hands = ["235667789m258p88s", "2468m13579p2468s", "13579m2468p1357s", "2468m1379p13567s"]
    g = decide(GreedyStrategy(), rnd(hands))
    v = decide(ValueStrategy(), rnd(hands))
    assert g.arg == K("8s")
    assert v.arg in (K("2p"), K("5p"), K("8p"))
    c = to_counts("235667789m258p88s")
    assert _core.shanten_parts(c, b"", 1)[0] < _core.shanten_parts(c, b"", 2)[0]


def test_greedy_takes_the_most_ukeire_value_the_most_valuable_wait():
    # Both discards leave the hand ready (R4.1). Greedy keeps the most tiles that win (6p out);
    # value counts what they are worth: 5p out waits on 22m/44m/... with bigger wins.
    hands = ["22334499m225667p", "13579m2468s1357s", "13579m2468p1357s", "2468m13579p1357s"]
    g = decide(GreedyStrategy(), rnd(hands))
    v = decide(ValueStrategy(), rnd(hands))
    assert g == act(0, DISCARD, K("6p"))
    assert v == act(0, DISCARD, K("5p"))

    def worth(discard):
        c = bytearray(to_counts("22334499m225667p"))
        c[discard] -= 1
        return sum((4 - c[w]) * pts for w, _f, pts in _core.waits(bytes(c), b"", LESHAN.core, -1))

    assert worth(K("5p")) > worth(K("6p"))


@pytest.mark.parametrize("cls", BOTH)
def test_pengs_when_that_lowers_shanten_r3_1(cls):
    hands = ["12468m24568p1379s", "123456m55p789p12s", "13579m2468p1357s", "2468m1379p13578s"]
    r = rnd(hands)
    r.apply(act(0, DISCARD, K("5p")))
    seat = r.turn.cur
    assert seat == 1 and PENG in {a.verb for a in r.legal_actions(1)}
    assert decide(cls(), r, 1).verb == PENG


@pytest.mark.parametrize("cls", BOTH)
def test_never_pengs_its_void_suit(cls):
    # seat 1 holds 55s but s is its void suit (fewest tiles): it passes (R4.2).
    hands = ["12468m2468p13579s", "12345678m139p55s", "13579m2468p1357s", "2468m1379p13678s"]
    r = rnd(hands)
    r.apply(act(0, DISCARD, K("5s")))
    assert PENG in {a.verb for a in r.legal_actions(1)}
    assert decide(cls(), r, 1).verb == PASS


@pytest.mark.parametrize("cls", BOTH)
def test_kongs_on_a_discard_when_that_does_not_raise_shanten(cls):
    hands = ["12468m24568p1379s", "123456m555p789p1s", "13579m2468p1357s", "2468m1379p13578s"]
    r = rnd(hands)
    r.apply(act(0, DISCARD, K("5p")))
    assert GANG in {a.verb for a in r.legal_actions(1)}
    assert decide(cls(), r, 1).verb == GANG


@pytest.mark.parametrize("cls", BOTH)
def test_exchange_and_void_declaration_r11(cls):
    rules = Rules.preset("chengdu")
    hands = ["123456789m159p45s", "2468m13579p2468s", "13579m2468p1357s", "2468m1379p13578s"]
    r = rnd(hands, rules=rules, exchange="next")
    assert r.turn.phase == 0  # exchange
    a = decide(cls(), r)
    assert a.verb == EXCHANGE and len({k // 9 for k in a.arg}) == 1 and len(a.arg) == 3
    r.apply(a)
    for _seat in (1, 2, 3):
        r.apply(r.default_action())
    assert r.turn.cur == 0 and all(x.verb == VOID for x in r.legal_actions(0))
    v = decide(cls(), r)
    assert v.verb == VOID


def test_value_defends_late_when_far_from_ready():
    # Seat 0 (value) holds m and s tiles only (void p), far from ready, wall nearly empty.
    # Seat 2 has pungs in m and p: it cannot win on an s tile (R4.2), so s tiles are safe.
    hands = ["12479m47m258s1369s", "2468m13579p2468s", "13579m2468p1357s", "2468m1379p13578s"]
    r = rnd(hands)
    v = ValueStrategy()
    v.reset(0, r.rules)
    obs = r.observation(0)
    late = crafted(
        obs,
        wall_count=8,
        melds=((), (), ((0, K("8m")), (0, K("3p"))), ()),
        discards=((), (K("1p"),) * 3, tuple(parse_tiles("9p7p2m6m4p1m6p2p")), tuple(parse_tiles("1s2s"))),
    )
    assert likely_void(late, 2) == 2  # its melds cover m and p
    assert _core.shanten_parts(obs.hand, b"", 1)[0] >= 2
    a = v.act(late)
    assert a.verb == DISCARD and a.arg // 9 == 2  # an s tile
    vis = bytes(27)
    # without defence it would throw its most useless tile, an m tile seat 2 can win on
    off = ValueStrategy(defence=False)
    off.reset(0, r.rules)
    b = off.act(late)
    assert b.verb == DISCARD and b.arg // 9 == 0 and danger(late, b.arg, vis) > danger(late, a.arg, vis)
    # seat 2 alone: it cannot win on an s tile (R4.2), but can on the m tile
    only2 = crafted(late, won=(False, True, False, True))
    assert danger(only2, a.arg, vis) == 0.0 < danger(only2, b.arg, vis)
    # the same hand early in the hand, with nobody threatening: it plays for speed instead
    early = crafted(obs, melds=((), (), (), ()), discards=((), (), (), ()), wall_count=55)
    assert ValueStrategy().act(early).verb == DISCARD


def test_triplets_shanten_counts_melds_as_triplets():
    assert triplets_shanten(to_counts("111222333m4455p"), b"") == 0  # ready: 4p or 5p
    assert triplets_shanten(to_counts("1122m"), bytes([9, 10, 11])) == 0  # three pungs + two pairs
    assert triplets_shanten(to_counts("111m22m33p44p55p9s"), b"") == 2


VARIANTS = {
    "default": {},
    "lookahead": {"lookahead": True},
    "no_one_suit": {"one_suit": False},
    "plain": {
        "defence": False,
        "fan": False,
        "smart_void": False,
        "steer": False,
        "lookahead": False,
        "kong_slack": 0,
        "one_suit": False,
    },
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
def test_many_hands_always_legal_never_pig(preset, variant):
    """Every decision of greedy and value (with its options) is legal (an illegal action would
    be an escape, R10.3) over seeded hands under both presets; neither ends a hand as a pig (R7.1)."""
    value = {"strategy": "value", "options": VARIANTS[variant], "name": "value"}
    cfg = TournamentConfig(
        strategies=["greedy", value, "greedy", value], hands=40, seed=3, workers=1, rules={"preset": preset}
    )
    df = run(cfg, progress=False)
    assert not df["escape"].any() and (df["timeouts"] == 0).all()
    assert not df["pig"].any()
    assert (df.groupby("hand")["delta"].sum() == 0).all()
    assert df["won"].mean() > 0.5


def test_value_with_every_option_off_plays_like_greedy():
    plain = {"strategy": "value", "options": VARIANTS["plain"], "name": "plain"}
    cfg = TournamentConfig(strategies=["greedy", plain, "greedy", plain], hands=24, seed=8, workers=1)
    df = run(cfg, progress=False)
    # identical decisions: the two labels' results mirror each other on every wall
    per = df.groupby(["seed_index", "strategy"])["delta"].sum().unstack()
    assert (per["greedy"] == per["plain"]).all() and (per["greedy"] == 0).all()


def test_builtin_strategies_share_one_constructor_seed_and_keyword_options():
    from xuezhan.strategies import REGISTRY

    for name, cls in REGISTRY.items():
        s = cls(seed=5)
        assert s.seed == 5, name
        with pytest.raises(TypeError, match="'colour'"):
            cls(seed=5, colour=1)
    assert ValueStrategy(3, defence=False).defence is False
    with pytest.raises(TypeError):
        ValueStrategy(3, False)  # options are keyword-only


def test_value_kong_and_claim_decisions_are_greedys_with_its_slack():
    """One implementation of the kong and claim choices: value is greedy with kong_slack = 1
    (and its hooks); with kong_slack = 0 and the hooks neutral they decide alike."""
    from xuezhan.strategies.greedy import GreedyStrategy as G

    assert ValueStrategy._kong is G._kong and ValueStrategy.claim is G.claim
    assert G.kong_slack == 0 and ValueStrategy().kong_slack == 1
