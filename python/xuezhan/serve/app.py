"""The game room's ASGI app (Starlette): pages, a small JSON API and one websocket per table.

Routes: ``/`` lobby, ``/table/{id}`` table page, ``/replay`` replay viewer, ``/standings``
leaderboard and player pages, ``/static/...``; ``GET/POST /api/tables``, ``GET /api/bots``,
``GET /api/logs``, ``GET /api/replay/{id}``, ``POST /api/replay`` (a log in the body),
``GET /api/review/{id}?seat=N``, ``POST /api/review?seat=N`` (a log in the body; the review of
one seat's decisions, :mod:`xuezhan.serve.review_jobs`), ``GET /api/standings``,
``GET /api/players/{name}``; ``/ws/{table}`` the websocket protocol of
:mod:`xuezhan.serve.protocol` (docs/room.md).

Every piece of work a client can ask for is bounded: request bodies are refused past their
limit before they are read, websocket messages have a size and a rate limit, each connection a
bounded queue and a send timeout, and an uploaded log is replayed in a worker thread (at most
two at a time), bounded in bytes and lines; a review runs in a worker process, bounded in
rollouts, time and reviews at once (:mod:`xuezhan.serve.review_jobs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from xuezhan.files import InputFileError, gunzip
from xuezhan.rules import PRESETS
from xuezhan.serve import protocol as P
from xuezhan.serve.deals import commitment
from xuezhan.serve.names import TABLE_NAME_MAX, clean_name
from xuezhan.serve.replay import LogError, frames, read_log_lines
from xuezhan.serve.review_jobs import ReviewBusy, ReviewLimits, ReviewRefused, Reviews, ReviewUnfinished
from xuezhan.serve.standings import StandingsError
from xuezhan.serve.tables import Client, Room, RoomError, RoomFull, Table

__all__ = [
    "MAX_BODY",
    "MAX_LOG",
    "MAX_LOG_LINES",
    "MAX_MESSAGE",
    "checked_frames",
    "MAX_UPLOAD",
    "STATIC",
    "create_app",
]

STATIC = Path(__file__).parent / "static"
_log = logging.getLogger("xuezhan.serve")
#: Bytes of one websocket message (no client message needs more; past it: an error, then close).
MAX_MESSAGE = 4096
#: Bytes of a JSON request body (opening a table).
MAX_BODY = 4096
#: Bytes of an uploaded log as sent (gzip or plain), and once decompressed.
MAX_UPLOAD = 1024 * 1024
MAX_LOG = 2 * 1024 * 1024
#: Lines of a hand log the replay page takes (a real hand has a few hundred events).
MAX_LOG_LINES = 2000
#: Tables per page of ``GET /api/tables``, by default and at most.
PAGE, MAX_PAGE = 50, 200

_REPLAY_ID = re.compile(r"^(f\d{1,6}|h\d{1,12})$")


def _clean_table_name(v: str) -> str:
    return clean_name(v, "a table name", TABLE_NAME_MAX) if v.strip() else ""


class CreateTable(BaseModel):
    """``POST /api/tables`` body. There is no seed: the server draws every deal (fair deals)."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(max_length=4 * TABLE_NAME_MAX), AfterValidator(_clean_table_name)] = ""
    preset: str = Field("leshan", pattern=f"^({'|'.join(PRESETS)})$")
    hands: int = Field(8, ge=1, le=64)
    bots: list[str | None] = Field(default_factory=list, max_length=4)


class _Upload(Exception):
    """An uploaded log refused (its HTTP ``status`` and the message)."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(message)


class BodyTooLarge(Exception):
    """A request body past its limit (refused before it was read)."""


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or :class:`BodyTooLarge` as soon as it is known to pass ``limit``:
    from its Content-Length before reading anything, else while it streams in."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise BodyTooLarge("a Content-Length that is not a number")
        if int(declared) > limit:
            raise BodyTooLarge(f"the body is larger than {limit} bytes")
    chunks: list[bytes] = []
    got = 0
    async for chunk in request.stream():
        got += len(chunk)
        if got > limit:
            raise BodyTooLarge(f"the body is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def checked_frames(lines: list[str], name: str) -> dict[str, Any]:
    """The replay frames of a log the engine reproduces (:func:`~xuezhan.serve.replay.frames`
    replays it through the engine, linear in its length, and refuses it at its first impossible
    line); a header that deals an impossible hand is refused too."""
    try:
        return frames(lines, name)
    except LogError:
        raise
    except ValueError as exc:  # the header deals an impossible hand (tiles, rules)
        raise LogError(f"{name}, line 1: header: {exc}") from None


def _page(name: str) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        return FileResponse(STATIC / name, media_type="text/html")

    return endpoint


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _int_param(request: Request, name: str, default: int, lo: int, hi: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not lo <= int(raw[:12]) <= hi or len(raw) > 12:
        raise ValueError(f"{name} must be a whole number from {lo} to {hi}")
    return int(raw)


def create_app(
    room: Room | None = None, logs: Sequence[Path] = (), reviews: ReviewLimits | Reviews | None = None
) -> Starlette:
    """The app; ``room`` holds its tables (a fresh one by default), ``logs`` are hand logs the
    replay page offers, ``reviews`` the bounds of its reviews (or the reviews themselves)."""
    room = room if room is not None else Room()
    log_files = [Path(p) for p in logs]
    reviewer = reviews if isinstance(reviews, Reviews) else Reviews(reviews)
    replays = asyncio.Semaphore(2)  # uploaded or stored logs replayed at once, each in a thread

    async def replay_frames(lines: list[str], name: str) -> dict[str, Any]:
        if len(lines) > MAX_LOG_LINES:
            raise LogError(f"{name}: {len(lines)} lines; a hand log has at most {MAX_LOG_LINES}")
        async with replays:
            return await asyncio.to_thread(checked_frames, lines, name)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await room.close()
        reviewer.close()

    async def list_tables(request: Request) -> Response:
        try:
            offset = _int_param(request, "offset", 0, 0, 10**9)
            limit = _int_param(request, "limit", PAGE, 1, MAX_PAGE)
        except ValueError as exc:
            return _error(400, str(exc))
        tables = list(room.tables.values())
        page = [t.table_msg().model_dump() for t in tables[offset : offset + limit]]
        return JSONResponse(page, headers={"X-Total-Count": str(len(tables))})

    async def create_table(request: Request) -> Response:
        try:
            raw = await read_body(request, MAX_BODY)
        except BodyTooLarge as exc:
            return _error(413, str(exc))
        try:
            body = CreateTable.model_validate_json(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(map(str, err["loc"]))
            if where == "seed":
                return _error(400, "seed: the server draws every deal's seed; a client cannot choose it")
            return _error(400, f"{where}: {err['msg']}".removeprefix(": "))
        peer = request.client.host if request.client else ""
        try:
            table = room.create(body.name, body.preset, body.hands, body.bots, owner=peer)
        except RoomFull as exc:
            return _error(429, str(exc))
        except RoomError as exc:
            return _error(400, str(exc))
        return JSONResponse({**table.table_msg().model_dump(), "host_token": table.host_token}, status_code=201)

    async def list_bots(request: Request) -> Response:
        # the names (what a table's ``bot`` message and ``POST /api/tables`` take); with
        # ?labels=1 each with its label, for a page to show what it is
        if request.query_params.get("labels") in ("1", "true"):
            labels = room.bots.labels
            return JSONResponse([{"name": n, "label": labels[n]} for n in room.bots.names])
        return JSONResponse(room.bots.names)

    async def list_logs(request: Request) -> Response:
        # the server's log files ("f<n>"), then the newest hands booked in the ledger ("h<n>")
        files = [{"id": f"f{i}", "name": p.name} for i, p in enumerate(log_files)]
        hands = await asyncio.to_thread(room.ledger.recent_hands, 64)
        return JSONResponse(files + [{"id": rid, "name": name} for rid, name in hands])

    async def stored_lines(rid: str) -> tuple[list[str], str]:
        """The lines and name of the server's log ``rid`` (a file "f<n>" or a booked hand
        "h<n>"); :class:`LookupError` for no such log."""
        if not _REPLAY_ID.match(rid):
            raise LookupError(f"no hand log {rid[:40]!r}: ids are f<number> or h<number>")
        if rid[0] == "f":
            n = int(rid[1:])
            if n >= len(log_files):
                raise LookupError(f"no hand log {rid!r}")
            return await asyncio.to_thread(read_log_lines, log_files[n]), log_files[n].name
        rec = await asyncio.to_thread(room.ledger.hand, rid)
        if rec is None:
            raise LookupError(f"no hand log {rid!r}")
        return rec.lines, rec.name

    async def replay_log(request: Request) -> Response:
        rid = request.path_params["rid"]
        if not _REPLAY_ID.match(rid):
            return _error(404, f"no hand log {rid[:40]!r}: ids are f<number> or h<number>")
        try:
            if rid[0] == "f":
                n = int(rid[1:])
                if n >= len(log_files):
                    return _error(404, f"no hand log {rid!r}")
                path = log_files[n]
                lines = await asyncio.to_thread(read_log_lines, path)
                doc = await replay_frames(lines, path.name)
                seed = doc.get("seed")
                doc["seed"] = None if seed is None else str(seed)
                doc["commitment"] = None  # a log file was not dealt here: nothing was committed
                return JSONResponse(doc)
            rec = await asyncio.to_thread(room.ledger.hand, rid)
            if rec is None:
                return _error(404, f"no hand log {rid!r}")
            doc = await replay_frames(rec.lines, rec.name)
            # 128-bit seeds are sent as text: a JSON number that large loses digits in a browser
            doc["seed"], doc["commitment"] = rec.seed, rec.commitment
            doc["commitment_of_seed"] = commitment(int(rec.seed))
            return JSONResponse(doc)
        except LogError as exc:
            return _error(400, str(exc))

    async def uploaded_lines(request: Request) -> list[str]:
        """The lines of a log in the request body (plain or gzip), bounded; :class:`_Upload`
        (with its HTTP status) naming the fault."""
        try:
            body = await read_body(request, MAX_UPLOAD)
        except BodyTooLarge as exc:
            raise _Upload(413, f"uploaded log: {exc}") from None
        try:
            if body[:2] == b"\x1f\x8b":
                body = gunzip(body, name="uploaded log", what="hand log", limit=MAX_LOG)
            elif len(body) > MAX_LOG:
                raise _Upload(413, f"uploaded log: larger than {MAX_LOG} bytes")
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Upload(400, f"uploaded log: not UTF-8 text: {exc}") from None
        except InputFileError as exc:
            raise _Upload(400, str(exc)) from None
        return [ln for ln in text.splitlines() if ln.strip()]

    async def replay_upload(request: Request) -> Response:
        try:
            lines = await uploaded_lines(request)
            doc = await replay_frames(lines, "uploaded log")
        except _Upload as exc:
            return _error(exc.status, str(exc))
        except LogError as exc:
            return _error(400, str(exc))
        seed = doc.get("seed")
        doc["seed"] = None if seed is None else str(seed)
        return JSONResponse(doc)

    async def review(request: Request, key: str, read: Callable[[], Awaitable[tuple[list[str], str]]]) -> Response:
        peer = request.client.host if request.client else ""

        async def lines() -> tuple[list[str], str]:
            text, name = await read()
            if len(text) > MAX_LOG_LINES:
                raise LogError(f"{name}: {len(text)} lines; a hand log has at most {MAX_LOG_LINES}")
            return text, name

        try:
            seat, rollouts = reviewer.check(request.query_params.get("seat"), request.query_params.get("rollouts"))
            result, cached = await reviewer.review(key, seat, rollouts, peer, lines)
        except LookupError as exc:
            return _error(404, str(exc))
        except _Upload as exc:
            return _error(exc.status, str(exc))
        except (ReviewRefused, LogError) as exc:
            return _error(400, str(exc))
        except ReviewBusy as exc:
            return _error(429, str(exc))
        except ReviewUnfinished as exc:
            return _error(503, str(exc))
        return JSONResponse(result.model_dump(mode="json"), headers={"X-Review-Cache": "hit" if cached else "miss"})

    async def review_stored(request: Request) -> Response:
        rid = request.path_params["rid"]
        return await review(request, rid, lambda: stored_lines(rid))

    async def review_upload(request: Request) -> Response:
        # read before the review is keyed: an upload is cached by its contents
        try:
            lines = await uploaded_lines(request)
        except _Upload as exc:
            return _error(exc.status, str(exc))

        async def given() -> tuple[list[str], str]:
            return lines, "uploaded log"

        digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
        return await review(request, f"upload:{digest}", given)

    async def standings(request: Request) -> Response:
        try:
            offset = _int_param(request, "offset", 0, 0, 10**9)
            limit = _int_param(request, "limit", 100, 1, 500)
        except ValueError as exc:
            return _error(400, str(exc))
        rows = await asyncio.to_thread(room.ledger.standings, offset, limit)
        return JSONResponse([asdict(r) for r in rows])

    async def player(request: Request) -> Response:
        name = request.path_params["name"]
        if len(name) > 200:
            return _error(404, "no such player")
        found = await asyncio.to_thread(room.ledger.player, name)
        if found is None:
            return _error(404, f"no player named {name[:40]!r}")
        st, hist = found
        return JSONResponse({**asdict(st), "history": [asdict(h) for h in hist]})

    async def table_ws(ws: WebSocket) -> None:
        await ws.accept()
        table = room.tables.get(ws.path_params["table"])
        if table is None:
            await ws.send_text(P.ErrorMsg(message=f"no table {ws.path_params['table'][:40]!r}").model_dump_json())
            await ws.close(code=4404)
            return
        lim = room.limits
        client = Client(ws.client.host if ws.client else "", lim.send_queue)
        closing = asyncio.Event()
        client.on_drop = lambda why: closing.set()
        client.send(P.WelcomeMsg(table=table.id, bots=room.bots.names, bot_labels=room.bots.labels).model_dump_json())
        table.join(client)
        writer = asyncio.create_task(_writer(ws, client, table))
        reader = asyncio.create_task(_reader(ws, client, table, room))
        closer = asyncio.create_task(closing.wait())
        watchdog = asyncio.create_task(_watch_sends(client, lim.send_timeout))
        try:
            await asyncio.wait({reader, writer, closer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            table.leave(client)
            for t in (reader, closer, watchdog):
                t.cancel()
            if client.dropped is not None and not writer.done():
                # say why (if the queue has room), then close
                with contextlib.suppress(asyncio.QueueFull):
                    client.queue.put_nowait(P.ErrorMsg(message=client.dropped).model_dump_json())
            with contextlib.suppress(asyncio.QueueFull):
                client.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 1.0)
            writer.cancel()
            with contextlib.suppress(Exception):
                await ws.close(code=1008 if client.dropped else 1000)

    return Starlette(
        routes=[
            Route("/", _page("index.html")),
            Route("/table/{table}", _page("table.html")),
            Route("/replay", _page("replay.html")),
            Route("/standings", _page("standings.html")),
            Route("/api/tables", list_tables, methods=["GET"]),
            Route("/api/tables", create_table, methods=["POST"]),
            Route("/api/bots", list_bots),
            Route("/api/logs", list_logs),
            Route("/api/replay/{rid:str}", replay_log),
            Route("/api/replay", replay_upload, methods=["POST"]),
            Route("/api/review/{rid:str}", review_stored),
            Route("/api/review", review_upload, methods=["POST"]),
            Route("/api/standings", standings),
            Route("/api/players/{name:str}", player),
            WebSocketRoute("/ws/{table}", table_ws),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )


def _error_to(client: Client, message: str) -> None:
    client.send(P.ErrorMsg(message=message).model_dump_json())


class _Bucket:
    """A token bucket: ``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


async def _reader(ws: WebSocket, client: Client, table: Table, room: Room) -> None:
    """Read the client's messages until it goes, floods or sends one too large."""
    bucket = _Bucket(room.limits.rate, room.limits.burst)
    with contextlib.suppress(WebSocketDisconnect):
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            data = msg.get("text")
            size = len(data.encode("utf-8", "replace")) if data is not None else len(msg.get("bytes") or b"")
            if size > MAX_MESSAGE:
                client.drop(f"message too long (more than {MAX_MESSAGE} bytes); closing the connection")
                return
            if not bucket.take():
                client.drop(f"too many messages (more than {room.limits.rate:g} a second); closing the connection")
                return
            text = data if data is not None else (msg.get("bytes") or b"").decode("utf-8", "replace")
            try:
                await _handle(table, client, text, room)
            except Exception:  # a bug, or the database failed: log it, keep the connection
                _log.exception("table %s: a client message failed", table.id)
                _error_to(client, "the server failed on that message (it is in the server's log); try again")


async def _handle(table: Table, client: Client, text: str, room: Room) -> None:
    """One client message: validated, then applied or refused with an error (nothing changed)."""
    try:
        m: Any = P.parse_client(text)
    except P.ProtocolError as exc:
        _error_to(client, str(exc))
        return
    try:
        if isinstance(m, P.SitMsg):
            player = None
            if m.secret is not None:
                try:
                    player = await asyncio.to_thread(room.ledger.identify, m.name, m.secret, m.password)
                except StandingsError as exc:
                    raise RoomError(str(exc)) from None
            token = table.sit(client, m.seat, m.name, player)
            client.send(
                P.WelcomeMsg(
                    table=table.id,
                    seat=m.seat,
                    token=token,
                    host=client.host,
                    bots=room.bots.names,
                    bot_labels=room.bots.labels,
                ).model_dump_json()
            )
            table.touch(table=True)
        elif isinstance(m, P.ResumeMsg):
            seat = table.resume(client, m.token)
            client.send(
                P.WelcomeMsg(
                    table=table.id,
                    seat=seat,
                    token=m.token,
                    host=client.host,
                    bots=room.bots.names,
                    bot_labels=room.bots.labels,
                ).model_dump_json()
            )
            table.touch(table=True)
        elif isinstance(m, P.HostMsg):
            table.claim_host(client, m.token)
            client.send(
                P.WelcomeMsg(
                    table=table.id,
                    seat=table.holds(client),
                    host=True,
                    bots=room.bots.names,
                    bot_labels=room.bots.labels,
                ).model_dump_json()
            )
        elif isinstance(m, P.BotMsg):
            table.seat_bot(client, m.seat, m.strategy)
        elif isinstance(m, P.StandMsg):
            table.stand(client, m.seat)
        elif isinstance(m, P.StartMsg):
            table.start(client)
        elif isinstance(m, P.WatchMsg):
            table.watch(client, m.seat)
        elif isinstance(m, P.SelectMsg):
            table.select(client, m.tile)
        elif isinstance(m, P.ActMsg):
            table.act(client, m.action)
    except RoomError as exc:
        _error_to(client, str(exc))


async def _watch_sends(client: Client, send_timeout: float) -> None:
    """Drop a connection one message has been on its way to for ``send_timeout`` seconds (a
    reader that stopped reading). One sleeping task per connection, not a timer per message:
    the writer only notes when its current send began."""
    while client.dropped is None:
        since = client.sending_since
        if since is not None and time.monotonic() - since > send_timeout:
            client.drop("the connection reads too slowly")
            return
        await asyncio.sleep(min(1.0, send_timeout / 4))


async def _writer(ws: WebSocket, client: Client, table: Table) -> None:
    while True:
        item = await client.queue.get()
        if item is None:
            return
        client.take(item)
        if item == Client.STATE:
            text = table.state_for(client).model_dump_json()
        elif item == Client.TABLE:
            text = table.table_msg().model_dump_json()
        else:
            text = item
        client.sending_since = time.monotonic()
        try:
            await ws.send_text(text)
        except Exception:  # noqa: BLE001 - the connection is gone; the reader notices
            return
        client.sending_since = None
