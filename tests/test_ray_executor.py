"""The Ray executor (``--executor ray``): chunks of wall seeds played as Ray tasks on a local
Ray instance bound to 127.0.0.1 with two worker CPUs; the table is the local executor's, row
for row, even when a worker process is killed mid-run (Ray runs its chunk again) and after a
resume. Seeds: R1.4 (a hand depends only on its seed), R9.1 (dealer from the seed)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
import ray
from _results_helpers import drop_chunks

from xuezhan.study import run_study
from xuezhan.tournament import TournamentConfig, run
from xuezhan.tournament.results import done_chunks

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    piddir = tmp_path_factory.mktemp("pids")
    old = os.environ.get("PYTHONPATH")
    # The workers inherit this environment: the package under test and the test strategies.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [str(TESTS), old] if p)
    ray.init(
        address=None,
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
        runtime_env={
            "env_vars": {
                "XUEZHAN_TEST_PIDDIR": str(piddir),
                "XUEZHAN_TEST_SLEEP": "0.004",
            }
        },
    )
    try:
        yield piddir
    finally:
        ray.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def _config(**kw) -> TournamentConfig:
    base = {
        # trusted: in-process, so the pid it leaves is the Ray worker's (a guarded strategy
        # would run in a child process of its own, and killing that is an escape, R8)
        "strategies": [
            {"strategy": "_ray_helpers:PidSlowGreedy", "trusted": True},
            "greedy",
            "random",
            "value",
        ],
        "hands": 48,
        "seed": 11,
        "chunk": 4,
        "workers": 1,
    }
    base.update(kw)
    return TournamentConfig(**base)


def test_ray_rows_identical_to_local_with_a_worker_killed_mid_run(ray_cluster, tmp_path):
    config = _config()
    reference = run(config, progress=False)  # local, in this process (no sleep here)
    out = tmp_path / "ray"
    result: dict[str, object] = {}

    def play() -> None:
        try:
            result["df"] = run(config, output=out, executor="ray", progress=False)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            result["error"] = exc

    thread = threading.Thread(target=play)
    thread.start()
    deadline = time.monotonic() + 60
    killed = None
    while time.monotonic() < deadline and thread.is_alive():
        pids = sorted(int(p.name[4:]) for p in ray_cluster.glob("pid-*"))
        parts = done_chunks(out) if (out / "parts").is_dir() else set()
        if pids and parts:
            killed = pids[0]
            os.kill(killed, signal.SIGKILL)  # a worker process dies in the middle of a chunk
            break
        time.sleep(0.02)
    assert killed is not None and thread.is_alive(), "the run finished before a worker could be killed"
    thread.join(timeout=80)
    assert not thread.is_alive(), "the Ray run did not finish"
    assert "error" not in result, result.get("error")
    df = result["df"]
    assert isinstance(df, pd.DataFrame)
    pd.testing.assert_frame_equal(reference, df)
    # the killed worker is gone; its chunk was played again by another worker process
    with pytest.raises(ProcessLookupError):
        os.kill(killed, 0)


def test_ray_resume_and_study_match_local(ray_cluster, tmp_path):
    config = _config(hands=24, strategies=["greedy", "random", "value", "greedy"])
    out = tmp_path / "t"
    first = run(config, output=out, executor="ray", progress=False)
    (out / "results.parquet").unlink()
    drop_chunks(out, [0, 3])
    resumed = run(config, output=out, executor="ray", resume=True, progress=False)
    pd.testing.assert_frame_equal(first, resumed)
    pd.testing.assert_frame_equal(run(config, progress=False), resumed)
    # a study on the cluster: the same tidy table as on the local executor
    study = {
        "strategies": ["greedy", "random", "value", "greedy"],
        "hands": 8,
        "seed": 3,
        "chunk": 4,
        "workers": 1,
        "variants": [{"max_fan": [4, 5]}],
    }
    on_ray = run_study(study, output=tmp_path / "s", executor="ray", progress=False)
    pd.testing.assert_frame_equal(run_study(study, progress=False), on_ray)
