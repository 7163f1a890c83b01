"""One tournament played by both engines in the same run: the same table, and how much faster the
native engine is (wall time of the whole run, start-up and storing included).

    python benchmarks/engines.py                    # 4,000 greedy hands (leshan), 4,000 quick line-up (xueliu)
    python benchmarks/engines.py --hands 8000 -j 1      # one worker each
    python benchmarks/engines.py --quick

Each case is a tournament (duplicate seating, ``tournament.run`` into a temporary output folder,
as ``xuezhan tournament`` plays it) run with ``engine = "native"`` and with ``engine =
"python"``, the two results tables compared (they must be equal, row for row), with the wall
time of each run and the ratio. ``-j`` workers each (default: all cores).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from xuezhan.tournament import TournamentConfig, run

CASES = {
    "greedy (leshan)": (["greedy"] * 4, "leshan"),
    "quick line-up (xueliu)": (["random", "greedy", "value", "value"], "xueliu"),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("-j", "--workers", type=int, default=0)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.hands = 80
    table = Table(title=f"one tournament, both engines ({args.hands:,} hands, workers {args.workers or 'all cores'})")
    for col in ("tournament", "same table", "native s", "python s", "native faster"):
        table.add_column(col, justify="right")
    with tempfile.TemporaryDirectory() as tmp:
        for label, (lineup, preset) in CASES.items():
            config = TournamentConfig(
                strategies=lineup, hands=args.hands, seed=args.seed, rules={"preset": preset}, workers=args.workers
            )
            took = {}
            frames = {}
            for engine in ("native", "python"):
                t = time.perf_counter()
                frames[engine] = run(
                    config.replace(engine=engine), output=Path(tmp) / f"{label}-{engine}", progress=False
                )
                took[engine] = time.perf_counter() - t
            same = frames["native"].equals(frames["python"])
            table.add_row(
                label,
                "yes" if same else "NO",
                f"{took['native']:.2f}",
                f"{took['python']:.2f}",
                f"{took['python'] / took['native']:.1f}×",
            )
            if not same:
                Console().print(table)
                raise SystemExit(f"{label}: the engines' tables differ")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
