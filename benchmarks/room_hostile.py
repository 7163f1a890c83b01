"""Does one hostile client delay another table's hand? A table of bots is watched while clients
flood the room with password guesses, on a separate ``xuezhan serve`` process on loopback.

    python benchmarks/room_hostile.py                   # 8 s calm, then 8 s under attack
    python benchmarks/room_hostile.py --seconds 20 --sockets 600 --addresses 200

The healthy table: four ``greedy`` bots (``--bot-delay 0.05``), one spectator recording each
state message's arrival and latency (from the server building it to the spectator reading
it), and whether any bot decision ran out of time (R10). The attack, first from ``--sockets``
websockets of one address, then from one websocket of each of ``--addresses`` addresses
(``X-Forwarded-For`` through ``--trusted-proxy 127.0.0.1``): every socket sits with a wrong
password on names that have one, as fast as the room answers, each answer read before the next
guess. Printed for the calm phase and each attack: state messages per second, the table's
longest silence while a hand is in play, latency median and 99th percentile, bot timeouts, the
median time of
``GET /api/tables``, and what the attackers got back (how many guesses were checked, refused
by the backoff, the lockout, the busy password thread, or the connection cap). The phases: calm,
then one address, then many addresses (the attack on a table of its own, with a free seat).

The server runs the installed package; ``--server-path DIR`` runs another tree's
``python/`` instead (e.g. an older checkout, for a before/after comparison).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(url: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict | list]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


#: The pause of a table of bots between two hands (``Pace.between_hands``).
BETWEEN_HANDS = 4.0


class Watch:
    """The healthy table's spectator: arrival times, latencies, bot timeouts."""

    def __init__(self) -> None:
        self.arrivals: list[tuple[float, int, bool]] = []  # (time, hand, over)
        self.latency: list[float] = []
        self.timeouts = 0

    def phase(self, start: float, end: float) -> dict:
        got = [(a, x) for a, x in zip(self.arrivals, self.latency, strict=True) if start <= a[0] < end]
        # the longest silence of the table inside the phase: between two messages (or a message
        # and the phase's start or end), less the pause between hands after a hand's last one
        # (the table's own, not a delay)
        silence = 0.0
        before = [a for a in self.arrivals if a[0] < start]
        prev = (start, before[-1][2] if before else False)
        for t, _, over in [a for a, _ in got] + [(end, 0, False)]:
            silence = max(silence, t - prev[0] - (BETWEEN_HANDS if prev[1] else 0.0))
            prev = (t, over)
        lat = sorted(x for _, x in got)
        return {
            "per_s": len(got) / (end - start),
            "silence": silence,
            "lat50": statistics.median(lat) if lat else float("nan"),
            "lat99": lat[int(0.99 * (len(lat) - 1))] if lat else float("nan"),
        }


def watch_in_process(url: str, stop: float, out: Any) -> None:
    """The spectator, in a process of its own (the attackers' work in this one must not delay
    what it measures): its arrivals, latencies and bot timeouts go to ``out``."""
    w = Watch()
    asyncio.run(_watch(url, stop, w))
    out.put((w.arrivals, w.latency, w.timeouts))


async def _watch(url: str, stop: float, w: Watch) -> None:
    import websockets

    async with websockets.connect(url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "watch", "seat": 0}))
        while time.monotonic() < stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.05, stop - time.monotonic()))
            except TimeoutError:
                break
            m = json.loads(raw)
            if m["type"] != "state":
                continue
            w.arrivals.append((time.monotonic(), m["hand_no"], bool(m.get("over"))))
            w.latency.append(time.time() * 1000.0 - m["server_ms"])
            w.timeouts += sum(1 for e in m.get("events", []) if e.get("default") and e.get("type") != "pass")


async def _guess(url: str, headers: dict, names: list[str], stop: float, seen: Counter) -> None:
    import websockets

    try:
        async with websockets.connect(url, additional_headers=headers, max_size=2**22) as ws:
            i = 0
            while time.monotonic() < stop:
                name = names[i % len(names)]
                i += 1
                await ws.send(
                    json.dumps({"type": "sit", "seat": 0, "name": name, "secret": f"{i:032d}", "password": "x" * 12})
                )
                while True:
                    m = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
                    if m["type"] == "error":
                        msg = m["message"]
                        kind = next(
                            (
                                k
                                for k, words in (
                                    ("checked: wrong", "give its password"),
                                    ("backoff", "from your address: wait"),
                                    ("lockout", "too many wrong passwords"),
                                    ("busy password thread", "busy checking"),
                                    ("one at a time", "being checked"),
                                    ("connection cap", "too many connections"),
                                    ("sit rate", "too many sits"),
                                )
                                if words in msg
                            ),
                            "other: " + msg[:50],
                        )
                        seen[kind] += 1
                        if kind == "connection cap":
                            return
                        break
                    if m["type"] == "welcome" and m.get("seat") is not None:
                        seen["seated (a guess was right)"] += 1
                        await ws.send(json.dumps({"type": "stand", "seat": 0}))
                        break
    except websockets.ConnectionClosed as exc:
        seen["connection cap" if exc.rcvd is not None and exc.rcvd.code == 1013 else "connection closed"] += 1
    except websockets.InvalidStatus as exc:  # the handshake denied
        seen[f"connection refused ({exc.response.status_code})"] += 1
    except Exception as exc:  # noqa: BLE001 - a refused or dropped connection is counted
        seen[f"connection {type(exc).__name__}"] += 1


def _http_median(base: str, n: int = 20) -> float:
    took = []
    for _ in range(n):
        t0 = time.perf_counter()
        urllib.request.urlopen(base + "/api/tables?limit=1", timeout=30).read()
        took.append(time.perf_counter() - t0)
    return statistics.median(took) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=8.0, help="of each phase")
    ap.add_argument("--sockets", type=int, default=600, help="websockets from the one attacking address")
    ap.add_argument("--addresses", type=int, default=200, help="attacking addresses of the third phase (0: none)")
    ap.add_argument("--victims", type=int, default=40, help="names with a password the attackers guess at")
    ap.add_argument("--server-path", type=Path, default=None)
    args = ap.parse_args()

    port = _port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ)
    if args.server_path is not None:
        env["PYTHONPATH"] = str(args.server_path / "python")
    db = Path(tempfile.mkdtemp()) / "room.db"
    cmd = [sys.executable, "-m", "xuezhan", "serve", "--port", str(port), "--db", str(db), "--bot-delay", "0.05"]
    cmd += ["--max-tables-per-client", "1000"]
    helptext = subprocess.run([*cmd[:4], "--help"], capture_output=True, text=True, env=env).stdout
    if "--trusted-proxy" in helptext:  # older servers believe X-Forwarded-For from 127.0.0.1 anyway
        cmd += ["--trusted-proxy", "127.0.0.1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/api/tables", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        # the victims: names with a password, made by sitting down with one at tables of their own
        names = [f"victim{i}" for i in range(args.victims)]

        async def make_victims() -> None:
            import websockets

            for i, name in enumerate(names):
                _, t = _request(base + "/api/tables", {"hands": 1}, {"X-Forwarded-For": f"192.0.2.{i % 250}"})
                url = base.replace("http", "ws") + f"/ws/{t['id']}"  # type: ignore[call-overload]
                async with websockets.connect(url, additional_headers={"X-Forwarded-For": f"192.0.2.{i % 250}"}) as ws:
                    sit = {"type": "sit", "seat": 0, "name": name, "secret": f"v{i:031d}", "password": "correct horse"}
                    await ws.send(json.dumps(sit))
                    while True:
                        m = json.loads(await ws.recv())
                        if m["type"] == "error":
                            raise SystemExit(f"{name} could not be made: {m['message']}")
                        if m["type"] == "welcome" and m.get("seat") == 0:
                            break

        asyncio.run(make_victims())
        _, table = _request(base + "/api/tables", {"hands": 64, "bots": ["greedy"] * 4})
        ws_url = base.replace("http", "ws") + f"/ws/{table['id']}"  # type: ignore[call-overload]
        _, target = _request(base + "/api/tables", {"hands": 1}, {"X-Forwarded-For": "198.51.100.1"})
        attack_url = base.replace("http", "ws") + f"/ws/{target['id']}"  # type: ignore[call-overload]
        w = Watch()
        seen: dict[str, Counter] = {"one address": Counter(), "many addresses": Counter()}
        http = {}
        phases = ("calm", "one address", "many addresses") if args.addresses else ("calm", "one address")

        spawn = multiprocessing.get_context("spawn")
        results = spawn.Queue()
        t0 = time.monotonic() + 3.0  # the watcher's process starts meanwhile
        ends = [t0 + args.seconds * (i + 1) for i in range(len(phases))]
        watcher = spawn.Process(target=watch_in_process, args=(ws_url, ends[-1], results))
        watcher.start()

        async def run() -> list[float]:
            await asyncio.sleep(max(0.0, t0 - time.monotonic()))
            for i, label in enumerate(phases):
                stop = ends[i]
                if label == "one address":
                    attack = [
                        _guess(attack_url, {"X-Forwarded-For": "203.0.113.1"}, names, stop, seen[label])
                        for _ in range(args.sockets)
                    ]
                elif label == "many addresses":
                    attack = [
                        _guess(
                            attack_url,
                            {"X-Forwarded-For": f"10.{k // 250}.{k % 250}.1"},
                            names[k % len(names) :] + names[: k % len(names)],
                            stop,
                            seen[label],
                        )
                        for k in range(args.addresses)
                    ]
                else:
                    attack = []
                tasks = [asyncio.ensure_future(a) for a in attack]
                await asyncio.sleep(args.seconds / 2)
                http[label] = await asyncio.to_thread(_http_median, base)
                await asyncio.sleep(max(0.0, stop - time.monotonic()))
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            return [t0 + 1, *ends]

        ends = asyncio.run(run())
        w.arrivals, w.latency, w.timeouts = results.get(timeout=60)
        watcher.join(10)
        print(f"a healthy table (4 greedy bots, bot delay 0.05 s) watched for {args.seconds:g} s in each phase:")
        for i, label in enumerate(phases):
            p = w.phase(ends[i], ends[i + 1])
            print(
                f"  {label:>14}: {p['per_s']:.1f} state messages/s, longest silence in a hand "
                f"{p['silence'] * 1000:.0f} ms; latency median {p['lat50']:.1f} ms, p99 {p['lat99']:.1f} ms; "
                f"GET /api/tables median {http[label]:.1f} ms"
            )
        print(f"  bot decisions that ran out of time (R10): {w.timeouts}")
        for label in phases[1:]:
            who = (
                f"{args.sockets} websockets from one address"
                if label == "one address"
                else f"one websocket from each of {args.addresses} addresses"
            )
            print(f"{label}: {who}, guessing the passwords of {args.victims} names; the answers:")
            for kind, n in seen[label].most_common():
                print(f"  {n:>7}  {kind}")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
