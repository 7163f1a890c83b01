"""The rules reference docs/rules.md: shipped in the package, covering every rule id the code,
the results and the docs cite, agreeing with the presets (R5, R11), and printed by
``xuezhan rules [ID]``."""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from xuezhan import rulebook
from xuezhan.cli import main

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ROOT / "python" / "xuezhan" / "presets"

# The rule ids of the rules contract (R0-R14 with their sub-rules).
CONTRACT_IDS = (
    [
        "R0",
        "R1",
        "R1.1",
        "R1.2",
        "R1.3",
        "R1.4",
        "R2",
        "R2.1",
        "R2.2",
        "R2.3",
        "R2.4",
        "R2.5",
    ]
    + ["R3", "R3.1", "R3.2", "R3.3", "R4", "R4.1", "R4.2", "R4.3", "R4.4", "R4.5", "R5"]
    + [
        "R6",
        "R6.1",
        "R6.2",
        "R6.3",
        "R6.4",
        "R6.5",
        "R7",
        "R7.1",
        "R7.2",
        "R7.3",
        "R7.4",
        "R7.5",
    ]
    + [
        "R8",
        "R9",
        "R9.1",
        "R9.2",
        "R9.3",
        "R10",
        "R10.1",
        "R10.2",
        "R10.3",
        "R11",
        "R11.1",
        "R11.2",
    ]
    + ["R12", "R12.1", "R12.2", "R12.3", "R12.4", "R13"]
    + ["R14", "R14.1", "R14.2", "R14.3", "R14.4", "R14.5", "R14.6"]
)


def test_rules_doc_has_every_contract_rule_id_in_order():
    assert rulebook.rule_ids() == CONTRACT_IDS


def test_packaged_rules_doc_is_docs_rules_md():
    # One source: the package's rules.md is docs/rules.md (a link in the tree, a copy in a wheel).
    packaged = resources.files("xuezhan").joinpath("rules.md").read_text(encoding="utf-8")
    assert packaged == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def _cited_ids(text: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"(?<![\w.])(R\d+(?:\.\d+)?)(?![\d])", text)}


def test_every_rule_id_cited_in_code_and_docs_is_in_the_rules_doc():
    known = set(rulebook.rule_ids())
    files = [
        *ROOT.glob("python/xuezhan/**/*.py"),
        *ROOT.glob("docs/*.md"),
        ROOT / "README.md",
    ]
    files += [
        *ROOT.glob("python/xuezhan/presets/*.toml"),
        *ROOT.glob("tournaments/*.toml"),
    ]
    missing = {}
    for f in files:
        bad = _cited_ids(f.read_text(encoding="utf-8")) - known
        if bad:
            missing[str(f.relative_to(ROOT))] = sorted(bad)
    assert not missing


def test_no_outside_paths_in_code_docs_or_tests():
    # The repository stands on its own: no path to a folder beside it (the one optional
    # shared-vectors test aside), and what users read cites docs/rules.md, not an outside file.
    code = [
        *ROOT.glob("python/xuezhan/**/*.py"),
        *ROOT.glob("examples/*.py"),
        *ROOT.glob("tournaments/*.toml"),
    ]
    tests = [f for f in ROOT.glob("tests/**/*.py") if f.name not in ("test_vectors.py", "test_rules_doc.py")]
    docs = [
        *ROOT.glob("docs/*.md"),
        ROOT / "README.md",
        ROOT / "tests" / "vectors" / "README.md",
    ]
    outside = [f for f in code + tests + docs if "../shared" in f.read_text(encoding="utf-8")]
    assert not outside
    shown = docs + [
        *ROOT.glob("python/xuezhan/cli/*.py"),
        *ROOT.glob("python/xuezhan/tournament/*.py"),
    ]
    assert not [f for f in shown if "RULES.md" in f.read_text(encoding="utf-8")]


def _table(section: str, first_header: str) -> dict[str, list[str]]:
    """The rows of the Markdown table whose header starts with ``first_header``: first cell -> cells."""
    rows: dict[str, list[str]] = {}
    inside = False
    for line in section.splitlines():
        if line.startswith(f"| {first_header} |"):
            inside = True
            continue
        if inside:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip("|").split("|")]
            if set(cells[0]) <= {"-"}:
                continue
            rows[cells[0].strip("`")] = cells[1:]
    return rows


@pytest.mark.parametrize("column, preset", [(0, "leshan"), (1, "chengdu"), (2, "xueliu")])
def test_r11_presets_table_agrees_with_preset_files(column, preset):
    data = tomllib.loads((PRESETS / f"{preset}.toml").read_text(encoding="utf-8"))
    rows = _table(rulebook.section("R11"), "option")
    options = {k: v for k, v in data.items() if k != "fan"}
    assert set(rows) == set(options)
    for name, cells in rows.items():
        value = tomllib.loads(f"v = {cells[column].strip('`')}")["v"]
        assert value == options[name], (preset, name)


@pytest.mark.parametrize("column, preset", [(4, "leshan"), (5, "chengdu"), (6, "xueliu")])
def test_r5_fan_table_agrees_with_preset_files(column, preset):
    fan = tomllib.loads((PRESETS / f"{preset}.toml").read_text(encoding="utf-8"))["fan"]
    rows = _table(rulebook.section("R5"), "fan item")
    switchable = {k: v for k, v in rows.items() if v[column - 1] in ("on", "off")}
    assert set(switchable) == set(fan)
    for item, cells in switchable.items():
        assert (cells[column - 1] == "on") == fan[item], (preset, item)


def test_rules_command_prints_the_whole_document_as_plain_text():
    """Every line of the document but the HTML anchors only links use: no ``<a id="R0"></a>``
    and no link into the page in a terminal."""
    r = CliRunner().invoke(main, ["rules"])
    assert r.exit_code == 0
    assert "<a id" not in r.output and "](#" not in r.output
    printed = r.output.splitlines()
    for line in rulebook.text().splitlines():
        if line.strip() and not line.startswith("<a id="):
            assert re.sub(r"\[([^\]]+)\]\(#[^)]*\)", r"\1", line) in printed, line
    assert sum(1 for line in printed if re.match(r"^#{2,3} R\d", line)) == len(rulebook.rule_ids())


def test_every_range_of_rule_ids_ends_at_the_last_rule():
    """README, docs and ``xuezhan --help`` say "R0–R14" where they give the range of rule ids."""
    last = max(int(rid[1:]) for rid in rulebook.rule_ids() if "." not in rid)
    docs = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
    texts = {p.name: p.read_text(encoding="utf-8") for p in docs}
    texts["xuezhan --help"] = CliRunner().invoke(main, ["--help"]).output
    found = 0
    for name, text in texts.items():
        for m in re.finditer(r"R0\s?(?:[–-]|…)\s?R(\d+)", text):
            assert int(m.group(1)) == last, (name, m.group(0))
            found += 1
    assert found >= 3


def test_rules_command_prints_one_rule_by_id():
    r = CliRunner().invoke(main, ["rules", "r4.3"])
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0] == "### R4.3 Passing a win locks further discard wins"
    assert "弃先和后" in r.output and "R4.4 The last tiles" not in r.output and "<a id" not in r.output
    assert "Readings where the rules are silent:" in r.output and "- R4.3: the lock also bars robbing" in r.output
    # a whole rule with its sub-rules; a fired-rule name of the results table
    whole = CliRunner().invoke(main, ["rules", "R6"]).output
    assert all(f"### R6.{i}" in whole for i in range(1, 6)) and "## R7" not in whole
    assert CliRunner().invoke(main, ["rules", "R6.5-kong-transfer"]).output.startswith("### R6.5 ")


@pytest.mark.parametrize("bad", ["R99", "R4.9", "X1", "R4.3x", ""])
def test_rules_command_unknown_id_is_an_error(bad):
    r = CliRunner().invoke(main, ["rules", bad])
    assert r.exit_code == 2 and r.output.startswith("Error: unknown rule id") and "R4.3" in r.output


def test_report_rules_fired_names_their_rules_doc_titles():
    import pandas as pd

    from xuezhan.tournament.report import rule_frequencies

    df = pd.DataFrame(
        {
            "hand": [0, 1],
            "rules_id": ["leshan", "leshan"],
            "fired": ["R6.5-kong-transfer+R7-ready-check", "R6.5-kong-transfer"],
        }
    )
    freq = rule_frequencies(df).set_index("rule")
    assert freq.loc["R6.5-kong-transfer", "title"] == rulebook.title("R6.5")
    assert freq.loc["R7-ready-check", "title"].startswith("R7 End of the hand")
