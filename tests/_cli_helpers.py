"""The command line as the tests call it: one ``xuezhan`` invocation in-process, and the check
that it failed with one clear error."""

from __future__ import annotations

from click.testing import CliRunner, Result

from xuezhan.cli import main


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def one_error(r: Result, code: int, *words: str) -> str:
    """Exit ``code``, exactly one ``Error:`` line holding ``words``, no traceback."""
    assert r.exit_code == code, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    errors = [line for line in r.output.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "Traceback" not in r.output, r.output
    for w in words:
        assert w in errors[0], (w, errors[0])
    return errors[0]
