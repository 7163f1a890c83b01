"""Every rule vector of ``tests/vectors/`` (docs/rules.md R13, tests/vectors/README.md), through the
Python API and through ``xuezhan replay FILE --json`` (in this process; a sample through the
installed command in a process of its own). They must match ``expect`` exactly. The repository's
copy is the whole set: nothing here reads outside the repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import xuezhan
from xuezhan.cli import main
from xuezhan.engine.script import ScriptError

VECTORS = Path(__file__).resolve().parent / "vectors"

# Cases where a vector contradicts docs/rules.md (none so far): {file name: "rule id: reasoning"}.
XFAIL: dict[str, str] = {}


def _files(root: Path = VECTORS) -> list[Path]:
    # xueliu/: hands under R14 (winners stay, 血流成河) and the middle_five fan item
    return [
        *sorted(root.glob("*.json")),
        *(f for sub in ("random", "xueliu") for f in sorted((root / sub).glob("*.json"))),
    ]


def test_r13_vectors_present():
    # Fail, never skip, when the vectors are missing: they are part of the repository.
    assert VECTORS.is_dir(), f"rule vectors not found at {VECTORS}"
    files = _files()
    assert len([f for f in files if f.parent == VECTORS]) >= 5
    assert len([f for f in files if f.parent.name == "random"]) >= 45
    xueliu = [f for f in files if f.parent.name == "xueliu"]
    assert len(xueliu) >= 44
    assert len([f for f in xueliu if f.name[0].isdigit()]) >= 14  # hand-made R14 / middle_five cases


def _params():
    files = _files() if VECTORS.is_dir() else []
    out = []
    for f in files:
        marks = []
        if f.name in XFAIL:
            marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[f.name]))
        out.append(pytest.param(f, id=f.stem, marks=marks))
    return out


def _check(expect: dict, res: dict) -> None:
    assert "error" not in expect, f"expected line {expect['error']['line']} to be refused, got {res}"
    assert res["deltas"] == expect["deltas"]
    if "next_dealer" in expect:
        assert res["next_dealer"] == expect["next_dealer"]
    if "end" in expect:
        assert res["end"] == expect["end"]
    got = [{k: w[k] for k in ("seat", "from", "tile", "fan")} for w in res["wins"]]
    want = [{k: w[k] for k in ("seat", "from", "tile", "fan")} for w in expect.get("wins", [])]
    assert got == want
    assert sum(res["deltas"]) in (0, -50)  # R12.2 (escape penalty 50 × base 1 in the vectors)


@pytest.mark.parametrize("path", _params())
def test_r13_vector_api(path: Path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    expect = doc["expect"]
    if "error" in expect:
        with pytest.raises(ScriptError) as ei:
            xuezhan.replay_script(doc)
        assert ei.value.line == expect["error"]["line"]
        assert f"line {expect['error']['line']}" in str(ei.value)  # the message names the line
        return
    _check(expect, xuezhan.replay_script(doc))


def _console(*args: str) -> subprocess.CompletedProcess:
    # The installed `xuezhan` console script beside this interpreter, else the same entry point.
    exe = Path(sys.executable).with_name("xuezhan")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-c", "from xuezhan.cli import main; main()"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env=dict(os.environ), timeout=60)


def _in_process(*args: str) -> subprocess.CompletedProcess:
    """The command line run in this process (click's runner), as a finished process: what
    ``xuezhan`` prints and its exit status, without a new interpreter per vector."""
    r = CliRunner().invoke(main, list(args))
    return subprocess.CompletedProcess(["xuezhan", *args], r.exit_code, r.stdout, r.stderr)


def _check_cli(path: Path, proc: subprocess.CompletedProcess) -> None:
    expect = json.loads(path.read_text(encoding="utf-8"))["expect"]
    out = json.loads(proc.stdout)
    if "error" in expect:
        # The refusal of the line that expect names is the expected outcome: exit 0, matched.
        assert proc.returncode == 0, proc.stderr
        assert out["error"]["line"] == expect["error"]["line"]
        assert str(expect["error"]["line"]) in out["error"]["message"]
        assert out["expect"] == {"matches": True, "differences": []}
        return
    assert proc.returncode == 0, proc.stderr
    assert out["expect"] == {"matches": True, "differences": []}
    _check(expect, out)


@pytest.mark.parametrize("path", _params())
def test_r13_vector_cli(path: Path):
    """Every vector through ``xuezhan replay FILE --json``, in this process."""
    _check_cli(path, _in_process("replay", str(path), "--json"))


def test_r13_vectors_through_the_installed_command():
    """The installed ``xuezhan`` command itself, in a process of its own, on a vector of each
    folder and on one whose ``expect`` names a refused line."""
    files = _files()
    refused = next(f for f in files if "error" in json.loads(f.read_text(encoding="utf-8"))["expect"])
    sample = {refused, *(next(f for f in files if f.parent == d) for d in {f.parent for f in files})}
    assert len(sample) >= 3
    for path in sorted(sample):
        _check_cli(path, _console("replay", str(path), "--json"))
