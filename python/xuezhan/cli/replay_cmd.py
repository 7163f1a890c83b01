"""``xuezhan replay`` and ``xuezhan validate``: run scripted hands (R13) and re-run logs (R12.4).

``xuezhan replay FILE.json`` runs an R13 document and checks its ``expect`` block when it has one;
``--json`` prints the result (``deltas``, ``next_dealer``, ``wins``, ``end``, ``fired``, ...) or
``{"error": {"line": N, "message": ...}}`` when a script line is refused. ``xuezhan replay
LOG.jsonl`` re-runs a hand log and fails on the first event that differs; ``xuezhan validate
DIR`` does that for every log in a folder and reports each one.

Documents are checked against their schema (:mod:`xuezhan.documents`) before the engine sees
them. Exit codes: see :mod:`xuezhan.cli._common` (0 done, 1 a finding, 2 bad input).
"""

from __future__ import annotations

import json
import os
from typing import Any

import click

from xuezhan.cli._common import FINDING, emit_json, fail, one_line

__all__ = ["COMMANDS", "replay", "validate"]


def _is_log(file: str, text: str) -> bool:
    """A hand log: named ``*.jsonl`` (``*.jsonl.gz`` compressed), or text whose first line is a
    log header object."""
    if file.endswith((".jsonl", ".jsonl.gz")):
        return True
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    try:
        rec = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(rec, dict) and rec.get("type") == "header"


def _check_log_dest(log_path: str, as_json: bool) -> None:
    folder = os.path.dirname(os.path.abspath(log_path))
    if not os.path.isdir(folder):
        fail(f"--log {log_path}: the folder {folder} does not exist", as_json=as_json)
    if os.path.isdir(log_path):
        fail(f"--log {log_path}: a folder; give a file name", as_json=as_json)


@click.command("replay")
@click.argument("file", type=click.Path())
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the result (or the error) as one JSON line.",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the hand's JSON-lines log here (scripts only; the folder must exist).",
)
def replay(file: str, as_json: bool, log_path: str | None) -> None:
    """Run a scripted hand FILE.json (docs/rules.md R13) and check its `expect`, or re-run a hand
    log FILE.jsonl (R12.4).

    \b
    Exit status: 0 the hand ran and matches its expect (if any) / the log reproduces;
    1 a field of expect differs, a script line is refused that expect does not name, or the
    log differs; 2 the file is not a valid document.
    """
    from xuezhan.documents import DocumentError
    from xuezhan.files import InputFileError, read_text

    if log_path is not None:
        _check_log_dest(log_path, as_json)
    try:
        text = read_text(file, what="scripted hand or hand log")
    except InputFileError as exc:
        fail(str(exc), as_json=as_json)
    try:
        if _is_log(file, text):
            if log_path is not None:
                fail(
                    f"--log {log_path}: only a scripted hand writes a log; {file} is a log",
                    as_json=as_json,
                )
            _replay_log(file, text, as_json)
        else:
            _replay_script(file, text, as_json, log_path)
    except DocumentError as exc:
        fail(str(exc), as_json=as_json)


def _replay_log(file: str, text: str, as_json: bool) -> None:
    from xuezhan.documents import parse_log
    from xuezhan.engine.log import ReplayMismatch, replay_log

    log = parse_log(text, source=file)
    try:
        rnd = replay_log(log)  # a header that deals no hand raises DocumentError: bad input
    except ReplayMismatch as exc:
        fail(
            f"{file}: replay differs at {exc}",
            as_json=as_json,
            code=FINDING,
            line=exc.line,
        )
    res = rnd.result()
    res["events"] = len(rnd.ledger.events)
    if as_json:
        emit_json(res)
    else:
        click.echo(f"{file}: OK, {len(rnd.ledger.events)} events reproduced")
        _print_result(res)


def _replay_script(file: str, text: str, as_json: bool, log_path: str | None) -> None:
    from xuezhan.documents import compare_expect, parse_script
    from xuezhan.engine.log import write_log
    from xuezhan.engine.script import ScriptError, replay_script

    doc = parse_script(text, source=file)
    res: dict[str, Any] | None = None
    refused: ScriptError | None = None
    try:
        res, rnd = replay_script(doc.to_engine(), return_round=True)
    except ScriptError as exc:
        if exc.line is None:  # the document deals an impossible hand (rules, tiles, seats)
            fail(f"{file}: {exc.message}", as_json=as_json)
        refused = exc
    diffs = compare_expect(doc.expect, res, refused.line if refused else None) if doc.expect else []
    if refused is not None:
        # The refusal is the hand's outcome; it is a match only when expect names that line.
        matched = doc.expect is not None and doc.expect.error is not None and not diffs
        if as_json:
            out: dict[str, Any] = {"error": refused.to_dict()}
            if doc.expect is not None:
                out["expect"] = {
                    "matches": matched,
                    "differences": [d.model_dump() for d in diffs],
                }
            emit_json(out)
        elif matched:
            click.echo(f"{file}: script line {refused.line} refused, as expect says: {one_line(refused.message)}")
        else:
            differs = "; expect differs: " + "; ".join(map(str, diffs)) if diffs else ""
            click.echo(one_line(f"{file}: {refused.message}{differs}", 2000), err=True)
        raise click.exceptions.Exit(0 if matched else FINDING)
    assert res is not None
    if log_path:
        try:
            write_log(rnd, log_path)
        except OSError as exc:
            fail(
                f"--log {log_path}: cannot write the log: {exc.strerror or exc}",
                as_json=as_json,
            )
    if as_json:
        if doc.expect is not None:
            res["expect"] = {
                "matches": not diffs,
                "differences": [d.model_dump() for d in diffs],
            }
        emit_json(res)
    else:
        if res.get("name"):
            click.echo(res["name"])
        _print_result(res)
        if doc.expect is not None and not diffs:
            click.echo("  expect: matches")
    if diffs:
        if not as_json:
            click.echo(
                one_line(f"{file}: expect differs: " + "; ".join(map(str, diffs)), 2000),
                err=True,
            )
        raise click.exceptions.Exit(FINDING)


def _print_result(res: dict[str, Any]) -> None:
    for w in res["wins"]:
        frm = "self-draw" if w["from"] is None else f"from seat {w['from']}"
        items = ", ".join(f"{k} +{v}" for k, v in w["items"].items()) or "plain"
        click.echo(f"  win: seat {w['seat']} on {w['tile']} ({frm}), {w['fan']} fan, {w['points']} points [{items}]")
    click.echo(f"  deltas: {res['deltas']}")
    click.echo(f"  next dealer: {res['next_dealer']}   end: {res['end']}")
    click.echo(f"  rules fired: {', '.join(res['fired'])}   (xuezhan rules ID explains one)")


def _logs_under(directory: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(directory, onerror=None, followlinks=False):
        dirs.sort()
        found += [os.path.join(root, f) for f in sorted(files) if f.endswith((".jsonl", ".jsonl.gz"))]
    return found


def check_log_file(path: str) -> str | None:
    """None when the log at ``path`` reproduces, else one line saying what is wrong."""
    from xuezhan.documents import DocumentError, load_log
    from xuezhan.engine.log import ReplayMismatch, replay_log

    try:
        replay_log(load_log(path))
    except DocumentError as exc:
        return one_line(str(exc).removeprefix(f"{path}, ").removeprefix(f"{path}: "))
    except ReplayMismatch as exc:
        return one_line(f"replay differs at {exc}")
    return None


@click.command("validate")
@click.argument("directory", type=click.Path(file_okay=False))
def validate(directory: str) -> None:
    """Re-run every hand log (*.jsonl, *.jsonl.gz) under DIRECTORY and report each one (R12.4): `ok` lines
    on standard output, `FAIL` lines with the first difference or fault on standard error.

    Exit status: 0 every log reproduces, 1 some do not, 2 no folder or no log in it.
    """
    if not os.path.isdir(directory):
        fail(f"{directory}: no such folder" if not os.path.exists(directory) else f"{directory}: not a folder")
    files = _logs_under(directory)
    if not files:
        fail(f"{directory}: no hand logs (*.jsonl, *.jsonl.gz) in this folder or below")
    bad = 0
    for path in files:
        err = check_log_file(path)
        if err is None:
            click.echo(f"ok    {path}")
        else:
            bad += 1
            click.echo(f"FAIL  {path}: {err}", err=True)
    click.echo(f"{len(files) - bad} of {len(files)} logs reproduced")
    if bad:
        raise click.exceptions.Exit(FINDING)


COMMANDS = [replay, validate]
