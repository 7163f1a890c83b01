"""The room's review API (``/api/review``): a review of a stored or uploaded hand, run in a
worker thread and bounded: rollouts capped, reviews at once per server and per client refused
past their limits with a clear message, a time limit, results cached per hand, seat and rollouts."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading

import httpx
import pytest
from _review_helpers import slipped_hand

from xuezhan.engine import log_lines, write_log
from xuezhan.review import Review
from xuezhan.serve.app import create_app
from xuezhan.serve.lobby import Room
from xuezhan.serve.replay import named_log
from xuezhan.serve.review_jobs import ReviewLimits, ReviewRefused, Reviews, run_review


@pytest.fixture(scope="module")
def slip():
    return slipped_hand("turn")


@pytest.fixture
def log_file(tmp_path, slip):
    path = tmp_path / "slip.jsonl"
    write_log(slip.rnd, path)
    return path


@pytest.fixture
def workers():
    """Reviews with worker processes, ended after the test (an app driven without its lifespan,
    as here through httpx, does not end them itself)."""
    made: list[Reviews] = []

    def make(**limits) -> Reviews:
        made.append(Reviews(ReviewLimits(**limits)))
        return made[-1]

    yield make
    for r in made:
        r.close()


class Gate:
    """A runner that holds every review until released (the real one once let through)."""

    def __init__(self) -> None:
        self.started = threading.Semaphore(0)
        self.release = threading.Event()
        self.calls = 0

    def __call__(self, lines, name, seat, rollouts, top, deadline) -> Review:
        self.calls += 1
        self.started.release()
        assert self.release.wait(20), "the test never released the review"
        return run_review(lines, name, seat, rollouts, top, deadline)


def _gated(gate: Gate, go):
    """Run ``go()``; whatever happens, the gate is opened (no review thread left waiting)."""
    try:
        asyncio.run(go())
    finally:
        gate.release.set()


def _client(app) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://room")


async def _started(gate: Gate) -> None:
    assert await asyncio.to_thread(gate.started.acquire, True, 20), "the review never started"


def test_a_stored_hand_is_reviewed_and_cached(log_file, slip):
    gate = Gate()
    gate.release.set()
    app = create_app(Room(), logs=[log_file], reviews=Reviews(ReviewLimits(rollouts=8), runner=gate))

    async def go():
        async with _client(app) as c:
            r = await c.get("/api/review/f0?seat=0")
            assert r.status_code == 200 and r.headers["x-review-cache"] == "miss"
            rv = Review.model_validate(r.json())
            assert rv.rollouts == 8 and rv.decisions[rv.by_loss[0]].event == slip.event
            again = await c.get("/api/review/f0?seat=0")
            assert again.headers["x-review-cache"] == "hit" and again.json() == r.json()
            other = await c.get("/api/review/f0?seat=0&rollouts=4")  # other rollouts: another review
            assert other.headers["x-review-cache"] == "miss" and other.json()["rollouts"] == 4

    _gated(gate, go)
    assert gate.calls == 2


def test_too_many_reviews_on_the_server_are_refused_with_a_clear_message(log_file):
    gate = Gate()
    app = create_app(
        Room(), logs=[log_file], reviews=Reviews(ReviewLimits(rollouts=2, per_server=1, per_client=5), runner=gate)
    )

    async def go():
        async with _client(app) as c:
            first = asyncio.create_task(c.get("/api/review/f0?seat=0"))
            await _started(gate)
            refused = await c.get("/api/review/f0?seat=1")
            assert refused.status_code == 429
            assert refused.json()["error"] == "the server is already running 1 review, its limit: try again in a minute"
            gate.release.set()
            assert (await first).status_code == 200
            # the slot is free again
            assert (await c.get("/api/review/f0?seat=1")).status_code == 200

    _gated(gate, go)


def test_a_client_with_a_review_running_is_refused_another(log_file):
    gate = Gate()
    app = create_app(
        Room(), logs=[log_file], reviews=Reviews(ReviewLimits(rollouts=2, per_server=5, per_client=1), runner=gate)
    )

    async def go():
        async with _client(app) as c:
            first = asyncio.create_task(c.get("/api/review/f0?seat=0"))
            await _started(gate)
            refused = await c.get("/api/review/f0?seat=2")
            assert refused.status_code == 429
            assert refused.json()["error"].startswith("you already have 1 review running (at most 1 per client)")
            gate.release.set()
            assert (await first).status_code == 200

    _gated(gate, go)


def test_a_client_that_goes_away_keeps_its_slot_until_its_review_is_done(log_file):
    # otherwise a client could start a review, hang up, start another, ...: threads past the limits
    gate = Gate()
    reviews = Reviews(ReviewLimits(rollouts=2, per_server=1, per_client=1), runner=gate)
    app = create_app(Room(), logs=[log_file], reviews=reviews)

    async def go():
        async with _client(app) as c:
            gone = asyncio.create_task(c.get("/api/review/f0?seat=0"))
            await _started(gate)
            gone.cancel()
            await asyncio.gather(gone, return_exceptions=True)
            busy = await c.get("/api/review/f0?seat=1")
            assert busy.status_code == 429, "the cancelled request's review still runs: its slot is taken"
            gate.release.set()
            for _ in range(200):  # the review finishes in its thread, then frees the slot
                if not reviews._running:
                    break
                await asyncio.sleep(0.05)
            # its result was kept: asking again costs nothing
            again = await c.get("/api/review/f0?seat=0")
            assert again.status_code == 200 and again.headers["x-review-cache"] == "hit"

    _gated(gate, go)
    assert gate.calls == 1


def test_the_same_review_asked_twice_at_once_runs_once(log_file):
    gate = Gate()
    app = create_app(
        Room(), logs=[log_file], reviews=Reviews(ReviewLimits(rollouts=2, per_server=1, per_client=1), runner=gate)
    )

    async def go():
        async with _client(app) as c:
            first = asyncio.create_task(c.get("/api/review/f0?seat=0"))
            await _started(gate)
            second = asyncio.create_task(c.get("/api/review/f0?seat=0"))
            await asyncio.sleep(0.2)
            gate.release.set()
            a, b = await first, await second
            assert a.status_code == b.status_code == 200 and a.json() == b.json()

    _gated(gate, go)
    assert gate.calls == 1


def test_a_review_past_the_time_limit_says_so(log_file, workers):
    app = create_app(Room(), logs=[log_file], reviews=workers(rollouts=2, time_limit=0.0))

    async def go():
        async with _client(app) as c:
            r = await c.get("/api/review/f0?seat=0")
            assert r.status_code == 503
            assert "stopped at this server's time limit (0 s) after 0 of" in r.json()["error"]
            assert "try fewer rollouts" in r.json()["error"]

    asyncio.run(go())


def test_a_failed_review_frees_its_slot(log_file):
    calls = []

    def failing(lines, name, seat, rollouts, top, deadline):
        calls.append(seat)
        raise ReviewRefused(f"{name}: refused for the test")

    app = create_app(Room(), logs=[log_file], reviews=Reviews(ReviewLimits(per_server=1, per_client=1), runner=failing))

    async def go():
        async with _client(app) as c:
            for seat in (0, 1):
                r = await c.get(f"/api/review/f0?seat={seat}")
                assert r.status_code == 400 and r.json()["error"] == "slip.jsonl: refused for the test"

    asyncio.run(go())
    assert calls == [0, 1]


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("/api/review/f0?seat=4", 400, "seat: expected 0, 1, 2 or 3, got '4'"),
        ("/api/review/f0", 400, "seat: expected 0, 1, 2 or 3, got ''"),
        (
            "/api/review/f0?seat=0&rollouts=65",
            400,
            "rollouts: expected a whole number from 2 to 64 (this server's limit)",
        ),
        ("/api/review/f0?seat=0&rollouts=x", 400, "rollouts: expected a whole number"),
        ("/api/review/f7?seat=0", 404, "no hand log 'f7'"),
        ("/api/review/h99?seat=0", 404, "no hand log 'h99'"),
        ("/api/review/x1?seat=0", 404, "ids are f<number> or h<number>"),
    ],
)
def test_bad_requests_are_refused_naming_the_fault(log_file, url, status, message):
    app = create_app(Room(), logs=[log_file])

    async def go():
        async with _client(app) as c:
            r = await c.get(url)
            assert r.status_code == status and message in r.json()["error"], r.json()

    asyncio.run(go())


def test_an_uploaded_log_is_reviewed_and_a_broken_one_refused(log_file, workers):
    app = create_app(Room(), reviews=workers(rollouts=2))
    text = log_file.read_text()

    async def go():
        async with _client(app) as c:
            r = await c.post("/api/review?seat=0", content=text.encode())
            assert r.status_code == 200 and r.json()["source"] == "uploaded log"
            lines = text.splitlines()
            cut = "\n".join(lines[:3] + lines[4:])
            bad = await c.post("/api/review?seat=0", content=cut.encode())
            assert bad.status_code == 400
            assert bad.json()["error"].startswith("uploaded log: not the log of a hand the engine plays: line 4")
            junk = await c.post("/api/review?seat=0", content=b"\xff\xfe")
            assert junk.status_code == 400 and "not UTF-8" in junk.json()["error"]
            long = "\n".join(lines + [lines[-1]] * 2000)  # past the replay page's 2,000 lines: not replayed
            r = await c.post("/api/review?seat=0", content=long.encode())
            assert r.status_code == 400 and "lines; a hand log has at most 2000" in r.json()["error"]

    asyncio.run(go())


def test_a_hand_played_in_the_room_is_reviewed_by_its_replay_id(slip, workers):
    room = Room()
    lines = named_log(log_lines(slip.rnd), ["Mei", "greedy", "value", "random"])
    rid = room.ledger.book_hand("t", "leshan", 1, "c" * 64, lines, [None] * 4, list(slip.rnd.ledger.deltas), [0] * 4)
    app = create_app(room, reviews=workers(rollouts=4))

    async def go():
        async with _client(app) as c:
            r = await c.get(f"/api/review/{rid}?seat=0")
            assert r.status_code == 200, r.json()
            rv = Review.model_validate(r.json())
            assert rv.name == "Mei" and rv.decisions[rv.by_loss[0]].event == slip.event

    asyncio.run(go())
    room.ledger.close()


def test_the_room_stays_responsive_while_a_review_runs(log_file, workers, monkeypatch):
    """The review runs in a worker process, never in the server's process (on its event loop or
    in a thread holding the interpreter's lock against it): here the server's own review
    function refuses to run, yet the review is made (by a spawned worker, which imports its
    own); and the room answers another request while the review is still under way. (No
    figure of the loop's lag is asserted: that depends on the machine's load.)"""
    import xuezhan.serve.review_jobs as review_jobs

    def not_here(*args, **kwargs):
        raise AssertionError("the review ran in the server's process")

    monkeypatch.setattr(review_jobs, "review_log", not_here)
    app = create_app(Room(), logs=[log_file], reviews=workers(rollouts=16))

    async def go():
        async with _client(app) as c:
            review = asyncio.create_task(c.get("/api/review/f0?seat=0"))
            while not multiprocessing.active_children():
                await asyncio.sleep(0.01)  # the worker process starts
            assert (await c.get("/api/bots")).status_code == 200
            assert not review.done(), "the review ended before the room answered (it was too short to tell)"
            r = await review
            assert r.status_code == 200, r.json()
            assert Review.model_validate(r.json()).decisions

    asyncio.run(go())


def test_a_hand_played_at_a_room_table_is_reviewed_timeouts_and_escapes_included():
    """A person sits with three bots and lets the clock play (R10 defaults), or leaves at the
    first decision (R8): both booked hands are reviewed by their replay ids."""
    import contextlib

    from _room_helpers import read_until, seeds_with_dealer
    from starlette.testclient import TestClient

    from xuezhan.serve.limits import Pace

    room = Room(
        pace=Pace(bot_delay=0.0, between_hands=0.0, claim_window=0.0),
        # short clocks (the person lets each one run out), long enough that a bot on a loaded
        # machine still answers inside them
        rules_overrides={"turn_timeout": 0.4, "claim_timeout": 0.3},
        seeds=seeds_with_dealer(0),
    )
    ends = []
    with TestClient(create_app(room, reviews=ReviewLimits(rollouts=2))) as client:
        for leave in (False, True):
            with contextlib.ExitStack() as stack:
                t = client.post("/api/tables", json={"hands": 1, "bots": [None, "greedy", "value", "random"]}).json()
                ws = stack.enter_context(client.websocket_connect(f"/ws/{t['id']}"))
                watcher = stack.enter_context(client.websocket_connect(f"/ws/{t['id']}"))
                ws.send_json({"type": "sit", "seat": 0, "name": "Mei"})
                read_until(ws, lambda m: m.type == "welcome" and getattr(m, "seat", None) == 0)
                ws.send_json({"type": "start"})
                if leave:
                    read_until(ws, lambda m: m.type == "state" and m.legal)
                    ws.close()
                ends.append(read_until(watcher, lambda m: m.type == "state" and m.over, limit=20000))
        for end, leave in zip(ends, (False, True), strict=True):
            assert end.replay_id  # the hand shows as over once it is booked
            r = client.get(f"/api/review/{end.replay_id}?seat=0")
            assert r.status_code == 200, r.json()
            rv = Review.model_validate(r.json())
            assert rv.name == "Mei" and rv.delta == end.view["deltas"][0]
            if leave:
                assert rv.decisions == []  # it escaped at its first decision: nothing chosen
                continue
            assert rv.decisions and all(d.default for d in rv.decisions)  # the clock played every one
            bot = Review.model_validate(client.get(f"/api/review/{end.replay_id}?seat=1").json())
            assert bot.decisions and not any(d.default for d in bot.decisions)
    room.ledger.close()


def test_a_200_mb_upload_to_review_is_refused_before_it_is_read():
    from starlette.testclient import TestClient

    sent = []

    def body():  # a generator: the client sends it only as the server reads it
        for _ in range(200):
            sent.append(1)
            yield b"x" * (1024 * 1024)

    with TestClient(create_app(Room())) as client:
        r = client.post("/api/review?seat=0", content=body(), headers={"content-length": str(200 * 1024 * 1024)})
        assert r.status_code == 413 and "larger than" in r.json()["error"]
        assert len(sent) <= 1, f"read {len(sent)} MB before refusing"
