"""The tournament and study reports: the verdict first, one sentence per paired comparison; a
difference marked only when its interval excludes zero at the precision shown; pages that fit a
390 px phone and a 1280 px window in Chromium; terminal tables with whole labels, aligned East Asian text and one
number of decimals per row; ``xuezhan report`` printing what the run printed."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _report_helpers import play_tournament
from click.testing import CliRunner
from rich.cells import cell_len
from scipy import stats

from xuezhan.cli import main
from xuezhan.reporting import MINUS, NARROW_SCREEN, clear_at, number
from xuezhan.study import run_study
from xuezhan.study.measure import study_report
from xuezhan.study.report import format_study, write_study_report
from xuezhan.tournament.report import (
    ReportHeader,
    format_report,
    pairwise,
    summarize,
    verdicts,
    write_report,
)

ROOT = Path(__file__).parents[1]
SNAPSHOT = Path(__file__).parent / "snapshots" / "tournament_report.txt"
HEADER = ReportHeader(
    name="synthetic",
    hands=240,
    walls=60,
    seating="duplicate",
    seed=11,
    rules="leshan",
    lineup=("alpha", "beta", "gamma", "gamma"),
    version="0.0.0",
    date="2026-01-01 00:00 UTC",
    command="xuezhan tournament synthetic.toml",
)


def synthetic(per_wall: dict[str, np.ndarray], walls: int = 60) -> pd.DataFrame:
    """A results table in which strategy ``s`` scores ``per_wall[s][w]`` in every hand of wall
    ``w`` (four hands per wall, one seat each), so each paired difference over walls is known."""
    rows = []
    names = list(per_wall)
    for w in range(walls):
        for rot in range(4):
            hand = 4 * w + rot
            for seat in range(4):
                name = names[(seat + rot) % len(names)] if seat < len(names) else names[-1]
                delta = int(per_wall[name][w])
                rows.append(
                    {
                        "hand": hand,
                        "seed_index": w,
                        "rules_id": "leshan",
                        "strategy": name,
                        "seat": seat,
                        "delta": delta,
                        "won": delta > 0,
                        "self_draw": delta > 6,
                        "fan": 1 + (abs(delta) % 3) if delta > 0 else 0,
                        "dealt_in": int(delta < -3),
                        "pig": delta < -15,
                        "checked": w % 3 == 0,
                        "ready": delta >= 0,
                        "escape": False,
                        "timeouts": 0,
                        "fired": "R6.1-discard-win" if delta > 0 else "",
                    }
                )
    return pd.DataFrame(rows)


def three_strategies() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    base = rng.integers(-8, 9, size=60)
    return synthetic(
        {
            "alpha": base + 2 + rng.integers(-1, 2, size=60),
            "beta": base + rng.integers(-1, 2, size=60),
            "gamma": base - 30 + rng.integers(-4, 5, size=60),
        }
    )


# ----------------------------------------------------------------------------- the verdict


def test_every_paired_comparison_has_its_sentence_with_the_t_interval():
    df = three_strategies()
    pairs = pairwise(df)
    vs = verdicts(pairs, list(summarize(df, rating=False).index))
    assert len(vs) == len(pairs) == 3
    per = df.groupby(["strategy", "seed_index"])["delta"].mean().unstack(0)
    for v in vs:
        d = (per[v.better] - per[v.worse]).to_numpy()
        half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
        expected = (
            f"{v.better} scores {number(d.mean(), v.decimals)} points per hand more than {v.worse} on the same "
            f"walls (95% interval {number(d.mean() - half, v.decimals)} to {number(d.mean() + half, v.decimals)}, "
            f"60 walls): {v.better} is better"
        )
        assert v.sentence == expected
    # the close call (neighbours in the ranking) comes first
    assert (vs[0].better, vs[0].worse) == ("alpha", "beta")


def test_a_zero_width_interval_is_never_marked():
    same = np.arange(60) % 7 - 3
    df = synthetic({"alpha": same, "beta": same.copy(), "gamma": same - 5})
    v = next(v for v in verdicts(pairwise(df)) if {v.better, v.worse} == {"alpha", "beta"})
    assert (v.diff, v.low, v.high) == (0.0, 0.0, 0.0)
    assert not v.clear and v.sentence.endswith("no clear difference")
    assert "score the same" in v.sentence


def test_an_interval_covering_zero_says_no_clear_difference():
    rng = np.random.default_rng(9)
    noise = rng.integers(-3, 4, size=60)
    df = synthetic({"alpha": noise, "beta": noise[::-1].copy(), "gamma": noise - 20})
    v = next(v for v in verdicts(pairwise(df)) if {v.better, v.worse} == {"alpha", "beta"})
    assert v.low < 0 < v.high
    assert not v.clear and v.sentence.endswith(": no clear difference")


def test_a_far_behind_strategy_gets_its_own_panel_so_close_ones_stay_apart():
    import matplotlib.pyplot as plt

    from xuezhan.tournament.report import report_plots

    df = three_strategies()
    plots = {p.name: p for p in report_plots(df, summarize(df, rating=False))}
    try:
        axes = [ax for ax in plots["mean_delta"].figure.axes if ax.get_yticklabels()]
        panels = sorted(sorted(t.get_text() for t in ax.get_yticklabels()) for ax in axes)
        assert panels == [["alpha", "beta"], ["gamma"]]
        assert "separate panels" in plots["mean_delta"].caption
        # the forest plot: one row per comparison, each on its own scale
        assert len(plots["paired_differences"].figure.axes) == 3
    finally:
        for p in plots.values():
            plt.close(p.figure)


def test_clear_only_when_zero_is_excluded_at_the_decimals_shown():
    assert not clear_at(0.001, 0.004, 2)  # [0.00, 0.00] shown
    assert clear_at(0.001, 0.004, 3)
    assert not clear_at(-0.004, -0.0001, 2)
    assert clear_at(-0.2, -0.1, 1)


def test_terminal_report_snapshot():
    """The whole terminal report of a fixed table and header, word for word."""
    df = three_strategies()
    text = format_report(df, HEADER)
    if os.environ.get("XUEZHAN_UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == SNAPSHOT.read_text(encoding="utf-8")
    assert all(cell_len(line) <= 100 for line in text.splitlines())


def _bulleted(text: str) -> list[str]:
    """The items of a bulleted list laid out by rich: a "- " line and its indented continuations."""
    items: list[str] = []
    for line in text.splitlines():
        if line.startswith("- "):
            items.append(line[2:])
        elif line.startswith("  ") and items and not line.startswith("   "):
            items[-1] += " " + line.strip()
        elif items and not line.strip():
            break
    return items


@pytest.mark.parametrize("width", [80, 60, 120])
def test_terminal_report_follows_the_width_with_whole_verdicts_and_cells(width):
    """At the terminal's width (80 columns here) no line is wider, so the terminal never wraps
    the verdict; each sentence wraps at words only, and no table cell is cut."""
    df = three_strategies()
    text = format_report(df, HEADER, width=width)
    lines = text.splitlines()
    assert all(cell_len(line) <= width for line in lines if not line.startswith("command: "))
    verdict = text[text.index("Verdict") :]
    assert _bulleted(verdict.split("\n", 1)[1]) == [
        v.sentence for v in verdicts(pairwise(df), ["alpha", "beta", "gamma"])
    ]
    summary = summarize(df)
    for name, r in summary.iterrows():
        rows = [line.split() for line in lines if line.startswith(f"{name} ")]
        cells = [c for row in rows for c in row[1:]]  # a table split by columns repeats the name
        for value in (number(r.mean_delta, 2, signed=True), number(r.rating, 2), number(r.rating_sigma, 2)):
            assert value in cells, (name, value)


def test_report_command_prints_what_the_run_printed(tmp_path):
    out, run = play_tournament(tmp_path, "--logs", "--no-progress")
    toml, runner = tmp_path / "t.toml", CliRunner()
    report = runner.invoke(main, ["report", str(out)])
    assert report.exit_code == 0, report.output
    printed = run.stdout
    assert printed == report.stdout
    for words in ("seed: 3", "rules: leshan", "line-up: random, greedy, value, value"):
        assert words in printed
    # the command as typed: the options given, none of the defaults
    assert f"command: xuezhan tournament {toml} --output {out} --no-progress --logs\n" in printed
    assert "The biggest losses" in printed and "pip install 'xuezhan[serve]'" in printed
    assert "xuezhan view LOG" in printed and "xuezhan review " in printed
    # on an 80-column terminal (COLUMNS, as rich reads it) the report is 80 columns wide, but
    # for the commands, which must paste whole
    narrow = runner.invoke(main, ["report", str(out), "--no-plots"], env={"COLUMNS": "80"})
    assert narrow.exit_code == 0, narrow.output
    long = [line for line in narrow.stdout.splitlines() if cell_len(line) > 80]
    assert long and all(line.startswith("command: ") or "xuezhan review " in line for line in long)
    pasted = ("command: ", "  ")  # the command line and the losses' commands
    assert any(cell_len(line) > 80 for line in printed.splitlines() if not line.startswith(pasted))  # 100 columns


# ----------------------------------------------------------------------------- the study


@pytest.fixture(scope="module")
def small_study():
    df = run_study(
        {
            "strategies": ["greedy", "value", "greedy", "value"],
            "hands": 48,
            "seed": 5,
            "chunk": 8,
            "workers": 1,
            "variants": [{"max_fan": [5, 3]}, {"name": "same as base", "max_fan": 5}],
        },
        progress=False,
    )
    return study_report(df)


def test_study_page_marks_no_difference_of_a_variant_equal_to_the_base(small_study, tmp_path):
    page = write_study_report(small_study, tmp_path, title="s")["html"].read_text(encoding="utf-8")
    marked = [" ".join(m) for m in re.findall(r'<span class="sig">Δ ([^<]*)<br><small>([^<]*)</small></span>', page)]
    assert marked, "the cap of 3 changes something"
    for text in marked:
        numbers = [float(x.replace(MINUS, "-")) for x in re.findall(r"[+−-]?\d+(?:\.\d+)?", text)]
        low, high = numbers[1], numbers[2]
        assert low > 0 or high < 0, text  # an interval that shows zero is never marked
    same = small_study.table[small_study.table["variant"] == "same as base"]
    assert (same["diff"].fillna(0) == 0).all()
    assert not same["significant"].any()


def test_study_terminal_tables_keep_labels_whole_aligned_and_one_decimals_per_row(small_study):
    text = format_study(small_study, title="s")
    assert "…" not in text
    words = " ".join(text.split())
    for label in small_study.table["label"].unique():
        assert " ".join(label.split()) in words or all(w in words for w in label.split()), label
    lines = text.splitlines()
    rule_width = 0
    checked = 0
    for line in lines:
        if set(line) == {"─"}:
            rule_width = cell_len(line)
            continue
        if not line.strip():
            rule_width = 0
        if rule_width and re.search(r"[\u3000-\u9fff]", line) and re.search(r"[\d%)*]$", line):
            assert cell_len(line) == rule_width, line  # wide characters take two columns
            checked += 1
        if rule_width:
            values = re.sub(r"R\d+(\.\d+)*", "", line)  # rule ids are not numbers
            decimals = {len(m) for m in re.findall(r"\d\.(\d+)", values)}
            assert len(decimals) <= 1, line
    assert checked > 0
    assert "max_fan=5 max_fan=3" not in text and "(base)" in text


# ----------------------------------------------------------------------------- pages in Chromium


_LAYOUT = """() => {
    const w = document.documentElement.clientWidth;
    const outside = [...document.querySelectorAll('body *')]
        .filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right > w + 0.5)
        .map(e => e.tagName + (e.className ? '.' + e.className : ''));
    const loose = [...document.querySelectorAll('table')].filter(t => {
        const box = t.closest('.scroll');
        return !box || getComputedStyle(box).overflowX !== 'auto' || box.getBoundingClientRect().right > w + 0.5;
    }).length;
    const figures = [...document.querySelectorAll('picture')].map(p => {
        const img = p.querySelector('img'), src = p.querySelector('source');
        const narrow = !!src && img.currentSrc === src.srcset;
        const drawn = +(narrow ? src : img).getAttribute('width');
        return {narrow, drawn, shown: img.getBoundingClientRect().width};
    });
    return {scroll: document.documentElement.scrollWidth, outside, loose, figures};
}"""


def _layout(browser, page_path: Path, width: int) -> dict:
    """How the page lays out in a ``width`` px window: its scroll width, the elements past the
    window's right edge outside a table's scroll box, the tables not in such a box, and each
    figure's drawn and shown width (and whether the phone layout was chosen)."""
    from _browser import ART

    page = browser.new_page(viewport={"width": width, "height": 844})
    try:
        page.goto(page_path.as_uri())
        page.screenshot(path=str(ART / f"{page_path.parent.name}-{width}.png"), full_page=True)
        return page.evaluate(_LAYOUT)
    finally:
        page.close()


def _fits(layout: dict, width: int) -> None:
    assert layout["scroll"] <= width and layout["outside"] == [] and layout["loose"] == 0, layout
    assert layout["figures"]
    for f in layout["figures"]:
        # drawn for this screen, shown at (nearly) the size it was drawn: its words stay readable
        assert f["narrow"] == (width <= NARROW_SCREEN), f
        assert f["shown"] >= 0.95 * min(f["drawn"], width - 40), f


@pytest.mark.parametrize("width", [390, 1280])
def test_tournament_page_fits_a_phone_and_a_laptop(browser, tmp_path, width):
    """At 390 px (a phone) nothing is wider than the screen: tables scroll sideways in their own
    box, the figures are drawn for a narrow screen; at 1280 px the wide drawings."""
    df = three_strategies()
    path = write_report(df, tmp_path / "synthetic", header=HEADER)["html"]
    page = path.read_text(encoding="utf-8")
    assert page.index("Verdict") < page.index("Per strategy")
    for v in verdicts(pairwise(df)):
        assert v.sentence in page
    _fits(_layout(browser, path, width), width)


def test_tournament_page_with_its_lost_hands_fits_a_phone(browser, tmp_path):
    out, _run = play_tournament(tmp_path, "--logs", "--no-progress", name="logs-report")
    assert "Lost hands to review" in (out / "report.html").read_text(encoding="utf-8")
    _fits(_layout(browser, out / "report.html", 390), 390)


@pytest.mark.parametrize("width", [390, 1280])
def test_study_page_fits_a_phone_and_a_laptop(browser, small_study, tmp_path, width):
    path = write_study_report(
        small_study, tmp_path / "study", title="s", meta=[("seed", "5"), ("command", "xuezhan study x")]
    )["html"]
    _fits(_layout(browser, path, width), width)
