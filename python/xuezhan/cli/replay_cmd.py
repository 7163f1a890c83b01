"""``xuezhan replay`` and ``xuezhan validate``: run scripted hands (R13) and re-run logs (R12.4).

``xuezhan replay FILE.json`` runs an R13 document; ``--json`` prints the result (``deltas``,
``next_dealer``, ``wins``, ``end``, ``fired``, ...) or ``{"error": {"line": N, "message": ...}}``
with a non-zero exit when a script line is refused. ``xuezhan replay LOG.jsonl`` re-runs a hand
log and fails on the first event that differs; ``xuezhan validate DIR`` does that for every log
in a folder.
"""

from __future__ import annotations

import json
import sys
from typing import Optional

import click

__all__ = ["COMMANDS", "replay", "validate"]


def _emit(obj: dict) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, sort_keys=True))


@click.command("replay")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the hand's JSON-lines log here (scripts only).")
def replay(file: str, as_json: bool, log_path: Optional[str]) -> None:
    """Run a scripted hand FILE.json (RULES.md R13) or re-run a hand log FILE.jsonl (R12.4)."""
    from xuezhan.engine.log import ReplayMismatch, replay_log, write_log
    from xuezhan.engine.script import ScriptError, load_script, replay_script

    if file.endswith((".jsonl", ".jsonl.gz")):
        from xuezhan.tournament.hand_logs import read_lines

        try:
            rnd = replay_log(read_lines(file))
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"{file}: cannot read the log: {exc}") from None
        except ReplayMismatch as exc:
            if as_json:
                _emit({"error": {"line": exc.line, "message": str(exc)}})
            else:
                click.echo(f"{file}: replay differs at {exc}", err=True)
            sys.exit(1)
        res = rnd.result()
        res["events"] = len(rnd.events)
        if as_json:
            _emit(res)
        else:
            click.echo(f"{file}: OK, {len(rnd.events)} events reproduced")
            _print_result(res)
        return
    try:
        doc = load_script(file)
        res, rnd = replay_script(doc, return_round=True)
    except ScriptError as exc:
        if as_json:
            _emit({"error": exc.to_dict()})
        else:
            click.echo(f"{file}: {exc.message}", err=True)
        sys.exit(1)
    except (ValueError, KeyError) as exc:  # not JSON, or not a script document
        if as_json:
            _emit({"error": {"line": None, "message": f"{file}: {exc}"}})
        else:
            click.echo(f"{file}: {exc}", err=True)
        sys.exit(1)
    if log_path:
        write_log(rnd, log_path)
    if as_json:
        _emit(res)
    else:
        if res.get("name"):
            click.echo(res["name"])
        _print_result(res)


def _print_result(res: dict) -> None:
    for w in res["wins"]:
        frm = "self-draw" if w["from"] is None else f"from seat {w['from']}"
        items = ", ".join(f"{k} +{v}" for k, v in w["items"].items()) or "plain"
        click.echo(f"  win: seat {w['seat']} on {w['tile']} ({frm}), {w['fan']} fan, {w['points']} points [{items}]")
    click.echo(f"  deltas: {res['deltas']}")
    click.echo(f"  next dealer: {res['next_dealer']}   end: {res['end']}")
    click.echo(f"  rules fired: {', '.join(res['fired'])}")


@click.command("validate")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
def validate(directory: str) -> None:
    """Re-run every hand log (*.jsonl, *.jsonl.gz) under DIRECTORY; fail on the first differing event (R12.4)."""
    from xuezhan.tournament.hand_logs import validate_logs

    results = validate_logs(directory)  # *.jsonl and gzip *.jsonl.gz
    bad = [(p, e) for p, e in results if e is not None]
    for p, e in bad:
        click.echo(f"{p}: {e}", err=True)
    click.echo(f"{len(results) - len(bad)} of {len(results)} logs reproduced")
    if bad:
        sys.exit(1)


COMMANDS = [replay, validate]
