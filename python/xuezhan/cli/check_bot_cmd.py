"""``xuezhan check-bot "CMD"``: the conformance check of an external bot (docs/protocol.md).

Plays a few hundred seeded hands with the bot against built-in bots, exactly as a tournament
would, and lists every illegal action, timeout, crash and protocol error with the message
that caused it. Exit status 0 when there is none, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys

import click

from xuezhan.cli._common import BadInput

__all__ = ["COMMANDS", "check_bot_command"]


@click.command("check-bot")
@click.argument("cmd")
@click.option(
    "--hands",
    "-n",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Hands to play (the bot sits in each seat in turn).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Base seed of the hands.")
@click.option(
    "--rules",
    "rules",
    multiple=True,
    default=("leshan", "chengdu", "xueliu"),
    show_default=True,
    help="Preset or TOML rules file; repeat to alternate hands between several.",
)
@click.option(
    "--opponents",
    default="random,greedy,value",
    show_default=True,
    help="Three built-in bots for the other seats, comma-separated.",
)
@click.option(
    "--timeout",
    type=float,
    default=None,
    help="Seconds per decision (default: the rules' turn_timeout and claim_timeout).",
)
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="Directory to run the bot in.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Problems quoted per kind.",
)
def check_bot_command(
    cmd: str,
    hands: int,
    seed: int,
    rules: tuple[str, ...],
    opponents: str,
    timeout: float | None,
    cwd: str | None,
    limit: int,
) -> None:
    """Check that the external bot CMD plays by the protocol before a tournament."""
    from xuezhan.rules import Rules, as_rules
    from xuezhan.testing import check_strategy

    try:
        argv = shlex.split(cmd)
    except ValueError as exc:
        raise BadInput(f"CMD {cmd!r} is not a command line: {exc}") from None
    prog = argv[0] if argv else ""
    base = cwd or "."
    found = os.path.exists(os.path.join(base, prog)) if os.sep in prog else shutil.which(prog) is not None
    if not found:
        raise BadInput(f"cannot find the program {prog!r} of CMD {cmd!r}")
    opps = [o.strip() for o in opponents.split(",")]
    try:
        rule_values = [Rules.from_toml(r) if r.endswith(".toml") else as_rules(r) for r in rules]
    except (ValueError, OSError) as exc:
        raise BadInput(f"--rules: {exc}") from None
    try:
        report = check_strategy(
            cmd,
            hands=hands,
            seed=seed,
            rules=rule_values,
            opponents=opps,
            timeout=timeout,
            cwd=cwd,
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    click.echo(report.format(limit=limit))
    sys.exit(0 if report.ok else 1)


COMMANDS = [check_bot_command]
