"""The room's door: open connections per client address and over all clients, and client
addresses as the socket gives them.

:class:`Gate` is an ASGI middleware around the whole app. It counts each client address's open
connections (websockets, and HTTP requests being answered) and all of them together; one past
``max_connections_per_client`` or ``max_connections`` is refused before the app sees it, with
``429`` (its address) or ``503`` (the server) and a one-line JSON ``error``: an HTTP request's
answer, or a websocket handshake's denial (a server without denials: the websocket is accepted
only to send the ``error``, then closed with code 1013, try again later). So one address
cannot hold a thousand websockets, and all addresses together a bounded number.

The client address is the socket's peer. Only when ``xuezhan serve --trusted-proxy ADDR`` names
the reverse proxy in front of the room does uvicorn take the client from that proxy's
``X-Forwarded-For`` (and only for connections that come from it), so no client can choose the
address its limits are counted by.
"""

from __future__ import annotations

import json
import logging
from collections import Counter

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from xuezhan.serve.limits import Limits

__all__ = ["Gate", "client_address"]

_log = logging.getLogger("xuezhan.serve")


def client_address(scope: Scope) -> str:
    """The client address of a connection (the socket's peer, or the trusted proxy's client)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


class Gate:
    """Bounds the open connections per client address and in total (see the module)."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits
        self.open: Counter[str] = Counter()
        self.total = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        addr = client_address(scope)
        lim = self.limits
        if self.open[addr] >= lim.max_connections_per_client:
            await _refuse(
                scope,
                receive,
                send,
                429,
                f"too many connections from your address (at most {lim.max_connections_per_client} at once); "
                "close some tabs or try again later",
            )
            return
        if self.total >= lim.max_connections:
            await _refuse(scope, receive, send, 503, "the server is full (too many connections); try again later")
            return
        self.open[addr] += 1
        self.total += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.total -= 1
            self.open[addr] -= 1
            if not self.open[addr]:
                del self.open[addr]


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, message: str) -> None:
    """Refuse a connection before the app sees it, as cheaply as the server allows: an HTTP
    answer (a websocket's handshake denied with one, where the server can; else accepted only
    to say why, then closed with 1013, try again later)."""
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"retry-after", b"10")]
    start = "http.response.start"
    if scope["type"] == "websocket":
        if (await receive())["type"] != "websocket.connect":
            return  # gone before the handshake
        if "websocket.http.response" in scope.get("extensions", {}):
            start = "websocket.http.response.start"
        else:
            frames: list[Message] = [
                {"type": "websocket.accept"},
                {"type": "websocket.send", "text": json.dumps({"type": "error", "message": message})},
                {"type": "websocket.close", "code": 1013},
            ]
            await _send_all(send, frames)
            return
    body_type = start.removesuffix(".start") + ".body"
    await _send_all(send, [{"type": start, "status": status, "headers": headers}, {"type": body_type, "body": body}])


async def _send_all(send: Send, frames: list[Message]) -> None:
    try:
        for frame in frames:
            await send(frame)
    except OSError:  # the client is gone already: nothing to say
        pass
