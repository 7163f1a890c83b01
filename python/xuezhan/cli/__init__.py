"""The ``xuezhan`` command line: one sub-module per command group, registered here."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="xuezhan")
def main() -> None:
    """Sichuan Xuezhan Daodi (血战到底) mahjong: evaluate hands, replay scripted hands, run tournaments."""


def _register() -> None:
    # Each command lives in its own module so that the evaluator, the engine and the
    # tournament runner can grow their commands without touching each other's code.
    import importlib

    for name in ("eval_cmd", "replay_cmd", "tournament_cmd", "serve_cmd"):
        try:
            module = importlib.import_module(f"xuezhan.cli.{name}")
        except ModuleNotFoundError as exc:  # command group not written yet
            if exc.name != f"xuezhan.cli.{name}":
                raise
            continue
        for command in module.COMMANDS:
            main.add_command(command)


_register()
