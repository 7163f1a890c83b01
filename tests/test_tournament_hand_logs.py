"""``xuezhan tournament --logs``: one gzip JSON-lines log per hand that ``replay``,
``validate`` and the replay viewer read (R12.4), the same bytes on every run."""

from __future__ import annotations

import doctest
import gzip
import re

from _report_helpers import play_tournament
from click.testing import CliRunner

from xuezhan.cli import main
from xuezhan.cli.replay_cmd import _logs_under, check_log_file
from xuezhan.engine import replay_log
from xuezhan.reporting import MINUS
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
    out, res = play_tournament(
        tmp_path, "--logs", "--no-report", hands=4, strategies=("random", "greedy", "value", "greedy")
    )
    assert len(list((out / "logs").glob("*.jsonl.gz"))) == 4
    assert "xuezhan view" in res.output
    res = CliRunner().invoke(main, ["replay", str(out / "logs" / hand_logs.log_name(0))])
    assert res.exit_code == 0 and "OK" in res.output


def test_the_html_report_links_each_strategys_biggest_losses(tmp_path):
    from xuezhan.tournament.report import write_report

    out = tmp_path / "out"
    df = run(_config(out / hand_logs.LOG_DIR, hands=8))
    page = write_report(df, out)["html"].read_text(encoding="utf-8")
    assert "Lost hands to review" in page
    for _name, rows in df.groupby("strategy"):
        worst = rows.nsmallest(1, "delta").iloc[0]
        if worst["delta"] < 0:
            log = hand_logs.log_name(int(worst["hand"]))
            assert f'href="{hand_logs.LOG_DIR}/{log}"' in page
            seat = int(worst["seat"])
            assert f"xuezhan review {out / hand_logs.LOG_DIR / log} --seat {seat}" in page
    # without logs beside the results, no such section
    assert "Lost hands" not in write_report(df, tmp_path / "bare")["html"].read_text(encoding="utf-8")


def test_the_loss_list_names_the_seat_that_xuezhan_review_needs(tmp_path):
    """Each listed loss names the hand and the seat the strategy held there, and its command
    reviews that seat: the table's row of that (hand, seat) is the strategy's, with the points."""
    out, res = play_tournament(tmp_path, "--logs", "--no-progress")
    from xuezhan.tournament import load_results

    df = load_results(out).set_index(["hand", "seat"])
    pattern = re.compile(r"^  (\S+), seat (\d) in hand (\d+) \(([−+]?\d+)\):  xuezhan review (\S+) --seat (\d)$")
    listed = [m.groups() for m in map(pattern.match, res.stdout.splitlines()) if m]
    assert len(listed) >= 3  # random loses in most hands
    for name, seat, hand, points, log, review_seat in listed:
        row = df.loc[(int(hand), int(seat))]
        assert row["strategy"] == name and row["delta"] == int(points.replace(MINUS, "-")) < 0
        assert review_seat == seat and log == str(out / hand_logs.LOG_DIR / hand_logs.log_name(int(hand)))
    _name, seat, _hand, _points, log, _ = listed[0]
    review = CliRunner().invoke(main, ["review", log, "--seat", seat, "--rollouts", "2", "--no-progress"])
    assert review.exit_code == 0, review.output
    assert f"Review of seat {seat}" in review.output
