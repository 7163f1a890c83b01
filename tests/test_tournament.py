"""The tournament runner: scheduling, determinism across workers, resume, summary statistics,
reports and the CLI (rule ids: R1.4 seeds, R9.1 dealer from the seed, R8/R10 columns)."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _results_helpers import drop_chunks, start_interruptible

from xuezhan.tournament import (
    COLUMNS,
    ConfigError,
    TournamentConfig,
    TournamentError,
    load_config,
    load_results,
    run,
    summarize,
    write_report,
)
from xuezhan.tournament.play import HandRunner
from xuezhan.tournament.results import done_chunks, read_parts, rows_to_frame
from xuezhan.tournament.scheduling import chunks, derive_seed, game, games
from xuezhan.tournament.stats import clustered_mean_ci, t_ppf

ROOT = Path(__file__).resolve().parents[1]
LINEUP = ["random", "greedy", "value", "greedy"]
#: The `xuezhan` command, run by this interpreter (works in any virtualenv, installed or not).
CLI = [sys.executable, "-c", "from xuezhan.cli import main; main()"]


def cfg(**kw) -> TournamentConfig:
    base = dict(strategies=LINEUP, hands=48, seed=7, workers=1, chunk=8)
    base.update(kw)
    return TournamentConfig(**base)


# ----------------------------------------------------------------------------- scheduling


def test_duplicate_seating_each_seed_once_per_rotation_each_entry_in_each_seat():
    c = cfg(hands=40)
    gs = list(games(c))
    assert len(gs) == 40
    by_seed: dict[int, list] = {}
    for g in gs:
        by_seed.setdefault(g.seed_index, []).append(g)
    assert len(by_seed) == 10
    for group in by_seed.values():
        # each wall seed is played exactly once in each of the four rotations
        assert sorted(g.rotation for g in group) == [0, 1, 2, 3]
        assert len({g.seed for g in group}) == 1
        # over the group every line-up entry sits in every seat exactly once
        for seat in range(4):
            assert sorted(g.seating[seat] for g in group) == [0, 1, 2, 3]
        for g in group:
            assert sorted(g.seating) == [0, 1, 2, 3]
    # different groups have different walls
    assert len({gs[i * 4].seed for i in range(10)}) == 10


def test_duplicate_rounds_hands_up_to_whole_groups():
    assert cfg(hands=41).n_games == 44
    assert cfg(hands=41, seating="random").n_games == 41


def test_random_seating_is_a_permutation_drawn_from_the_seed():
    c = cfg(hands=200, seating="random")
    gs = list(games(c))
    assert all(sorted(g.seating) == [0, 1, 2, 3] for g in gs)
    assert len({g.seed for g in gs}) == 200
    assert len({g.seating for g in gs}) > 10  # many different seatings
    seat0 = Counter(g.seating[0] for g in gs)
    assert set(seat0) == {0, 1, 2, 3}
    assert [g.seating for g in games(c)] == [g.seating for g in gs]  # deterministic


def test_seeds_depend_only_on_base_seed_and_index():
    a, b = cfg(hands=400, chunk=3), cfg(hands=400, chunk=50, workers=2)
    assert [game(a, i) for i in range(400)] == [game(b, i) for i in range(400)]
    assert derive_seed(7, "wall", 3) == derive_seed(7, "wall", 3) != derive_seed(8, "wall", 3)
    assert 0 <= derive_seed(2**40, "x") < 2**63
    c = chunks(cfg(hands=20, chunk=6))
    assert [list(r) for r in c] == [list(range(0, 6)), list(range(6, 12)), list(range(12, 18)), list(range(18, 20))]


# ----------------------------------------------------------------------------- config


def test_config_file_parses(tmp_path):
    p = tmp_path / "t.toml"
    p.write_text(
        """
hands = 12
seed = 3
seating = "random"
workers = 2
[rules]
preset = "chengdu"
max_fan = 3
[[strategies]]
strategy = "greedy"
[[strategies]]
name = "ext"
cmd = "python examples/bot.py"
[[strategies]]
strategy = "xuezhan.strategies.value:ValueStrategy"
options = { defence = false }
[[strategies]]
strategy = "random"
""",
        encoding="utf-8",
    )
    c = load_config(p)
    assert c.name == "t" and c.hands == 12 and c.seating == "random" and c.workers == 2
    assert c.labels == ("greedy", "ext", "xuezhan.strategies.value:ValueStrategy", "random")
    assert c.strategies[1].cmd == "python examples/bot.py"
    assert c.strategies[2].options == {"defence": False}
    r = c.build_rules()
    assert r.max_fan == 3 and r.declare_void  # chengdu preset with an override (R11)


def test_quick_toml_is_valid():
    c = load_config(ROOT / "tournaments" / "quick.toml")
    assert c.labels == ("random", "greedy", "value", "value")
    assert c.seating == "duplicate" and c.n_games == 8000  # enough walls for non-overlapping intervals
    c.build_rules()


@pytest.mark.parametrize("path", sorted((ROOT / "tournaments").glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_tournament_file_loads_and_builds_its_line_up(path):
    # The files the README tells people to run: a typo in a key or a strategy option would
    # otherwise show only when someone starts a two-hour match.
    c = load_config(path)
    runner = HandRunner(c)
    assert len(runner.factories) == 4 and c.seating == "duplicate"
    assert c.output == f"results/{c.name}"  # each writes its own folder under results/


@pytest.mark.parametrize(
    "text, message",
    [
        ('strategies = ["a", "b", "c"]', "exactly 4"),
        ('strategies = ["random", "random", "random", "random"]\nhand = 3', "unknown key 'hand'"),
        ('strategies = ["random", "random", "random", "random"]\nseating = "swiss"', "seating"),
        ('strategies = ["random", "random", "random", {cmd = "x", strategy = "y"}]', "exactly one of"),
        ('strategies = ["random", "random", "random", {strategy = "greedy", colour = 1}]', "unknown key 'colour'"),
        ('strategies = ["random", "random", "random", "random"]\nhands = 0', "hands"),
        ("strategies = [", "not valid TOML"),
    ],
)
def test_config_errors_name_the_key(tmp_path, text, message):
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config(p)


def test_unknown_strategy_and_bad_rules_are_clear_errors():
    with pytest.raises(ValueError, match="unknown strategy 'nosuch'"):
        run(cfg(strategies=["nosuch", "random", "random", "random"], hands=4), progress=False)
    bad_option = {"strategy": "value", "name": "v2", "options": {"colour": 1}}
    with pytest.raises(ValueError, match="'v2'.*'colour'"):
        run(cfg(strategies=["greedy", "random", "random", bad_option], hands=4), progress=False)
    bad_value = {"strategy": "value", "name": "v3", "options": {"one_suit_step": 0}}
    with pytest.raises(ValueError, match="'v3'.*one_suit_step must be at least 1"):
        run(cfg(strategies=["greedy", "random", "random", bad_value], hands=4), progress=False)
    with pytest.raises(ValueError, match="max_fun"):
        run(cfg(rules={"preset": "leshan", "max_fun": 3}, hands=4), progress=False)


# ----------------------------------------------------------------------------- running


def test_run_returns_the_documented_table():
    df = run(cfg(hands=16), progress=False)
    assert list(df.columns) == list(COLUMNS)
    assert len(df) == 64
    assert list(df["hand"]) == [h for h in range(16) for _ in range(4)]
    assert list(df["seat"]) == [0, 1, 2, 3] * 16
    # R12.2: the deltas of every hand sum to zero (no escapes among built-in bots)
    assert (df.groupby("hand")["delta"].sum() == 0).all()
    assert not df["escape"].any() and (df["timeouts"] == 0).all()
    # exactly one dealer per hand (R9.1: drawn from the hand's seed, the same for its rotations)
    assert (df.groupby("hand")["dealer"].sum() == 1).all()
    dealer_seat = df[df["dealer"]].set_index("hand")["seat"]
    seed_index = df.groupby("hand")["seed_index"].first()
    assert (dealer_seat.groupby(seed_index).nunique() == 1).all()
    # the line-up labels follow the seating
    for h, g in df.groupby("hand"):
        gm = game(cfg(hands=16), h)
        assert list(g["strategy"]) == [LINEUP[e] for e in gm.seating]
    won = df[df["won"]]
    assert (won["fan"] >= 1).all() and (won["win_order"] >= 1).all()
    assert (df.loc[~df["won"], "fan"] == 0).all()
    assert (df.loc[df["ready"], "checked"]).all()
    # every recorded dealt-in corresponds to a win from that seat
    assert df["dealt_in"].sum() == (df["won"] & ~df["self_draw"]).sum()
    # the random bot is a pig sometimes; the others never hold three suits at the end
    assert not df.loc[df["strategy"] != "random", "pig"].any()


def test_results_do_not_depend_on_worker_count_or_chunking(tmp_path):
    one = run(cfg(hands=32, chunk=8, workers=1), progress=False)
    two = run(cfg(hands=32, chunk=3, workers=2), output=tmp_path / "two", progress=False)
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(one, load_results(tmp_path / "two"))


def test_deterministic_strategies_are_built_once_and_reset_clears_a_hand():
    """greedy and value say ``deterministic = True``: one instance per line-up entry plays every
    hand of a runner; each hand's rows equal those of a runner that plays only that hand."""
    config = cfg(strategies=["greedy", "value", "random", "value"], hands=24, seating="random")
    shared = HandRunner(config)
    assert shared.seeded == [False, False, True, False]
    instances = list(shared.strategies)
    for g in games(config):
        assert shared.play(g) == HandRunner(config).play(g), g.index
    assert shared.strategies == instances  # the same objects throughout


def test_chunk_zero_is_about_a_thousandth_of_the_hands_and_kept_in_the_identity():
    """A run that does not give ``chunk`` gets 40 to 1,000 hands a chunk (a million hands: 1,000
    row groups, not 25,000); the resolved size is what the manifest and the identity hold."""
    assert TournamentConfig(strategies=LINEUP, hands=8).chunk == 40 == cfg(hands=8, chunk=0).chunk
    assert cfg(hands=1_000_000, chunk=0).chunk == 1000 and len(chunks(cfg(hands=1_000_000, chunk=0))) == 1000
    assert cfg(hands=300_000, chunk=0).chunk == 300 and cfg(hands=300_000, chunk=7).chunk == 7
    assert cfg(hands=8, chunk=0).identity() == cfg(hands=8, chunk=40).identity() != cfg(hands=8, chunk=41).identity()
    with pytest.raises(ConfigError, match="chunk: must be 0 \\(automatic\\) or 1"):
        cfg(hands=8, chunk=-1)


def test_output_folder_refuses_to_mix_runs(tmp_path):
    out = tmp_path / "o"
    run(cfg(hands=8), output=out, progress=False)
    with pytest.raises(TournamentError, match="--resume"):
        run(cfg(hands=8), output=out, progress=False)
    with pytest.raises(TournamentError, match="different tournament"):
        run(cfg(hands=8, seed=99), output=out, resume=True, progress=False)
    df = run(cfg(hands=8, seed=99), output=out, overwrite=True, progress=False)
    assert (df["seed"] == [game(cfg(hands=8, seed=99), h).seed for h in df["hand"]]).all()


def test_resume_after_lost_chunks_gives_the_uninterrupted_table(tmp_path):
    c = cfg(hands=48, chunk=8, workers=2, strategies=["random", "greedy", "greedy", "greedy"])
    full = run(c, output=tmp_path / "full", progress=False)
    part = tmp_path / "part"
    run(c, output=part, progress=False)
    # an interrupted run: the final table and some chunks were never written
    (part / "results.parquet").unlink()
    drop_chunks(part, [1, 4, 5])
    assert len(read_parts(part)) == 4 * (48 - 24)
    resumed = run(c, output=part, resume=True, progress=False)
    pd.testing.assert_frame_equal(full, resumed)


def test_ctrl_c_then_resume_gives_the_uninterrupted_table(tmp_path):
    """A real interruption: SIGINT to a running `xuezhan tournament`, then `--resume`."""
    toml = tmp_path / "t.toml"
    toml.write_text(
        "hands = 160\nseed = 5\nchunk = 4\nworkers = 2\n"
        'strategies = ["_slow_strategies:SlowGreedy", "greedy", "random", "greedy"]\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]))
    cmd = [*CLI, "tournament", str(toml), "--output", str(out), "--no-report"]
    proc = start_interruptible(cmd, env, sleep=0.01)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(done_chunks(out)) >= 3:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err)
    assert "--resume" in err
    assert not (out / "results.parquet").exists()
    saved = read_parts(out)
    assert 0 < len(saved) < 4 * 160
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    resumed = load_results(out)
    # the uninterrupted reference, in this process
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        ref = run(load_config(toml), progress=False, workers=1)
    finally:
        sys.path.remove(str(ROOT / "tests"))
    pd.testing.assert_frame_equal(ref, resumed)
    # the rows saved before the interruption are exactly the reference's rows
    merged = saved.merge(ref, how="left", indicator=True)
    assert (merged["_merge"] == "both").all()


# ----------------------------------------------------------------------------- statistics


def test_t_quantiles_match_tables():
    for df, q in [(1, 12.7062047), (2, 4.3026527), (5, 2.5705818), (10, 2.2281389), (30, 2.0422725), (120, 1.9799304)]:
        assert t_ppf(0.975, df) == pytest.approx(q, abs=1e-6)
    assert t_ppf(0.025, 10) == pytest.approx(-2.2281389, abs=1e-6)
    assert t_ppf(0.975, 1e9) == pytest.approx(1.959964, abs=1e-6)


def _synthetic(cluster_values: dict[str, list[list[int]]]) -> pd.DataFrame:
    rows = []
    hand = 0
    for name, clusters in cluster_values.items():
        for k, deltas in enumerate(clusters):
            for d in deltas:
                rows.append(
                    dict(
                        hand=hand,
                        seed_index=k,
                        rotation=0,
                        seed=k,
                        rules_id="leshan",
                        entry=0,
                        strategy=name,
                        seat=hand % 4,
                        dealer=False,
                        delta=d,
                        won=d > 0,
                        wins=int(d > 0),
                        win_order=1 if d > 0 else 0,
                        self_draw=d > 2,
                        fan=2 if d > 0 else 0,
                        fan_items="gen" if d > 0 else "",
                        dealt_in=int(d < -1),
                        kongs=0,
                        pig=d < -10,
                        checked=d <= 0,
                        ready=d == 0,
                        escape=False,
                        timeouts=0,
                    )
                )
                hand += 1
    return rows_to_frame(rows)


def test_summarize_interval_is_the_t_interval_over_cluster_means():
    # five wall seeds, four hands each: cluster sums 4, 8, -4, 0, 12 -> cluster means 1, 2, -1, 0, 3
    clusters = [[1, 1, 1, 1], [5, -1, 2, 2], [-4, 0, 0, 0], [3, -3, 3, -3], [0, 6, 6, 0]]
    df = _synthetic({"a": clusters})
    s = summarize(df, rating=False).loc["a"]
    means = np.array([1, 2, -1, 0, 3], dtype=float)
    half = 2.7764451 * means.std(ddof=1) / math.sqrt(5)  # t_{0.975, 4}
    assert s["mean_delta"] == pytest.approx(1.0)
    assert s["ci_low"] == pytest.approx(1.0 - half, abs=1e-6)
    assert s["ci_high"] == pytest.approx(1.0 + half, abs=1e-6)
    assert s["clusters"] == 5 and s["hands"] == 20
    # the naive interval over hands would be narrower here: clustering matters
    naive = 2.0930241 * np.array(sum(clusters, [])).std(ddof=1) / math.sqrt(20)
    assert half > naive


def test_clustered_interval_with_unequal_clusters_is_the_cr1_ratio_interval():
    values = [1, 2, 3, 10, -2, 0, 4]
    clusters = [0, 0, 0, 1, 2, 2, 2]
    mean, lo, hi, g = clustered_mean_ci(values, clusters)
    # by hand: Y = (6, 10, 2), n = (3, 1, 3), m = 18/7
    m = 18 / 7
    resid = np.array([6 - 3 * m, 10 - m, 2 - 3 * m])
    se = math.sqrt(3 / 2 * (resid**2).sum() / 49)
    assert (mean, g) == (pytest.approx(m), 3)
    assert hi - mean == pytest.approx(4.3026527 * se, abs=1e-6)
    assert mean - lo == pytest.approx(4.3026527 * se, abs=1e-6)
    assert clustered_mean_ci([1.0, 2.0], [0, 0])[1] == -math.inf  # one cluster: no interval


def test_summarize_rates_on_a_synthetic_table():
    df = _synthetic({"a": [[3, -2, 0, 1]], "b": [[-20, 0, 0, 0], [1, 1, 1, 1]]})
    s = summarize(df)
    a, b = s.loc["a"], s.loc["b"]
    assert a["win_rate"] == pytest.approx(0.5) and a["self_draw_rate"] == pytest.approx(0.25)
    assert a["deal_in_rate"] == pytest.approx(0.25) and a["avg_fan"] == pytest.approx(2.0)
    assert a["ready_rate"] == pytest.approx(0.5)  # of the two hands that went to the ready check
    assert b["pig_rate"] == pytest.approx(1 / 8)
    assert list(s.index) == ["a", "b"]  # best mean delta first
    assert np.isfinite(s["rating"]).all()


def test_openskill_rating_orders_a_dominant_strategy_first():
    rows = []
    for h in range(60):
        for seat, (name, d) in enumerate([("strong", 3), ("mid", 1), ("weak", -1), ("weakest", -3)]):
            rows.append(
                dict(
                    hand=h,
                    seed_index=h,
                    rotation=0,
                    seed=h,
                    rules_id="x",
                    entry=seat,
                    strategy=name,
                    seat=seat,
                    dealer=False,
                    delta=d,
                    won=d > 0,
                    wins=int(d > 0),
                    win_order=0,
                    self_draw=False,
                    fan=0,
                    fan_items="",
                    dealt_in=0,
                    kongs=0,
                    pig=False,
                    checked=False,
                    ready=False,
                    escape=False,
                    timeouts=0,
                )
            )
    s = summarize(rows_to_frame(rows))
    assert list(s.sort_values("rating", ascending=False).index) == ["strong", "mid", "weak", "weakest"]


# ----------------------------------------------------------------------------- reports and CLI


def test_report_writes_plots_and_a_self_contained_html(tmp_path):
    df = run(cfg(hands=12), progress=False)
    paths = write_report(df, tmp_path, title="t")
    html = paths["html"].read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == 8  # each figure drawn wide and for a phone
    assert html.count("<source media=") == 4
    assert "<img" in html and 'src="http' not in html and "value" in html
    for name in ("paired_differences", "mean_delta", "score_distribution", "fan_histogram"):
        assert paths[name].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pd.read_csv(paths["summary_csv"])["strategy"].tolist()


def test_cli_tournament_and_report(tmp_path):
    toml = tmp_path / "cli.toml"
    toml.write_text(
        'hands = 8\nseed = 2\nworkers = 1\nstrategies = ["random", "greedy", "value", "greedy"]\n', encoding="utf-8"
    )
    out = tmp_path / "res"
    r = subprocess.run(
        [*CLI, "tournament", str(toml), "-o", str(out), "--csv"], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert "points per hand" in r.stdout and "greedy" in r.stdout
    assert (out / "results.parquet").is_file() and (out / "results.csv").is_file() and (out / "report.html").is_file()
    csv = load_results(out / "results.csv")
    pd.testing.assert_frame_equal(csv, load_results(out / "results.parquet"))
    r2 = subprocess.run(
        [*CLI, "report", str(out / "results.parquet"), "--no-plots"], capture_output=True, text=True, timeout=300
    )
    assert r2.returncode == 0, r2.stderr
    assert "95% interval" in r2.stdout
    bad = subprocess.run([*CLI, "tournament", str(tmp_path / "none.toml")], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "no such tournament file" in bad.stderr


def test_pairwise_difference_is_the_t_interval_over_walls():
    from xuezhan.tournament.report import pairwise

    # per wall (cluster) means: a = 1, 2, 0, 3; b = 0, 1, 1, 1 -> differences 1, 1, -1, 2
    df = _synthetic({"a": [[1, 1], [2, 2], [0, 0], [3, 3]], "b": [[0], [1], [1], [1]]})
    p = pairwise(df)
    assert list(p[["a", "b"]].iloc[0]) == ["a", "b"]
    d = np.array([1, 1, -1, 2], dtype=float)
    half = 3.1824463 * d.std(ddof=1) / 2  # t_{0.975, 3}
    assert p["diff"].iloc[0] == pytest.approx(0.75)
    assert p["ci_low"].iloc[0] == pytest.approx(0.75 - half, abs=1e-6)
    assert p["ci_high"].iloc[0] == pytest.approx(0.75 + half, abs=1e-6)
    assert p["clusters"].iloc[0] == 4


def test_rule_frequencies_count_hands_per_rule():
    from xuezhan.tournament.report import rule_frequencies

    df = run(cfg(hands=12), progress=False)
    freq = rule_frequencies(df)
    assert set(freq["rules_id"]) == {"leshan"}
    for r in freq.itertuples():
        expected = sum(r.rule in f.split("+") for f in df.drop_duplicates("hand")["fired"])
        assert r.hands == expected and r.share == pytest.approx(expected / 12)
    # a hand that went to the wall ran the ready check (R7)
    walls = df.drop_duplicates("hand")
    n_wall = int((walls["end"] == "wall").sum())
    if n_wall:
        assert freq.set_index("rule").loc["R7-ready-check", "hands"] >= 1
