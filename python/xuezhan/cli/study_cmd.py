"""``xuezhan study FILE.toml``: play a rule study and report what the rules change.

The flags mean what they mean for ``xuezhan tournament``; the study plays each variant on the
same walls (one progress bar over the whole study), writes the tidy ``results.parquet`` and
the report (terminal tables, ``summary.parquet``, ``report.html``).
"""

from __future__ import annotations

from pathlib import Path

import click

from xuezhan.cli._common import run_to_folder

__all__ = ["COMMANDS", "study_command"]


@click.command("study")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--output",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output folder (default: the file's 'output', else results/<file name>).",
)
@click.option("--resume", is_flag=True, help="Continue an interrupted study in the output folder.")
@click.option(
    "--overwrite",
    is_flag=True,
    help="Delete earlier results in the output folder first.",
)
@click.option("--workers", "-j", type=int, default=None, help="Worker processes (0 = all cores).")
@click.option(
    "--hands",
    "-n",
    type=int,
    default=None,
    help="Override the number of hands per variant.",
)
@click.option("--seed", type=int, default=None, help="Override the base seed.")
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="Where hands are played: a local process pool or a Ray cluster.",
)
@click.option(
    "--address",
    default=None,
    help="Ray cluster address (with --executor ray; 'auto' = this machine's cluster).",
)
@click.option("--csv", "csv_", is_flag=True, help="Also write results.csv.")
@click.option("--no-report", is_flag=True, help="Do not print or write the report at the end.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar (default: on a terminal).",
)
def study_command(
    file: Path,
    output: Path | None,
    resume: bool,
    overwrite: bool,
    workers: int | None,
    hands: int | None,
    seed: int | None,
    executor: str,
    address: str | None,
    csv_: bool,
    no_report: bool,
    progress: bool | None,
) -> None:
    """Play the rule study defined in FILE (TOML) and report what each variant changes."""
    from xuezhan.study import StudyConfigError, StudyError, load_study
    from xuezhan.study.runner import play_study
    from xuezhan.tournament import ConfigError, TournamentError

    if address is not None and executor != "ray":
        raise click.ClickException("--address is for --executor ray (the address of a Ray cluster)")
    try:
        config = load_study(file)
        changes = {k: v for k, v in (("hands", hands), ("seed", seed), ("workers", workers)) if v is not None}
        if changes:
            config = config.replace(**changes)
    except (StudyConfigError, ConfigError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    out = output or (Path(config.output) if config.output else Path("results") / file.stem)
    click.echo(
        f"{config.name}: {len(config.variants)} variants × {config.n_games} hands "
        f"({', '.join(v.name for v in config.variants)}); "
        f"{', '.join(config.labels)}; executor {executor}; output {out}",
        err=True,
    )
    results = run_to_folder(
        "study",
        file,
        out,
        (StudyError, TournamentError, ConfigError, ValueError, RuntimeError),
        lambda: play_study(
            config,
            output=out,
            resume=resume,
            overwrite=overwrite,
            progress=progress,
            csv=csv_,
            executor=executor,
            address=address,
        ),
    )
    click.echo(f"results: {results}", err=True)
    if not no_report:
        from xuezhan.study.measure import study_report_file
        from xuezhan.study.report import format_study, study_meta, write_study_report
        from xuezhan.tournament.report import command_line

        # read batch by batch, only the columns the report reads: bounded memory however many hands
        report = study_report_file(results, variants=[v.name for v in config.variants], base=config.base_variant)
        title = f"{config.name}: {len(config.variants)} rule variants, {config.n_games} hands each"
        click.echo(format_study(report, title=title))
        paths = write_study_report(report, out, title=title, meta=study_meta(config, command_line()))
        click.echo(f"report: {paths['html']}  (summary.parquet beside it)")


COMMANDS = [study_command]
