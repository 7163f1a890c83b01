"""Running a tournament's chunks on a Ray cluster (``--executor ray``; the ``ray`` extra:
``pip install '.[ray]'`` in a clone, ``pip install 'xuezhan[ray]'`` from PyPI).

The unit of work is the local executor's: a chunk of hand indices (a wall-seed range,
:func:`xuezhan.tournament.scheduling.chunks`), played by :func:`.play.play_chunk` from
each hand's own seed. So a chunk's rows are the same on any node, and a Ray run gives the
local run's table row for row. Each chunk is a Ray task returning an Arrow table; this process
hands each finished chunk to the driver at once (which streams it to disk, :mod:`.store`),
exactly like the local executor, so:

- a worker process or node that dies mid-chunk loses only that chunk, which Ray runs again
  (``max_retries``); nothing half-done ever reaches the results;
- a run stopped for good (the cluster went away, Ctrl-C) keeps every finished chunk, and
  ``--resume`` plays only the rest.

Every node needs the same ``xuezhan`` (and any ``module:Class`` strategy) importable: the
tasks name the playing function by module, not by value. A worker process builds a line-up's
strategies once and reuses them for every chunk of that tournament it is given.
"""

from __future__ import annotations

import atexit
import logging
from collections.abc import Callable, Collection
from functools import cache
from typing import Any

import pyarrow as pa

from xuezhan.extras import require
from xuezhan.tournament.config import TournamentConfig
from xuezhan.tournament.engines import runner_for
from xuezhan.tournament.errors import TournamentError
from xuezhan.tournament.play import play_chunk

__all__ = ["MAX_RETRIES", "connect", "execute_ray"]

#: Times Ray runs a chunk again after its worker process died (not after a bot's exception).
MAX_RETRIES = 3

# Per worker process: the line-up of each tournament it played (identity → runner).
_RUNNERS: dict[tuple[str, str], Any] = {}


def _runner(config: TournamentConfig) -> Any:
    key = (config.identity(), config.engine)
    runner = _RUNNERS.get(key)
    if runner is None:
        runner = runner_for(config)
        _RUNNERS[key] = runner
        atexit.register(runner.close)  # external bots' processes end with the worker
    return runner


def _play(config: TournamentConfig, chunk_id: int) -> pa.Table:
    """The task body, run in a Ray worker process."""
    return play_chunk(_runner(config), config, chunk_id)


@cache
def _remote() -> Any:
    import ray

    return ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(_play)


def connect(address: str | None = None) -> None:
    """Join the Ray cluster at ``address`` (``"auto"``: the one this machine belongs to), or
    start a local Ray instance when ``address`` is None; nothing when Ray is already running
    in this process (e.g. a test's ``ray.init``)."""
    require("ray", "--executor ray")
    import ray

    if ray.is_initialized():
        return
    if address is None:
        # A local instance serves this machine only: every Ray service on loopback, no dashboard.
        ray.init(
            _node_ip_address="127.0.0.1",
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=False,
        )
    else:
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)


def execute_ray(
    config: TournamentConfig,
    pending: Collection[int],
    *,
    on_chunk: Callable[[int, pa.Table], None],
    address: str | None = None,
) -> None:
    """Play the ``pending`` chunks as Ray tasks; hand each to ``on_chunk`` as it finishes.

    Same contract as :func:`xuezhan.tournament.executors.execute` (``pending`` is iterated
    lazily). At most twice as many
    chunks as the cluster has CPUs are in flight, so Ctrl-C or a lost cluster leaves little
    queued work and the stored chunks tell exactly which are done.
    """
    import ray
    from ray.exceptions import RayError, RayTaskError

    if not len(pending):
        return
    connect(address)
    remote = _remote()
    config_ref = ray.put(config)
    capacity = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    queue = iter(pending)
    in_flight: dict[Any, int] = {}

    def submit() -> None:
        chunk_id = next(queue, None)
        if chunk_id is not None:
            in_flight[remote.remote(config_ref, chunk_id)] = chunk_id

    for _ in range(capacity):
        submit()
    try:
        while in_flight:
            # A short timeout keeps Ctrl-C responsive while waiting on the cluster.
            done, _ = ray.wait(list(in_flight), num_returns=1, timeout=1.0)
            for ref in done:
                chunk_id = in_flight.pop(ref)
                try:
                    table = ray.get(ref)
                except RayTaskError as exc:
                    # A bot or strategy raised: the same error a local run would give.
                    cause = getattr(exc, "cause", None)
                    raise (cause if isinstance(cause, Exception) else exc) from None
                except RayError as exc:
                    raise TournamentError(
                        f"chunk {chunk_id} failed on the Ray cluster after {MAX_RETRIES} retries "
                        f"({type(exc).__name__}: {exc}); the finished chunks are saved, continue with --resume"
                    ) from None
                on_chunk(chunk_id, table)
                del table
                submit()
    except BaseException:
        for ref in in_flight:
            ray.cancel(ref, force=False)
        raise
