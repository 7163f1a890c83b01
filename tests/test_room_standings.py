"""The standings (积分): players kept by a secret, every hand's points and R8 penalties booked in
the database, surviving a server restart; the leaderboard API and the operator commands."""

from __future__ import annotations

import contextlib
import sqlite3
import warnings

import pytest
from click.testing import CliRunner

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from _room_helpers import hand_events, read_until, seeds_with_dealer

from xuezhan.cli import main
from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Pace
from xuezhan.serve.lobby import Room
from xuezhan.serve.standings import SCHEMA_VERSION, Standings, StandingsError

SECRET_A = "a" * 32
SECRET_B = "b" * 32


def _room(db) -> Room:
    return Room(
        pace=Pace(bot_delay=0.0, between_hands=0.0, claim_window=0.0),
        rules_overrides={"turn_timeout": 0.3, "claim_timeout": 0.2},
        ledger=Standings(str(db)),
        seeds=seeds_with_dealer(0),
    )


@contextlib.contextmanager
def serving(room):
    with TestClient(create_app(room)) as client, contextlib.ExitStack() as stack:
        client.stack = stack
        yield client
    room.ledger.close()


def _play_one_hand(client, name, secret, leave=False):
    """A person (with a player secret) plays one hand against three bots, letting the clock
    play for them (R10); with ``leave`` the tab closes at its first decision (R8)."""
    t = client.post("/api/tables", json={"hands": 1, "bots": [None, "greedy", "greedy", "greedy"]}).json()
    ws = client.stack.enter_context(client.websocket_connect(f"/ws/{t['id']}"))
    watcher = client.stack.enter_context(client.websocket_connect(f"/ws/{t['id']}"))
    ws.send_json({"type": "sit", "seat": 0, "name": name, "secret": secret})
    assert read_until(ws, lambda m: m.type in ("welcome", "error") and getattr(m, "seat", 0) == 0).type == "welcome"
    ws.send_json({"type": "start"})
    if leave:
        read_until(ws, lambda m: m.type == "state" and m.legal)
        ws.close()
    seen: list = []
    end = read_until(watcher, lambda m: m.type == "state" and m.over, log=seen, limit=20000)
    return end, hand_events(seen)


def test_the_ledger_keeps_every_hand_across_a_server_restart(tmp_path):
    db = tmp_path / "room.db"
    with serving(_room(db)) as client:
        end1, ev1 = _play_one_hand(client, "Alice's", SECRET_A)
        end2, ev2 = _play_one_hand(client, "Alice's", SECRET_A, leave=True)
        # someone else cannot use the name without its secret (or password)
        t = client.post("/api/tables", json={}).json()
        ws = client.stack.enter_context(client.websocket_connect(f"/ws/{t['id']}"))
        ws.send_json({"type": "sit", "seat": 0, "name": "Alice's", "secret": SECRET_B})
        assert "belongs to a player" in read_until(ws, lambda m: m.type == "error").message
    deltas1 = next(e for e in ev1 if e["type"] == "end")["deltas"]
    deltas2 = next(e for e in ev2 if e["type"] == "end")["deltas"]
    penalty = sum(e["amount"] for e in ev2 if e["type"] == "pay" and e["rule"] == "R8" and e["from"] == 0)
    assert any(e["type"] == "escape" and e["seat"] == 0 for e in ev2) and penalty > 0
    # a restart: a new server on the same database file
    with serving(_room(db)) as client:
        board = client.get("/api/standings").json()
        assert board == [{"name": "Alice's", "points": deltas1[0] + deltas2[0], "hands": 2}]
        me = client.get("/api/players/Alice's").json()
        kinds = [(h["kind"], h["points"]) for h in me["history"]]
        # newest first: the escape penalty (R8) apart from the rest of the second hand
        assert kinds == [("escape", -penalty), ("hand", deltas2[0] + penalty), ("hand", deltas1[0])]
        # the replay links still work after the restart, with the deal's seed and commitment
        for h, end in zip(me["history"][1:], (end2, end1), strict=True):
            assert h["replay_id"] == end.replay_id
            doc = client.get(f"/api/replay/{h['replay_id']}").json()
            assert doc["frames"][-1]["deltas"] == (deltas2 if end is end2 else deltas1)
            assert doc["seed"] == end.seed and doc["commitment"] == end.commitment
        assert {e["id"] for e in client.get("/api/logs").json()} >= {end1.replay_id, end2.replay_id}
        assert client.get("/api/players/nobody").status_code == 404
    # the operator's commands: show, then 清零
    res = CliRunner().invoke(main, ["standings", "show", "--db", str(db)])
    assert res.exit_code == 0 and "Alice's" in res.output and str(deltas1[0] + deltas2[0]) in res.output
    res = CliRunner().invoke(main, ["standings", "reset", "--db", str(db), "--yes"])
    assert res.exit_code == 0 and "reset 1 player" in res.output
    led = Standings(str(db))
    st, hist = led.player("Alice's")
    assert st.points == 0 and hist[0].kind == "reset" and st.hands == 2
    led.close()


def test_the_database_has_a_schema_version_and_write_ahead_logging(tmp_path):
    db = tmp_path / "room.db"
    Standings(str(db)).close()
    with contextlib.closing(sqlite3.connect(db)) as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert c.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        c.execute("UPDATE schema_version SET version = 99")
        c.commit()
    with pytest.raises(StandingsError, match="schema version 99"):
        Standings(str(db))
    res = CliRunner().invoke(main, ["standings", "show", "--db", str(db)])
    assert res.exit_code == 2 and "schema version 99" in res.output and "Traceback" not in res.output


def test_a_password_lets_a_player_use_the_name_from_another_browser():
    led = Standings(":memory:")
    pid = led.identify("Mei", SECRET_A, "open sesame")
    with pytest.raises(StandingsError, match="give its password"):
        led.identify("Mei", SECRET_B)
    with pytest.raises(StandingsError, match="give its password"):
        led.identify("Mei", SECRET_B, "wrong")
    assert led.identify("Mei", SECRET_B, "open sesame") == pid
    assert led.identify("Mei", SECRET_B) == pid  # the second browser is now known


def test_a_hand_is_booked_in_one_transaction(monkeypatch):
    """A failure while booking leaves nothing half-written: no hand without its entries."""
    led = Standings(":memory:")
    pid = led.identify("Lin", SECRET_A)
    import xuezhan.serve.standings as ledger_mod

    real = ledger_mod._entries.insert
    calls = []

    def failing():
        calls.append(1)
        if len(calls) == 2:  # the second entry of the hand (its escape penalty)
            raise RuntimeError("disk full")
        return real()

    monkeypatch.setattr(ledger_mod._entries, "insert", failing)
    with pytest.raises(RuntimeError):
        led.book_hand("T", "leshan", 1, "c", ["{}"], [pid, None, None, None], [-50, 20, 20, 10], [50, 0, 0, 0])
    monkeypatch.undo()
    assert led.recent_hands() == [] and led.standings()[0].points == 0


@pytest.mark.parametrize("db", [":memory:", "file"])
def test_the_ledger_takes_bookings_from_several_threads_at_once(db, tmp_path):
    """Tables book hands from worker threads while people sit down: nothing lost or refused."""
    import threading

    led = Standings(":memory:" if db == ":memory:" else str(tmp_path / "room.db"))
    pid = led.identify("Hu", SECRET_A)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(40):
                led.book_hand("T", "leshan", i, "c", ["{}"], [pid, None, None, None], [1, 0, 0, -1], [0, 0, 0, 0])
                led.identify(f"p{k}-{i}", f"{k:02d}{i:030d}")
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    st, _ = led.player("Hu")
    assert st.points == 160 and st.hands == 160
    led.close()


def test_a_database_with_two_schema_version_rows_is_repaired_to_one(tmp_path):
    """Servers that raced before the schema was created in one transaction could write the
    version row twice; the next start keeps one (two rows of different versions are refused)."""
    db = tmp_path / "room.db"
    Standings(str(db)).close()
    with contextlib.closing(sqlite3.connect(db)) as c:
        c.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
        c.commit()
    Standings(str(db)).close()
    with contextlib.closing(sqlite3.connect(db)) as c:
        assert c.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        c.execute("INSERT INTO schema_version VALUES (7)")
        c.commit()
    with pytest.raises(StandingsError, match="schema version 7"):
        Standings(str(db))
