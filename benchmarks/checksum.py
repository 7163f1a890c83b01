"""What the stored chunks' checksums cost (``xuezhan.tournament.store.chunk_digest``).

    python benchmarks/checksum.py                        # the digests of a 200,000-hand run
    python benchmarks/checksum.py --hands 1000000
    python benchmarks/checksum.py --play 8000            # also a played run, with and without them
    python benchmarks/checksum.py --report 20000         # reading a finished run back, verified
    python benchmarks/checksum.py --flips                # bits flipped in a run's results.parquet

A run computes each chunk's digest once when it stores the chunk and once more when the final
table is merged (``--resume`` once more for what was stored before). The first figure times
those digests alone over a results table of ``--hands`` hands (the rows of a real run repeated,
cut into the automatic chunk size), so it can be compared with the time playing them takes.
With ``--play N`` the same N-hand tournament (the quick line-up, all cores) is played into an
output folder twice, once with the digest replaced by a constant, and both wall times shown.
With ``--report N`` an N-hand run (random bots, automatic chunks) is played once and its final
table read back as ``xuezhan report`` reads it: verified (:mod:`xuezhan.tournament.readback`:
every chunk's rows against its checksum) and, for comparison, plainly read (best of three).
With ``--flips`` a 24-hand run's ``results.parquet`` has one bit flipped at a time, every 7th
byte of every column's pages, and is read back each time: how often the reader gives the run's
table, refuses naming the file, or gives other numbers (never, since the checksums).
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


def report_cost(hands: int) -> None:
    from xuezhan.tournament.frames import read_table
    from xuezhan.tournament.readback import run_of, verify_finished

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "o"
        play(TournamentConfig(strategies=["random"] * 4, hands=hands, seed=1), output=out, progress=False)
        manifest, config = run_of(out)
        verify = read = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            verify_finished(out, manifest, config)
            verify = min(verify, time.perf_counter() - start)
            start = time.perf_counter()
            read_table(out / "results.parquet")
            read = min(read, time.perf_counter() - start)
    rows = 4 * hands
    print(
        f"{hands:,}-hand run ({rows:,} rows in chunks of {config.chunk} hands): verified in {verify * 1e3:.0f} ms "
        f"({verify * 1e3 / rows * 8000:.1f} ms per 8,000 rows); the plain read {read * 1e3:.0f} ms"
    )


def flips() -> None:
    import pyarrow.parquet as pq

    from xuezhan.tournament.results import load_results

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "o"
        config = TournamentConfig(strategies=["random", "greedy", "random", "greedy"], hands=24, seed=5, chunk=4)
        play(config.replace(workers=1), output=out, progress=False)
        truth = load_results(out)
        final = out / "results.parquet"
        good = final.read_bytes()
        meta = pq.read_metadata(final)
        positions = []
        for rg in range(meta.num_row_groups):
            for c in range(meta.num_columns):
                col = meta.row_group(rg).column(c)
                start = min(x for x in (col.dictionary_page_offset, col.data_page_offset) if x)
                positions += range(start, start + col.total_compressed_size, 7)
        same = refused = other = 0
        for k, pos in enumerate(positions):
            data = bytearray(good)
            data[pos] ^= 1 << (k % 8)
            final.write_bytes(bytes(data))
            try:
                df = load_results(out)
            except (ValueError, OSError):
                refused += 1
                continue
            same += df.equals(truth)
            other += not df.equals(truth)
    print(
        f"{len(positions)} single-bit flips across every column's pages of results.parquet: {refused} refused "
        f"naming the file, {same} read as the run's table (a bit no value depends on), {other} read as other numbers"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--play", type=int, default=0, help="also play a tournament of this many hands twice")
    ap.add_argument("--report", type=int, default=0, help="also read a run of this many hands back, verified")
    ap.add_argument("--flips", action="store_true", help="also flip bits in a run's results.parquet and read it")
    args = ap.parse_args()
    if args.flips:
        flips()
        return
    digest_cost(args.hands)
    if args.play:
        played(args.play)
    if args.report:
        report_cost(args.report)


if __name__ == "__main__":
    main()
