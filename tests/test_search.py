"""The ``search`` strategy (strategies/search.py, search/): decisions searched through the engine
on determinized samples, the same for the same seed, blind to what its seat cannot know, inside
its time budget, conformant, and rollouts that keep the R12 invariants."""

from __future__ import annotations

import copy
import math
import random

import pytest
from _engine_helpers import CheckedEvents, check_state
from test_determinize import _hidden_twin

from xuezhan.engine import Round, first_dealer, hand_seed, play_hand, run_round
from xuezhan.engine.actions import DISCARD, HU, PASS, act
from xuezhan.engine.decisions import Sampler, bind_samplers, wants_sampler
from xuezhan.engine.determinize import determinize
from xuezhan.engine.observation import Observation
from xuezhan.search import estimate_actions
from xuezhan.search.candidates import candidates
from xuezhan.search.clone import clone
from xuezhan.search.estimate import MARGIN_SAMPLES, Rollouts
from xuezhan.strategies import (
    REGISTRY,
    ROLLOUT_POLICIES,
    GreedyStrategy,
    RandomStrategy,
    SearchStrategy,
    ValueStrategy,
    builtin,
)
from xuezhan.testing import check_strategy

FAST = {"rollouts": 6, "budget": None}  # small and untimed: decisions independent of speed


def _positions(preset: str, hands: int, every: int, seed: int = 3):
    """Decision points of seeded hands played by a mixed line-up (value, greedy, random,
    value; the random seat makes odd positions): (round, seat)."""
    for n in range(hands):
        rnd = Round.from_seed(preset, hand_seed(seed, n), first_dealer(n))
        bots = [ValueStrategy(), GreedyStrategy(), RandomStrategy(seed * 1000 + n), ValueStrategy()]
        for s, b in enumerate(bots):
            b.reset(s, rnd.rules)
        step = 0
        while not rnd.over:
            seat = rnd.turn.cur
            assert seat is not None
            if step % every == n % every:
                yield rnd, seat
            rnd.apply(bots[seat].act(rnd.observation(seat)))
            step += 1


def _search(seed: int = 1, **opts) -> SearchStrategy:
    return SearchStrategy(seed=seed, **{**FAST, **opts})


def _lineup(search: SearchStrategy, seat: int = 0) -> list:
    seats: list = [ValueStrategy() for _ in range(4)]
    seats[seat] = search
    return seats


# ---------------------------------------------------------------------------- construction
def test_registered_and_built_like_the_others():
    assert REGISTRY["search"] is SearchStrategy
    s = builtin("search", seed=3)
    assert isinstance(s, SearchStrategy) and s.seed == 3 and s.uses_sampler


def test_an_unknown_option_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="rollout_count"):
        SearchStrategy(rollout_count=5)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("opts", "name"),
    [
        ({"rollouts": 0}, "rollouts"),
        ({"budget": -1.0}, "budget"),
        ({"policy": "search"}, "search"),
        ({"z": -1}, "z"),
        ({"pick": 0}, "pick"),
        ({"width": 0}, "width"),
        ({"take_wins": "yes"}, "take_wins"),
        ({"ready": 0.5}, "ready"),
        ({"read_discards": 1}, "read_discards"),
        ({"clock": "fast"}, "clock"),
    ],
)
def test_a_bad_option_value_is_one_error_naming_it(opts, name):
    with pytest.raises(ValueError, match=name):
        SearchStrategy(**opts)


class _AskedSampler:
    """A sampler that records the ``ready`` each sample was asked with."""

    def __init__(self, rnd: Round, seat: int) -> None:
        self.inner = Sampler(rnd, seat)
        self.asked: list[float] = []
        self.read: list[bool] = []

    def sample(self, rng: random.Random, *, pick: int = 1, ready: float = 0.0, read_discards: bool = False) -> Round:
        self.asked.append(ready)
        self.read.append(read_discards)
        return self.inner.sample(rng, pick=pick, ready=ready, read_discards=read_discards)


def test_ready_hands_are_asked_for_at_the_rate_of_the_walls_length():
    """Late in a hand the samples' opponents are dealt ready hands at the measured rate (the
    seat's own view of the wall decides it); with ``ready=False`` never."""
    from xuezhan.strategies.search import ready_rate

    for rnd, seat in _positions("leshan", 4, 5, seed=8):
        if rnd.wall.count > 30 or len(rnd.legal_actions(seat)) < 2:
            continue
        for on in (True, False):
            s = _search(seed=3, rollouts=2, ready=on, read_discards=on)
            s.reset(seat, rnd.rules)
            asked = _AskedSampler(rnd, seat)
            s.bind_sampler(asked)  # type: ignore[arg-type]
            s.act(Observation(rnd, seat))
            want = ready_rate(rnd.wall.count) if on else 0.0
            assert asked.asked and all(r == want for r in asked.asked)
            assert asked.read == [on] * len(asked.asked)  # the option reaches the sampler
            assert not on or want > 0.2
        return
    raise AssertionError("no late decision with a choice found")


# ---------------------------------------------------------------------------- the sampler
def test_the_seat_loop_binds_a_sampler_to_built_in_searchers_only():
    class Mine(SearchStrategy):  # a user's subclass: its module is not the project's
        pass

    mine = Mine(**FAST)
    assert not wants_sampler(mine) and wants_sampler(_search())
    seats = [_search(), mine, GreedyStrategy(), ValueStrategy()]
    rnd = Round.from_seed("leshan", 2, 0)
    bind_samplers(rnd, seats)
    assert isinstance(seats[0]._sampler, Sampler) and mine._sampler is None


def test_the_sampler_offers_only_samples_of_its_seat():
    rnd = Round.from_seed("leshan", 2, 0)
    sampler = Sampler(rnd, 0)
    assert [n for n in dir(sampler) if not n.startswith("_")] == ["sample", "sealed"]
    assert [n for n in dir(sampler.sealed()) if not n.startswith("_")] == []  # opened by Rust alone
    d = sampler.sample(random.Random(1))
    assert d is not rnd and d.seed is None and d.seats.counts[0] == rnd.seats.counts[0]
    with pytest.raises(ValueError, match="not seat 1's decision"):
        Sampler(rnd, 1).sample(random.Random(1))


def test_decisions_do_not_change_with_the_hidden_information():
    """The real round's hidden tiles (another hand, the wall) change, what the seat sees does
    not: the search (same seed) decides the same, on many positions of both presets."""
    compared = peeked = 0
    for preset in ("leshan", "chengdu"):
        for rnd, seat in _positions(preset, 6, 7, seed=21):
            obs = Observation(rnd, seat)
            other = next((s for s in range(4) if s != seat and any(rnd.seats.counts[s])), None)
            rest = rnd.wall.left()
            if other is None or len(rest) < 2 or len(rnd.legal_actions(seat)) < 2:
                continue
            twin = _hidden_twin(rnd)
            k = next(k for k in range(27) if twin.seats.counts[other][k])
            j = next((i for i, t in enumerate(rest) if t // 9 == k // 9 and t != k), None)
            if j is None:
                continue
            twin.seats.counts[other][k] -= 1
            twin.seats.counts[other][rest[j]] += 1  # same suit: no void constraint broken (R11.2)
            tiles, pos = twin.wall.tiles, twin.wall.pos
            tiles[pos + j] = k
            tiles[pos:] = reversed(tiles[pos:])
            twin.seats.mask = list(rnd.seats.mask)
            if sum(twin.seats.counts[other]) % 3 == 1:
                twin.seats.update_mask(other)  # its waits follow its (changed) tiles
            assert Observation(twin, seat).to_dict() == obs.to_dict()
            picks, peeks = [], []
            for r in (rnd, twin):
                for sampler, out in ((Sampler(r, seat), picks), (_Peek(r), peeks)):
                    s = _search(seed=5, rollouts=4, pick=2)  # pick 2: the readiest-sample choice too
                    s.reset(seat, r.rules)
                    s.bind_sampler(sampler)  # type: ignore[arg-type]
                    out.append(s.act(Observation(r, seat)))
            assert picks[0] == picks[1]
            compared += 1
            peeked += peeks[0] != peeks[1]
    assert compared >= 15
    assert peeked > 0  # the control: a search that saw the true tiles would have decided otherwise


class _Peek:
    """A cheating sampler (the control): copies of the true round, hidden tiles and all."""

    def __init__(self, rnd: Round) -> None:
        self.rnd = rnd

    def sample(self, rng: random.Random, *, pick: int = 1, ready: float = 0.0, read_discards: bool = False) -> Round:
        return clone(self.rnd, (self.rnd.rules, self.rnd.core))


# ---------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
def test_the_same_seed_gives_the_same_decisions(preset, tmp_path):
    logs = []
    for n in range(2):
        path = tmp_path / f"{n}.jsonl"
        play_hand(_lineup(_search(seed=9), seat=1), preset, seed=31, log=path)
        logs.append(path.read_text(encoding="utf-8"))
    assert logs[0] == logs[1]


def test_search_differs_from_value_somewhere():
    """The search does decide: over a few hands some choice differs from value's."""
    seen = {"differ": 0, "searched": 0}
    s = _search(seed=2, rollouts=16, z=0.0)  # z 0: the best mean, however close
    real = SearchStrategy.act

    def spy(obs):
        a = real(s, obs)
        seen["differ"] += a != s._base.act(obs)
        return a

    s.act = spy  # type: ignore[method-assign]
    for h in range(3):
        play_hand(_lineup(s, seat=h % 4), "leshan", seed=100 + h)
    assert s.searched > 20 and seen["differ"] > 0


def test_futility_drops_an_alternative_that_cannot_pass_by_the_last_sample():
    from xuezhan.strategies.search import _Diff

    even = _Diff()
    for x in [3, -3] * 4:  # 8 samples, mean 0, spread 3: to pass it needs 2 SE of 32 samples
        even.add(x)
    assert even.futile(2.0, 32) and even.high(2.0) > 0  # the worse-than-base rule keeps it
    assert not even.futile(0.0, 32)  # at z 0 a mean above 0 is enough, and 1 SE may reach it
    ahead = _Diff()
    for x in [4, 2] * 4:
        ahead.add(x)
    assert not ahead.futile(2.0, 32)
    one = _Diff()
    one.add(-5)
    assert not one.futile(2.0, 32)  # no spread yet: nothing is judged on one sample


def test_a_forced_decision_is_not_searched():
    rnd = Round.from_seed("leshan", 4, 0)
    s = _search()
    s.reset(0, rnd.rules)
    s.bind_sampler(Sampler(rnd, 0))
    obs = Observation(rnd, 0)
    only = obs.legal_actions[0]
    obs.legal_actions = [only]  # one legal action: nothing to weigh
    assert s.act(obs) == only and s.searched == 0


def test_without_a_sampler_it_plays_value():
    rnd = Round.from_seed("leshan", 4, 0)
    s, v = _search(), ValueStrategy()
    s.reset(0, rnd.rules)
    v.reset(0, rnd.rules)
    assert s.act(Observation(rnd, 0)) == v.act(Observation(rnd, 0)) and s.searched == 0


# ---------------------------------------------------------------------------- candidates
def test_every_claim_answer_is_a_candidate_and_the_win_at_a_turn():
    for rnd, seat in _positions("leshan", 40, 2, seed=3):
        legal = rnd.legal_actions(seat)
        obs = Observation(rnd, seat)
        v = ValueStrategy()
        v.reset(seat, rnd.rules)
        base = v.act(obs)
        c = candidates(obs, base, v.void, 3)
        assert c[0] == base and len(set(c)) == len(c) and all(a in legal for a in c)
        if obs.phase == "claim":
            assert set(c) == set(legal)
        if any(a.verb == HU for a in legal):
            assert act(seat, HU) in c
        assert sum(a.verb == DISCARD for a in c) <= 3


def test_exchange_and_void_choices_are_searched():
    rnd = Round.from_seed("chengdu", 6, 0)
    s = _search()
    seats = _lineup(s, seat=rnd.turn.cur or 0)
    for i, b in enumerate(seats):
        b.reset(i, rnd.rules)
    bind_samplers(rnd, seats)
    while rnd.turn.phase.label in ("exchange", "void"):
        seat = rnd.turn.cur
        assert seat is not None
        rnd.apply(seats[seat].act(Observation(rnd, seat)))
    assert s.searched == 2  # its exchange (R11.1) and its void (R11.2)


# ---------------------------------------------------------------------------- the budget
class _FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _SlowSampler:
    """A sampler whose samples cost fake time: 10 ms, then sometimes 30 ms."""

    def __init__(self, rnd: Round, seat: int, clock: _FakeClock) -> None:
        self.inner = Sampler(rnd, seat)
        self.clock = clock
        self.costs: list[float] = []

    def sample(self, rng: random.Random, *, pick: int = 1, ready: float = 0.0, read_discards: bool = False) -> Round:
        cost = 0.03 if len(self.costs) % 5 == 4 else 0.01
        self.costs.append(cost)
        self.clock.now += cost
        return self.inner.sample(rng, pick=pick, ready=ready, read_discards=read_discards)


@pytest.mark.parametrize("budget", [0.005, 0.05, 0.2])
def test_a_decision_never_exceeds_its_budget_by_more_than_one_sample(budget, monkeypatch):
    rnd = Round.from_seed("leshan", 7, 0)
    clock = _FakeClock()
    # z and no futility: nothing dropped, so the budget is what ends the sampling; pick 1: one
    # sample is one draw of the sampler (the unit of the margin)
    monkeypatch.setattr("xuezhan.strategies.search.FUTILITY_Z", math.inf)
    s = SearchStrategy(seed=1, rollouts=1000, budget=budget, clock=clock, z=100.0, pick=1)
    s.reset(0, rnd.rules)
    slow = _SlowSampler(rnd, 0, clock)
    s.bind_sampler(slow)  # type: ignore[arg-type]
    t0 = clock.now
    s.act(Observation(rnd, 0))
    used = clock.now - t0
    assert s.cut == 1 and 0 < len(slow.costs) < 1000
    assert used <= budget + MARGIN_SAMPLES * max(slow.costs) + 1e-12
    assert used + max(slow.costs) > budget  # it stopped only when the slowest sample might not fit


def test_estimate_actions_keeps_to_its_budget():
    rnd = Round.from_seed("leshan", 7, 0)
    clock = _FakeClock()
    ticks = iter(range(10**6))

    def advancing() -> float:  # every reading is 10 ms after the previous one
        return 100.0 + 0.01 * next(ticks)

    est = estimate_actions(
        rnd, 0, rollouts=500, rng=random.Random(0), policy=GreedyStrategy, budget=0.1, clock=advancing
    )
    assert 1 <= est[0].rollouts < 500 and len({e.rollouts for e in est}) == 1
    del clock


# ---------------------------------------------------------------------------- rollouts
@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
def test_r12_invariants_hold_in_every_rollout(preset):
    """A few hundred positions: each candidate played on a copy of a sample, R12 checked after
    every event, and the sample itself untouched by the copies' play."""
    rng = random.Random(3)
    play = Rollouts(ValueStrategy)
    rolled = 0
    for rnd, seat in _positions(preset, 40, 5, seed=12):
        obs = Observation(rnd, seat)
        v = ValueStrategy()
        v.reset(seat, rnd.rules)
        cands = candidates(obs, v.act(obs), v.void, 3)
        base = determinize(rnd, seat, rng)
        before = copy.deepcopy(base)
        for a in cands:
            d = clone(base, (base.rules, base.core))
            d.ledger.events = CheckedEvents(d, d.ledger.events)
            d.apply(a)
            play.play(d, rolled)
            assert d.over
            check_state(d)
            rolled += 1
        assert (
            base.seats.counts == before.seats.counts
            and base.wall == before.wall
            and base.ledger.events == before.ledger.events
        )
    assert rolled > 300


def test_a_clone_plays_exactly_like_a_deep_copy():
    rng = random.Random(8)
    compared = 0
    for rnd, seat in _positions("chengdu", 15, 9, seed=2):
        d = determinize(rnd, seat, rng)
        runs = []
        for copy_of in (lambda r: clone(r, (r.rules, r.core)), copy.deepcopy):
            c = copy_of(d)
            bots = [GreedyStrategy() for _ in range(4)]
            for s, b in enumerate(bots):
                b.reset(s, c.rules)
            run_round(c, bots)
            runs.append(([e.to_json() for e in c.ledger.events], c.ledger.deltas))
        assert runs[0] == runs[1]
        compared += 1
    assert compared > 30


def test_a_clone_of_a_round_never_falls_back_to_deep_copy(monkeypatch):
    """Everything a round holds is a type clone knows (the actions in it are named tuples it
    shares), so the copy never pays for copy.deepcopy; the copy is still independent."""
    import xuezhan.search.clone as clone_module

    def refuse(x, memo=None):
        raise AssertionError(f"clone fell back to deepcopy on a {type(x).__name__}")

    monkeypatch.setattr(clone_module.copy, "deepcopy", refuse)
    cloned = 0
    for preset in ("leshan", "chengdu", "xueliu"):
        for rnd, seat in _positions(preset, 4, 7, seed=5):
            c = clone(rnd, (rnd.rules, rnd.core))
            c.apply(c.legal_actions(seat)[0])
            assert c.ledger.events != rnd.ledger.events and c.turn is not rnd.turn
            cloned += 1
    assert cloned > 30


def test_rollouts_take_a_strategy_class_never_a_name_to_look_up():
    """The search is handed its rollout policy; the names are looked up by the callers
    (SearchStrategy's and the review's ``policy`` option), each naming the policies."""
    with pytest.raises(TypeError, match="policy: expected a strategy class.*got str 'value'"):
        Rollouts("value")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'search' searches itself"):
        Rollouts(SearchStrategy)
    with pytest.raises(ValueError, match="'nope' is not a rollout policy .one of random, greedy, value."):
        SearchStrategy(policy="nope")
    with pytest.raises(ValueError, match="'search' is not a rollout policy"):
        SearchStrategy(policy="search")
    assert Rollouts(RandomStrategy).policy is RandomStrategy
    assert {n: f for n, f in REGISTRY.items() if not getattr(f, "uses_sampler", False)} == ROLLOUT_POLICIES


# ---------------------------------------------------------------------------- conformance
def test_search_passes_the_conformance_check():
    """check-bot's check (every preset, the exchange and the void included): no illegal
    action, timeout, crash or exception; the recorder hands the sampler on, so it searches."""
    s = _search(seed=4, rollouts=4)
    report = check_strategy(s, hands=6, seed=3)
    assert report.ok, report.format()
    assert report.hands == 6 and s.searched > 20


def test_search_as_an_opponent_gets_its_sampler():
    rnd = Round.from_seed("leshan", 3, 0)
    s = _search()
    seats = _lineup(s, seat=2)
    for i, b in enumerate(seats):
        b.reset(i, rnd.rules)
    run_round(rnd, seats)
    assert s.searched > 0 and rnd.over


def test_a_win_is_taken_unsearched_unless_asked_and_then_weighed_against_passing():
    """By default a legal win is taken (take_wins); with take_wins=False the win and the pass
    are both rollout candidates and the win is searched."""
    for rnd, seat in _positions("leshan", 80, 1, seed=6):
        legal = rnd.legal_actions(seat)
        if rnd.turn.phase.label == "claim" and act(seat, HU) in legal:
            obs = Observation(rnd, seat)
            v = ValueStrategy()
            v.reset(seat, rnd.rules)
            c = candidates(obs, v.act(obs), v.void, 4)
            assert act(seat, HU) in c and act(seat, PASS) in c
            for take, searched in ((True, 0), (False, 1)):
                s = _search(take_wins=take)
                s.reset(seat, rnd.rules)
                s.bind_sampler(Sampler(rnd, seat))
                a = s.act(Observation(rnd, seat))
                assert s.searched == searched and a in (act(seat, HU), act(seat, PASS))
            return
    pytest.fail("no claimable win in 80 hands")


def test_a_sampler_that_finds_no_sample_leaves_the_base_choice():
    from xuezhan.engine.determinize import DeterminizeError

    class Stuck:
        def sample(
            self, rng: random.Random, *, pick: int = 1, ready: float = 0.0, read_discards: bool = False
        ) -> Round:
            raise DeterminizeError("no sample")

    rnd = Round.from_seed("leshan", 4, 0)
    s, v = _search(), ValueStrategy()
    s.reset(0, rnd.rules)
    v.reset(0, rnd.rules)
    s.bind_sampler(Stuck())  # type: ignore[arg-type]
    assert s.act(Observation(rnd, 0)) == v.act(Observation(rnd, 0))
    assert s.unsampled == 1


def test_a_searching_opponent_in_the_environment_gets_its_sampler():
    import xuezhan.env as xe

    s = _search(rollouts=2, pick=1)
    env = xe.single_agent(opponents=[s, "value", "value"], seat=0, rules="leshan")
    env.reset(seed=5)
    for _ in range(60):
        if s.searched:
            break
        _, _, done, _, _ = env.step(int(env.action_masks().argmax()))
        if done:
            env.reset(seed=6)
    assert s.searched > 0  # it searched: the environment bound its sampler (seat 1)
