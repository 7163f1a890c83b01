"""The replay page's reviews: :func:`xuezhan.review.review_log` run for a hand of this server,
bounded.

A review plays thousands of hands, so the room runs it in a worker process (never on the event
loop, and not in a thread either: a thread would hold the interpreter's lock against the event
loop, delaying every table's messages), refuses what it cannot afford with a message saying why,
and keeps what it computed:

- at most :attr:`ReviewLimits.max_rollouts` rollouts per decision;
- at most :attr:`ReviewLimits.per_server` reviews at once, and :attr:`ReviewLimits.per_client`
  per client address (a request past either is refused, 429, never queued);
- a review that passes :attr:`ReviewLimits.time_limit` seconds stops between two decisions and
  says so (503);
- results are cached per hand, seat and rollouts (the last :attr:`ReviewLimits.cache` of them;
  the same request twice is the same review, the seed is fixed), and a review being computed is
  joined by an identical request instead of being started twice;
- a review holds its slot until its worker is done, even when the client that asked hangs up.

The worker processes (as many as :attr:`ReviewLimits.per_server`, started on the first review,
``spawn``-ed so that nothing of the server's state is copied) end with the app.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from xuezhan.documents import DocumentError, parse_log
from xuezhan.review import Review, ReviewError, ReviewTimeout, review_log

__all__ = ["SEED", "ReviewBusy", "ReviewLimits", "ReviewRefused", "ReviewUnfinished", "Reviews", "run_review"]

#: The room's review seed: the same hand, seat and rollouts always give the same review.
SEED = 0


class ReviewRefused(ValueError):
    """A review request that is not valid (a seat, the rollouts, a log that cannot be reviewed)."""


class ReviewBusy(RuntimeError):
    """Too many reviews running (on the server, or for this client): try again later."""


class ReviewUnfinished(RuntimeError):
    """The review did not finish: it passed its time limit, or its worker process died."""


@dataclass(frozen=True)
class ReviewLimits:
    """The bounds of the room's reviews (see the module docstring)."""

    #: Rollouts per decision when the request names none.
    rollouts: int = 32
    #: The most rollouts per decision a request may ask for.
    max_rollouts: int = 64
    #: Reviews running at once on the server.
    per_server: int = 2
    #: Reviews running at once for one client address.
    per_client: int = 1
    #: Seconds one review may take.
    time_limit: float = 60.0
    #: Finished reviews kept.
    cache: int = 128
    #: Best alternatives kept per decision.
    top: int = 3


#: What runs one review: (log lines, name, seat, rollouts, top, deadline) -> Review.
Runner = Callable[[list[str], str, int, int, int, float], Review]


def run_review(lines: list[str], name: str, seat: int, rollouts: int, top: int, deadline: float) -> Review:
    """Review ``seat`` of the log ``lines`` (read by the one log reader), stopping at ``deadline``."""
    try:
        log = parse_log("\n".join(lines), source=name)
    except DocumentError as exc:
        raise ReviewRefused(str(exc)) from None
    try:
        return review_log(log, seat, rollouts=rollouts, seed=SEED, top=top, deadline=deadline)
    except ReviewError as exc:
        raise ReviewRefused(str(exc)) from None


class Reviews:
    """The room's reviews: limits, the running ones, the cache. One per app."""

    def __init__(self, limits: ReviewLimits | None = None, runner: Runner | None = None) -> None:
        """``runner``, if given, runs each review in a thread instead of :func:`run_review` in a
        worker process (tests hold reviews with it)."""
        self.limits = limits or ReviewLimits()
        self._runner = runner
        self._pool: ProcessPoolExecutor | None = None
        self._cache: OrderedDict[tuple[str, int, int], Review] = OrderedDict()
        self._running: dict[tuple[str, int, int], asyncio.Task[Review]] = {}
        self._per_client: dict[str, int] = {}

    def check(self, seat_text: str | None, rollouts_text: str | None) -> tuple[int, int]:
        """The request's seat and rollouts, or :class:`ReviewRefused` saying what is wrong."""
        lim = self.limits
        if seat_text is None or seat_text not in ("0", "1", "2", "3"):
            raise ReviewRefused(f"seat: expected 0, 1, 2 or 3, got {(seat_text or '')[:20]!r}")
        rollouts = lim.rollouts
        if rollouts_text is not None:
            if not rollouts_text.isdigit() or len(rollouts_text) > 6 or not 2 <= int(rollouts_text) <= lim.max_rollouts:
                raise ReviewRefused(
                    f"rollouts: expected a whole number from 2 to {lim.max_rollouts} (this server's limit), "
                    f"got {rollouts_text[:20]!r}"
                )
            rollouts = int(rollouts_text)
        return int(seat_text), rollouts

    def cached(self, key: str, seat: int, rollouts: int) -> Review | None:
        found = self._cache.get((key, seat, rollouts))
        if found is not None:
            self._cache.move_to_end((key, seat, rollouts))
        return found

    async def review(
        self,
        key: str,
        seat: int,
        rollouts: int,
        client: str,
        lines: Callable[[], Awaitable[tuple[list[str], str]]],
    ) -> tuple[Review, bool]:
        """The review of ``seat`` of the hand ``key`` (its log from ``lines()``: the lines and a
        name) and whether it came from the cache; :class:`ReviewBusy` past a limit,
        :class:`ReviewUnfinished` past the time limit (or a dead worker), :class:`ReviewRefused`
        for a log that cannot be reviewed."""
        k = (key, seat, rollouts)
        hit = self.cached(*k)
        if hit is not None:
            return hit, True
        running = self._running.get(k)
        if running is not None:  # the same review is under way: wait for it, start nothing
            return await asyncio.shield(running), False
        lim = self.limits
        mine = self._per_client.get(client, 0)
        if mine >= lim.per_client:
            raise ReviewBusy(
                f"you already have {mine} review{'s' if mine > 1 else ''} running (at most {lim.per_client} "
                "per client): wait for it to finish"
            )
        if len(self._running) >= lim.per_server:
            n = len(self._running)
            raise ReviewBusy(
                f"the server is already running {n} review{'s' if n > 1 else ''}, its limit: try again in a minute"
            )
        self._per_client[client] = mine + 1
        # The work is a task of its own, holding its slot until its worker is done: a client that
        # goes away (its request cancelled) cannot leave a review running outside the limits.
        task = asyncio.get_running_loop().create_task(self._work(k, client, lines))
        task.add_done_callback(_retrieve)
        self._running[k] = task
        return await asyncio.shield(task), False

    async def _work(
        self, k: tuple[str, int, int], client: str, lines: Callable[[], Awaitable[tuple[list[str], str]]]
    ) -> Review:
        _key, seat, rollouts = k
        lim = self.limits
        try:
            text, name = await lines()
            deadline = time.monotonic() + lim.time_limit
            try:
                result = await self._execute(text, name, seat, rollouts, lim.top, deadline)
            except ReviewTimeout as exc:
                raise ReviewUnfinished(
                    f"the review of seat {seat} stopped at this server's time limit ({lim.time_limit:g} s) after "
                    f"{exc.done} of {exc.total} decisions; try fewer rollouts"
                ) from None
            self._cache[k] = result
            while len(self._cache) > lim.cache:
                self._cache.popitem(last=False)
            return result
        finally:
            del self._running[k]
            left = self._per_client[client] - 1
            if left:
                self._per_client[client] = left
            else:
                del self._per_client[client]

    async def _execute(
        self, lines: list[str], name: str, seat: int, rollouts: int, top: int, deadline: float
    ) -> Review:
        if self._runner is not None:
            return await asyncio.to_thread(self._runner, lines, name, seat, rollouts, top, deadline)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.limits.per_server, mp_context=multiprocessing.get_context("spawn"))
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool, run_review, lines, name, seat, rollouts, top, deadline)
        except BrokenProcessPool:
            self.close()  # the next review starts new workers
            raise ReviewUnfinished("the review's worker process died (killed, or out of memory): try again") from None

    def close(self) -> None:
        """End the worker processes (a review still running stops at its deadline)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _retrieve(task: asyncio.Task[Review]) -> None:
    """Mark a finished review's failure as seen (its requester may have gone: no "never
    retrieved" warning)."""
    if not task.cancelled():
        task.exception()
