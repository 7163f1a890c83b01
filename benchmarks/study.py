"""Rule-study speed: the report over a large synthetic table, and study hands per second.

    python benchmarks/study.py                 # report over 1,000,000 rows; a 4-variant study
    python benchmarks/study.py --rows 200000   # a smaller table
    python benchmarks/study.py --hands 200     # hands per variant of the study played
    python benchmarks/study.py --quick         # smoke run

The synthetic table has the tidy study layout (``variant`` + the tournament's columns): 4
variants × wall seeds × 4 rotations × 4 seats, with random deltas, wins, fan items and fired
rules, so every metric of :func:`xuezhan.study.measure.study_report` has work to do. Figures:
seconds for ``study_report`` (every estimate, interval and paired difference), the terminal
tables, and the HTML page with its three figures; then study hands per second on one worker
(the ``xuezhan study`` path: every variant on the same walls). Best of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import pandas as pd
from xuezhan.study import STUDY_COLUMNS, run_study
from xuezhan.study.measure import study_report
from xuezhan.study.report import format_study, write_study_report

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
                    "win_order": np.where(won, 1, 0),
                    "self_draw": won & (delta > 10),
                    "fan": np.where(won, delta // 4, 0),
                    "fan_items": np.where(
                        won, np.array(ITEMS)[rng.integers(0, len(ITEMS), size=n)], ""
                    ),
                    "dealt_in": (delta < -6).astype(int),
                    "kongs": rng.integers(0, 2, size=n),
                    "pig": delta < -14,
                    "checked": delta < 0,
                    "ready": delta == 0,
                    "escape": False,
                    "timeouts": 0,
                    "end": np.array(["three_won", "wall"])[hand % 2],
                    "fired": np.repeat(
                        np.array(FIRED)[rng.integers(0, len(FIRED), size=n // 4)], 4
                    ),
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument(
        "--hands", type=int, default=400, help="hands per variant of the study played"
    )
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.rows, args.hands, args.repeats = 20_000, 16, 1
    df = synthetic(args.rows)
    report = study_report(df)
    t_report = best(lambda: study_report(df), args.repeats)
    t_text = best(lambda: format_study(report), args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        t_html = best(lambda: write_study_report(report, tmp), 1)
    study = {
        "strategies": ["random", "greedy", "value", "value"],
        "hands": args.hands,
        "seed": 1,
        "workers": 1,
        "variants": [{"max_fan": [3, 4, 5, 6]}],
    }
    t_play = best(lambda: run_study(study, progress=False), 1)
    played = 4 * (-(-args.hands // 4) * 4)
    print(f"{'quantity':<52} {'figure':>12}")
    print(
        f"{'report over ' + format(len(df), ',') + ' rows (study_report)':<52} {t_report:>10.2f} s"
    )
    print(f"{'terminal tables (format_study)':<52} {t_text:>10.2f} s")
    print(
        f"{'HTML page with three figures (write_study_report)':<52} {t_html:>10.2f} s"
    )
    print(
        f"{'study hands/s, 1 worker (4 variants, ' + str(played) + ' hands)':<52} {played / t_play:>8.0f} h/s"
    )


if __name__ == "__main__":
    main()
