"""Tournaments: play many seeded hands between strategies, then summarize and report.

    >>> from xuezhan.tournament import TournamentConfig, run, summarize  # doctest: +SKIP
    >>> df = run(TournamentConfig(strategies=["random", "greedy", "value", "value"], hands=200))
    >>> print(summarize(df))

See the README's Tournaments section, :mod:`.config` for the TOML format, :mod:`.results`
for the table's columns and :mod:`.report` for the summary and plots.
"""

from typing import TYPE_CHECKING, Any

from xuezhan.tournament.config import ConfigError, StrategySpec, TournamentConfig, config_from_dict, load_config

if TYPE_CHECKING:
    from xuezhan.tournament.driver import TournamentError, run
    from xuezhan.tournament.report import format_summary, ratings, summarize, write_report
    from xuezhan.tournament.results import COLUMNS, load_results

__all__ = [
    "COLUMNS",
    "ConfigError",
    "StrategySpec",
    "TournamentConfig",
    "TournamentError",
    "config_from_dict",
    "format_summary",
    "load_config",
    "load_results",
    "ratings",
    "run",
    "summarize",
    "write_report",
]

# The runner, the results and the report (pandas, pyarrow, matplotlib) are imported on first
# use: a program that only reads a tournament's configuration (the command line, the room's
# bot catalog) does not pay for them.
_LAZY = {
    "TournamentError": "driver",
    "run": "driver",
    "format_summary": "report",
    "ratings": "report",
    "summarize": "report",
    "write_report": "report",
    "COLUMNS": "results",
    "load_results": "results",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'xuezhan.tournament' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"xuezhan.tournament.{module}"), name)
