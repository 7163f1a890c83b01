"""A part used without its extra says so in one line, naming the extra and both ways to
install it (from a clone and from PyPI), exits 2 and writes nothing: ``--executor ray`` without
Ray (tournaments and studies, the command line and the API), ``import xuezhan.env`` without the
``rl`` extra, and the room (``xuezhan serve``, ``view``, ``standings``) without ``serve``.

The extras are installed where the tests run, so each test hides them: a ``None`` in
``sys.modules`` makes every import of the module fail, as in an interpreter without the
package (in this process through ``monkeypatch``, for the test's length; ``import
xuezhan.env`` in a fresh interpreter, where the package is not imported yet)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from xuezhan.cli import main
from xuezhan.extras import EXTRAS, MissingExtra, install_hint
from xuezhan.study import run_study, study_from_dict
from xuezhan.tournament import run
from xuezhan.tournament.config import TournamentConfig

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "tournaments" / "quick.toml"
STUDY = ROOT / "studies" / "cap-sweep.toml"
VECTOR_LOG_SOURCE = ROOT / "tests" / "vectors" / "01-discard-win-basic.json"


def _python(code: str, hide: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter in which the modules ``hide`` cannot be imported."""
    prelude = f"import sys\nfor m in {hide!r}:\n    sys.modules[m] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=cwd, capture_output=True, text=True, timeout=120)


def _says(text: str, extra: str, what: str) -> None:
    line = text.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line and "bug" not in line, line
    assert what in line and f"the '{extra}' extra" in line, line
    assert f"pip install '.[{extra}]'" in line and f"pip install 'xuezhan[{extra}]'" in line, line


@pytest.mark.parametrize("command, file", [("tournament", QUICK), ("study", STUDY)])
def test_executor_ray_without_ray_is_refused_before_anything_is_written(command, file, tmp_path, monkeypatch):
    """It used to end in "internal error: ModuleNotFoundError ... this is a bug" (exit 1) and
    leave a manifest.json that made the next plain run refuse the folder."""
    monkeypatch.setitem(sys.modules, "ray", None)
    out = tmp_path / "out"
    args = [command, str(file), "-n", "4", "-j", "1", "-o", str(out), "--no-report", "--no-progress"]
    r = CliRunner().invoke(main, [*args, "--executor", "ray"])
    assert r.exit_code == 2, r.output
    _says(r.output.strip().removeprefix("Error: "), "ray", "--executor ray")
    assert not out.exists()
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert (out / "results.parquet").is_file()


@pytest.mark.parametrize("play", [run, run_study])
def test_the_api_refuses_executor_ray_without_ray_before_the_folder(play, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    config: TournamentConfig = TournamentConfig(strategies=("random",) * 4, hands=4, workers=1)
    if play is run_study:
        config = study_from_dict({"strategies": ["random"] * 4, "hands": 4, "variants": [{"max_fan": [3, 4]}]})
    with pytest.raises(MissingExtra, match=r"--executor ray needs the 'ray' extra") as info:
        play(config, output=tmp_path / "out", executor="ray", progress=False)
    assert info.value.extra == "ray" and info.value.name == "ray"
    assert not (tmp_path / "out").exists()


def test_import_xuezhan_env_without_the_rl_extra_names_it(tmp_path):
    r = _python("import xuezhan.env", ("pettingzoo",), tmp_path)
    assert r.returncode == 1
    assert r.stderr.splitlines()[-1].startswith("xuezhan.extras.MissingExtra: ")
    _says(r.stderr.splitlines()[-1].split(": ", 1)[1], "rl", "xuezhan.env")
    r = _python("import xuezhan.env", ("gymnasium",), tmp_path)
    assert "(gymnasium is not installed)" in r.stderr, r.stderr
    caught = _python(
        "try:\n    import xuezhan.env\nexcept ImportError as exc:\n    print(type(exc).__name__, exc.name)",
        ("pettingzoo",),
        tmp_path,
    )
    assert caught.stdout.split() == ["MissingExtra", "pettingzoo"]  # an ImportError, as code expects


@pytest.mark.parametrize(
    "args, what",
    [
        (["serve", "--port", "8123"], "xuezhan serve"),
        (["view", str(VECTOR_LOG_SOURCE), "--no-browser"], "xuezhan view"),
        (["standings", "show"], "xuezhan standings"),
        (["standings", "reset", "--yes"], "xuezhan standings"),
    ],
)
def test_the_room_without_the_serve_extra_names_it(args, what, tmp_path, monkeypatch):
    for module in ("starlette", "uvicorn"):
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, r.output
    _says(r.output.strip().removeprefix("Error: "), "serve", what)
    assert list(tmp_path.iterdir()) == []


def test_every_extra_has_its_modules_and_one_hint():
    """The extras named here are pyproject.toml's, with the same packages."""
    import tomllib

    optional = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        packages = {d.split(">")[0].split("=")[0].strip() for d in optional[extra]}
        assert set(modules) == packages, (extra, modules, packages)
        assert (
            install_hint(extra)
            == f"pip install '.[{extra}]' in a clone of xuezhan, or pip install 'xuezhan[{extra}]' from PyPI"
        )
