"""``xuezhan report`` (and :func:`load_results`) verify what they read: a finished run's
``results.parquet`` against the checksums the run stored, its run identity and hand count
against the manifest; an unfinished run's stored chunks through the same verified reader as
``--resume`` (every chunk's checksum, its run, its hands, no chunk twice); special files (FIFOs,
folders where files belong and the reverse) refused by type before anything is read. Each case
is the run's true table, or one error naming the file and exit 2; never other numbers, never a
hang."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from _cli_helpers import cli, one_error

from xuezhan.tournament.driver import play
from xuezhan.tournament.results import load_results

TOURNAMENT = {
    "name": "t",
    "hands": 24,
    "seed": 5,
    "chunk": 4,
    "workers": 1,
    "strategies": ["random", "greedy", "random", "greedy"],
}
#: Seconds a command may take before the test calls it a hang.
HANG = 60


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Two finished runs of the same line-up (seeds 5 and 6), kept pristine: tests copy them."""
    base = tmp_path_factory.mktemp("runs")
    out = {}
    for name, seed in (("a", 5), ("b", 6)):
        play({**TOURNAMENT, "seed": seed}, output=base / name, progress=False)
        out[name] = base / name
    return out


@pytest.fixture()
def run_a(runs, tmp_path) -> Path:
    dst = tmp_path / "a"
    shutil.copytree(runs["a"], dst)
    return dst


def in_process_of_its_own(*args: str) -> subprocess.CompletedProcess[str]:
    """``xuezhan ARGS`` in a subprocess, killed (and the test failed) after :data:`HANG` seconds."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "xuezhan", *args], capture_output=True, text=True, timeout=HANG, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"xuezhan {' '.join(args)} hangs (more than {HANG} s)")


def _data_ranges(path: Path) -> list[tuple[int, int]]:
    """The byte ranges of the column chunks' pages in a Parquet file (not its footer)."""
    meta = pq.read_metadata(path)
    out = []
    for rg in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            col = meta.row_group(rg).column(c)
            start = min(x for x in (col.dictionary_page_offset, col.data_page_offset) if x is not None and x > 0)
            out.append((start, start + col.total_compressed_size))
    return out


# ----------------------------------------------------------------------------- a finished run


def test_a_finished_run_reads_back_as_the_table_it_played(run_a):
    df = load_results(run_a)
    assert len(df) == 4 * TOURNAMENT["hands"] and df["hand"].nunique() == TOURNAMENT["hands"]
    assert df.equals(load_results(run_a / "results.parquet"))


def test_a_flipped_bit_in_results_parquet_gives_the_true_table_or_one_error_naming_it(runs, run_a):
    """Bits flipped across the pages of every column: each read is the run's table unchanged
    (a bit no value depends on) or an error naming the file; never other numbers."""
    final = run_a / "results.parquet"
    good = final.read_bytes()
    truth = load_results(runs["a"])
    positions = [p for start, end in _data_ranges(final) for p in range(start, end, 7)]
    refused = 0
    for k, pos in enumerate(positions):
        data = bytearray(good)
        data[pos] ^= 1 << (k % 8)
        final.write_bytes(bytes(data))
        try:
            df = load_results(run_a)
        except ValueError as exc:
            assert "results.parquet" in str(exc), str(exc)
            refused += 1
            continue
        pd.testing.assert_frame_equal(df, truth, obj=f"the table with byte {pos} flipped")
    assert refused > len(positions) // 2
    final.write_bytes(good)


def test_report_of_a_flipped_bit_in_results_parquet_is_one_error_exit_2(run_a):
    final = run_a / "results.parquet"
    data = bytearray(final.read_bytes())
    meta = pq.read_metadata(final)
    delta = meta.row_group(0).column(meta.schema.to_arrow_schema().get_field_index("delta"))
    end = delta.data_page_offset + delta.total_compressed_size
    data[end - 2] ^= 0x04  # a bit of the last deltas' values
    final.write_bytes(bytes(data))
    one_error(cli("report", str(run_a), "--no-plots"), 2, "results.parquet")


def test_a_rewritten_valid_results_table_is_refused(run_a):
    """A valid table written by another program (one value changed) is not the run's."""
    final = run_a / "results.parquet"
    df = pd.read_parquet(final)
    df.loc[0, "delta"] += 1
    df.to_parquet(final, index=False)
    one_error(cli("report", str(run_a), "--no-plots"), 2, "results.parquet")


def test_a_results_table_rewritten_unchanged_by_another_program_is_refused(run_a):
    """Even the same rows, written without the run's checksums, are not trusted as the run's."""
    final = run_a / "results.parquet"
    pq.write_table(pq.read_table(final), final)
    one_error(cli("report", str(run_a), "--no-plots"), 2, "results.parquet", "--resume")


def test_another_runs_results_table_is_refused(runs, run_a):
    shutil.copy(runs["b"] / "results.parquet", run_a / "results.parquet")
    one_error(cli("report", str(run_a), "--no-plots"), 2, "results.parquet", "another run")


def test_a_results_table_with_its_last_hand_dropped_is_refused(run_a):
    final = run_a / "results.parquet"
    table = pq.read_table(final)
    meta = pq.read_metadata(final).metadata
    kept = table.slice(0, table.num_rows - 4)  # the last hand's four rows
    pq.write_table(kept.replace_schema_metadata({**(table.schema.metadata or {}), **meta}), final)
    one_error(cli("report", str(run_a), "--no-plots"), 2, "results.parquet")


def test_results_parquet_as_a_folder_or_a_fifo_is_refused_by_type_without_a_hang(run_a):
    final = run_a / "results.parquet"
    final.unlink()
    final.mkdir()
    one_error(cli("report", str(run_a), "--no-plots"), 2, "results.parquet", "folder")
    final.rmdir()
    os.mkfifo(final)
    r = in_process_of_its_own("report", str(run_a), "--no-plots")
    assert r.returncode == 2 and "results.parquet" in r.stderr and "Traceback" not in r.stderr, r.stderr


# ----------------------------------------------------------------------------- an unfinished run


def _unfinished(folder: Path) -> Path:
    (folder / "results.parquet").unlink()
    return folder


def test_an_unfinished_run_reads_back_as_the_hands_it_stored(runs, run_a):
    assert load_results(_unfinished(run_a)).equals(load_results(runs["a"]))


def test_an_unfinished_runs_duplicated_segment_is_refused(run_a):
    parts = _unfinished(run_a) / "parts"
    shutil.copy(parts / "seg-000000.parquet", parts / "seg-000001.parquet")
    one_error(cli("report", str(run_a), "--no-plots"), 2, "stored twice")


def test_an_unfinished_runs_segment_of_another_run_is_refused(runs, run_a):
    parts = _unfinished(run_a) / "parts"
    shutil.copy(runs["b"] / "parts" / "seg-000000.parquet", parts / "seg-000000.parquet")
    one_error(cli("report", str(run_a), "--no-plots"), 2, "seg-000000.parquet", "another run")


def test_an_unfinished_run_without_its_manifest_is_refused(run_a):
    (_unfinished(run_a) / "manifest.json").unlink()
    one_error(cli("report", str(run_a), "--no-plots"), 2, "manifest.json")


@pytest.mark.parametrize("name", ["seg-000007.parquet", "seg-000007.journal"])
def test_a_fifo_among_the_parts_is_refused_by_resume_and_report_without_a_hang(run_a, tmp_path, name):
    os.mkfifo(_unfinished(run_a) / "parts" / name)
    toml = tmp_path / "t.toml"
    toml.write_text(
        "\n".join(f"{k} = {v!r}" if not isinstance(v, list) else f"{k} = {v}" for k, v in TOURNAMENT.items()).replace(
            "'", '"'
        ),
        encoding="utf-8",
    )
    for args in (("report", str(run_a), "--no-plots"), ("tournament", str(toml), "-o", str(run_a), "--resume")):
        r = in_process_of_its_own(*args)
        assert r.returncode == 2 and name in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
        assert len([ln for ln in r.stderr.splitlines() if ln.startswith("Error: ")]) == 1, r.stderr


def test_parts_as_a_file_and_a_torn_tmp_as_a_folder_exit_2_naming_them(run_a, tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text(
        "\n".join(f"{k} = {v!r}" if not isinstance(v, list) else f"{k} = {v}" for k, v in TOURNAMENT.items()).replace(
            "'", '"'
        ),
        encoding="utf-8",
    )
    resume = ("tournament", str(toml), "-o", str(run_a), "--resume", "--no-report")
    parts = _unfinished(run_a) / "parts"
    torn = parts / ".seg-000003.parquet.tmp"
    torn.mkdir()
    one_error(cli(*resume), 2, ".seg-000003.parquet.tmp")
    one_error(cli("report", str(run_a), "--no-plots"), 2, ".seg-000003.parquet.tmp")
    torn.rmdir()
    shutil.rmtree(parts)
    parts.write_text("not a folder", encoding="utf-8")
    one_error(cli(*resume), 2, "parts")
    one_error(cli("report", str(run_a), "--no-plots"), 2, "parts")


def test_a_studys_folder_is_reported_as_a_study_and_refused_as_a_tournaments_table(tmp_path):
    from xuezhan.study import run_study

    out = tmp_path / "s"
    run_study({**TOURNAMENT, "hands": 8, "variants": [{"max_fan": [4, 5]}]}, output=out, progress=False)
    assert cli("report", str(out), "--no-plots").exit_code == 0
    with pytest.raises(ValueError, match="a study's output folder"):
        load_results(out)
    variant = next((out / "variants").iterdir())
    assert cli("report", str(variant), "--no-plots").exit_code == 0


def test_a_runs_table_copied_on_its_own_is_checked_against_its_own_checksums(runs, tmp_path):
    alone = tmp_path / "copy.parquet"
    shutil.copy(runs["a"] / "results.parquet", alone)
    assert load_results(alone).equals(load_results(runs["a"]))
    data = bytearray(alone.read_bytes())
    start, end = _data_ranges(alone)[9]  # the delta column's pages
    data[end - 2] ^= 0x04
    alone.write_bytes(bytes(data))
    one_error(cli("report", str(alone), "--no-plots"), 2, "copy.parquet")
