"""The output folder of a tournament or a study, and the files they read: every hostile case is
one right result or one clear error (xuezhan.tournament.folder, .store, .options, xuezhan.files).

Stored results: a study holds its lock for the whole run (``--overwrite`` and a second
``--resume`` refused meanwhile), a segment copied from another variant is refused, a damaged
chunk is named with its file, row group and chunk and how to recover, a billion hands in chunks
of one start at once in bounded memory. Damaged or odd files: a truncated or non-object
manifest, study files that are FIFOs, devices, too large, not UTF-8 or nested too deeply, a
variant name too long for a folder, a fan item switched two ways; bad input and refused requests
exit 2. Options of the wrong type are refused naming the field.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from _cli_helpers import cli, one_error
from _results_helpers import start_interruptible

from xuezhan.rules import Rules, RulesError
from xuezhan.study import StudyConfigError, load_study, run_study, study_from_dict
from xuezhan.tournament import TournamentConfig, run
from xuezhan.tournament.config import ConfigError, load_config
from xuezhan.tournament.driver import play
from xuezhan.tournament.errors import RunRefused
from xuezhan.tournament.options import RunOptions
from xuezhan.tournament.results import done_chunks, load_results
from xuezhan.tournament.scheduling import chunks
from xuezhan.tournament.store import segments

ROOT = Path(__file__).resolve().parents[1]
LINE_UP = ["random", "greedy", "random", "greedy"]
CLI = [sys.executable, "-m", "xuezhan"]
STUDY = """name = "s"
hands = 16
seed = 5
chunk = 4
workers = 1
strategies = ["random", "greedy", "random", "greedy"]
[[variants]]
max_fan = [4, 5]
"""
TOURNAMENT = """hands = 16
seed = 5
chunk = 4
workers = 1
strategies = ["random", "greedy", "random", "greedy"]
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- stored results


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]))


def test_a_running_study_refuses_overwrite_and_a_second_resume(tmp_path):
    """The study's folder is locked for the whole run, not only while a variant plays."""
    toml = write(
        tmp_path / "s.toml",
        STUDY.replace("hands = 16", "hands = 400").replace(
            'strategies = ["random", "greedy", "random", "greedy"]',
            'strategies = ["_slow_strategies:SlowGreedy", "greedy", "random", "greedy"]',
        ),
    )
    out = tmp_path / "out"
    cmd = [*CLI, "study", str(toml), "-o", str(out), "--no-report", "--no-progress"]
    env = _env()
    proc = start_interruptible(cmd, env, sleep=0.005, stdout=subprocess.DEVNULL)
    try:
        variant = out / "variants" / "max_fan=4"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not done_chunks(variant):
            time.sleep(0.05)
        assert proc.poll() is None, "the study finished before the test could act"
        for flag in ("--overwrite", "--resume"):
            second = subprocess.run([*cmd, flag], capture_output=True, text=True, timeout=60, env=env)
            assert second.returncode == 2, (flag, second.stderr)
            assert "another run" in second.stderr and "Traceback" not in second.stderr, second.stderr
        assert (out / "study.json").is_file() and done_chunks(variant)  # nothing deleted
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)


def test_a_segment_copied_from_another_variant_of_the_study_is_refused(tmp_path):
    """Same walls and seats, other rules: a third of the rows would be wrong, so it is refused."""
    cfg = study_from_dict({**json.loads(json.dumps(_study_dict())), "hands": 32})
    out = tmp_path / "o"
    full = run_study(cfg, output=out, progress=False)
    a, b = out / "variants" / "max_fan=4", out / "variants" / "max_fan=5"
    (out / "results.parquet").unlink()
    (b / "results.parquet").unlink()
    shutil.copy(a / "parts" / "seg-000000.parquet", b / "parts" / "seg-000000.parquet")
    with pytest.raises(RunRefused, match=r"max_fan=5/parts/seg-000000\.parquet: a segment of another run"):
        run_study(cfg, output=out, resume=True, progress=False)
    # the advice followed: delete it, --resume plays its chunks again
    (b / "parts" / "seg-000000.parquet").unlink()
    pd.testing.assert_frame_equal(run_study(cfg, output=out, resume=True, progress=False), full)


def _study_dict() -> dict:
    return {
        "strategies": LINE_UP,
        "hands": 16,
        "seed": 5,
        "chunk": 4,
        "workers": 1,
        "variants": [{"max_fan": [4, 5]}],
    }


def test_a_damaged_chunk_is_named_with_its_file_row_group_and_chunk_and_how_to_recover(tmp_path):
    c = TournamentConfig(strategies=LINE_UP, hands=24, seed=3, chunk=4, workers=1)
    out = tmp_path / "o"
    full = run(c, output=out, progress=False)
    (out / "results.parquet").unlink()
    seg = segments(out)[0]
    f = pq.ParquetFile(seg.path)
    # a bit flipped in the "fan" column of row group 2 (once accepted: a fan of 0 read as 2)
    column = f.metadata.row_group(2).column(f.schema_arrow.get_field_index("fan"))
    start = column.dictionary_page_offset or column.data_page_offset
    data = bytearray(seg.path.read_bytes())
    data[start + column.total_compressed_size - 1] ^= 0x02
    seg.path.write_bytes(bytes(data))
    with pytest.raises(RunRefused) as err:
        play(c, output=out, resume=True, progress=False)
    message = str(err.value)
    assert f"seg-000000.parquet (row group 2, chunk {seg.chunks[2]})" in message, message
    assert "delete it and --resume plays its chunks again" in message
    seg.path.unlink()
    pd.testing.assert_frame_equal(run(c, output=out, resume=True, progress=False), full)


def test_a_billion_hands_in_chunks_of_one_start_at_once_in_bounded_memory(tmp_path, monkeypatch):
    """Chunks are handed out as workers need them: nothing is built per chunk up front."""
    from xuezhan.tournament import driver
    from xuezhan.tournament.play import HandRunner, play_chunk

    c = TournamentConfig(strategies=LINE_UP, hands=1_000_000_000, seed=1, chunk=1, workers=2)
    assert len(chunks(c)) == 1_000_000_000
    seen: list[int] = []

    def three_then_ctrl_c(config, pending, *, on_chunk):
        assert len(pending) == 1_000_000_000
        runner = HandRunner(config)
        for chunk_id in pending:
            on_chunk(chunk_id, play_chunk(runner, config, chunk_id))
            seen.append(chunk_id)
            if len(seen) == 3:
                raise KeyboardInterrupt

    monkeypatch.setattr(driver, "executor_for", lambda name, address=None: three_then_ctrl_c)
    tracemalloc.start()
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            play(c, output=tmp_path / "o", progress=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - start < 30
    assert seen == [0, 1, 2] and done_chunks(tmp_path / "o") == {0, 1, 2}
    assert peak < 32 * 2**20, peak  # Python allocations of the whole run so far


# ----------------------------------------------------------------------------- damaged or odd files


@pytest.mark.parametrize(
    "damage",
    ["truncated", "a JSON list", "not UTF-8", "empty", "a folder"],
)
@pytest.mark.parametrize("kind", ["tournament", "study"])
def test_a_damaged_manifest_is_one_line_naming_it(tmp_path, kind, damage):
    toml = write(tmp_path / "t.toml", TOURNAMENT if kind == "tournament" else STUDY)
    out = tmp_path / "o"
    assert cli(kind, str(toml), "-o", str(out), "--no-report").exit_code == 0
    (out / "results.parquet").unlink()
    name = "manifest.json" if kind == "tournament" else "study.json"
    p = out / name
    text = p.read_text(encoding="utf-8")
    if damage == "truncated":
        p.write_text(text[: len(text) // 2], encoding="utf-8")
    elif damage == "a JSON list":
        p.write_text("[1, 2]", encoding="utf-8")
    elif damage == "not UTF-8":
        p.write_bytes(b"\xff\xfe" + text.encode()[2:])
    elif damage == "empty":
        p.write_text("", encoding="utf-8")
    else:
        p.unlink()
        p.mkdir()
    one_error(cli(kind, str(toml), "-o", str(out), "--no-report", "--resume"), 2, str(p), "--overwrite")
    # the way out it names works
    assert cli(kind, str(toml), "-o", str(out), "--no-report", "--overwrite").exit_code == 0


@pytest.mark.parametrize("kind", ["tournament", "study"])
def test_an_unusable_lock_file_is_one_line_naming_it(tmp_path, kind):
    toml = write(tmp_path / "t.toml", TOURNAMENT if kind == "tournament" else STUDY)
    out = tmp_path / "o"
    (out / ".lock").mkdir(parents=True)
    one_error(cli(kind, str(toml), "-o", str(out), "--no-report"), 2, str(out / ".lock"), "lock file")


@pytest.mark.parametrize("kind", ["tournament", "study"])
def test_a_folder_holding_results_is_refused_with_exit_2(tmp_path, kind):
    toml = write(tmp_path / "t.toml", TOURNAMENT if kind == "tournament" else STUDY)
    out = tmp_path / "o"
    assert cli(kind, str(toml), "-o", str(out), "--no-report").exit_code == 0
    one_error(cli(kind, str(toml), "-o", str(out), "--no-report"), 2, "already holds", "--resume", "--overwrite")
    other = write(tmp_path / "u.toml", (TOURNAMENT if kind == "tournament" else STUDY).replace("seed = 5", "seed = 6"))
    one_error(cli(kind, str(other), "-o", str(out), "--no-report", "--resume"), 2, "different")


def test_a_256_character_variant_name_is_refused_before_anything_is_written(tmp_path):
    toml = write(tmp_path / "s.toml", STUDY.replace("[[variants]]\n", f'[[variants]]\nname = "{"v" * 256}"\n'))
    out = tmp_path / "o"
    one_error(cli("study", str(toml), "-o", str(out), "--no-report"), 2, "variants[0].name", "too long")
    assert not out.exists()
    with pytest.raises(StudyConfigError, match="too long"):
        load_study(toml)


def _odd(tmp_path: Path, case: str) -> Path:
    if case == "fifo":
        p = tmp_path / "fifo.toml"
        os.mkfifo(p)
        return p
    if case == "device":
        return Path("/dev/zero")
    p = tmp_path / f"{case}.toml"
    if case == "20 MB":
        p.write_text(STUDY + "#" + "x" * (20 * 2**20) + "\n", encoding="utf-8")
    elif case == "not UTF-8":
        p.write_bytes(STUDY.encode() + b"# \xff\xfe\n")
    elif case == "deep nesting":
        p.write_text(STUDY + "deep = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    elif case == "unknown key":
        p.write_text("bogus = 1\n" + STUDY, encoding="utf-8")
    elif case == "JSON list":
        p = p.with_suffix(".json")
        p.write_text("[]", encoding="utf-8")
    return p


ODD = {
    "fifo": "not a regular file",
    "device": "not a regular file",
    "20 MB": "16,777,216-byte limit",
    "not UTF-8": "not UTF-8",
    "deep nesting": "nested",
    "JSON list": "a JSON list at the top",
    "unknown key": "unknown key 'bogus'",
}


@pytest.mark.parametrize("case", list(ODD))
@pytest.mark.parametrize("kind", ["study", "tournament"])
def test_odd_study_and_tournament_files_are_one_error_naming_them(tmp_path, kind, case):
    """Study files go through the tournament files' reader: a FIFO does not hang (a subprocess
    with a time limit), /dev/zero is not read, 16 MB at most, UTF-8, bounded nesting; bad input
    exits 2 for both commands."""
    p = _odd(tmp_path, case)
    r = subprocess.run([*CLI, kind, str(p), "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "Traceback" not in r.stderr, r.stderr
    assert str(p) in errors[0] and ODD[case] in errors[0], errors[0]
    assert not (tmp_path / "out").exists()


def test_study_files_may_be_json_and_are_schema_checked(tmp_path):
    d = _study_dict()
    p = write(tmp_path / "s.json", json.dumps(d))
    assert [v.name for v in load_study(p).variants] == ["max_fan=4", "max_fan=5"]
    write(p, json.dumps({**d, "hands": "16"}))
    with pytest.raises(StudyConfigError, match=r"s\.json: hands: expected an integer, got '16'"):
        load_study(p)
    t = write(tmp_path / "t.json", json.dumps({"strategies": LINE_UP, "hands": 8}))
    assert load_config(t).hands == 8


@pytest.mark.parametrize("where", ["variant", "base rules"])
def test_a_fan_item_switched_two_ways_is_an_error_naming_both(where):
    both = {"fan.gen": False, "fan": {"gen": True}}
    d = _study_dict()
    if where == "variant":
        d["variants"] = [{"name": "x", **both}]
    else:
        d["rules"] = both
    with pytest.raises(StudyConfigError, match=r"'gen' is switched twice, by \"fan\.gen\" = false and by fan = "):
        study_from_dict(d)
    with pytest.raises(RulesError, match=r"'gen' is switched twice, by 'fan\.gen' and by the fan table"):
        Rules.from_dict(both)
    with pytest.raises(RulesError, match="switched twice"):
        TournamentConfig(strategies=LINE_UP, rules=both).build_rules()


# ----------------------------------------------------------------------------- strict option types


@pytest.mark.parametrize("value", [True, 2.0, "2"])
@pytest.mark.parametrize("field", ["hands", "seed", "workers", "chunk"])
def test_tournament_and_study_fields_refuse_bool_float_and_str_for_integers(field, value):
    with pytest.raises(TypeError, match=f"{field}: expected an integer"):
        TournamentConfig(strategies=LINE_UP, **{field: value})
    with pytest.raises(TypeError, match=f"{field}: expected an integer"):
        study_from_dict({**_study_dict(), field: value})
    with pytest.raises(ConfigError):  # and a ConfigError: the CLI's bad input (exit 2)
        study_from_dict({**_study_dict(), field: value})


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("workers", True, "workers: expected an integer"),
        ("workers", 2.0, "workers: expected an integer"),
        ("resume", 1, "resume: expected true or false"),
        ("overwrite", "yes", "overwrite: expected true or false"),
        ("csv", 0, "csv: expected true or false"),
        ("progress", 1, "progress: expected true, false or None"),
        ("output", 5, "output: expected a folder path"),
        ("address", 5, "address: expected a Ray cluster address"),
    ],
)
def test_run_options_refuse_values_of_the_wrong_type_naming_the_option(tmp_path, option, value, message):
    with pytest.raises(TypeError, match=message):
        RunOptions(**{option: value})
    c = TournamentConfig(strategies=LINE_UP, hands=4, workers=1)
    with pytest.raises(TypeError, match=message):
        run(c, **{"output": tmp_path / "o", option: value})
    with pytest.raises(TypeError, match=message):
        run_study(_study_dict(), **{"output": tmp_path / "s", option: value})
    assert not (tmp_path / "o").exists() and not (tmp_path / "s").exists()


def test_run_options_refuse_unknown_names_and_contradictions(tmp_path):
    c = TournamentConfig(strategies=LINE_UP, hands=4, workers=1)
    with pytest.raises(TypeError, match="unknown run option 'ouptut'"):
        run(c, ouptut=tmp_path)
    with pytest.raises(ConfigError, match="not both"):
        RunOptions(resume=True, overwrite=True)
    with pytest.raises(ConfigError, match="executor: expected one of local, ray"):
        RunOptions(executor="dask")
    with pytest.raises(ConfigError, match="--address is for --executor ray"):
        RunOptions(address="auto")
    # one options value serves a tournament and a study alike
    opts = RunOptions(output=tmp_path / "t", progress=False)
    assert len(run(c, opts)) == 16
    assert load_results(tmp_path / "t").equals(run(c, opts.replace(output=tmp_path / "u")))


def test_a_report_of_an_unfinished_run_with_a_damaged_segment_is_one_error_naming_it(tmp_path):
    """An interrupted run's report reads the stored chunks through their checksums too."""
    toml = write(tmp_path / "t.toml", TOURNAMENT)
    out = tmp_path / "o"
    assert cli("tournament", str(toml), "-o", str(out), "--no-report").exit_code == 0
    (out / "results.parquet").unlink()
    seg = segments(out)[0]
    f = pq.ParquetFile(seg.path)
    column = f.metadata.row_group(1).column(f.schema_arrow.get_field_index("delta"))
    data = bytearray(seg.path.read_bytes())
    end = column.data_page_offset + column.total_compressed_size
    for i in range(end - 4, end):  # the values' last bytes
        data[i] ^= 0xFF
    seg.path.write_bytes(bytes(data))
    one_error(cli("report", str(out), "--no-plots"), 2, "seg-000000.parquet (row group 1, chunk")
