"""How a run's results reach the disk: streamed chunk by chunk into a few Parquet segments,
a bounded main process, and a folder left by ``kill -9`` repaired by ``--resume`` (R1.4: every
stored hand is checked against its wall seed before it is trusted)."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa

from xuezhan.tournament import TournamentConfig, executors, load_results, run
from xuezhan.tournament.options import RunOptions
from xuezhan.tournament.play import HandRunner
from xuezhan.tournament.results import done_chunks, read_parts, rows_to_table, table_to_frame
from xuezhan.tournament.scheduling import chunk_games, chunks, game
from xuezhan.tournament.store import SegmentWriter, recover, segments, stored_chunks

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from xuezhan.cli import main; main()"]


def cfg(**kw) -> TournamentConfig:
    base = dict(strategies=["random", "greedy", "random", "greedy"], hands=48, seed=7, workers=1, chunk=4)
    base.update(kw)
    return TournamentConfig(**base)


def reference(c: TournamentConfig) -> pd.DataFrame:
    """The table played hand by hand, without executors, store or driver."""
    rows = []
    with HandRunner(c) as runner:
        for i in range(c.n_games):
            rows.extend(runner.play(game(c, i)))
    return table_to_frame(rows_to_table(rows))


def test_final_table_is_the_hands_played_directly_in_few_files(tmp_path):
    c = cfg(hands=64, workers=2)
    df = run(c, output=tmp_path / "o", progress=False, csv=True)
    pd.testing.assert_frame_equal(df, reference(c))
    pd.testing.assert_frame_equal(load_results(tmp_path / "o" / "results.csv"), df)
    # 16 chunks, one segment holding a row group per chunk, its footer naming them
    segs = segments(tmp_path / "o")
    assert len(segs) == 1 and sorted(segs[0].chunks) == list(range(16)) and set(segs[0].rows) == {16}
    names = sorted(p.name for p in (tmp_path / "o" / "parts").iterdir())
    assert names == ["seg-000000.parquet"]


def test_segments_roll_at_their_row_limit_and_keep_every_chunk(tmp_path, monkeypatch):
    monkeypatch.setattr("xuezhan.tournament.store.SEGMENT_ROWS", 40)  # 10 hands: every 3 chunks
    c = cfg(hands=40)
    df = run(c, output=tmp_path / "o", progress=False)
    segs = segments(tmp_path / "o")
    assert [len(s.chunks) for s in segs] == [3, 3, 3, 1]
    assert sorted(stored_chunks(tmp_path / "o")) == list(range(10))
    pd.testing.assert_frame_equal(df, reference(c))


def test_the_driver_keeps_no_chunk_tables(tmp_path, monkeypatch):
    """Main-process memory does not grow with hands: chunks are stored and dropped."""
    c = cfg(hands=400, chunk=2)
    one = reference(cfg(hands=2, chunk=2))
    table = rows_to_table(one.head(8).to_dict("records"))

    def fake_execute(config, pending, *, on_chunk):
        # the chunks' contents do not matter here; the tables live only while being stored
        alive = []
        for chunk_id in pending:
            hands = chunk_games(config, chunk_id)
            t = table.set_column(0, "hand", pa.array([h for h in hands for _ in range(4)], pa.int64()))
            on_chunk(chunk_id, t)
            del t
            if chunk_id % 20 == 0:
                gc.collect()
                alive.append(sum(isinstance(o, pa.Table) for o in gc.get_objects()))
        fake_execute.alive = alive

    monkeypatch.setattr(executors, "execute", fake_execute)
    from xuezhan.tournament import driver

    monkeypatch.setattr(driver, "executor_for", lambda name, address=None: fake_execute)
    driver._execute(c, tmp_path / "o", set(), RunOptions(progress=False), None)
    alive = fake_execute.alive
    assert len(alive) == len(chunks(c)) // 20 == 10
    assert max(alive) <= alive[0] + 2, alive  # bounded, not growing with chunks
    assert len(stored_chunks(tmp_path / "o")) == 200 and len(segments(tmp_path / "o")) == 1


def test_a_torn_journal_keeps_its_finished_chunks_and_replays_the_torn_one(tmp_path):
    """kill -9 while a chunk was being written: what is whole is kept, the rest played again."""
    c = cfg(hands=24)
    full = run(c, output=tmp_path / "full", progress=False)
    out = tmp_path / "o"
    run(c, output=out, progress=False)  # for the manifest
    (out / "results.parquet").unlink()
    for s in segments(out):
        s.path.unlink()
    # the state a killed run leaves: a journal whose last batch is cut, a footer-less segment
    w = SegmentWriter(out, run=c.identity(), first=0)
    for cid in (0, 2, 1, 3):
        t = rows_to_table(full[full["hand"].isin(list(chunk_games(c, cid)))].to_dict("records"))
        w.add(cid, t)
    w._sink.flush()
    journal, torn = out / "parts" / "seg-000000.journal", out / "parts" / ".seg-000000.parquet.tmp"
    data = journal.read_bytes()
    journal.write_bytes(data[:-100])  # the last chunk (3) was being written
    assert torn.exists() and torn.read_bytes()[-4:] != b"PAR1"  # no footer: unreadable as Parquet
    assert done_chunks(out) == {0, 1, 2}
    assert sorted(read_parts(out)["hand"].unique()) == list(range(12))  # an interrupted run's report
    resumed = run(c, output=out, resume=True, progress=False)
    pd.testing.assert_frame_equal(full, resumed)
    assert sorted(p.name for p in (out / "parts").iterdir()) == ["seg-000000.parquet", "seg-000001.parquet"]
    assert list(segments(out)[0].chunks) == [0, 2, 1]  # kept as written; chunk 3 replayed once


def test_a_journal_beside_its_closed_segment_is_not_counted_twice(tmp_path):
    c = cfg(hands=8)
    out = tmp_path / "o"
    run(c, output=out, progress=False)
    seg = segments(out)[0]
    # killed after the rename, before the journal was deleted
    w = SegmentWriter(out, run=c.identity(), first=0)
    w.add(0, rows_to_table(reference(c).head(16).to_dict("records")))
    w._sink.flush()
    notes = recover(out, c.identity())
    assert notes == [
        ".seg-000000.parquet.tmp: an unfinished segment file of a killed run, deleted (its journal keeps its chunks)"
    ]
    assert [s.chunks for s in segments(out)] == [seg.chunks]
    assert not (out / "parts" / "seg-000000.journal").exists()


def test_kill_9_of_the_main_process_then_resume_gives_the_uninterrupted_table(tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text(
        "hands = 160\nseed = 5\nchunk = 4\nworkers = 2\n"
        'strategies = ["_slow_strategies:SlowGreedy", "greedy", "random", "greedy"]\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]))
    cmd = [*CLI, "tournament", str(toml), "--output", str(out), "--no-report"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**env, "XUEZHAN_TEST_SLEEP": "0.01"}
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and len(done_chunks(out)) < 3:
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    kept = done_chunks(out)
    assert len(kept) >= 3 and (out / "parts" / "seg-000000.journal").exists()
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    assert "journal of a killed run" in done.stderr and "finished chunk(s) kept" in done.stderr
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from xuezhan.tournament import load_config

        ref = run(load_config(toml), progress=False, workers=1)
    finally:
        sys.path.remove(str(ROOT / "tests"))
    pd.testing.assert_frame_equal(ref, load_results(out))
    assert len(segments(out)) <= 2
