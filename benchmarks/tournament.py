"""Tournament speed: hands per second of three line-ups, on one core and on all cores.

    python benchmarks/tournament.py               # table: 1 core and all cores, three line-ups
    python benchmarks/tournament.py --one-core    # the one-core column only (workers 1)
    python benchmarks/tournament.py --hands 4000  # more hands
    python benchmarks/tournament.py --json        # figures as JSON
    python benchmarks/tournament.py --quick       # smoke run

Each figure plays the same seeded hands through ``xuezhan.tournament.run`` — the full path of
``xuezhan tournament``: seat scheduling, strategy decisions, the round engine with R10 timing,
row building, and (for the pool) pickling chunks back to the main process. No output folder
is written, so disk speed is not measured. Wall-clock hands/s, best of ``--repeats`` runs
(least disturbed by other processes); ``per core`` divides the pool figure by the workers.
The line-ups: four ``greedy`` bots; the quick tournament's ``random, greedy, value, value``;
four ``random`` bots (the engine's own cost, for comparison: ``greedy / random``).
Targets on one core: 2,000 greedy hands/s, 1,200 quick-line-up hands/s.

How a hand got to its cost (each step measured alternating with the code before it, one core,
``--hands 1000 --repeats 3 --one-core``; the 2-core machine is shared, so a figure moves by a
few percent between runs):

    step                                                 greedy    quick   random
    first measured (strategies' ranking in Python)       913       514       —
    greedy's discard in Rust, strategies keep state      1,382       722    2,257
    value's discard in Rust (value_discard)               1,591     1,307    2,327
    engine hand path (shared draw events, seen, ...)      1,740     1,416    2,637
    discard_mask, shared discard events, deal in Rust,
      deterministic strategies built once, ranking cache  2,040     1,590    2,700

Where a greedy hand's ~490 µs go now: the engine's transitions (a discard with the next draw
and turn decision ~2.4 µs, a claim window ~3-5 µs) and the observations (~0.7 µs each, ~58 a
hand) are about two thirds; greedy's decisions ~2 µs each (1.3 µs of it the Rust ranking); the
deal ~5 µs (the core's copy of Python's Mersenne Twister), the hand state, the result rows and
the scheduling the rest. No one piece dominates: the rest is Python's cost per statement.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

from xuezhan.tournament import TournamentConfig, run

#: One-core targets (hands/s) per line-up.
TARGETS = {"greedy": 2000, "quick": 1200, "random": 2000}
LINEUPS = {
    "greedy": ["greedy"] * 4,
    "quick": ["random", "greedy", "value", "value"],
    "random": ["random"] * 4,
}


def measure(lineup: list[str], hands: int, workers: int, repeats: int, seed: int) -> float:
    cfg = TournamentConfig(strategies=lineup, hands=hands, seed=seed, workers=workers, chunk=50, seating="random")
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        df = run(cfg, progress=False)
        dt = time.perf_counter() - t0
        assert len(df) == 4 * hands
        best = min(best, dt)
    return hands / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true", help="200 hands, one repeat")
    ap.add_argument("--one-core", action="store_true", help="workers 1 only (no pool)")
    ap.add_argument("--lineup", choices=sorted(LINEUPS), action="append", help="only these line-ups")
    args = ap.parse_args()
    if args.quick:
        args.hands, args.repeats = 200, 1
    cores = os.cpu_count() or 1
    rows = []
    for name in args.lineup or list(LINEUPS):
        lineup = LINEUPS[name]
        one = measure(lineup, args.hands, 1, args.repeats, args.seed)
        alln = one if args.one_core else measure(lineup, args.hands, cores, args.repeats, args.seed)
        workers = 1 if args.one_core else cores
        rows.append({"bots": name, "one_core": one, "all_cores": alln, "workers": workers, "per_core": alln / workers})
    if args.json:
        print(
            json.dumps(
                {
                    "hands": args.hands,
                    "repeats": args.repeats,
                    "python": platform.python_version(),
                    "cores": cores,
                    "targets": TARGETS,
                    "rows": rows,
                },
                indent=2,
            )
        )
        return
    print(
        f"tournament speed: {args.hands} hands, best of {args.repeats}, {cores} cores, "
        f"Python {platform.python_version()}"
    )
    print(f"{'4 × bot':<10} {'1 core h/s':>11} {'all cores h/s':>14} {'per core':>9} {'scaling':>8} {'vs target':>10}")
    for r in rows:
        print(
            f"{r['bots']:<10} {r['one_core']:>11.0f} {r['all_cores']:>14.0f} {r['per_core']:>9.0f} "
            f"{r['all_cores'] / r['one_core']:>7.2f}x {r['one_core'] / TARGETS[r['bots']]:>9.2f}x"
        )
    by = {r["bots"]: r for r in rows}
    if "greedy" not in by or "random" not in by:
        return
    g, rnd = by["greedy"], by["random"]
    print(
        f"greedy / random cost per hand: {rnd['one_core'] / g['one_core']:.2f}x "
        f"(strategy share ≈ {100 * (1 - g['one_core'] / rnd['one_core']):.0f}% of a greedy hand)"
    )


if __name__ == "__main__":
    main()
