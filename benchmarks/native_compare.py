"""The native engine against the Python engine over many hands: every result row and every log
line compared, hand by hand, on all cores.

    python benchmarks/native_compare.py --preset leshan --hands 1000000     # the README's run
    python benchmarks/native_compare.py --hands 20000 -j 2                   # every preset
    python benchmarks/native_compare.py --quick

The hands are a tournament's (wall seeds from ``--seed``, dealer drawn from each, duplicate
seating), and the line-up changes from chunk to chunk among ``random``, ``greedy``, ``value`` and
mixes of them (so every built-in strategy meets every other). For each hand the Python engine
plays it through the tournament's path (:class:`~xuezhan.tournament.play.HandRunner`) and the
native engine through its own (:class:`~xuezhan.tournament.engines.NativeRunner`, with logs);
the four rows must be equal column for column and the log lines (the header aside, which the
native path writes from the same function) byte for byte. It prints the hands compared, the
mismatches (none expected: any is a bug) with the first one named, and the time taken.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from xuezhan.engine import log_lines
from xuezhan.tournament.config import TournamentConfig
from xuezhan.tournament.engines import NativeRunner
from xuezhan.tournament.play import HandRunner
from xuezhan.tournament.results import rows_to_table
from xuezhan.tournament.scheduling import game, game_arrays

LINEUPS = [
    ["random", "greedy", "value", "value"],
    ["value"] * 4,
    ["greedy"] * 4,
    ["random"] * 4,
    ["greedy", "value", "greedy", "random"],
]
CHUNK = 500


def compare_chunk(preset: str, hands: int, seed: int, chunk: int) -> tuple[int, int, str]:
    """(hands compared, mismatches, the first mismatch) of one chunk."""
    lineup = LINEUPS[chunk % len(LINEUPS)]
    config = TournamentConfig(strategies=lineup, hands=hands, seed=seed, rules={"preset": preset})
    lo, hi = chunk * CHUNK, min(config.n_games, (chunk + 1) * CHUNK)
    runner = HandRunner(config)
    rows: list[dict] = []
    python_logs = []
    for i in range(lo, hi):
        r, rnd = runner.play_round(game(config, i))
        rows.extend(r)
        python_logs.append(log_lines(rnd)[1:])
    expected = rows_to_table(rows)
    from xuezhan import native

    g = game_arrays(config, range(lo, hi))
    got = NativeRunner(config).play_games(g)
    native_logs = native.play(config.build_rules(), g.seed, NativeRunner(config).lineup, seatings=g.seating, logs=True)
    lines = native_logs.column("log").to_pylist()[::4]
    bad, first = 0, ""
    for j in range(hi - lo):
        same_rows = got.slice(4 * j, 4).equals(expected.slice(4 * j, 4))
        if not same_rows or lines[j] != python_logs[j]:
            bad += 1
            if not first:
                first = f"{preset} hand {lo + j} ({', '.join(lineup)}): {'log' if same_rows else 'rows'} differ"
    return hi - lo, bad, first


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", action="append", help="rules preset (repeatable; default leshan, chengdu, xueliu)")
    ap.add_argument("--hands", type=int, default=20_000, help="hands per preset")
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("-j", "--workers", type=int, default=0, help="processes (0: all cores)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.hands = 400
    presets = args.preset or ["leshan", "chengdu", "xueliu"]
    workers = args.workers or multiprocessing.cpu_count()
    for preset in presets:
        start = time.perf_counter()
        n_chunks = -(-args.hands // CHUNK)
        total = bad = 0
        first = ""
        with ProcessPoolExecutor(workers) as pool:
            futs = [pool.submit(compare_chunk, preset, args.hands, args.seed, c) for c in range(n_chunks)]
            for f in futs:
                n, b, msg = f.result()
                total += n
                bad += b
                first = first or msg
        took = time.perf_counter() - start
        print(f"{preset}: {total:,} hands compared, {bad} differ{'; first: ' + first if first else ''} ({took:,.0f} s)")


if __name__ == "__main__":
    main()
