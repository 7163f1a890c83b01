"""血流成河 at the table (docs/rules.md R14): every seat's wins and locked state in what each
connection receives, and the locked hand's forced discard played for the person after a short
pause (R14.2), never when a win or a kong is open to it, cancelled when the person acts or
leaves (Starlette TestClient; the engine is the oracle)."""

from __future__ import annotations

import contextlib
import time
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():  # starlette asks for httpx2; httpx is what the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from _room_helpers import FAST, hand_events, read_until, seeds_with_dealer

from xuezhan.engine import Round
from xuezhan.engine.actions import ANGANG, DISCARD, HU, JIAGANG
from xuezhan.engine.script import load_script, round_from_script
from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Pace
from xuezhan.serve.lobby import Room
from xuezhan.serve.locked import forced_discard, locked_seats
from xuezhan.serve.reveal import revealed_hands
from xuezhan.strategies import GreedyStrategy
from xuezhan.strategies.guarded import observation_from_dict

VECTORS = Path(__file__).parent / "vectors" / "xueliu"
PAUSE = 0.3  # the forced discard's pause in these tests (the turn timer is 1 s, FAST)


def _greedy_hand(preset: str, seed: int) -> tuple[Round, list[tuple[int, list, object]]]:
    """A hand of four greedy bots; every decision's (seat, legal actions, forced discard)."""
    rnd = Round.from_seed(preset, seed, seed % 4)
    bots = [GreedyStrategy() for _ in range(4)]
    for i, b in enumerate(bots):
        b.reset(i, rnd.rules)
    seen = []
    for _ in range(2000):
        if rnd.over:
            break
        seat = rnd.turn.cur
        assert seat is not None
        seen.append((seat, rnd.legal_actions(seat), forced_discard(rnd, seat), rnd.observation(seat)))
        for s in range(4):
            if s != seat:
                assert forced_discard(rnd, s) is None  # only the seat whose decision it is
        rnd.apply(bots[seat].act(rnd.observation(seat)))
    assert rnd.over
    return rnd, seen


def test_forced_discard_is_exactly_the_locked_hands_only_action_R14_2():
    """Over seeded xueliu hands: the room plays a discard for a seat only when it has won (its
    observation says so), the hand is on its turn, the drawn tile does not complete its hand and
    no kong is open to it; the discard is of the drawn tile. A locked turn with a win or a kong
    in it is never played for the person."""
    forced = locked_hu = locked_kong = 0
    for seed in range(40):
        _, seen = _greedy_hand("xueliu", seed)
        for seat, legal, f, obs in seen:
            verbs = {a.verb for a in legal}
            locked_turn = obs.won[seat] and obs.phase == "turn"
            if f is not None:
                forced += 1
                assert locked_turn and obs.drawn >= 0
                assert f.verb == DISCARD and f.arg == obs.drawn and f.seat == seat and legal == [f]
            elif locked_turn:
                assert verbs & {HU, ANGANG, JIAGANG}, legal  # a choice is left to the person
                locked_hu += HU in verbs
                locked_kong += bool(verbs & {ANGANG, JIAGANG})
            if not locked_turn:
                assert f is None
    assert forced > 100 and locked_hu > 0, (forced, locked_hu, locked_kong)


@pytest.mark.parametrize("vector", ["04-winner-kong-keeping-waits", "14-winner-added-kong-keeping-waits"])
def test_a_locked_turn_with_a_kong_that_keeps_its_waits_is_the_persons_R14_2(vector):
    """The scripted hands where a winner's kong keeps its waits (concealed, added): at that
    turn the discard of the drawn tile is legal but so is the kong, so nothing is forced."""
    doc = load_script(VECTORS / f"{vector}.json")
    rnd = round_from_script(doc)
    kong = next(i for i, line in enumerate(doc["script"]) if "gang" in line.split()[1])
    for i, line in enumerate(doc["script"][: kong + 1]):
        # R13: a seat asked about a claim that the next line does not answer passes
        while rnd.observation(rnd.turn.cur).phase == "claim" and not line.startswith(f"{rnd.turn.cur} "):
            rnd.apply(rnd.default_action())
        if i < kong:
            rnd.apply(line)
    seat = int(doc["script"][kong].split()[0])
    legal = {str(a) for a in rnd.legal_actions(seat)}
    assert rnd.locked(seat) and doc["script"][kong] in legal
    assert any(a.startswith(f"{seat} discard") for a in legal)
    assert forced_discard(rnd, seat) is None
    rnd.apply(doc["script"][kong])  # the kong stands; the replacement draw decides again


def test_nothing_is_locked_or_forced_when_winners_leave():
    for seed in range(10):
        rnd, seen = _greedy_hand("chengdu", seed)
        assert all(f is None for _, _, f, _ in seen)
        assert locked_seats(rnd) == [False] * 4


def test_locked_seats_follow_the_wins_R14_1():
    rnd, _ = _greedy_hand("xueliu", 3)
    winners = {w.seat for w in rnd.hand_result().wins}
    assert winners and locked_seats(rnd) == [s in winners for s in range(4)]


def test_the_reveal_lists_every_win_and_the_tiles_set_aside_R14_1():
    for seed in range(8):
        rnd, _ = _greedy_hand("xueliu", seed)
        rev = revealed_hands(rnd, ["a", "b", "c", "d"])
        wins = rnd.hand_result().wins
        for s in range(4):
            mine = [w for w in wins if w.seat == s]
            assert rev[s].wins == [w.tile for w in mine]
            assert not mine or rev[s].value == sum(w.points for w in mine)
            drawn = sorted(w.tile for w in mine if w.how == "self_draw")
            assert sorted(rev[s].aside[i : i + 2] for i in range(0, len(rev[s].aside), 2)) == drawn
            # the hand shown is the locked hand as the engine holds it, nothing taken out of it
            assert rev[s].hand == rnd.observation(s).to_dict()["hand"]


# ---------------------------------------------------------------------- the room
@contextlib.contextmanager
def _locked_table(hands: int = 4, pause: float = PAUSE):
    """A xueliu table: the person (``Me``) in seat 0, greedy bots in the others."""
    room = Room(
        pace=Pace(bot_delay=0.0, between_hands=0.0, claim_window=0.0, locked_discard=pause),
        rules_overrides=dict(FAST),
        seeds=seeds_with_dealer(0),
    )
    with TestClient(create_app(room)) as client, contextlib.ExitStack() as stack:
        t = client.post(
            "/api/tables",
            json={"preset": "xueliu", "hands": hands, "bots": [None, "greedy", "greedy", "greedy"]},
        ).json()
        ws = stack.enter_context(client.websocket_connect(f"/ws/{t['id']}"))
        read_until(ws, lambda m: m.type == "welcome")
        ws.send_json({"type": "sit", "seat": 0, "name": "Me"})
        ws.send_json({"type": "start"})
        yield room.tables[t["id"]], ws, client, stack


def _my_choice(m) -> str | None:
    """What the greedy strategy plays for the person, from the state message alone."""
    if not m.legal or m.view is None or m.clock is None or m.clock.seat != m.seat:
        return None
    if "hu" in m.legal:
        return "hu"  # every win, to lock the seat early
    d = dict(m.view, legal_actions=[f"{m.seat} {a}" for a in m.legal])
    bot = GreedyStrategy()
    from xuezhan.rules import Rules

    bot.reset(m.seat, Rules.preset("xueliu"))
    return str(bot.act(observation_from_dict(d))).split(" ", 1)[1]


def _play_until(ws, stop, limit: int = 20000):
    """Play the person's decisions (greedy, every win taken) until ``stop(msg)``."""
    log: list = []
    acted = None
    for _ in range(limit):
        m = read_until(ws, lambda m: m.type == "state", log=log)
        if stop(m):
            return m, log
        # one answer per decision: every action adds events, so a second state message with
        # as many events is the same decision (answering it twice would act on the next one)
        at = (m.hand_no, m.events_from + len(m.events))
        if m.forced is None and at != acted:
            a = _my_choice(m)
            if a is not None:
                ws.send_json({"type": "act", "action": a})
                acted = at
        if m.over:
            ws.send_json({"type": "start"})
    raise AssertionError("the person's seat was never locked with a forced discard")


def test_the_forced_discard_is_played_for_the_person_after_the_pause_R14_2():
    with _locked_table() as (table, ws, _c, _s):
        m, log = _play_until(ws, lambda m: m.forced is not None)
        seen_at = time.monotonic()
        assert m.locked[0] and m.view["won"][0] and m.view["wins"][0]
        assert m.forced == f"discard {m.view['drawn']}" and m.legal == [m.forced]
        assert 0 <= m.forced_ms <= PAUSE * 1000
        # the person does nothing: the table discards the drawn tile, noted, not a timeout
        done = read_until(
            ws,
            lambda x: (
                x.type == "state"
                and any(e["type"] == "discard" and e["seat"] == 0 and e.get("note") == "locked" for e in x.events)
            ),
            log=log,
        )
        waited = time.monotonic() - seen_at
        assert waited < FAST["turn_timeout"]  # well inside the turn timer (R10.1 never ran)
        ev = next(e for e in done.events if e["type"] == "discard" and e["seat"] == 0)
        assert ev["tile"] == m.view["drawn"] and ev["default"] is False
        assert table.timeouts == [0, 0, 0, 0]
        # every seat's wins and locked state as the engine has them, the same for every viewer
        rnd = table.rnd
        assert done.locked == locked_seats(rnd)
        events = hand_events(log)
        for s in range(4):
            n_wins = sum(1 for e in events if e["type"] == "win" and e["seat"] == s)
            assert len(done.view["wins"][s]) == 2 * n_wins


def test_the_forced_discard_waits_the_pause_before_it_is_played():
    with _locked_table(pause=0.6) as (table, ws, _c, _s):
        _play_until(ws, lambda m: m.forced is not None)
        t0 = time.monotonic()
        read_until(
            ws,
            lambda x: x.type == "state" and any(e["type"] == "discard" and e.get("note") == "locked" for e in x.events),
        )
        assert time.monotonic() - t0 >= 0.4  # not played at once: the person sees it first


def test_acting_first_cancels_the_forced_discard():
    with _locked_table(pause=0.8) as (table, ws, _c, _s):
        m, log = _play_until(ws, lambda m: m.forced is not None)
        # the decision the button answers: by the time the discard is seen the bots may have
        # played round to the person's next locked turn, a new decision with a forced discard
        d = table.decision
        assert d is not None and d.seat == 0 and d.auto is not None
        ws.send_json({"type": "act", "action": m.forced})  # the one-click button
        done = read_until(
            ws,
            lambda x: x.type == "state" and any(e["type"] == "discard" and e["seat"] == 0 for e in x.events),
            log=log,
        )
        ev = next(e for e in done.events if e["type"] == "discard" and e["seat"] == 0)
        assert "note" not in ev and ev["tile"] == m.view["drawn"]  # the person's own discard
        assert d.auto is None and d.timer is None and not d.auto_played  # its pause was cancelled
        assert not any(x.type == "error" for x in log)  # nothing played twice


def test_leaving_cancels_the_forced_discard_and_is_an_escape_R8():
    with _locked_table(pause=0.5) as (table, ws, _c, stack):
        _play_until(ws, lambda m: m.forced is not None)
        d = table.decision
        assert d is not None and d.auto is not None and d.timer is not None
        rnd = table.rnd  # (a stand-in plays the next hand at once)
        stack.close()  # the person closes the page with the forced discard pending
        deadline = time.monotonic() + 10
        while not rnd.over and time.monotonic() < deadline:
            time.sleep(0.05)
        evs = [e.to_json() for e in rnd.ledger.events]
        assert d.auto is None and d.timer is None  # cancelled when the person left
        assert not any(e.get("note") == "locked" for e in evs)
        assert any(e["type"] == "escape" and e["seat"] == 0 for e in evs)


def _locked_turn_with_a_win(m) -> bool:
    return bool(m.locked) and m.locked[0] and "hu" in m.legal and m.view["phase"] == "turn"


def test_a_locked_turn_with_a_win_is_never_played_for_the_person():
    """A locked seat that draws a winning tile decides for itself (or the R10 timer does): the
    table plays nothing for it after the pause."""
    with _locked_table(hands=8) as (table, ws, _c, _s):
        m, _log = _play_until(ws, _locked_turn_with_a_win)
        assert m.forced is None and m.forced_ms is None
        time.sleep(PAUSE * 2)
        d = table.decision
        assert d is not None and d.seat == 0 and d.auto is None and not d.future.done()
        ws.send_json({"type": "act", "action": "hu"})
        done = read_until(
            ws, lambda x: x.type == "state" and any(e["type"] == "win" and e["seat"] == 0 for e in x.events)
        )
        assert done.locked[0]


def test_a_spectator_sees_every_seats_locked_state_but_no_forced_action():
    with _locked_table() as (table, ws, client, stack):
        _play_until(ws, lambda m: m.forced is not None)
        spec = stack.enter_context(client.websocket_connect(f"/ws/{table.id}"))
        log: list = []
        read_until(spec, lambda m: m.type == "welcome")
        st = read_until(spec, lambda m: m.type == "state" and m.view is not None, log=log)
        assert st.role == "spectator" and st.forced is None and st.forced_ms is None
        assert st.locked[0]  # seat 0's win is public
        events = hand_events(log)
        for s in range(4):
            assert st.locked[s] == st.view["won"][s]
            won = [e["tile"] for e in events if e["type"] == "win" and e["seat"] == s]
            assert st.view["wins"][s] == "".join(won)


def test_replay_frames_carry_each_seats_wins_and_locked_state_R14():
    """The replay page's frames: each seat's wins, tiles set aside and locked state, ending where
    the engine ends (its observation's wins and aside; locked = Round.locked)."""
    from xuezhan.engine import log_lines
    from xuezhan.serve.replay import frames

    for seed in (1, 2, 5):
        rnd, _ = _greedy_hand("xueliu", seed)
        doc = frames(log_lines(rnd))
        last, pub = doc["frames"][-1], rnd.observation(0).to_dict()
        assert last["wins"] == pub["wins"] and last["aside"] == pub["aside"]
        assert last["locked"] == locked_seats(rnd) and any(last["locked"])
        counts = [0, 0, 0, 0]
        for f in doc["frames"]:  # a seat's wins only grow, one at a time
            now = [len(w) // 2 for w in f["wins"]]
            assert all(0 <= n - c <= 1 for n, c in zip(now, counts, strict=True))
            counts = now
