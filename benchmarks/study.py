"""Rule-study speed and memory: a million-hand study played and reported, and the report alone.

    python benchmarks/study.py                     # 1,000,000 hands, one variant, all cores
    python benchmarks/study.py --hands 100000      # a smaller study (extrapolate linearly)
    python benchmarks/study.py --rows 1000000 --hands 0   # only the report over synthetic rows
    python benchmarks/study.py --quick             # smoke run
    python benchmarks/study.py --preset xueliu     # the same with winners staying in (R14)

The played study is the ``xuezhan study`` path: one variant, the quick line-up ``random,
greedy, value, value``, duplicate seating, ``--workers`` processes (default: all cores),
results streamed to an output folder in a temporary directory, then the report (only the
report's columns read, strings as categoricals; terminal tables and the HTML page). Figures:
wall time, hands/s, peak RSS of the main process and of the largest worker, the number of
files the run left (segments, manifest, final tables), and the report's time.

The synthetic table has the tidy study layout (``variant`` + the tournament's columns): 4
variants × wall seeds × 4 rotations × 4 seats, with random deltas, wins, fan items and fired
rules, so every metric of :func:`xuezhan.study.measure.study_report` has work to do.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from xuezhan.study import STUDY_COLUMNS
from xuezhan.study.measure import study_report, study_report_file
from xuezhan.study.report import format_study, write_study_report
from xuezhan.study.runner import play_study

FIRED = [
    "R6.1-discard-win",
    "R6.1-discard-win+R7-ready-check+R7.2-pig",
    "R6.2-self-draw+R6.4-gang",
    "R3.2-multi-win+R6.1-discard-win",
    "R6.5-kong-transfer+R6.1-discard-win+R5-capped",
    "R4.4-phase-win",
]
ITEMS = ["", "", "", "gen", "one_suit", "all_triplets+gen", "seven_pairs", "kong_draw"]


def synthetic(rows: int, variants: int = 4, seed: int = 0) -> pd.DataFrame:
    """A tidy study table of about ``rows`` rows (whole walls: 16 rows per wall and variant)."""
    rng = np.random.default_rng(seed)
    walls = max(1, rows // (16 * variants))
    n = walls * 16
    hand = np.repeat(np.arange(walls * 4), 4)
    seat = np.tile(np.arange(4), walls * 4)
    frames = []
    for v in range(variants):
        delta = rng.integers(-16, 17, size=n)
        won = delta > 4
        frames.append(
            pd.DataFrame(
                {
                    "variant": f"v{v}",
                    "hand": hand,
                    "seed_index": hand // 4,
                    "rotation": hand % 4,
                    "seed": hand // 4 + 7,
                    "rules_id": f"v{v}",
                    "entry": (seat - hand % 4) % 4,
                    "strategy": np.array(["a", "b", "c", "d"])[seat],
                    "seat": seat,
                    "dealer": seat == (hand // 4) % 4,
                    "delta": delta,
                    "won": won,
                    "wins": won.astype(int),
                    "win_order": np.where(won, 1, 0),
                    "self_draw": won & (delta > 10),
                    "fan": np.where(won, delta // 4, 0),
                    "fan_items": np.where(won, np.array(ITEMS)[rng.integers(0, len(ITEMS), size=n)], ""),
                    "dealt_in": (delta < -6).astype(int),
                    "kongs": rng.integers(0, 2, size=n),
                    "pig": delta < -14,
                    "checked": delta < 0,
                    "ready": delta == 0,
                    "escape": False,
                    "timeouts": 0,
                    "end": np.array(["three_won", "wall"])[hand % 2],
                    "fired": np.repeat(np.array(FIRED)[rng.integers(0, len(FIRED), size=n // 4)], 4),
                }
            )
        )
    return pd.concat(frames, ignore_index=True).astype(STUDY_COLUMNS)


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _peak_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux: kilobytes


def played(hands: int, workers: int, chunk: int, preset: str = "leshan") -> dict[str, float]:
    """Play and report a one-variant study of ``hands`` hands; its figures."""
    study = {
        "name": "bench",
        "strategies": ["random", "greedy", "value", "value"],
        "hands": hands,
        "seed": 1,
        "chunk": chunk,
        "workers": workers,
        "rules": {"preset": preset},
        "variants": [{"max_fan": [5]}],
    }
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "study"
        t0 = time.perf_counter()
        path = play_study(study, output=out, progress=False)
        t_play = time.perf_counter() - t0
        main_play = _peak_mb(resource.RUSAGE_SELF)
        files = sum(len(f) for _, _, f in os.walk(out))
        t0 = time.perf_counter()
        report = study_report_file(path)  # as `xuezhan study` reports: batch by batch
        format_study(report)
        write_study_report(report, out)
        t_report = time.perf_counter() - t0
    return {
        "hands": float(-(-hands // 4) * 4),
        "play_s": t_play,
        "report_s": t_report,
        "main_play_mb": main_play,
        "main_mb": _peak_mb(resource.RUSAGE_SELF),
        "worker_mb": _peak_mb(resource.RUSAGE_CHILDREN),
        "files": float(files),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000, help="hands of the study played (0: none)")
    ap.add_argument("--workers", type=int, default=0, help="worker processes (0: all cores)")
    ap.add_argument("--chunk", type=int, default=0, help="hands per chunk (0: automatic)")
    ap.add_argument("--rows", type=int, default=0, help="rows of the synthetic report table (0: none)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--preset", default="leshan", help="the rule preset played (leshan, chengdu, xueliu)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.rows, args.hands, args.repeats = 20_000, 400, 1
    if args.hands:
        r = played(args.hands, args.workers, args.chunk, args.preset)
        total = r["play_s"] + r["report_s"]
        print(f"one-variant study, {args.preset}, line-up random, greedy, value, value; {os.cpu_count()} cores")
        print(
            f"{'hands':>10} {'wall s':>8} {'hands/s':>8} {'main MB':>8} {'worker MB':>9} "
            f"{'files':>5} {'report s':>8} {'1M hands, min':>13}"
        )
        print(
            f"{int(r['hands']):>10,} {r['play_s']:>8.1f} {r['hands'] / r['play_s']:>8.0f} "
            f"{r['main_mb']:>8.0f} {r['worker_mb']:>9.0f} {int(r['files']):>5} {r['report_s']:>8.2f} "
            f"{(1e6 / r['hands'] * total) / 60:>13.1f}"
        )
        print(
            f"(main process peak while playing: {r['main_play_mb']:.0f} MB; '1M hands' scales play and report linearly)"
        )
    if not args.rows:
        return
    df = synthetic(args.rows)
    report = study_report(df)
    t_report = best(lambda: study_report(df), args.repeats)
    t_text = best(lambda: format_study(report), args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        t_html = best(lambda: write_study_report(report, tmp), 1)
    print(f"{'quantity':<52} {'figure':>12}")
    print(f"{'report over ' + format(len(df), ',') + ' rows (study_report)':<52} {t_report:>10.2f} s")
    print(f"{'terminal tables (format_study)':<52} {t_text:>10.2f} s")
    print(f"{'HTML page with three figures (write_study_report)':<52} {t_html:>10.2f} s")


if __name__ == "__main__":
    main()
