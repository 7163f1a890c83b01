"""``xuezhan review LOG --seat N``: rich tables or the JSON document, the same output for the
same seed, tournament logs (gzip) and room logs, and one error line with exit 2 for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _review_helpers import slipped_hand
from click.testing import CliRunner, Result

from xuezhan.cli import main
from xuezhan.engine import write_log
from xuezhan.review import Review

VECTORS = Path(__file__).resolve().parent / "vectors"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def one_error(r: Result, *words: str) -> str:
    """Exit 2 with exactly one ``Error:`` line holding ``words``, no traceback."""
    assert r.exit_code == 2, r.output
    out = r.output.strip()
    assert "Traceback" not in out and "this is a bug" not in out, out
    assert len(out.splitlines()) == 1 and out.startswith("Error: "), out
    for w in words:
        assert w in out, (w, out)
    return out


@pytest.fixture(scope="module")
def slip_log(tmp_path_factory):
    slip = slipped_hand("turn")
    path = tmp_path_factory.mktemp("review") / "slip.jsonl"
    write_log(slip.rnd, path)
    return path, slip


def test_terminal_output_lists_each_decision_then_the_decisions_by_loss(slip_log, monkeypatch):
    path, slip = slip_log
    monkeypatch.setenv("COLUMNS", "120")  # the tables' width (a terminal's, whatever runs the tests)
    r = cli("review", str(path), "--seat", "0", "--rollouts", "8")
    assert r.exit_code == 0, r.output
    out = r.output
    prose = " ".join(out.split())  # the header's prose wraps at the terminal's width
    assert f"Review of seat 0 in {path} (leshan)" in prose and "8 rollouts per decision" in prose
    assert "Decisions of seat 0, in play order" in out and "Sorted by loss" in out
    order, ranked = out.split("Sorted by loss")
    assert "played: discard 7m" in order and "95% interval" in order
    # the first row of the sorted table is the thrown-away win, its best action the win
    first = next(ln for ln in ranked.splitlines() if ln.strip().startswith("1 "))
    assert "discard 7m" in first and "hu +48.00" in first, first


def test_json_is_the_review_document_and_the_same_seed_gives_the_same_bytes(slip_log):
    path, slip = slip_log
    a = cli("review", str(path), "--seat", "0", "--rollouts", "4", "--json", "--seed", "3")
    b = cli("review", str(path), "--seat", "0", "--rollouts", "4", "--json", "--seed", "3")
    assert a.exit_code == 0 and a.output == b.output
    rv = Review.model_validate_json(a.output)
    assert rv.seed == 3 and rv.rollouts == 4 and rv.decisions[rv.by_loss[0]].event == slip.event
    text = cli("review", str(path), "--seat", "0", "--rollouts", "4", "--seed", "3")
    assert text.output == cli("review", str(path), "--seat", "0", "--rollouts", "4", "--seed", "3").output


def test_a_tournament_log_is_reviewed(tmp_path):
    from xuezhan.tournament import TournamentConfig, run

    run(TournamentConfig(strategies=("random", "greedy", "value", "greedy"), hands=1, seed=5, workers=1,
                         hand_logs=str(tmp_path)))  # fmt: skip
    log = sorted(tmp_path.glob("*.jsonl.gz"))[0]  # a duplicate tournament plays each wall in four seatings
    r = cli("review", str(log), "--seat", "2", "--rollouts", "2", "--json")
    assert r.exit_code == 0, r.output
    rv = Review.model_validate_json(r.output)
    assert rv.seat == 2 and rv.decisions and rv.source == str(log)


def test_a_seat_without_a_choice_says_so(tmp_path):
    # the first rule vector: seat 2 is never asked anything with a choice
    out = tmp_path / "basic.jsonl"
    r = cli("replay", str(VECTORS / "01-discard-win-basic.json"), "--log", str(out))
    assert r.exit_code == 0, r.output
    r = cli("review", str(out), "--seat", "2", "--rollouts", "2")
    assert r.exit_code == 0 and "nothing to review" in r.output
    j = json.loads(cli("review", str(out), "--seat", "2", "--rollouts", "2", "--json").output)
    assert j["decisions"] == [] and j["by_loss"] == []


def test_a_missing_file_is_one_error(tmp_path):
    one_error(cli("review", str(tmp_path / "nope.jsonl"), "--seat", "0"), "nope.jsonl", "no such hand log")


def test_a_broken_log_is_one_error_naming_its_line(tmp_path, slip_log):
    path, _ = slip_log
    lines = path.read_text().splitlines()
    bad = tmp_path / "broken.jsonl"
    bad.write_text("\n".join([*lines[:5], lines[5][:20], *lines[6:]]) + "\n")
    one_error(cli("review", str(bad), "--seat", "0"), "broken.jsonl", "line 6", "not JSON")


def test_a_log_the_engine_does_not_reproduce_is_one_error(tmp_path, slip_log):
    path, _ = slip_log
    lines = path.read_text().splitlines()
    bad = tmp_path / "cut.jsonl"
    bad.write_text("\n".join(lines[:3] + lines[4:]) + "\n")
    one_error(cli("review", str(bad), "--seat", "0"), "cut.jsonl", "not the log of a hand the engine plays", "line 4")


def test_a_log_of_another_rule_set_is_one_error(tmp_path, slip_log):
    path, _ = slip_log
    lines = path.read_text().splitlines()
    bad = tmp_path / "riichi.jsonl"
    bad.write_text("\n".join([lines[0].replace('"preset":"leshan"', '"preset":"riichi"'), *lines[1:]]) + "\n")
    one_error(cli("review", str(bad), "--seat", "0"), "riichi.jsonl", "line 1", "unknown preset 'riichi'")


def test_a_scripted_hand_is_not_a_log(tmp_path):
    script = str(VECTORS / "01-discard-win-basic.json")
    one_error(cli("review", script, "--seat", "0"), script, "a scripted hand (R13), not a hand log", "--log")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--seat", "4"], ["--seat 4", "0, 1, 2 or 3"]),
        (["--seat", "-1"], ["--seat -1"]),
        (["--seat", "0", "--rollouts", "1"], ["--rollouts 1"]),
        (["--seat", "0", "--rollouts", "100000"], ["--rollouts 100000"]),
        (["--seat", "0", "--top", "0"], ["--top 0"]),
    ],
)
def test_options_out_of_range_are_one_error(slip_log, args, words):
    path, _ = slip_log
    one_error(cli("review", str(path), *args), *words)


def test_errors_are_json_with_json(slip_log):
    path, _ = slip_log
    r = cli("review", str(path), "--seat", "7", "--json")
    assert r.exit_code == 2
    assert json.loads(r.output) == {"error": {"line": None, "message": "--seat 7: a seat is 0, 1, 2 or 3"}}


def test_a_missing_seat_is_a_usage_error(slip_log):
    path, _ = slip_log
    r = cli("review", str(path))
    assert r.exit_code == 2 and "Missing option '--seat'" in r.output


@pytest.fixture
def room_db(tmp_path, slip_log):
    from xuezhan.engine import log_lines
    from xuezhan.serve.replay import named_log
    from xuezhan.serve.standings import Standings

    _, slip = slip_log
    db = tmp_path / "room.db"
    ledger = Standings(str(db))
    lines = named_log(log_lines(slip.rnd), ["Mei", "greedy", "value", "random"])
    rid = ledger.book_hand("Table 1", "leshan", 1, "c" * 64, lines, [None] * 4, list(slip.rnd.ledger.deltas), [0] * 4)
    ledger.close()
    return db, rid


def test_a_hand_played_in_the_room_is_reviewed_from_its_database(room_db, slip_log):
    db, rid = room_db
    _, slip = slip_log
    r = cli("review", rid, "--db", str(db), "--seat", "0", "--rollouts", "4", "--json")
    assert r.exit_code == 0, r.output
    rv = Review.model_validate_json(r.output)
    assert rv.name == "Mei" and rv.source == f"Table 1, hand {rid}"
    assert rv.decisions[rv.by_loss[0]].event == slip.event
    text = cli("review", rid, "--db", str(db), "--seat", "0", "--rollouts", "4").output
    assert text.startswith(f"Review of seat 0 (Mei) in Table 1, hand {rid} (leshan)")


def test_a_room_hand_that_is_not_there_is_one_error(room_db, tmp_path):
    db, _ = room_db
    one_error(cli("review", "h99", "--db", str(db), "--seat", "0"), "h99: no such hand in", str(db))
    one_error(cli("review", "h1", "--db", str(tmp_path / "none.db"), "--seat", "0"), "no standings database there")
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    one_error(cli("review", "h1", "--db", str(junk), "--seat", "0"), "junk.db", "not a database")
