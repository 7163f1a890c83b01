"""Shared helpers of the game-room tests: a room with short timers, message readers, a live
server on 127.0.0.1 for the browser and load tests."""

from __future__ import annotations

import contextlib
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from xuezhan.engine.match import first_dealer
from xuezhan.serve.limits import Limits, Pace
from xuezhan.serve.lobby import Room
from xuezhan.serve.protocol import SERVER_ADAPTER

#: Short timers (RULES.md R10 overridden) so the tests are fast.
FAST = {"turn_timeout": 1.0, "claim_timeout": 0.6}


def fast_room(dealer: int = 0, limits: Limits | None = None, claim_window: float = 0.0, **overrides: Any) -> Room:
    """A room with short timers whose matches all start with ``dealer`` dealing (R9.1): its
    hand seeds are server-side test seeds (a client never chooses one). No claim window unless
    asked for (the tests of what it hides ask for one)."""
    return Room(
        pace=Pace(bot_delay=0.0, between_hands=0.0, claim_window=claim_window),
        rules_overrides={**FAST, **overrides},
        limits=limits,
        seeds=seeds_with_dealer(dealer),
    )


def seeds_with_dealer(dealer: int) -> Callable[[], int]:
    """Successive hand seeds, each a seed whose first dealer (R9.1) would be ``dealer``."""
    it = (s for s in itertools.count() if first_dealer(s) == dealer)
    return lambda: next(it)


def read_until(ws: Any, pred: Callable[[Any], bool], limit: int = 3000, log: list | None = None) -> Any:
    """Read (and validate) server messages until ``pred(msg)``; at most ``limit`` messages."""
    for _ in range(limit):
        msg = SERVER_ADAPTER.validate_python(ws.receive_json())
        if log is not None:
            log.append(msg)
        if pred(msg):
            return msg
    raise AssertionError(f"no matching message within {limit} messages")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 in a thread; yields the base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        th.join(10)


def hand_events(msgs: list) -> list[dict]:
    """The events a connection has been sent for the current hand (state messages carry only
    the new ones; ``reset`` starts the list over)."""
    out: list[dict] = []
    for m in msgs:
        if m.type == "state":
            if m.reset:
                out = []
            assert m.events_from == len(out), "events arrive in order, none skipped"
            out.extend(m.events)
    return out


@contextlib.contextmanager
def serve_process(*args: str, stderr: Any = None) -> Iterator[str]:
    """``xuezhan serve --port P ARGS`` in a process of its own (the installed package, as the
    tests use); yields the base URL once it answers, and stops it after."""
    import subprocess
    import sys
    import urllib.request

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "xuezhan", "serve", "--port", str(port), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL if stderr is None else stderr,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/api/tables", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"the server did not start: {' '.join(args)}") from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def quick_action(legal: list[str]) -> str:
    """A legal action a test player takes at once: a win, else a discard, else a pass."""
    for a in legal:
        if a == "hu":
            return a
    for a in legal:
        if a.startswith("discard"):
            return a
    return "pass" if "pass" in legal else legal[0]


async def play_seat(ws_url: str, seat: int, name: str, secret: str | None, timeout: float = 60.0) -> dict:
    """Sit at ``seat`` of the table at ``ws_url`` as ``name`` (a player with ``secret``), press
    Start and play the hand at once (:func:`quick_action`); the last state (the hand over), or
    the ``error`` the sit got."""
    import asyncio
    import json

    import websockets

    async def play() -> dict:
        async with websockets.connect(ws_url, max_size=2**22) as ws:
            msg = {"type": "sit", "seat": seat, "name": name}
            if secret is not None:
                msg["secret"] = secret
            await ws.send(json.dumps(msg))
            async for raw in ws:
                m = json.loads(raw)
                if m["type"] == "error":
                    return m
                if m["type"] == "welcome" and m.get("seat") == seat:
                    await ws.send(json.dumps({"type": "start"}))
                elif m["type"] == "state":
                    if m.get("over"):
                        return m
                    if m.get("legal"):
                        await ws.send(json.dumps({"type": "act", "action": quick_action(m["legal"])}))
            raise AssertionError("the server closed the connection before the hand was over")

    return await asyncio.wait_for(play(), timeout)
