"""The results table of a tournament: reading it back, whole or as stored so far.

One row per (hand, seat); its columns and their types are :mod:`.schema` (``COLUMNS``,
``SCHEMA``, and how rows become an Arrow table), re-exported here.

During a run every finished chunk of hands is streamed to a few Parquet segments under
``parts/`` (one row group per chunk; :mod:`.store` describes the layout, what a kill leaves
behind and how ``--resume`` repairs and verifies it); the final table is ``results.parquet``
(and ``results.csv`` with ``--csv``), sorted by (hand, seat). The output folder itself (its
lock, manifest, ``--overwrite`` and ``--resume``) is :class:`xuezhan.tournament.folder.OutputFolder`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from xuezhan.tournament.folder import CSV, FINAL, MANIFEST
from xuezhan.tournament.schema import COLUMNS, SCHEMA, rows_to_frame, rows_to_table, table_to_frame

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
