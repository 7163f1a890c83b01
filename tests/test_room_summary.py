"""The end-of-hand grid and the player's aids, against the engine and a brute-force oracle.

- The grid (serve/summary.py), built from the public views of a hand's events, agrees with the
  engine's own result: each row's total is the seat's score change, its columns add up to it,
  its wins are the engine's wins (tile, how, fan, items), and every payment is there in order
  with its rule's name and the column it adds to (RULES.md R3.3, R6, R7, R8).
- The aids (serve/aids.py): the waits of a ready hand are exactly the tiles that complete it
  (brute force with ``is_win`` over all 27 tiles, the void suit respected, R11.2), each with the
  copies the seat has not seen counted by hand from every river and meld; on its turn, each
  discard that leaves it ready; in the exchange and void phases, greedy's own choice.
"""

from __future__ import annotations

import pytest

from xuezhan.engine import Round, public_view
from xuezhan.engine.decisions import Ruling, apply
from xuezhan.engine.fired import PAYMENTS
from xuezhan.evaluate import Meld, is_win
from xuezhan.rules import FAN_NAMES
from xuezhan.serve.aids import seat_aids
from xuezhan.serve.summary import COLUMNS, bilingual, hand_summary
from xuezhan.strategies import GreedyStrategy, ValueStrategy
from xuezhan.tiles import TILE_STR

NAMES = ["Li", "Wang", "Zhao", "Qian"]


def _bots(rnd: Round) -> list:
    bots = [GreedyStrategy(), ValueStrategy(), GreedyStrategy(), ValueStrategy()]
    for i, b in enumerate(bots):
        b.reset(i, rnd.rules)
    return bots


def _play(preset: str, seed: int, each=None) -> Round:
    rnd = Round.from_seed(preset, seed, seed % 4)
    bots = _bots(rnd)
    while not rnd.over:
        if each is not None:
            each(rnd)
        s = rnd.turn.cur
        apply(rnd, Ruling(bots[s].act(rnd.observation(s))))
    return rnd


@pytest.mark.parametrize("preset", ["leshan", "chengdu", "xueliu"])
def test_the_grid_agrees_with_the_engine_R6_R7_R8(preset):
    fired_columns = set()
    for seed in range(25):
        rnd = _play(preset, seed)
        public = [v for e in rnd.ledger.events if (v := public_view(e, -1)) is not None]
        s = hand_summary(public, NAMES)
        result = rnd.hand_result()
        assert [r.total for r in s.rows] == list(rnd.ledger.deltas)
        for r in s.rows:
            assert r.hu + r.kong + r.check + r.escape == r.total
            assert r.name == NAMES[r.seat]
            mine = [w for w in result.wins if w.seat == r.seat]
            assert [(w.tile, w.how, w.fan, w.points) for w in r.wins] == [
                (w.tile, w.how, w.fan, w.points) for w in mine
            ]
            assert r.fan == sum(w.fan for w in mine)
            for gw, w in zip(r.wins, mine, strict=True):
                assert {i.key: i.fan for i in gw.items} == dict(w.items)
                assert all(i.zh == FAN_NAMES[i.key] for i in gw.items)
        assert [(p.payer, p.payee, p.amount, p.rule) for p in s.payments] == [
            (p.frm, p.to, p.amount, p.rule) for p in result.payments
        ]
        for p in s.payments:
            assert p.column == COLUMNS[p.rule] and p.title.startswith(p.rule + " ")
            fired_columns.add(p.column)
        assert s.reason == result.end
    assert {"hu", "kong"} <= fired_columns  # the case is not vacuous


def test_every_payment_rule_has_a_column_and_words_in_both_languages():
    assert set(COLUMNS) == set(PAYMENTS)
    for rule, label in PAYMENTS.items():
        w = bilingual(label)
        assert w.zh and w.en and w.zh != w.en, rule
        # the words are the registry's own, not a second spelling of them
        assert all(ch in label for ch in w.zh.replace("·", "")) and w.en in label, rule
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in w.en), rule


def _waits_by_brute_force(rnd: Round, seat: int, counts: bytearray) -> list[tuple[str, int]]:
    """Every tile that completes the hand (is_win over all 27), with the copies the seat has not
    seen: 4 less its own concealed tiles, every river and every meld (a kong shows 4)."""
    obs = rnd.observation(seat).to_dict()
    melds = [Meld(t, k) for t, k in rnd.observation(seat).melds[seat]]
    void = obs["voids"][seat]
    seen = [0] * 27
    for river in obs["discards"]:
        for i in range(0, len(river), 2):
            seen[TILE_STR.index(river[i : i + 2])] += 1
    for ms in obs["melds"]:
        for kind, tile in ms:
            seen[TILE_STR.index(tile)] += 3 if kind == 0 else 4
    for aside in obs["aside"]:  # self-drawn winning tiles set aside face up (R14.1)
        for i in range(0, len(aside), 2):
            seen[TILE_STR.index(aside[i : i + 2])] += 1
    hand = rnd.observation(seat).hand
    mine = [0] * 27  # its own melds' tiles: no fifth copy
    for m in melds:
        mine[m.kind] += m.size
    out = []
    for k in range(27):
        if counts[k] + mine[k] >= 4:
            continue
        counts[k] += 1
        if is_win(bytes(counts), melds, void=void):
            out.append((TILE_STR[k], max(0, 4 - hand[k] - seen[k])))
        counts[k] -= 1
    return out


@pytest.mark.parametrize("preset", ["leshan", "chengdu"])
def test_the_waits_aid_is_every_tile_that_completes_the_hand_with_what_is_left(preset):
    checked = {"waits": 0, "discards": 0}

    def each(rnd: Round) -> None:
        for seat in range(4):
            obs = rnd.observation(seat)
            if obs.phase not in ("turn", "claim") or obs.escaped[seat] or obs.won[seat]:
                continue
            a = seat_aids(rnd, seat)
            counts = bytearray(obs.hand)
            size = sum(counts) + 3 * len(obs.melds[seat])
            if size == 13:
                assert [(w.tile, w.left) for w in a.waits] == _waits_by_brute_force(rnd, seat, counts)
                checked["waits"] += bool(a.waits)
            elif rnd.turn.cur == seat and obs.phase == "turn":
                legal = {str(x).split()[-1] for x in obs.legal_actions if x.verb == "discard"}
                want = {}
                for t in sorted(legal):
                    k = TILE_STR.index(t)
                    counts[k] -= 1
                    found = _waits_by_brute_force(rnd, seat, counts)
                    counts[k] += 1
                    if found:
                        want[t] = found
                assert {t: [(w.tile, w.left) for w in ws] for t, ws in a.discards.items()} == want
                checked["discards"] += bool(a.discards)

    for seed in range(6):
        _play(preset, seed, each)
    assert checked["waits"] > 0 and checked["discards"] > 0


def test_the_exchange_and_void_suggestions_are_greedys_choices_R11():
    rnd = Round.from_seed("chengdu", 11, 0)
    bots = _bots(rnd)
    suggested = 0
    while rnd.observation(rnd.turn.cur).phase in ("exchange", "void"):
        s = rnd.turn.cur
        a = seat_aids(rnd, s)
        g = GreedyStrategy()
        g.reset(s, rnd.rules)
        assert a.suggest == str(g.act(rnd.observation(s))).split(" ", 1)[1]
        assert a.suggest.split()[0] in ("exchange", "void")
        for other in range(4):  # nobody else is told anything about it
            if other != s:
                assert seat_aids(rnd, other).suggest is None
        suggested += 1
        apply(rnd, Ruling(bots[s].act(rnd.observation(s))))
    assert suggested == 8  # four exchanges, four voids
