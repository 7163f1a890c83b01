"""The room's HTTP endpoints, each a module-level function of one request that reads what it
needs from ``request.app.state`` (:func:`~xuezhan.serve.served.served`): pages, tables, bots,
hand logs and their replay frames, reviews, standings. :func:`~xuezhan.serve.app.create_app`
routes them; the websocket of a table is :mod:`xuezhan.serve.table_socket`.

Every piece of work a client can ask for is bounded: request bodies are refused past their
limit before they are read, an uploaded log is replayed in a worker thread (at most two at a
time), bounded in bytes and lines; a review runs in a worker process, bounded in rollouts, time
and reviews at once (:mod:`xuezhan.serve.review_jobs`).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from xuezhan.files import InputFileError, gunzip
from xuezhan.rules import PRESETS
from xuezhan.serve.deals import commitment
from xuezhan.serve.limits import RoomError, RoomFull
from xuezhan.serve.names import TABLE_NAME_MAX, clean_name
from xuezhan.serve.replay import LogError, frames, read_log_lines
from xuezhan.serve.review_jobs import ReviewBusy, ReviewRefused, ReviewUnfinished
from xuezhan.serve.served import Served, served

__all__ = [
    "MAX_BODY",
    "MAX_LOG",
    "MAX_LOG_LINES",
    "MAX_PAGE",
    "MAX_UPLOAD",
    "PAGE",
    "STATIC",
    "BodyTooLarge",
    "CreateTable",
    "checked_frames",
    "create_table",
    "list_bots",
    "list_logs",
    "list_tables",
    "page",
    "player",
    "read_body",
    "replay_log",
    "replay_upload",
    "review_stored",
    "review_upload",
    "standings",
]

STATIC = Path(__file__).parent / "static"
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


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _int_param(request: Request, name: str, default: int, lo: int, hi: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not lo <= int(raw[:12]) <= hi or len(raw) > 12:
        raise ValueError(f"{name} must be a whole number from {lo} to {hi}")
    return int(raw)


def _peer(request: Request) -> str:
    return request.client.host if request.client else ""


# ----------------------------------------------------------------------------- pages
def page(name: str) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of one static HTML page (``index.html``, ``table.html``, ...)."""

    async def endpoint(request: Request) -> Response:
        return FileResponse(STATIC / name, media_type="text/html")

    return endpoint


# ----------------------------------------------------------------------------- tables, bots
async def list_tables(request: Request) -> Response:
    """``GET /api/tables?offset=&limit=``: a page of tables, the total in ``X-Total-Count``."""
    try:
        offset = _int_param(request, "offset", 0, 0, 10**9)
        limit = _int_param(request, "limit", PAGE, 1, MAX_PAGE)
    except ValueError as exc:
        return _error(400, str(exc))
    tables = list(served(request).room.tables.values())
    body = [t.table_msg().model_dump() for t in tables[offset : offset + limit]]
    return JSONResponse(body, headers={"X-Total-Count": str(len(tables))})


async def create_table(request: Request) -> Response:
    """``POST /api/tables``: open a table (:class:`CreateTable`); it and its ``host_token``."""
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
    try:
        table = served(request).room.create(body.name, body.preset, body.hands, body.bots, owner=_peer(request))
    except RoomFull as exc:
        return _error(429, str(exc))
    except RoomError as exc:
        return _error(400, str(exc))
    return JSONResponse({**table.table_msg().model_dump(), "host_token": table.host_token}, status_code=201)


async def list_bots(request: Request) -> Response:
    """``GET /api/bots``: the names (what a table's ``bot`` message and ``POST /api/tables``
    take); with ``?labels=1`` each with its label, for a page to show what it is."""
    bots = served(request).room.bots
    if request.query_params.get("labels") in ("1", "true"):
        labels = bots.labels
        return JSONResponse([{"name": n, "label": labels[n]} for n in bots.names])
    return JSONResponse(bots.names)


# ----------------------------------------------------------------------------- hand logs
async def list_logs(request: Request) -> Response:
    """``GET /api/logs``: the server's log files ("f<n>"), then the newest hands booked ("h<n>")."""
    s = served(request)
    files = [{"id": f"f{i}", "name": p.name} for i, p in enumerate(s.logs)]
    hands = await asyncio.to_thread(s.room.ledger.recent_hands, 64)
    return JSONResponse(files + [{"id": rid, "name": name} for rid, name in hands])


async def _replay_frames(s: Served, lines: list[str], name: str) -> dict[str, Any]:
    if len(lines) > MAX_LOG_LINES:
        raise LogError(f"{name}: {len(lines)} lines; a hand log has at most {MAX_LOG_LINES}")
    async with s.replays:
        return await asyncio.to_thread(checked_frames, lines, name)


async def _stored_lines(s: Served, rid: str) -> tuple[list[str], str]:
    """The lines and name of the server's log ``rid`` (a file "f<n>" or a booked hand
    "h<n>"); :class:`LookupError` for no such log."""
    if not _REPLAY_ID.match(rid):
        raise LookupError(f"no hand log {rid[:40]!r}: ids are f<number> or h<number>")
    if rid[0] == "f":
        n = int(rid[1:])
        if n >= len(s.logs):
            raise LookupError(f"no hand log {rid!r}")
        return await asyncio.to_thread(read_log_lines, s.logs[n]), s.logs[n].name
    rec = await asyncio.to_thread(s.room.ledger.hand, rid)
    if rec is None:
        raise LookupError(f"no hand log {rid!r}")
    return rec.lines, rec.name


async def replay_log(request: Request) -> Response:
    """``GET /api/replay/{rid}``: the replay frames of a log of the server, with its seed (as
    text) and, for a hand played here, the commitment shown during the hand."""
    s = served(request)
    rid = request.path_params["rid"]
    if not _REPLAY_ID.match(rid):
        return _error(404, f"no hand log {rid[:40]!r}: ids are f<number> or h<number>")
    try:
        if rid[0] == "f":
            n = int(rid[1:])
            if n >= len(s.logs):
                return _error(404, f"no hand log {rid!r}")
            path = s.logs[n]
            lines = await asyncio.to_thread(read_log_lines, path)
            doc = await _replay_frames(s, lines, path.name)
            seed = doc.get("seed")
            doc["seed"] = None if seed is None else str(seed)
            doc["commitment"] = None  # a log file was not dealt here: nothing was committed
            return JSONResponse(doc)
        rec = await asyncio.to_thread(s.room.ledger.hand, rid)
        if rec is None:
            return _error(404, f"no hand log {rid!r}")
        doc = await _replay_frames(s, rec.lines, rec.name)
        # 128-bit seeds are sent as text: a JSON number that large loses digits in a browser
        doc["seed"], doc["commitment"] = rec.seed, rec.commitment
        doc["commitment_of_seed"] = commitment(int(rec.seed))
        return JSONResponse(doc)
    except LogError as exc:
        return _error(400, str(exc))


async def _uploaded_lines(request: Request) -> list[str]:
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
    """``POST /api/replay``: the replay frames of the log in the body (plain or gzip)."""
    try:
        lines = await _uploaded_lines(request)
        doc = await _replay_frames(served(request), lines, "uploaded log")
    except _Upload as exc:
        return _error(exc.status, str(exc))
    except LogError as exc:
        return _error(400, str(exc))
    seed = doc.get("seed")
    doc["seed"] = None if seed is None else str(seed)
    return JSONResponse(doc)


# ----------------------------------------------------------------------------- reviews
async def _review(request: Request, key: str, read: Callable[[], Awaitable[tuple[list[str], str]]]) -> Response:
    reviewer = served(request).reviews

    async def lines() -> tuple[list[str], str]:
        text, name = await read()
        if len(text) > MAX_LOG_LINES:
            raise LogError(f"{name}: {len(text)} lines; a hand log has at most {MAX_LOG_LINES}")
        return text, name

    try:
        seat, rollouts = reviewer.check(request.query_params.get("seat"), request.query_params.get("rollouts"))
        result, cached = await reviewer.review(key, seat, rollouts, _peer(request), lines)
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
    """``GET /api/review/{rid}?seat=N``: a seat's decisions in a log of the server, reviewed."""
    rid = request.path_params["rid"]
    s = served(request)
    return await _review(request, rid, lambda: _stored_lines(s, rid))


async def review_upload(request: Request) -> Response:
    """``POST /api/review?seat=N``: a seat's decisions in the log in the body, reviewed (cached
    by the log's contents)."""
    try:
        lines = await _uploaded_lines(request)  # read before the review is keyed
    except _Upload as exc:
        return _error(exc.status, str(exc))

    async def given() -> tuple[list[str], str]:
        return lines, "uploaded log"

    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return await _review(request, f"upload:{digest}", given)


# ----------------------------------------------------------------------------- standings
async def standings(request: Request) -> Response:
    """``GET /api/standings?offset=&limit=``: the leaderboard."""
    try:
        offset = _int_param(request, "offset", 0, 0, 10**9)
        limit = _int_param(request, "limit", 100, 1, 500)
    except ValueError as exc:
        return _error(400, str(exc))
    rows = await asyncio.to_thread(served(request).room.ledger.standings, offset, limit)
    return JSONResponse([asdict(r) for r in rows])


async def player(request: Request) -> Response:
    """``GET /api/players/{name}``: a player's points and history."""
    name = request.path_params["name"]
    if len(name) > 200:
        return _error(404, "no such player")
    found = await asyncio.to_thread(served(request).room.ledger.player, name)
    if found is None:
        return _error(404, f"no player named {name[:40]!r}")
    st, hist = found
    return JSONResponse({**asdict(st), "history": [asdict(h) for h in hist]})
