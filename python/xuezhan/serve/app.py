"""The game room's ASGI app (Starlette): :func:`create_app` keeps the room in
``app.state.served`` (:class:`~xuezhan.serve.served.Served`) and routes to the module-level
endpoints of :mod:`xuezhan.serve.endpoints` (HTTP) and :mod:`xuezhan.serve.table_socket` (the
websocket of a table).

Routes: ``/`` lobby, ``/table/{id}`` table page, ``/replay`` replay viewer, ``/standings``
leaderboard and player pages, ``/static/...``; ``GET/POST /api/tables``, ``GET /api/bots``,
``GET /api/logs``, ``GET /api/replay/{id}``, ``POST /api/replay`` (a log in the body),
``GET /api/review/{id}?seat=N``, ``POST /api/review?seat=N`` (a log in the body; the review of
one seat's decisions, :mod:`xuezhan.serve.review_jobs`), ``GET /api/standings``,
``GET /api/players/{name}``; ``/ws/{table}`` the websocket protocol of
:mod:`xuezhan.serve.protocol` (docs/room.md).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from xuezhan.serve import endpoints as E
from xuezhan.serve.endpoints import STATIC, checked_frames
from xuezhan.serve.gate import Gate
from xuezhan.serve.lobby import Room
from xuezhan.serve.review_jobs import ReviewLimits, Reviews
from xuezhan.serve.served import Served
from xuezhan.serve.table_socket import table_socket

__all__ = ["STATIC", "checked_frames", "client_gone", "create_app", "routes"]

_log = logging.getLogger("xuezhan.serve")


def routes() -> list[Route | WebSocketRoute | Mount]:
    """The room's routes, each to a module-level endpoint."""
    return [
        Route("/", E.page("index.html")),
        Route("/table/{table}", E.page("table.html")),
        Route("/replay", E.page("replay.html")),
        Route("/standings", E.page("standings.html")),
        Route("/api/tables", E.list_tables, methods=["GET"]),
        Route("/api/tables", E.create_table, methods=["POST"]),
        Route("/api/bots", E.list_bots),
        Route("/api/logs", E.list_logs),
        Route("/api/replay/{rid:str}", E.replay_log),
        Route("/api/replay", E.replay_upload, methods=["POST"]),
        Route("/api/review/{rid:str}", E.review_stored),
        Route("/api/review", E.review_upload, methods=["POST"]),
        Route("/api/standings", E.standings),
        Route("/api/players/{name:str}", E.player),
        WebSocketRoute("/ws/{table}", table_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]


def create_app(
    room: Room | None = None, logs: Sequence[Path] = (), reviews: ReviewLimits | Reviews | None = None
) -> Starlette:
    """The app; ``room`` holds its tables (a fresh one by default), ``logs`` are hand logs the
    replay page offers, ``reviews`` the bounds of its reviews (or the reviews themselves)."""
    served = Served(
        room if room is not None else Room(),
        [Path(p) for p in logs],
        reviews if isinstance(reviews, Reviews) else Reviews(reviews),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await served.room.close()
        served.reviews.close()

    app = Starlette(
        routes=routes(),
        lifespan=lifespan,
        middleware=[Middleware(Gate, limits=served.room.limits)],
        exception_handlers={ClientDisconnect: client_gone},
    )
    app.state.served = served
    return app


async def client_gone(request: Request, exc: Exception) -> Response:
    """A client that went away while sending its request (a body cut short): one line in the
    server's log, no traceback; the answer goes nowhere."""
    _log.info("%s %s: the client went away before its request was complete", request.method, request.url.path)
    return Response(status_code=400)
