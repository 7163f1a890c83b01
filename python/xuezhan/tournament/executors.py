"""Running a tournament's hands: in this process or on a local process pool.

The unit of work is a chunk of hand indices (:func:`xuezhan.tournament.scheduling.chunks`).
A worker builds the line-up's strategies once (external bots: one subprocess per entry and
worker) and plays each hand of a chunk from its own seed, so the rows of a hand are the same
whichever worker plays it, in whatever order. A chunk travels back as an Arrow table (built
column by column); the main process hands each finished chunk to the caller's ``on_chunk``
at once (the driver streams it to disk, :mod:`.store`) and keeps nothing, so its memory does
not grow with the number of hands, and an interrupted run keeps every finished chunk.

Pool workers never outlive the main process: on Linux the kernel sends them ``SIGTERM`` when
it dies (``PR_SET_PDEATHSIG``), elsewhere a watchdog thread notices their new parent; either
way a worker kills its bots' process groups and exits. A worker that dies (killed, out of
memory) ends the run with :class:`WorkerLost`, which names the unfinished chunks; the finished
ones are on disk and ``--resume`` continues.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from types import FrameType
from typing import Any

import pyarrow as pa

from xuezhan.strategies.botprocess import kill_all
from xuezhan.tournament.config import TournamentConfig
from xuezhan.tournament.engines import resolve_engine, runner_for
from xuezhan.tournament.folder import forget_inherited_locks
from xuezhan.tournament.options import EXECUTORS
from xuezhan.tournament.play import play_chunk

__all__ = ["WorkerLost", "execute", "play_chunk"]

_RUNNER: Any = None  # the worker's chunk player (HandRunner or NativeRunner)
_PR_SET_PDEATHSIG = 1
#: How often the watchdog looks for the main process (seconds).
_WATCH = 0.2


class WorkerLost(RuntimeError):
    """A pool worker died; ``chunks`` were not finished (finished chunks are written)."""

    def __init__(self, chunks: list[int]) -> None:
        self.chunks = sorted(chunks)
        super().__init__(f"a worker process died while chunks {', '.join(map(str, self.chunks))} were unfinished")


def _die(signum: int = signal.SIGTERM, frame: FrameType | None = None) -> None:
    """The main process is gone (or the pool is being torn down): end the bots, then exit."""
    kill_all()
    os._exit(128 + signum)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH)
    _die()


def _follow_parent(parent: int) -> None:
    """Make this worker end with the main process (``parent``)."""
    signal.signal(signal.SIGTERM, _die)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (
            OSError,
            AttributeError,
        ):  # pragma: no cover - no prctl: the watchdog does it
            pass
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="xuezhan-parent-watch").start()
    if os.getppid() != parent:  # it died before the signal was armed
        _die()


def _init_worker(config: TournamentConfig, parent: int) -> None:
    # Ctrl-C is the main process's business: it stops handing out work and the workers
    # finish the chunk in hand and the main process stores it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    forget_inherited_locks()
    _follow_parent(parent)
    global _RUNNER
    _RUNNER = runner_for(config)
    # Pool workers leave through multiprocessing's exit path, which skips atexit: stop the
    # external bots' processes there.
    from multiprocessing.util import Finalize

    Finalize(None, _RUNNER.close, exitpriority=10)


#: What the executors hand back per finished chunk: ``on_chunk(chunk_id, table)``.
OnChunk = Callable[[int, pa.Table], None]


def _worker_chunk(config: TournamentConfig, chunk_id: int) -> tuple[int, pa.Table]:
    assert _RUNNER is not None
    return chunk_id, play_chunk(_RUNNER, config, chunk_id)


def execute(config: TournamentConfig, pending: Collection[int], *, on_chunk: OnChunk) -> None:
    """Play the ``pending`` chunks; hand each to ``on_chunk(chunk_id, table)`` as it finishes.

    ``pending`` is iterated lazily (e.g. :class:`~.scheduling.Pending`): the next chunk id is
    taken when a worker is free, so nothing here grows with the number of chunks.

    ``on_chunk`` runs in the main process (it stores the chunk and shows progress); nothing is
    kept here. On ``KeyboardInterrupt`` the queued chunks are cancelled, the chunks in progress
    finish and are handed over, and the interrupt is re-raised. A pool worker that dies raises
    :class:`WorkerLost` after every chunk finished before it was handed over.
    """
    finished = on_chunk

    workers = min(config.effective_workers, max(1, len(pending)))
    if resolve_engine(config) == "native":
        _execute_threads(config, pending, finished, workers)
        return
    if workers <= 1:
        runner = runner_for(config)
        try:
            for chunk_id in pending:
                finished(chunk_id, play_chunk(runner, config, chunk_id))
        finally:
            runner.close()
        return

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(config, os.getpid()))
    futures: dict[Future, int] = {}
    queue = iter(pending)
    try:
        # Keep a bounded number of chunks in flight so Ctrl-C has little queued work to cancel.
        for chunk_id in queue:
            futures[pool.submit(_worker_chunk, config, chunk_id)] = chunk_id
            if len(futures) >= 2 * workers:
                break
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            lost: list[int] = []
            for fut in done:
                chunk_id = futures.pop(fut)
                try:
                    chunk_id, table = fut.result()
                except BrokenProcessPool:
                    lost.append(chunk_id)
                    continue
                finished(chunk_id, table)
                del table
            if lost:  # the pool is broken: every chunk in flight is lost with it
                raise WorkerLost(lost + list(futures.values()))
            for _ in done:
                nxt = next(queue, None)
                if nxt is not None:
                    futures[pool.submit(_worker_chunk, config, nxt)] = nxt
    except KeyboardInterrupt:
        for fut in futures:
            fut.cancel()
        # the chunks already running finish; keep what they produce
        for fut in futures:
            if not fut.cancelled():
                try:
                    chunk_id, table = fut.result()
                except BaseException:  # noqa: BLE001, S112 - a worker that died loses only its chunk
                    continue
                finished(chunk_id, table)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _execute_threads(config: TournamentConfig, pending: Collection[int], finished: OnChunk, workers: int) -> None:
    """:func:`execute` for the native engine: threads of this process instead of a process pool
    (the engine releases the GIL while it plays; nothing to start, copy or kill). The same
    lazy, bounded queue and the same Ctrl-C behaviour: queued chunks are cancelled, chunks in
    progress finish and are handed over, then the interrupt is re-raised."""
    from concurrent.futures import ThreadPoolExecutor

    runner = runner_for(config)
    if workers <= 1:
        for chunk_id in pending:
            finished(chunk_id, runner.play_chunk(chunk_id))
        return
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="xuezhan-native")
    futures: dict[Future, int] = {}
    queue = iter(pending)
    try:
        for chunk_id in queue:
            futures[pool.submit(runner.play_chunk, chunk_id)] = chunk_id
            if len(futures) >= 2 * workers:
                break
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for fut in done:
                chunk_id = futures.pop(fut)
                finished(chunk_id, fut.result())
            for _ in done:
                nxt = next(queue, None)
                if nxt is not None:
                    futures[pool.submit(runner.play_chunk, nxt)] = nxt
    except KeyboardInterrupt:
        for fut in futures:
            fut.cancel()
        for fut, chunk_id in futures.items():
            if not fut.cancelled():
                finished(chunk_id, fut.result())
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def cpu_count() -> int:
    return os.cpu_count() or 1


def executor_for(name: str, address: str | None = None) -> Callable[..., None]:
    """The ``execute`` function of the executor ``name`` (same signature as :func:`execute`);
    ``address`` is the Ray cluster's (``ray`` only)."""
    if name == "local":
        if address is not None:
            raise ValueError("--address is for --executor ray (the address of a Ray cluster)")
        return execute
    if name == "ray":
        from functools import partial

        from xuezhan.tournament.ray_executor import execute_ray

        return partial(execute_ray, address=address)
    raise ValueError(f"executor {name!r}: expected one of {', '.join(EXECUTORS)}")
