"""A run's results on disk: a few Parquet segments, one row group per chunk of hands.

While a run plays, the main process streams every finished chunk (an Arrow table, see
:func:`xuezhan.tournament.results.rows_to_table`) to one :class:`SegmentWriter` and drops it::

    OUT/parts/seg-000000.parquet     a closed segment: one row group per chunk, in the order the
                                     chunks finished; the footer's key ``xuezhan.chunks`` lists
                                     the chunk id of each row group (the segment's manifest)
    OUT/parts/seg-000001.journal     the open segment's journal: an Arrow IPC stream, one record
                                     batch per chunk (its id in the batch's metadata)
    OUT/parts/.seg-000001.parquet.tmp  the open segment's Parquet file, footer not yet written

A Parquet file cannot be read until its footer is written, so the open segment is kept twice:
its Parquet file grows row group by row group, and each chunk is appended to the journal
first. A segment is closed (footer written, file synced, renamed to ``seg-NNNNNN.parquet``,
journal deleted) when it reaches :data:`SEGMENT_ROWS` rows and whenever the run stops
cleanly: at the end, on Ctrl-C, when a worker dies, on any error. A chunk counts as done once
its batch is in the journal (a killed process keeps it) and is durable against a power loss
once its segment is closed.

After a ``kill -9`` or a crash, :func:`recover` (run by ``--resume``) repairs the folder: the
torn ``.tmp`` Parquet file is deleted; the journal's complete batches become a closed segment;
a torn last batch (the process died while writing it) is dropped, so its chunk is simply played
again; a journal left beside its closed segment (killed between rename and delete) is deleted.
Nothing finished is lost and no chunk is stored twice (:func:`stored_chunks` refuses a chunk
found in two places). Every stored chunk is then checked by :func:`verify_segment` against the
hands its id names before it is trusted.

The final table (:func:`write_final`) is read back row group by row group in chunk order, so no
step holds more than one chunk per segment plus one output row group in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from xuezhan.tournament.results import SCHEMA
from xuezhan.tournament.scheduling import Game

__all__ = [
    "CHUNKS_KEY",
    "FINAL_ROW_GROUP",
    "PARTS",
    "SEGMENT_ROWS",
    "PartError",
    "Segment",
    "SegmentWriter",
    "journal_chunks",
    "next_segment",
    "read_stored",
    "recover",
    "segments",
    "stored_chunks",
    "verify_segment",
    "write_final",
]

PARTS = "parts"
#: Footer key of a segment: the JSON list of the chunk id of each row group.
CHUNKS_KEY = "xuezhan.chunks"
#: Rows (4 per hand) a segment holds before it is closed and the next one opened. The open
#: segment's Parquet writer keeps about 20 KB of metadata per row group (one per chunk) until it
#: closes, so this bounds the main process's memory: 65,536 hands in 1,638 chunks of 40 is about
#: 35 MB, and a million hands leave 16 segments.
SEGMENT_ROWS = 1 << 18
#: Rows per row group of the final ``results.parquet`` (writing one holds two or three copies
#: of it in memory: 65,536 rows keep that near 100 MB).
FINAL_ROW_GROUP = 1 << 16

_SEGMENT = re.compile(r"seg-(\d{6})\.parquet")
_JOURNAL = re.compile(r"seg-(\d{6})\.journal")
_TORN = re.compile(r"\.seg-(\d{6})\.parquet\.tmp")


class PartError(ValueError):
    """Stored results that cannot be trusted (unreadable, or not the hands of their chunk);
    the message names the file."""


def segment_path(out_dir: str | Path, n: int) -> Path:
    return Path(out_dir) / PARTS / f"seg-{n:06d}.parquet"


def _journal_path(out_dir: str | Path, n: int) -> Path:
    return Path(out_dir) / PARTS / f"seg-{n:06d}.journal"


def _tmp_path(out_dir: str | Path, n: int) -> Path:
    return Path(out_dir) / PARTS / f".seg-{n:06d}.parquet.tmp"


def _numbered(out_dir: str | Path, pattern: re.Pattern[str]) -> list[tuple[int, Path]]:
    d = Path(out_dir) / PARTS
    if not d.is_dir():
        return []
    return sorted((int(m.group(1)), p) for p in d.iterdir() if (m := pattern.fullmatch(p.name)))


def has_results(out_dir: str | Path) -> bool:
    """Whether ``out_dir`` holds stored chunks (closed segments or a journal)."""
    return bool(_numbered(out_dir, _SEGMENT) or _numbered(out_dir, _JOURNAL))


def next_segment(out_dir: str | Path) -> int:
    """The number of the next segment to open (after every segment, journal or torn file)."""
    used = [n for pat in (_SEGMENT, _JOURNAL, _TORN) for n, _ in _numbered(out_dir, pat)]
    return max(used, default=-1) + 1


def _fsync(path: Path) -> None:
    if os.name == "nt" and path.is_dir():  # Windows cannot open a folder (its renames need no sync)
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Segment:
    """A closed segment: its file, the chunk id of each row group and each row group's rows."""

    path: Path
    chunks: tuple[int, ...]
    rows: tuple[int, ...]


def _read_segment(path: Path) -> Segment:
    try:
        meta = pq.read_metadata(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a damaged file
        raise PartError(f"{path}: not a readable results segment ({type(exc).__name__}: {exc})") from None
    kv = meta.metadata or {}
    raw = kv.get(CHUNKS_KEY.encode())
    rows = tuple(meta.row_group(i).num_rows for i in range(meta.num_row_groups))
    try:
        chunks = tuple(int(c) for c in json.loads(raw)) if raw is not None else None
    except (ValueError, TypeError):
        chunks = None
    if chunks is None or len(chunks) != len(rows):
        raise PartError(f"{path}: not a results segment: its footer does not list a chunk id per row group")
    if meta.schema.to_arrow_schema().names != SCHEMA.names:
        raise PartError(f"{path}: not a results segment: its columns are not the results table's")
    return Segment(path, chunks, rows)


def segments(out_dir: str | Path) -> list[Segment]:
    """The closed segments of ``out_dir``, in file order."""
    return [_read_segment(p) for _, p in _numbered(out_dir, _SEGMENT)]


def stored_chunks(out_dir: str | Path) -> dict[int, tuple[Segment, int]]:
    """Chunk id → (segment, row group) over the closed segments; a chunk stored twice is refused."""
    where: dict[int, tuple[Segment, int]] = {}
    for seg in segments(out_dir):
        for rg, chunk in enumerate(seg.chunks):
            if chunk in where:
                raise PartError(f"{seg.path}: chunk {chunk} is stored twice (also in {where[chunk][0].path})")
            where[chunk] = (seg, rg)
    return where


def _journal_batches(path: Path) -> tuple[list[tuple[int, pa.RecordBatch]], bool]:
    """The complete (chunk id, batch) pairs of a journal and whether its tail was torn."""
    out: list[tuple[int, pa.RecordBatch]] = []
    try:
        reader = pa.ipc.open_stream(pa.OSFile(str(path)))
    except (pa.ArrowInvalid, OSError):
        return out, path.stat().st_size > 0
    if reader.schema.names != SCHEMA.names:
        raise PartError(f"{path}: not a results journal: its columns are not the results table's")
    while True:
        try:
            batch, meta = reader.read_next_batch_with_custom_metadata()
        except StopIteration:
            return out, False
        except (pa.ArrowInvalid, OSError):
            return out, True
        try:
            chunk = int(meta[b"chunk"])
        except (TypeError, KeyError, ValueError):
            raise PartError(f"{path}: a batch of the journal names no chunk") from None
        out.append((chunk, batch))


def journal_chunks(out_dir: str | Path) -> set[int]:
    """Chunk ids in the open journal(s): finished chunks of a running or killed run."""
    return {c for _, p in _numbered(out_dir, _JOURNAL) for c, _ in _journal_batches(p)[0]}


def recover(out_dir: str | Path) -> list[str]:
    """Repair a folder left by a killed run (see the module's docstring); returns what was done."""
    notes: list[str] = []
    for _, p in _numbered(out_dir, _TORN):
        notes.append(f"{p.name}: an unfinished segment file of a killed run, deleted (its journal keeps its chunks)")
        p.unlink()
    for n, p in _numbered(out_dir, _JOURNAL):
        if segment_path(out_dir, n).exists():  # killed after the segment was closed
            p.unlink()
            continue
        batches, torn = _journal_batches(p)
        if batches:
            writer = SegmentWriter(out_dir, first=n, journal=False)
            for chunk, batch in batches:
                writer.add(chunk, pa.Table.from_batches([batch]))
            writer.close()
        p.unlink()
        lost = "; the chunk it was writing when killed is played again" if torn else ""
        notes.append(f"{p.name}: journal of a killed run, {len(batches)} finished chunk(s) kept{lost}")
    return notes


@contextlib.contextmanager
def _held_interrupt() -> Iterator[None]:
    """Hold Ctrl-C while a chunk is stored or a segment closed, and deliver it right after.

    A KeyboardInterrupt between writing a row group and recording its chunk id would close a
    segment whose footer misses a chunk (an unreadable segment for ``--resume``). Only the main
    thread can change the handler; elsewhere the signal is not delivered to us anyway.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if caught:
            signal.raise_signal(signal.SIGINT)  # now, with the usual handler


class SegmentWriter:
    """Writes finished chunks into segments of :data:`SEGMENT_ROWS` rows (a context manager).

    ``add(chunk_id, table)`` appends the chunk to the journal (unless ``journal=False``) and as
    one row group to the open segment; ``close()`` closes the open segment cleanly. Numbers
    segments from ``first`` (see :func:`next_segment`).
    """

    def __init__(
        self,
        out_dir: str | Path,
        *,
        first: int = 0,
        rows_per_segment: int | None = None,
        journal: bool = True,
        on_close: Callable[[Segment], None] | None = None,
    ) -> None:
        self.out = Path(out_dir)
        self.next = first
        self.rows_per_segment = SEGMENT_ROWS if rows_per_segment is None else rows_per_segment
        self.journal = journal
        self.on_close = on_close
        self._n = -1
        self._pq: pq.ParquetWriter | None = None
        self._sink: Any = None
        self._ipc: Any = None
        self._chunks: list[int] = []
        self._rows: list[int] = []

    def _open(self) -> None:
        self._n, self.next = self.next, self.next + 1
        (self.out / PARTS).mkdir(parents=True, exist_ok=True)
        if self.journal:
            self._sink = pa.OSFile(str(_journal_path(self.out, self._n)), "wb")
            self._ipc = pa.ipc.new_stream(self._sink, SCHEMA)
        # no column statistics: segments are read by row group, and statistics cost ~20 KB of
        # writer memory per row group (a segment holds thousands)
        self._pq = pq.ParquetWriter(str(_tmp_path(self.out, self._n)), SCHEMA, write_statistics=False)
        self._chunks, self._rows = [], []

    def add(self, chunk_id: int, table: pa.Table) -> None:
        """Store one finished chunk (its rows in (hand, seat) order)."""
        with _held_interrupt():
            self._add(chunk_id, table)

    def _add(self, chunk_id: int, table: pa.Table) -> None:
        if self._pq is None:
            self._open()
        assert self._pq is not None
        table = table.combine_chunks()
        if self._ipc is not None:
            # the journal first: once the batch is written a killed process keeps the chunk
            for batch in table.to_batches() or [pa.RecordBatch.from_pylist([], schema=SCHEMA)]:
                self._ipc.write_batch(batch, custom_metadata={"chunk": str(chunk_id)})
            self._sink.flush()
        self._pq.write_table(table, row_group_size=max(1, table.num_rows))
        self._chunks.append(chunk_id)
        self._rows.append(table.num_rows)
        if sum(self._rows) >= self.rows_per_segment:
            self._close_segment()

    def close_segment(self) -> None:
        """Close the open segment: footer with its chunk ids, sync, rename, drop the journal."""
        with _held_interrupt():
            self._close_segment()

    def _close_segment(self) -> None:
        if self._pq is None:
            return
        writer, self._pq = self._pq, None
        writer.add_key_value_metadata({CHUNKS_KEY: json.dumps(self._chunks)})
        writer.close()
        tmp, final = _tmp_path(self.out, self._n), segment_path(self.out, self._n)
        _fsync(tmp)
        os.replace(tmp, final)
        _fsync(final.parent)
        if self._ipc is not None:
            self._ipc.close()
            self._sink.close()
            self._ipc = self._sink = None
            _journal_path(self.out, self._n).unlink()
        if self.on_close is not None:
            self.on_close(Segment(final, tuple(self._chunks), tuple(self._rows)))

    def close(self) -> None:
        self.close_segment()

    def __enter__(self) -> SegmentWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_KEYS = ["hand", "seed", "seat", "entry"]


def _check_chunk(where: str, cols: dict[str, np.ndarray], games: Sequence[Game]) -> None:
    """The rows ``cols`` (hand, seed, seat, entry) must be exactly the rows of ``games``."""
    seats = len(games[0].seating)
    want = {
        "hand": np.repeat([g.index for g in games], seats),
        "seed": np.repeat([g.seed for g in games], seats),
        "seat": np.tile(np.arange(seats), len(games)),
        "entry": np.concatenate([g.seating for g in games]),
    }
    have = cols
    if len(have["hand"]) == len(want["hand"]):
        order = np.lexsort((have["seat"], have["hand"]))
        if all(np.array_equal(have[k][order], want[k]) for k in _KEYS):
            return
    chunk = f"its chunk holds hands {games[0].index}-{games[-1].index}"
    hands = sorted(set(have["hand"].tolist()))
    if not hands:
        raise PartError(f"{where}: no rows, but {chunk}")
    if set(hands) != {g.index for g in games}:
        shown = f"{hands[0]}-{hands[-1]}" if len(hands) > 1 else str(hands[0])
        raise PartError(f"{where}: holds hands {shown} ({len(hands)} distinct), but {chunk}")
    rows = list(zip(*(have[k].tolist() for k in _KEYS), strict=True))
    wanted = set(zip(*(want[k].tolist() for k in _KEYS), strict=True))
    if len(rows) != len(set(rows)) or len(rows) != len(wanted):
        raise PartError(f"{where}: {len(rows)} rows for {len(games)} hands: a (hand, seat) row is repeated or missing")
    wrong = min(set(rows) - wanted)
    raise PartError(
        f"{where}: hand {wrong[0]} seat {wrong[2]} has wall seed {wrong[1]} and entry {wrong[3]}, "
        f"which are not this tournament's"
    )


def verify_segment(seg: Segment, games_of: Callable[[int], Sequence[Game]]) -> None:
    """Check that every row group of ``seg`` holds exactly the hands of the chunk the footer
    names (hand indices, wall seeds (R1.4), one row per seat, the seating's entries; nothing
    else). ``games_of(chunk_id)`` gives a chunk's hands (``IndexError``: no such chunk).
    Raises :class:`PartError` naming the file, the row group and the chunk."""
    try:
        table = pq.read_table(seg.path, columns=_KEYS)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a damaged file
        raise PartError(f"{seg.path}: not a readable results segment ({type(exc).__name__}: {exc})") from None
    cols = {k: table.column(k).to_numpy() for k in _KEYS}
    start = 0
    for rg, (chunk, n) in enumerate(zip(seg.chunks, seg.rows, strict=True)):
        where = f"{seg.path} (row group {rg}, chunk {chunk})"
        try:
            games = games_of(chunk)
        except IndexError:
            raise PartError(f"{where}: this tournament has no chunk {chunk}") from None
        _check_chunk(where, {k: v[start : start + n] for k, v in cols.items()}, games)
        start += n


def _chunk_tables(out_dir: str | Path, chunk_ids: Sequence[int]) -> Iterator[pa.Table]:
    """The stored chunks in the order of ``chunk_ids``. A segment's file is open only from its
    first chunk read to its last: an open file holds its footer (some kilobytes per row group,
    thousands of row groups), so keeping every segment open would grow with the run."""
    where = stored_chunks(out_dir)
    last = {where[c][0].path: i for i, c in enumerate(chunk_ids)}
    files: dict[Path, pq.ParquetFile] = {}
    try:
        for i, c in enumerate(chunk_ids):
            seg, rg = where[c]
            f = files.get(seg.path)
            if f is None:
                f = files[seg.path] = pq.ParquetFile(seg.path)
            yield f.read_row_group(rg)
            if last[seg.path] == i:
                files.pop(seg.path).close()
    finally:
        for f in files.values():
            f.close()


def _batches(tables: Iterator[pa.Table], rows: int) -> Iterator[pa.Table]:
    """Tables of about ``rows`` rows from smaller ones, each sorted by (hand, seat)."""
    buf: list[pa.Table] = []
    n = 0
    for t in tables:
        buf.append(t)
        n += t.num_rows
        if n >= rows:
            yield pa.concat_tables(buf).sort_by([("hand", "ascending"), ("seat", "ascending")])
            buf, n = [], 0
    if buf:
        yield pa.concat_tables(buf).sort_by([("hand", "ascending"), ("seat", "ascending")])


def write_final(out_dir: str | Path, path: Path, chunk_ids: Sequence[int], *, csv: Path | None = None) -> int:
    """Write the stored ``chunk_ids`` (consecutive chunks in hand order) to ``path`` (Parquet,
    atomically) and ``csv``, sorted by (hand, seat), one batch at a time. Returns the rows."""
    tmp = path.with_name(f".{path.name}.tmp")
    rows = 0
    writer = pq.ParquetWriter(str(tmp), SCHEMA)
    csv_tmp = csv.with_name(f".{csv.name}.tmp") if csv is not None else None
    csv_file = open(csv_tmp, "w", encoding="utf-8", newline="") if csv_tmp is not None else None  # noqa: SIM115
    try:
        for batch in _batches(_chunk_tables(out_dir, chunk_ids), FINAL_ROW_GROUP):
            writer.write_table(batch, row_group_size=batch.num_rows)
            if csv_file is not None:
                batch.to_pandas().to_csv(csv_file, header=rows == 0, index=False)
            rows += batch.num_rows
    finally:
        writer.close()
        if csv_file is not None:
            csv_file.close()
    if rows == 0 and csv_file is not None:  # an empty table still has its header
        from xuezhan.tournament.results import rows_to_frame

        rows_to_frame([]).to_csv(csv_tmp, index=False)
    os.replace(tmp, path)
    if csv is not None and csv_tmp is not None:
        os.replace(csv_tmp, csv)
    return rows


def read_stored(out_dir: str | Path, columns: Sequence[str] | None = None) -> pa.Table:
    """Every stored chunk (closed segments, then any journal's finished chunks), sorted by
    (hand, seat): the results of an unfinished run."""
    tables = [pq.read_table(seg.path, columns=list(columns) if columns else None) for seg in segments(out_dir)]
    for _, p in _numbered(out_dir, _JOURNAL):
        batches = [b for _, b in _journal_batches(p)[0]]
        if batches:
            t = pa.Table.from_batches(batches, schema=SCHEMA)
            tables.append(t.select(list(columns)) if columns else t)
    if not tables:
        t = SCHEMA.empty_table()
        return t.select(list(columns)) if columns else t
    table = pa.concat_tables(tables)
    if "hand" in table.column_names and "seat" in table.column_names:
        table = table.sort_by([("hand", "ascending"), ("seat", "ascending")])
    return table
