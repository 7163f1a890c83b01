"""Bad input on the command line: one clear error naming the file, the field or line and the
fault, a non-zero exit, never a traceback (every command: replay, validate, eval, tournament,
report, rules). Also ``replay``'s check of the ``expect`` block (R13) and tournament files'
paths relative to their own folder."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from xuezhan.cli import main

VECTORS = Path(__file__).resolve().parent / "vectors"
BASIC = VECTORS / "01-discard-win-basic.json"
BUG = "this is a bug in xuezhan"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def one_error(r: Result, code: int, *words: str) -> str:
    """The run failed with ``code`` and exactly one ``Error:`` line holding ``words``."""
    assert r.exit_code == code, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    out = r.output.strip()
    assert "Traceback" not in out and BUG not in out, out
    assert len(out.splitlines()) == 1, out
    assert out.startswith("Error: "), out
    for w in words:
        assert w in out, (w, out)
    return out


def doc(**changes: object) -> dict:
    d = json.loads(BASIC.read_text(encoding="utf-8"))
    d.update(changes)
    return d


def write(tmp_path: Path, name: str, content: object) -> str:
    p = tmp_path / name
    p.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(p)


# ----------------------------------------------------------------------------- replay: expect (R13)


def test_replay_exit_0_when_expect_matches():
    r = cli("replay", str(BASIC))
    assert r.exit_code == 0 and "expect: matches" in r.output


def test_replay_reports_differing_expect_field(tmp_path):
    d = doc()
    d["expect"]["wins"][0]["fan"] = 3
    d["expect"]["deltas"] = [-2, 2, 0, 0]
    d["expect"]["next_dealer"] = 2
    f = write(tmp_path, "hand.json", d)
    r = cli("replay", f)
    assert r.exit_code == 1
    assert "wins[0].fan: expected 3, got 1" in r.output
    assert "deltas: expected [-2, 2, 0, 0], got [-1, 1, 0, 0]" in r.output
    assert "next_dealer: expected 2, got 1" in r.output
    r = cli("replay", f, "--json")
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and out["expect"]["matches"] is False
    assert {x["field"] for x in out["expect"]["differences"]} == {
        "wins[0].fan",
        "deltas",
        "next_dealer",
    }


def test_replay_reports_differing_win_count_and_seat(tmp_path):
    d = doc()
    d["expect"]["wins"] = [
        {"seat": 2, "from": 0, "tile": "5p", "fan": 1},
        {"seat": 1, "from": None, "tile": "1m", "fan": 1},
    ]
    r = cli("replay", write(tmp_path, "hand.json", d))
    assert r.exit_code == 1 and "len(wins): expected 2, got 1" in r.output
    assert "wins[0].seat: expected 2, got 1" in r.output


def test_replay_reports_differing_error_line(tmp_path):
    # expect names a refused line, but the hand runs to its end: the error line differs.
    r = cli("replay", write(tmp_path, "hand.json", doc(expect={"error": {"line": 1}})))
    assert r.exit_code == 1 and "error.line: expected 1" in r.output
    # a refused line that expect does not name is a finding too
    r = cli("replay", write(tmp_path, "bad.json", doc(script=["0 discard 5p", "2 hu"])))
    assert r.exit_code == 1 and "script line 1" in r.output
    # the refusal that expect names is the expected outcome
    r = cli(
        "replay",
        write(
            tmp_path,
            "ok.json",
            doc(script=["0 discard 5p", "2 hu"], expect={"error": {"line": 1}}),
        ),
    )
    assert r.exit_code == 0, r.output


def test_replay_without_expect_only_runs(tmp_path):
    d = doc()
    del d["expect"]
    r = cli("replay", write(tmp_path, "hand.json", d), "--json")
    assert r.exit_code == 0 and "expect" not in json.loads(r.stdout)


# ----------------------------------------------------------------------------- replay: bad documents


@pytest.mark.parametrize(
    "content, words",
    [
        ("[]", ["a scripted hand is a JSON object", "got []"]),
        ("null", ["a scripted hand is a JSON object", "got null"]),
        ("1", ["a scripted hand is a JSON object", "got 1"]),
        (doc(hands=5), ["hands: expected a list of four tile strings, got 5"]),
        (doc(hands=["1m"]), ["hands: expected a list of four tile strings"]),
        (
            doc(script=None),
            ["script: expected a list of script lines (strings), got null"],
        ),
        (doc(script=[1]), ["script[0]: expected a string, got 1"]),
        (doc(rules={"preset": []}), ["rules: preset = [] is not a preset name"]),
        (doc(rules={"max_fun": 3}), ["rules:", "max_fun"]),
        (doc(exchange=[]), ['exchange: expected "next", "prev" or "across", got []']),
        (doc(dealer=7), ["dealer: expected a seat 0-3, got 7"]),
        (doc(dealer=True), ["dealer: expected a seat 0-3, got true"]),
        (doc(wall=5), ["wall: expected a string, got 5"]),
        (doc(hands=["1m1x", "1m", "1m", "1m"]), ["hands/wall", "1m1x"]),
        (doc(extra=1), ["extra: unknown field"]),
        (doc(expect={"deltas": [1, 2]}), ["expect.deltas"]),
        (
            doc(expect={"wins": [{"seat": 9, "from": 0, "tile": "5p", "fan": 1}]}),
            ["expect.wins[0].seat: expected a seat 0-3, got 9"],
        ),
        ('{"hands": [', ["not JSON", "line 1, column 12"]),
        ('{\n  "hands": [1,\n]}', ["not JSON", "line 3, column 1"]),
        ("[" * 100_000 + "]" * 100_000, ["nested too deeply"]),
    ],
)
def test_replay_bad_document_one_error(tmp_path, content, words):
    f = write(tmp_path, "hand.json", content)
    one_error(cli("replay", f), 2, "hand.json", *words)
    r = cli("replay", f, "--json")
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert "hand.json" in json.loads(r.stdout)["error"]["message"]


def test_replay_reads_only_regular_files(tmp_path):
    one_error(cli("replay", "/dev/zero"), 2, "/dev/zero", "not a regular file")
    one_error(cli("replay", str(tmp_path)), 2, "a folder")
    one_error(cli("replay", str(tmp_path / "missing.json")), 2, "missing.json: no such")


def test_replay_refuses_files_over_the_size_limit(tmp_path, monkeypatch):
    import xuezhan.files

    monkeypatch.setattr(xuezhan.files, "MAX_BYTES", 100)
    one_error(cli("replay", str(BASIC)), 2, "01-discard-win-basic.json", "limit")


def test_replay_log_into_missing_folder(tmp_path):
    one_error(
        cli("replay", str(BASIC), "--log", str(tmp_path / "nope" / "hand.jsonl")),
        2,
        "--log",
        "does not exist",
    )


def test_rules_file_that_is_a_device_is_refused():
    one_error(
        cli("eval", "11122233345m99m", "--rules", "/dev/zero"),
        2,
        "/dev/zero",
        "not a regular file",
    )


# ----------------------------------------------------------------------------- logs (R12.4)


@pytest.fixture
def log_lines(tmp_path) -> list[str]:
    out = tmp_path / "hand.jsonl"
    assert cli("replay", str(VECTORS / "02-kong-then-double-win.json"), "--log", str(out)).exit_code == 0
    return out.read_text(encoding="utf-8").splitlines()


def _log(tmp_path: Path, lines: list[str], name: str = "bad.jsonl") -> str:
    return write(tmp_path, name, "\n".join(lines) + "\n")


@pytest.mark.parametrize("key", ["rules", "hands", "wall", "dealer"])
def test_replay_log_header_missing_field(tmp_path, log_lines, key):
    head = json.loads(log_lines[0])
    del head[key]
    f = _log(tmp_path, [json.dumps(head), *log_lines[1:]])
    one_error(cli("replay", f), 2, "bad.jsonl, line 1", f"header {key}: missing")


@pytest.mark.parametrize(
    "event, words",
    [
        ("[1, 2]", ["line 2", "an event is a JSON object, got [1, 2]"]),
        ('"discard"', ["line 2", "an event is a JSON object"]),
        (
            '{"type": "discard", "seat": 9, "tile": "1m"}',
            ["line 2", "discard.seat: expected a seat 0-3, got 9"],
        ),
        (
            '{"type": "discard", "seat": "x", "tile": "1m"}',
            ["line 2", 'discard.seat: expected a seat 0-3, got "x"'],
        ),
        ('{"type": "discard", "tile": "1m"}', ["line 2", "discard.seat: missing"]),
        ('{"seat": 0}', ["line 2", "event type: missing"]),
        ("{", ["line 2", "not JSON"]),
    ],
)
def test_replay_log_bad_event(tmp_path, log_lines, event, words):
    f = _log(tmp_path, [log_lines[0], event, *log_lines[1:]])
    one_error(cli("replay", f), 2, "bad.jsonl", *words)


def test_replay_log_first_line_not_a_header(tmp_path, log_lines):
    one_error(cli("replay", _log(tmp_path, log_lines[1:])), 2, "line 1", "not a log header")
    one_error(cli("replay", _log(tmp_path, ["", "  "])), 2, "empty log")


def test_validate_reports_each_file(tmp_path, log_lines):
    tmp_path = tmp_path / "logs"
    tmp_path.mkdir()
    _log(tmp_path, log_lines, "a-good.jsonl")
    _log(tmp_path, ["[]"], "b-not-a-log.jsonl")
    _log(
        tmp_path,
        [log_lines[0], '{"type": "discard", "seat": 9, "tile": "1m"}'],
        "c-seat.jsonl",
    )
    (tmp_path / "sub").mkdir()
    _log(tmp_path / "sub", log_lines, "d-good.jsonl")
    r = cli("validate", str(tmp_path))
    assert r.exit_code == 1
    assert "Traceback" not in r.output and BUG not in r.output
    lines = r.output.splitlines()
    assert any(ln.startswith("ok") and ln.endswith("a-good.jsonl") for ln in lines)
    assert any(ln.startswith("ok") and ln.endswith("d-good.jsonl") for ln in lines)
    assert any("FAIL" in ln and "b-not-a-log.jsonl" in ln and "not a log header" in ln for ln in lines)
    assert any("FAIL" in ln and "c-seat.jsonl" in ln and "seat" in ln for ln in lines)
    assert "2 of 4 logs reproduced" in r.output


def test_validate_missing_or_empty_folder(tmp_path):
    one_error(cli("validate", str(tmp_path / "nope")), 2, "no such folder")
    one_error(cli("validate", str(tmp_path)), 2, "no hand logs")


# ----------------------------------------------------------------------------- rules


def test_rules_unknown_id_lists_valid_ids():
    out = one_error(cli("rules", "R99"), 2, "unknown rule id 'R99'", "R4.3", "R13")
    assert "valid ids are R0, R1, R1.1" in out


# ----------------------------------------------------------------------------- tournament and report

LINEUP = "\n".join('[[strategies]]\nstrategy = "random"' for _ in range(3))


def _toml(tmp_path: Path, head: str, first: str = 'strategy = "random"', name: str = "t.toml") -> str:
    return write(
        tmp_path,
        name,
        f"hands = 4\nworkers = 1\n{head}\n[[strategies]]\n{first}\n{LINEUP}\n",
    )


@pytest.mark.parametrize(
    "head, first, words",
    [
        (
            "[rules]\npreset = []",
            'strategy = "random"',
            ["preset = [] is not a preset name"],
        ),
        (
            "",
            'strategy = "collections:OrderedDict"',
            ["strategies[0]", "is not a strategy"],
        ),
        (
            "",
            'strategy = "no_such_module_xz:Bot"',
            ["strategies[0]", "cannot import module 'no_such_module_xz'"],
        ),
        (
            "",
            'strategy = "greedy"\noptions = {foo = 1}',
            ["strategies[0]", "unexpected keyword argument 'foo'"],
        ),
        (
            "",
            'strategy = "value"\noptions = {"not a name" = 1}',
            ["'not a name' is not an option name"],
        ),
        (
            "",
            'strategy = "value"\noptions = {one_suit_step = 0}',
            ["strategies[0]", "one_suit_step must be at least 1 (got 0)"],
        ),
        ("", 'cmd = "./no-such-bot"', ["strategies[0]", "cannot find the program"]),
        ("preset = 'leshan'", 'strategy = "random"', ["unknown key 'preset'"]),
        ("seed = -1", 'strategy = "random"', ["seed: must be 0 to"]),
        ("output = 5", 'strategy = "random"', ["output: expected a folder path"]),
    ],
)
def test_tournament_bad_file_one_error(tmp_path, head, first, words):
    one_error(
        cli("tournament", _toml(tmp_path, head, first), "-o", str(tmp_path / "out")),
        2,
        "t.toml",
        *words,
    )


def test_tournament_refuses_too_many_hands(tmp_path):
    f = _toml(tmp_path, "")
    one_error(
        cli("tournament", f, "--hands", str(10**15)),
        2,
        "hands: must be 1 to 1,000,000,000",
    )
    g = write(
        tmp_path,
        "big.toml",
        Path(f).read_text().replace("hands = 4", f"hands = {10**15}"),
    )
    one_error(cli("tournament", g), 2, "big.toml", "hands")


def test_tournament_output_that_cannot_be_written(tmp_path):
    f = _toml(tmp_path, "")
    one_error(
        cli("tournament", f, "-o", str(Path(f) / "out")),
        2,
        "t.toml is a file, not a folder",
    )
    one_error(
        cli("tournament", f, "-o", "/proc/xuezhan-out"),
        2,
        "/proc/xuezhan-out",
        "cannot write there",
    )
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        one_error(cli("tournament", f, "-o", str(locked / "out")), 2, "cannot write there")


def test_tournament_file_that_is_not_a_file(tmp_path):
    one_error(cli("tournament", str(tmp_path)), 2, "a folder, not a tournament file")
    one_error(cli("tournament", "/dev/zero"), 2, "not a regular file")
    one_error(cli("tournament", str(tmp_path / "x.toml")), 2, "no such tournament file")


def test_tournament_cmd_and_module_relative_to_the_toml_folder(tmp_path, monkeypatch):
    """An external bot's script path and a ``module:Class`` module are found from the TOML file's
    folder, wherever the command is run from (docs/protocol.md)."""
    root = Path(__file__).resolve().parents[1]
    sub = tmp_path / "tour"
    (sub / "bots").mkdir(parents=True)
    shutil.copy(root / "examples" / "bot.py", sub / "bots" / "bot.py")
    (sub / "mybots_xz.py").write_text(
        "from xuezhan.strategies import RandomStrategy\n\nclass Mine(RandomStrategy):\n    pass\n",
        encoding="utf-8",
    )
    toml = sub / "t.toml"
    toml.write_text(
        'hands = 4\nworkers = 1\nseating = "random"\n'
        f'[[strategies]]\nname = "ext"\ncmd = "{sys.executable} bots/bot.py"\n'
        '[[strategies]]\nstrategy = "mybots_xz:Mine"\n'
        '[[strategies]]\nstrategy = "random"\n[[strategies]]\nstrategy = "random"\n',
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the run adds the TOML folder to it
    r = cli(
        "tournament",
        str(toml),
        "-o",
        str(tmp_path / "out"),
        "--no-report",
        "--no-progress",
    )
    assert r.exit_code == 0, r.output
    import pandas as pd

    df = pd.read_parquet(tmp_path / "out" / "results.parquet")
    ext = df[df["strategy"] == "ext"]
    assert len(ext) == 4 and not ext["escape"].any()  # the bot started and played every hand
    assert (df["strategy"] == "mybots_xz:Mine").sum() == 4


def test_report_on_results_missing_a_column(tmp_path):
    import pandas as pd

    from xuezhan.tournament.results import COLUMNS

    row = {c: 0 for c in COLUMNS}
    row.update(strategy="a", rules_id="leshan", fan_items="", end="wall", fired="")
    frame = pd.DataFrame([row]).drop(columns=["fan"])
    frame.to_csv(tmp_path / "r.csv", index=False)
    one_error(cli("report", str(tmp_path / "r.csv")), 2, "r.csv", "missing column(s) fan")
    frame.to_parquet(tmp_path / "results.parquet")
    one_error(cli("report", str(tmp_path)), 2, "results.parquet", "missing column(s) fan")
    (tmp_path / "junk.parquet").write_text("not parquet")
    one_error(
        cli("report", str(tmp_path / "junk.parquet")),
        2,
        "junk.parquet",
        "not a readable Parquet",
    )
    one_error(cli("report", "/dev/zero"), 2, "not a regular file")


def test_unexpected_errors_are_one_line_with_a_bug_hint(monkeypatch):
    import xuezhan.rulebook

    def boom(_: str) -> str:
        raise KeyError("surprise")

    monkeypatch.setattr(xuezhan.rulebook, "section", boom)
    r = cli("rules", "R1")
    assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1
    assert "internal error: KeyError" in r.output and BUG in r.output and "Traceback" not in r.output
