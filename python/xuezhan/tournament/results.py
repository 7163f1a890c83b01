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

import pandas as pd

from xuezhan.tournament.folder import CSV, FINAL, MANIFEST
from xuezhan.tournament.frames import sorted_rows
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
    from xuezhan.tournament.readback import run_of
    from xuezhan.tournament.scheduling import games_of
    from xuezhan.tournament.store import read_stored

    manifest, config = run_of(Path(out_dir))
    return sorted_rows(table_to_frame(read_stored(out_dir, manifest.identity, games_of(config))).astype(COLUMNS))


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
