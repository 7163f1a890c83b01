"""The standings database under concurrent use: servers starting together on a fresh file, a new
name claimed twice at once, resets racing bookings, two servers on one file. Each race runs with
threads and with processes (spawned, each its own SQLite connection), all starting at a barrier;
every wait is bounded, so a deadlock fails the test instead of hanging it."""

from __future__ import annotations

import contextlib
import multiprocessing
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _standings_workers as W
import pytest

from xuezhan.serve.standings import SCHEMA_VERSION, Standings

#: Seconds a whole race may take before the test fails (it takes well under one).
RACE_TIMEOUT = 90.0
#: Races run per test (each on a fresh database): the old code lost about half of them.
TRIALS = 12

_SPAWN = multiprocessing.get_context("spawn")


def race(how: str, fn: Callable[..., tuple[str, Any]], args: list[tuple]) -> list[tuple[str, Any]]:
    """Run ``fn(*a, barrier)`` for each ``a`` of ``args`` at once, in threads or in processes;
    their outcomes in the order of ``args``."""
    n = len(args)
    out: list[Any] = [None] * n
    if how == "threads":
        barrier: Any = threading.Barrier(n)

        def one(i: int) -> None:
            out[i] = fn(*args[i], barrier)

        threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(RACE_TIMEOUT)
        assert not any(t.is_alive() for t in threads), "a racing thread did not finish"
        return out
    barrier = _SPAWN.Barrier(n)
    queue = _SPAWN.Queue()
    procs = [_SPAWN.Process(target=W.reported, args=(queue, i, fn, (*a, barrier))) for i, a in enumerate(args)]
    for p in procs:
        p.start()
    try:
        for _ in range(n):
            i, res = queue.get(timeout=RACE_TIMEOUT)
            out[i] = res
    finally:
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
    return out


def _rows(db: Path, sql: str) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(db)) as c:
        return c.execute(sql).fetchall()


HOW = ["threads", "processes"]


@pytest.mark.parametrize("how", HOW)
def test_servers_starting_together_on_a_fresh_database_all_start_with_one_schema_version_row(how, tmp_path):
    """Each start creates the schema if it is missing: together, one creates it and the others
    find it (no "table ... already exists", never a second ``schema_version`` row)."""
    dbs = [tmp_path / f"fresh-{trial}.db" for trial in range(TRIALS)]
    got = race(how, W.start, [([str(db) for db in dbs],)] * 4)
    for trial, db in enumerate(dbs):
        outcomes = [g[trial] for g in got]
        assert outcomes == [("ok", None)] * 4, f"trial {trial}: {outcomes}"
        assert _rows(db, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)], f"trial {trial}"


@pytest.mark.parametrize("how", HOW)
def test_a_new_name_claimed_twice_at_once_is_the_first_claimants_and_the_second_is_refused_clearly(how, tmp_path):
    dbs = [tmp_path / f"claim-{trial}.db" for trial in range(TRIALS)]
    for db in dbs:
        Standings(str(db)).close()
    got = race(how, W.claim, [([str(db) for db in dbs], "Mei", f"{k}" * 32) for k in range(4)])
    for trial, db in enumerate(dbs):
        outcomes = [g[trial] for g in got]
        kinds = sorted(kind for kind, _ in outcomes)
        assert kinds == ["ok", "refused", "refused", "refused"], f"trial {trial}: {outcomes}"
        assert all("belongs to a player" in msg for kind, msg in outcomes if kind == "refused"), outcomes
        assert _rows(db, "SELECT count(*) FROM players WHERE name = 'Mei'") == [(1,)]
        assert _rows(db, "SELECT count(*) FROM player_secrets") == [(1,)]


@pytest.mark.parametrize("how", HOW)
def test_resets_racing_bookings_each_bring_every_player_back_to_zero(how, tmp_path):
    """清零 books, for each player, minus the sum of every entry before it: a hand booked while a
    reset runs is either before it (and cancelled by it) or after it (and kept), never lost in
    between. Checked entry by entry: each reset entry is minus the player's sum before it."""
    db = tmp_path / "room.db"
    led = Standings(str(db))
    a, b = led.identify("A", "a" * 32), led.identify("B", "b" * 32)
    led.close()
    hands, rounds = 5, 40  # each round the three start together, so resets meet bookings
    got = race(
        how,
        W.book_or_reset,
        [
            (str(db), "book", [a, b], hands, rounds),
            (str(db), "book", [a, b], hands, rounds),
            (str(db), "reset", [], hands, rounds),
        ],
    )
    assert got[:2] == [("ok", rounds * hands)] * 2 and got[2][0] == "ok", got
    entries = _rows(db, "SELECT id, player_id, kind, points FROM entries ORDER BY id")
    assert sum(1 for e in entries if e[2] == "hand") == 2 * 2 * rounds * hands
    running = {a: 0, b: 0}
    checked = 0
    for _id, pid, kind, points in entries:
        if kind == "reset":
            assert points == -running[pid], f"a reset booked {points} where the standing was {running[pid]}"
            checked += 1
        running[pid] += points
    # the final standing is the sum of the hands booked after each player's last reset
    final = Standings(str(db))
    assert {s.name: s.points for s in final.standings()} == {"A": running[a], "B": running[b]}
    final.close()
    assert checked > 0


def test_two_servers_on_one_database_both_seat_their_players_and_book_their_hands(tmp_path):
    """Two ``xuezhan serve`` processes on one database file: at each, two tables of a person and
    three bots play a hand at the same time, and a fifth name is claimed at both at once. Every
    person sits, every hand is booked (both servers see all four players), and the name claimed
    twice is one player's, the other claimant refused with a message."""
    import asyncio
    import json
    import urllib.request

    from _room_helpers import play_seat, serve_process

    db = tmp_path / "room.db"
    args = ("--db", str(db), "--bot-delay", "0", "--turn-timeout", "5", "--claim-timeout", "5", "--claim-window", "0")
    with serve_process(*args) as a, serve_process(*args) as b:

        def table(base: str) -> str:
            req = urllib.request.Request(
                base + "/api/tables",
                data=json.dumps({"hands": 1, "bots": [None, "greedy", "greedy", "greedy"]}).encode(),
                headers={"content-type": "application/json"},
            )
            with urllib.request.urlopen(req, timeout=10) as r:
                return str(json.loads(r.read())["id"])

        def ws(base: str, tid: str) -> str:
            return base.replace("http", "ws") + f"/ws/{tid}"

        tables = [(base, table(base)) for base in (a, b, a, b)]
        contested = [(base, table(base)) for base in (a, b)]

        async def main() -> list[dict]:
            return await asyncio.gather(
                *[play_seat(ws(base, tid), 0, f"P{i}", f"{i}" * 32) for i, (base, tid) in enumerate(tables)],
                *[play_seat(ws(base, tid), 0, "Both", f"{k + 5}" * 32) for k, (base, tid) in enumerate(contested)],
            )

        ends = asyncio.run(asyncio.wait_for(main(), RACE_TIMEOUT))
        for end in ends[:4]:
            assert end["type"] == "state" and end["over"] and end["replay_id"], end
        both = ends[4:]
        assert sorted(m["type"] for m in both) == ["error", "state"], both
        assert "belongs to a player" in next(m for m in both if m["type"] == "error")["message"]
        for base in (a, b):
            with urllib.request.urlopen(base + "/api/standings", timeout=10) as r:
                board = {p["name"]: p["hands"] for p in json.loads(r.read())}
            assert board == {"P0": 1, "P1": 1, "P2": 1, "P3": 1, "Both": 1}, board
    assert _rows(db, "SELECT count(*) FROM hands") == [(5,)]
