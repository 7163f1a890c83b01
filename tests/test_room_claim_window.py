"""Nothing about a private claim decision is broadcast (the room's claim window,
xuezhan.serve.claim_window): two hands that differ only in whether a person is asked about a
claim (tests/_claim_deals.py) are played at a table of four people while a spectator watches
each seat. Every other connection receives exactly the same state messages in both hands, and
none is sent the discard's sequel before the window closes, asked or not.

Also: the picture a claim window shows is, seat by seat, the engine's own view of the hand
right after the discard (checked against the engine wherever it opens claims)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from _claim_deals import ASKED, DEALER, Deals, find
from _room_helpers import live_server, seeds_with_dealer

from xuezhan.engine import Round, public_view
from xuezhan.engine.turn import Phase
from xuezhan.serve.app import create_app
from xuezhan.serve.claim_window import Frozen
from xuezhan.serve.limits import Pace
from xuezhan.serve.lobby import Room

#: The claim window (s) and the persons' clocks: every default decision is quick, the window not.
WINDOW = 0.3
RULES = {"turn_timeout": 0.05, "claim_timeout": 1.0}


@pytest.fixture(scope="module")
def deals() -> Deals:
    return find()


def _targets(deals: Deals, which: str) -> dict[int, int]:
    """Per observer key (a player's seat, or 4: a spectator of a seat it may not see) how many
    views the hand's events up to the horizon give it (in the asked hand one event more: the
    pass, seen by its own seat only)."""
    rnd = deals.round(which)
    upto = deals.horizon + (which == "asked")
    while len(rnd.ledger.events) < upto:
        rnd.apply(rnd.default_action(), default=True)
    return {k: sum(1 for e in rnd.ledger.events[:upto] if public_view(e, k) is not None) for k in range(5)}


def _normal(m: dict) -> dict:
    """A state message without what depends on the moment it was built."""
    m = dict(m)
    m.pop("server_ms", None)
    m.pop("commitment", None)
    if m.get("clock"):
        m["clock"] = {k: v for k, v in m["clock"].items() if k != "remaining_ms"}
    return m


async def _follow(url: str, first: dict, target: int, seen: list, asked_pass: bool = False) -> None:
    import websockets

    async with websockets.connect(url, max_size=2**22) as ws:
        await ws.send(json.dumps(first))
        if first["type"] == "sit":
            await ws.send(json.dumps({"type": "start"}))
        got = 0
        while got < target:
            m = json.loads(await ws.recv())
            if m["type"] != "state" or m.get("view") is None:
                continue
            seen.append((time.monotonic(), m))
            got = m["events_from"] + len(m["events"])
            if asked_pass and m["view"]["phase"] == "claim" and "pass" in m["legal"]:
                await ws.send(json.dumps({"type": "act", "action": "pass"}))  # at once


def _play(deals: Deals, which: str, monkeypatch) -> dict[str, list]:
    """One hand at a table of four people: seat ASKED passes the moment it is asked, the others
    let their clocks play (R10); a spectator watches each seat. Every connection's state
    messages from the deal to the horizon, with their arrival times."""
    import xuezhan.serve.tables as tables_mod

    hands, wall = deals.asked if which == "asked" else deals.not_asked
    targets = _targets(deals, which)

    class Dealt(Round):
        @classmethod
        def from_seed(cls, rules, seed, dealer=None, scores=None):  # the table's rules, this deal
            assert dealer == DEALER
            return Round(rules, hands, wall, DEALER)

    monkeypatch.setattr(tables_mod, "Round", Dealt)
    room = Room(
        pace=Pace(bot_delay=0.0, between_hands=0.0, claim_window=WINDOW),
        rules_overrides=RULES,
        seeds=seeds_with_dealer(DEALER),
    )
    seen: dict[str, list] = {}
    with live_server(create_app(room)) as base:
        import urllib.request

        req = urllib.request.Request(
            base + "/api/tables", data=b'{"hands": 1}', headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            tid = json.loads(r.read())["id"]
        url = base.replace("http", "ws") + f"/ws/{tid}"

        async def main() -> None:
            tasks = []
            for s in range(4):
                seen[f"spectator of {s}"] = []
                tasks.append(_follow(url, {"type": "watch", "seat": s}, targets[4], seen[f"spectator of {s}"]))
            for s in range(4):
                seen[f"player {s}"] = []
                first = {"type": "sit", "seat": s, "name": f"P{s}"}
                tasks.append(_follow(url, first, targets[s], seen[f"player {s}"], asked_pass=s == ASKED))
            running = [asyncio.ensure_future(t) for t in tasks]
            _, pending = await asyncio.wait(running, timeout=60)
            for t in pending:
                t.cancel()
            assert not pending, "a connection did not see the hand up to the horizon"

        asyncio.run(main())
    return seen


def _arrivals(stream: list, view: int) -> float:
    """When the first message showing the observer's ``view``-th event (0-based) arrived."""
    return next(t for t, m in stream if m["events_from"] + len(m["events"]) > view)


def _differences(asked: dict[str, list], not_asked: dict[str, list], others: list[str]) -> list[str]:
    """The connections among ``others`` whose state messages differ between the two hands."""
    return [name for name in others if [_normal(m) for _, m in asked[name]] != [_normal(m) for _, m in not_asked[name]]]


def test_the_message_streams_do_not_tell_whether_a_seat_was_asked_about_a_claim(deals, monkeypatch):
    others = [f"player {s}" for s in range(4) if s != ASKED] + [f"spectator of {s}" for s in range(4)]
    # A state message is built when its connection is ready for it, so on a machine too loaded
    # to send one before the next decision (the persons' clocks are 50 ms) two changes go out
    # as one, in one hand and not the other. The pair of hands is played again then, three
    # times at most: a difference that comes from being asked comes every time.
    for attempt in range(3):
        asked = _play(deals, "asked", monkeypatch)
        not_asked = _play(deals, "not_asked", monkeypatch)
        differ = _differences(asked, not_asked, others)
        if not differ:
            break
        print(f"\nattempt {attempt + 1}: {', '.join(differ)} received other messages; played again")
    # seat ASKED was asked in one hand and not in the other
    assert any(m["view"]["phase"] == "claim" for _, m in asked[f"player {ASKED}"])
    assert not any(m["view"]["phase"] == "claim" for _, m in not_asked[f"player {ASKED}"])
    rnd = deals.round("not_asked")
    while len(rnd.ledger.events) <= deals.discard:
        rnd.apply(rnd.default_action(), default=True)

    def key(name: str) -> int:
        return int(name[-1]) if name.startswith("player") else 4

    def view_of_discard(name: str) -> int:
        return sum(1 for e in rnd.ledger.events[: deals.discard] if public_view(e, key(name)) is not None)

    for name in others:
        a = [_normal(m) for _, m in asked[name]]
        b = [_normal(m) for _, m in not_asked[name]]
        assert a == b, f"{name} receives other messages when seat {ASKED} is asked"
    # the discard's sequel reaches nobody before the window closes, in either hand: measured
    # from the first moment anyone was shown the discard (no later than the discard itself)
    gaps = []
    for streams in (asked, not_asked):
        shown = min(_arrivals(streams[name], view_of_discard(name)) for name in others)
        gaps += [_arrivals(streams[name], view_of_discard(name) + 1) - shown for name in others]
    print(f"\nthe discard's sequel reached the others {min(gaps) * 1000:.0f} ms or more after it (window {WINDOW} s)")
    # (arrivals are stamped by the client's reader threads: on a loaded machine a stamp of the
    # discard can come late by tens of ms, shrinking a gap; without the window the gaps are ~0)
    assert min(gaps) >= 0.75 * WINDOW, gaps


@pytest.mark.parametrize("preset", ["leshan", "chengdu", "xueliu"])
def test_a_claim_windows_picture_is_the_engines_view_right_after_the_discard(preset):
    """Wherever the engine opens claims on a discard or an added kong, the window's picture of
    every seat (built before the action) equals the engine's own view after it, for a seat not
    asked (the asked seat: its view with the question taken away)."""
    checked = 0
    for seed in range(40):
        rnd = Round.from_seed(preset, seed, seed % 4)
        while not rnd.over:
            action = rnd.default_action()
            if rnd.turn.phase == Phase.TURN:
                legal = rnd.legal_actions(rnd.turn.cur)
                kongs = [a for a in legal if a.verb == "jiagang"]
                action = kongs[0] if kongs else action
            frozen = None
            if action.verb in ("discard", "jiagang"):
                frozen = Frozen.before(rnd, action, 1.0, [False] * 4, [None] * 4)
            rnd.apply(action, default=True)
            if frozen is not None and rnd.turn.phase == Phase.CLAIM:
                for s in range(4):
                    view = rnd.observation(s).to_dict()
                    del view["legal_actions"]
                    if s == rnd.turn.cur:
                        view.update(phase="turn", claim_tile=None, claim_from=None, robbing=False)
                    assert frozen.views[s] == view, (preset, seed, s, action)
                checked += 1
    assert checked > 100
