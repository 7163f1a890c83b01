"""Idle sweeping: nobody holds a seat, a searching seat or a table for nothing.

- A seated person who has not pressed Start within ``Limits.start_timeout`` of sitting down (or
  of the last hand's end) is unseated with a message; a searching bot that waited as long for a
  hand leaves its seat, and at once when its match is over and no person sits at the table
  (nobody could start another): :func:`unseat_idle`.
- A table nobody has been connected to for ``Limits.idle_timeout`` seconds is closed; the room
  looks every ``Limits.sweep`` seconds: :class:`Sweeper`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from xuezhan.serve.seating import Seating

__all__ = ["Sweeper", "unseat_idle"]


def unseat_idle(seating: Seating, start_timeout: float, match_over: bool) -> tuple[float | None, bool]:
    """Unseat the people who did not press Start within ``start_timeout``, and the searching
    bots that waited as long for a hand (a table that does not play holds no searching seat
    for longer); the seconds until the next such deadline (None: nobody is waited for), and
    whether a seat changed."""
    now = time.monotonic()
    nxt: float | None = None
    changed = False
    for s in seating.seats:
        if s.kind == "person" and not s.started:
            why = f"you were unseated: Start was not pressed within {start_timeout:g} s"
        elif s.kind == "bot" and seating.bots.searches(s.name):
            why = None
        else:
            continue
        left = s.waiting_since + start_timeout - now
        if left <= 0:
            seating.vacate(s.index, why)
            changed = True
        else:
            nxt = left if nxt is None else min(nxt, left)
    if match_over and not seating.people():
        changed = seating.free_searching() or changed  # nobody will start another match with them
    return nxt, changed


class Sweeper:
    """Calls ``expire`` every ``every`` seconds in a task of its own, until :meth:`stop`."""

    def __init__(self, every: float, expire: Callable[[], Awaitable[object]]) -> None:
        self.every = every
        self._expire = expire
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="room-sweeper")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            await self._expire()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
