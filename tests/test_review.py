"""The reviewer (xuezhan.review): it finds the decision that threw a win away, the same seed
gives the same review, its JSON document round-trips, and a log it cannot review is refused
with one message naming it."""

from __future__ import annotations

import json
import time

import pytest
from _engine_helpers import claim_windows_showing_tiles
from _review_helpers import slipped_hand

from xuezhan.documents import parse_log
from xuezhan.engine import Round, log_lines
from xuezhan.engine.match import run_round
from xuezhan.review import MAX_CANDIDATES, Review, ReviewError, ReviewTimeout, count_decisions, review_log
from xuezhan.strategies import GreedyStrategy

#: The decision events a leshan hand's seats take (no exchange or void choice).
DECISIONS = ("discard", "angang", "jiagang", "hu", "peng", "gang", "pass")


def _log(rnd: Round, source: str = "hand.jsonl"):
    return parse_log("\n".join(log_lines(rnd)), source=source)


def _greedy_hand(preset: str, seed: int) -> Round:
    rnd = Round.from_seed(preset, seed)
    bots = [GreedyStrategy() for _ in range(4)]
    for s, b in enumerate(bots):
        b.reset(s, rnd.rules)
    return run_round(rnd, bots)


@pytest.fixture(scope="module")
def turn_slip():
    return slipped_hand("turn")


@pytest.fixture(scope="module")
def turn_review(turn_slip):
    return review_log(_log(turn_slip.rnd), 0, rollouts=24, seed=0)


def test_discarding_the_winning_tile_is_the_biggest_loss(turn_slip, turn_review):
    # the scenario: seat 0 (SEAT0, a pure seven-pairs hand) drew 7m, could declare the win,
    # and discarded 7m instead
    slip = turn_slip
    assert slip.played == "discard 7m" and slip.win_points >= 16, "the hand throws away a capped win"
    first = turn_review.decisions[turn_review.by_loss[0]]
    assert first.event == slip.event
    assert first.played.action == "discard 7m" and first.position.drawn == "7m"
    assert first.position.phase == "turn" and first.position.hand == "11223344556677m"
    assert first.best[0].action == "hu"
    # the win itself: the seat's result is fixed once it wins (three payers of the capped 16)
    assert first.best[0].mean == first.best[0].low == first.best[0].high == 3 * slip.win_points
    assert first.loss == pytest.approx(first.best[0].mean - first.played.mean)
    second = turn_review.decisions[turn_review.by_loss[1]]
    assert first.loss > 3 * second.loss, "the slip stands out from the noise of the other decisions"


def test_passing_a_win_on_a_discard_is_the_biggest_loss():
    slip = slipped_hand("claim")
    assert slip.played == "pass" and slip.win_points >= 16
    rv = review_log(_log(slip.rnd), 0, rollouts=32, seed=0)
    first = rv.decisions[rv.by_loss[0]]
    assert first.event == slip.event
    assert first.position.phase == "claim" and first.position.claim_tile == "7m"
    assert first.played.action == "pass" and first.best[0].action == "hu"
    assert first.best[0].mean == slip.win_points  # won on a discard: the discarder pays
    assert first.loss > rv.decisions[rv.by_loss[1]].loss


def test_every_decision_with_a_choice_is_reviewed_and_losses_are_sorted(turn_slip, turn_review):
    rnd = turn_slip.rnd
    rv = turn_review
    # an independent count: step a fresh round through the hand's decision events; seat 0's
    # decisions with more than one legal action are the ones reviewed
    expected = []
    replay = Round("leshan", [list(h) for h in rnd.hands0], list(rnd.wall.tiles), rnd.dealer)
    for i, e in enumerate(rnd.ledger.events):
        if i < len(replay.ledger.events) or e.type not in DECISIONS or getattr(e, "forced", False):
            continue
        if e.seat == 0 and len(replay.legal_actions(0)) > 1:
            expected.append(i)
        replay.apply(f"{e.seat} {e.type}" + (f" {e.tile}" if e.type in ("discard", "angang", "jiagang") else ""))
    assert [d.event for d in rv.decisions] == expected and len(expected) >= 4
    losses = [rv.decisions[i].loss for i in rv.by_loss]
    assert losses == sorted(losses, reverse=True) and sorted(rv.by_loss) == list(range(len(rv.decisions)))
    for d in rv.decisions:
        assert d.loss >= 0 and d.played.rollouts == 24 and all(b.rollouts == 24 for b in d.best)
        assert len(d.best) <= 3 and d.played.action not in [b.action for b in d.best]
        assert d.best == sorted(d.best, key=lambda b: -b.mean)
        assert d.loss == pytest.approx(max(0.0, max([b.mean for b in d.best] + [d.played.mean]) - d.played.mean))
        assert d.line == d.event + 2  # line 1 is the header; no blank lines
    assert rv.delta == rnd.ledger.deltas[0] and rv.seat == 0 and rv.rollouts == 24 and rv.preset == "leshan"
    assert rv.total_loss == pytest.approx(sum(d.loss for d in rv.decisions), abs=1e-5)


def test_the_same_seed_gives_the_same_review_and_another_seed_another():
    log = _log(_greedy_hand("leshan", 3))
    a = review_log(log, 1, rollouts=6, seed=7)
    b = review_log(log, 1, rollouts=6, seed=7)
    assert a.model_dump_json() == b.model_dump_json()
    c = review_log(log, 1, rollouts=6, seed=8)
    assert [d.played.mean for d in c.decisions] != [d.played.mean for d in a.decisions]


def test_the_review_leaves_no_trace_between_decisions():
    # each decision has its own generator: reviewing with a different top (fewer rows shown)
    # changes no estimate
    log = _log(_greedy_hand("leshan", 4))
    a = review_log(log, 2, rollouts=4, seed=1, top=1)
    b = review_log(log, 2, rollouts=4, seed=1, top=5)
    assert [(d.played, d.best[:1], d.loss) for d in a.decisions] == [
        (d.played, d.best[:1], d.loss) for d in b.decisions
    ]


def test_the_json_document_round_trips_and_has_a_documented_schema(turn_review):
    text = turn_review.model_dump_json()
    back = Review.model_validate_json(text)
    assert back == turn_review
    data = json.loads(text)
    assert data["format"] == 1 and set(data) >= {"decisions", "by_loss", "seat", "rollouts", "seed", "total_loss"}
    schema = Review.model_json_schema()
    decision = schema["$defs"]["Decision"]["properties"]
    assert {"played", "best", "loss", "position", "step", "line"} <= set(decision)
    assert all("description" in v for k, v in schema["$defs"]["ActionValue"]["properties"].items())
    with pytest.raises(ValueError):
        Review.model_validate({**data, "surprise": 1})  # a stable schema: unknown fields refused


def test_chengdu_reviews_the_exchange_and_the_void_choice():
    rnd = _greedy_hand("chengdu", 2)
    rv = review_log(_log(rnd), 0, rollouts=4, seed=0)
    phases = [d.position.phase for d in rv.decisions]
    assert phases[:2] == ["exchange", "void"] and "turn" in phases
    ex = rv.decisions[0]
    assert ex.played.action.startswith("exchange ") and ex.position.turn == 0
    if ex.legal > MAX_CANDIDATES:  # screened: the played one and the best others on every rollout
        assert ex.estimated == MAX_CANDIDATES
    assert ex.played.rollouts == 4


def test_a_room_hand_names_the_seat():
    from xuezhan.serve.replay import named_log

    rnd = _greedy_hand("leshan", 5)
    log = parse_log("\n".join(named_log(log_lines(rnd), ["Mei", "greedy", "value", "Li"])), source="room hand")
    rv = review_log(log, 3, rollouts=2, seed=0)
    assert rv.name == "Li" and rv.source == "room hand"


def test_a_log_the_engine_does_not_reproduce_is_refused_before_any_rollout():
    lines = log_lines(_greedy_hand("leshan", 6))
    del lines[3]
    log = parse_log("\n".join(lines), source="cut.jsonl")
    t = time.monotonic()
    with pytest.raises(ReviewError, match=r"^cut\.jsonl: not the log of a hand the engine plays: line 4"):
        review_log(log, 0, rollouts=10_000)
    assert time.monotonic() - t < 5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 4}, "seat 4: a seat is 0, 1, 2 or 3"),
        ({"seat": -1}, "seat -1"),
        ({"rollouts": 1}, "rollouts: expected a whole number of at least 2"),
        ({"top": 0}, "top: expected"),
        ({"policy": "search"}, "policy 'search'"),
    ],
)
def test_bad_options_are_refused(kwargs, message):
    log = _log(_greedy_hand("leshan", 1))
    args = {"seat": 0, "rollouts": 2, **kwargs}
    seat = args.pop("seat")
    with pytest.raises(ReviewError, match=message.replace("(", r"\(")):
        review_log(log, seat, **args)


def test_the_deadline_stops_the_review_between_decisions():
    log = _log(_greedy_hand("leshan", 1))
    total = count_decisions(log, 0)
    with pytest.raises(ReviewTimeout) as info:
        review_log(log, 0, rollouts=2, deadline=time.monotonic() - 1)
    assert info.value.done == 0 and info.value.total == total > 0


def test_progress_counts_every_decision():
    log = _log(_greedy_hand("leshan", 1))
    seen: list[tuple[int, int]] = []
    rv = review_log(log, 0, rollouts=2, progress=lambda d, t: seen.append((d, t)))
    n = len(rv.decisions)
    assert seen == [(i, n) for i in range(1, n + 1)]


def test_docstring_examples():
    import doctest

    import xuezhan.review

    result = doctest.testmod(xuezhan.review)
    assert result.attempted > 0 and result.failed == 0


def test_xueliu_winners_decisions_after_their_wins_are_reviewed():
    # R14: a winner stays in the hand with a locked hand; its later turns (win again or discard
    # the drawn tile) are decisions too
    for seed in range(1, 30):
        rnd = _greedy_hand("xueliu", seed)
        wins = [e for e in rnd.ledger.events if e.type == "win" and e.seat == 0]
        if wins:
            break
    first_win = rnd.ledger.events.index(wins[0])
    rv = review_log(_log(rnd), 0, rollouts=2, seed=0)
    assert rv.preset == "xueliu" and rv.unreviewed == []
    assert any(d.event > first_win for d in rv.decisions), "no decision reviewed after the seat's first win"


@pytest.mark.parametrize("policy, estimator", [("expert", "estimate_expert"), ("greedy", "estimate_actions")])
def test_a_decision_with_no_consistent_sample_is_listed_not_guessed(monkeypatch, policy, estimator):
    import xuezhan.review as review_module
    from xuezhan.engine.determinize import DeterminizeError

    log = _log(_greedy_hand("leshan", 1))
    full = review_log(log, 0, rollouts=2, seed=0, policy=policy)
    victim = full.decisions[1]
    real = getattr(review_module, estimator)

    def flaky(rnd, seat, **kw):
        if len(rnd.ledger.events) == victim.event:
            raise DeterminizeError("no consistent sample (test)")
        return real(rnd, seat, **kw)

    monkeypatch.setattr(review_module, estimator, flaky)
    rv = review_log(log, 0, rollouts=2, seed=0, policy=policy)
    assert rv.unreviewed == [victim.line]
    assert [d.event for d in rv.decisions] == [d.event for d in full.decisions if d.event != victim.event]
    # the others are untouched: each decision has its own generator
    assert rv.decisions[0] == full.decisions[0] and rv.decisions[1] == full.decisions[2]


def test_expert_estimates_every_answer_where_a_claim_shows_a_seats_tiles():
    """A claim window where another seat's tiles are public (a declared peng, a kong being
    added, R3.3) is estimated for every answer: the samples deal that seat the tiles its meld
    takes. Before, passing a win there broke a sample and the reviewer failed on the hand."""
    import random

    from xuezhan.search.estimate import estimate_expert

    shown = 0
    for rnd, seat in claim_windows_showing_tiles("leshan", 60):
        shown += 1
        est = estimate_expert(rnd, seat, rollouts=8, rng=random.Random(shown))
        assert {e.action for e in est} == set(rnd.legal_actions(seat))
    assert shown >= 3
