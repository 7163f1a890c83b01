"""The game room against a hostile client: each attack on fairness, seats and the server's work,
one named test each (Starlette TestClient on the app; no network)."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import subprocess
import time
import warnings

import pytest

with warnings.catch_warnings():  # starlette asks for httpx2; httpx is what the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from _room_helpers import fast_room, read_until
from starlette.websockets import WebSocketDisconnect

from xuezhan.engine import Round
from xuezhan.serve import deals, names, table_socket
from xuezhan.serve import endpoints as app_mod
from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Limits
from xuezhan.serve.lobby import Room


@contextlib.contextmanager
def serving(room):
    with TestClient(create_app(room)) as client, contextlib.ExitStack() as stack:
        client.stack = stack
        yield client


def _connect(client, tid, host_token=None):
    ws = client.stack.enter_context(client.websocket_connect(f"/ws/{tid}"))
    read_until(ws, lambda m: m.type == "welcome")
    if host_token is not None:
        ws.send_json({"type": "host", "token": host_token})
        read_until(ws, lambda m: m.type == "welcome" and m.host)
    return ws


def _sit(ws, seat, name, **extra):
    ws.send_json({"type": "sit", "seat": seat, "name": name, **extra})
    return read_until(ws, lambda m: (m.type == "welcome" and m.seat == seat) or m.type == "error")


# ------------------------------------------------------------------ 1. fair deals
def test_a_client_cannot_choose_the_seed():
    with serving(fast_room()) as client:
        r = client.post("/api/tables", json={"hands": 1, "seed": 5})
        assert r.status_code == 400
        assert "seed" in r.json()["error"] and "server draws" in r.json()["error"]
        assert client.get("/api/tables").json() == []


def test_room_seeds_are_128_bits_from_the_secure_generator(monkeypatch):
    drawn = []
    real = deals.secrets.randbits

    def spy(k):
        drawn.append(k)
        return real(k)

    monkeypatch.setattr(deals.secrets, "randbits", spy)
    seeds = {deals.new_seed() for _ in range(64)}
    assert drawn == [128] * 64 and len(seeds) == 64
    assert max(s.bit_length() for s in seeds) > 120  # 64 draws below 2**120 would be a broken generator
    # the engine deals from such a seed as from any other, the same way twice
    s = max(seeds)
    a, b = Round.from_seed("leshan", s, 0), Round.from_seed("leshan", s, 0)
    assert [a.observation(i).hand for i in range(4)] == [b.observation(i).hand for i in range(4)]


def test_the_commitment_is_shown_at_the_deal_and_the_seed_at_the_end():
    room = Room(limits=Limits(), rules_overrides={"turn_timeout": 5.0, "claim_timeout": 5.0})
    room.pace.bot_delay = room.pace.between_hands = 0.0
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 1, "bots": ["greedy"] * 4}).json()
        watcher = _connect(client, t["id"])
        seen = []
        end = read_until(watcher, lambda m: m.type == "state" and m.over, log=seen)
        during = [m for m in seen if m.type == "state" and m.view is not None and not m.over]
        assert during, "the hand was watched while it ran"
        # from the deal on everyone sees the commitment; the seed only once the hand is over
        assert all(m.commitment == end.commitment and m.seed is None for m in during)
        seed = int(end.seed)
        assert seed.bit_length() <= 128
        # an independent recomputation: SHA-256 of "xuezhan-deal:<seed>"
        assert hashlib.sha256(f"xuezhan-deal:{seed}".encode()).hexdigest() == end.commitment
        # the seed deals exactly the hand that was played (its log header holds the deal)
        doc = client.get(f"/api/replay/{end.replay_id}").json()
        assert doc["seed"] == end.seed and doc["commitment"] == end.commitment
        assert doc["commitment_of_seed"] == end.commitment
        dealt = Round.from_seed("leshan", seed, room.tables[t["id"]].rnd.dealer)
        assert doc["frames"][0]["hands"] == [dealt.observation(i).to_dict()["hand"] for i in range(4)]
        sha = subprocess.run(
            ["sha256sum"], input=f"xuezhan-deal:{seed}".encode(), capture_output=True, check=True
        ).stdout.split()[0]
        assert sha.decode() == end.commitment  # the command the docs give checks it too


# ------------------------------------------------------------------ 2. seats
def test_two_tabs_on_one_seat_the_stale_one_gets_nothing_private():
    room = fast_room(turn_timeout=30.0, claim_timeout=30.0)
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 2, "bots": [None, "greedy", "greedy", "greedy"]}).json()
        tab1 = _connect(client, t["id"])
        token = _sit(tab1, 0, "Ann").token
        tab2 = _connect(client, t["id"])
        tab2.send_json({"type": "resume", "token": token})
        read_until(tab2, lambda m: m.type == "welcome" and m.seat == 0)
        # the first tab is told, and becomes a spectator of that seat
        assert "another connection" in read_until(tab1, lambda m: m.type == "error").message
        assert read_until(tab1, lambda m: m.type == "welcome").seat is None
        for msg in ({"type": "start"}, {"type": "select", "tile": "5m"}, {"type": "act", "action": "pass"}):
            tab1.send_json(msg)
            assert read_until(tab1, lambda m: m.type == "error")
        assert not room.tables[t["id"]].seats[0].started
        # the seat is now tab2's: it plays; tab1 never gets legal actions or the player role
        tab2.send_json({"type": "start"})
        m = read_until(tab1, lambda m: m.type == "state" and m.view is not None)
        assert m.role == "spectator" and m.legal == []
        st = read_until(tab2, lambda m: m.type == "state" and m.legal)
        assert st.role == "player"
        # the stale tab closing does not make the seat look gone
        tab1.close()
        tm = read_until(tab2, lambda m: m.type == "table")
        assert tm.seats[0].connected


def test_standing_up_voids_the_token_and_a_newcomer_is_safe():
    room = fast_room(turn_timeout=30.0)
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 1, "bots": [None, "greedy", "greedy", "greedy"]}).json()
        old = _connect(client, t["id"])
        token = _sit(old, 0, "Old").token
        old.send_json({"type": "stand", "seat": 0})
        read_until(old, lambda m: m.type == "welcome" and m.seat is None)
        new = _connect(client, t["id"])
        _sit(new, 0, "New")
        # the old token opens nothing; the old connection cannot act for the newcomer
        old.send_json({"type": "resume", "token": token})
        assert "token" in read_until(old, lambda m: m.type == "error").message
        old.send_json({"type": "start"})
        assert read_until(old, lambda m: m.type == "error")
        assert not room.tables[t["id"]].seats[0].started
        new.send_json({"type": "start"})
        m = read_until(old, lambda m: m.type == "state" and m.view is not None)
        assert m.role == "spectator" and m.legal == []
        # the old connection leaving does not touch the newcomer's seat
        old.close()
        assert read_until(new, lambda m: m.type == "table").seats[0].connected


def test_a_spectator_cannot_remove_or_replace_bots():
    room = fast_room()
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 1, "bots": [None, "greedy", "greedy", "greedy"]}).json()
        spec = _connect(client, t["id"])
        for msg in (
            {"type": "stand", "seat": 1},
            {"type": "bot", "seat": 2, "strategy": "random"},
            {"type": "bot", "seat": 0, "strategy": "random"},
        ):
            spec.send_json(msg)
            assert "host" in read_until(spec, lambda m: m.type == "error").message
        spec.send_json({"type": "host", "token": "A" * 22})
        assert "host token" in read_until(spec, lambda m: m.type == "error").message
        seats = room.tables[t["id"]].seats
        assert [s.kind for s in seats] == ["empty", "bot", "bot", "bot"]
        assert [s.name for s in seats[1:]] == ["greedy"] * 3
        # the host may
        host = _connect(client, t["id"], t["host_token"])
        host.send_json({"type": "stand", "seat": 1})
        read_until(host, lambda m: m.type == "table" and m.seats[1].kind == "empty")


def test_only_the_occupant_or_the_host_frees_a_persons_seat():
    room = fast_room()
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 1}).json()
        a = _connect(client, t["id"])
        _sit(a, 0, "Ann")
        b = _connect(client, t["id"])
        _sit(b, 1, "Bo")
        b.send_json({"type": "stand", "seat": 0})
        assert "only its occupant" in read_until(b, lambda m: m.type == "error").message
        host = _connect(client, t["id"], t["host_token"])
        host.send_json({"type": "stand", "seat": 0})
        assert "host freed your seat" in read_until(a, lambda m: m.type == "error").message
        assert room.tables[t["id"]].seats[0].kind == "empty"


def test_people_who_never_press_start_are_unseated():
    room = fast_room(limits=Limits(start_timeout=0.5))
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 1, "bots": [None, None, "greedy", "greedy"]}).json()
        squatter = _connect(client, t["id"])
        _sit(squatter, 0, "Squat")
        keen = _connect(client, t["id"])
        _sit(keen, 1, "Keen")
        keen.send_json({"type": "start"})
        t0 = time.monotonic()
        msg = read_until(squatter, lambda m: m.type == "error")
        assert "Start was not pressed within 0.5 s" in msg.message
        assert time.monotonic() - t0 < 5
        assert room.tables[t["id"]].seats[0].kind == "empty"
        # the one who pressed Start keeps the seat
        assert room.tables[t["id"]].seats[1].kind == "person"


def test_idle_tables_expire():
    room = fast_room(limits=Limits(idle_timeout=0.2, sweep=0.05))
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 1}).json()
        ws = _connect(client, t["id"])
        time.sleep(0.5)
        assert t["id"] in room.tables  # watched: it stays
        ws.close()
        deadline = time.monotonic() + 5
        while t["id"] in room.tables and time.monotonic() < deadline:
            time.sleep(0.05)
        assert t["id"] not in room.tables
        assert client.get("/api/tables").json() == []


def test_table_flood_is_capped_per_client_and_per_server():
    room = fast_room(limits=Limits(max_tables=5, max_tables_per_client=2))
    with serving(room) as client:
        for _ in range(2):
            assert client.post("/api/tables", json={}).status_code == 201
        r = client.post("/api/tables", json={})
        assert r.status_code == 429 and "2 tables open already" in r.json()["error"]
        assert len(room.tables) == 2

    async def fill():  # other clients (other addresses) fill the server up to its cap
        for i in range(3):
            room.create("x", owner=f"10.0.0.{i}")
        with pytest.raises(app_mod.RoomError, match="maximum of 5 tables"):
            room.create("y", owner="10.0.0.9")
        await room.close()

    asyncio.run(fill())


def test_the_lobby_list_is_paginated():
    room = fast_room(limits=Limits(max_tables=300, max_tables_per_client=300))
    with serving(room) as client:
        for i in range(120):
            client.post("/api/tables", json={"name": f"T{i}"})
        r = client.get("/api/tables")
        assert len(r.json()) == app_mod.PAGE and r.headers["x-total-count"] == "120"
        page = client.get("/api/tables?offset=100&limit=50").json()
        assert [t["name"] for t in page] == [f"T{i}" for i in range(100, 120)]
        assert client.get("/api/tables?limit=100000").status_code == 400
        assert client.get("/api/tables?offset=-1").status_code == 400


# ------------------------------------------------------------------ 3. bounded work
def test_a_200_mb_body_is_refused_before_it_is_read():
    sent = []

    def body():  # a generator: the client sends it only as the server reads it
        for _ in range(200):
            sent.append(1)
            yield b"x" * (1024 * 1024)

    with serving(fast_room()) as client:
        for path in ("/api/replay", "/api/tables"):
            sent.clear()
            r = client.post(path, content=body(), headers={"content-length": str(200 * 1024 * 1024)})
            assert r.status_code == 413 and "larger than" in r.json()["error"]
            assert len(sent) <= 1, f"{path} read {len(sent)} MB before refusing"


def test_a_body_without_content_length_is_read_only_up_to_its_limit():
    from starlette.requests import Request

    pulled = []

    async def receive():  # a chunked body of 200 chunks of 1 MB, counted as the server pulls them
        pulled.append(1)
        return {"type": "http.request", "body": b"x" * (1024 * 1024), "more_body": len(pulled) < 200}

    async def main():
        req = Request({"type": "http", "method": "POST", "headers": [], "path": "/"}, receive)
        with pytest.raises(app_mod.BodyTooLarge, match="larger than"):
            await app_mod.read_body(req, app_mod.MAX_UPLOAD)

    asyncio.run(main())
    assert len(pulled) == 2


def _real_log() -> list[str]:
    from xuezhan.engine import log_lines
    from xuezhan.engine.match import run_round
    from xuezhan.strategies import GreedyStrategy

    rnd = Round.from_seed("leshan", 5, 0)
    bots = [GreedyStrategy() for _ in range(4)]
    for i, b in enumerate(bots):
        b.reset(i, rnd.rules)
    run_round(rnd, bots)
    return log_lines(rnd)


@pytest.mark.parametrize("draws", [20000, 1900])
def test_a_quadratic_replay_upload_is_refused_quickly(draws):
    """A real header followed by N draws by one seat: the old viewer grew that hand by a tile a
    line and sent every frame (quadratic); now the line limit, or the engine's replay (which
    refuses the second draw in a row), stops it at once with a short message."""
    header = _real_log()[0]
    lines = [header] + ['{"type": "draw", "seat": 0, "tile": "1m"}'] * draws
    body = gzip.compress("\n".join(lines).encode())
    with serving(fast_room()) as client:
        t0 = time.monotonic()
        r = client.post("/api/replay", content=body)
        assert r.status_code == 400
        assert ("at most" in r.json()["error"]) == (draws > app_mod.MAX_LOG_LINES)
        assert len(r.content) < 1000 and time.monotonic() - t0 < 5
        # a real log is still replayed in full
        good = client.post("/api/replay", content="\n".join(_real_log()).encode())
        assert good.status_code == 200 and len(good.json()["frames"]) == len(_real_log())


def test_uploaded_logs_are_replayed_off_the_event_loop(monkeypatch):
    on_loop: list[bool] = []
    real = app_mod.checked_frames

    def spy(lines, name):
        try:  # an event loop runs in this thread only if the replay blocks the server
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        return real(lines, name)

    monkeypatch.setattr(app_mod, "checked_frames", spy)
    with serving(fast_room()) as client:
        r = client.post("/api/replay", content="\n".join(_real_log()).encode())
        assert r.status_code == 200 and r.json()["seed"] == "5"
    assert on_loop == [False]


def test_replay_id_of_5000_digits_is_a_404_not_a_500():
    with serving(fast_room()) as client:
        for rid in ("f" + "9" * 5000, "h" + "9" * 5000, "f-1", "t1-1", "%00", "h", "f"):
            r = client.get(f"/api/replay/{rid}")
            assert r.status_code == 404, rid
            assert "no hand log" in r.json()["error"] and len(r.content) < 300
        assert client.get("/api/players/" + "x" * 5000).status_code == 404


def test_a_message_flood_gets_an_error_then_the_connection_closes():
    room = fast_room(limits=Limits(rate=20, burst=30))
    with serving(room) as client:
        t = client.post("/api/tables", json={}).json()
        ws = _connect(client, t["id"])
        for _ in range(200):
            ws.send_text('{"type": "watch", "seat": 1}')
        msgs = []
        with pytest.raises(WebSocketDisconnect) as exc:
            for _ in range(500):
                msgs.append(ws.receive_json())
        assert exc.value.code == 1008
        assert any(m["type"] == "error" and "too many messages" in m["message"] for m in msgs)


def test_an_oversized_message_gets_an_error_then_the_connection_closes():
    with serving(fast_room()) as client:
        t = client.post("/api/tables", json={}).json()
        ws = _connect(client, t["id"])
        ws.send_text("x" * 5000)
        msgs = []
        with pytest.raises(WebSocketDisconnect):
            for _ in range(50):
                msgs.append(ws.receive_json())
        assert any(m["type"] == "error" and "too long" in m["message"] for m in msgs)


def test_a_reader_that_stops_reading_is_dropped_after_the_send_timeout():
    from xuezhan.serve.connections import Client

    async def main():
        c = Client()
        dropped = []
        c.on_drop = dropped.append
        c.sending_since = time.monotonic()  # a message on its way that never arrives
        t0 = time.monotonic()
        await asyncio.wait_for(table_socket.watch_sends(c, 0.3), 5)
        assert dropped == ["the connection reads too slowly"] and 0.3 <= time.monotonic() - t0 < 3
        c2 = Client()  # one whose sends complete is left alone
        task = asyncio.create_task(table_socket.watch_sends(c2, 0.3))
        await asyncio.sleep(0.6)
        assert c2.dropped is None and not task.done()
        task.cancel()

    asyncio.run(main())


def test_a_slow_reader_is_dropped_with_a_bounded_queue():
    from xuezhan.serve.connections import Client

    async def main():
        c = Client(queue_size=4)
        dropped = []
        c.on_drop = dropped.append
        for i in range(10):
            c.send(f"m{i}")
        assert c.queue.qsize() == 4 and len(dropped) == 1 and "slowly" in dropped[0]

    asyncio.run(main())


def test_joins_and_leaves_are_coalesced_into_one_table_message():
    room = fast_room()
    with serving(room) as client:
        t = client.post("/api/tables", json={}).json()
        other = client.post("/api/tables", json={}).json()
        first = _connect(client, t["id"])
        elsewhere = _connect(client, other["id"])
        time.sleep(0.6)
        for ws, seat in ((first, 1), (elsewhere, 1)):  # read all they were sent so far
            ws.send_json({"type": "watch", "seat": seat})
            read_until(ws, lambda m, seat=seat: m.type == "state" and m.seat == seat)
        for _ in range(10):
            _connect(client, t["id"])
        time.sleep(0.6)
        first.send_json({"type": "watch", "seat": 2})  # a reply marks the end of what was sent
        got = []
        read_until(first, lambda m: m.type == "state" and m.seat == 2, log=got)
        tables = [m for m in got if m.type == "table"]
        assert len(tables) <= 2 and tables[-1].spectators == 11
        # the other table's connection heard nothing of it
        elsewhere.send_json({"type": "watch", "seat": 3})
        got = []
        read_until(elsewhere, lambda m: m.type == "state" and m.seat == 3, log=got)
        assert not [m for m in got if m.type == "table"]


# ------------------------------------------------------------------ 4. names
@pytest.mark.parametrize(
    "name, says",
    [("\x00", "U+0000"), ("Ann\u202eeil", "U+202E"), (" ", "only spaces"), ("x" * 25, "25 characters")],
)
def test_bad_names_are_refused_saying_what_is_allowed(name, says):
    room = fast_room()
    with serving(room) as client:
        t = client.post("/api/tables", json={}).json()
        ws = _connect(client, t["id"])
        err = _sit(ws, 0, name)
        assert err.type == "error" and says in err.message and "allowed: letters" in err.message
        r = client.post("/api/tables", json={"name": name * 2 if name != " " else "\u200b"})
        assert r.status_code == 400 and "allowed" in r.json()["error"]
        assert room.tables[t["id"]].seats[0].kind == "empty"


def test_alices_table_and_names_with_apostrophes_work():
    with serving(fast_room()) as client:
        r = client.post("/api/tables", json={"name": "Alice's table"})
        assert r.status_code == 201 and r.json()["name"] == "Alice's table"
        ws = _connect(client, r.json()["id"])
        assert _sit(ws, 0, "O'Brien").seat == 0
        # normalised: full-width letters are the plain ones, spaces trimmed
        assert names.clean_name("  Ｏ’Ｂｒｉｅｎ ") == "O’Brien"
