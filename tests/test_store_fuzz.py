"""Corruption fuzz over a killed run's output folder: for any damage to its segments, journal or
manifest, ``--resume`` gives exactly the rows of an uninterrupted run or one clear error naming
what is wrong; never other rows, never a crash (xuezhan.tournament.store, .folder).

The folder is the state a ``kill -9`` leaves: a closed segment (chunks 0-3), the open
segment's journal (chunks 4-6) and its footer-less Parquet file, the manifest. Each trial
damages one file of a copy of it: a flipped bit, a truncation, the same file from another run
(another variant of a study: the same walls and seats, other rules), or one chunk taken from
that run into this run's segment or journal with its own checksum.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from xuezhan.tournament import TournamentConfig, load_results, run
from xuezhan.tournament.driver import play
from xuezhan.tournament.errors import RunRefused
from xuezhan.tournament.results import rows_to_table
from xuezhan.tournament.scheduling import chunk_games
from xuezhan.tournament.store import PartError, SegmentWriter, chunk_digest

LINE_UP = ["random", "greedy", "random", "greedy"]
SEGMENT = "parts/seg-000000.parquet"
JOURNAL = "parts/seg-000001.journal"
MANIFEST = "manifest.json"


def config(max_fan: int = 4) -> TournamentConfig:
    return TournamentConfig(strategies=LINE_UP, hands=32, seed=11, chunk=4, workers=1, rules={"max_fan": max_fan})


@dataclass
class Killed:
    """A killed run's folder (template), the uninterrupted run's table and its chunk tables."""

    folder: Path
    reference: pd.DataFrame
    tables: dict[int, object]


def _killed(root: Path, c: TournamentConfig) -> Killed:
    """The folder a run of ``c`` killed while writing chunk 7 leaves behind."""
    ref_dir = root / f"ref-{c.identity()}"
    reference = run(c, output=ref_dir, progress=False)
    tables = {
        cid: rows_to_table(reference[reference["hand"].isin(list(chunk_games(c, cid)))].to_dict("records"))
        for cid in range(8)
    }
    out = root / f"killed-{c.identity()}"
    out.mkdir()
    shutil.copy(ref_dir / MANIFEST, out / MANIFEST)
    w = SegmentWriter(out, run=c.identity(), first=0)
    for cid in range(4):
        w.add(cid, tables[cid])
    w.close_segment()
    for cid in (4, 6, 5):
        w.add(cid, tables[cid])
    w._sink.flush()
    template = root / f"template-{c.identity()}"
    shutil.copytree(out, template)  # as the kill left it: the writer never closed
    return Killed(template, reference, tables)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Killed, Killed]:
    root = tmp_path_factory.mktemp("fuzz")
    return _killed(root, config(4)), _killed(root, config(5))


def _foreign_chunk(out: Path, rel: str, ours: Killed, theirs: Killed, chunk: int) -> None:
    """Rewrite this run's segment or journal with ``chunk`` replaced by the other run's rows and
    checksum (a chunk copied across runs)."""
    c, other = config(4), config(5)
    target = out / rel
    target.unlink()
    for p in (out / "parts").glob(".seg-*.tmp"):
        p.unlink()
    ids = [0, 1, 2, 3] if rel == SEGMENT else [4, 6, 5]
    w = SegmentWriter(out, run=c.identity(), first=0 if rel == SEGMENT else 1)
    for cid in ids:
        if cid == chunk:
            t = theirs.tables[cid]
            w.add(cid, t, checksum=chunk_digest(other.identity(), cid, t))
        else:
            w.add(cid, ours.tables[cid])
    if rel == SEGMENT:
        w.close_segment()
    else:
        w._sink.flush()
        shutil.copy(out / rel, out / "journal.keep")
        w._ipc = w._sink = w._pq = None  # as if killed: no clean close
        shutil.move(out / "journal.keep", out / rel)


def _damage(rng: random.Random, out: Path, rel: str, how: str, ours: Killed, theirs: Killed) -> None:
    p = out / rel
    data = p.read_bytes()
    if how == "flip":
        i = rng.randrange(len(data))
        p.write_bytes(data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :])
    elif how == "truncate":
        p.write_bytes(data[: rng.randrange(len(data))])
    elif how == "other run":
        shutil.copy(theirs.folder / rel, p)
    elif how == "chunk of another run":
        _foreign_chunk(out, rel, ours, theirs, rng.choice([0, 1, 2, 3] if rel == SEGMENT else [4, 5, 6]))
    else:
        raise AssertionError(how)


def _resume_is_exact_or_one_error(out: Path, reference: pd.DataFrame, rel: str) -> str:
    """``--resume`` of ``out``: the uninterrupted rows, or one clear error naming ``rel``'s file."""
    try:
        play(config(4), output=out, resume=True, progress=False)
    except RunRefused as exc:
        message = str(exc)
        assert "\n" not in message and Path(rel).name in message, message
        assert "--overwrite" in message or "--resume" in message, message  # says how to recover
        return "error"
    pd.testing.assert_frame_equal(load_results(out), reference)
    return "same rows"


CASES = [(rel, how) for rel in (SEGMENT, JOURNAL, MANIFEST) for how in ("flip", "truncate", "other run")] + [
    (SEGMENT, "chunk of another run"),
    (JOURNAL, "chunk of another run"),
]


@pytest.mark.parametrize(("rel", "how"), CASES, ids=[f"{r.split('/')[-1]}-{h.replace(' ', '-')}" for r, h in CASES])
def test_damage_to_a_killed_run_gives_the_uninterrupted_rows_or_one_error(runs, tmp_path, rel, how):
    ours, theirs = runs
    trials = {"flip": 24, "truncate": 8}.get(how, 3)
    rng = random.Random(f"{rel}/{how}")
    outcomes = []
    for t in range(trials):
        out = tmp_path / f"t{t}"
        shutil.copytree(ours.folder, out)
        _damage(rng, out, rel, how, ours, theirs)
        outcomes.append(_resume_is_exact_or_one_error(out, ours.reference, rel))
    if how in ("other run", "chunk of another run") and rel != MANIFEST:
        assert set(outcomes) == {"error"}, outcomes  # never accepted as this run's rows


def test_an_undamaged_killed_run_resumes_to_the_uninterrupted_rows(runs, tmp_path):
    ours, _ = runs
    out = tmp_path / "o"
    shutil.copytree(ours.folder, out)
    assert _resume_is_exact_or_one_error(out, ours.reference, SEGMENT) == "same rows"


def test_every_single_bit_flip_in_a_closed_segments_data_is_caught(runs, tmp_path):
    """The case that once changed a hand's fan from 0 to 2: flips in the column data (not the
    footer) of a closed segment; the rows read back are either the same or refused."""
    ours, _ = runs
    size = (ours.folder / SEGMENT).stat().st_size
    footer = pq.read_metadata(ours.folder / SEGMENT).serialized_size + 8
    rng = random.Random(7)
    outcomes = []
    for t in range(16):
        out = tmp_path / f"t{t}"
        shutil.copytree(ours.folder, out)
        p = out / SEGMENT
        data = bytearray(p.read_bytes())
        i = rng.randrange(4, size - footer)
        data[i] ^= 1 << rng.randrange(8)
        p.write_bytes(bytes(data))
        outcomes.append(_resume_is_exact_or_one_error(out, ours.reference, SEGMENT))
    assert "error" in outcomes


def test_each_byte_of_a_journal_flipped_gives_its_first_chunks_or_one_error(runs, tmp_path):
    """Reading a killed run's journal (before anything is written from it), for a flipped bit in
    each of its first 1,024 bytes (schema, first batch) and in every 24th byte after: the batches
    read are the first ones written, unchanged (the rest is played again), or one error naming
    the journal. Never another chunk, never other rows, never a crash."""
    from xuezhan.tournament.store import _journal_batches

    ours, _ = runs
    run_id = config(4).identity()
    clean, torn, _ = _journal_batches(ours.folder / JOURNAL, run_id)
    assert [e.chunk for e in clean] == [4, 6, 5] and not torn
    data = (ours.folder / JOURNAL).read_bytes()
    p = tmp_path / "seg-000001.journal"
    outcomes = {"prefix": 0, "error": 0}
    for i in [*range(min(len(data), 1024)), *range(1024, len(data), 24)]:
        flipped = bytearray(data)
        flipped[i] ^= 1 << (i % 8)
        p.write_bytes(bytes(flipped))
        try:
            entries, _, _ = _journal_batches(p, run_id)
        except PartError as exc:
            assert str(p) in str(exc) and "\n" not in str(exc)
            outcomes["error"] += 1
            continue
        got = [(e.chunk, e.checksum, e.batch.to_pylist()) for e in entries]
        want = [(e.chunk, e.checksum, e.batch.to_pylist()) for e in clean[: len(entries)]]
        assert got == want, i
        outcomes["prefix"] += 1
    assert outcomes["prefix"] and outcomes["error"], outcomes


def test_each_byte_of_a_closed_segment_flipped_gives_its_rows_or_one_error(runs, tmp_path):
    """Reading a closed segment back as ``--resume`` and the final merge do, for a flipped bit in
    every 8th byte (data pages, page headers, footer): the row groups read are the ones written,
    or one error naming the segment."""
    from xuezhan.tournament.store import _open_segment, _read_segment, _verified_row_group

    ours, _ = runs
    data = (ours.folder / SEGMENT).read_bytes()
    p = tmp_path / "seg-000000.parquet"
    clean = [ours.tables[c] for c in range(4)]
    outcomes = {"same": 0, "error": 0}
    for i in range(0, len(data), 8):
        flipped = bytearray(data)
        flipped[i] ^= 1 << (i % 8)
        p.write_bytes(bytes(flipped))
        try:
            seg = _read_segment(p)
            f = _open_segment(seg)
            try:
                tables = [_verified_row_group(f, seg, rg) for rg in range(len(seg.chunks))]
            finally:
                f.close()
        except PartError as exc:
            assert str(p) in str(exc) and "\n" not in str(exc)
            outcomes["error"] += 1
            continue
        assert seg.chunks == (0, 1, 2, 3) and all(t.equals(c) for t, c in zip(tables, clean, strict=True)), i
        outcomes["same"] += 1
    assert outcomes["same"] and outcomes["error"], outcomes
