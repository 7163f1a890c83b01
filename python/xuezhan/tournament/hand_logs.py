"""Hand logs of a tournament (``xuezhan tournament FILE --logs``): one gzip-compressed JSON-lines
log per hand (``logs/hand-000123.jsonl.gz``, the engine's log format, R12.4), so a bot author
can replay or view any hand of the report (``xuezhan view``, ``xuezhan replay``,
``xuezhan validate``).

    >>> log_name(7)
    'hand-000007.jsonl.gz'
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "LOG_DIR",
    "log_name",
    "read_lines",
    "worst_hands",
    "write_hand_log",
    "write_log_lines",
]

#: The folder, inside a tournament's output folder, that holds the hand logs.
LOG_DIR = "logs"


def log_name(hand: int) -> str:
    """The file name of hand ``hand``'s log."""
    return f"hand-{hand:06d}.jsonl.gz"


def write_hand_log(rnd: Any, folder: str | os.PathLike, hand: int) -> Path:
    """Write a finished hand's log, gzip-compressed; byte-identical for the same hand (mtime 0)."""
    from xuezhan.engine import log_lines

    return write_log_lines(log_lines(rnd), folder, hand)


def write_log_lines(lines: list[str], folder: str | os.PathLike, hand: int) -> Path:
    """Write a hand's log lines (its header first), gzip-compressed, byte-identical for the same
    lines (mtime 0): what :func:`write_hand_log` writes for a round, and the native engine's
    tournaments for theirs."""
    path = Path(folder) / log_name(hand)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    tmp = path.with_suffix(".tmp")
    with (
        open(tmp, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f,
    ):
        f.write(data)
    os.replace(tmp, path)
    return path


def read_lines(path: str | os.PathLike) -> list[str]:
    """The lines of a log, plain (``.jsonl``) or gzip-compressed (``.jsonl.gz``)."""
    from xuezhan.files import read_text

    return read_text(path, what="hand log").splitlines()


def worst_hands(df: pd.DataFrame, folder: str | os.PathLike, per_strategy: int = 3) -> list[tuple[str, int, int, Path]]:
    """Each strategy's biggest losses: ``(strategy, hand, delta, log path)``, for the report."""
    out = []
    for name, rows in df.groupby("strategy", sort=True):
        for _, r in rows.nsmallest(per_strategy, "delta").iterrows():
            if r["delta"] < 0:
                out.append(
                    (
                        str(name),
                        int(r["hand"]),
                        int(r["delta"]),
                        Path(folder) / log_name(int(r["hand"])),
                    )
                )
    return out
