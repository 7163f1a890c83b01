"""What one client can do to the room, each as a named test: it cannot take a name by guessing
its password (a backoff per address, a lockout per name that the owner's browser is not subject
to), cannot hold more connections than its share, cannot leave junk players by refused sits,
cannot choose the address its limits are counted by, and leaves at most one line in the server's
log whatever it sends. (The claim questions a client may not learn of: tests/test_room_leak.py;
the standings database's races: tests/test_standings_races.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
import urllib.error
import urllib.request
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketDenialResponse

from _room_helpers import fast_room, read_until, serve_process

from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Limits

SECRET = "s" * 32


def addressed(app):
    """``app`` behind a proxy every test connection may name its client address to (the header
    ``X-Forwarded-For``), so one test client can be many addresses."""
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    return ProxyHeadersMiddleware(app, trusted_hosts="*")


def _from(addr: str) -> dict:
    return {"x-forwarded-for": addr}


def _table(client) -> str:
    return client.post("/api/tables", json={"hands": 1}).json()["id"]


def _sit(ws, seat: int, name: str, secret: str | None = None, password: str | None = None):
    msg = {"type": "sit", "seat": seat, "name": name}
    if secret is not None:
        msg["secret"] = secret
    if password is not None:
        msg["password"] = password
    ws.send_json(msg)
    return read_until(ws, lambda m: m.type == "error" or (m.type == "welcome" and m.seat is not None))


# ----------------------------------------------------------------------------- names


def test_refused_sits_leave_no_player_in_the_standings():
    """A sit at a taken seat (or by a client already seated) is refused before the name is
    looked at: no player is made for it."""
    room = fast_room(limits=Limits(sit_burst=100, sits_per_minute=6000))
    with TestClient(create_app(room)) as client:
        tid = _table(client)
        with client.websocket_connect(f"/ws/{tid}") as owner, client.websocket_connect(f"/ws/{tid}") as other:
            assert _sit(owner, 0, "Owner", SECRET).type == "welcome"
            for i in range(30):
                got = _sit(other, 0, f"junk{i}", f"{i:032d}")
                assert got.type == "error" and "seat 0 is taken" in got.message
            got = _sit(owner, 1, "Twice", "t" * 32)
            assert got.type == "error" and "already sit" in got.message
        names = [s.name for s in room.ledger.standings(0, 500)]
    assert names == ["Owner"]


def test_a_new_name_becomes_a_player_only_once_its_seat_is_taken():
    room = fast_room()
    with TestClient(create_app(room)) as client:
        tid = _table(client)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            got = _sit(ws, 2, "Newcomer", SECRET, password="short")
            assert got.type == "error" and "at least 8 characters" in got.message
            assert room.ledger.standings() == []
            assert _sit(ws, 2, "Newcomer", SECRET, password="long enough").type == "welcome"
        assert [s.name for s in room.ledger.standings()] == ["Newcomer"]
        assert room.tables[tid].seats[2].player_id is not None


# ----------------------------------------------------------------------------- passwords


def _with_password(room) -> None:
    room.ledger.identify("Mei", SECRET, "the right password")


def test_password_guesses_back_off_per_address():
    """After a wrong password the address waits before its next guess (refused at once, without
    a password check), however many connections it opens."""
    room = fast_room(limits=Limits(backoff=3600.0))
    _with_password(room)
    with TestClient(create_app(room)) as client:
        tid = _table(client)
        with client.websocket_connect(f"/ws/{tid}") as a, client.websocket_connect(f"/ws/{tid}") as b:
            got = _sit(a, 0, "Mei", "x" * 32, password="guess number 1")
            assert got.type == "error" and "give its password" in got.message
            for ws in (a, b):
                got = _sit(ws, 0, "Mei", "x" * 32, password="the right password")
                assert got.type == "error" and "wrong password was given from your address" in got.message
    assert room.attempts._addrs["testclient"].failures == 1  # the refused ones were not checked


def test_a_name_is_locked_after_failed_guesses_from_many_addresses_but_not_for_its_owner(monkeypatch):
    """Five wrong passwords from five addresses lock the name: the sixth address is refused
    without a check, even with the right password; the owner's browser (its secret) still sits."""
    room = fast_room(limits=Limits(lockout=3600.0))
    _with_password(room)
    checks = []
    real = room.passwords.check

    async def counted(password, stored):
        checks.append(password)
        return await real(password, stored)

    monkeypatch.setattr(room.passwords, "check", counted)
    with TestClient(addressed(create_app(room))) as client:
        tid = _table(client)
        for i in range(6):
            with client.websocket_connect(f"/ws/{tid}", headers=_from(f"10.0.0.{i}")) as ws:
                password = "the right password" if i == 5 else f"guess {i:08d}"
                got = _sit(ws, 0, "Mei", f"{i}" * 32, password=password)
                assert got.type == "error", got
                if i < 5:
                    assert "give its password" in got.message
                else:
                    assert "too many wrong passwords for 'Mei'" in got.message
        assert len(checks) == 5  # the sixth was refused before any hashing
        with client.websocket_connect(f"/ws/{tid}", headers=_from("10.0.0.99")) as ws:
            assert _sit(ws, 0, "Mei", SECRET).type == "welcome"  # no password: the browser owns it


def test_password_checks_run_in_their_own_thread_never_the_shared_pool(monkeypatch):
    """The scrypt check runs in the room's password thread (bots and the standings use the
    default pool), and the address's attempts are one at a time."""
    import xuezhan.serve.passwords as pw_mod
    from xuezhan.serve.passwords import HASH_THREAD

    threads = []
    real = pw_mod.check_password

    def spy(password, stored):
        import threading

        threads.append(threading.current_thread().name)
        return real(password, stored)

    monkeypatch.setattr(pw_mod, "check_password", spy)
    room = fast_room()
    _with_password(room)
    with TestClient(create_app(room)) as client:
        tid = _table(client)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            assert _sit(ws, 0, "Mei", "y" * 32, password="the right password").type == "welcome"
    assert len(threads) == 1 and threads[0].startswith(HASH_THREAD)


def test_a_flood_of_password_checks_is_refused_not_queued():
    """Past ``password_queue`` waiting checks, one more is refused at once."""
    from xuezhan.serve.limits import TooMany
    from xuezhan.serve.passwords import Passwords

    async def flood() -> list:
        pw = Passwords(queue=3)
        stored = await pw.hash("the right password")
        got = await asyncio.gather(*[pw.check("wrong", stored) for _ in range(10)], return_exceptions=True)
        pw.close()
        return got

    got = asyncio.run(flood())
    assert sum(1 for g in got if g is False) == 3
    assert sum(1 for g in got if isinstance(g, TooMany)) == 7


def test_a_name_takes_at_most_fifteen_guesses_in_a_day_at_the_default_limits():
    from xuezhan.serve.attempts import guesses_within

    assert guesses_within(86_400, Limits()) == 15
    assert guesses_within(30 * 86_400, Limits()) < 60


def test_sits_per_address_are_rate_limited():
    room = fast_room(limits=Limits(sit_burst=3, sits_per_minute=1))
    with TestClient(create_app(room)) as client:
        tid = _table(client)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            for _ in range(3):
                assert _sit(ws, 0, "A").type == "welcome"
                ws.send_json({"type": "stand", "seat": 0})
                read_until(ws, lambda m: m.type == "welcome" and m.seat is None)
            got = _sit(ws, 0, "A")
            assert got.type == "error" and "too many sits from your address" in got.message


# ----------------------------------------------------------------------------- connections


def test_connections_per_client_address_and_in_total_are_bounded():
    room = fast_room(limits=Limits(max_connections_per_client=3, max_connections=5))
    with TestClient(addressed(create_app(room))) as client, contextlib.ExitStack() as stack:
        tid = _table(client)
        for _ in range(3):
            stack.enter_context(client.websocket_connect(f"/ws/{tid}", headers=_from("10.0.0.1")))
        with (
            pytest.raises(WebSocketDenialResponse) as denied,
            client.websocket_connect(f"/ws/{tid}", headers=_from("10.0.0.1")),
        ):
            pass
        assert denied.value.status_code == 429
        assert "too many connections from your address" in denied.value.json()["error"]
        r = client.get("/api/tables", headers=_from("10.0.0.1"))
        assert r.status_code == 429 and "too many connections" in r.json()["error"]
        for _ in range(2):
            stack.enter_context(client.websocket_connect(f"/ws/{tid}", headers=_from("10.0.0.2")))
        r = client.get("/api/tables", headers=_from("10.0.0.3"))
        assert r.status_code == 503 and "the server is full" in r.json()["error"]
        stack.close()
        assert client.get("/api/tables", headers=_from("10.0.0.1")).status_code == 200  # counted down


def _post(url: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize("trusted", [False, True])
def test_the_client_address_is_the_sockets_unless_a_trusted_proxy_is_named(trusted):
    """Tables per client are counted by address: X-Forwarded-For moves a client to another
    address only when the connection comes from a proxy named by --trusted-proxy."""
    args = ["--db", ":memory:", "--max-tables-per-client", "2"]
    if trusted:
        args += ["--trusted-proxy", "127.0.0.1"]
    with serve_process(*args) as base:
        got = [_post(base + "/api/tables", {}, {"X-Forwarded-For": f"198.51.100.{i}"})[0] for i in range(4)]
    assert got == ([201] * 4 if trusted else [201, 201, 429, 429])


# ----------------------------------------------------------------------------- the server's log


def _raw(port: int, data: bytes, *, read: bool = False, pause: float = 0.2) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        time.sleep(pause)
        if read:
            with contextlib.suppress(OSError):
                s.recv(65536)


def test_nothing_a_client_does_leaves_a_traceback_in_the_server_log(tmp_path):
    """Bodies cut short by a disconnect (every endpoint that reads one), websockets closed at
    every step, garbage frames: the server's log holds no traceback, at most a line each."""
    log = tmp_path / "server.log"
    with log.open("w") as err, serve_process("--db", str(tmp_path / "room.db"), stderr=err) as base:
        port = int(base.rsplit(":", 1)[1])
        status, table = _post(base + "/api/tables", {"hands": 1, "bots": [None, "greedy", "greedy", "greedy"]})
        tid = table["id"]
        cases = 0
        for path in ("/api/tables", "/api/replay", "/api/review?seat=0"):
            head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900\r\n\r\n"
            _raw(port, head.encode() + b'{"name": "cut')  # then the connection closes
            cases += 1
        # a websocket upgrade, then nothing; then closed mid-frame; then a frame of garbage
        upgrade = (
            f"GET /ws/{tid} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
        _raw(port, upgrade, pause=0.05)
        _raw(port, upgrade + b"\x81\xfe\x10\x00abcd", read=True)
        _raw(port, upgrade + b"\x8f\x85" + b"\x00" * 20, read=True)
        _raw(
            port,
            b"GET /ws/nosuchtable HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            pause=0.0,
        )
        cases += 4

        async def sit_and_vanish() -> None:
            import websockets

            for step in range(4):
                ws = await websockets.connect(base.replace("http", "ws") + f"/ws/{tid}")
                if step >= 1:
                    await ws.send(json.dumps({"type": "sit", "seat": 0, "name": "Gone", "secret": "g" * 32}))
                if step >= 2:
                    await ws.send(json.dumps({"type": "start"}))
                if step >= 3:
                    await ws.send("not json at all")
                ws.transport.abort()  # no closing handshake

        asyncio.run(asyncio.wait_for(sit_and_vanish(), 30))
        cases += 4
        time.sleep(1.0)
        with urllib.request.urlopen(base + "/api/tables", timeout=10) as r:
            assert r.status == 200  # still serving
    text = log.read_text()
    assert "Traceback" not in text, text
    lines = [ln for ln in text.splitlines() if ln.strip() and "xuezhan game room on" not in ln]
    assert len(lines) <= cases, text
