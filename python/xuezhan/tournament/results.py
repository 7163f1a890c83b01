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

During a run every finished chunk of hands is streamed to a few Parquet segments under
``parts/`` (one row group per chunk; :mod:`.store` describes the layout, what a kill leaves
behind and how ``--resume`` repairs and verifies it); the final table is ``results.parquet``
(and ``results.csv`` with ``--csv``), sorted by (hand, seat). A chunk's rows are built as an
Arrow table column by column (:func:`rows_to_table`), never as a DataFrame of row dicts.
One run at a time uses an output folder: :class:`OutputLock` holds an ``flock`` on its
``.lock`` file, which the system releases when the run ends, however it ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any, Self

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = [
    "COLUMNS",
    "CSV",
    "FINAL",
    "LOCK",
    "MANIFEST",
    "SCHEMA",
    "OutputBusy",
    "OutputLock",
    "done_chunks",
    "forget_inherited_locks",
    "load_results",
    "read_manifest",
    "read_parts",
    "rows_to_frame",
    "rows_to_table",
    "table_to_frame",
    "write_manifest",
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

MANIFEST = "manifest.json"
FINAL = "results.parquet"
CSV = "results.csv"
LOCK = ".lock"


def _schema() -> pa.Schema:
    # The Arrow schema of the table, with the pandas metadata that makes ``to_pandas`` (and
    # ``pd.read_parquet``) give back exactly the dtypes of COLUMNS.
    empty = pd.DataFrame({c: pd.Series(dtype=t) for c, t in COLUMNS.items()})
    return pa.Schema.from_pandas(empty, preserve_index=False)


#: The results table as Arrow sees it (types and pandas metadata), shared by every writer.
SCHEMA: pa.Schema = _schema()


_ROW_VALUES = itemgetter(*SCHEMA.names)  # a row mapping's values in column order


def rows_to_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """An Arrow table with exactly :data:`COLUMNS`, built column by column from row mappings.

    >>> rows_to_table([]).num_rows, rows_to_table([]).column_names == list(COLUMNS)
    (0, True)
    """
    if not rows:
        return SCHEMA.empty_table()
    columns = zip(*map(_ROW_VALUES, rows), strict=True)  # rows to columns in C, not per cell
    arrays = [pa.array(col, type=field.type) for col, field in zip(columns, SCHEMA, strict=True)]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def table_to_frame(table: pa.Table) -> pd.DataFrame:
    """The DataFrame of a results table, with the dtypes of :data:`COLUMNS`."""
    return table.to_pandas()


def rows_to_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """A DataFrame with exactly :data:`COLUMNS`, in order and with their types (a missing
    string field is ``<NA>``; small tables only: the runs build :func:`rows_to_table`)."""
    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    return df.astype(COLUMNS)


def done_chunks(out_dir: str | Path) -> set[int]:
    """The ids of the chunks stored in ``out_dir`` (closed segments and the open journal)."""
    from xuezhan.tournament.store import journal_chunks, stored_chunks

    return set(stored_chunks(out_dir)) | journal_chunks(out_dir)


def read_parts(out_dir: str | Path) -> pd.DataFrame:
    """Every chunk stored in ``out_dir`` so far, sorted by (hand, seat)."""
    from xuezhan.tournament.store import read_stored

    return _sorted(table_to_frame(read_stored(out_dir)).astype(COLUMNS))


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["hand", "seat"], kind="stable").reset_index(drop=True)


def _checked(df: pd.DataFrame, source: Path, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """The table with :data:`COLUMNS` (or ``columns``) and their types; errors name the file
    and the columns."""
    wanted = {c: COLUMNS[c] for c in (columns or COLUMNS)}
    missing = [c for c in wanted if c not in df.columns]
    if missing:
        raise ValueError(f"{source}: not a results table: missing column(s) {', '.join(missing)}")
    df = df[list(wanted)]
    if all(str(df[c].dtype) == t or isinstance(df[c].dtype, pd.CategoricalDtype) for c, t in wanted.items()):
        return df if _is_sorted(df) else _sorted(df)
    try:
        df = df.astype(wanted)
    except (ValueError, TypeError) as exc:
        for column, dtype in wanted.items():  # name the column that does not convert
            try:
                df[column].astype(dtype)  # type: ignore[call-overload]  # dtype names as in COLUMNS
            except (ValueError, TypeError):
                raise ValueError(f"{source}: column {column!r} does not hold {dtype} values") from None
        raise ValueError(f"{source}: not a results table: {exc}") from None
    return df if _is_sorted(df) else _sorted(df)


def _is_sorted(df: pd.DataFrame) -> bool:
    """Already in (hand, seat) order (the files this package writes are): no sort, no copy."""
    if "hand" not in df or "seat" not in df:
        return True
    h = df["hand"].to_numpy()
    s = df["seat"].to_numpy()
    if len(h) < 2:
        return True
    dh = np.diff(h)
    return bool(np.all((dh > 0) | ((dh == 0) & (np.diff(s) > 0))))


def _read_table(p: Path, columns: Sequence[str] | None = None, categories: bool = False) -> pd.DataFrame:
    import stat

    st = p.stat()
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{p}: not a regular file (a device, pipe or socket): give a results file or folder")
    try:
        if p.suffix == ".csv":
            return pd.read_csv(
                p, keep_default_na=False, na_values=[], usecols=None if columns is None else list(columns)
            )
        if columns is None and not categories:
            return pd.read_parquet(p)
        import pyarrow.parquet as pq

        names = pq.read_schema(p).names
        cols = [c for c in columns if c in names] if columns else None
        strings = [c for c in (cols or names) if COLUMNS.get(c) == "string" or c == "variant"]
        table = pq.read_table(p, columns=cols, read_dictionary=strings if categories else None)
        return table.to_pandas()
    except (ValueError, OSError) as exc:  # pyarrow's errors are ValueError / OSError subclasses
        kind = "CSV" if p.suffix == ".csv" else "Parquet"
        raise ValueError(f"{p}: not a readable {kind} results table: {' '.join(str(exc).split())[:200]}") from None
    except Exception as exc:  # pandas' parser errors
        raise ValueError(f"{p}: not a readable results table: {type(exc).__name__}: {exc}") from None


def load_results(path: str | Path, *, columns: Sequence[str] | None = None, categories: bool = False) -> pd.DataFrame:
    """Load a results table from a Parquet/CSV file or a run's output folder.

    A folder gives its ``results.parquet`` when the run finished, else the chunks stored so far
    (a report of an interrupted run). ``columns`` reads only those columns (a million-hand
    table is read in a fraction of the memory); ``categories`` reads the string columns as
    pandas categoricals (dictionary-encoded: a byte or two per row). Errors
    (``ValueError``, ``FileNotFoundError``) name the file and what is wrong (e.g. the missing
    columns).
    """
    p = Path(path)
    if p.is_dir():
        from xuezhan.tournament.store import PARTS, PartError, read_stored

        if (p / FINAL).is_file():
            return _checked(_read_table(p / FINAL, columns, categories), p / FINAL, columns)
        if (p / PARTS).is_dir():
            try:
                table = read_stored(p, columns)
            except PartError as exc:
                raise ValueError(str(exc)) from None
            return _checked(table_to_frame(table), p / PARTS, columns)
        raise FileNotFoundError(f"{p}: no {FINAL} and no {PARTS}/ folder: not a tournament output folder")
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such results file or folder")
    return _checked(_read_table(p, columns, categories), p, columns)


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


if sys.platform == "win32":  # no flock: msvcrt locks a byte far past the pid the file records
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 1 << 20, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError from None
        finally:
            os.lseek(fd, 0, os.SEEK_SET)

    def _unlock(fd: int) -> None:
        os.lseek(fd, 1 << 20, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


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
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            _lock(fd)
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
            _unlock(fd)
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
