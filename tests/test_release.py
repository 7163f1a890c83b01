"""The project's release habits: one version, the licence, the gates of CI in pre-commit, and
the platform guard of external bots (process groups are POSIX-only)."""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import yaml
from click.testing import CliRunner

import xuezhan
from xuezhan.cli import main
from xuezhan.strategies import botprocess

ROOT = Path(__file__).parents[1]


def test_version_is_the_cargo_workspace_version_everywhere():
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))["workspace"]["package"]["version"]
    assert xuezhan.__version__ == cargo
    assert importlib.metadata.version("xuezhan") == cargo
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"xuezhan, version {cargo}"


def test_license_file_matches_the_declared_licence():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]["text"]
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))["workspace"]["package"]["license"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert declared == cargo == "MIT"
    assert text.startswith("MIT License") and "Permission is hereby granted, free of charge" in text


def _ci_gates() -> list[str]:
    """The lint and type commands `.ci/run` runs (one per line, before the tests; each may be
    timed by its ``step`` function)."""
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip().removeprefix("step ") for line in run.splitlines()]
    return [line for line in lines if re.match(r"(ruff|mypy|cargo (fmt|clippy))\b", line)]


def test_pre_commit_runs_the_gates_of_ci():
    gates = _ci_gates()
    assert len(gates) == 5, gates
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [" ".join(h["entry"].replace("--force-exclude", "").split()) for r in config["repos"] for h in r["hooks"]]
    for gate in gates:
        gate = gate.removesuffix(" .")  # pre-commit passes the changed files instead of "."
        assert any(entry == gate or entry.startswith(gate + " ") for entry in entries), f"{gate!r}: no hook"


def test_ci_installs_chromium_and_the_font_when_either_is_missing():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    condition = next(line for line in run.splitlines() if line.startswith("if ") and "chromium" in line)
    assert "/usr/bin/chromium" in condition and "fonts-wqy-zenhei" in condition and "||" in condition
    assert "bash .ci/wheel-check" in run


def test_ci_builds_the_documentation_site_strictly_and_the_release_publishes_it():
    """The site's dependencies are the docs extra; .ci/run installs it and builds the site with
    --strict (a warning fails CI); the release workflow builds it the same way and deploys it to
    GitHub Pages on a version tag."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert {"mkdocs-material", "mkdocstrings[python]"} <= {re.split(r"[<>=]", d)[0] for d in extras["docs"]}
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"pip install .*\[test,docs\]", run) and "mkdocs build --strict" in run
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
    docs = " ".join(str(step.get("run", "")) for step in workflow["jobs"]["docs"]["steps"])
    assert "['docs']" in docs and "mkdocs build --strict" in docs
    pages = workflow["jobs"]["pages"]
    assert pages["if"].startswith("startsWith(github.ref, 'refs/tags/v')")
    assert any("deploy-pages" in step.get("uses", "") for step in pages["steps"])
    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert site["strict"] is True and site["docs_dir"] == "docs"


def test_external_bot_without_process_groups_is_one_clear_message(tmp_path, monkeypatch):
    """On a system without POSIX process groups (Windows) an external bot stops the
    tournament before the first hand with one line saying why; built-in bots still play."""
    monkeypatch.setattr(botprocess, "POSIX", False)
    monkeypatch.chdir(ROOT)
    toml = tmp_path / "t.toml"
    toml.write_text(
        f'hands = 8\nseed = 1\nworkers = 1\nstrategies = ["random", "greedy", "value", {{cmd = "{sys.executable} '
        'examples/bot.py"}]\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["tournament", str(toml), "--output", str(tmp_path / "out"), "--no-report"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and "process groups" in lines[0] and "Linux or macOS" in lines[0], result.output
    assert "Traceback" not in result.output

    toml.write_text('hands = 8\nseed = 1\nworkers = 1\nstrategies = ["random", "greedy", "value", "value"]\n')
    result = CliRunner().invoke(main, ["tournament", str(toml), "--output", str(tmp_path / "ok"), "--no-report"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "ok" / "results.parquet").is_file()
