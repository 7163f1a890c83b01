"""The ``search`` bot at the game room (docs/room.md, docs/search.md): offered by name, given a
sampler of its seat for each hand as in every loop that plays hands, its budget inside the
table's decision limits (R10), a server-wide cap on searching seats (refused past it with one
message naming the cap, free again on every path that drops the bot), hidden at
``--search-seats 0``, and the event loop answering while a search thinks in its thread."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from _room_helpers import live_server
from click.testing import CliRunner

with warnings.catch_warnings():  # starlette asks for httpx2; httpx is what the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from xuezhan.cli import main as cli_main
from xuezhan.engine.decisions import Sampler
from xuezhan.serve.app import create_app
from xuezhan.serve.bots import BUDGET_SHARE, BotCatalog
from xuezhan.serve.connections import Client
from xuezhan.serve.limits import Limits, Pace, RoomError
from xuezhan.serve.lobby import Room
from xuezhan.serve.tables import Table
from xuezhan.strategies.search import SearchStrategy
from xuezhan.tournament.config import ConfigError

#: A quick searching bot from a bot file: few samples, so a whole hand takes a second or two.
QUICK = """
[[bots]]
name = "quick-search"
strategy = "search"
options = { rollouts = 4, pick = 2 }
"""
NOW = Pace(bot_delay=0.0, between_hands=0.0, claim_window=0.0)


def _quick_catalog(tmp_path: Path, search_seats: int = 4) -> BotCatalog:
    path = tmp_path / "bots.toml"
    path.write_text(QUICK, encoding="utf-8")
    return BotCatalog.from_file(path, search_seats=search_seats)


def _run(coro: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(coro(), 60))


async def _until(cond: Callable[[], bool], what: str, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.01)


def _host(table: Table) -> Client:
    c = Client()
    table.claim_host(c, table.host_token)
    return c


# --------------------------------------------------------------------------- the catalogue
def test_search_is_offered_with_a_label_and_hidden_at_zero_seats(tmp_path):
    on = BotCatalog()
    assert "search" in on.names and on.searches("search") and not on.searches("value")
    assert "looks ahead" in on.labels["search"] and set(on.labels) == set(on.names)
    assert "expert" in on.names and on.searches("expert") and "高手" in on.labels["expert"]
    off = BotCatalog(search_seats=0)
    assert "search" not in off.names and "search" not in off.labels and not off.searches("search")
    assert "expert" not in off.names  # it searches too: it counts against the cap
    # a bot file entry that searches counts as a searching bot, and is refused when they are off
    assert _quick_catalog(tmp_path).searches("quick-search")
    with pytest.raises(ConfigError, match=r"bots\.toml: bot 'quick-search' searches .*search seats 0"):
        _quick_catalog(tmp_path, search_seats=0)
    with pytest.raises(ConfigError, match="search_seats: expected a whole number"):
        BotCatalog(search_seats=-1)


def test_a_bad_search_option_in_the_bot_file_is_refused_at_start(tmp_path):
    path = tmp_path / "bots.toml"
    path.write_text('[[bots]]\nname = "s"\nstrategy = "search"\noptions = { budget = "lots" }\n')
    with pytest.raises(ConfigError, match=r"bots\[0\]: .*budget"):
        BotCatalog.from_file(path)


def test_the_search_budget_stays_inside_the_tables_decision_limits():
    cat = BotCatalog()
    assert cat.build("search").budget == 1.0  # no table: the search's own default
    assert cat.build("search", time_limit=10.0).budget == 1.0  # the default is the smaller
    assert cat.build("search", time_limit=0.6).budget == pytest.approx(BUDGET_SHARE * 0.6)
    assert cat.build("greedy", time_limit=0.6) is not None  # other bots take no budget

    async def seated() -> float:
        room = Room(pace=NOW, rules_overrides={"turn_timeout": 2.0, "claim_timeout": 0.8})
        t = room.create("T", hands=1, bots=["search", None, None, None])
        budget = t.seats[0].strategy.budget
        await room.close()
        return budget

    assert _run(seated) == pytest.approx(BUDGET_SHARE * 0.8)  # the shorter limit (the claim, R10.2)


def test_serve_search_seats_zero_with_a_searching_bot_file_is_one_clear_error(tmp_path):
    path = tmp_path / "bots.toml"
    path.write_text(QUICK, encoding="utf-8")
    res = CliRunner().invoke(cli_main, ["serve", "--search-seats", "0", "--bots", str(path), "--db", ":memory:"])
    assert res.exit_code != 0
    assert "quick-search" in res.output and "search seats 0" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(cli_main, ["serve", "--search-seats", "-1"])
    assert res.exit_code == 2 and "--search-seats" in res.output
    assert "--search-seats" in CliRunner().invoke(cli_main, ["serve", "--help"]).output


def test_search_seats_zero_hides_search_from_every_list():
    room = Room(BotCatalog(search_seats=0), pace=NOW)
    with TestClient(create_app(room)) as client:
        assert "search" not in client.get("/api/bots").json()
        assert [b["name"] for b in client.get("/api/bots?labels=1").json()] == ["random", "greedy", "value"]
        r = client.post("/api/tables", json={"hands": 1, "bots": ["search", None, None, None]})
        assert r.status_code == 400 and "unknown bot 'search'" in r.json()["error"]
        t = client.post("/api/tables", json={"hands": 1}).json()
        with client.websocket_connect(f"/ws/{t['id']}") as ws:
            welcome = ws.receive_json()
            assert welcome["type"] == "welcome" and "search" not in welcome["bots"]
            assert "search" not in welcome["bot_labels"]
    default = Room(pace=NOW)
    with TestClient(create_app(default)) as client:
        assert client.get("/api/bots").json() == ["random", "greedy", "value", "search", "expert"]
        labelled = {b["name"]: b["label"] for b in client.get("/api/bots?labels=1").json()}
        assert list(labelled) == ["random", "greedy", "value", "search", "expert"]
        assert "looks ahead" in labelled["search"] and "高手" in labelled["expert"]
        t = client.post("/api/tables", json={"hands": 1}).json()
        with client.websocket_connect(f"/ws/{t['id']}") as ws:
            welcome = ws.receive_json()
            assert "search" in welcome["bots"] and "looks ahead" in welcome["bot_labels"]["search"]


# --------------------------------------------------------------------------- a whole hand
def test_a_search_bot_plays_a_whole_hand_with_its_sampler_bound(tmp_path):
    """Four bots, one of them searching: the hand plays to its end, the searcher searched (it
    only searches with a sampler: without one it plays ``value``), no seat escaped, and once the
    match is over (nobody sits there to play another) its searching seat is free again."""

    async def play() -> tuple[Table, SearchStrategy, Room]:
        room = Room(_quick_catalog(tmp_path, search_seats=1), pace=NOW, seeds=lambda: 7)
        t = room.create("T", hands=1, bots=["quick-search", "greedy", "value", "greedy"])
        bot = t.seats[0].strategy
        assert isinstance(bot, SearchStrategy) and room.searching_seats() == 1
        await _until(lambda: t.status == "over", "the match is over")
        await room.close()
        return t, bot, room

    t, bot, room = _run(play)
    rnd = t.rnd
    assert rnd is not None and rnd.over
    assert bot.searched > 0, "the search bot never searched: no sampler was bound"
    assert not [e for e in rnd.ledger.events if e.type == "escape"]
    assert t.seats[0].kind == "empty" and room.searching_seats() == 0


@pytest.mark.parametrize("preset", ["chengdu", "xueliu"])
def test_an_expert_bot_plays_a_whole_hand_searching_through_its_sealed_sampler(preset, monkeypatch):
    """高手 at a table: it counts against the cap, plays the hand to its end (exchange and void
    included, R11) with no escape, and its search read the hand only through its seat's sealed
    sampler, at least at every setup decision it had a choice in."""
    from xuezhan.strategies.expert import ExpertStrategy

    sealed: list[int] = []
    real = Sampler.sealed

    def counting(self: Sampler) -> Any:
        sealed.append(self._seat)
        return real(self)

    monkeypatch.setattr(Sampler, "sealed", counting)

    async def play() -> Table:
        room = Room(BotCatalog(search_seats=1), pace=NOW, seeds=lambda: 11)
        t = room.create("T", preset=preset, hands=1, bots=["expert", "greedy", "value", "greedy"])
        assert isinstance(t.seats[0].strategy, ExpertStrategy) and room.searching_seats() == 1
        await _until(lambda: t.status == "over", "the match is over", limit=60.0)
        await room.close()
        return t

    t = _run(play)
    rnd = t.rnd
    assert rnd is not None and rnd.over
    assert not [e for e in rnd.ledger.events if e.type == "escape"]
    assert sealed and set(sealed) == {0}  # only its own seat's sampler, never another's
    assert len(sealed) >= 2  # the exchange and the void at least (each has a choice)


def test_a_search_bot_gets_a_fresh_sampler_each_hand_and_a_file_strategy_none(tmp_path):
    """The room binds samplers as the engine's loops do: after each hand's reset, to the
    searching bot of each seat only (a user's strategy never gets one)."""
    bound: list[tuple[int, Sampler]] = []

    class Recording(SearchStrategy):
        """A searcher defined outside the project: the room must not give it a sampler."""

        def bind_sampler(self, sampler: Sampler) -> None:
            raise AssertionError("a user's strategy was given a sampler")

    async def play() -> None:
        room = Room(_quick_catalog(tmp_path), pace=NOW)
        t = room.create("T", hands=2, bots=["quick-search", "greedy", "greedy", "greedy"])
        bot = t.seats[0].strategy
        own_bind = bot.bind_sampler

        def spy(sampler: Sampler) -> None:
            assert isinstance(sampler, Sampler)
            assert sampler._round is t.rnd  # this hand's round, bound before its first decision
            bound.append((t.played, sampler))
            own_bind(sampler)

        bot.bind_sampler = spy  # before the first hand: the table task has not run yet
        t.seats[1].strategy = Recording(seed=1, rollouts=1)
        await _until(lambda: t.status == "over", "the match is over")
        assert t.hand_no == 2  # both hands played (the table did not stop)
        await room.close()

    _run(play)
    assert [h for h, _ in bound] == [1, 2] and bound[0][1]._round is not bound[1][1]._round


# --------------------------------------------------------------------------- the cap
def test_the_cap_refuses_one_search_seat_too_many_and_admits_it_once_one_is_freed():
    async def go() -> None:
        room = Room(BotCatalog(search_seats=2), pace=NOW)
        a = room.create("A", hands=1, bots=["search", "search", None, None])
        assert room.searching_seats() == 2
        with pytest.raises(RoomError) as err:
            room.create("B", hands=1, bots=["greedy", "search", None, None])
        msg = str(err.value)
        assert "at most 2 searching bots" in msg and "'search'" in msg
        # refused whole: no table, no bot left behind
        assert list(room.tables) == [a.id] and room.searching_seats() == 2
        b = room.create("B", hands=1)
        host_b, host_a = _host(b), _host(a)
        with pytest.raises(RoomError, match="at most 2 searching bots"):
            b.seat_bot(host_b, 0, "search")
        assert b.seats[0].kind == "empty"
        # a searching bot replaced by another takes its slot (no refusal at the cap)
        a.seat_bot(host_a, 1, "search")
        assert room.searching_seats() == 2
        # freed by standing it up: admitted again, and the cap holds once more
        a.stand(host_a, 1)
        assert room.searching_seats() == 1
        b.seat_bot(host_b, 0, "search")
        assert room.searching_seats() == 2
        with pytest.raises(RoomError, match="at most 2 searching bots"):
            b.seat_bot(host_b, 1, "search")
        # freed by replacing it with another bot
        a.seat_bot(host_a, 0, "value")
        assert room.searching_seats() == 1
        b.seat_bot(host_b, 1, "search")
        # freed by the table closing (idle: nobody connected)
        room.limits.idle_timeout = 0.0
        assert set(await room.expire()) == {a.id, b.id} and room.searching_seats() == 0
        c = room.create("C", hands=1, bots=["search", "search", None, None])
        assert c.searching == 2
        await room.close()

    _run(go)


def test_the_cap_message_reaches_the_client_as_one_error():
    room = Room(BotCatalog(search_seats=1), pace=NOW)
    with TestClient(create_app(room)) as client:
        r = client.post("/api/tables", json={"hands": 1, "bots": ["search", None, None, None]})
        assert r.status_code == 201
        t = client.post("/api/tables", json={"hands": 1}).json()
        r = client.post("/api/tables", json={"hands": 1, "bots": ["search", "search", None, None]})
        assert r.status_code == 400 and r.json() == {
            "error": "the server seats at most 1 searching bots ('search') at once, and all 1 are taken; "
            "choose another bot, or try again when one is freed"
        }
        with client.websocket_connect(f"/ws/{t['id']}") as ws:
            assert ws.receive_json()["type"] == "welcome"
            ws.send_json({"type": "host", "token": t["host_token"]})
            ws.send_json({"type": "bot", "seat": 2, "strategy": "search"})
            for _ in range(20):
                m = ws.receive_json()
                if m["type"] == "error":
                    assert "at most 1 searching bots" in m["message"]
                    break
            else:
                raise AssertionError("no error for a search seat past the cap")
        assert room.searching_seats() == 1


def test_a_search_bot_that_waits_for_a_hand_too_long_frees_its_seat():
    """A table that does not play (nobody sits down) holds its searching seats no longer than
    a person may wait without pressing Start."""

    async def go() -> None:
        room = Room(BotCatalog(search_seats=1), pace=NOW, limits=Limits(start_timeout=0.2))
        t = room.create("T", hands=1, bots=["search", None, None, None])
        assert room.searching_seats() == 1
        await _until(lambda: room.searching_seats() == 0, "the waiting search bot leaves")
        assert t.seats[0].kind == "empty"
        room.create("U", hands=1, bots=[None, "search", None, None])
        await room.close()

    _run(go)


def test_a_finished_match_without_people_takes_no_search_seat(tmp_path):
    async def go() -> None:
        room = Room(_quick_catalog(tmp_path, search_seats=1), pace=NOW)
        t = room.create("T", hands=1, bots=["quick-search", "greedy", "greedy", "greedy"])
        await _until(lambda: t.status == "over", "the match is over")
        assert room.searching_seats() == 0
        with pytest.raises(RoomError, match="match is over and nobody sits"):
            t.seat_bot(_host(t), 0, "quick-search")
        await room.close()

    _run(go)


def test_a_stopped_table_frees_its_search_seats():
    """A table whose task failed (a bug) shows as over and holds no searching seat."""

    async def go() -> None:
        room = Room(BotCatalog(search_seats=1), pace=NOW, limits=Limits(start_timeout=60))
        t = room.create("T", hands=1, bots=["search", None, None, None])

        def broken() -> bool:
            raise RuntimeError("a bug")

        t._ready = broken  # type: ignore[method-assign]
        t._wake.set()
        await _until(lambda: t.status == "over", "the table stopped")
        assert room.searching_seats() == 0 and t.seats[0].kind == "empty"
        await room.close()

    _run(go)


# --------------------------------------------------------------------------- responsiveness
class _Gate:
    """Holds the first sample of a search until the test has had its answers."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.held_on: str | None = None


class _GatedSampler:
    def __init__(self, inner: Sampler, gate: _Gate) -> None:
        self._inner, self._gate = inner, gate

    def sample(self, rng: Any, *, pick: int = 1, ready: float = 0.0, read_discards: bool = False) -> Any:
        gate = self._gate
        if not gate.entered.is_set():
            gate.held_on = threading.current_thread().name
            gate.entered.set()
            assert gate.release.wait(30), "the test never released the search"
        return self._inner.sample(rng, pick=pick, ready=ready, read_discards=read_discards)


class _GatedCatalog(BotCatalog):
    """The built-in bots; a searching one's sampler is gated (its class stays the built-in's)."""

    def __init__(self, gate: _Gate) -> None:
        super().__init__(search_seats=1)
        self.gate = gate

    def build(self, name: str, *, time_limit: float | None = None) -> Any:
        bot = super().build(name, time_limit=time_limit)
        if self.searches(name):
            own = bot.bind_sampler
            bot.bind_sampler = lambda sampler: own(_GatedSampler(sampler, self.gate))
        return bot


def test_the_server_answers_http_and_websocket_while_a_search_bot_thinks():
    """A live server on 127.0.0.1: while a search decision is held inside its sampler (in the
    bot's worker thread), an HTTP request and a websocket connection are answered; then the
    search goes on and the hand plays to its end. Were the search run on the event loop, the
    requests would time out (bounded), not hang."""
    gate = _Gate()
    room = Room(_GatedCatalog(gate), pace=NOW)
    try:
        with live_server(create_app(room)) as base, httpx.Client(base_url=base, timeout=10) as http:
            r = http.post("/api/tables", json={"hands": 1, "bots": ["search", "greedy", "greedy", "greedy"]})
            assert r.status_code == 201
            tid = r.json()["id"]
            assert gate.entered.wait(30), "the search bot never searched"
            assert gate.held_on is not None and gate.held_on.startswith("search")  # its own threads
            # the search is held: the loop still answers a request ...
            listed = http.get("/api/tables")
            assert listed.status_code == 200
            assert [t["status"] for t in listed.json() if t["id"] == tid] == ["playing"]

            # ... and a websocket: welcome, then the table and the state of the hand
            async def watch() -> set[str]:
                url = base.replace("http", "ws", 1) + f"/ws/{tid}"
                seen: set[str] = set()
                async with websockets.connect(url, open_timeout=10) as ws:
                    while not {"welcome", "table", "state"} <= seen:
                        seen.add(json.loads(await asyncio.wait_for(ws.recv(), 10))["type"])
                return seen

            assert asyncio.run(watch()) >= {"welcome", "table", "state"}
            assert not gate.release.is_set()  # all answered while the search was held
            gate.release.set()
            table = room.tables[tid]
            deadline = time.monotonic() + 60
            while table.status != "over":
                assert time.monotonic() < deadline, "the hand did not end"
                time.sleep(0.02)
            assert table.rnd is not None and table.rnd.over
    finally:
        gate.release.set()
