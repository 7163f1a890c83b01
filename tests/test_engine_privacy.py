"""Nothing a seat receives reveals what it may not know (RULES.md R3, R13): who was asked about
a claim, and who passed, is known only to that seat; the others see a claim when one is made."""

from __future__ import annotations

from _engine_helpers import LeaningBot

from xuezhan.engine import Round, log_lines, public_view, run_round
from xuezhan.engine.match import first_dealer, hand_seed
from xuezhan.rules import Rules

HANDS = 300


class Spy(LeaningBot):
    """A LeaningBot that keeps every public view it is given."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed, p_hu=0.5)
        self.seen: list[dict] = []

    def observe(self, event: dict) -> None:
        self.seen.append(event)


def _play(n: int, rules: Rules):
    spies = [Spy(n * 4 + s) for s in range(4)]
    for s, b in enumerate(spies):
        b.reset(s, rules)
    rnd = Round.from_seed(rules, hand_seed(77, n), first_dealer(n))
    asked_views = []

    def check(r: Round) -> None:
        # every seat's observation, whoever is deciding (as a game room would show it)
        if not r.over:
            asked_views.append((r.turn.cur, r.turn.phase, [r.observation(s) for s in range(4)]))

    run_round(rnd, spies, check=check)
    return rnd, spies, asked_views


def test_r3_r13_no_seat_learns_that_another_was_asked_or_passed():
    passes = 0
    claims_seen = 0
    for n in range(HANDS):
        rules = Rules.preset("chengdu" if n % 2 else "leshan")
        rnd, spies, views = _play(n, rules)
        for s, spy in enumerate(spies):
            others_pass = [e for e in spy.seen if e["type"] == "pass" and e["seat"] != s]
            assert others_pass == [], f"hand {n}: seat {s} was told of another seat's pass"
            passes += sum(e["type"] == "pass" and e["seat"] == s for e in spy.seen)
        for cur, _phase, obs in views:
            # R2.3: the visible tiles (piles and melds, concealed kongs included) are public:
            # every seat is shown the same counts, and nothing of anyone's concealed hand
            assert len({o.seen for o in obs}) == 1
            assert all(a + b <= 4 for o in obs for a, b in zip(o.seen, o.hand, strict=True))
            for s, o in enumerate(obs):
                if s == cur:
                    claims_seen += o.phase == "claim"
                    # its legal discards as a bitmask: exactly the discards of its legal actions
                    assert o.discard_mask == sum(1 << a.arg for a in o.legal_actions if a.verb == "discard")
                    assert all(a.verb != "hu" for a in o.legal_actions[1:])  # a win comes first
                    continue
                # the asked seat, the tile it is asked about, and that a claim window is open
                # are not shown to anyone else
                assert o.phase != "claim" and o.claim_tile is None and o.claim_from is None
                assert not o.robbing and o.legal_actions == () and o.discard_mask == 0
                d = o.to_dict()
                assert d["phase"] != "claim" and d["claim_tile"] is None and d["legal_actions"] == []
        # the log keeps everything (R12.4): every pass is in it
        assert sum('"type":"pass"' in ln for ln in log_lines(rnd)) == sum(
            e["type"] == "pass" for spy in spies for e in spy.seen
        )
    assert passes > 100 and claims_seen > 100  # the hands did ask and pass


def test_public_view_of_a_pass_is_for_the_passer_only():
    e = {"type": "pass", "seat": 2, "default": True, "note": "timeout"}
    assert public_view(e, 2) == e
    assert [public_view(e, s) for s in (0, 1, 3)] == [None, None, None]
    claim = {"type": "peng", "seat": 2, "default": False}
    assert all(public_view(claim, s) == claim for s in range(4))  # a claim made is public
