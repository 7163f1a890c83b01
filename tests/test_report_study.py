"""``xuezhan report`` of a study: the study as itself (never its variants pooled as one tournament,
never a tournament's files added to its folder, never a report in a folder of the other kind),
opening with a verdict per variant against the base; cells with no spread left out or explained;
80-column terminals."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from _report_helpers import play_tournament
from click.testing import CliRunner
from rich.cells import cell_len
from scipy import stats

from xuezhan.cli import main
from xuezhan.reporting import MINUS
from xuezhan.study import load_study_results
from xuezhan.study.cells import study_cells
from xuezhan.study.report import format_study, measure_results, write_study_report

STUDY = """name = "s"
hands = 48
seed = 5
chunk = 8
workers = 1
strategies = ["greedy", "value", "greedy", "value"]
base_variant = "max_fan=5"

[[variants]]
max_fan = [5, 3]

[[variants]]
name = "same as base"
max_fan = 5
"""


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, str]:
    """A study played by ``xuezhan study`` and what it printed."""
    root = tmp_path_factory.mktemp("study")
    (root / "s.toml").write_text(STUDY, encoding="utf-8")
    out = root / "out"
    run = CliRunner().invoke(main, ["study", str(root / "s.toml"), "-o", str(out), "--no-progress"])
    assert run.exit_code == 0, run.output
    return out, run.stdout


@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Path:
    return play_tournament(tmp_path_factory.mktemp("tournament"), "--no-progress")[0]


# ----------------------------------------------------------------------------- a study is a study


def test_report_of_a_study_folder_prints_the_study_as_it_was_played_never_pooled(played):
    out, printed = played
    r = CliRunner().invoke(main, ["report", str(out)])
    assert r.exit_code == 0, r.output
    assert r.stdout == printed  # the run's words, header and verdict included
    assert printed.splitlines()[0] == "s: 3 rule variants, 48 hands each, on 12 walls (duplicate seating)"
    # not one tournament of 144 hands over the variants' rules, comparing strategies across them
    assert "144 hands" not in printed and "rules: leshan, leshan-" not in printed
    assert "Per strategy" not in printed and "on the same walls (95% interval" not in printed
    assert "variants: max_fan=5, max_fan=3, same as base (base: max_fan=5)" in printed  # the study's order


def test_report_of_a_study_folder_neither_overwrites_nor_adds_tournament_files(played):
    out, _ = played
    before = _files(out)
    assert {"report.html", "summary.parquet", "distribution.parquet", "report.json"} <= set(before)
    r = CliRunner().invoke(main, ["report", str(out)])
    assert r.exit_code == 0, r.output
    # the same files, byte for byte: the study's own page written again as it was, nothing added
    assert _files(out) == before
    assert not any(name.endswith((".png", ".csv")) for name in before)


def test_report_of_a_study_table_is_the_study_wherever_the_table_is(played, tmp_path):
    out, printed = played
    r = CliRunner().invoke(main, ["report", str(out / "results.parquet"), "--no-plots"])
    assert r.exit_code == 0, r.output
    assert r.stdout == printed[: printed.rindex("report: ")]
    # a copy elsewhere, with no manifest beside it: still a study (its `variant` column says so)
    copy = tmp_path / "copied.parquet"
    shutil.copy(out / "results.parquet", copy)
    r = CliRunner().invoke(main, ["report", str(copy)])
    assert r.exit_code == 0, r.output
    assert "Verdict (paired: each variant against the base max_fan=5 on the same 12 walls" in r.stdout
    written = {p.name for p in tmp_path.iterdir()}
    assert written == {"copied.parquet", "report.html", "report.json", "summary.parquet", "distribution.parquet"}


def test_a_report_is_never_written_into_a_folder_of_the_other_kind(played, tournament, tmp_path):
    study_out, _ = played
    runner = CliRunner()
    study_files, tournament_files = _files(study_out), _files(tournament)
    r = runner.invoke(main, ["report", str(tournament), "-o", str(study_out)])
    assert r.exit_code == 2 and "holds a study's results or report" in r.output, r.output
    r = runner.invoke(main, ["report", str(study_out), "-o", str(tournament)])
    assert r.exit_code == 2 and "holds a tournament's results or report" in r.output, r.output
    assert _files(study_out) == study_files and _files(tournament) == tournament_files
    # a folder holding only a report (written there with --output) is of that report's kind
    elsewhere = tmp_path / "elsewhere"
    assert runner.invoke(main, ["report", str(study_out), "-o", str(elsewhere)]).exit_code == 0
    r = runner.invoke(main, ["report", str(tournament), "-o", str(elsewhere)])
    assert r.exit_code == 2 and "holds a study's results or report" in r.output
    # printing only (no file written) is never refused
    assert runner.invoke(main, ["report", str(tournament), "-o", str(study_out), "--no-plots"]).exit_code == 0


# ----------------------------------------------------------------------------- the verdict


def _block(lines: list[str], heading: str) -> list[str]:
    """The sentences under a variant's heading in the verdict."""
    at = lines.index(heading)
    out = []
    for line in lines[at + 1 :]:
        if not line.startswith("- "):
            break
        out.append(line[2:])
    return out


def _number(text: str) -> float:
    return float(text.replace(MINUS, "-"))


def test_study_report_opens_with_a_verdict_for_each_variant_that_scipy_agrees_with(played):
    out, printed = played
    lines = printed.splitlines()
    intro = next(i for i, line in enumerate(lines) if line.startswith("Verdict (paired: each variant against"))
    assert intro < next(i for i, line in enumerate(lines) if line.startswith("value (Δ±h)"))
    assert all(not line.startswith("─") for line in lines[:intro])  # no table before the verdict
    report, _ = measure_results(out)
    # wide enough that no sentence wraps
    text = format_study(report, rules={"max_fan=3": "max_fan 3 instead of 5"}, width=1000).splitlines()
    capped = _block(text, "max_fan=3 (max_fan 3 instead of 5):")
    df, _ = load_study_results(out)
    pattern = re.compile(
        r"^(\w+) scores ([\d.]+) points per hand (more|less) than under max_fan=5 "
        r"\(95% interval ([−+]?[\d.]+) to ([−+]?[\d.]+)\): (.*)$"
    )
    checked = 0
    for sentence in capped:
        m = pattern.match(sentence)
        if not m:
            continue
        name, amount, direction, low, high, verdict = m.groups()
        per = df[df["strategy"] == name].groupby(["variant", "seed_index"])["delta"].mean()
        d = (per["max_fan=3"] - per["max_fan=5"]).to_numpy()
        ci = stats.ttest_1samp(d, 0).confidence_interval(0.95)  # SciPy's paired t over the walls
        tol = 10 ** -len(amount.split(".")[1]) / 2 + 1e-9
        assert float(amount) == pytest.approx(abs(d.mean()), abs=tol)
        assert (_number(low), _number(high)) == pytest.approx((ci.low, ci.high), abs=tol)
        assert direction == ("more" if d.mean() > 0 else "less")
        clear = ci.low > tol or ci.high < -tol
        assert verdict == (
            f"max_fan=3 {'helps' if d.mean() > 0 else 'hurts'} {name}" if clear else "no clear difference"
        )
        checked += 1
    assert checked == 2  # greedy and value
    # a lower cap clearly puts more wins at the cap: named among the changes, with both values
    assert any(s.startswith("hands with a win at the cap (极品): from ") for s in capped)
    # the variant that plays exactly as the base says so, in one sentence
    assert _block(text, "same as base:") == [
        "every quantity is the same as under max_fan=5 on every wall: these rules change nothing here"
    ]


def test_study_cells_with_no_spread_are_left_out_or_explained(played):
    out, _ = played
    report, _ = measure_results(out)
    text = format_study(report, width=1000)
    assert not re.search(r"\([+−]?0(\.0+)?±0(\.0+)?\)", text)  # no "(0.0±0.0)"
    assert not re.search(r"±0(\.0+)?(\s|$)", text)  # no "±0.0" on a value that never varies
    cells = study_cells(report)
    same, never = cells.left_out()
    assert same and never
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(("The same under every variant", "Never happened"))]
    assert len(starts) == 2
    notes = []  # each note with the lines it wraps onto
    for i in starts:
        end = next(j for j in range(i + 1, len(lines)) if j in starts or not lines[j].strip())
        notes.append(" ".join(lines[i:end]))
    table_labels = {line.split("  ")[0] for line in text.splitlines()}
    for row in same + never:
        assert row.title in notes[0 if row in same else 1] and row.title not in table_labels
    # what the notes claim, checked on the results themselves: hands end alike wall by wall
    df, _ = load_study_results(out)
    first = df[df["seat"] == 0]
    for row in same + never:
        if row.key.startswith("end."):
            share = (first["end"] == row.key[4:]).groupby([first["variant"], first["seed_index"]]).mean().unstack(0)
            assert all(np.array_equal(share[v], share["max_fan=5"]) for v in report.variants)
            if row.never:
                assert not share.to_numpy().any()
    # every row still shown has a variant that differs from the base
    for row in cells.shown():
        assert any(not cells.cells[(row.key, v)].same for v in report.variants if v != report.base)
    page = write_study_report(report, out.parent / "page", title="s")["html"].read_text(encoding="utf-8")
    assert not re.search(r"Δ [+−]?0(\.0+)? \[[+−]?0(\.0+)?, [+−]?0(\.0+)?\]", page)
    assert page.index('id="verdict"') < page.index("<table")
    assert "every quantity is the same as under max_fan=5 on every wall" in page


@pytest.mark.parametrize("width", [80, 60])
def test_study_terminal_report_fits_the_terminal_with_the_base_in_every_table(played, width):
    out, _ = played
    report, _ = measure_results(out)
    text = format_study(report, width=width)
    assert all(cell_len(line) <= width for line in text.splitlines())
    rules = [i for i, line in enumerate(text.splitlines()) if set(line) == {"─"}]
    assert len(rules) > 3
    assert text.count("(base)") >= len(rules)  # a table split by columns keeps the base beside each part
