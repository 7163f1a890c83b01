"""Determinization (engine/determinize.py): a sampled round never contradicts the seat's
observation, never depends on what the seat cannot know, and plays on under the R12 invariants."""

from __future__ import annotations

import dataclasses
import random

import pytest
from _engine_helpers import CheckedEvents, LeaningBot, check_state, claim_windows_showing_tiles
from hypothesis import given, settings
from hypothesis import strategies as st

from xuezhan.engine import Round, run_round
from xuezhan.engine import determinize as determinize_module
from xuezhan.engine._core_adapter import shanten, wait_mask
from xuezhan.engine.determinize import determinize
from xuezhan.engine.match import first_dealer, hand_seed
from xuezhan.engine.turn import Phase
from xuezhan.strategies import GreedyStrategy
from xuezhan.tiles import tile_kind

PRESETS = ("leshan", "chengdu", "xueliu")


def _view(rnd: Round, seat: int) -> dict:
    obs = rnd.observation(seat)
    return {**obs.to_dict(), "seen": obs.seen, "discard_mask": obs.discard_mask}


def _positions(preset: str, hands: int, every: int, seed: int = 3):
    """Decision points of seeded hands played by leaning random bots: (round, seat)."""
    for n in range(hands):
        rnd = Round.from_seed(preset, hand_seed(seed, n), first_dealer(n))
        bots = [LeaningBot(n * 4 + i, p_hu=0.8) for i in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, rnd.rules)
        step = 0
        while not rnd.over:
            seat = rnd.turn.cur
            if step % every == n % every:
                yield rnd, seat
            rnd.apply(bots[seat].act(rnd.observation(seat)))
            step += 1


@pytest.mark.parametrize(
    ("pick", "ready", "reading"), [(1, 0.0, False), (6, 0.0, False), (1, 1.0, False), (6, 0.5, False), (4, 1.0, True)]
)
@pytest.mark.parametrize("preset", PRESETS)
def test_a_sample_never_contradicts_the_seats_observation(preset, pick, ready, reading):
    rng = random.Random(11)
    checked = 0
    for rnd, seat in _positions(preset, 60, 7):
        want = _view(rnd, seat)
        d = determinize(rnd, seat, rng, pick=pick, ready=ready, read_discards=reading)
        assert _view(d, seat) == want
        d.check_invariants()  # R12.1 (the sampled tiles are the unseen ones), R12.2, R12.3
        assert [sum(c) for c in d.seats.counts] == [sum(c) for c in rnd.seats.counts]  # hand sizes are public
        assert d.seed is None and d.ledger.events == []  # nothing of the real hand's record
        checked += 1
    assert checked > 400


@pytest.mark.parametrize("preset", PRESETS)
def test_a_sample_does_not_depend_on_hidden_information(preset):
    """Swap a tile between another seat's hand and the wall, or reorder the wall: what the seat
    cannot see changes, the sample (same generator) does not."""
    moved = 0
    for n, (rnd, seat) in enumerate(_positions(preset, 30, 11, seed=5)):
        pick = 1 + n % 3 * 3  # the readiest of 1, 4 or 7 samples: each ranked on sampled tiles only
        ready = n % 2 * 0.6  # ready hands dealt or not: on the seat's view of the voids only
        reading = n % 4 == 1  # ready hands shaped by the public discards
        a = determinize(rnd, seat, random.Random(7), pick=pick, ready=ready, read_discards=reading)
        other = next((s for s in range(4) if s != seat and any(rnd.seats.counts[s])), None)
        rest = rnd.wall.left()
        if other is None or not rest:
            continue
        k = next(k for k in range(27) if rnd.seats.counts[other][k])
        j = next((i for i, t in enumerate(rest) if t != k), None)
        if j is None:
            continue
        t = rest[j]
        if _banned_by_history(rnd, other, t):
            continue
        twin = _hidden_twin(rnd)
        twin.seats.counts[other][k] -= 1
        twin.seats.counts[other][t] += 1
        tiles, pos = twin.wall.tiles, twin.wall.pos
        tiles[pos + j] = k
        tiles[pos:] = reversed(tiles[pos:])
        b = determinize(twin, seat, random.Random(7), pick=pick, ready=ready, read_discards=reading)
        assert [bytes(c) for c in a.seats.counts] == [bytes(c) for c in b.seats.counts]
        assert a.wall == b.wall
        moved += 1
    assert moved > 50


def _hidden_twin(rnd: Round) -> Round:
    """The same round with its own copy of what the test changes (the hands and the wall)."""
    twin = Round.__new__(Round)
    twin.__dict__.update(rnd.__dict__)
    twin.seats = dataclasses.replace(rnd.seats, counts=[bytearray(c) for c in rnd.seats.counts])
    twin.wall = dataclasses.replace(rnd.wall, tiles=list(rnd.wall.tiles))
    return twin


def _banned_by_history(rnd: Round, seat: int, kind: int) -> bool:
    # the swap must keep the twin consistent with its own public history (a void suit it may not
    # hold, R11.2): skip those cases rather than build an impossible twin
    return rnd.seats.voids_known and rnd.seats.void[seat] == kind // 9


@pytest.mark.parametrize("preset", PRESETS)
def test_r12_invariants_hold_in_every_rollout_from_a_sample(preset):
    rng = random.Random(2)
    rolled = 0
    for rnd, seat in _positions(preset, 25, 13, seed=9):
        d = determinize(rnd, seat, rng)
        d.ledger.events = CheckedEvents(d, d.ledger.events)
        bots = [GreedyStrategy() for _ in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, d.rules)
        run_round(d, bots)
        assert d.over
        check_state(d)
        rolled += 1
    assert rolled > 100


def test_every_answer_to_a_claim_that_shows_a_seats_tiles_plays_out_R3_3():
    """At a claim window where another seat's tiles are public (a declared peng or kong, a kong
    being added that may be robbed, R3.3), the samples deal that seat the tiles its meld takes,
    so every answer, passing a win included, plays out under the R12 invariants. Before, the
    tile of an added kong was dealt anywhere, and passing the robbing win broke the sample."""
    rng = random.Random(5)
    kinds = {"meld": 0, "robbing": 0}
    for rnd, seat in claim_windows_showing_tiles("leshan", 80):
        kinds["robbing" if rnd.turn.claims.robbing else "meld"] += 1
        for action in rnd.legal_actions(seat):
            d = determinize(rnd, seat, rng, pick=4, ready=0.5)
            d.apply(action)
            players = [GreedyStrategy() for _ in range(4)]
            for s, b in enumerate(players):
                b.reset(s, d.rules)
            run_round(d, players)
            check_state(d)
    assert kinds["meld"] >= 3 and kinds["robbing"] >= 1, kinds


def _opponents_shanten(d: Round, seat: int) -> int:
    return sum(
        shanten(bytes(d.seats.counts[s]), bytes(d.seats.mbytes[s]), d.seats.void[s] if d.seats.voids_known else -1)
        for s in range(4)
        if s != seat and not d.seats.won[s] and not d.seats.escaped[s]
    )


@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
def test_pick_keeps_the_readiest_sample_of_the_other_hands(preset):
    """``pick=k`` ranks k samples of the other hands by their total shanten and keeps the
    lowest: over hundreds of positions its opponents are much readier than a single sample's
    drawn from the same generator state (the first of the k)."""
    single = picked = positions = 0
    for rnd, seat in _positions(preset, 12, 5, seed=21):
        if rnd.turn.phase in (Phase.EXCHANGE, Phase.VOID):
            continue
        single += _opponents_shanten(determinize(rnd, seat, random.Random(positions)), seat)
        picked += _opponents_shanten(determinize(rnd, seat, random.Random(positions), pick=8), seat)
        positions += 1
    assert positions > 100
    print(f"{positions} positions: total shanten {single / positions:.2f} -> {picked / positions:.2f}")
    assert picked <= single - positions  # at least one step readier on average


def _ready_opponents(d: Round, seat: int) -> tuple[int, int]:
    """(ready, waiting): the other seats still playing that wait for a tile, and how many of
    them are ready (the core's wait mask of their tiles is not empty)."""
    ready = waiting = 0
    for s in range(4):
        if s != seat and not d.seats.won[s] and not d.seats.escaped[s] and sum(d.seats.counts[s]) % 3 == 1:
            waiting += 1
            void = d.seats.void[s] if d.seats.voids_known else -1
            ready += wait_mask(bytes(d.seats.counts[s]), bytes(d.seats.mbytes[s]), void) != 0
    return ready, waiting


@pytest.mark.parametrize("preset", PRESETS)
def test_ready_deals_ready_hands_at_the_rate_asked(preset):
    """``ready=r``: each other seat waiting for a tile holds a ready hand with chance about r,
    checked by the core's own wait mask: a little less, because a deal whose ready hands do not
    fit with the seats' constraints (their melds, voids, the tiles left) falls back to uniform
    hands, which are almost never ready (measured: 0, 0.35 and 0.93 in leshan)."""
    counts = {0.0: [0, 0], 0.4: [0, 0], 1.0: [0, 0]}
    for n, (rnd, seat) in enumerate(_positions(preset, 10, 4, seed=23)):
        if rnd.turn.phase in (Phase.EXCHANGE, Phase.VOID):
            continue
        for r, c in counts.items():
            got, of = _ready_opponents(determinize(rnd, seat, random.Random(n), ready=r), seat)
            c[0] += got
            c[1] += of
    share = {r: got / of for r, (got, of) in counts.items()}
    shares = ", ".join(f"{r}: {v:.2f}" for r, v in share.items())
    print(f"{preset}: ready share of the waiting seats asked for {shares}")
    assert counts[1.0][1] > 300
    assert share[0.0] < 0.1 and 0.25 < share[0.4] < 0.5 and share[1.0] > 0.8, share


def _holds_its_void(rnd: Round, seat: int) -> list[int]:
    """The other seats that, as ``seat`` knows, still hold a tile of their shown void suit (the
    exchange tiles it passed them, not yet discarded): such a seat cannot be ready (R11.2)."""
    need, _, _ = determinize_module._constraints(rnd, seat)
    return [
        s
        for s, n in need.items()
        if rnd.seats.voids_known and any(n[k] for k in range(27) if k // 9 == rnd.seats.void[s])
    ]


@pytest.mark.parametrize("preset", ["chengdu", "xueliu"])
def test_a_seat_holding_its_void_is_not_asked_to_be_ready_and_the_others_still_are_R11_2(preset):
    """A seat still holding tiles of its void suit has no ready hand; asking for one made every
    try of the sample fail, and the other seats fell back to uniform hands. Now it is dealt
    uniformly and the others are still made ready."""
    ready = waiting = positions = 0
    for n, (rnd, seat) in enumerate(_positions(preset, 60, 3, seed=31)):
        stuck = _holds_its_void(rnd, seat)
        if not stuck or rnd.wall.count < 30 or rnd.turn.phase is not Phase.TURN:
            continue
        positions += 1
        d = determinize(rnd, seat, random.Random(n), ready=1.0)
        for s in range(4):
            if s != seat and s not in stuck and not d.seats.won[s] and sum(d.seats.counts[s]) % 3 == 1:
                waiting += 1
                ready += wait_mask(bytes(d.seats.counts[s]), bytes(d.seats.mbytes[s]), d.seats.void[s]) != 0
    assert positions >= 20 and waiting >= 30, (positions, waiting)
    assert ready / waiting > 0.8, (ready, waiting)


@pytest.mark.parametrize("preset", PRESETS)
def test_asking_for_ready_hands_spends_bounded_work(preset, monkeypatch):
    """Ready hands are optional: the search for them is cut at a small number of steps per seat
    and of tries, so a sample whose ready hands do not fit (late in the wall) costs at most that,
    counted in steps of the block search, not in time. Hands that must win (R14) keep their
    larger budget, so xueliu positions with locked winners are left out."""
    steps = [0]
    run = determinize_module._BlockSearch.run

    def counted(self, *args):
        steps[0] += 1
        return run(self, *args)

    monkeypatch.setattr(determinize_module._BlockSearch, "run", counted)
    bound = determinize_module._READY_TRIES * 3 * determinize_module._READY_STEPS
    most = checked = 0
    for n, (rnd, seat) in enumerate(_positions(preset, 20, 5, seed=37)):
        if any(rnd.seats.won) or rnd.turn.claims is not None and rnd.turn.claims.hu:
            continue
        steps[0] = 0
        determinize(rnd, seat, random.Random(n), ready=1.0)
        most = max(most, steps[0])
        checked += 1
    assert checked > 100
    assert 0 < most <= bound, (most, bound)


def test_no_ready_hands_draws_no_extra_numbers():
    """``ready=0`` (the default) samples exactly as before the option existed: the same
    generator gives the same round with or without it, and ``read_discards`` (which only shapes
    ready hands) changes nothing then."""
    for rnd, seat in _positions("leshan", 3, 9, seed=2):
        a = determinize(rnd, seat, random.Random(4))
        for opts in ({"ready": 0.0}, {"ready": 0.0, "read_discards": True}):
            b = determinize(rnd, seat, random.Random(4), **opts)
            assert [bytes(c) for c in a.seats.counts] == [bytes(c) for c in b.seats.counts] and a.wall == b.wall


def _reading_tally(preset: str):
    """Over seeded positions, the ready hands dealt to seats whose play says something (a suit
    they seem to clear, the core's ``likely_void``; kinds they have discarded), with and
    without ``read_discards``: per setting, [hands holding the cleared suit, hands of seats
    with one, hands waiting on a discarded kind, hands of seats with discards]."""
    from xuezhan.strategies.value import likely_void

    tally = {False: [0, 0, 0, 0], True: [0, 0, 0, 0]}
    for n, (rnd, seat) in enumerate(_positions(preset, 40, 5, seed=41)):
        if rnd.turn.phase is not Phase.TURN:
            continue
        obs = rnd.observation(seat)
        live = [s for s in range(4) if s != seat and not rnd.seats.won[s] and sum(rnd.seats.counts[s]) % 3 == 1]
        thrown = {s: 0 for s in live}
        for e in rnd.ledger.events:
            if e.type == "discard" and e.seat in thrown:
                thrown[e.seat] |= 1 << tile_kind(e.tile)
        for on, t in tally.items():
            d = determinize(rnd, seat, random.Random(n), ready=1.0, read_discards=on)
            for s in live:
                waits = wait_mask(bytes(d.seats.counts[s]), bytes(d.seats.mbytes[s]), -1)
                if not waits:
                    continue
                u = likely_void(obs, s)
                if u >= 0:
                    t[0] += any(d.seats.counts[s][u * 9 : u * 9 + 9])
                    t[1] += 1
                if thrown[s]:
                    t[2] += bool(waits & thrown[s])
                    t[3] += 1
    return tally


@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
def test_reading_discards_keeps_ready_hands_out_of_a_cleared_suit_R4_2_and_off_thrown_tiles(preset):
    """With ``read_discards``, a seat whose melds or first discards say it is clearing a suit
    (under chengdu its shown void first) is dealt ready hands of its other two suits, waiting
    on tiles it has not thrown; without it, a ready hand's two suits are drawn (most include
    that suit when no void is shown, leshan) and its wait is any kind."""
    t = _reading_tally(preset)
    cleared = {on: v[0] / v[1] for on, v in t.items()}
    thrown = {on: v[2] / v[3] for on, v in t.items()}
    assert t[True][1] > 100 and t[True][3] > 300, t
    assert cleared[True] < 0.05, cleared
    if preset == "leshan":
        assert cleared[False] > 0.3, cleared
    # a hand built around one wait may wait on other kinds too, some of them thrown
    assert thrown[True] < 0.6 * thrown[False], thrown


def test_read_discards_must_be_true_or_false():
    rnd = Round.from_seed("leshan", 1, 0)
    for bad in (1, "yes", None):
        with pytest.raises(ValueError, match="read_discards: expected true or false"):
            determinize(rnd, 0, random.Random(0), read_discards=bad)


def test_ready_must_be_a_probability():
    rnd = Round.from_seed("leshan", 1, 0)
    for bad in (-0.1, 1.5, True, "0.5", float("nan")):
        with pytest.raises(ValueError, match="ready: expected a probability from 0 to 1"):
            determinize(rnd, 0, random.Random(0), ready=bad)


def test_pick_must_be_a_positive_integer():
    rnd = Round.from_seed("leshan", 1, 0)
    for bad in (0, -2, 1.5, True, "3"):
        with pytest.raises(ValueError, match="pick: expected an integer of at least 1"):
            determinize(rnd, 0, random.Random(0), pick=bad)


def test_determinize_is_only_for_the_seat_to_decide():
    rnd = Round.from_seed("leshan", 1, 0)
    with pytest.raises(ValueError, match="not seat 2's decision"):
        determinize(rnd, 2, random.Random(0))


def test_the_exchange_direction_is_sampled_before_the_tiles_pass():
    rnd = Round.from_seed("chengdu", 4, 0)
    dirs = {determinize(rnd, 0, random.Random(i)).exchange_dir for i in range(40)}
    assert dirs == {"next", "prev", "across"}


@pytest.mark.parametrize("preset", PRESETS)
def test_thousands_of_positions_never_contradict_the_observation(preset):
    """Every other decision of 70 hands (over 2,000 positions per preset, a few seconds): the
    sample's observation for the seat equals the real one, the public part of every seat's view
    is the same, and the R12 invariants hold in the sample. Among the xueliu positions are the
    hard ones: three locked winners (R14) competing for the same tiles, and two seats barred
    from different suits (R11.2) competing for the third after a winner's hand is drawn."""
    rng = random.Random(29)
    checked = 0
    for rnd, seat in _positions(preset, 70, 2, seed=17):
        d = determinize(rnd, seat, rng)  # never a DeterminizeError on a real round
        assert _view(d, seat) == _view(rnd, seat)
        for other in range(4):  # the public part of everyone's view (a void is private until all
            # are revealed, R11.2: the seat's own view, compared above, shows what it may know)
            a, b = d.observation(other).to_dict(), rnd.observation(other).to_dict()
            for key in ("melds", "discards", "scores", "deltas", "won", "wins", "aside", "wall_count"):
                assert a[key] == b[key], key
        d.check_invariants()
        checked += 1
    assert checked > 2000


def _brute_fits(supply: list[int], demands: list[tuple[int, int]]) -> bool:
    """Whether the seats' needs can be met, by trying every split of each seat's tiles."""
    if not demands:
        return True
    (count, ban), rest = demands[0], demands[1:]
    if count < 0:
        return False
    for a in range(count + 1):
        for b in range(count - a + 1):
            take = (a, b, count - a - b)
            if ban >= 0 and take[ban]:
                continue
            fits = all(t <= v for t, v in zip(take, supply, strict=True))
            if fits and _brute_fits([v - t for v, t in zip(supply, take, strict=True)], rest):
                return True
    return False


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 7), min_size=3, max_size=3),
    st.lists(st.tuples(st.integers(0, 8), st.integers(-1, 2)), min_size=1, max_size=3),
)
def test_the_deal_condition_agrees_with_trying_every_split(supply, demands):
    from xuezhan.engine.determinize import _fits

    assert _fits(supply, demands) == _brute_fits(supply, demands)


def test_two_seats_barred_from_different_suits_are_always_dealt_R11_2():
    """Seat 0 may not hold pins, seat 3 not characters; 4 characters, 5 pins and 11 bamboos
    are left for 10 tiles each: seat 0 must take every character. A uniform draw for the first
    seat dealt rarely leaves enough; the deal is then made tile by tile, and every deal is
    right."""
    from xuezhan.engine.determinize import _deal_rest

    left = bytearray(27)
    for k in (0, 1, 2, 3, 9, 10, 11, 12, 13):
        left[k] = 1
    for k in range(18, 27):
        left[k] = 1
    left[18] = left[19] = 2  # 11 bamboos
    seen = set()
    for seed in range(200):
        hands = _deal_rest(
            [0, 3], {0: bytearray(27), 3: bytearray(27)}, left, {0: 10, 3: 10}, {0: 1, 3: 0}, random.Random(seed)
        )
        assert hands is not None
        assert sum(hands[0]) == sum(hands[3]) == 10
        assert not any(hands[0][9:18]) and not any(hands[3][0:9])
        assert all(hands[0][k] + hands[3][k] <= left[k] for k in range(27))
        seen.add(bytes(hands[0]))
    assert len(seen) > 20  # still a random deal, not one fixed answer
