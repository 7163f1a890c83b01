"""What every command shares: exit codes, one-line errors, and the guard against tracebacks.

Exit codes: 0 = done (a hand that matches its ``expect``, logs that reproduce); 1 = a finding
(a log or an ``expect`` that differs, a refused script line not expected); 2 = bad input (a file
that cannot be read or is not a valid document, a bad option); click's usage errors are 2 too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

__all__ = ["BadInput", "GuardedGroup", "emit_json", "fail", "interrupted", "one_line", "run_to_folder"]

T = TypeVar("T")

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
    errors: tuple[type[Exception], ...],
    call: Callable[[], T],
) -> T:
    """``call()``, a run writing to ``out`` (a tournament, a study): Ctrl-C says how to continue
    (:func:`interrupted`), ``errors`` and a failure of the output folder are one ``Error:`` line."""
    try:
        return call()
    except KeyboardInterrupt:
        interrupted(command, file, out)
    except errors as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"output folder {out}: {exc.strerror or exc}") from None


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
