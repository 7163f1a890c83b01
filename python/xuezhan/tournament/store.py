"""A run's results on disk: a few Parquet segments, one row group per chunk of hands.

While a run plays, the main process streams every finished chunk (an Arrow table, see
:func:`xuezhan.tournament.schema.rows_to_table`) to one :class:`SegmentWriter` and drops it::

    OUT/parts/seg-000000.parquet     a closed segment: one row group per chunk, in the order the
                                     chunks finished; its footer names the run, the chunk id
                                     of each row group and each chunk's checksum
    OUT/parts/seg-000001.journal     the open segment's journal: an Arrow IPC stream (its schema
                                     names the run), one record batch per chunk (its id and
                                     checksum in the batch's metadata)
    OUT/parts/.seg-000001.parquet.tmp  the open segment's Parquet file, footer not yet written

Every stored chunk carries a checksum (:func:`chunk_digest`): the SHA-256 of the run's
identity, the chunk id and the chunk's Arrow IPC bytes. It is written with the chunk, in the
journal and in the segment's footer, and checked whenever a chunk is read back: when
``--resume`` repairs and verifies a folder (:func:`verified_chunks`, the one reader that
trusts stored chunks), when the final table is assembled, and when a report reads a run. So a bit
flipped anywhere in a stored chunk, a chunk renamed to another id, or a segment or journal
copied from another run (another variant of a study: same walls, other rules) is refused with
an error naming the file, the row group (or journal batch) and the chunk; it never becomes
rows of the table.

A Parquet file cannot be read until its footer is written, so the open segment is kept twice:
its Parquet file grows row group by row group, and each chunk is appended to the journal
first. A segment is closed (footer written, file synced, renamed to ``seg-NNNNNN.parquet``,
journal deleted) when it reaches :data:`SEGMENT_ROWS` rows or :data:`SEGMENT_CHUNKS` chunks,
and whenever the run stops cleanly: at the end, on Ctrl-C, when a worker dies, on any error.
A chunk counts as done once its batch is in the journal (a killed process keeps it) and is
durable against a power loss once its segment is closed.

After a ``kill -9`` or a crash, :func:`recover` (run by ``--resume``) repairs the folder: the
torn ``.tmp`` Parquet file is deleted; the journal's complete batches, each validated
(:meth:`pyarrow.RecordBatch.validate`) and checked against its checksum before it is written
anywhere, become a closed segment; a torn last batch (the process died while writing it) is
dropped, so its chunk is simply played again; a journal left beside its closed segment (killed
between rename and delete) is deleted. Nothing finished is lost and no chunk is stored twice
(:func:`stored_chunks` refuses a chunk found in two places). Every stored chunk is then
checked by :func:`verified_chunks` against its checksum and the hands its id names before it
is trusted.

The final table (:func:`write_final`) is read back row group by row group in chunk order, so no
step holds more than one chunk per segment plus one output row group in memory. Its footer names
the run and, per chunk, the chunk's id, rows and checksum, so that it can be verified when it is
read back (:func:`final_footer`, :func:`verify_final`; :mod:`.readback` does it for a folder).

Every file of ``parts/`` is checked by type before it is opened: a folder, FIFO, socket or
device named like a segment, journal or torn file, or ``parts`` itself a file, is refused
(:class:`PartError` naming it) instead of hanging a reader or failing a rename.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from xuezhan.tournament.folder import PARTS
from xuezhan.tournament.scheduling import Game
from xuezhan.tournament.schema import SCHEMA

__all__ = [
    "CHECKSUMS_KEY",
    "CHUNKS_KEY",
    "FINAL_ROW_GROUP",
    "ROWS_KEY",
    "FinalFooter",
    "PARTS",
    "RUN_KEY",
    "SEGMENT_CHUNKS",
    "SEGMENT_ROWS",
    "PartError",
    "Segment",
    "SegmentWriter",
    "chunk_digest",
    "final_footer",
    "has_results",
    "journal_chunks",
    "next_segment",
    "parts_folder",
    "read_stored",
    "recover",
    "segments",
    "stored_chunks",
    "verified_chunks",
    "verify_final",
    "write_final",
]

#: Footer key of a segment: the JSON list of the chunk id of each row group.
CHUNKS_KEY = "xuezhan.chunks"
#: Footer key of a segment: the JSON list of each row group's :func:`chunk_digest`.
CHECKSUMS_KEY = "xuezhan.checksums"
#: Footer key of a segment and schema key of a journal: the identity of the run that wrote it.
RUN_KEY = "xuezhan.run"
#: Footer key of the final table: the JSON list of each chunk's rows (its other keys are a
#: segment's: the chunk ids, their checksums and the run, per chunk rather than per row group).
ROWS_KEY = "xuezhan.rows"
#: Rows (4 per hand) a segment holds before it is closed and the next one opened. The open
#: segment's Parquet writer keeps some metadata per row group (one per chunk) until it
#: closes, so this and :data:`SEGMENT_CHUNKS` bound the main process's memory: a million
#: hands leave 16 segments.
SEGMENT_ROWS = 1 << 18
#: Row groups (chunks) a segment holds at most. The open writer keeps about 20 KB per row group
#: until the segment closes (and the allocator keeps the peak), so with ``chunk = 1`` a segment
#: closes after 1,024 chunks (some 40 MB at most) rather than after 65,536 (1.3 GB).
SEGMENT_CHUNKS = 1024
#: Rows per row group of the final ``results.parquet`` (writing one holds two or three copies
#: of it in memory: 65,536 rows keep that near 100 MB).
FINAL_ROW_GROUP = 1 << 16

_SEGMENT = re.compile(r"seg-(\d{6})\.parquet")
_JOURNAL = re.compile(r"seg-(\d{6})\.journal")
_TORN = re.compile(r"\.seg-(\d{6})\.parquet\.tmp")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_RECOVER = "delete it and --resume plays its chunks again (or start over with --overwrite)"
_REPLAY_ALL = "remove it and --resume plays every chunk again (or start over with --overwrite)"


class PartError(ValueError):
    """Stored results that cannot be trusted (unreadable, damaged, from another run, or not the
    hands of their chunk); the message names the file, the row group and the chunk."""


def segment_path(out_dir: str | Path, n: int) -> Path:
    return Path(out_dir) / PARTS / f"seg-{n:06d}.parquet"


def _journal_path(out_dir: str | Path, n: int) -> Path:
    return Path(out_dir) / PARTS / f"seg-{n:06d}.journal"


def _tmp_path(out_dir: str | Path, n: int) -> Path:
    return Path(out_dir) / PARTS / f".seg-{n:06d}.parquet.tmp"


def parts_folder(out_dir: str | Path) -> Path | None:
    """``out_dir/parts`` (None: there is none); :class:`PartError` naming it when something
    other than a folder has that name (the check is by type, before anything is read)."""
    d = Path(out_dir) / PARTS
    try:
        st = os.stat(d)
    except FileNotFoundError:
        if os.path.islink(d):
            raise PartError(f"{d}: a link to nothing where the run keeps its stored chunks; {_REPLAY_ALL}") from None
        return None
    except OSError as exc:
        why = exc.strerror or exc
        raise PartError(f"{d}: cannot read the folder of stored chunks ({why}); {_REPLAY_ALL}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise PartError(f"{d}: {_kind(st.st_mode)}, not the folder of the run's stored chunks; {_REPLAY_ALL}")
    return d


def _kind(mode: int) -> str:
    """What a file is, for a message: a file where a folder belongs, or the reverse."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file"


def _numbered(out_dir: str | Path, pattern: re.Pattern[str]) -> list[tuple[int, Path]]:
    """The files of ``parts/`` named by ``pattern``, by number. Each must be a regular file
    (followed through a link): a folder, FIFO, socket or device of such a name is refused here,
    by type, before anything opens it (a FIFO would block the reader for ever)."""
    d = parts_folder(out_dir)
    if d is None:
        return []
    out = []
    for p in d.iterdir():
        m = pattern.fullmatch(p.name)
        if m is None:
            continue
        try:
            st = os.stat(p)
        except FileNotFoundError:
            if os.path.lexists(p):  # a link to nothing
                raise PartError(f"{p}: a link to nothing where a stored chunk belongs; {_RECOVER}") from None
            continue  # gone since the listing: a running run closed its segment
        if not stat.S_ISREG(st.st_mode):
            raise PartError(f"{p}: {_kind(st.st_mode)}, not a file of stored chunks; {_RECOVER}")
        out.append((int(m.group(1)), p))
    return sorted(out)


def has_results(out_dir: str | Path) -> bool:
    """Whether ``out_dir`` holds stored chunks (closed segments, journals or torn files)."""
    return next_segment(out_dir) > 0


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


def chunk_digest(run: str, chunk_id: int, table: pa.Table | pa.RecordBatch) -> str:
    """The checksum of a stored chunk: SHA-256 of the run's identity, the chunk id and the
    chunk's Arrow IPC stream bytes (the same for equal tables whose buffers hold exactly their
    rows, however they were built or read back: the writer leaves out offsets and empty validity
    buffers. A slice of a larger table keeps its parent's buffers, which the writer writes whole:
    :func:`verify_final` copies each chunk it cuts from the final table first).

    >>> from xuezhan.tournament.schema import rows_to_table
    >>> len(chunk_digest("run", 0, rows_to_table([]))), chunk_digest("a", 0, SCHEMA.empty_table()) == \\
    ...     chunk_digest("b", 0, SCHEMA.empty_table())
    (64, False)
    """
    sink = pa.BufferOutputStream()
    batches = [table] if isinstance(table, pa.RecordBatch) else table.combine_chunks().to_batches()
    with pa.ipc.new_stream(sink, SCHEMA) as w:
        for batch in batches:
            if batch.num_rows:  # an empty chunk: the same bytes as a batch or as no batch
                w.write_batch(batch)
    h = hashlib.sha256(f"xuezhan chunk\n{run}\n{chunk_id}\n".encode())
    h.update(sink.getvalue())
    return h.hexdigest()


@dataclass(frozen=True)
class Segment:
    """A closed segment: its file, the run that wrote it, and per row group the chunk id, the
    rows and the checksum."""

    path: Path
    chunks: tuple[int, ...]
    rows: tuple[int, ...]
    checksums: tuple[str, ...]
    run: str


def _footer_list(kv: dict[bytes, bytes], key: str) -> list[Any] | None:
    raw = kv.get(key.encode())
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def _read_segment(path: Path) -> Segment:
    try:
        meta = pq.read_metadata(path)
        rows = tuple(meta.row_group(i).num_rows for i in range(meta.num_row_groups))
        names = meta.schema.to_arrow_schema().names
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a damaged file
        raise PartError(f"{path}: not a readable results segment ({_short(exc)}); {_RECOVER}") from None
    kv = meta.metadata or {}
    chunks = _footer_list(kv, CHUNKS_KEY)
    if chunks is None or len(chunks) != len(rows) or not all(type(c) is int and c >= 0 for c in chunks):
        raise PartError(f"{path}: not a results segment: its footer does not list a chunk id per row group; {_RECOVER}")
    checksums = _footer_list(kv, CHECKSUMS_KEY)
    run = kv.get(RUN_KEY.encode(), b"").decode("utf-8", "replace")
    if (
        checksums is None
        or len(checksums) != len(rows)
        or not all(isinstance(c, str) and _DIGEST.fullmatch(c) for c in checksums)
        or not run
    ):
        raise PartError(
            f"{path}: its footer has no checksum per row group or does not name its run (damaged, or "
            f"written by an older xuezhan); {_RECOVER}"
        )
    if names != SCHEMA.names:
        raise PartError(f"{path}: not a results segment: its columns are not the results table's; {_RECOVER}")
    return Segment(path, tuple(chunks), rows, tuple(checksums), run)


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def segments(out_dir: str | Path) -> list[Segment]:
    """The closed segments of ``out_dir``, in file order."""
    return [_read_segment(p) for _, p in _numbered(out_dir, _SEGMENT)]


def stored_chunks(out_dir: str | Path) -> dict[int, tuple[Segment, int]]:
    """Chunk id → (segment, row group) over the closed segments; a chunk stored twice is refused."""
    where: dict[int, tuple[Segment, int]] = {}
    for seg in segments(out_dir):
        for rg, chunk in enumerate(seg.chunks):
            if chunk in where:
                raise PartError(
                    f"{seg.path}: chunk {chunk} is stored twice (also in {where[chunk][0].path}); "
                    "delete one of the two files and --resume"
                )
            where[chunk] = (seg, rg)
    return where


@dataclass(frozen=True)
class _Entry:
    chunk: int
    batch: pa.RecordBatch
    checksum: str


def _journal_run(path: Path, schema: pa.Schema) -> str:
    if schema.names != SCHEMA.names or schema.types != SCHEMA.types:
        raise PartError(f"{path}: not a results journal: its columns are not the results table's; {_RECOVER}")
    run = (schema.metadata or {}).get(RUN_KEY.encode())
    if not run:
        raise PartError(f"{path}: the journal does not name its run (damaged, or an older xuezhan's); {_RECOVER}")
    return run.decode("utf-8", "replace")


def _journal_batches(path: Path, run: str | None = None) -> tuple[list[_Entry], bool, str | None]:
    """The complete, verified batches of a journal, whether its tail was torn, and the run that
    wrote it (None for an empty journal). Each batch is validated and checked against its
    checksum before anything else sees it; ``run`` (when given) must be the journal's."""
    out: list[_Entry] = []
    try:
        reader = pa.ipc.open_stream(pa.OSFile(str(path)))
    except (pa.ArrowException, OSError):  # every Arrow error type, for any damage
        return out, path.stat().st_size > 0, None  # killed before the schema was complete
    journal_run = _journal_run(path, reader.schema)
    if run is not None and journal_run != run:
        raise PartError(f"{path}: a journal of another run ({journal_run}; this run is {run}); {_RECOVER}")
    index = 0
    while True:
        try:
            batch, meta = reader.read_next_batch_with_custom_metadata()
        except StopIteration:
            return out, False, journal_run
        except (pa.ArrowException, OSError):
            # the batch being written when the run was killed (or damage past the last good
            # batch): dropped, so its chunks are played again
            return out, True, journal_run
        where = f"{path} (batch {index}"
        try:
            chunk = int(meta[b"chunk"])
            checksum = meta[b"sha256"].decode("ascii")
        except (TypeError, KeyError, ValueError, UnicodeDecodeError):
            raise PartError(f"{where}): names no chunk or checksum (damaged); {_RECOVER}") from None
        where += f", chunk {chunk})"
        try:
            batch.validate(full=True)
        except (pa.ArrowException, ValueError) as exc:
            raise PartError(f"{where}: damaged ({_short(exc)}); {_RECOVER}") from None
        if not batch.schema.equals(SCHEMA) or chunk < 0 or chunk_digest(journal_run, chunk, batch) != checksum:
            raise PartError(f"{where}: its rows do not match their checksum (damaged); {_RECOVER}")
        out.append(_Entry(chunk, batch, checksum))
        index += 1


def journal_chunks(out_dir: str | Path) -> set[int]:
    """Chunk ids in the open journal(s): finished chunks of a running or killed run."""
    return {e.chunk for _, p in _numbered(out_dir, _JOURNAL) for e in _journal_batches(p)[0]}


def recover(out_dir: str | Path, run: str) -> list[str]:
    """Repair a folder left by a killed run of ``run`` (see the module's docstring); returns what
    was done. A damaged journal, or one of another run, is refused (:class:`PartError`) before
    anything is written."""
    notes: list[str] = []
    journals: list[tuple[int, Path, list[_Entry] | None, bool]] = []
    for n, p in _numbered(out_dir, _JOURNAL):
        if segment_path(out_dir, n).exists():  # killed after the segment was closed
            journals.append((n, p, None, False))
            continue
        entries, torn, _ = _journal_batches(p, run)  # every batch verified before any is written
        journals.append((n, p, entries, torn))
    for _, p in _numbered(out_dir, _TORN):
        notes.append(f"{p.name}: an unfinished segment file of a killed run, deleted (its journal keeps its chunks)")
        p.unlink()
    for n, p, batches, torn in journals:
        if batches is None:
            p.unlink()
            continue
        if batches:
            writer = SegmentWriter(out_dir, run=run, first=n, journal=False)
            for e in batches:
                writer.add(e.chunk, pa.Table.from_batches([e.batch]), checksum=e.checksum)
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
    """Writes finished chunks of the run ``run`` (its identity) into segments (a context manager).

    ``add(chunk_id, table)`` appends the chunk and its checksum to the journal (unless
    ``journal=False``) and as one row group to the open segment; ``close()`` closes the open
    segment cleanly. Numbers segments from ``first`` (see :func:`next_segment`).
    """

    def __init__(
        self,
        out_dir: str | Path,
        *,
        run: str,
        first: int = 0,
        rows_per_segment: int | None = None,
        journal: bool = True,
        on_close: Callable[[Segment], None] | None = None,
    ) -> None:
        if not isinstance(run, str) or not run:
            raise ValueError(f"run: expected the run's identity (a non-empty string), got {run!r}")
        self.out = Path(out_dir)
        self.run = run
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
        self._sums: list[str] = []

    def _open(self) -> None:
        self._n, self.next = self.next, self.next + 1
        (self.out / PARTS).mkdir(parents=True, exist_ok=True)
        if self.journal:
            self._sink = pa.OSFile(str(_journal_path(self.out, self._n)), "wb")
            schema = SCHEMA.with_metadata({**(SCHEMA.metadata or {}), RUN_KEY.encode(): self.run.encode()})
            self._ipc = pa.ipc.new_stream(self._sink, schema)
        # no column statistics: segments are read by row group, and statistics cost ~20 KB of
        # writer memory per row group (a segment holds thousands)
        self._pq = pq.ParquetWriter(str(_tmp_path(self.out, self._n)), SCHEMA, write_statistics=False)
        self._chunks, self._rows, self._sums = [], [], []

    def add(self, chunk_id: int, table: pa.Table, *, checksum: str | None = None) -> None:
        """Store one finished chunk (its rows in (hand, seat) order). ``checksum`` is the chunk's
        :func:`chunk_digest` when already known (a journal's, checked before)."""
        with _held_interrupt():
            self._add(chunk_id, table, checksum)

    def _add(self, chunk_id: int, table: pa.Table, checksum: str | None) -> None:
        if self._pq is None:
            self._open()
        assert self._pq is not None
        table = table.combine_chunks()
        batches = table.to_batches() or [pa.RecordBatch.from_pylist([], schema=SCHEMA)]
        if checksum is None:
            checksum = chunk_digest(self.run, chunk_id, table)
        if self._ipc is not None:
            # the journal first: once the batch is written a killed process keeps the chunk
            (batch,) = batches  # combine_chunks: one batch
            self._ipc.write_batch(batch, custom_metadata={"chunk": str(chunk_id), "sha256": checksum})
            self._sink.flush()
        self._pq.write_table(table, row_group_size=max(1, table.num_rows))
        self._chunks.append(chunk_id)
        self._rows.append(table.num_rows)
        self._sums.append(checksum)
        if sum(self._rows) >= self.rows_per_segment or len(self._chunks) >= SEGMENT_CHUNKS:
            self._close_segment()

    def close_segment(self) -> None:
        """Close the open segment: footer with its run, chunk ids and checksums, sync, rename,
        drop the journal."""
        with _held_interrupt():
            self._close_segment()

    def _close_segment(self) -> None:
        if self._pq is None:
            return
        writer, self._pq = self._pq, None
        writer.add_key_value_metadata(
            {CHUNKS_KEY: json.dumps(self._chunks), CHECKSUMS_KEY: json.dumps(self._sums), RUN_KEY: self.run}
        )
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
            self.on_close(Segment(final, tuple(self._chunks), tuple(self._rows), tuple(self._sums), self.run))

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
        raise PartError(f"{where}: no rows, but {chunk}; {_RECOVER}")
    if set(hands) != {g.index for g in games}:
        shown = f"{hands[0]}-{hands[-1]}" if len(hands) > 1 else str(hands[0])
        raise PartError(f"{where}: holds hands {shown} ({len(hands)} distinct), but {chunk}; {_RECOVER}")
    rows = list(zip(*(have[k].tolist() for k in _KEYS), strict=True))
    wanted = set(zip(*(want[k].tolist() for k in _KEYS), strict=True))
    if len(rows) != len(set(rows)) or len(rows) != len(wanted):
        raise PartError(
            f"{where}: {len(rows)} rows for {len(games)} hands: a (hand, seat) row is repeated or missing; {_RECOVER}"
        )
    wrong = min(set(rows) - wanted)
    raise PartError(
        f"{where}: hand {wrong[0]} seat {wrong[2]} has wall seed {wrong[1]} and entry {wrong[3]}, "
        f"which are not this tournament's; {_RECOVER}"
    )


def _verified_row_group(f: pq.ParquetFile, seg: Segment, rg: int) -> pa.Table:
    """Row group ``rg`` of ``seg`` after checking it against its checksum."""
    where = f"{seg.path} (row group {rg}, chunk {seg.chunks[rg]})"
    try:
        table = f.read_row_group(rg)
        table.validate(full=True)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a damaged file
        raise PartError(f"{where}: not readable ({_short(exc)}); {_RECOVER}") from None
    if not table.schema.equals(SCHEMA):  # a damaged footer can change a column's name or type
        raise PartError(f"{where}: its columns are not the results table's (damaged); {_RECOVER}")
    if table.num_rows != seg.rows[rg] or chunk_digest(seg.run, seg.chunks[rg], table) != seg.checksums[rg]:
        raise PartError(f"{where}: its rows do not match their checksum (damaged); {_RECOVER}")
    return table


def _open_segment(seg: Segment) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(seg.path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a damaged file
        raise PartError(f"{seg.path}: not a readable results segment ({_short(exc)}); {_RECOVER}") from None


def _check_hands(where: str, table: pa.Table, games_of: Callable[[int], Sequence[Game]], chunk: int) -> None:
    """The rows of ``table`` must be exactly the hands of chunk ``chunk`` (``games_of(chunk)``;
    ``IndexError``: no such chunk)."""
    try:
        games = games_of(chunk)
    except IndexError:
        raise PartError(f"{where}: this tournament has no chunk {chunk}; {_RECOVER}") from None
    _check_chunk(where, {k: table.column(k).to_numpy() for k in _KEYS}, games)


def _of_run(seg: Segment, run: str) -> None:
    if seg.run != run:
        raise PartError(
            f"{seg.path}: a segment of another run ({seg.run}; this run is {run}: another tournament, "
            f"or another variant of the study); {_RECOVER}"
        )


def verified_chunks(
    out_dir: str | Path, run: str, games_of: Callable[[int], Sequence[Game]]
) -> Iterator[tuple[int, pa.Table]]:
    """Every chunk stored in ``out_dir`` by the run ``run`` (closed segments, then the finished
    chunks of an open journal), each checked before it is given: its file is a regular file,
    its run is ``run``, its rows match their checksum and are exactly the hands of its chunk,
    and no chunk is stored twice. ``--resume`` (after :func:`recover`) and the report of an
    unfinished run read through this one reader; it changes nothing in the folder, so it may
    read a folder a run is writing (a journal left beside its closed segment, by a kill between
    the two steps of closing it, is passed over: the segment holds its chunks). Raises
    :class:`PartError` naming the file, the row group (or journal batch) and the chunk."""
    seen: dict[int, Path] = {}

    def once(chunk: int, path: Path) -> None:
        if chunk in seen:
            raise PartError(
                f"{path}: chunk {chunk} is stored twice (also in {seen[chunk]}); delete one of the two files "
                "and --resume"
            )
        seen[chunk] = path

    _numbered(out_dir, _TORN)  # not read (the open segment's file), but checked by type like the rest
    closed = set()
    for n, path in _numbered(out_dir, _SEGMENT):
        closed.add(n)
        seg = _read_segment(path)
        _of_run(seg, run)
        f = _open_segment(seg)
        try:
            for rg, chunk in enumerate(seg.chunks):
                once(chunk, path)
                table = _verified_row_group(f, seg, rg)
                _check_hands(f"{path} (row group {rg}, chunk {chunk})", table, games_of, chunk)
                yield chunk, table
        finally:
            f.close()
    for n, path in _numbered(out_dir, _JOURNAL):
        if n in closed:
            continue
        for e in _journal_batches(path, run)[0]:
            once(e.chunk, path)
            table = pa.Table.from_batches([e.batch], schema=SCHEMA)
            _check_hands(f"{path} (chunk {e.chunk})", table, games_of, e.chunk)
            yield e.chunk, table


def _chunk_tables(out_dir: str | Path, chunk_ids: Iterable[int], run: str) -> Iterator[tuple[int, pa.Table, str]]:
    """The stored chunks of the run ``run`` in the order of ``chunk_ids``, each checked against
    its checksum, with its id and checksum. A segment's file is open only from its first chunk
    read to its last: an open file holds its footer (some kilobytes per row group, thousands of
    row groups), so keeping every segment open would grow with the run."""
    where = stored_chunks(out_dir)
    ids = list(chunk_ids)
    last = {where[c][0].path: i for i, c in enumerate(ids)}
    files: dict[Path, pq.ParquetFile] = {}
    try:
        for i, c in enumerate(ids):
            seg, rg = where[c]
            f = files.get(seg.path)
            if f is None:
                _of_run(seg, run)
                f = files[seg.path] = _open_segment(seg)
            yield c, _verified_row_group(f, seg, rg), seg.checksums[rg]
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


def write_final(out_dir: str | Path, path: Path, chunk_ids: Iterable[int], *, run: str, csv: Path | None = None) -> int:
    """Write the stored ``chunk_ids`` of the run ``run`` (consecutive chunks in hand order) to
    ``path`` (Parquet, atomically) and ``csv``, sorted by (hand, seat), one batch at a time,
    every chunk checked against its checksum. The Parquet footer names the run and, per chunk
    in order, its id, rows and checksum (the checksums the run stored), so that a reader can
    verify the file (:func:`verify_final`). Returns the rows."""
    tmp = path.with_name(f".{path.name}.tmp")
    rows = 0
    writer = pq.ParquetWriter(str(tmp), SCHEMA)
    csv_tmp = csv.with_name(f".{csv.name}.tmp") if csv is not None else None
    csv_file = open(csv_tmp, "w", encoding="utf-8", newline="") if csv_tmp is not None else None  # noqa: SIM115
    ids: list[int] = []
    counts: list[int] = []
    sums: list[str] = []

    def noted() -> Iterator[pa.Table]:
        for chunk, table, checksum in _chunk_tables(out_dir, chunk_ids, run):
            ids.append(chunk)
            counts.append(table.num_rows)
            sums.append(checksum)
            yield table

    try:
        for batch in _batches(noted(), FINAL_ROW_GROUP):
            writer.write_table(batch, row_group_size=batch.num_rows)
            if csv_file is not None:
                batch.to_pandas().to_csv(csv_file, header=rows == 0, index=False)
            rows += batch.num_rows
        writer.add_key_value_metadata(
            {RUN_KEY: run, CHUNKS_KEY: json.dumps(ids), ROWS_KEY: json.dumps(counts), CHECKSUMS_KEY: json.dumps(sums)}
        )
    finally:
        writer.close()
        if csv_file is not None:
            csv_file.close()
    if rows == 0 and csv_file is not None:  # an empty table still has its header
        from xuezhan.tournament.schema import rows_to_frame

        rows_to_frame([]).to_csv(csv_tmp, index=False)
    os.replace(tmp, path)
    if csv is not None and csv_tmp is not None:
        os.replace(csv_tmp, csv)
    return rows


@dataclass(frozen=True)
class FinalFooter:
    """What a final ``results.parquet`` says of itself: its run and, per chunk in order, the
    chunk's id, rows and checksum."""

    path: Path
    run: str
    chunks: tuple[int, ...]
    rows: tuple[int, ...]
    checksums: tuple[str, ...]


_REWRITE = "rewrite it from the run's stored chunks with --resume (xuezhan tournament FILE --output OUT --resume)"


def final_footer(path: Path) -> FinalFooter:
    """The footer of the final table ``path`` (:class:`PartError` naming the file when it is
    not a regular file, not Parquet, or has no checksums: written by another program, or by a
    xuezhan before checksums)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise PartError(f"{path}: cannot read the results table ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise PartError(f"{path}: {_kind(st.st_mode)}, not a results table; remove it and {_REWRITE}")
    try:
        meta = pq.read_metadata(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a damaged file
        raise PartError(f"{path}: not a readable results table ({_short(exc)}); {_REWRITE}") from None
    kv = meta.metadata or {}
    chunks, rows, sums = (_footer_list(kv, k) for k in (CHUNKS_KEY, ROWS_KEY, CHECKSUMS_KEY))
    run = kv.get(RUN_KEY.encode(), b"").decode("utf-8", "replace")
    if (
        chunks is None
        or rows is None
        or sums is None
        or not run
        or not len(chunks) == len(rows) == len(sums)
        or not all(type(c) is int and c >= 0 for c in chunks)
        or not all(type(r) is int and r >= 0 for r in rows)
        or not all(isinstance(c, str) and _DIGEST.fullmatch(c) for c in sums)
    ):
        raise PartError(
            f"{path}: the table does not carry the run's checksums (written by another program, damaged, or by "
            f"an older xuezhan), so it cannot be checked; {_REWRITE}"
        )
    return FinalFooter(path, run, tuple(chunks), tuple(rows), tuple(sums))


def verify_final(footer: FinalFooter) -> None:
    """Read the final table through and check every chunk's rows against its checksum, one
    Parquet batch and one chunk at a time (bounded memory); :class:`PartError` naming the file
    and the first chunk that differs."""
    path = footer.path
    try:
        f = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001
        raise PartError(f"{path}: not a readable results table ({_short(exc)}); {_REWRITE}") from None
    try:
        if f.schema_arrow.names != SCHEMA.names or f.schema_arrow.types != SCHEMA.types:
            raise PartError(f"{path}: its columns are not the results table's (damaged); {_REWRITE}")
        batches = f.iter_batches(batch_size=FINAL_ROW_GROUP)
        held: list[pa.RecordBatch] = []
        have = 0
        for chunk, rows, checksum in zip(footer.chunks, footer.rows, footer.checksums, strict=True):
            where = f"{path} (chunk {chunk})"
            try:
                while have < rows:
                    batch = next(batches)
                    batch.validate(full=True)
                    held.append(batch)
                    have += batch.num_rows
                table = pa.Table.from_batches(held, schema=SCHEMA)
            except StopIteration:
                raise PartError(f"{where}: the table ends before its chunks do (rows lost); {_REWRITE}") from None
            except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a damaged file
                raise PartError(f"{where}: not readable ({_short(exc)}); {_REWRITE}") from None
            # a copy in fresh buffers: the slice keeps the batches' (see chunk_digest)
            rows_of_chunk = pa.concat_tables([table.slice(0, rows), SCHEMA.empty_table()]).combine_chunks()
            if chunk_digest(footer.run, chunk, rows_of_chunk) != checksum:
                raise PartError(f"{where}: its rows do not match their checksum (damaged or changed); {_REWRITE}")
            rest = table.slice(rows)
            held, have = rest.to_batches(), rest.num_rows
        try:
            extra = have + sum(b.num_rows for b in batches)
        except Exception as exc:  # noqa: BLE001
            raise PartError(f"{path}: not readable past its last chunk ({_short(exc)}); {_REWRITE}") from None
        if extra:
            raise PartError(f"{path}: {extra} rows past its last chunk (damaged or changed); {_REWRITE}")
    finally:
        f.close()


def read_stored(
    out_dir: str | Path,
    run: str,
    games_of: Callable[[int], Sequence[Game]],
    columns: Sequence[str] | None = None,
) -> pa.Table:
    """Every chunk the run ``run`` stored so far (:func:`verified_chunks`: each checked before
    it is used), sorted by (hand, seat): the results of an unfinished run."""
    tables = [t.select(list(columns)) if columns else t for _, t in verified_chunks(out_dir, run, games_of)]
    if not tables:
        t = SCHEMA.empty_table()
        return t.select(list(columns)) if columns else t
    table = pa.concat_tables(tables)
    if "hand" in table.column_names and "seat" in table.column_names:
        table = table.sort_by([("hand", "ascending"), ("seat", "ascending")])
    return table
