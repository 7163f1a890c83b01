"""``xuezhan eval`` (R4, R5, R7.3, R11): text and JSON output, errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from xuezhan.cli import main


def run(*args):
    return CliRunner().invoke(main, ["eval", *args])


def test_r7_3_eval_13_tiles_json_waits_leshan():
    r = run("11122233345m99m", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["win"] is False and d["shanten"] == 0
    assert d["waits"] == [
        {"tile": "3m", "fan": 4, "points": 8},
        {"tile": "6m", "fan": 3, "points": 4},
        {"tile": "9m", "fan": 3, "points": 4},
    ]


def test_r7_3_eval_13_tiles_text():
    r = run("11122233345m99m")
    assert r.exit_code == 0
    assert "shanten 0" in r.output
    assert "3m  4 fan" in r.output and "6m  3 fan" in r.output


def test_r5_eval_14_tiles_win_json():
    r = run("55p", "--melds", "222m,444m,666p,(7777p)", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["win"] is True and d["shanten"] == -1
    assert (d["fan"], d["points"]) == (4, 8)
    assert d["items"] == {"all_triplets": 1, "gen": 1, "single_wait_melded": 1}
    assert d["melds"] == ["222m", "444m", "666p", "(7777p)"]
    assert d["best_discards"] == [{"tile": "5p", "shanten": 0, "ukeire": 3}]


def test_r5_eval_14_tiles_text_lists_items():
    r = run("11122233345m99m3m")
    assert r.exit_code == 0
    assert "win    yes, on 3m: 4 fan, 8 points" in r.output
    assert "one_suit (清一色)" in r.output and "gen (根)" in r.output
    assert "discards" in r.output


def test_r4_2_eval_14_tiles_not_a_win():
    r = run("123m456p789s11m123m", "--json")
    d = json.loads(r.output)
    assert d["win"] is False and "fan" not in d and d["shanten"] >= 0
    # a 14-tile hand's shanten is the best shanten after one discard
    assert d["best_discards"][0]["shanten"] == d["shanten"]
    t = run("123m456p789s11m123m")
    assert "win    no" in t.output


def test_r11_eval_rules_preset_and_file(tmp_path):
    d = json.loads(run("222m555m888m222p55p", "--rules", "chengdu", "--json").output)
    assert d["items"] == {"all_triplets": 1, "pairs_258": 2} and d["rules"] == "chengdu"
    f = tmp_path / "r.toml"
    f.write_text('preset = "leshan"\nmax_fan = 3\n')
    d = json.loads(run("11122233345m99m", "--rules", str(f), "--json").output)
    assert [w["fan"] for w in d["waits"]] == [3, 3, 3]


def test_r11_2_eval_void():
    d = json.loads(run("234m456m678m345p77p", "--void", "p", "--json").output)
    assert d["win"] is False and d["void"] == "p"


def test_r5_eval_win_tile_option():
    d = json.loads(run("111123m456p789p55p", "--win-tile", "1m", "--json").output)
    assert d["win_tile"] == "1m" and d["items"] == {"gen": 1}


@pytest.mark.parametrize(
    "args, words",
    [
        (["1m2x"], ['"1m2x" is not a tile', "'x' is not a suit"]),
        (["123m"], ["has 3 tiles", "expected 13 or 14"]),
        (["11111m22233344m"], ["five 1m"]),
        (["11122233345m99m", "--melds", "66p"], ['"66p" is not a meld']),
        (["11122233345m99m", "--rules", "tokyo"], ["unknown preset 'tokyo'"]),
        (["11122233345m99m", "--rules", "missing.toml"], ["missing.toml: no such rules file"]),
        (["111222333m99m", "--melds", "999m"], ["five 9m"]),
    ],
)
def test_r0_eval_bad_input_exit_2_no_traceback(args, words):
    r = CliRunner().invoke(main, ["eval", *args])
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    for w in words:
        assert w in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_r7_3_eval_subprocess_entry_point():
    """The installed ``xuezhan`` console script, in a fresh process."""
    exe = Path(sys.executable).with_name("xuezhan")
    assert exe.exists(), exe
    p = subprocess.run([str(exe), "eval", "11122233345m99m", "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert [(w["tile"], w["fan"], w["points"]) for w in d["waits"]] == [("3m", 4, 8), ("6m", 3, 4), ("9m", 3, 4)]
    bad = subprocess.run([str(exe), "eval", "1m2x"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and '"1m2x" is not a tile' in bad.stderr
