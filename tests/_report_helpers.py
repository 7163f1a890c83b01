"""A small tournament played through the command line, for the tests of what it prints and writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from xuezhan.cli import main

LINEUP = ("random", "greedy", "value", "value")


def play_tournament(
    root: Path, *flags: str, hands: int = 8, seed: int = 3, strategies: tuple[str, ...] = LINEUP, name: str = "out"
) -> tuple[Path, Any]:
    """``xuezhan tournament`` of a file written in ``root`` into ``root/name`` with ``flags``;
    the output folder and click's result (its exit code is checked)."""
    toml = root / "t.toml"
    lineup = ", ".join(f'"{s}"' for s in strategies)
    toml.write_text(
        f'name = "t"\nhands = {hands}\nseed = {seed}\nworkers = 1\nstrategies = [{lineup}]\n', encoding="utf-8"
    )
    out = root / name
    result = CliRunner().invoke(main, ["tournament", str(toml), "-o", str(out), *flags])
    assert result.exit_code == 0, result.output
    return out, result
