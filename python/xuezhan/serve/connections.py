"""The connections of a table: each one's message queue (:class:`Client`) and the fan-out to all
of them (:class:`Audience`).

A connection's messages go through one bounded queue; state and table updates are coalesced
(at most one of each queued, built when sent), so a slow connection never piles up stale
snapshots, and one that still falls behind is dropped. What a state message holds for the one
seat a connection sees is :mod:`xuezhan.serve.views`' business.

    >>> c = Client(queue_size=4)
    >>> c.mark_state(); c.mark_state(); c.queue.qsize()  # coalesced: one state queued
    1
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

__all__ = ["Audience", "Client"]


class Client:
    """One websocket connection: a seated person (``seat``) or a spectator watching ``watch``.

    Messages go through one queue; state and table updates are coalesced (at most one of each
    queued), and built when sent, so a slow connection never piles up stale snapshots."""

    STATE = "\x00state"
    TABLE = "\x00table"

    def __init__(self, peer: str = "", queue_size: int = 64) -> None:
        self.seat: int | None = None
        self.watch = 0
        self.peer = peer  # the client's address (tables per client are counted by it)
        self.host = False  # proved the table's host token
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self._state_queued = False
        self._table_queued = False
        #: What the last state message was built for (a hand, a seat's view): the events already
        #: sent for it, so each state message carries only the new ones (:mod:`.views`).
        self.hand_no = -1
        self.view_seat = -1
        self.view_hidden = False  # the seat's tiles were hidden from this connection
        self.sent = 0  # public views sent for (hand_no, view_seat)
        #: Set when the connection is to be closed (a slow reader, a flood); the app closes it.
        self.dropped: str | None = None
        self.on_drop: Callable[[str], None] | None = None
        #: When the message being sent now began its way (None: nothing on its way).
        self.sending_since: float | None = None

    @property
    def sees(self) -> int:
        """The seat whose view this connection receives: a player only ever its own."""
        return self.seat if self.seat is not None else self.watch

    def _put(self, item: str) -> None:
        if self.dropped is not None:
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.drop("too many messages waiting: the connection reads too slowly")

    def drop(self, why: str) -> None:
        """Close this connection (once): it reads too slowly or sends too much."""
        if self.dropped is None:
            self.dropped = why
            if self.on_drop is not None:
                self.on_drop(why)

    def send(self, text: str) -> None:
        self._put(text)

    def mark_state(self) -> None:
        if not self._state_queued:
            self._state_queued = True
            self._put(self.STATE)

    def mark_table(self) -> None:
        if not self._table_queued:
            self._table_queued = True
            self._put(self.TABLE)

    def take(self, item: str) -> None:
        if item == self.STATE:
            self._state_queued = False
        elif item == self.TABLE:
            self._table_queued = False


class Audience:
    """Everyone connected to one table, players and spectators, and since when nobody is."""

    #: Seconds over which joins and leaves are gathered into one table message.
    COALESCE = 0.25

    def __init__(self) -> None:
        self.clients: set[Client] = set()
        #: No connection since then (monotonic seconds; None: someone is connected).
        self.idle_since: float | None = time.monotonic()
        self._table_flush: asyncio.TimerHandle | None = None

    @property
    def spectators(self) -> int:
        return sum(1 for c in self.clients if c.seat is None)

    def join(self, client: Client) -> None:
        self.clients.add(client)
        self.idle_since = None
        client.mark_table()
        client.mark_state()

    def leave(self, client: Client) -> None:
        self.clients.discard(client)
        if not self.clients:
            self.idle_since = time.monotonic()

    def touch(self, table: bool = False) -> None:
        """Something changed: queue a fresh state (and table) message for every connection."""
        for c in self.clients:
            c.mark_state()
            if table:
                c.mark_table()

    def touch_table_soon(self) -> None:
        """A spectator came or went: one table message for all of them within ``COALESCE``
        seconds, however many came or went meanwhile (the count is all that changed)."""
        if self._table_flush is None:

            def flush() -> None:
                self._table_flush = None
                for c in self.clients:
                    c.mark_table()

            self._table_flush = asyncio.get_running_loop().call_later(self.COALESCE, flush)

    def close(self) -> None:
        if self._table_flush is not None:
            self._table_flush.cancel()
            self._table_flush = None
