"""What every command shares: exit codes, one-line errors, and the guard against tracebacks.

Exit codes, for every command: 0 = done (a hand that matches its ``expect``, logs that
reproduce, a run that finished); 1 = a finding (a log or an ``expect`` that differs, a refused
script line not expected, a run that could not finish: a worker died); 2 = bad input or a
refused request (a file that cannot be read or is not a valid document, a bad option, an output
folder in use or holding other or damaged results, a database that is missing or not the room's,
a part used without its extra); click's usage errors are 2 too. tests/test_exit_codes.py walks
every command through its refusals.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar

import click

from xuezhan.extras import MissingExtra

__all__ = [
    "BadInput",
    "GuardedGroup",
    "check_output_folder",
    "emit_json",
    "fail",
    "interrupted",
    "one_line",
    "prepared_run",
    "room_database",
    "run_options",
    "run_to_folder",
]

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.tournament.options import RunOptions

T = TypeVar("T")


class _RunConfig(Protocol):
    """What :func:`prepared_run` needs of a tournament's or a study's configuration."""

    @property
    def output(self) -> str | None: ...

    def replace(self, **changes: Any) -> Any: ...


C = TypeVar("C", bound=_RunConfig)

FINDING = 1
BAD_INPUT = 2
_MAX_MESSAGE = 600


def one_line(message: str, limit: int = _MAX_MESSAGE) -> str:
    """A message on one line, at most ``limit`` characters (a huge value is cut, marked by …)."""
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class BadInput(click.ClickException):
    """Bad input (a file, a document, a field): printed as one ``Error: …`` line, exit 2."""

    exit_code = BAD_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, sort_keys=True))


def fail(
    message: str,
    *,
    as_json: bool = False,
    code: int = BAD_INPUT,
    line: int | None = None,
    extra: dict[str, Any] | None = None,
) -> NoReturn:
    """Print one error (JSON on stdout with ``as_json``, else ``Error: …`` on stderr) and exit."""
    msg = one_line(message)
    if as_json:
        emit_json({"error": {"line": line, "message": msg, **(extra or {})}})
    else:
        click.echo(f"Error: {msg}", err=True)
    raise click.exceptions.Exit(code)


def interrupted(command: str, file: os.PathLike[str] | str, out: os.PathLike[str] | str) -> NoReturn:
    """Ctrl-C in a run that writes to ``out``: say how to continue, exit 130 (as a shell does)."""
    click.echo(
        f"\ninterrupted: the finished chunks are saved in {out}; continue with\n"
        f"  xuezhan {command} {file} --output {out} --resume",
        err=True,
    )
    raise click.exceptions.Exit(130)


def run_to_folder(
    command: str,
    file: os.PathLike[str] | str,
    out: os.PathLike[str] | str,
    call: Callable[[], T],
) -> T:
    """``call()``, a run writing to ``out`` (a tournament, a study), with one exit convention:
    Ctrl-C says how to continue (:func:`interrupted`, 130); a refused request (the folder in
    use, holding other or damaged results) or bad input is one ``Error:`` line and exit 2; a
    run that could not finish (a worker died, the output folder failed) is one line and exit 1."""
    from xuezhan.tournament.config import ConfigError
    from xuezhan.tournament.errors import RunRefused, TournamentError

    try:
        return call()
    except KeyboardInterrupt:
        interrupted(command, file, out)
    except (RunRefused, ConfigError) as exc:
        raise BadInput(str(exc)) from None
    except (TournamentError, RuntimeError) as exc:
        raise click.ClickException(one_line(str(exc))) from None
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(one_line(f"output folder {out}: {exc.strerror or exc}")) from None


def room_database() -> Path:
    """Where the game room keeps its standings unless ``--db`` says otherwise: ``room.db`` in
    the user's data folder (platformdirs: ``$XDG_DATA_HOME/xuezhan``, by default
    ``~/.local/share/xuezhan`` on Linux; ``~/Library/Application Support/xuezhan`` on macOS;
    ``%LOCALAPPDATA%\\xuezhan`` on Windows), never the folder the command was started from."""
    from platformdirs import user_data_path

    return user_data_path("xuezhan", appauthor=False) / "room.db"


def check_output_folder(out: Path) -> None:
    """The output folder can be created and written to (said, exit 2, before any hand is played
    and before anything is written but the folder itself)."""
    for parent in (out, *out.parents):
        if parent.exists():
            if not parent.is_dir():
                raise BadInput(f"output folder {out}: {parent} is a file, not a folder")
            break
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".xuezhan-write-check-"):
            pass
    except OSError as exc:
        raise BadInput(f"output folder {out}: cannot write there: {exc.strerror or exc}") from None


def prepared_run(
    config: C,
    file: Path,
    *,
    output: Path | None,
    hands: int | None,
    seed: int | None,
    workers: int | None,
    resume: bool,
    overwrite: bool,
    progress: bool | None,
    csv_: bool,
    executor: str,
    address: str | None,
    engine: str | None = None,
) -> tuple[C, Path, RunOptions]:
    """The run the flags of :func:`run_options` ask for: ``config`` with the command line's
    ``--hands``, ``--seed`` and ``--workers``; its output folder (``--output``, else the file's
    ``output``, else ``results/<file name>``); and the run's options. A bad value raises the
    configuration's error (:class:`~xuezhan.tournament.config.ConfigError`, a ``ValueError``);
    an executor whose extra is missing :class:`~xuezhan.extras.MissingExtra`."""
    from xuezhan.tournament.options import RunOptions

    changes = {
        k: v for k, v in (("hands", hands), ("seed", seed), ("workers", workers), ("engine", engine)) if v is not None
    }
    if changes:
        config = config.replace(**changes)
    out = output or (Path(config.output) if config.output else Path("results") / file.stem)
    options = RunOptions(
        output=out,
        resume=resume,
        overwrite=overwrite,
        progress=progress,
        csv=csv_,
        executor=executor,
        address=address,
    )
    options.require_executor()  # before anything is written (MissingExtra: one line, exit 2)
    return config, out, options


def run_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The flags ``xuezhan tournament`` and ``xuezhan study`` share, in one place: the run's
    (:class:`xuezhan.tournament.options.RunOptions`: ``--output``, ``--resume``,
    ``--overwrite``, ``--workers``, ``--csv``, ``--progress``, ``--executor``, ``--address``)
    and the configuration's overrides (``--hands``, ``--seed``, ``--engine``) and ``--no-report``."""
    options = [
        click.option(
            "--output",
            "-o",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help="Output folder (default: the file's 'output', else results/<file name>).",
        ),
        click.option("--resume", is_flag=True, help="Continue an interrupted run in the output folder."),
        click.option("--overwrite", is_flag=True, help="Delete earlier results in the output folder first."),
        click.option("--workers", "-j", type=int, default=None, help="Worker processes (0 = all cores)."),
        click.option("--hands", "-n", type=int, default=None, help="Override the number of hands."),
        click.option("--seed", type=int, default=None, help="Override the base seed."),
        click.option(
            "--engine",
            type=click.Choice(["auto", "native", "python"]),
            default=None,
            help="Which engine plays the hands (default: the file's 'engine', else auto): native "
            "(Rust, built-in strategies only), python, or auto (native when it can). Same results.",
        ),
        click.option(
            "--executor",
            type=click.Choice(["local", "ray"]),
            default="local",
            show_default=True,
            help="Where hands are played: a local process pool or a Ray cluster (docs/studies.md).",
        ),
        click.option(
            "--address",
            default=None,
            help="Ray cluster address (with --executor ray; 'auto' = this machine's cluster).",
        ),
        click.option("--csv", "csv_", is_flag=True, help="Also write results.csv."),
        click.option("--no-report", is_flag=True, help="Do not print or write the report at the end."),
        click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


class GuardedGroup(click.Group):
    """The command group whose ``invoke`` turns an unexpected exception into one line.

    Every bad input the commands know of has its own message; this guard only catches what slips
    through (a bug), says so, and asks for a report. ``XUEZHAN_DEBUG=1`` shows the traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (
            click.exceptions.ClickException,
            click.exceptions.Exit,
            click.exceptions.Abort,
        ):
            raise
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except MissingExtra as exc:  # a part used without its extra: bad input, said in one line
            raise BadInput(str(exc)) from None
        except RecursionError:
            if os.environ.get("XUEZHAN_DEBUG"):
                raise
            raise click.ClickException(
                "internal error: RecursionError (input nested too deeply?); this is a bug in xuezhan: "
                "please report it with the command line (XUEZHAN_DEBUG=1 shows the traceback)"
            ) from None
        except Exception as exc:
            if os.environ.get("XUEZHAN_DEBUG"):
                raise
            raise click.ClickException(
                one_line(f"internal error: {type(exc).__name__}: {exc}")
                + "; this is a bug in xuezhan: please report it with the command line "
                "(XUEZHAN_DEBUG=1 shows the traceback)"
            ) from None
