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


def fast_room(dealer: int = 0, limits: Limits | None = None, **overrides: Any) -> Room:
    """A room with short timers whose matches all start with ``dealer`` dealing (R9.1): its
    hand seeds are server-side test seeds (a client never chooses one)."""
    return Room(
        pace=Pace(bot_delay=0.0, between_hands=0.0),
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
