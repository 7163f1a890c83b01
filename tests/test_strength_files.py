"""The tournaments behind docs/strength.md are the ones ``tools/strength.py`` writes: every file of
``tournaments/strength/`` and ``tournaments/expert-steps/`` is, byte for byte, what
``--write-tournaments`` and ``--write-steps`` give (none missing, none left over from a step
the tool no longer names), and each step's file loads as a tournament of two experts with that
step's options, which the native engine accepts (a misspelt option is one clear error)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from xuezhan.tournament.config import load_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength_tool", ROOT / "tools" / "strength.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tournament_files_are_the_tools_own(tool):
    written = {**tool.tournament_files(), **tool.step_files()}
    on_disk = {
        p: p.read_text(encoding="utf-8") for folder in (tool.FOLDER, tool.STEP_FOLDER) for p in folder.glob("*.toml")
    }
    assert sorted(on_disk) == sorted(written), "run python tools/strength.py --write-tournaments --write-steps"
    for path, text in written.items():
        assert on_disk[path] == text, f"{path.relative_to(ROOT)} differs from what tools/strength.py writes"


def test_every_step_loads_and_its_expert_options_are_known(tool):
    from xuezhan.strategies.expert import ExpertStrategy

    for step, options in {**tool.STEPS, **tool.LESHAN_STEPS}.items():
        ExpertStrategy(seed=1, **options)  # an unknown option or value: one clear error naming it
        path = tool.STEP_FOLDER / f"leshan-{step}.toml"
        cfg = load_config(path)
        experts = [s for s in cfg.strategies if s.strategy == "expert"]
        assert len(experts) == 2 and all(s.options == options for s in experts), path.name


def test_the_strength_table_lists_every_pair_once_with_its_replay(tool):
    """docs/strength.md's table: one row per preset and pair of ``tools/strength.py`` (none
    missing, none twice), each replaying its own tournament file over the walls it states (``-n`` is
    four hands per wall, duplicate seating)."""
    text = (ROOT / "docs" / "strength.md").read_text(encoding="utf-8")
    row = re.compile(r"^\| (\w+) \| (\w+) − (\w+) \| [^|]+ \| ([\d,]+) \| `xuezhan tournament (\S+) -n (\d+) -j 0` \|$")
    rows = [m.groups() for line in text.splitlines() if (m := row.match(line))]
    listed = [(p, a, b) for p, a, b, *_ in rows]
    assert len(listed) == len(set(listed)), "a pair is listed twice"
    assert sorted(listed) == sorted(tool.pairs())
    for preset, a, b, walls, path, hands in rows:
        assert path == f"tournaments/strength/{tool.name(preset, a, b)}.toml"
        assert (ROOT / path).is_file(), path
        assert int(hands) == 4 * int(walls.replace(",", "")), (preset, a, b)
