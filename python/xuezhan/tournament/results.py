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
wins           int8     how many times it won (more than 1 only when winners stay, R14)
win_order      int8     1 = first winner of the hand, 2, 3…; 0 = did not win (R4.5); its first win (R14)
self_draw      bool     the (first) win was a self-draw (自摸, ``from`` null; R6.3 included)
fan            int8     capped fan of the (first) win (R5); 0 without a win
fan_items      string   the (first) win's fan items, ``+``-joined ids (R5), ``""`` without a win
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
The output folder itself (its lock, manifest, ``--overwrite`` and ``--resume``) is
:class:`xuezhan.tournament.folder.OutputFolder`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from xuezhan.tournament.folder import CSV, FINAL, MANIFEST

__all__ = [
    "COLUMNS",
    "CSV",
    "FINAL",
    "SCHEMA",
    "done_chunks",
    "load_results",
    "read_parts",
    "rows_to_frame",
    "rows_to_table",
    "table_to_frame",
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
    "wins": "int8",
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
    """Every chunk stored in ``out_dir`` so far (each verified against the folder's run, as
    ``--resume`` verifies it), sorted by (hand, seat)."""
    from xuezhan.tournament.driver import games_of
    from xuezhan.tournament.readback import run_of
    from xuezhan.tournament.store import read_stored

    manifest, config = run_of(Path(out_dir))
    return _sorted(table_to_frame(read_stored(out_dir, manifest.identity, games_of(config))).astype(COLUMNS))


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["hand", "seat"], kind="stable").reset_index(drop=True)


def checked_frame(df: pd.DataFrame, source: Path, columns: Sequence[str] | None = None) -> pd.DataFrame:
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


def read_table(p: Path, columns: Sequence[str] | None = None, categories: bool = False) -> pd.DataFrame:
    """A results table file (Parquet or CSV) as it is, refused by type unless a regular file."""
    import stat

    st = p.stat()
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{p}: a folder, not a results table")
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
    (a report of an interrupted run), each verified against the run its manifest names
    (:mod:`.readback`: checksums, run, hands; a mismatch is a ``ValueError`` naming the file). A
    run's ``results.parquet`` named directly is verified the same way; without its manifest,
    against its own checksums; another table file (one a user wrote, a CSV) is read as it is.
    ``columns`` reads only those columns (a million-hand table is read in a fraction of the
    memory); ``categories`` reads the string columns as pandas categoricals (dictionary-encoded:
    a byte or two per row). Errors
    (``ValueError``, ``FileNotFoundError``) name the file and what is wrong (e.g. the missing
    columns).
    """
    p = Path(path)
    if p.is_dir():
        from xuezhan.tournament.readback import read_folder

        return read_folder(p, columns, categories)
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such results file or folder")
    from xuezhan.tournament.readback import read_file, run_of, verify_finished

    if p.name == FINAL and os.path.lexists(p.parent / MANIFEST):
        # a run's own table, named by its path: verified as its folder is
        verify_finished(p.parent, *run_of(p.parent))
        return read_file(p, columns, categories, verified=True)
    return read_file(p, columns, categories)
