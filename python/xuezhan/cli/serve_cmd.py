"""``xuezhan serve`` (the game room), ``xuezhan view LOG`` (the replay viewer) and
``xuezhan standings show|reset`` (the room's points, 积分).

They need the ``serve`` extra (``pip install '.[serve]'`` in a clone, ``pip install
'xuezhan[serve]'`` from PyPI): without it each says so on one line and exits 2. The server
binds to 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Any

import click

from xuezhan.cli._common import BadInput, room_database
from xuezhan.serve.bots import DEFAULT_SEARCH_SEATS
from xuezhan.serve.limits import Limits, Pace

_LIMITS = Limits()  # the defaults the options show
__all__ = ["COMMANDS", "serve", "standings", "view", "view_url"]

#: Where the standings are kept unless ``--db`` says otherwise, as ``--help`` shows it.
DB_DEFAULT = f"room.db in your data folder, here {room_database()}"
#: Bytes of one websocket frame uvicorn accepts (the app refuses more than 4 KiB with a message).
WS_MAX_SIZE = 64 * 1024


def _need_extra(command: str) -> None:
    """The room's extra, checked before anything starts (:class:`~xuezhan.extras.MissingExtra`:
    one line, exit 2)."""
    from xuezhan.extras import require

    require("serve", command)


def _run(app: Any, host: str, port: int, open_url: str | None, trusted_proxies: tuple[str, ...] = ()) -> None:
    import uvicorn

    # The client address is the socket's peer: uvicorn would otherwise believe X-Forwarded-For
    # from any local connection (its default trusts 127.0.0.1), so a client on the same machine
    # could choose the address its limits are counted by. Only a named proxy is believed.
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws_max_size=WS_MAX_SIZE,
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=list(trusted_proxies) or None,
    )
    server = uvicorn.Server(config)
    if open_url:
        # Open the page once the server listens (uvicorn calls this hook after startup).
        orig = server.startup

        async def startup(sockets: Any = None) -> None:
            await orig(sockets)
            webbrowser.open(open_url)

        server.startup = startup  # type: ignore[method-assign]
    server.run()


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
    "--search-seats",
    default=DEFAULT_SEARCH_SEATS,
    show_default=True,
    type=click.IntRange(0, 1000),
    help="Searching bots ('search', which looks ahead: a core for 50-150 ms per decision, each "
    "decision at most a quarter of the shorter time limit) seated at once over all tables; one "
    "more is refused, naming the cap. 0: no searching bot is offered.",
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
    "--locked-discard",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0, 10),
    help="Seconds before a locked hand's only move, the drawn tile's discard (xueliu, R14.2), "
    "is played for a person (at most half the turn timer).",
)
@click.option(
    "--claim-window",
    default=Pace().claim_window,
    show_default=True,
    type=click.FloatRange(0, 600),
    help="Seconds every discard waits for claims at a table where a person plays, whether anyone is asked "
    "or not, so nobody learns who was; a person asked has this long (at most the claim timeout). "
    "0: claims are asked as R10.2 says, and the pause tells the others someone was asked.",
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
@click.option(
    "--db",
    default=None,
    help="The standings database: a file (SQLite), ':memory:' (kept nowhere), or an SQLAlchemy URL. "
    f"Default: {DB_DEFAULT}.",
)
@click.option("--max-tables", default=100, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--max-tables-per-client", default=3, show_default=True, type=click.IntRange(1, 100_000))
@click.option(
    "--start-timeout",
    default=180.0,
    show_default=True,
    type=click.FloatRange(1, 86_400),
    help="Seconds a seated person may wait without pressing Start before being unseated.",
)
@click.option(
    "--idle-timeout",
    default=600.0,
    show_default=True,
    type=click.FloatRange(1, 30 * 86_400),
    help="Seconds a table without any connection lives on.",
)
@click.option(
    "--max-connections-per-client",
    default=_LIMITS.max_connections_per_client,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Open connections (websockets, requests being answered) from one client address.",
)
@click.option(
    "--max-connections",
    default=_LIMITS.max_connections,
    show_default=True,
    type=click.IntRange(1, 1_000_000),
    help="Open connections over all clients.",
)
@click.option(
    "--sits-per-minute",
    default=_LIMITS.sits_per_minute,
    show_default=True,
    type=click.FloatRange(0.1, 10_000),
    help="Sits one client address may ask for per minute on average (at most 5 at once).",
)
@click.option(
    "--password-failures",
    default=_LIMITS.password_failures,
    show_default=True,
    type=click.IntRange(1, 1000),
    help="Wrong passwords on one name before it is locked (the owner's browser never is).",
)
@click.option(
    "--lockout",
    default=_LIMITS.lockout,
    show_default=True,
    type=click.FloatRange(1, 86_400),
    help="Seconds of a name's first lock, doubled at each further wrong password (at most a day).",
)
@click.option(
    "--backoff",
    default=_LIMITS.backoff,
    show_default=True,
    type=click.FloatRange(0.1, 3600),
    help="Seconds a client address waits after a wrong password, doubled at each further one (at most 5 min).",
)
@click.option(
    "--trusted-proxy",
    "trusted_proxies",
    multiple=True,
    metavar="ADDR",
    help="A reverse proxy in front of the room (an address or network, repeatable): the client address of "
    "its connections is taken from its X-Forwarded-For. Without one, the socket's peer is the client.",
)
def serve(
    host: str,
    port: int,
    bots_file: Path | None,
    search_seats: int,
    logs_dir: Path | None,
    bot_delay: float,
    locked_discard: float,
    claim_window: float,
    turn_timeout: float | None,
    claim_timeout: float | None,
    db: str | None,
    max_tables: int,
    max_tables_per_client: int,
    start_timeout: float,
    idle_timeout: float,
    max_connections_per_client: int,
    max_connections: int,
    sits_per_minute: float,
    password_failures: int,
    lockout: float,
    backoff: float,
    trusted_proxies: tuple[str, ...],
) -> None:
    """The game room: a lobby of tables, four seats each (people or bots), spectators, replays,
    and the players' standings (积分) kept in a database (--db; by default room.db in your data
    folder, never the folder the room was started from)."""
    _need_extra("xuezhan serve")
    from xuezhan.serve.app import create_app
    from xuezhan.serve.bots import BotCatalog
    from xuezhan.serve.lobby import Room
    from xuezhan.serve.standings import Standings, StandingsError
    from xuezhan.tournament.config import ConfigError

    try:
        catalog = (
            BotCatalog.from_file(bots_file, search_seats=search_seats)
            if bots_file
            else BotCatalog(search_seats=search_seats)
        )
    except ConfigError as exc:
        raise BadInput(str(exc)) from None
    overrides: dict[str, Any] = {}
    if turn_timeout is not None:
        overrides["turn_timeout"] = turn_timeout
    if claim_timeout is not None:
        overrides["claim_timeout"] = claim_timeout
    logs = sorted([*logs_dir.rglob("*.jsonl"), *logs_dir.rglob("*.jsonl.gz")]) if logs_dir else []
    db = _database(db, create=True)
    try:
        ledger = Standings(db)
    except StandingsError as exc:
        raise BadInput(str(exc)) from None
    limits = Limits(
        max_tables=max_tables,
        max_tables_per_client=max_tables_per_client,
        start_timeout=start_timeout,
        idle_timeout=idle_timeout,
        max_connections_per_client=max_connections_per_client,
        max_connections=max_connections,
        sits_per_minute=sits_per_minute,
        sit_burst=max(1, min(_LIMITS.sit_burst, round(sits_per_minute))),
        password_failures=password_failures,
        lockout=lockout,
        backoff=backoff,
    )
    pace = Pace(bot_delay=bot_delay, locked_discard=locked_discard, claim_window=claim_window)
    room = Room(catalog, pace, overrides, limits=limits, ledger=ledger)
    click.echo(f"xuezhan game room on http://{host}:{port}/  standings in {db}  (Ctrl-C stops it)", err=True)
    _run(create_app(room, logs), host, port, None, trusted_proxies)


@click.command("view")
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8001, show_default=True, type=click.IntRange(1, 65535))
@click.option("--no-browser", is_flag=True, help="Only print the page's address.")
def view(log: Path, host: str, port: int, no_browser: bool) -> None:
    """Step through a hand log (LOG.jsonl or .jsonl.gz) event by event, all four hands open."""
    _need_extra("xuezhan view")
    from xuezhan.serve.app import checked_frames, create_app
    from xuezhan.serve.replay import LogError, LogMismatch, read_log_lines

    try:
        checked_frames(read_log_lines(log), log.name)  # a bad log fails here, naming the line
    except LogMismatch as exc:  # a finding, as for replay and validate
        raise click.ClickException(str(exc)) from None
    except LogError as exc:
        raise BadInput(str(exc)) from None
    url = view_url(host, port)
    click.echo(f"replay of {log}: {url}  (Ctrl-C stops it)", err=True)
    from xuezhan.serve.lobby import Room
    from xuezhan.serve.standings import Standings

    _run(create_app(Room(ledger=Standings(":memory:")), logs=[log]), host, port, None if no_browser else url)


def view_url(host: str, port: int) -> str:
    """The replay page of the one log ``view`` serves (the server names its first log ``f0``)."""
    return f"http://{host}:{port}/replay?log=f0"


#: ``--db`` of the standings commands (one option, two commands).
_standings_db = click.option(
    "--db", default=None, help=f"The standings database (as for serve). Default: {DB_DEFAULT}."
)


@click.group("standings")
def standings() -> None:
    """The room's standings (积分): show them, or reset every player's points to zero (清零)."""


@standings.command("show")
@_standings_db
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10_000))
def standings_show(db: str | None, limit: int) -> None:
    """Print the leaderboard: rank, points, hands played, name."""
    led = _open_ledger(db)
    rows = led.standings(0, limit)
    if not rows:
        click.echo("no players yet")
    for i, r in enumerate(rows, start=1):
        click.echo(f"{i:>4}  {r.points:>8}  {r.hands:>6}  {r.name}")


@standings.command("reset")
@_standings_db
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def standings_reset(db: str | None, yes: bool) -> None:
    """清零: every player's points back to zero (the history keeps a reset entry each)."""
    led = _open_ledger(db)
    db = _database(db, create=False)
    if not yes:
        click.confirm(f"reset every player's points in {db} to zero?", abort=True)
    n = led.reset()
    click.echo(f"reset {n} player{'s' if n != 1 else ''} to zero")


def _database(db: str | None, *, create: bool) -> str:
    """The standings database ``--db`` names, else :func:`~xuezhan.cli._common.room_database`
    (its folder made when ``create``: ``serve`` keeps the standings there). A file in a folder
    that does not exist is bad input, said before anything starts."""
    if db is None:
        path = room_database()
        if create:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BadInput(
                    f"{path.parent}: cannot make the data folder for the standings: {exc.strerror or exc}"
                ) from None
        return str(path)
    if "://" not in db and db != ":memory:" and not Path(db).parent.is_dir():
        raise BadInput(f"--db {db}: no folder {Path(db).parent} to keep the standings database in")
    return db


def _open_ledger(db: str | None) -> Any:
    _need_extra("xuezhan standings")
    from xuezhan.serve.standings import Standings, StandingsError

    db = _database(db, create=False)
    if "://" not in db and db != ":memory:" and not Path(db).is_file():
        raise BadInput(f"{db}: no standings database there (xuezhan serve --db {db} makes one)")
    try:
        return Standings(db)
    except StandingsError as exc:
        raise BadInput(str(exc)) from None


COMMANDS = [serve, view, standings]
