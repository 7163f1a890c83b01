"""Sichuan sense under 血流成河 (R14): a winner that stays in the hand keeps its waits for good
(R14.1) and the tiles it won on are public, so ``value``, ``search`` and ``expert`` never throw
one of them while another legal discard exists. ``greedy`` stays as it is (the baseline)."""

from __future__ import annotations

import pytest

from xuezhan.engine import Round, first_dealer, run_round
from xuezhan.engine.actions import DISCARD
from xuezhan.strategies import ExpertStrategy, GreedyStrategy, SearchStrategy, ValueStrategy
from xuezhan.strategies.value import locked_wins


class Watched:
    """A strategy whose every discard is checked against the locked winners' tiles."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.fed = 0  # discards of a locked winner's tile with another discard legal
        self.chances = 0  # decisions where some legal discard was such a tile
        self.uses_sampler = getattr(inner, "uses_sampler", False)

    def reset(self, seat: int, rules: object) -> None:
        self.inner.reset(seat, rules)  # type: ignore[attr-defined]

    def bind_sampler(self, sampler: object) -> None:
        self.inner.bind_sampler(sampler)  # type: ignore[attr-defined]

    def act(self, obs):  # type: ignore[no-untyped-def]
        a = self.inner.act(obs)  # type: ignore[attr-defined]
        avoid = locked_wins(obs, True)
        mask = obs.discard_mask
        if mask & avoid:
            self.chances += 1
            if a.verb == DISCARD and avoid >> a.arg & 1 and mask & ~avoid:
                self.fed += 1
        return a


@pytest.mark.parametrize(
    "make",
    [ValueStrategy, lambda: ExpertStrategy(seed=3), lambda: ExpertStrategy(seed=3, samples=0)],
    ids=["value", "expert", "expert-no-sims"],
)
def test_r14_value_and_expert_never_feed_a_locked_winner(make):
    watched = [Watched(make()) for _ in range(2)]
    chances = 0
    for seed in range(60):
        seats = [watched[0], GreedyStrategy(), watched[1], GreedyStrategy()]
        for s, b in enumerate(seats):
            b.reset(s, Round.from_seed("xueliu", 0, 0).rules)
        rnd = Round.from_seed("xueliu", seed, first_dealer(seed))
        run_round(rnd, seats)
    for w in watched:
        assert w.fed == 0
        chances += w.chances
    assert chances >= 10, "too few decisions with a locked winner's tile in hand to test"


def test_r14_search_never_offers_or_plays_a_locked_winners_tile():
    w = Watched(SearchStrategy(seed=1, rollouts=4, budget=None, pick=2))
    for seed in range(8):
        seats = [w, ValueStrategy(), GreedyStrategy(), GreedyStrategy()]
        rnd = Round.from_seed("xueliu", seed, first_dealer(seed))
        for s, b in enumerate(seats):
            b.reset(s, rnd.rules)
        run_round(rnd, seats)
    assert w.fed == 0 and w.chances >= 1
