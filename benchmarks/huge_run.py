"""A huge run starts at once and its main process stays small: ``hands = 1_000_000_000``, ``chunk = 1``.

    python benchmarks/huge_run.py                  # 20 seconds, 2 workers
    python benchmarks/huge_run.py --seconds 60 --workers 4

Starts ``xuezhan tournament`` on a tournament of a billion hands in chunks of one hand (both
within the documented limits), samples the main process's resident memory every half second,
then stops it with Ctrl-C (SIGINT) and checks that it ends cleanly (exit status 130, the
finished chunks saved). Figures: the time until the first chunk is stored, the chunks stored,
and the main process's peak and last RSS (``VmHWM`` / ``VmRSS`` from ``/proc``: Linux only).
Chunks are handed to the workers as they free up (:class:`xuezhan.tournament.scheduling.Pending`)
and segments close every :data:`xuezhan.tournament.store.SEGMENT_CHUNKS` chunks, so the peak
does not grow with the number of hands or chunks.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from xuezhan.tournament.results import done_chunks

TOURNAMENT = """name = "huge"
hands = 1_000_000_000
seed = 1
chunk = 1
strategies = ["random", "greedy", "value", "value"]
"""


def _status(pid: int, key: str) -> int:
    """A ``/proc/PID/status`` memory field in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) // 1024
    raise KeyError(key)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        toml, out = Path(tmp) / "huge.toml", Path(tmp) / "out"
        toml.write_text(TOURNAMENT, encoding="utf-8")
        cmd = [sys.executable, "-m", "xuezhan", "tournament", str(toml), "-o", str(out), "--no-report"]
        cmd += ["--workers", str(args.workers), "--no-progress"]
        start = time.monotonic()
        # SIGINT back to its default (a shell's background job inherits it ignored)
        proc = subprocess.Popen(
            cmd,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
        )
        first = None
        samples: list[tuple[float, int]] = []
        while time.monotonic() - start < args.seconds and proc.poll() is None:
            time.sleep(0.5)
            samples.append((time.monotonic() - start, _status(proc.pid, "VmRSS")))
            if first is None and (out / "parts").is_dir() and done_chunks(out):
                first = time.monotonic() - start
        peak = _status(proc.pid, "VmHWM")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        stored = len(done_chunks(out))
    print(f"command: {' '.join(cmd)}")
    print(f"first chunk stored after {first:.1f} s" if first is not None else "no chunk stored")
    print(f"chunks stored in {args.seconds:.0f} s: {stored:,}")
    for t, rss in samples[:: max(1, len(samples) // 8)]:
        print(f"  t = {t:5.1f} s  main RSS {rss:5d} MB")
    print(f"main process: peak RSS {peak} MB, last {samples[-1][1] if samples else 0} MB")
    print(f"after Ctrl-C: exit status {proc.returncode}; {' '.join(err.split()[-12:])}")


if __name__ == "__main__":
    main()
