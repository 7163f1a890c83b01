"""``xuezhan serve`` (the game room) and ``xuezhan view LOG`` (the replay viewer).

Both need the ``serve`` extra: ``pip install 'xuezhan[serve]'``. The server binds to
127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Any

import click

__all__ = ["COMMANDS", "serve", "view"]


def _need_extra() -> None:
    try:
        import pydantic  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise click.ClickException(
            f"the game room needs the 'serve' extra ({exc.name} is missing): pip install 'xuezhan[serve]'"
        ) from None


def _run(app: Any, host: str, port: int, open_url: str | None) -> None:
    import uvicorn

    if open_url:
        # Open the page once the server listens (uvicorn calls this hook after startup).
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        server = uvicorn.Server(config)
        orig = server.startup

        async def startup(sockets: Any = None) -> None:
            await orig(sockets)
            webbrowser.open(open_url)

        server.startup = startup  # type: ignore[method-assign]
        server.run()
    else:
        uvicorn.run(app, host=host, port=port, log_level="warning")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--bots",
    "bots_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="TOML file of extra bots ([[bots]] name + strategy = 'module:Class' or cmd = '...').",
)
@click.option(
    "--logs",
    "logs_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="A folder of hand logs (*.jsonl, *.jsonl.gz) the replay page offers.",
)
@click.option(
    "--bot-delay",
    default=0.6,
    show_default=True,
    type=click.FloatRange(0, 10),
    help="Seconds a bot waits before each turn, so people can follow.",
)
@click.option(
    "--turn-timeout",
    type=click.FloatRange(0.5, 600),
    default=None,
    help="Override R10.1 (seconds).",
)
@click.option(
    "--claim-timeout",
    type=click.FloatRange(0.5, 600),
    default=None,
    help="Override R10.2 (seconds).",
)
def serve(
    host: str,
    port: int,
    bots_file: Path | None,
    logs_dir: Path | None,
    bot_delay: float,
    turn_timeout: float | None,
    claim_timeout: float | None,
) -> None:
    """The game room: a lobby of tables, four seats each (people or bots), spectators, replays."""
    _need_extra()
    from xuezhan.serve.app import create_app
    from xuezhan.serve.bots import BotCatalog
    from xuezhan.serve.tables import Pace, Room
    from xuezhan.tournament.config import ConfigError

    try:
        catalog = BotCatalog.from_file(bots_file) if bots_file else BotCatalog()
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    overrides: dict[str, Any] = {}
    if turn_timeout is not None:
        overrides["turn_timeout"] = turn_timeout
    if claim_timeout is not None:
        overrides["claim_timeout"] = claim_timeout
    logs = sorted([*logs_dir.rglob("*.jsonl"), *logs_dir.rglob("*.jsonl.gz")]) if logs_dir else []
    room = Room(catalog, Pace(bot_delay=bot_delay), overrides)
    click.echo(f"xuezhan game room on http://{host}:{port}/  (Ctrl-C stops it)", err=True)
    _run(create_app(room, logs), host, port, None)


@click.command("view")
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8001, show_default=True, type=click.IntRange(1, 65535))
@click.option("--no-browser", is_flag=True, help="Only print the page's address.")
def view(log: Path, host: str, port: int, no_browser: bool) -> None:
    """Step through a hand log (LOG.jsonl or .jsonl.gz) event by event, all four hands open."""
    _need_extra()
    from xuezhan.serve.app import create_app
    from xuezhan.serve.replay import LogError, frames, read_log_lines

    try:
        frames(read_log_lines(log), log.name)  # a bad log fails here, naming the line
    except LogError as exc:
        raise click.ClickException(str(exc)) from None
    url = f"http://{host}:{port}/replay?log=0"
    click.echo(f"replay of {log}: {url}  (Ctrl-C stops it)", err=True)
    _run(create_app(logs=[log]), host, port, None if no_browser else url)


COMMANDS = [serve, view]
