"""Password hashing, and the standings lookups of sits, in their own small, bounded executor.

A password is stored and checked with scrypt (:func:`~xuezhan.serve.standings.hash_password`),
some 50-100 ms of a core by design. The room runs it in one thread of its own, never in the
threads that bots, reviews and the booking of hands use, so no number of password attempts
can make a hand wait for a thread; the thread runs at a lower CPU priority (Linux: 10 nicer than
the rest of the server), so on a busy machine the hands' threads and the event loop go first.
The database reads and writes of a sit (:mod:`.sitting`) run there too: a flood of sits from
many addresses queues behind one thread, not in front of the bots. At most ``queue`` jobs wait
for it; one more is refused at once (:class:`~xuezhan.serve.limits.TooMany`) rather than
queued, so a flood costs the server one thread and a few waiting tasks.

    >>> import asyncio
    >>> async def demo():
    ...     pw = Passwords(queue=2)
    ...     stored = await pw.hash("open sesame")
    ...     ok = await pw.check("open sesame", stored), await pw.check("wrong", stored)
    ...     pw.close()
    ...     return ok
    >>> asyncio.run(demo())
    (True, False)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from xuezhan.serve.limits import TooMany
from xuezhan.serve.standings import check_password, hash_password

__all__ = ["HASH_THREAD", "Passwords"]

#: The name of the hashing thread (tests and profilers find it by this name).
HASH_THREAD = "password-hash"
#: How much nicer the hashing thread is than the rest of the server (Linux sets it per thread).
NICE = 10

_T = TypeVar("_T")


def _lower_priority() -> None:
    """Run this thread at a lower CPU priority than the rest of the server (``NICE`` more than
    the process's), where the system sets it per thread (Linux)."""
    if hasattr(os, "setpriority") and hasattr(threading, "get_native_id"):
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + NICE))


class Passwords:
    """Hashes and checks passwords (and runs a sit's lookups) in ``workers`` threads of its
    own, at most ``queue`` jobs waiting."""

    def __init__(self, queue: int = 8, workers: int = 1) -> None:
        self.queue = queue
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix=HASH_THREAD, initializer=_lower_priority)
        self._waiting = 0

    async def run(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` in the thread, or :class:`TooMany` at once when ``queue`` jobs wait."""
        if self._waiting >= self.queue:
            raise TooMany("the server is busy checking names and passwords; try again in a few seconds")
        self._waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)
        finally:
            self._waiting -= 1

    async def hash(self, password: str) -> str:
        """The stored form of a new password."""
        return await self.run(hash_password, password)

    async def check(self, password: str, stored: str) -> bool:
        """Whether ``password`` is the one stored as ``stored``."""
        return await self.run(check_password, password, stored)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
