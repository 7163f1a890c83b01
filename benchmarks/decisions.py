"""Time per decision of each built-in strategy, one core: median, 99th percentile and maximum.

    python benchmarks/decisions.py                          # every built-in, leshan and chengdu
    python benchmarks/decisions.py --strategy expert --hands 40 --preset xueliu
    python benchmarks/decisions.py --quick

One seat of the strategy plays against three ``value`` seats in the Python engine (the path of
the game room and of matches against external bots: an ``Observation`` per decision, the
strategy's ``act`` timed as the seat loop times it, with ``time.perf_counter``), every decision
of that seat counted, forced or not. A decision's CPU time (``time.process_time``) is what one
core spends on it, whatever else the machine runs; wall time follows the machine's load. Run
it pinned to one core (``taskset -c 1``) with nothing else of yours running.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from xuezhan.engine import first_dealer, hand_seed
from xuezhan.engine.decisions import bind_samplers, decide
from xuezhan.engine.round import Round
from xuezhan.rules import as_rules
from xuezhan.strategies import REGISTRY, ValueStrategy


class Timed:
    """A strategy whose every decision is timed (wall and CPU)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.uses_sampler = getattr(inner, "uses_sampler", False)

    def reset(self, seat: int, rules: Any) -> None:
        self.inner.reset(seat, rules)

    def bind_sampler(self, sampler: Any) -> None:
        self.inner.bind_sampler(sampler)

    def act(self, obs: Any) -> Any:
        c0 = time.process_time()
        t0 = time.perf_counter()
        a = self.inner.act(obs)
        self.wall.append(time.perf_counter() - t0)
        self.cpu.append(time.process_time() - c0)
        return a


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def measure(name: str, preset: str, hands: int, seed: int) -> Timed:
    rules = as_rules(preset)
    timed = Timed(REGISTRY[name](seed=seed))
    for i in range(hands):
        hs = hand_seed(seed, i)
        seat = i % 4
        bots: list[Any] = [ValueStrategy() for _ in range(4)]
        bots[seat] = timed
        rnd = Round.from_seed(rules, hs, first_dealer(hs))
        for s, b in enumerate(bots):
            b.reset(s, rules)
        inner = [b.inner if isinstance(b, Timed) else b for b in bots]
        bind_samplers(rnd, inner)  # a searching strategy samples this hand (the seat loop's binding)
        while not rnd.over:
            s = rnd.turn.cur
            assert s is not None
            decide(rnd, s, bots[s].act, [0, 0, 0, 0])
    return timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strategy", action="append", choices=list(REGISTRY), help="repeatable (default: all)")
    ap.add_argument("--preset", action="append", help="repeatable (default: leshan and chengdu)")
    ap.add_argument("--hands", type=int, default=24)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.hands = 2
    table = Table(title="time per decision, one seat against three value seats (ms)")
    for col in ("strategy", "preset", "decisions", "median", "p99", "max", "CPU median", "CPU p99"):
        table.add_column(col, justify="right")
    for name in args.strategy or list(REGISTRY):
        for preset in args.preset or ["leshan", "chengdu"]:
            t = measure(name, preset, args.hands, args.seed)
            table.add_row(
                name,
                preset,
                str(len(t.wall)),
                f"{1000 * statistics.median(t.wall):.2f}",
                f"{1000 * _pct(t.wall, 0.99):.2f}",
                f"{1000 * max(t.wall):.2f}",
                f"{1000 * statistics.median(t.cpu):.2f}",
                f"{1000 * _pct(t.cpu, 0.99):.2f}",
            )
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
