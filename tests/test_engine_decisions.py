"""The one seat loop (engine/decisions.py): the time limit of each decision (R10), the ruling on an
answer (R10.3, R8), and the same escape wherever a strategy plays: a match, the single-agent
environment and the game room."""

from __future__ import annotations

import asyncio

import pytest

from xuezhan.engine import Round
from xuezhan.engine.actions import ESCAPE, act
from xuezhan.engine.decisions import Delivery, Ruling, Strategy, apply, decide, rule, time_limit
from xuezhan.engine.turn import Phase
from xuezhan.rules import Rules
from xuezhan.strategies import GreedyStrategy
from xuezhan.strategies import Strategy as ReExported

RULES = Rules.preset("leshan").replace(turn_timeout=3.0, claim_timeout=1.5, max_timeouts=1)


class Crasher:
    """Crashes at its ``n``-th decision; plays the last legal action before."""

    def __init__(self, n: int = 1) -> None:
        self.n, self.k = n, 0

    def reset(self, seat, rules):
        self.seat = seat

    def act(self, obs):
        self.k += 1
        if self.k >= self.n:
            raise RuntimeError("boom")
        return obs.legal_actions[-1]


def test_the_strategy_protocol_lives_in_the_engine():
    assert ReExported is Strategy
    assert isinstance(GreedyStrategy(), Strategy) and not isinstance(object(), Strategy)


@pytest.mark.parametrize(
    "phase, limit",
    [(Phase.CLAIM, 1.5), ("claim", 1.5), (Phase.TURN, 3.0), ("turn", 3.0), (Phase.EXCHANGE, 3.0), ("void", 3.0)],
)
def test_one_choice_of_time_limit_R10(phase, limit):
    assert time_limit(RULES, phase) == limit


def test_a_slow_answer_takes_the_default_then_escapes_past_max_timeouts_R10_3():
    rnd = Round.from_seed(RULES, 3, 0)
    legal = rnd.legal_actions(0)[0]
    counts = [0, 0, 0, 0]
    first = rule(rnd, 0, legal, 3.5, counts)
    assert first == Ruling(rnd.default_action(), default=True, note="timeout") and counts == [1, 0, 0, 0]
    second = rule(rnd, 0, legal, 3.5, counts)
    assert second == Ruling(act(0, ESCAPE), default=True, note="timeout limit") and counts == [2, 0, 0, 0]
    # in time: the answer as it is, known legal
    assert rule(rnd, 0, legal, 2.9, counts) == Ruling(legal, legal=True)


def test_an_answer_for_another_seat_or_refused_is_an_escape_R10_3():
    rnd = Round.from_seed(RULES, 3, 0)
    assert rule(rnd, 0, act(1, "pass"), 0.0, [0] * 4) == Ruling(act(0, ESCAPE), note="illegal action")
    assert rule(rnd, 0, "discard 5p", 0.0, [0] * 4).note == "illegal action"
    own_refused = rule(rnd, 0, act(0, "peng"), 0.0, [0] * 4)
    assert own_refused == Ruling(act(0, "peng"))  # the hand refuses it when applied...
    apply(rnd, own_refused)
    esc = next(e for e in rnd.ledger.events if e.type == "escape")  # ...an escape (R8 ends the hand)
    assert esc.seat == 0 and esc.note == "illegal action"


def test_decide_turns_a_crash_into_an_escape_with_its_exception():
    rnd = Round.from_seed(RULES, 3, 0)
    decide(rnd, 0, Crasher().act, [0] * 4)
    esc = next(e for e in rnd.ledger.events if e.type == "escape")
    assert esc.seat == 0 and esc.note == "exception RuntimeError"


def test_delivery_gives_each_seat_only_its_public_views_once():
    class Watcher:
        def __init__(self):
            self.views = []

        def observe(self, v):
            self.views.append(v)

    rnd = Round.from_seed(RULES, 3, 0)
    watchers = [Watcher(), None, Watcher(), Watcher()]
    deliver = Delivery(watchers)
    deliver(rnd.ledger.events)
    deliver(rnd.ledger.events)  # nothing new: nothing delivered twice
    from xuezhan.engine import public_view

    for seat in (0, 2, 3):
        expect = [v for e in rnd.ledger.events if (v := public_view(e, seat)) is not None]
        assert watchers[seat].views == expect and expect


def test_a_crash_is_the_same_escape_in_a_match_the_environment_and_the_room():
    # a match
    from xuezhan.engine.match import run_round

    rnd = Round.from_seed(RULES, 4, 0)
    bots = [Crasher(3), GreedyStrategy(), GreedyStrategy(), GreedyStrategy()]
    for i, b in enumerate(bots):
        b.reset(i, RULES)
    run_round(rnd, bots)
    match_esc = [(e.seat, e.note) for e in rnd.ledger.events if e.type == "escape"]
    assert match_esc == [(0, "exception RuntimeError")]

    # the single-agent environment: a crashing opponent, the learner in seat 1
    from xuezhan.env import single_agent

    crasher = Crasher(1)
    env = single_agent(opponents=[crasher, "greedy", "greedy"], seat=1, rules=RULES)
    obs, _ = env.reset(seed=4)
    for _ in range(200):  # the learner plays its first legal action until the hand ends
        if env.aec.round.over:
            break
        obs, _r, done, _t, _i = env.step(int(obs["action_mask"].nonzero()[0][0]))
        if done:
            break
    env_esc = [(e.seat, e.note) for e in env.aec.round.ledger.events if e.type == "escape"]
    assert env_esc == [(env.opponents.index(crasher), "exception RuntimeError")]

    # the game room: the crashing bot at a table
    from xuezhan.serve.bots import BotCatalog
    from xuezhan.serve.limits import Pace
    from xuezhan.serve.tables import Table

    async def room_hand():
        table = Table("t", "T", RULES, BotCatalog(), 1, pace=Pace(0.0, 0.0, claim_window=0.0), seeds=lambda: 4)
        for i in range(4):
            s = table.seats[i]
            s.kind, s.name, s.strategy = "bot", "x", Crasher(1) if i == 0 else GreedyStrategy()
        table.dealer = 0
        await table._play_hand()
        return [(e.seat, e.note) for e in table.rnd.ledger.events if e.type == "escape"]

    assert asyncio.run(room_hand()) == [(0, "exception RuntimeError")]
