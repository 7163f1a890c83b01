"""``xuezhan tournament --logs``: one gzip JSON-lines log per hand that ``replay``,
``validate`` and the replay viewer read (R12.4), the same bytes on every run."""

from __future__ import annotations

import doctest
import gzip

from click.testing import CliRunner

from xuezhan.cli import main
from xuezhan.cli.replay_cmd import _logs_under, check_log_file
from xuezhan.engine import replay_log
from xuezhan.tournament import TournamentConfig, hand_logs, run
from xuezhan.tournament.hand_logs import read_lines


def _config(folder, hands=8):
    return TournamentConfig(
        strategies=("random", "greedy", "value", "greedy"),
        hands=hands,
        seed=11,
        workers=1,
        hand_logs=str(folder),
    )


def test_docstring_examples():
    assert doctest.testmod(hand_logs).failed == 0


def test_one_replayable_log_per_hand_same_bytes_every_run_R12_4(tmp_path):
    df = run(_config(tmp_path / "a"))
    run(_config(tmp_path / "b"))
    files = sorted((tmp_path / "a").glob("*.jsonl.gz"))
    assert [f.name for f in files] == [hand_logs.log_name(i) for i in range(8)]
    for f in files:
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes()
        rnd = replay_log(read_lines(f))
        # the log's hand is the results table's hand
        rows = df[df["hand"] == int(f.name[5:11])].sort_values("seat")
        assert list(rows["delta"]) == rnd.ledger.deltas
    logs = _logs_under(str(tmp_path / "a"))
    assert logs and all(check_log_file(f) is None for f in logs)
    # the identity (and so --resume) does not depend on whether logs are kept
    assert _config(tmp_path).identity() == _config(tmp_path).replace(hand_logs=None).identity()


def test_validate_names_a_damaged_log(tmp_path):
    run(_config(tmp_path, hands=4))
    f = tmp_path / hand_logs.log_name(2)
    lines = read_lines(f)
    lines[5] = lines[5].replace('"discard"', '"discardx"', 1) if '"discard"' in lines[5] else '{"type": "nonsense"}'
    f.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    res = CliRunner().invoke(main, ["validate", str(tmp_path)])
    assert res.exit_code == 1 and "hand-000002.jsonl.gz" in res.output and "3 of 4 logs reproduced" in res.output


def test_tournament_command_keeps_logs_and_points_at_the_lost_hands(tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text(
        'name = "t"\nhands = 4\nseed = 3\nworkers = 1\nstrategies = ["random", "greedy", "value", "greedy"]\n'
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["tournament", str(toml), "-o", str(out), "--logs", "--no-report"])
    assert res.exit_code == 0, res.output
    assert len(list((out / "logs").glob("*.jsonl.gz"))) == 4
    assert "xuezhan view" in res.output
    res = CliRunner().invoke(main, ["replay", str(out / "logs" / hand_logs.log_name(0))])
    assert res.exit_code == 0 and "OK" in res.output


def test_the_html_report_links_each_strategys_biggest_losses(tmp_path):
    from xuezhan.tournament.report import write_report

    out = tmp_path / "out"
    df = run(_config(out / hand_logs.LOG_DIR, hands=8))
    page = write_report(df, out)["html"].read_text(encoding="utf-8")
    assert "Lost hands to replay" in page
    for _name, rows in df.groupby("strategy"):
        worst = rows.nsmallest(1, "delta").iloc[0]
        if worst["delta"] < 0:
            log = hand_logs.log_name(int(worst["hand"]))
            assert f'href="{hand_logs.LOG_DIR}/{log}"' in page
            assert f"xuezhan view {out / hand_logs.LOG_DIR / log}" in page
    # without logs beside the results, no such section
    assert "Lost hands" not in write_report(df, tmp_path / "bare")["html"].read_text(encoding="utf-8")
