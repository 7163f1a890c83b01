"""Nothing a player or spectator receives reveals another seat's concealed tiles or the wall
(ARCHITECTURE "Nothing a seat receives reveals what it may not know"; RULES.md R2.3, R11).

Whole hands are played at a table with a person and three bots while a spectator watches
each seat; every message of every connection is validated and checked. The room is private
by default: a spectator sees a person's tiles only when that person allows it (允许旁观看牌,
``show_hand``), and a bot's only at a table where no person plays."""

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


def _check_message(m, sees: int, role: str, shown: bool = True) -> None:
    """Per message: only the seat it sees, only what that seat may know; for a spectator of a
    seat not ``shown``, only what everyone at the table may know."""
    if m.type != "state":
        text = m.model_dump_json()
        assert '"hand"' not in text and '"wall"' not in text
        return
    assert m.seat == sees and m.role == role
    if role == "spectator":
        assert m.legal == [] and m.selected is None
        assert m.forced is None and m.forced_ms is None  # the player's own business (R14.2)
    if m.view is not None:
        assert m.hidden == (not shown)
    if m.hidden:
        assert m.aids is None  # waits and suggestions come from the concealed tiles
    if m.hidden and m.view is not None:
        assert m.view["hand"] == "" and m.view["drawn"] is None
        # whether the seat is asked about a claim would tell what it holds
        assert m.view["phase"] != "claim" and m.view["claim_tile"] is None and m.view["claim_from"] is None
        assert m.clock is None or m.clock.kind != "claim"
        for e in m.events:
            field = PRIVATE.get(e["type"])
            assert not field or e[field] is None, e
            assert e["type"] not in ("void", "pass"), e
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
    "preset, hands, bots, allow",
    [
        ("leshan", 2, ["greedy", "value", "random"], False),
        ("leshan", 1, ["greedy", "value", "random"], True),
        ("chengdu", 1, ["greedy", "value", "random"], False),
        ("chengdu", 1, ["greedy", "value", "random"], True),
        ("xueliu", 1, ["greedy", "value", "random"], False),
        # searching bots hold a sampler of the true round (server-side): nothing more goes out
        ("chengdu", 1, ["search", "value", "search"], True),
    ],
)
def test_no_message_reveals_another_seats_tiles_or_the_wall(preset, hands, bots, allow):
    """A person (seat 0) plays with three bots while a spectator watches each seat. Without
    the person's permission every spectator sees only what everyone may see (the bots' tiles
    too: a person plays against them); with it, the spectator of seat 0 sees that seat's view
    exactly, and nothing more."""
    room = fast_room(turn_timeout=0.25, claim_timeout=0.2, claim_window=0.1)
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
        if allow:
            player.send_json({"type": "show_hand", "allow": True})
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
                shown = allow and s == 0
                switched = False  # until the watch message takes effect it sees seat 0 (the default)
                for m in logs[s]:
                    switched = switched or (m.type == "state" and m.seat == s)
                    _check_message(m, s if switched else 0, "spectator", shown if switched else allow)
                finals[s] = last
                # exactly the engine's public views for that seat (for nobody, when its tiles are
                # not shown), in order, nothing else
                want = [v for v in (public_view(e, s if shown else -1) for e in rnd.ledger.events) if v is not None]
                got = hand_events([m for m in logs[s] if m.type != "state" or m.hand_no == hand])
                assert got == json.loads(json.dumps(want))
                # the view is that seat's own observation (its own concealed tiles only), or none
                held = rnd.observation(s).to_dict()["hand"]
                assert last.view["hand"] == (held if shown else "")
            # no other field carries a concealed hand the watcher may not see (a debug field, a
            # cached view): the shown seat's own hand, the public piles and the events were
            # checked exactly above
            hands_held = {o: rnd.observation(o).to_dict()["hand"] for o in range(4)}
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
                        if (o != s or not (allow and s == 0)) and len(hands_held[o]) >= 4:
                            assert hands_held[o] not in text, (s, o)
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


def _table(client, bots, hands=1, preset="leshan"):
    t = client.post("/api/tables", json={"hands": hands, "preset": preset, "bots": bots}).json()
    return t["id"]


def _state_of(ws, seat):
    return read_until(ws, lambda m: m.type == "state" and m.view is not None and m.seat == seat)


def test_spectators_see_a_bots_tiles_only_where_no_person_plays():
    """A table of bots is a show: its spectators see the watched bot's tiles. Once a person sits
    down to play against the bots, their tiles are hidden from everyone but the bots."""
    room = fast_room(turn_timeout=0.3, claim_timeout=0.2)
    with TestClient(create_app(room)) as client:
        tid = _table(client, ["greedy", "value", "random", "greedy"])
        with client.websocket_connect(f"/ws/{tid}") as w:
            read_until(w, lambda m: m.type == "welcome")
            w.send_json({"type": "watch", "seat": 2})
            m = _state_of(w, 2)
            assert not m.hidden and m.view["hand"] != ""  # its concealed tiles (never none)
            table = read_until(w, lambda m: m.type == "table")
            assert all(s.shown for s in table.seats)
        tid = _table(client, [None, "greedy", "value", "random"])
        with client.websocket_connect(f"/ws/{tid}") as p, client.websocket_connect(f"/ws/{tid}") as w:
            read_until(p, lambda m: m.type == "welcome")
            read_until(w, lambda m: m.type == "welcome")
            p.send_json({"type": "sit", "seat": 0, "name": "P"})
            p.send_json({"type": "start"})
            w.send_json({"type": "watch", "seat": 2})
            m = _state_of(w, 2)
            assert m.hidden and m.view["hand"] == "" and m.view["drawn"] is None
            table = read_until(w, lambda m: m.type == "table" and m.seats[0].kind == "person")
            assert not any(s.shown for s in table.seats)


def test_the_permission_is_the_players_own_and_takes_effect_at_once():
    """允许旁观看牌: off for a new seat; only the seated player sets it (a spectator is refused,
    nothing changes); on, the spectator of that seat is sent the seat's view from the start of
    the hand (``reset``); off again, only what everyone sees."""
    room = fast_room(turn_timeout=30.0, claim_timeout=30.0)  # the person's first turn waits
    with TestClient(create_app(room)) as client:
        tid = _table(client, [None, "greedy", "greedy", "greedy"])
        with client.websocket_connect(f"/ws/{tid}") as p, client.websocket_connect(f"/ws/{tid}") as w:
            read_until(p, lambda m: m.type == "welcome")
            read_until(w, lambda m: m.type == "welcome")
            w.send_json({"type": "show_hand", "allow": True})
            err = read_until(w, lambda m: m.type == "error")
            assert "only a seated player" in err.message
            p.send_json({"type": "sit", "seat": 0, "name": "P"})
            read_until(p, lambda m: m.type == "welcome" and m.seat == 0)
            p.send_json({"type": "start"})
            mine = read_until(p, lambda m: m.type == "state" and m.legal)  # the person's turn
            m = _state_of(w, 0)
            assert m.hidden and m.view["hand"] == ""
            p.send_json({"type": "show_hand", "allow": True})
            m = read_until(w, lambda m: m.type == "state" and m.view is not None and not m.hidden)
            assert m.reset and m.events_from == 0 and m.view["hand"] == mine.view["hand"]
            rnd = room.tables[tid].rnd  # waiting for the person: its events stay as they are
            assert m.events == json.loads(
                json.dumps([v for e in rnd.ledger.events if (v := public_view(e, 0)) is not None])
            )
            t = read_until(w, lambda m: m.type == "table" and m.seats[0].shown)
            assert [s.shown for s in t.seats] == [True, False, False, False]
            p.send_json({"type": "show_hand", "allow": False})
            m = read_until(w, lambda m: m.type == "state" and m.view is not None and m.hidden)
            assert (
                m.reset and m.view["hand"] == "" and all(e.get("tile") is None for e in m.events if e["type"] == "draw")
            )
