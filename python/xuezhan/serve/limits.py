"""How much one server, client and connection may make the room hold (:class:`Limits`), how fast
bots play for people watching (:class:`Pace`), and the room's one error type (:class:`RoomError`).

    >>> Limits().max_tables_per_client, Pace(bot_delay=0).bot_delay
    (3, 0)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "Pace", "RoomError", "RoomFull"]


class RoomError(ValueError):
    """A request the table refuses (the message says why); nothing changed."""


class RoomFull(RoomError):
    """A new table refused: the server's or the client's table limit is reached."""


@dataclass
class Pace:
    """How fast bots play for watchers: a pause before each bot turn, and between hands of a
    table without people (seconds). Tests use zeros."""

    bot_delay: float = 0.6
    between_hands: float = 4.0
    #: The pause before a locked hand's forced discard is played for a person (R14.2,
    #: :mod:`xuezhan.serve.locked`); at most half the turn timer, so it always comes first.
    locked_discard: float = 1.0


@dataclass
class Limits:
    """What one server, one client and one connection may make the room hold or do."""

    #: Open tables on the server, and opened by one client address.
    max_tables: int = 100
    max_tables_per_client: int = 3
    #: Seconds a seated person may wait without pressing Start before being unseated.
    start_timeout: float = 180.0
    #: Seconds a table without any connection lives on before it is closed.
    idle_timeout: float = 600.0
    #: Messages queued for one connection before it is dropped as a slow reader.
    send_queue: int = 64
    #: Seconds one message may take to reach a connection before it is dropped as a slow reader.
    send_timeout: float = 30.0
    #: Client messages per second a connection may send on average, and in a burst.
    rate: float = 20.0
    burst: int = 60
    #: How often the room looks for idle tables (seconds).
    sweep: float = 5.0
