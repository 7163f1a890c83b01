"""``xuezhan study FILE.toml``: play a rule study and report what the rules change.

The flags mean what they mean for ``xuezhan tournament``; the study plays each variant on the
same walls (one progress bar over the whole study), writes the tidy ``results.parquet`` and
the report (terminal tables, ``summary.parquet``, ``report.html``).
"""

from __future__ import annotations

from pathlib import Path

import click

from xuezhan.cli._common import BadInput, check_output_folder, prepared_run, run_options, run_to_folder

__all__ = ["COMMANDS", "study_command"]


@click.command("study")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@run_options
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
    engine: str | None = None,
) -> None:
    """Play the rule study defined in FILE (TOML) and report what each variant changes."""
    from xuezhan.study import load_study
    from xuezhan.study.runner import play_study
    from xuezhan.tournament.config import ConfigError

    try:
        config, out, options = prepared_run(
            load_study(file), file, output=output, hands=hands, seed=seed, workers=workers, resume=resume,
            overwrite=overwrite, progress=progress, csv_=csv_, executor=executor, address=address,
            engine=engine,
        )  # fmt: skip
    except (ConfigError, ValueError) as exc:
        raise BadInput(str(exc)) from None
    check_output_folder(out)
    click.echo(
        f"{config.name}: {len(config.variants)} variants × {config.n_games} hands "
        f"({', '.join(v.name for v in config.variants)}); "
        f"{', '.join(config.labels)}; executor {executor}; output {out}",
        err=True,
    )
    results = run_to_folder("study", file, out, lambda: play_study(config, options))
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
