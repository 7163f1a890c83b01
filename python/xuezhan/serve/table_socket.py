"""The websocket of a table (``/ws/{table}``): the protocol of :mod:`xuezhan.serve.protocol`
(docs/room.md) between one connection and its table.

:func:`table_socket` is the endpoint: it joins the connection to the table and runs a reader
(:func:`read_messages`: each message bounded in size and rate, then :func:`handle`), a writer
(:func:`write_messages`: the connection's queue, each state built when sent) and a watchdog
(:func:`watch_sends`: a reader that stopped reading is dropped) until one of them ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from xuezhan.serve import protocol as P
from xuezhan.serve import sitting
from xuezhan.serve.connections import Client
from xuezhan.serve.limits import Bucket, RoomError
from xuezhan.serve.lobby import Room
from xuezhan.serve.served import served
from xuezhan.serve.summary import RULE_WORDS
from xuezhan.serve.tables import Table

__all__ = ["MAX_MESSAGE", "handle", "read_messages", "table_socket", "watch_sends", "write_messages"]

_log = logging.getLogger("xuezhan.serve")
#: Bytes of one websocket message (no client message needs more; past it: an error, then close).
MAX_MESSAGE = 4096


async def table_socket(ws: WebSocket) -> None:
    """``/ws/{table}``: one connection to one table, until it closes or is dropped."""
    await ws.accept()
    room = served(ws).room
    table = room.tables.get(ws.path_params["table"])
    if table is None:
        await ws.send_text(P.ErrorMsg(message=f"no table {ws.path_params['table'][:40]!r}").model_dump_json())
        await ws.close(code=4404)
        return
    lim = room.limits
    client = Client(ws.client.host if ws.client else "", lim.send_queue)
    closing = asyncio.Event()
    client.on_drop = lambda why: closing.set()
    client.send(
        P.WelcomeMsg(
            table=table.id, bots=room.bots.names, bot_labels=room.bots.labels, rule_words=dict(RULE_WORDS)
        ).model_dump_json()
    )
    table.join(client)
    writer = asyncio.create_task(write_messages(ws, client, table))
    reader = asyncio.create_task(read_messages(ws, client, table, room))
    closer = asyncio.create_task(closing.wait())
    watchdog = asyncio.create_task(watch_sends(client, lim.send_timeout))
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


def _error_to(client: Client, message: str) -> None:
    client.send(P.ErrorMsg(message=message).model_dump_json())


async def read_messages(ws: WebSocket, client: Client, table: Table, room: Room) -> None:
    """Read the client's messages until it goes, floods or sends one too large."""
    bucket = Bucket(room.limits.rate, room.limits.burst)
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
                await handle(table, client, text, room)
            except Exception:  # a bug, or the database failed: log it, keep the connection
                _log.exception("table %s: a client message failed", table.id)
                _error_to(client, "the server failed on that message (it is in the server's log); try again")


def _welcome(table: Table, room: Room, client: Client, seat: int | None, token: str | None = None) -> str:
    return P.WelcomeMsg(
        table=table.id, seat=seat, token=token, host=client.host, bots=room.bots.names, bot_labels=room.bots.labels
    ).model_dump_json()


async def handle(table: Table, client: Client, text: str, room: Room) -> None:
    """One client message: validated, then applied or refused with an error (nothing changed)."""
    try:
        m: Any = P.parse_client(text)
    except P.ProtocolError as exc:
        _error_to(client, str(exc))
        return
    try:
        if isinstance(m, P.SitMsg):
            token = await sitting.sit(table, client, m, room)
            client.send(_welcome(table, room, client, m.seat, token))
            table.touch(table=True)
        elif isinstance(m, P.ResumeMsg):
            seat = table.resume(client, m.token)
            client.send(_welcome(table, room, client, seat, m.token))
            table.touch(table=True)
        elif isinstance(m, P.HostMsg):
            table.claim_host(client, m.token)
            client.send(_welcome(table, room, client, table.holds(client)))
        elif isinstance(m, P.BotMsg):
            table.seat_bot(client, m.seat, m.strategy)
        elif isinstance(m, P.StandMsg):
            table.stand(client, m.seat)
        elif isinstance(m, P.StartMsg):
            table.start(client)
        elif isinstance(m, P.WatchMsg):
            table.watch(client, m.seat)
        elif isinstance(m, P.ShowHandMsg):
            table.show_hand(client, m.allow)
        elif isinstance(m, P.SelectMsg):
            table.select(client, m.tile)
        elif isinstance(m, P.ActMsg):
            table.act(client, m.action)
    except RoomError as exc:
        _error_to(client, str(exc))


async def watch_sends(client: Client, send_timeout: float) -> None:
    """Drop a connection one message has been on its way to for ``send_timeout`` seconds (a
    reader that stopped reading). One sleeping task per connection, not a timer per message:
    the writer only notes when its current send began."""
    while client.dropped is None:
        since = client.sending_since
        if since is not None and time.monotonic() - since > send_timeout:
            client.drop("the connection reads too slowly")
            return
        await asyncio.sleep(min(1.0, send_timeout / 4))


async def write_messages(ws: WebSocket, client: Client, table: Table) -> None:
    """Send the connection's queue; a state or table update is built when its turn comes."""
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
