"""``Observation.seen`` (R2.3): the engine keeps the tiles visible outside a seat's hand (every
discard pile and every meld; concealed kongs are public) up to date incrementally. At every
decision of many seeded hands under both presets it must equal a count rebuilt from the
observation's own ``discards`` and ``melds``, and the R12 invariants must still hold."""

from __future__ import annotations

from typing import Any

import pytest

from xuezhan.engine import Round, run_round
from xuezhan.engine.match import first_dealer, hand_seed
from xuezhan.rules import Rules
from xuezhan.strategies import GreedyStrategy, RandomStrategy, ValueStrategy

HANDS = 150

# Meld types in an observation (docs: 0 pung, 1 kong, 2 concealed kong) and the tiles each shows.
SHOWS = {0: 3, 1: 4, 2: 4}


def rebuilt(obs: Any) -> bytes:
    """The visible tiles counted afresh, by a different route than the engine's."""
    seen = [0] * 27
    for pile in obs.discards:
        for k in pile:
            seen[k] += 1
    for melds in obs.melds:
        for kind, k in melds:
            seen[k] += SHOWS[kind]
    return bytes(seen)


class Checked:
    """Wraps a strategy: checks ``seen`` on every observation it is given, then delegates."""

    def __init__(self, inner: Any, rnd: list[Round]) -> None:
        self.inner = inner
        self.rnd = rnd
        self.checked = 0

    def reset(self, seat: int, rules: Rules) -> None:
        self.inner.reset(seat, rules)

    def act(self, obs: Any) -> Any:
        assert type(obs.seen) is bytes and len(obs.seen) == 27
        assert obs.seen == rebuilt(obs)
        # a seat sees no more of a kind than exist outside its own hand
        assert all(s + h <= 4 for s, h in zip(obs.seen, obs.hand, strict=True))
        # the engine shares one bytes object until the visible tiles change
        assert obs.seen is self.rnd[0].wall.seen_view
        self.checked += 1
        return self.inner.act(obs)


@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
def test_r2_3_seen_matches_discards_and_melds_at_every_decision(preset):
    rules = Rules.preset(preset)
    fired: dict[str, int] = {}
    wins_how: dict[str, int] = {}
    melds: dict[str, int] = {}
    decisions = 0
    for n in range(HANDS):
        holder: list[Round] = []
        inner = [
            RandomStrategy(seed=n) if n % 3 == 0 else GreedyStrategy(seed=n),
            GreedyStrategy(seed=n + 1),
            ValueStrategy(seed=n + 2),
            RandomStrategy(seed=n + 3) if n % 2 else ValueStrategy(seed=n + 3),
        ]
        bots = [Checked(b, holder) for b in inner]
        for s, b in enumerate(bots):
            b.reset(s, rules)
        rnd = Round.from_seed(rules, hand_seed(2026, n), first_dealer(n))
        holder.append(rnd)
        # R12: the invariant check (which now covers seen too) after every decision
        run_round(rnd, bots, check=lambda r: r.check_invariants())
        assert rnd.over
        rnd.check_invariants()
        decisions += sum(b.checked for b in bots)
        for rule in rnd.ledger.fired:
            fired[rule] = fired.get(rule, 0) + 1
        for e in rnd.ledger.events:
            if e.type == "win":
                wins_how[e.how] = wins_how.get(e.how, 0) + 1
            elif e.type in ("meld", "angang"):
                what = e.meld if e.type == "meld" else "angang"
                melds[what] = melds.get(what, 0) + 1
    assert decisions > 50 * HANDS
    # the hands did exercise every way the visible tiles change
    assert {"peng", "gang", "jiagang", "angang"} <= set(melds), melds
    assert wins_how.get("discard", 0) > 0 and wins_how.get("self_draw", 0) > 0
    assert fired.get("R3.2-multi-win", 0) > 0, fired
    # (robbed added kongs are rare here; the next test seeks them out)


def test_r2_3_seen_after_a_robbed_kong_and_not_in_to_dict():
    """A robbed added kong (R3.3): the robbed tile goes to the kong-maker's pile, the pung stays."""
    hits = 0
    rules = Rules.preset("leshan")
    for n in range(400):
        bots = [GreedyStrategy(seed=n * 4 + s) for s in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, rules)
        rnd = Round.from_seed(rules, hand_seed(7, n), first_dealer(n))
        robbed = []

        def check(r: Round, robbed: list = robbed) -> None:
            r.check_invariants()
            if r.ledger.wins and r.ledger.wins[-1].how == "rob" and not robbed:
                robbed.append(r.observation(0))

        run_round(rnd, bots, check=check)
        if robbed:
            obs = robbed[0]
            assert obs.seen == rebuilt(obs)
            assert "seen" not in obs.to_dict()  # the bot protocol is unchanged
            hits += 1
            if hits >= 3:
                break
    assert hits > 0
