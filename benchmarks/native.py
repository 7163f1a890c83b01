"""Native whole-hand play against the Python engine, side by side in the same run, one core.

    python benchmarks/native.py                      # leshan and xueliu, random / greedy / value / quick
    python benchmarks/native.py --preset chengdu     # another preset (repeatable)
    python benchmarks/native.py --native-hands 20000 --python-hands 1000
    python benchmarks/native.py --quick              # smoke run

Each row plays the same seeded tournament hands (wall seeds ``derive_seed(seed, "wall", i)``,
dealer drawn from each, ``random`` seeded per hand and seat as a tournament seeds it) with one
line-up, first through the Python engine's tournament path (``HandRunner``: dealing,
observations, every decision through the seat loop, settlement, result rows) and then through
the native engine (``xuezhan.native.play``, one thread); the two tables are checked equal on
the hands both played. Figures are hands per CPU-second of this process (what one core does,
whatever else the machine runs), the median CPU time per hand (batches of 100 hands for the
native engine), the ratio, and the process's peak RSS after each engine. Pin it to one core
(``taskset -c 1``) on a shared machine.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from xuezhan import native
from xuezhan.tournament.config import TournamentConfig
from xuezhan.tournament.engines import NativeRunner
from xuezhan.tournament.play import HandRunner
from xuezhan.tournament.results import rows_to_table
from xuezhan.tournament.scheduling import game, game_arrays

LINEUPS = {
    "random": ["random"] * 4,
    "greedy": ["greedy"] * 4,
    "value": ["value"] * 4,
    "quick": ["random", "greedy", "value", "value"],
}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def python_side(config: TournamentConfig, hands: int) -> tuple[float, float, object]:
    """(hands per CPU s, median µs per hand, table) of the Python engine."""
    runner = HandRunner(config)
    rows: list[dict] = []
    per_hand = []
    start = time.process_time()
    for i in range(hands):
        t = time.process_time()
        rows.extend(runner.play(game(config, i)))
        per_hand.append(time.process_time() - t)
    total = time.process_time() - start
    return hands / total, 1e6 * statistics.median(per_hand), rows_to_table(rows)


def native_side(config: TournamentConfig, hands: int) -> tuple[float, float, object]:
    """(hands per CPU s, median µs per hand over batches of 100, table of the first batch)."""
    runner = NativeRunner(config)
    batch = 100
    per_hand = []
    first = None
    start = time.process_time()
    for lo in range(0, hands, batch):
        g = game_arrays(config, range(lo, min(hands, lo + batch)))
        t = time.process_time()
        table = runner.play_games(g)
        per_hand.append((time.process_time() - t) / len(g.index))
        if first is None:
            first = table
    total = time.process_time() - start
    return hands / total, 1e6 * statistics.median(per_hand), first


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", action="append", help="rules preset (repeatable; default leshan and xueliu)")
    ap.add_argument("--lineup", action="append", choices=list(LINEUPS), help="line-up (repeatable; default all)")
    ap.add_argument("--python-hands", type=int, default=400)
    ap.add_argument("--native-hands", type=int, default=8000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a smoke run (few hands)")
    args = ap.parse_args()
    if args.quick:
        args.python_hands, args.native_hands = 20, 200
    presets = args.preset or ["leshan", "xueliu"]
    table = Table(title="native against Python: hands per CPU-second, one core (same hands, same rows)")
    for col in (
        "preset",
        "line-up",
        "Python h/s",
        "native h/s",
        "ratio",
        "Python µs/hand",
        "native µs/hand",
        "peak RSS MB",
    ):
        table.add_column(col, justify="right")
    for preset in presets:
        for name in args.lineup or list(LINEUPS):
            config = TournamentConfig(
                strategies=LINEUPS[name], hands=args.native_hands, seed=args.seed, rules={"preset": preset}
            )
            n_py = min(args.python_hands, config.n_games)
            py_rate, py_med, py_table = python_side(config, n_py)
            rss_py = _rss_mb()
            nat_rate, nat_med, nat_table = native_side(config, config.n_games)
            rss = _rss_mb()
            k = min(py_table.num_rows, nat_table.num_rows)  # type: ignore[attr-defined]
            if not py_table.slice(0, k).equals(nat_table.slice(0, k)):  # type: ignore[attr-defined]
                raise SystemExit(f"{preset} {name}: the native rows differ from the Python engine's")
            table.add_row(
                preset,
                name,
                f"{py_rate:,.0f}",
                f"{nat_rate:,.0f}",
                f"{nat_rate / py_rate:.1f}×",
                f"{py_med:,.0f}",
                f"{nat_med:,.1f}",
                f"{rss_py:,.0f} / {rss:,.0f}",
            )
    Console(width=140).print(table)
    print(f"native engine: xuezhan {native.__name__}; seeds {args.seed}; numpy {np.__version__}")


if __name__ == "__main__":
    main()
