"""Nothing a player or spectator receives reveals another seat's concealed tiles or the wall
(ARCHITECTURE "Nothing a seat receives reveals what it may not know"; RULES.md R2.3, R11).

Whole hands are played at a table with a person and three bots while a spectator watches
each seat; every message of every connection is validated and checked."""

from __future__ import annotations

import contextlib
import json
import warnings

import pytest

with warnings.catch_warnings():  # starlette asks for httpx2; httpx is what the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from _room_helpers import fast_room, hand_events, read_until

from xuezhan.engine import public_view
from xuezhan.serve.app import create_app
from xuezhan.tiles import parse_tiles

VIEW_KEYS = {
    "seat",
    "dealer",
    "phase",
    "hand",
    "drawn",
    "melds",
    "discards",
    "wall_count",
    "last_tiles",
    "scores",
    "deltas",
    "won",
    "escaped",
    "wins",
    "aside",
    "voids",
    "claim_tile",
    "claim_from",
    "robbing",
}
PRIVATE = {"draw": "tile", "exchange": "tiles", "received": "tiles"}


def _check_message(m, sees: int, role: str) -> None:
    """Per message: only the seat it sees, only what that seat may know."""
    if m.type != "state":
        text = m.model_dump_json()
        assert '"hand"' not in text and '"wall"' not in text
        return
    assert m.seat == sees and m.role == role
    if role == "spectator":
        assert m.legal == [] and m.selected is None
        assert m.forced is None and m.forced_ms is None  # the player's own business (R14.2)
    if m.view is not None:
        # locked (R14.2) says no more than the public wins: a seat that won and stays in
        assert m.locked == [bool(w) for w in m.view["wins"]] or not any(m.locked)
    if m.view is not None:
        assert set(m.view) == VIEW_KEYS and m.view["seat"] == sees
        if m.view["phase"] == "claim" and m.clock is not None:
            assert m.clock.seat == sees  # who is asked about a claim is nobody else's business
    for e in m.events:
        assert "hands" not in e and "wall" not in e
        field = PRIVATE.get(e["type"])
        if field and e["seat"] != sees:
            assert e[field] is None, e
        if e["type"] == "void":
            assert e["seat"] == sees, "a void choice is private until all four are revealed (R11.2)"
    raw = json.dumps(m.model_dump())
    assert "legal_actions" not in raw
    # every hand is revealed at the end of the hand and not one message before (R7 at the table)
    if not m.over:
        assert m.reveal == [], "a hand revealed before the hand is over"


@pytest.mark.parametrize(
    "preset, hands, bots",
    [
        ("leshan", 2, ["greedy", "value", "random"]),
        ("chengdu", 1, ["greedy", "value", "random"]),
        ("xueliu", 1, ["greedy", "value", "random"]),
        # searching bots hold a sampler of the true round (server-side): nothing more goes out
        ("chengdu", 1, ["search", "value", "search"]),
    ],
)
def test_no_message_reveals_another_seats_tiles_or_the_wall(preset, hands, bots):
    room = fast_room(turn_timeout=0.25, claim_timeout=0.2)
    with TestClient(create_app(room)) as client, contextlib.ExitStack() as stack:
        t = client.post(
            "/api/tables",
            json={
                "hands": hands,
                "preset": preset,
                "bots": [None, *bots],
            },
        ).json()
        tid = t["id"]
        player = stack.enter_context(client.websocket_connect(f"/ws/{tid}"))
        watchers = [stack.enter_context(client.websocket_connect(f"/ws/{tid}")) for _ in range(4)]
        logs: dict[int, list] = {i: [] for i in range(5)}
        for i, w in enumerate(watchers):
            read_until(w, lambda m: m.type == "welcome")
            w.send_json({"type": "watch", "seat": i})
        read_until(player, lambda m: m.type == "welcome")
        player.send_json({"type": "sit", "seat": 0, "name": "P"})
        read_until(player, lambda m: m.type == "welcome" and m.seat == 0)
        for hand in range(hands):
            player.send_json({"type": "start"})
            # the person plays: the last legal action, pass on claims (exchange/void by timeout)
            while True:
                m = read_until(player, lambda m: m.type == "state", log=logs[4])
                _check_message(m, 0, "player")
                if m.over and m.hand_no == hand:
                    break
                if m.legal and not m.over:
                    player.send_json(
                        {
                            "type": "act",
                            "action": "pass" if "pass" in m.legal else m.legal[-1],
                        }
                    )
            rnd = room.tables[tid].rnd
            finals = {}
            for s, w in enumerate(watchers):
                if hand:
                    logs[s].clear()
                last = read_until(
                    w,
                    lambda m, hand=hand, s=s: m.type == "state" and m.over and m.hand_no == hand and m.seat == s,
                    log=logs[s],
                )
                switched = False  # until the watch message takes effect it sees seat 0 (the default)
                for m in logs[s]:
                    switched = switched or (m.type == "state" and m.seat == s)
                    _check_message(m, s if switched else 0, "spectator")
                finals[s] = last
                # exactly the engine's public views for that seat, in order, nothing else
                want = [v for v in (public_view(e, s) for e in rnd.ledger.events) if v is not None]
                got = hand_events([m for m in logs[s] if m.type != "state" or m.hand_no == hand])
                assert got == json.loads(json.dumps(want))
                # the view is that seat's own observation (its own concealed tiles only)
                assert last.view["hand"] == rnd.observation(s).to_dict()["hand"]
            # no other field carries another seat's concealed hand (a debug field, a cached view):
            # the seen seat's own hand, the public piles and the events were checked exactly above
            hands_seen = {s: finals[s].view["hand"] for s in range(4)}
            for s in range(4):
                for m in logs[s]:
                    if m.type != "state":
                        continue
                    # once the hand is over, ``reveal`` shows every hand (checked below)
                    rest = m.model_dump(exclude={"events", "reveal"} if m.over else {"events"})
                    if rest["view"] is not None:
                        rest["view"] = {k: v for k, v in rest["view"].items() if k not in ("hand", "discards")}
                    text = json.dumps(rest)
                    for o in range(4):
                        if o != s and len(hands_seen[o]) >= 4:
                            assert hands_seen[o] not in text, (s, o)
            # the reveal at the end: every seat's concealed tiles as the engine holds them, the
            # same for every watcher, with the seats' names and the engine's results
            for s in range(4):
                rev = finals[s].reveal
                assert [h.seat for h in rev] == [0, 1, 2, 3] and rev == finals[0].reveal
                assert [h.name for h in rev] == finals[s].names
                for h in rev:
                    held = sorted(parse_tiles(rnd.observation(h.seat).to_dict()["hand"]))
                    shown = sorted(parse_tiles(h.hand) + (parse_tiles(h.win_tile) if h.win_tile else []))
                    won = any(w.seat == h.seat for w in rnd.ledger.wins)
                    if won and rnd.ledger.wins[[w.seat for w in rnd.ledger.wins].index(h.seat)].how != "self_draw":
                        shown = sorted(parse_tiles(h.hand))  # a discard won on is not in the hand
                    if rnd.rules.stay:  # the locked hand: its self-drawn wins were set aside (R14.1)
                        shown = sorted(parse_tiles(h.hand))
                        assert h.aside == "".join(
                            w.tile for w in rnd.ledger.wins if w.seat == h.seat and w.how == "self_draw"
                        )
                    assert shown == held, h
                    assert (h.result == "won") == won
                    assert (h.result == "pig") == (h.seat in rnd.ledger.pigs)
                    assert (h.result == "ready") == (h.seat in rnd.ledger.ready and not won)
        table = room.tables[tid]
        for seat, name in enumerate(bots, start=1):
            if name == "search":  # it searched with its sampler: the case is not vacuous
                assert table.seats[seat].strategy.searched > 0
