"""A results table as a file holds it: read as it is (:func:`read_table`) and its columns and
their types checked (:func:`checked_frame`), in (hand, seat) order. What :mod:`.results` and
:mod:`.readback` share, below both."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from xuezhan.tournament.schema import COLUMNS

__all__ = ["checked_frame", "read_table", "sorted_rows"]


def sorted_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows in (hand, seat) order, renumbered."""
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
        return df if _is_sorted(df) else sorted_rows(df)
    try:
        df = df.astype(wanted)
    except (ValueError, TypeError) as exc:
        for column, dtype in wanted.items():  # name the column that does not convert
            try:
                df[column].astype(dtype)  # type: ignore[call-overload]  # dtype names as in COLUMNS
            except (ValueError, TypeError):
                raise ValueError(f"{source}: column {column!r} does not hold {dtype} values") from None
        raise ValueError(f"{source}: not a results table: {exc}") from None
    return df if _is_sorted(df) else sorted_rows(df)


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
