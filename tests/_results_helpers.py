"""Test helpers that edit a run's stored chunks the way an accident or a tamperer would
(the layout is documented in xuezhan.tournament.store)."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from xuezhan.tournament.store import SegmentWriter, segments


def rewrite_chunks(out: Path, edit: Callable[[int, pa.Table], pa.Table | None]) -> None:
    """Rewrite every closed segment, each chunk's table replaced by ``edit(chunk_id, table)``
    (``None``: the chunk is dropped), the footer still naming the original chunk ids and run
    (with checksums of the new contents: a tamperer who knows the format)."""
    for seg in segments(out):
        n = int(seg.path.stem.split("-")[1])
        f = pq.ParquetFile(seg.path)
        tables = [(c, f.read_row_group(i)) for i, c in enumerate(seg.chunks)]
        f.close()
        seg.path.unlink()
        kept = [(c, t2) for c, t in tables if (t2 := edit(c, t)) is not None]
        if kept:
            with SegmentWriter(out, run=seg.run, first=n, journal=False) as w:
                for c, t in kept:
                    w.add(c, t)


def drop_chunks(out: Path, chunk_ids: list[int]) -> None:
    """Lose some finished chunks (as if their run had never stored them)."""
    rewrite_chunks(out, lambda c, t: None if c in chunk_ids else t)


def _default_ctrl_c() -> None:
    # A shell without job control starts background jobs with SIGINT ignored, and a child
    # inherits that (CI launched with ``&``); the run gets the default Ctrl-C, as in a terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_interruptible(
    cmd: list[str], env: Mapping[str, str], *, sleep: float, stdout: int = subprocess.PIPE
) -> subprocess.Popen[str]:
    """Start a CLI run that a test will interrupt with SIGINT: its bots wait ``sleep`` seconds a
    decision (``XUEZHAN_TEST_SLEEP``) so the interruption lands mid-run, stderr is piped and
    Ctrl-C has its default meaning whatever the test runner's shell ignores."""
    return subprocess.Popen(
        cmd,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "XUEZHAN_TEST_SLEEP": str(sleep)},
        preexec_fn=_default_ctrl_c,  # noqa: PLW1509
    )
