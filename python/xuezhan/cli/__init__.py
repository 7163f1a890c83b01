"""The ``xuezhan`` command line: one sub-module per command group, registered here."""

from __future__ import annotations

import click

from xuezhan.cli._common import GuardedGroup


@click.group(cls=GuardedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="xuezhan", prog_name="xuezhan")
def main() -> None:
    """Sichuan Xuezhan Daodi (血战到底) mahjong: evaluate hands, replay scripted hands, run
    tournaments and rule studies, check bots, serve the game room.

    Rule ids (R0-R14, e.g. R4.3) refer to the rules reference docs/rules.md; `xuezhan rules ID`
    prints one rule.
    """


def _register() -> None:
    # Each command lives in its own module so that the evaluator, the engine and the
    # tournament runner can grow their commands without touching each other's code.
    import importlib

    for name in (
        "eval_cmd",
        "replay_cmd",
        "tournament_cmd",
        "study_cmd",
        "rules_cmd",
        "check_bot_cmd",
        "serve_cmd",
        "review_cmd",
    ):
        try:
            module = importlib.import_module(f"xuezhan.cli.{name}")
        except ModuleNotFoundError as exc:  # command group not written yet
            if exc.name != f"xuezhan.cli.{name}":
                raise
            continue
        for command in module.COMMANDS:
            main.add_command(command)


_register()
