"""The built-in strategies on a locked hand (血流成河, docs/rules.md R14.2): over seeded xueliu
hands every decision of a seat that has won is legal, takes the win whenever one is legal (on
its turn and on a discard or robbed kong), and otherwise discards the tile it drew (or makes a
kong of it that keeps its waits, which the engine allows); the engine is the oracle."""

from __future__ import annotations

import pytest

from xuezhan.engine import Round
from xuezhan.engine.actions import ANGANG, DISCARD, HU, JIAGANG, PASS
from xuezhan.rules import Rules
from xuezhan.strategies import GreedyStrategy, RandomStrategy, ValueStrategy

XUELIU = Rules.preset("xueliu")
MAKERS = {"greedy": GreedyStrategy, "value": ValueStrategy, "random": RandomStrategy}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_a_locked_hand_wins_when_it_can_and_else_lets_the_drawn_tile_go_R14_2(name):
    counts = {"turn_win": 0, "claim_win": 0, "discard": 0, "kong": 0}
    for seed in range(30 if name != "random" else 1000):  # random seldom wins: more hands
        rnd = Round.from_seed(XUELIU, seed, seed % 4)
        bots = [MAKERS[name](seed * 4 + s) if name == "random" else MAKERS[name]() for s in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, XUELIU)
        for _ in range(3000):
            if rnd.over:
                break
            seat = rnd.turn.cur
            assert seat is not None
            obs = rnd.observation(seat)
            action = bots[seat].act(obs)
            legal = rnd.legal_actions(seat)
            assert action in legal
            if rnd.locked(seat):
                can_win = any(a.verb == HU for a in legal)
                if can_win:
                    assert action.verb == HU, (seed, seat, obs.phase, legal, action)
                    counts["turn_win" if obs.phase == "turn" else "claim_win"] += 1
                elif obs.phase == "turn":
                    assert action.verb in (DISCARD, ANGANG, JIAGANG)
                    assert action.arg == obs.drawn  # the drawn tile goes, or is the kong's
                    counts["kong" if action.verb != DISCARD else "discard"] += 1
                else:
                    assert action.verb == PASS
            rnd.apply(action)
        assert rnd.over
    # every kind of locked decision came up (a locked kong is rare: allowed, not required)
    assert counts["turn_win"] > 0 and counts["claim_win"] > 0 and counts["discard"] > 50, counts
