"""One output folder of a run, tournament or study: its lock, its manifest, ``--overwrite`` and
``--resume``.

An output folder holds one run's results::

    OUT/.lock             held (``flock``) by the run writing the folder, for the whole run
    OUT/manifest.json     a tournament's manifest (OUT/study.json: a study's)
    OUT/parts/            a tournament's stored chunks (:mod:`.store`)
    OUT/variants/<slug>/  a study's variants, each a tournament output folder
    OUT/results.parquet   the final table (results.csv beside it on request)

The manifest (:class:`Manifest`) records the identity of the run: its configuration, the rules
each variant plays, and the digest (``identity``) that every stored chunk's checksum includes
(:func:`.store.chunk_digest`). :class:`OutputFolder` is the one place that decides whether a
run may use a folder:

- one run at a time: the lock is taken before anything is read, deleted or written, and held
  until the run ends (the kernel drops it however the process ends, so it is never stale); a
  second run, ``--resume`` or ``--overwrite`` of a folder in use is refused;
- a folder holding results is refused without ``--resume`` (continue) or ``--overwrite``
  (delete them first);
- ``--resume`` refuses a folder whose manifest names another run, or whose manifest is
  missing or damaged (one line naming the file and what to do).

Every refusal is a :class:`~.errors.RunRefused` (exit status 2) raised before anything in the
folder is changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from xuezhan.tournament.errors import RunRefused

__all__ = [
    "CSV",
    "FINAL",
    "LOCK",
    "MANIFEST",
    "PARTS",
    "STUDY_MANIFEST",
    "VARIANTS",
    "Manifest",
    "OutputBusy",
    "OutputFolder",
    "OutputLock",
    "forget_inherited_locks",
    "kind_of",
    "read_manifest",
    "write_manifest",
]

MANIFEST = "manifest.json"
STUDY_MANIFEST = "study.json"
FINAL = "results.parquet"
CSV = "results.csv"
LOCK = ".lock"
PARTS = "parts"
VARIANTS = "variants"
#: What a run owns in its folder: ``--overwrite`` deletes these, and any of them means the
#: folder already holds results.
OWNED = (PARTS, VARIANTS, MANIFEST, STUDY_MANIFEST, FINAL, CSV)
#: The largest manifest read (far above a real one: a study of 64 variants is some 100 KB).
MAX_MANIFEST_BYTES = 4 * 1024 * 1024
#: Nesting a manifest may have (its configuration is a few levels deep).
MAX_MANIFEST_DEPTH = 16


class Manifest(BaseModel):
    """What an output folder records about its run (``manifest.json`` or ``study.json``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    #: The manifest's format (refused when it is not this one).
    format: Literal[1] = 1
    kind: Literal["tournament", "study"]
    #: The run's identity (:meth:`TournamentConfig.identity`, :meth:`StudyConfig.identity`).
    identity: str
    name: str
    #: The configuration (the TOML file's fields, validated).
    config: dict[str, Any]
    #: The rules played: ``{"rules_id": ..., <every R11 field>}``; a study: one per variant name.
    rules: dict[str, Any]
    #: Hands played (per variant for a study).
    n_games: int
    #: A study's variants: name → folder (relative to the study's folder).
    variants: dict[str, str] = {}
    base_variant: str | None = None
    #: When the run first started (UTC, ISO 8601); kept by ``--resume``.
    started: str = ""


#: The most bytes of a CSV table's first line read to find its columns.
_MAX_CSV_HEADER = 64 * 1024


def kind_of(path: str | os.PathLike[str]) -> Literal["tournament", "study"] | None:
    """Whose results ``path`` holds: ``"study"`` for a study's output folder (it has
    ``study.json``), a results table in one, or a tidy table with a ``variant`` column;
    ``"tournament"`` for a tournament's output folder (``manifest.json`` or ``parts/``) or any
    other table; None for a folder that holds neither (or does not exist)."""
    p = Path(path)
    if p.is_dir():
        if (p / STUDY_MANIFEST).is_file():
            return "study"
        if (p / MANIFEST).is_file() or (p / PARTS).is_dir():
            return "tournament"
        return None
    if not p.is_file():
        return None
    if p.name in (FINAL, CSV) and (p.parent / STUDY_MANIFEST).is_file():
        return "study"
    try:
        if p.suffix == ".csv":
            with open(p, encoding="utf-8-sig", errors="replace", newline="") as f:
                columns = f.readline(_MAX_CSV_HEADER).strip().split(",")
        else:
            import pyarrow.parquet as pq

            columns = pq.read_schema(p).names
    except (OSError, ValueError):  # unreadable: the tournament's loader names what is wrong
        return "tournament"
    return "study" if "variant" in columns else "tournament"


def read_manifest(path: str | os.PathLike[str]) -> Manifest:
    """The manifest in the file ``path``; :class:`~.errors.RunRefused` naming the file when it is
    not a regular file, too large, not UTF-8 JSON, nested too deeply or not a manifest."""
    from xuezhan.files import InputFileError, depth, read_text

    p = Path(path)
    fix = "restore it, or start over with --overwrite"
    try:
        data = json.loads(read_text(p, what="manifest", limit=MAX_MANIFEST_BYTES))
    except InputFileError as exc:
        raise RunRefused(f"{exc}; {fix}") from None
    except (ValueError, RecursionError) as exc:  # json.JSONDecodeError is a ValueError
        raise RunRefused(f"{p}: a damaged manifest (not JSON: {' '.join(str(exc).split())[:120]}); {fix}") from None
    if not isinstance(data, dict):
        raise RunRefused(f"{p}: a damaged manifest (a JSON {type(data).__name__}, not an object); {fix}")
    if depth(data) > MAX_MANIFEST_DEPTH:
        raise RunRefused(f"{p}: a damaged manifest (nested more than {MAX_MANIFEST_DEPTH} levels); {fix}")
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        at = ".".join(str(x) for x in err["loc"]) or "(top)"
        raise RunRefused(
            f"{p}: not a manifest this xuezhan reads ({at}: {err['msg']}): damaged, or written by an older "
            f"version; {fix}"
        ) from None


def write_manifest(path: str | os.PathLike[str], manifest: Manifest) -> None:
    """Write ``manifest`` to the file ``path`` atomically (a temporary file, then a rename)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(json.dumps(manifest.model_dump(), indent=2, sort_keys=True, default=str), encoding="utf-8")
    os.replace(tmp, p)


class OutputBusy(RunRefused):
    """Another run holds the output folder's lock."""


_HELD: set[int] = set()  # lock file descriptors held by this process


if sys.platform == "win32":  # no flock: msvcrt locks a byte far past the pid the file records
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 1 << 20, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError from None
        finally:
            os.lseek(fd, 0, os.SEEK_SET)

    def _unlock(fd: int) -> None:
        os.lseek(fd, 1 << 20, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class OutputLock:
    """An exclusive ``flock`` on ``OUT/.lock`` for the duration of a run (a context manager).

    The kernel drops the lock when the process ends, however it ends, so a crashed run never
    leaves a stale lock. The file records the holder's pid for the message of a refused run.
    """

    def __init__(self, out_dir: str | Path) -> None:
        self.path = Path(out_dir) / LOCK
        self.fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:  # a folder, a dangling link, no permission: name the file
            raise RunRefused(
                f"{self.path}: cannot open the output folder's lock file ({exc.strerror or exc}); "
                "remove it or choose another output folder"
            ) from None
        try:
            _lock(fd)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise OutputBusy(
                f"{self.path.parent}: another run (pid {holder}) is writing to this output folder; "
                "wait for it to end or choose another output folder"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        _HELD.add(fd)

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            _HELD.discard(fd)
            _unlock(fd)
            os.close(fd)

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def forget_inherited_locks() -> None:
    """In a forked child: close the inherited lock descriptors (without unlocking the parent's)."""
    for fd in list(_HELD):
        _HELD.discard(fd)
        with contextlib.suppress(OSError):
            os.close(fd)


class OutputFolder:
    """The output folder of one run (a context manager holding its lock).

    ``manifest_name`` is :data:`MANIFEST` for a tournament, :data:`STUDY_MANIFEST` for a study.
    :meth:`open` takes the lock; :meth:`prepare` applies ``--overwrite`` / ``--resume`` and
    writes the run's manifest; :meth:`close` releases the lock.
    """

    def __init__(self, path: str | os.PathLike[str], *, manifest_name: str = MANIFEST) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / manifest_name
        self._lock = OutputLock(self.path)

    def open(self) -> None:
        """Take the folder's lock (:class:`OutputBusy` when another run holds it)."""
        self._lock.acquire()

    def close(self) -> None:
        self._lock.release()

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def holds_results(self) -> bool:
        """Whether anything a run writes is in the folder."""
        return any((self.path / name).exists() for name in OWNED)

    def manifest(self) -> Manifest | None:
        """The folder's manifest (None: none yet); a damaged one is refused naming the file."""
        if not self.manifest_path.exists() and not self.manifest_path.is_symlink():
            return None
        return read_manifest(self.manifest_path)

    def prepare(self, manifest: Manifest, *, resume: bool, overwrite: bool) -> Manifest:
        """Make the folder ready for the run ``manifest`` describes and write its manifest
        (the first start's time kept on ``--resume``). Refuses (:class:`~.errors.RunRefused`,
        nothing changed) a folder holding results without ``resume`` or ``overwrite``, and on
        ``resume`` one whose manifest is missing, damaged or another run's."""
        if self._lock.fd is None:
            raise RuntimeError("OutputFolder.prepare() before open(): the folder's lock is not held")
        what = manifest.kind
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if overwrite:
            self.clear()
        elif self.holds_results():
            if not resume:
                raise RunRefused(
                    f"{self.path}: already holds {what} results; continue them with --resume or start over "
                    "with --overwrite"
                )
            old = self.manifest()
            if old is None:
                raise RunRefused(
                    f"{self.path}: stored results without {self.manifest_path.name}: cannot tell which {what} "
                    "they belong to; start over with --overwrite"
                )
            if old.kind != manifest.kind or old.identity != manifest.identity:
                raise RunRefused(
                    f"{self.manifest_path}: --resume of a different {what} (the folder holds {old.kind} {old.name!r}, "
                    f"identity {old.identity}; now {manifest.name!r}, identity {manifest.identity}): the hands, "
                    "seed, seating, rules, variants or line-up changed; start over with --overwrite or "
                    "choose another output folder"
                )
            started = old.started or started
        written = manifest.model_copy(update={"started": started})
        write_manifest(self.manifest_path, written)
        return written

    def clear(self) -> None:
        """Delete every result a run wrote here (``--overwrite``); the lock must be held."""
        if self._lock.fd is None:
            raise RuntimeError("OutputFolder.clear() before open(): the folder's lock is not held")
        for name in OWNED:
            p = self.path / name
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            elif p.exists() or p.is_symlink():
                p.unlink()
