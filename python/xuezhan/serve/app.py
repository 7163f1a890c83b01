"""The game room's ASGI app (Starlette): pages, a small JSON API and one websocket per table.

Routes: ``/`` lobby, ``/table/{id}`` table page, ``/replay`` replay viewer, ``/static/...``;
``GET/POST /api/tables``, ``GET /api/bots``, ``GET /api/logs``, ``GET /api/replay/{id}``,
``POST /api/replay`` (a log in the body); ``/ws/{table}`` the websocket protocol of
:mod:`xuezhan.serve.protocol` (docs/room.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from xuezhan.files import InputFileError, gunzip
from xuezhan.serve import protocol as P
from xuezhan.serve.replay import LogError, frames, read_log_lines
from xuezhan.serve.tables import Client, Room, RoomError, Table

__all__ = ["STATIC", "create_app"]

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE = 4096  # bytes; no client message needs more
MAX_LOG = 8 * 1024 * 1024  # bytes of an uploaded log


class CreateTable(BaseModel):
    """``POST /api/tables`` body."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field("", max_length=40, pattern=r"^[^<>&\"']*$")
    preset: str = Field("leshan", pattern=r"^(leshan|chengdu)$")
    hands: int = Field(8, ge=1, le=64)
    seed: int | None = Field(None, ge=0, lt=2**63)
    bots: list[str | None] = Field(default_factory=list, max_length=4)


def _page(name: str) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        return FileResponse(STATIC / name, media_type="text/html")

    return endpoint


def create_app(room: Room | None = None, logs: Sequence[Path] = ()) -> Starlette:
    """The app; ``room`` holds its tables (a fresh one by default), ``logs`` are hand logs the
    replay page offers."""
    room = room if room is not None else Room()
    log_files = [Path(p) for p in logs]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await room.close()

    async def list_tables(request: Request) -> Response:
        return JSONResponse([t.table_msg().model_dump() for t in room.tables.values()])

    async def create_table(request: Request) -> Response:
        try:
            body = CreateTable.model_validate_json(await request.body())
        except ValidationError as exc:
            err = exc.errors()[0]
            return JSONResponse(
                {"error": f"{'.'.join(map(str, err['loc']))}: {err['msg']}"},
                status_code=400,
            )
        try:
            table = room.create(body.name, body.preset, body.hands, body.seed, body.bots)
        except RoomError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(table.table_msg().model_dump(), status_code=201)

    async def list_bots(request: Request) -> Response:
        return JSONResponse(room.bots.names)

    async def list_logs(request: Request) -> Response:
        # the server's log files ("f<n>"), then the hands finished at its tables ("<table>-<n>")
        files = [{"id": f"f{i}", "name": p.name} for i, p in enumerate(log_files)]
        hands = [
            {"id": rid, "name": f"{t.name}, hand {rid.rsplit('-', 1)[1]}"}
            for t in room.tables.values()
            for rid in t.finished
        ]
        return JSONResponse(files + hands)

    async def replay_log(request: Request) -> Response:
        rid = request.path_params["rid"]
        try:
            if rid[:1] == "f" and rid[1:].isdigit() and int(rid[1:]) < len(log_files):
                path = log_files[int(rid[1:])]
                return JSONResponse(frames(read_log_lines(path), path.name))
            table = room.tables.get(rid.rsplit("-", 1)[0])
            lines = table.finished.get(rid) if table is not None else None
            if lines is not None:
                assert table is not None
                return JSONResponse(frames(lines, f"{table.name}, hand {rid.rsplit('-', 1)[1]}"))
        except LogError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"error": f"no hand log {rid!r}"}, status_code=404)

    async def replay_upload(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_LOG:
            return JSONResponse({"error": "the log is too large"}, status_code=413)
        try:
            if body[:2] == b"\x1f\x8b":
                body = gunzip(body, name="uploaded log", what="hand log", limit=MAX_LOG)
            text = body.decode("utf-8")
            doc = frames([ln for ln in text.splitlines() if ln.strip()], "uploaded log")
        except UnicodeDecodeError as exc:
            return JSONResponse({"error": f"uploaded log: not UTF-8 text: {exc}"}, status_code=400)
        except (InputFileError, LogError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(doc)

    async def table_ws(ws: WebSocket) -> None:
        await ws.accept()
        table = room.tables.get(ws.path_params["table"])
        if table is None:
            await ws.send_text(P.ErrorMsg(message=f"no table {ws.path_params['table']!r}").model_dump_json())
            await ws.close(code=4404)
            return
        client = Client()
        client.send(P.WelcomeMsg(table=table.id, bots=room.bots.names).model_dump_json())
        table.join(client)
        writer = asyncio.create_task(_writer(ws, client, table))
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                if text is None:
                    text = (msg.get("bytes") or b"").decode("utf-8", "replace")
                _handle(table, client, text, room)
        except WebSocketDisconnect:
            pass
        finally:
            table.leave(client)
            client.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 1.0)

    return Starlette(
        routes=[
            Route("/", _page("index.html")),
            Route("/table/{table}", _page("table.html")),
            Route("/replay", _page("replay.html")),
            Route("/api/tables", list_tables, methods=["GET"]),
            Route("/api/tables", create_table, methods=["POST"]),
            Route("/api/bots", list_bots),
            Route("/api/logs", list_logs),
            Route("/api/replay/{rid:str}", replay_log),
            Route("/api/replay", replay_upload, methods=["POST"]),
            WebSocketRoute("/ws/{table}", table_ws),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )


def _error(client: Client, message: str) -> None:
    client.send(P.ErrorMsg(message=message).model_dump_json())


def _handle(table: Table, client: Client, text: str, room: Room) -> None:
    """One client message: validated, then applied or refused with an error (nothing changed)."""
    if len(text.encode("utf-8", "replace")) > MAX_MESSAGE:
        _error(client, f"message too long (more than {MAX_MESSAGE} bytes)")
        return
    try:
        m: Any = P.parse_client(text)
    except P.ProtocolError as exc:
        _error(client, str(exc))
        return
    try:
        if isinstance(m, P.SitMsg):
            token = table.sit(client, m.seat, m.name)
            client.send(P.WelcomeMsg(table=table.id, seat=m.seat, token=token, bots=room.bots.names).model_dump_json())
            table.touch(table=True)
        elif isinstance(m, P.ResumeMsg):
            seat = table.resume(client, m.token)
            client.send(P.WelcomeMsg(table=table.id, seat=seat, token=m.token, bots=room.bots.names).model_dump_json())
            table.touch(table=True)
        elif isinstance(m, P.BotMsg):
            table.seat_bot(m.seat, m.strategy)
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
        _error(client, str(exc))


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
        try:
            await ws.send_text(text)
        except Exception:  # noqa: BLE001 - the connection is gone; the reader notices
            return
