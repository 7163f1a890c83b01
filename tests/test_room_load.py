"""Load: 4 tables of bots × 50 spectators each on loopback, for a few seconds. The server (a
separate ``xuezhan serve`` process) must stay responsive: every spectator keeps getting fresh
states, and the delay from the server building a state message to a spectator reading it stays
bounded. Prints the median and 99th-percentile latency (machine-dependent figures)."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
import urllib.request

import websockets
from _room_helpers import serve_process

TABLES, SPECTATORS, SECONDS = 4, 50, 6.0


def _post(url: str, body: dict) -> dict:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


async def _spectate(url: str, seat: int, stop: float, lat: list, counts: list) -> None:
    async with websockets.connect(url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "watch", "seat": seat}))
        n = 0
        while time.monotonic() < stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.05, stop - time.monotonic()))
            except TimeoutError:
                break
            m = json.loads(raw)
            if m["type"] == "state" and m["server_ms"]:
                lat.append(time.time() * 1000.0 - m["server_ms"])
                n += 1
        counts.append(n)


def test_four_tables_fifty_spectators_each_stay_responsive():
    # the server runs the installed package, as this test does (not the source tree, whose
    # compiled core exists only in a development install)
    args = ["--bot-delay", "0.05", "--db", ":memory:", "--max-tables-per-client", str(TABLES)]
    # every spectator of this test comes from 127.0.0.1
    args += ["--max-connections-per-client", str(TABLES * SPECTATORS + 10)]
    with serve_process(*args) as base:
        port = int(base.rsplit(":", 1)[1])
        ids = [
            _post(
                base + "/api/tables",
                {"name": f"load{i}", "hands": 64, "bots": ["greedy"] * 4},
            )["id"]
            for i in range(TABLES)
        ]
        lat: list[float] = []
        counts: list[int] = []

        async def main() -> None:
            stop = time.monotonic() + SECONDS
            await asyncio.gather(
                *[
                    _spectate(f"ws://127.0.0.1:{port}/ws/{tid}", k % 4, stop, lat, counts)
                    for tid in ids
                    for k in range(SPECTATORS)
                ]
            )

        asyncio.run(asyncio.wait_for(main(), timeout=30))
    lat.sort()
    median = statistics.median(lat)
    p99 = lat[int(0.99 * (len(lat) - 1))]
    print(
        f"\n{TABLES} tables x {SPECTATORS} spectators, {SECONDS:.0f} s: {len(lat)} state messages, "
        f"latency median {median:.1f} ms, p99 {p99:.1f} ms; fewest per spectator {min(counts)}"
    )
    assert len(counts) == TABLES * SPECTATORS
    assert min(counts) >= 5, "a spectator stopped getting states"
    assert p99 < 3000, f"p99 latency {p99:.0f} ms"
