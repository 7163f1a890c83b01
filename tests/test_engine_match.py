"""Matches (docs/rules.md R9), time and bots (R10), and the Strategy protocol."""

from __future__ import annotations

import json
import time
from pathlib import Path

from _engine_helpers import PENG_HANDS, VECTORS, build, run, types

from xuezhan.engine import Round, play_hand, play_match, replay_log, replay_script
from xuezhan.engine.match import first_dealer, hand_seed
from xuezhan.rules import Rules
from xuezhan.strategies import RandomStrategy, Strategy


def bots(seed=0):
    return [RandomStrategy(seed * 10 + i) for i in range(4)]


# --------------------------------------------------------------------------- R9


def test_r9_1_first_dealer_drawn_from_the_match_seed():
    dealers = {first_dealer(s) for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    m = play_match(bots(), "leshan", hands=1, seed=17)
    assert m["hands"][0]["dealer"] == first_dealer(17)


def test_r9_2_next_dealer():
    nd = {
        name: replay_script(json.loads((VECTORS / name).read_text()))["next_dealer"]
        for name in ("01-discard-win-basic.json", "02-kong-then-double-win.json", "03-ready-check-pig-refund.json")
    }
    assert nd == {
        "01-discard-win-basic.json": 1,  # the first winner
        "02-kong-then-double-win.json": 0,  # a multiple first win: the discarder
        "03-ready-check-pig-refund.json": 0,
    }  # nobody won: the dealer stays


def test_r9_3_match_scores_add_up_and_dealers_follow():
    m = play_match(bots(3), "chengdu", hands=12, seed=5)
    hands = m["hands"]
    assert [sum(h["deltas"][s] for h in hands) for s in range(4)] == m["scores"]
    for a, b in zip(hands, hands[1:], strict=False):
        assert b["dealer"] == a["next_dealer"]
    assert [h["seed"] for h in hands] == [hand_seed(5, i) for i in range(12)]
    for h in hands:
        assert {"deltas", "wins", "kongs", "payments", "fired", "end"} <= set(h)


def test_r9_3_match_logs(tmp_path):
    play_match(bots(), "leshan", hands=3, seed=1, log_dir=tmp_path)
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert len(logs) == 3
    for p in logs:
        replay_log(p)


# --------------------------------------------------------------------------- R10


def test_r10_1_turn_default_discards_the_drawn_tile_else_last_allowed():
    r = build(PENG_HANDS, wall="1m2m3m4m5m6m7m8m9m3p")
    assert str(r.default_action()) == "0 discard 9s"  # dealer's first turn: no draw
    r.apply("0 discard 5p")
    r.apply("1 peng")
    r.apply("2 pass")
    assert str(r.default_action()) == "1 discard 7s"  # after a peng: the last tile of the sorted hand
    r.apply("1 discard 1p")
    assert str(r.default_action()) == "2 discard 1m"  # the tile just drawn (门牌)
    # With a void suit held, the tile just drawn may be forbidden: the last allowed tile.
    rules = Rules.preset("leshan").replace(declare_void=True)
    r = build(PENG_HANDS, wall="1m2m3m4m5m6m7m8m9m3p", rules=rules)
    for s, v in enumerate("spmm"):
        r.apply(f"{s} void {v}")
    assert str(r.default_action()) == "0 discard 9s"
    r.apply("0 discard 9s")
    assert str(r.default_action()) == "1 discard 5p"  # drew 1m but must discard p: 5p is last


def test_r10_2_claim_default_passes_and_self_draw_is_not_declared():
    r = build(PENG_HANDS, wall="1m2m3m4m5m6m7m8m9m3p")
    r.apply("0 discard 5p")
    assert str(r.default_action()) == "1 pass"
    res, _ = run(
        ["12468m2468p13579s", "123456789m3455p", "2468m13579p2468s", "13579m1379p2468s"], "5p1m2m3m4m", ["0 discard 9s"]
    )
    assert res["wins"] == []  # the self-draw of 5p is not declared by the default


class Slow:
    def __init__(self, delay):
        self.delay = delay
        self.inner = RandomStrategy(1)

    def reset(self, seat, rules):
        self.inner.reset(seat, rules)

    def act(self, obs):
        time.sleep(self.delay)
        return self.inner.act(obs)


class Crash:
    def reset(self, seat, rules):
        pass

    def act(self, obs):
        raise RuntimeError("boom")


class Cheat:
    def reset(self, seat, rules):
        self.seat = seat

    def act(self, obs):
        from xuezhan.engine.actions import Action

        return Action(obs.seat, "discard", 99)


def test_r10_3_timeouts_take_the_default_then_escape_past_max_timeouts():
    # 50 ms limits: far above a random bot's decision even on a loaded machine.
    rules = Rules.preset("leshan").replace(turn_timeout=0.05, claim_timeout=0.05, max_timeouts=2)
    strategies = [Slow(0.08), RandomStrategy(1), RandomStrategy(2), RandomStrategy(3)]
    timeouts = [0, 0, 0, 0]
    seed = next(s for s in range(100) if first_dealer(s) == 0)
    res = play_hand(strategies, rules, seed=seed, timeouts=timeouts)
    assert res["end"] == "escape"
    assert timeouts == [3, 0, 0, 0]
    assert res["deltas"][0] <= -50
    notes = [p for p in res["payments"] if p["rule"] == "R8" and p["to"] is None]
    assert notes and notes[0]["from"] == 0


def test_r10_3_exception_or_illegal_action_is_an_escape():
    for bad in (Crash(), Cheat()):
        strategies = [bad, RandomStrategy(1), RandomStrategy(2), RandomStrategy(3)]
        rnd = Round.from_seed("leshan", 3, 0)
        from xuezhan.engine import run_round

        for s, b in enumerate(strategies):
            b.reset(s, rnd.rules)
        run_round(rnd, strategies)
        esc = types(rnd, "escape")
        assert rnd.ledger.end_reason == "escape" and esc[0]["seat"] == 0
        assert esc[0]["note"] in ("exception RuntimeError", "illegal action")


def test_strategy_protocol_and_random_bot_determinism():
    assert isinstance(RandomStrategy(0), Strategy)
    a = play_hand(bots(7), "chengdu", seed=11)
    b = play_hand(bots(7), "chengdu", seed=11)
    assert a == b


def test_observation_holds_only_what_the_seat_may_know():
    r = Round.from_seed("chengdu", 4, 0)
    obs = r.observation(0)
    assert obs.voids == (-1, -1, -1, -1)
    assert obs.hand == bytes(r.seats.counts[0]) and len(obs.legal_actions) > 0
    assert r.observation(1).legal_actions == ()
    fields = set(obs.__slots__)
    assert not fields & {"wall", "counts", "hands"}
    d = obs.to_dict()
    assert json.loads(json.dumps(d)) == d


# --------------------------------------------------------------------------- logs through the CLI (R12.4)


def _cli(*args):
    import os
    import subprocess
    import sys

    exe = Path(sys.executable).with_name("xuezhan")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-c", "from xuezhan.cli import main; main()"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env=dict(os.environ), timeout=60)


def test_r12_4_cli_replay_log_and_validate_dir(tmp_path):
    play_match(bots(2), "chengdu", hands=2, seed=9, log_dir=tmp_path)
    logs = sorted(tmp_path.glob("*.jsonl"))
    proc = _cli("replay", str(logs[0]), "--json")
    assert proc.returncode == 0, proc.stderr
    assert "deltas" in json.loads(proc.stdout)
    proc = _cli("validate", str(tmp_path))
    assert proc.returncode == 0 and "2 of 2" in proc.stdout
    lines = logs[1].read_text().splitlines()
    i = next(i for i, ln in enumerate(lines) if '"type":"draw"' in ln)
    lines[i] = lines[i].replace('"replacement":false', '"replacement":true')
    logs[1].write_text("\n".join(lines) + "\n")
    proc = _cli("validate", str(tmp_path))
    assert proc.returncode != 0 and f"line {i + 1}" in proc.stderr
    proc = _cli("replay", str(logs[1]), "--json")
    assert proc.returncode != 0 and json.loads(proc.stdout)["error"]["line"] == i + 1


def test_r13_cli_script_log_option(tmp_path):
    out = tmp_path / "hand.jsonl"
    proc = _cli("replay", str(VECTORS / "02-kong-then-double-win.json"), "--log", str(out))
    assert proc.returncode == 0 and "deltas: [-12, 6, 8, -2]" in proc.stdout
    assert replay_log(out).ledger.deltas == [-12, 6, 8, -2]


def test_r11_1_observers_see_no_hidden_information():
    """Strategies get public views only: no other seat's draws, exchange tiles or void choices
    before the reveal, and the exchange direction only when the tiles pass."""
    seen = {s: [] for s in range(4)}

    class Watcher(RandomStrategy):
        def observe(self, event):
            seen[self.seat].append(event)

    strategies = [Watcher(i) for i in range(4)]
    play_hand(strategies, "chengdu", seed=21)
    for s, evs in seen.items():
        for e in evs:
            if e["type"] == "draw" and e["seat"] != s:
                assert e["tile"] is None
            if e["type"] in ("exchange", "received") and e["seat"] != s:
                assert e["tiles"] is None
            if e["type"] == "void":
                assert e["seat"] == s
            if e["type"] == "start":
                assert "exchange" not in e
        assert any(e["type"] == "exchanged" for e in evs) and any(e["type"] == "voids" for e in evs)
