"""The results table: one row per (hand, seat), its columns, and how it is stored.

Columns (types as stored in Parquet):

=============  =======  ================================================================
column         type     meaning
=============  =======  ================================================================
hand           int64    hand index in the tournament (0-based)
seed_index     int64    wall-seed group (the cluster for intervals; = hand under random)
rotation       int8     duplicate rotation 0–3 (0 under random seating)
seed           int64    the hand's wall seed (``play_hand(..., seed)``)
rules_id       string   ``Rules.rules_id`` of the hand's rules
entry          int8     index of the line-up entry in this seat
strategy       string   the entry's label
seat           int8     0–3
dealer         bool     the seat dealt (R1.2)
delta          int64    the seat's score change in the hand (escape penalty included, R8)
won            bool     the seat won (R4)
win_order      int8     1 = first winner of the hand, 2, 3; 0 = did not win (R4.5)
self_draw      bool     the win was a self-draw (自摸, ``from`` null; R6.3 included)
fan            int8     capped fan of the win (R5); 0 without a win
fan_items      string   the win's fan items, ``+``-joined ids (R5), ``""`` without a win
dealt_in       int8     wins paid by this seat as discarder or robbed kong-maker (R6.1, R3.3)
kongs          int8     kongs this seat made (R2.1, R3.1)
pig            bool     a pig at the ready check (R7.1)
checked        bool     went to the ready check (active at an exhausted wall, or R8)
ready          bool     ready at the ready check (R7.3)
escape         bool     the seat escaped (R8)
timeouts       int8     decisions that timed out in the hand (R10)
end            string   how the hand ended: ``wall``, ``three_won`` or ``escape`` (R4.5, R8)
fired          string   the rules that fired in the hand, ``+``-joined (R9.3; rule studies)
=============  =======  ================================================================

During a run each finished chunk of hands is written as ``parts/part-NNNNNN.parquet`` (written
to a temporary name, then renamed: a part either exists whole or not at all); the final table
is ``results.parquet`` (and ``results.csv`` with ``--csv``), sorted by (hand, seat).
``--resume`` trusts a part file only after :func:`verify_part` found in it exactly the hands of
its chunk (indices, wall seeds, one row per seat, the seating). One run at a time uses an output
folder: :class:`OutputLock` holds an ``flock`` on its ``.lock`` file, which the system releases
when the run ends, however it ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

import pandas as pd

from xuezhan.tournament.scheduling import Game

__all__ = [
    "COLUMNS",
    "LOCK",
    "OutputBusy",
    "OutputLock",
    "PartError",
    "done_chunks",
    "forget_inherited_locks",
    "load_results",
    "part_path",
    "read_manifest",
    "read_parts",
    "rows_to_frame",
    "verify_part",
    "write_final",
    "write_manifest",
    "write_part",
]

COLUMNS: dict[str, str] = {
    "hand": "int64",
    "seed_index": "int64",
    "rotation": "int8",
    "seed": "int64",
    "rules_id": "string",
    "entry": "int8",
    "strategy": "string",
    "seat": "int8",
    "dealer": "bool",
    "delta": "int64",
    "won": "bool",
    "win_order": "int8",
    "self_draw": "bool",
    "fan": "int8",
    "fan_items": "string",
    "dealt_in": "int8",
    "kongs": "int8",
    "pig": "bool",
    "checked": "bool",
    "ready": "bool",
    "escape": "bool",
    "timeouts": "int8",
    "end": "string",
    "fired": "string",
}

PARTS = "parts"
MANIFEST = "manifest.json"
FINAL = "results.parquet"
LOCK = ".lock"
_PART_NAME = re.compile(r"part-(\d{6})\.parquet")


def rows_to_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """A DataFrame with exactly :data:`COLUMNS`, in order and with their types."""
    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    return df.astype(COLUMNS)


def part_path(out_dir: str | Path, chunk_id: int) -> Path:
    return Path(out_dir) / PARTS / f"part-{chunk_id:06d}.parquet"


def write_part(out_dir: str | Path, chunk_id: int, df: pd.DataFrame) -> Path:
    """Write one chunk's rows atomically (temporary file + rename)."""
    path = part_path(out_dir, chunk_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, path)
    return path


def done_chunks(out_dir: str | Path) -> set[int]:
    """The chunk ids of the part files in ``out_dir`` (files named otherwise are not parts)."""
    d = Path(out_dir) / PARTS
    if not d.is_dir():
        return set()
    return {int(m.group(1)) for p in d.iterdir() if (m := _PART_NAME.fullmatch(p.name))}


class PartError(ValueError):
    """A part file that does not hold exactly the hands of its chunk; the message names it."""


def verify_part(path: str | Path, games: Sequence[Game]) -> None:
    """Check that the part file ``path`` holds exactly the rows of ``games`` (its chunk's hands).

    Every hand index of the chunk, with its wall seed (R1.4), one row per seat 0–3, and the
    line-up entry the seating puts in each seat; nothing else. Raises :class:`PartError`.
    """
    p = Path(path)
    first, last = games[0].index, games[-1].index
    chunk = f"its chunk holds hands {first}-{last}"
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    keys = ["hand", "seed", "seat", "entry"]
    try:
        names = pq.read_schema(p).names
        cols = pq.read_table(p, columns=keys).to_pydict() if names == list(COLUMNS) else None
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a damaged file
        raise PartError(f"{p}: not a readable results part ({type(exc).__name__}: {exc})") from None
    if cols is None:
        raise PartError(f"{p}: not a results part: its columns are not the results table's")
    want = {(g.index, g.seed, seat, g.seating[seat]) for g in games for seat in range(len(g.seating))}
    have = list(zip(*(cols[k] for k in keys), strict=True))
    if len(have) == len(want) and set(have) == want:
        return
    hands = sorted(set(cols["hand"]))
    if not hands:
        raise PartError(f"{p}: no rows, but {chunk}")
    if set(hands) != {g.index for g in games}:
        shown = f"{hands[0]}-{hands[-1]}" if len(hands) > 1 else str(hands[0])
        raise PartError(f"{p}: holds hands {shown} ({len(hands)} distinct), but {chunk}")
    if len(have) != len(set(have)) or len(have) != len(want):
        raise PartError(f"{p}: {len(have)} rows for {len(games)} hands: a (hand, seat) row is repeated or missing")
    wrong = min(set(have) - want)
    raise PartError(
        f"{p}: hand {wrong[0]} seat {wrong[2]} has wall seed {wrong[1]} and entry {wrong[3]}, "
        f"which are not this tournament's"
    )


def read_parts(out_dir: str | Path) -> pd.DataFrame:
    d = Path(out_dir) / PARTS
    files = sorted(d.glob("part-*.parquet")) if d.is_dir() else []
    if not files:
        return rows_to_frame([])
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    return _sorted(df.astype(COLUMNS))


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["hand", "seat"], kind="stable").reset_index(drop=True)


def write_final(out_dir: str | Path, df: pd.DataFrame, *, csv: bool = False) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / FINAL]
    tmp = out / f".{FINAL}.tmp"
    df.to_parquet(tmp, index=False)
    os.replace(tmp, paths[0])
    if csv:
        paths.append(out / "results.csv")
        df.to_csv(paths[1], index=False)
    return paths


def _checked(df: pd.DataFrame, source: Path) -> pd.DataFrame:
    """The table with :data:`COLUMNS` and their types; errors name the file and the columns."""
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{source}: not a results table: missing column(s) {', '.join(missing)}")
    try:
        return _sorted(df.astype(COLUMNS))
    except (ValueError, TypeError) as exc:
        for column, dtype in COLUMNS.items():  # name the column that does not convert
            try:
                df[column].astype(dtype)  # type: ignore[call-overload]  # dtype names as in COLUMNS
            except (ValueError, TypeError):
                raise ValueError(f"{source}: column {column!r} does not hold {dtype} values") from None
        raise ValueError(f"{source}: not a results table: {exc}") from None


def _read_table(p: Path) -> pd.DataFrame:
    import stat

    st = p.stat()
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{p}: not a regular file (a device, pipe or socket): give a results file or folder")
    try:
        if p.suffix == ".csv":
            return pd.read_csv(p, keep_default_na=False, na_values=[])
        return pd.read_parquet(p)
    except (ValueError, OSError) as exc:  # pyarrow's errors are ValueError / OSError subclasses
        kind = "CSV" if p.suffix == ".csv" else "Parquet"
        raise ValueError(f"{p}: not a readable {kind} results table: {' '.join(str(exc).split())[:200]}") from None
    except Exception as exc:  # pandas' parser errors
        raise ValueError(f"{p}: not a readable results table: {type(exc).__name__}: {exc}") from None


def load_results(path: str | Path) -> pd.DataFrame:
    """Load a results table from a Parquet/CSV file or a run's output folder.

    A folder gives its ``results.parquet`` when the run finished, else the part files written
    so far (a report of an interrupted run). Errors (``ValueError``, ``FileNotFoundError``)
    name the file and what is wrong (e.g. the missing columns).
    """
    p = Path(path)
    if p.is_dir():
        if (p / FINAL).is_file():
            return _checked(_read_table(p / FINAL), p / FINAL)
        if (p / PARTS).is_dir():
            files = sorted((p / PARTS).glob("part-*.parquet"))
            if not files:
                return rows_to_frame([])
            df = pd.concat([_checked(_read_table(f), f) for f in files], ignore_index=True)
            return _sorted(df)
        raise FileNotFoundError(f"{p}: no {FINAL} and no {PARTS}/ folder: not a tournament output folder")
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such results file or folder")
    return _checked(_read_table(p), p)


def write_manifest(out_dir: str | Path, data: Mapping[str, Any]) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str), encoding="utf-8")
    os.replace(tmp, out / MANIFEST)


def read_manifest(out_dir: str | Path) -> dict[str, Any] | None:
    p = Path(out_dir) / MANIFEST
    if not p.is_file():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


class OutputBusy(RuntimeError):
    """Another run holds the output folder's lock."""


_HELD: set[int] = set()  # lock file descriptors held by this process


class OutputLock:
    """An exclusive ``flock`` on ``OUT/.lock`` for the duration of a run (a context manager).

    The kernel drops the lock when the process ends, however it ends, so a crashed run never
    leaves a stale lock. The file records the holder's pid for the message of a refused run.
    """

    def __init__(self, out_dir: str | Path) -> None:
        self.path = Path(out_dir) / LOCK
        self.fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise OutputBusy(
                f"{self.path.parent}: another run (pid {holder}) is writing to this output folder; "
                "wait for it to end or choose another output folder"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        _HELD.add(fd)

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            _HELD.discard(fd)
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def forget_inherited_locks() -> None:
    """In a forked child: close the inherited lock descriptors (without unlocking the parent's)."""
    for fd in list(_HELD):
        _HELD.discard(fd)
        with contextlib.suppress(OSError):
            os.close(fd)
