"""What the stored chunks' checksums cost (``xuezhan.tournament.store.chunk_digest``).

    python benchmarks/checksum.py                        # the digests of a 200,000-hand run
    python benchmarks/checksum.py --hands 1000000
    python benchmarks/checksum.py --play 8000            # also a played run, with and without them

A run computes each chunk's digest once when it stores the chunk and once more when the final
table is merged (``--resume`` once more for what was stored before). The first figure times
those digests alone over a results table of ``--hands`` hands (the rows of a real run repeated,
cut into the automatic chunk size), so it can be compared with the time playing them takes.
With ``--play N`` the same N-hand tournament (the quick line-up, all cores) is played into an
output folder twice, once with the digest replaced by a constant, and both wall times shown.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from xuezhan.tournament import TournamentConfig
from xuezhan.tournament import store as store_module
from xuezhan.tournament.config import auto_chunk
from xuezhan.tournament.driver import play
from xuezhan.tournament.play import HandRunner, play_chunk
from xuezhan.tournament.store import chunk_digest

LINE_UP = ["random", "greedy", "value", "value"]


def digest_cost(hands: int) -> None:
    config = TournamentConfig(strategies=LINE_UP, hands=400, seed=1, workers=1, chunk=400)
    runner = HandRunner(config)
    sample = play_chunk(runner, config, 0)  # 1,600 real rows
    runner.close()
    size = auto_chunk(hands)
    rows = 4 * size
    chunk = pa.concat_tables([sample] * (rows // sample.num_rows + 1)).slice(0, rows).combine_chunks()
    n = -(-hands // size)
    start = time.perf_counter()
    for i in range(n):
        chunk_digest("0123456789abcdef", i, chunk)
    took = time.perf_counter() - start
    print(f"{hands:,} hands in {n:,} chunks of {size}: digests {took:.2f} s once ({took / n * 1e3:.2f} ms per chunk)")
    print(f"a run computes them twice (store, merge): {2 * took:.2f} s; --resume adds one more pass")


def played(hands: int) -> None:
    config = TournamentConfig(strategies=LINE_UP, hands=hands, seed=1)
    times = {}
    real = store_module.chunk_digest
    for label in ("with checksums", "without (digest replaced by a constant)"):
        if label.startswith("without"):
            store_module.chunk_digest = lambda run, chunk_id, table: "0" * 64  # type: ignore[assignment]
        try:
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                play(config, output=Path(tmp) / "o", progress=False)
                times[label] = time.perf_counter() - start
        finally:
            store_module.chunk_digest = real
    for label, t in times.items():
        print(f"{hands:,}-hand tournament, {label}: {t:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--play", type=int, default=0, help="also play a tournament of this many hands twice")
    args = ap.parse_args()
    digest_cost(args.hands)
    if args.play:
        played(args.play)


if __name__ == "__main__":
    main()
