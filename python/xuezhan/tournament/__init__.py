"""Tournaments: play many seeded hands between strategies, then summarize and report.

    >>> from xuezhan.tournament import TournamentConfig, run, summarize  # doctest: +SKIP
    >>> df = run(TournamentConfig(strategies=["random", "greedy", "value", "value"], hands=200))
    >>> print(summarize(df))

See the README's Tournaments section, :mod:`.config` for the TOML format, :mod:`.results`
for the table's columns and :mod:`.report` for the summary and plots.
"""

from xuezhan.tournament.config import ConfigError, StrategySpec, TournamentConfig, config_from_dict, load_config
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
