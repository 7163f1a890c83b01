"""Sichuan Xuezhan Daodi (血战到底) mahjong: a fast Rust hand evaluator, a rule-exact round engine
and a bot tournament runner.

The hand evaluator (docs/rules.md R4, R5, R7.3) is re-exported here::

    >>> import xuezhan
    >>> xuezhan.is_win("11122233345m99m3m"), xuezhan.shanten("11122233345m99m")
    (True, 0)

``xuezhan.batch`` (numpy, imported on first use) evaluates whole arrays of hands.
"""

from typing import Any

from xuezhan._core import __version__
from xuezhan.evaluate import (
    UNREACHABLE,
    Discard,
    FanResult,
    NotAWinError,
    ShantenParts,
    Wait,
    WinContext,
    best_discards,
    fan,
    is_win,
    shanten,
    shanten_parts,
    wait_mask,
    waits,
)
from xuezhan.rules import Rules, RulesError
from xuezhan.tiles import Meld, MeldType, TileError, format_tiles, parse_meld, parse_tiles

__all__ = [
    "__version__",
    "UNREACHABLE",
    "Discard",
    "FanResult",
    "Meld",
    "MeldType",
    "NotAWinError",
    "Rules",
    "RulesError",
    "ShantenParts",
    "TileError",
    "Wait",
    "WinContext",
    "best_discards",
    "fan",
    "format_tiles",
    "is_win",
    "parse_meld",
    "parse_tiles",
    "shanten",
    "shanten_parts",
    "wait_mask",
    "waits",
]


def __getattr__(name: str) -> Any:  # lazy sub-module: keeps `import xuezhan` free of numpy
    if name == "batch":
        import importlib

        return importlib.import_module("xuezhan.batch")
    if name == "replay_script":  # the round engine, imported on first use
        from xuezhan.engine.script import replay_script

        return replay_script
    raise AttributeError(f"module 'xuezhan' has no attribute {name!r}")
