"""How much one server, client and connection may make the room hold (:class:`Limits`), how fast
bots play for people watching (:class:`Pace`), and the room's one error type (:class:`RoomError`).

    >>> Limits().max_tables_per_client, Pace(bot_delay=0).bot_delay
    (3, 0)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Bucket", "Limits", "Pace", "RoomError", "RoomFull", "TooMany"]


class RoomError(ValueError):
    """A request the table refuses (the message says why); nothing changed."""


class RoomFull(RoomError):
    """A new table refused: the server's or the client's table limit is reached."""


class TooMany(RoomError):
    """A request refused for now: the client (or the server) asked for too much, too often; the
    message says for how long."""


@dataclass
class Pace:
    """How fast bots play for watchers: a pause before each bot turn, and between hands of a
    table without people (seconds). Tests use zeros."""

    bot_delay: float = 0.6
    between_hands: float = 4.0
    #: The pause before a locked hand's forced discard is played for a person (R14.2,
    #: :mod:`xuezhan.serve.locked`); at most half the turn timer, so it always comes first.
    locked_discard: float = 1.0
    #: Seconds every discard waits for claims at a table where a person plays, whether anyone
    #: is asked or not, so that nobody learns who was (:mod:`xuezhan.serve.claim_window`); a
    #: person asked has this long (at most R10.2's claim timeout). 0: no window (claims are asked
    #: as R10.2 says, and the pause tells the others that someone was asked).
    claim_window: float = 2.0


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
    #: Open connections (websockets, and requests being answered) from one client address, and
    #: over all clients (:mod:`xuezhan.serve.gate`).
    max_connections_per_client: int = 24
    max_connections: int = 1000
    #: Sits one client address may ask for per minute on average, and at once
    #: (:mod:`xuezhan.serve.attempts`).
    sits_per_minute: float = 10.0
    sit_burst: int = 5
    #: Failed password attempts on one name before it is locked; the lock's first length (s),
    #: doubled at each further failure up to ``lockout_max``. A browser that owns the name (its
    #: secret) is never locked out.
    password_failures: int = 5
    lockout: float = 60.0
    lockout_max: float = 86_400.0
    #: Seconds one client address waits after a failed password attempt before its next,
    #: doubled at each further failure up to ``backoff_max``.
    backoff: float = 1.0
    backoff_max: float = 300.0
    #: Password checks waiting for the hashing thread at most; one more is refused at once
    #: (:mod:`xuezhan.serve.passwords`).
    password_queue: int = 8
    #: Characters a new password needs at least (a password that is set, not one given).
    password_min: int = 8


class Bucket:
    """A token bucket: ``rate`` takes a second on average, ``burst`` at once (``clock``: seconds,
    monotonic; tests pass their own).

    >>> now = [0.0]
    >>> b = Bucket(1.0, 2, clock=lambda: now[0])
    >>> b.take(), b.take(), b.take()
    (True, True, False)
    >>> now[0] = 1.0; b.take(), b.wait()
    (True, 1.0)
    """

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst = rate, float(burst)
        self.clock = clock
        self.tokens = float(burst)
        self.at = clock()

    def _fill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self) -> bool:
        """Take one token if there is one."""
        self._fill()
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def wait(self) -> float:
        """Seconds until the next token."""
        self._fill()
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate
