"""Rule studies: variants share walls and seats (R1.4 seeds, R9.1 dealer), sweeps expand, resume
gives the same tidy table, the cap (R0/R5 max_fan) changes only capped hands, paired
differences match numpy and SciPy, the HTML page holds every section, bad files are clear errors."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _results_helpers import drop_chunks
from scipy import stats

from xuezhan.study import (
    STUDY_COLUMNS,
    StudyConfig,
    StudyConfigError,
    load_study,
    load_study_results,
    run_study,
    study_from_dict,
)
from xuezhan.study.measure import SECTIONS, study_report, study_report_file
from xuezhan.study.report import format_study, write_study_report
from xuezhan.tournament import run
from xuezhan.tournament.config import ConfigError, TournamentConfig
from xuezhan.tournament.errors import RunRefused
from xuezhan.tournament.results import COLUMNS

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from xuezhan.cli import main; main()"]
LINEUP = ["greedy", "random", "value", "greedy"]


def study(**kw) -> dict:
    base = {"strategies": LINEUP, "hands": 16, "seed": 5, "chunk": 4, "workers": 1}
    base.update(kw)
    return base


def variant(df: pd.DataFrame, name: str) -> pd.DataFrame:
    return df[df["variant"] == name].drop(columns="variant").reset_index(drop=True)


# ----------------------------------------------------------------------------- the study file


def test_sweep_expands_every_combination_in_order():
    cfg = study_from_dict(
        study(
            variants=[
                {
                    "name": "s",
                    "max_fan": [3, 6],
                    "pig_penalty": [True, False],
                    "base": 2,
                },
                {"preset": "chengdu"},
            ]
        )
    )
    names = [v.name for v in cfg.variants]
    assert names == [
        "s max_fan=3, pig_penalty=true",
        "s max_fan=3, pig_penalty=false",
        "s max_fan=6, pig_penalty=true",
        "s max_fan=6, pig_penalty=false",
        "preset=chengdu",
    ]
    rules = [cfg.tournament(v).build_rules() for v in cfg.variants]
    assert [(r.max_fan, r.pig_penalty, r.base) for r in rules[:4]] == [
        (3, True, 2),
        (3, False, 2),
        (6, True, 2),
        (6, False, 2),
    ]
    assert rules[4].rules_id == "chengdu" and cfg.base_variant == names[0]
    # a fan-item sweep written as a table, and the base overrides applied to every variant (R11)
    cfg = study_from_dict(
        study(
            rules={"preset": "leshan", "max_fan": 6},
            variants=[{"fan": {"terminals": [False, True]}}],
        )
    )
    assert [v.name for v in cfg.variants] == [
        "fan.terminals=false",
        "fan.terminals=true",
    ]
    r = [cfg.tournament(v).build_rules() for v in cfg.variants]
    assert [x.fan["terminals"] for x in r] == [False, True] and {x.max_fan for x in r} == {6}


def test_example_studies_are_valid():
    cap = load_study(ROOT / "studies" / "cap-sweep.toml")
    assert [v.name for v in cap.variants] == [
        "max_fan=3",
        "max_fan=4",
        "max_fan=5",
        "max_fan=6",
    ]
    assert cap.base_variant == "max_fan=5" and cap.seating == "duplicate"
    lc = load_study(ROOT / "studies" / "leshan-vs-chengdu.toml")
    ids = [lc.tournament(v).build_rules() for v in lc.variants]
    assert [r.preset for r in ids] == ["leshan", "chengdu", "chengdu"]
    assert [r.exchange_three for r in ids] == [False, True, False]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            'variants = [{max_fan = 4}]\nstrategies = ["greedy","greedy","greedy","greedy"]\nhand = 3',
            "unknown key 'hand'",
        ),
        (
            'strategies = ["greedy","greedy","greedy","greedy"]',
            "'variants' is required",
        ),
        (
            'variants = [{max_fun = 4}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            r"variants\[0\]\.max_fun .*unknown rules field 'max_fun'",
        ),
        (
            'variants = [{}, {max_fan = "x"}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            r"variants\[1\]\.max_fan .*not an integer",
        ),
        (
            'variants = [{max_fan = [4, 99]}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            r"variants\[0\]\.max_fan .*max_fan=99.*out of range",
        ),
        (
            'variants = [{max_fan = []}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            r"variants\[0\]\.max_fan: a sweep needs at least one value",
        ),
        (
            'variants = [{max_fan = [4, 4]}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            r"variants\[0\]\.max_fan: the sweep repeats the value 4",
        ),
        (
            'variants = [{max_fan = [[4]]}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            r"variants\[0\]\.max_fan: a sweep is a list of plain values",
        ),
        (
            'variants = [{"fan.nosuch" = true}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            r"variants\[0\]\.fan\.nosuch .*unknown fan item",
        ),
        (
            'variants = [{name = "a"}, {name = "a", max_fan = 4}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            r"variants\[1\]: the variant name 'a' is used twice",
        ),
        (
            'base_variant = "zz"\nvariants = [{max_fan = 4}]\nstrategies = ["greedy","greedy","greedy","greedy"]',
            "base_variant: 'zz' is not a variant",
        ),
        (
            'variants = [{}]\nstrategies = ["greedy","greedy","greedy","greedy"]\n[rules]\nmax_fan = [4, 5]',
            r"rules\.max_fan: a sweep belongs in \[\[variants\]\]",
        ),
        ('variants = [{}]\nstrategies = ["greedy","greedy","greedy"]', "exactly 4"),
        (
            'variants = [{}]\nstrategies = ["greedy","greedy","greedy","greedy"]\n[rules]\npreset = "nowhere"',
            "rules: .*nowhere",
        ),
        ("variants = [", "not valid TOML"),
    ],
)
def test_bad_study_files_name_the_field(tmp_path, text, message):
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(StudyConfigError, match=message) as info:
        load_study(p)
    assert str(p) in str(info.value)


def test_a_study_is_a_tournament_plus_its_variants():
    """The study extends the tournament's configuration: its own fields are the variants and the
    base variant, nothing of the tournament's is listed again (fields, checks, to_dict,
    identity, replace), and each variant plays the base tournament under its own rules."""
    own = {f.name for f in dataclasses.fields(StudyConfig)} - {f.name for f in dataclasses.fields(TournamentConfig)}
    assert issubclass(StudyConfig, TournamentConfig) and own == {"variants", "base_variant"}
    assert not {"identity", "replace", "labels", "n_games", "build_rules"} & set(vars(StudyConfig))
    assert set(StudyConfig.__annotations__) == own  # no field of the tournament written again
    cfg = study_from_dict(study(name="s", variants=[{"max_fan": [3, 4]}], rules={"preset": "chengdu", "base": 2}))
    base = TournamentConfig(strategies=tuple(LINEUP), hands=16, seed=5, chunk=4, workers=1, name="s", rules=cfg.rules)
    assert cfg.to_dict() == {**base.to_dict(), "base_variant": "max_fan=3", "variants": cfg.to_dict()["variants"]}
    v = cfg.variants[1]
    assert cfg.tournament(v) == base.replace(rules={"preset": "chengdu", "base": 2, "max_fan": 4}, name="s/max_fan=4")
    assert cfg.replace(workers=2).workers == 2 and type(cfg.replace(workers=2)) is StudyConfig
    # the identity covers the variants, not the workers, output or name
    assert cfg.identity() == cfg.replace(workers=3, name="t", output="o").identity() != base.identity()
    assert cfg.identity() != study_from_dict(study(name="s", variants=[{"max_fan": [3, 5]}])).identity()


def test_a_study_is_refused_where_a_tournament_is_played_and_keeps_no_hand_logs(tmp_path):
    cfg = study_from_dict(study(variants=[{"max_fan": [3, 4]}]))
    with pytest.raises(TypeError, match="config: expected a TournamentConfig, a TOML path or a dict, got StudyConfig"):
        run(cfg, progress=False)
    with pytest.raises(StudyConfigError, match="hand_logs: a study keeps no hand logs"):
        cfg.replace(hand_logs=str(tmp_path / "logs"))


def test_a_study_checks_its_line_up_before_its_folder_is_written(tmp_path):
    """One resolve for tournaments and studies: the line-up's programs are checked before the
    study's folder holds anything (it used to write study.json, then refuse the first variant)."""
    cfg = study_from_dict(study(strategies=[{"cmd": "./no-such-bot"}, "greedy", "greedy", "greedy"], variants=[{}]))
    with pytest.raises(ConfigError, match=r"strategies\[0\].*cannot find the program './no-such-bot'"):
        run_study(cfg, output=tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------------------------- same walls, same seats


def test_identical_variants_give_identical_rows_and_every_variant_the_same_walls():
    # R1.4: a hand depends only on its seed, rules and decisions; the variants share seeds and seats.
    df = run_study(
        study(
            hands=24,
            variants=[
                {"name": "a"},
                {"name": "b", "max_fan": 5},
                {"name": "c", "preset": "chengdu"},
            ],
        ),
        progress=False,
    )
    assert list(df.columns) == list(STUDY_COLUMNS) and list(STUDY_COLUMNS)[1:] == list(COLUMNS)
    a, b, c = (variant(df, n) for n in "abc")
    pd.testing.assert_frame_equal(a, b)  # max_fan = 5 is leshan's own cap: the same rules
    shared = [
        "hand",
        "seed_index",
        "rotation",
        "seed",
        "entry",
        "strategy",
        "seat",
        "dealer",
    ]
    pd.testing.assert_frame_equal(a[shared], c[shared])  # R9.1: same walls, seats and dealers
    assert (c["rules_id"] == "chengdu").all() and not a["delta"].equals(c["delta"])


def test_a_lower_cap_changes_only_capped_hands():
    """R0/R5: with max_fan 2 instead of 5 the play is the same (greedy never weighs fan) and
    every win's fan is min(fan at cap 5, 2); a hand's deltas change only where something hit the
    lower cap: a win of 2 fan or more, a pig's payment (R7.2) or a ready value (R7.4)."""
    df = run_study(
        study(
            strategies=["greedy"] * 4,
            hands=160,
            chunk=40,
            variants=[{"max_fan": [2, 5]}],
        ),
        progress=False,
    )
    low, high = variant(df, "max_fan=2"), variant(df, "max_fan=5")
    same_play = [
        "hand",
        "seed",
        "seat",
        "dealer",
        "won",
        "win_order",
        "self_draw",
        "fan_items",
        "dealt_in",
        "kongs",
        "pig",
        "checked",
        "ready",
        "end",
    ]
    pd.testing.assert_frame_equal(low[same_play], high[same_play])
    assert (low["fan"] == np.minimum(high["fan"], 2)).all()
    hand_fired = low.groupby("hand")["fired"].first()
    touched = hand_fired.str.contains("R5-capped|R7.2-pig|R7.4-ready-paid", regex=True)
    changed = (low["delta"] != high["delta"]).groupby(low["hand"]).any()
    assert changed.any(), "no hand reached the cap: the test needs more hands"
    assert not (changed & ~touched).any(), "a hand changed although nothing in it reached the cap"
    # hands decided by a capped win alone pay less, never more
    win_only = changed & hand_fired.str.contains("R5-capped") & ~hand_fired.str.contains("R7.")
    abs_low = low["delta"].abs().groupby(low["hand"]).sum()
    abs_high = high["delta"].abs().groupby(high["hand"]).sum()
    assert (abs_low[win_only] < abs_high[win_only]).all()


# ----------------------------------------------------------------------------- resume


def test_resume_gives_the_same_tidy_table(tmp_path):
    cfg = study(hands=24, variants=[{"max_fan": [4, 5, 6]}])
    full = run_study(cfg, output=tmp_path / "full", progress=False)
    out = tmp_path / "part"
    run_study(cfg, output=out, progress=False)
    # an interrupted study: no final table, one variant half done, one not started
    (out / "results.parquet").unlink()
    drop_chunks(out / "variants" / "max_fan=5", list(range(0, 24, 2)))
    (out / "variants" / "max_fan=5" / "results.parquet").unlink()
    import shutil

    shutil.rmtree(out / "variants" / "max_fan=6")
    partial, _ = load_study_results(out)
    assert 0 < len(partial) < len(full)
    with pytest.raises(RunRefused, match="--resume"):
        run_study(cfg, output=out, progress=False)
    with pytest.raises(RunRefused, match="different study"):
        run_study({**cfg, "seed": 6}, output=out, resume=True, progress=False)
    resumed = run_study(cfg, output=out, resume=True, progress=False)
    pd.testing.assert_frame_equal(full, resumed)
    on_disk, manifest = load_study_results(out)
    pd.testing.assert_frame_equal(full, on_disk)
    assert manifest is not None and manifest.base_variant == "max_fan=4"


# ----------------------------------------------------------------------------- statistics


def _synthetic(rng: np.random.Generator, walls: int = 7) -> pd.DataFrame:
    """Two variants over the same walls, four rotations × four seats per wall."""
    rows = []
    for v, shift in (("base", 0), ("other", 3)):
        hand = 0
        for w in range(walls):
            for rot in range(4):
                end = "wall" if rng.random() < 0.4 else "three_won"
                deltas = rng.integers(-8, 9, size=4)
                deltas[3] = -deltas[:3].sum()
                for seat in range(4):
                    d = int(deltas[seat] * (1 + shift * (w % 2)))
                    won = d > 0
                    rows.append(
                        {
                            "variant": v,
                            "hand": hand,
                            "seed_index": w,
                            "rotation": rot,
                            "seed": 1000 + w,
                            "rules_id": v,
                            "entry": (seat - rot) % 4,
                            "strategy": "xy"[(seat - rot) % 2],
                            "seat": seat,
                            "dealer": seat == w % 4,
                            "delta": d,
                            "won": won,
                            "wins": int(won),
                            "win_order": 1 if won else 0,
                            "self_draw": False,
                            "fan": int(rng.integers(1, 5)) if won else 0,
                            "fan_items": "gen" if won and rng.random() < 0.5 else "",
                            "dealt_in": 0,
                            "kongs": 0,
                            "pig": False,
                            "checked": end == "wall",
                            "ready": False,
                            "escape": False,
                            "timeouts": 0,
                            "end": end,
                            "fired": "R6.1-discard-win" + ("+R7-ready-check" if end == "wall" else ""),
                        }
                    )
                hand += 1
    return pd.DataFrame(rows).astype(STUDY_COLUMNS)


def test_paired_differences_match_numpy_and_scipy():
    df = _synthetic(np.random.default_rng(3))
    rep = study_report(df, base="base")
    t = rep.table.set_index(["key", "variant"])
    # a per-seat mean (|delta|) and a per-hand share (wall ends), each over equal clusters
    a, b = variant(df, "other"), variant(df, "base")
    cases = {
        "score.abs_delta": (
            a["delta"].abs().groupby(a["seed_index"]).mean(),
            b["delta"].abs().groupby(b["seed_index"]).mean(),
        ),
        "end.wall": (
            (a[a.seat == 0]["end"] == "wall").groupby(a[a.seat == 0]["seed_index"]).mean(),
            (b[b.seat == 0]["end"] == "wall").groupby(b[b.seat == 0]["seed_index"]).mean(),
        ),
    }
    for key, (ma, mb) in cases.items():
        d = (ma - mb).to_numpy()
        g = d.size
        half = stats.t.ppf(0.975, g - 1) * d.std(ddof=1) / np.sqrt(g)  # direct numpy + t quantile
        row = t.loc[(key, "other")]
        assert row["diff"] == pytest.approx(d.mean())
        assert row["diff_low"] == pytest.approx(d.mean() - half)
        assert row["diff_high"] == pytest.approx(d.mean() + half)
        ci = stats.ttest_rel(ma.to_numpy(), mb.to_numpy()).confidence_interval(0.95)  # SciPy's paired t
        assert (row["diff_low"], row["diff_high"]) == pytest.approx((ci.low, ci.high))
        one = stats.ttest_1samp(ma.to_numpy(), 0).confidence_interval(0.95)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((one.low, one.high))  # the variant's own interval
        assert np.isnan(t.loc[(key, "base"), "diff"])
    # ratio quantities are ratios of totals
    won = a[a["won"]]
    assert t.loc[("fan.mean", "other"), "value"] == pytest.approx(won["fan"].mean())
    assert t.loc[("fan_item.gen", "other"), "value"] == pytest.approx((won["fan_items"] == "gen").mean())
    assert t.loc[("dealer.delta", "other"), "value"] == pytest.approx(a.loc[a["dealer"], "delta"].mean())
    assert t.loc[("score.sd", "base"), "value"] == pytest.approx(b["delta"].std(ddof=0))
    q = t.loc[("score.q95", "other"), "value"]
    assert q == np.quantile(a["delta"], 0.95, method="inverted_cdf")
    assert t.loc[("rule.R7-ready-check", "base"), "value"] == pytest.approx((b[b.seat == 0]["end"] == "wall").mean())


def test_incomplete_study_is_compared_on_shared_walls():
    df = _synthetic(np.random.default_rng(4))
    cut = df[~((df["variant"] == "other") & (df["seed_index"] >= 5))]
    rep = study_report(cut)
    assert rep.clusters == 5 and rep.notes and "5 walls" in rep.notes[0]
    full = study_report(df[df["seed_index"] < 5])
    pd.testing.assert_frame_equal(rep.table, full.table)


@pytest.mark.parametrize("batch_rows", [1, 7, 64, 1 << 20])
def test_report_of_a_file_read_in_batches_equals_the_report_of_the_table(tmp_path, batch_rows):
    """``study_report_file`` (what ``xuezhan study`` reports, batch by batch in bounded memory)
    gives exactly ``study_report`` of the whole table: every estimate and interval, the
    quantiles, the distribution, the hands; hands cut by a batch boundary (odd sizes, one row)
    are carried over; an incomplete study is compared on its shared walls either way."""
    df = _synthetic(np.random.default_rng(9))
    for table in (df, df[~((df["variant"] == "other") & (df["seed_index"] >= 5))]):
        path = tmp_path / "results.parquet"
        table.to_parquet(path, row_group_size=50)
        whole, streamed = study_report(table), study_report_file(path, batch_rows=batch_rows)
        pd.testing.assert_frame_equal(streamed.table, whole.table)
        pd.testing.assert_frame_equal(streamed.distribution, whole.distribution)
        assert (streamed.hands, streamed.notes, streamed.clusters) == (whole.hands, whole.notes, whole.clusters)


# ----------------------------------------------------------------------------- report and CLI


def test_html_page_and_terminal_tables_hold_every_section(tmp_path):
    df = run_study(
        study(
            hands=16,
            variants=[{"max_fan": [5, 3]}, {"name": "no pigs", "pig_penalty": False}],
        ),
        progress=False,
    )
    rep = study_report(df)
    text = format_study(rep, title="t")
    for heading in SECTIONS.values():
        assert heading in text
    assert "max_fan=5 (base)" in text and "several wins on one discard" in text
    paths = write_study_report(rep, tmp_path, title="cap study")
    page = paths["html"].read_text(encoding="utf-8")
    for key, heading in SECTIONS.items():
        assert f'<h2 id="{key}">{heading}</h2>' in page
    assert page.count("data:image/png;base64,") == 6 and 'src="http' not in page  # each figure wide and narrow
    for words in (
        "forest plot",
        "rule firing",
        "score distributions",
        "no pigs",
        "R7.2",
    ):
        assert words in page
    summary = pd.read_parquet(paths["summary"])
    assert set(summary["variant"]) == {"max_fan=5", "max_fan=3", "no pigs"}
    assert {
        "value",
        "ci_low",
        "ci_high",
        "diff",
        "diff_low",
        "diff_high",
        "rule",
        "label",
    } <= set(summary.columns)


def test_cli_study_runs_resumes_and_rejects_bad_files(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text(
        'hands = 8\nseed = 2\nworkers = 1\nchunk = 4\nstrategies = ["random", "greedy", "value", "greedy"]\n'
        "[[variants]]\nmax_fan = [4, 5]\n",
        encoding="utf-8",
    )
    out = tmp_path / "res"
    r = subprocess.run(
        [*CLI, "study", str(toml), "-o", str(out), "-n", "8"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "How hands end" in r.stdout and "max_fan=4 (base)" in r.stdout
    assert (
        (out / "results.parquet").is_file() and (out / "report.html").is_file() and (out / "summary.parquet").is_file()
    )
    again = subprocess.run(
        [*CLI, "study", str(toml), "-o", str(out), "--no-report"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode != 0 and "--resume" in again.stderr and "Traceback" not in again.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'strategies = ["greedy","greedy","greedy","greedy"]\n[[variants]]\nmax_fan = [3, 3]\n',
        encoding="utf-8",
    )
    r = subprocess.run([*CLI, "study", str(bad)], check=False, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "variants[0].max_fan" in r.stderr and "Traceback" not in r.stderr
