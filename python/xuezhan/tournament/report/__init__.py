"""The report of a tournament's per-(hand, seat) results table, in layers.

The table has one row per (hand, seat) (see :mod:`xuezhan.tournament.results` for the
columns). The report states the verdict first, one sentence per paired comparison, then the
per-strategy tables, the plots and (with hand logs) the biggest losses:

- :mod:`.summary`: the statistics: :func:`summarize` per strategy, :func:`pairwise` for every
  two strategies on the walls both played, :func:`rule_frequencies` per rule (on top of
  :mod:`xuezhan.tournament.stats` and :mod:`xuezhan.tournament.rating`);
- :mod:`.verdict`: the comparisons in words (:class:`Verdict`);
- :mod:`.header`: what the report states first (:class:`ReportHeader`: seed, date, version,
  rules, line-up, command), saved beside the results;
- :mod:`.tables`: the tables as text cells (:class:`TextTable`), shared by terminal and page;
- :mod:`.plots`: the figures (:class:`Plot`);
- :mod:`.losses`: the biggest losses and the commands that replay them;
- :mod:`.terminal`: the terminal report (:func:`format_report`, :func:`print_report`);
- :mod:`.page`: the HTML page with the plots and CSV files beside it (:func:`write_report`).

Everything public is importable from this package.
"""

from xuezhan.tournament.rating import ratings
from xuezhan.tournament.report.header import (
    HEADER_FILE,
    ReportHeader,
    command_line,
    describe_rules,
    folder_header,
    load_header,
    run_header,
    save_header,
    saved_header,
)
from xuezhan.tournament.report.losses import VIEW_NEEDS, format_lost_hands, lost_hands
from xuezhan.tournament.report.page import write_report
from xuezhan.tournament.report.plots import Plot, plot_figures, report_plots
from xuezhan.tournament.report.summary import SUMMARY_COLUMNS, pairwise, rule_frequencies, summarize
from xuezhan.tournament.report.tables import TextTable, rules_table, strategy_tables
from xuezhan.tournament.report.terminal import format_report, format_summary, print_report
from xuezhan.tournament.report.verdict import Verdict, format_pairwise, verdicts

__all__ = [
    "HEADER_FILE",
    "SUMMARY_COLUMNS",
    "VIEW_NEEDS",
    "Plot",
    "ReportHeader",
    "TextTable",
    "Verdict",
    "command_line",
    "describe_rules",
    "folder_header",
    "format_lost_hands",
    "format_pairwise",
    "format_report",
    "format_summary",
    "load_header",
    "lost_hands",
    "pairwise",
    "plot_figures",
    "print_report",
    "ratings",
    "report_plots",
    "rule_frequencies",
    "rules_table",
    "run_header",
    "save_header",
    "saved_header",
    "strategy_tables",
    "summarize",
    "verdicts",
    "write_report",
]
