"""How a run is carried out, for tournaments and studies alike: :class:`RunOptions`.

These are the flags ``xuezhan tournament`` and ``xuezhan study`` share (the output folder,
``--resume``, ``--overwrite``, progress, CSV, workers, executor and Ray address); none of them
changes the results (the configuration does). :func:`xuezhan.tournament.driver.play`,
:func:`~xuezhan.tournament.driver.run`, :func:`xuezhan.study.play_study` and
:func:`~xuezhan.study.run_study` take one, or the same names as keyword arguments.

    >>> RunOptions(resume=True).resume, RunOptions.of(None, {"workers": 2}).workers
    (True, 2)
    >>> RunOptions(workers=True)
    Traceback (most recent call last):
    ...
    xuezhan.tournament.config.OptionTypeError: workers: expected an integer (0 = all cores), got True
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xuezhan.extras import require
from xuezhan.tournament.config import MAX_WORKERS, ConfigError, OptionTypeError

__all__ = ["EXECUTORS", "RunOptions"]

#: The executors ``--executor`` names: ``local`` (a process pool) and ``ray`` (a Ray cluster).
EXECUTORS = ("local", "ray")


@dataclass(frozen=True)
class RunOptions:
    """The options of one run (none of them changes its results)."""

    #: The output folder (None: the configuration's ``output``; none at all: results only returned).
    output: str | os.PathLike[str] | None = None
    #: Continue an interrupted run in the output folder (the same run required).
    resume: bool = False
    #: Delete the output folder's results first.
    overwrite: bool = False
    #: A progress bar (None: when stderr is a terminal).
    progress: bool | None = None
    #: Also write ``results.csv``.
    csv: bool = False
    #: Worker processes, overriding the configuration (0: all cores; None: the configuration's).
    workers: int | None = None
    #: ``local`` or ``ray``.
    executor: str = "local"
    #: The Ray cluster's address (``ray`` only).
    address: str | None = None

    def __post_init__(self) -> None:
        for name in ("resume", "overwrite", "csv"):
            if not isinstance(getattr(self, name), bool):
                raise OptionTypeError(f"{name}: expected true or false, got {getattr(self, name)!r}")
        if self.progress is not None and not isinstance(self.progress, bool):
            raise OptionTypeError(f"progress: expected true, false or None, got {self.progress!r}")
        if self.workers is not None:
            if not isinstance(self.workers, int) or isinstance(self.workers, bool):
                raise OptionTypeError(f"workers: expected an integer (0 = all cores), got {self.workers!r}")
            if not 0 <= self.workers <= MAX_WORKERS:
                raise ConfigError(f"workers: must be 0 (all cores) to {MAX_WORKERS}, got {self.workers}")
        if self.output is not None and (not isinstance(self.output, (str, os.PathLike)) or not os.fspath(self.output)):
            raise OptionTypeError(f"output: expected a folder path, got {self.output!r}")
        if not isinstance(self.executor, str) or self.executor not in EXECUTORS:
            raise ConfigError(f"executor: expected one of {', '.join(EXECUTORS)}, got {self.executor!r}")
        if self.address is not None:
            if not isinstance(self.address, str):
                raise OptionTypeError(f"address: expected a Ray cluster address (a string), got {self.address!r}")
            if self.executor != "ray":
                raise ConfigError("address: --address is for --executor ray (the address of a Ray cluster)")
        if self.resume and self.overwrite:
            raise ConfigError(
                "resume and overwrite: continue the results (--resume) or delete them (--overwrite), not both"
            )

    @classmethod
    def of(cls, options: RunOptions | None, changes: Mapping[str, Any]) -> RunOptions:
        """``options`` (default: the defaults) with ``changes`` (keyword arguments of a caller);
        an unknown name is a :class:`TypeError` naming it."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise TypeError(f"unknown run option {unknown[0]!r} (options: {', '.join(sorted(known))})")
        if options is not None and not isinstance(options, RunOptions):
            raise TypeError(f"options: expected RunOptions, got {type(options).__name__}")
        base = options or cls()
        return dataclasses.replace(base, **changes) if changes else base

    def output_folder(self, default: str | None) -> Path | None:
        """The output folder: this option's, else ``default`` (the configuration's), else None."""
        out = self.output if self.output is not None else default
        return None if out is None else Path(out)

    def replace(self, **changes: Any) -> RunOptions:
        return RunOptions.of(self, changes)

    def require_executor(self) -> None:
        """The executor's extra is installed (``ray``: Ray), else
        :class:`~xuezhan.extras.MissingExtra` naming it: checked before a run writes anything."""
        if self.executor == "ray":
            require("ray", "--executor ray")
