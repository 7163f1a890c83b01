"""Tournaments and studies on the native engine (``engine = "auto" | "native" | "python"``):
the same tables as the Python engine, the same output folders (resume after Ctrl-C,
checksummed parts), the report naming the engine that played, and one clear refusal when
``native`` is asked for what it does not play."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
from _results_helpers import start_interruptible

from xuezhan.study.runner import run_study
from xuezhan.tournament import load_config, load_results, run
from xuezhan.tournament.config import TournamentConfig
from xuezhan.tournament.results import done_chunks, read_parts

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from xuezhan.cli import main; main()"]


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def test_native_and_python_tournaments_give_the_same_table(tmp_path):
    for preset, lineup in (("xueliu", ["random", "greedy", "value", "value"]), ("leshan", ["greedy"] * 4)):
        config = TournamentConfig(strategies=lineup, hands=400, seed=3, rules={"preset": preset}, workers=2)
        native = run(config.replace(engine="native"), output=tmp_path / f"{preset}-n", progress=False)
        python = run(config.replace(engine="python"), output=tmp_path / f"{preset}-p", progress=False)
        pd.testing.assert_frame_equal(native, python)


def test_cli_engine_flag_names_the_engine_and_refuses_what_native_cannot_play(tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text('hands = 80\nseed = 9\nstrategies = ["random", "greedy", "value", "value"]\n', encoding="utf-8")
    done = _cli("tournament", str(toml), "--output", str(tmp_path / "n"), "--engine", "native", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "native engine" in done.stderr
    header = json.loads((tmp_path / "n" / "report.json").read_text(encoding="utf-8"))
    assert header["engine"] == "native"
    assert "the native engine of xuezhan" in done.stdout
    report = _cli("report", str(tmp_path / "n"), "--no-plots")
    assert report.returncode == 0 and "the native engine" in report.stdout
    python = _cli("tournament", str(toml), "--output", str(tmp_path / "p"), "--engine", "python", "--no-report")
    assert python.returncode == 0, python.stderr
    assert "python engine" in python.stderr
    a = pd.read_parquet(tmp_path / "n" / "results.parquet")
    b = pd.read_parquet(tmp_path / "p" / "results.parquet")
    pd.testing.assert_frame_equal(a, b)
    # a line-up entry the native engine does not play: one line naming it, exit 2, nothing written
    toml.write_text('hands = 8\nseed = 9\nstrategies = ["random", "greedy", "value", "search"]\n', encoding="utf-8")
    refused = _cli("tournament", str(toml), "--output", str(tmp_path / "r"), "--engine", "native")
    assert refused.returncode == 2, refused.stderr
    assert "strategies[3] ('search')" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "r").exists()
    # and a rule option (a clock shorter than the native engine plays)
    toml.write_text(
        'hands = 8\nseed = 9\nengine = "native"\nstrategies = ["random", "greedy", "value", "value"]\n'
        "[rules]\nturn_timeout = 0.1\n",
        encoding="utf-8",
    )
    refused = _cli("tournament", str(toml), "--output", str(tmp_path / "r2"))
    assert refused.returncode == 2 and "turn_timeout = 0.1" in refused.stderr


def test_native_run_interrupted_by_ctrl_c_resumes_to_the_uninterrupted_table(tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text(
        'hands = 24000\nseed = 5\nchunk = 100\nworkers = 2\nengine = "native"\n'
        'strategies = ["random", "greedy", "value", "value"]\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    cmd = [*CLI, "tournament", str(toml), "--output", str(out), "--no-report"]
    proc = start_interruptible(cmd, dict(os.environ), sleep=0)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(done_chunks(out)) >= 3:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err)
    assert "--resume" in err
    saved = read_parts(out)
    assert 0 < len(saved) < 4 * 24000
    done = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    ref = run(load_config(toml), progress=False)
    pd.testing.assert_frame_equal(ref, load_results(out))
    merged = saved.merge(ref, how="left", indicator=True)
    assert (merged["_merge"] == "both").all()


def test_a_study_plays_the_same_on_either_engine(tmp_path):
    study = {
        "name": "cap",
        "hands": 200,
        "seed": 4,
        "strategies": ["random", "greedy", "value", "value"],
        "rules": {"preset": "leshan"},
        "variants": [{"name": "base"}, {"name": "cap4", "max_fan": 4}],
        "workers": 2,
    }
    native = run_study({**study, "engine": "native"}, output=tmp_path / "n", progress=False)
    python = run_study({**study, "engine": "python"}, output=tmp_path / "p", progress=False)
    pd.testing.assert_frame_equal(native, python)
