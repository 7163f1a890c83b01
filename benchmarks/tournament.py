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

Measured on the 2-core development machine (shared, so noisy; medians of three runs of 1,000
hands, best of 2, alternating with the code before the change in the same session):

    line-up      before   after   ratio   µs per decision, before -> after
    greedy        1,001   1,286   1.28x   greedy 8.4 -> 4.7
    quick           561     695   1.24x   greedy 10.2 -> 6.0, value 33.5 -> 24.4
    random        2,067   2,079   1.01x   (the engine alone: unchanged)

The round engine's hand path, measured the same way (``--hands 1000 --repeats 3 --one-core``,
medians of three runs alternating with the code before the change; the machine was shared
and busy, so a figure moves by up to 8% from run to run):

    line-up      before   after   ratio
    greedy        1,396   1,494   1.07x
    quick           730     759   1.04x
    random        2,370   2,589   1.09x   (≈ 422 -> 386 µs per hand)

A hand of four ``random`` bots (~68 decisions) then costs, timed piece by piece: the engine's
transitions ~200 µs (a discard and the next draw with its turn decision ~2.4 µs each, a claim
window ~3-5 µs, the end-of-wall settlement ~15 µs), the observations ~48 µs (~0.7 µs each), the
play loop's timing and legality check ~30 µs, the deal and hand state ~24 µs, and the
tournament's own work ~50 µs (mostly seeding a ``random.Random`` for the seating and for each
of the four bots, ~4 µs each; the deal seeds one more). No one piece dominates: the rest is
Python's cost per statement, spread over the bookkeeping each rule needs.

Where the time went before that (cProfile of one worker): four greedy bots, the round engine about
half, the strategies 31% (the Rust calls 6%), result rows and scheduling the rest; the quick
line-up, the strategies 55% (almost all of it ``value``'s Python), the engine a third. Both
targets (2,000 and 1,200) are out of reach of strategy work alone: four ``random`` bots,
whose decisions cost nothing, play about 2,000 hands/s, so the engine and the rows would have
to get faster too.
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
