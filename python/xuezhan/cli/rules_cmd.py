"""``xuezhan rules [ID]``: the rules reference (docs/rules.md), whole or one rule by id."""

from __future__ import annotations

import click

from xuezhan.cli._common import BAD_INPUT

__all__ = ["COMMANDS", "rules_command"]


@click.command("rules", short_help="Print the rules reference, or one rule by id (R4.3).")
@click.argument("rule_id", required=False, metavar="[ID]")
def rules_command(rule_id: str | None) -> None:
    """Print the rules reference (docs/rules.md), or the rule ID with its sub-rules and the
    readings the engine takes where the rules are silent (e.g. `xuezhan rules R4.3`).

    Fired-rule names of results and reports work too: `xuezhan rules R6.5-kong-transfer`.
    """
    from xuezhan import rulebook

    if rule_id is None:
        click.echo(rulebook.plain_text())
        return
    try:
        click.echo(rulebook.section(rule_id))
    except rulebook.UnknownRuleError as exc:
        click.echo(f"Error: {exc}", err=True)
        raise click.exceptions.Exit(BAD_INPUT) from None


COMMANDS = [rules_command]
