"""The schema of the results table: one row per (hand, seat), its columns and their types,
and how rows become an Arrow table (a leaf module: the writers, :mod:`.store`, and the
readers, :mod:`.results`, both build on it).

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

A chunk's rows are built as an Arrow table column by column (:func:`rows_to_table`), never
as a DataFrame of row dicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any

import pandas as pd
import pyarrow as pa

__all__ = ["COLUMNS", "SCHEMA", "rows_to_frame", "rows_to_table", "table_to_frame"]

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
