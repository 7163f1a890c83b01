"""``xuezhan tournament FILE.toml`` and ``xuezhan report RESULTS``.

The tournament command plays the hands of a tournament file (see ``tournaments/quick.toml``)
on a process pool with a progress bar, writes each finished chunk at once (so Ctrl-C or a
crash loses nothing; ``--resume`` continues), then writes ``results.parquet`` and the report.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from xuezhan.cli._common import BadInput, check_output_folder, prepared_run, run_options, run_to_folder

if TYPE_CHECKING:
    import pandas as pd

    from xuezhan.tournament.report import ReportHeader

__all__ = ["COMMANDS", "tournament_command", "report_command"]


def _print_report(df: pd.DataFrame, out_dir: Path | None, header: ReportHeader, plots: bool) -> None:
    from xuezhan.tournament.report import print_report

    print_report(df, out_dir, header, page=plots, echo=click.echo)


@click.command("tournament")
@click.argument("file", type=click.Path(path_type=Path))
@run_options
@click.option(
    "--logs",
    "hand_logs",
    is_flag=True,
    help="Keep one compressed log per hand in OUTPUT/logs (open one with 'xuezhan view').",
)
def tournament_command(
    file: Path,
    output: Path | None,
    resume: bool,
    overwrite: bool,
    workers: int | None,
    hands: int | None,
    seed: int | None,
    csv_: bool,
    no_report: bool,
    progress: bool | None,
    executor: str = "local",
    address: str | None = None,
    hand_logs: bool = False,
    engine: str | None = None,
) -> None:
    """Play the tournament defined in FILE (TOML) and report the results."""
    from xuezhan.tournament import ConfigError, load_config, run

    try:
        config, out, options = prepared_run(
            load_config(file), file, output=output, hands=hands, seed=seed, workers=workers, resume=resume,
            overwrite=overwrite, progress=progress, csv_=csv_, executor=executor, address=address,
            engine=engine,
        )  # fmt: skip
        if hand_logs:
            from xuezhan.tournament.hand_logs import LOG_DIR

            config = config.replace(hand_logs=str(out / LOG_DIR))
        config.build_rules()  # fail early, naming the bad rule field
        from xuezhan.tournament.driver import check_programs

        check_programs(config)  # unknown strategies, bad options, missing programs
        from xuezhan.tournament.engines import resolve_engine

        played_by = resolve_engine(config)  # engine = "native" with what it cannot play: refused here
    except (ConfigError, ValueError) as exc:
        raise BadInput(f"{file}: {exc}" if str(file) not in str(exc) else str(exc)) from None
    check_output_folder(out)
    click.echo(
        f"{config.name}: {config.n_games} hands, {config.seating} seating, "
        f"{', '.join(config.labels)}; {config.effective_workers} worker(s), {played_by} engine; output {out}",
        err=True,
    )
    df = run_to_folder("tournament", file, out, lambda: run(config, options))
    click.echo(f"results: {out / 'results.parquet'}" + (f" and {out / 'results.csv'}" if csv_ else ""), err=True)
    from xuezhan.tournament.report import command_line, format_lost_hands, lost_hands, run_header, save_header

    header = run_header(config, df, command_line())
    save_header(out, header)  # `xuezhan report` prints the same header
    if not no_report:
        _print_report(df, out, header, True)  # with hand logs, the report lists the biggest losses
    elif hand_logs:
        click.echo(format_lost_hands(lost_hands(df, out)))


@click.command("report")
@click.argument("results", type=click.Path(path_type=Path))
@click.option(
    "--output",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write report.html, the PNG plots and summary.csv "
    "(default: the results folder, or beside the results file).",
)
@click.option("--no-plots", is_flag=True, help="Only print the summary table.")
def report_command(results: Path, output: Path | None, no_plots: bool) -> None:
    """Summarize RESULTS (an output folder, results.parquet or results.csv): per strategy mean
    delta with a 95% interval clustered by wall seed, rates, fan, OpenSkill rating; plots and an
    HTML page."""
    from xuezhan.tournament.results import load_results

    try:
        df = load_results(results)
    except OSError as exc:
        raise BadInput(f"{results}: {exc.strerror or exc}" if exc.strerror else str(exc)) from None
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if df.empty:
        raise BadInput(f"{results}: no results yet")
    out = output or (results if results.is_dir() else results.parent)
    from xuezhan.tournament.report import load_header

    _print_report(df, out, load_header(results, df), not no_plots)


COMMANDS = [tournament_command, report_command]
