"""A run's results read back, verified: what :func:`~.results.load_results` and ``xuezhan
report`` read from an output folder.

- **A finished run** (``OUT/results.parquet``): the file must be a regular file whose footer
  names its run and, per chunk, the rows and the checksum (:func:`.store.write_final`). The run
  must be the one ``manifest.json`` names, the chunks and their rows those of the manifest's
  configuration (every hand, four seats each), the checksums the ones the run stored with its
  chunks in ``parts/`` (while they are there), and every chunk's rows must match its checksum
  (:func:`.store.verify_final`). A bit flipped in the file, a table rewritten by another program,
  another run's table, a hand dropped: each is refused naming the file.
- **An unfinished run**: every stored chunk through :func:`.store.verified_chunks`, the reader
  ``--resume`` trusts (checksums, the run, the hands of each chunk, no chunk twice).

The files are checked by type before anything is opened (a FIFO, socket or device where a file
belongs, a file where a folder belongs, and the reverse), so nothing hangs. Every refusal is a
:class:`ResultsRefused` (a ``ValueError``) naming the file and what to do; the CLI exits 2.

    >>> import pathlib, tempfile, pyarrow.parquet as pq
    >>> from xuezhan.tournament.driver import play
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> final = play({"strategies": ["random"] * 4, "hands": 8, "workers": 1}, output=out, progress=False)
    >>> len(read_folder(out))
    32
    >>> pq.write_table(pq.read_table(final), final)  # the same rows, rewritten by another program
    >>> read_folder(out)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xuezhan.tournament.readback.ResultsRefused: .../results.parquet: the table does not carry the run's checksums ...
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from xuezhan.tournament.config import SEATS, ConfigError, TournamentConfig, config_from_dict
from xuezhan.tournament.errors import RunRefused
from xuezhan.tournament.folder import FINAL, MANIFEST, PARTS, STUDY_MANIFEST, Manifest, read_manifest

__all__ = ["ResultsRefused", "read_file", "read_folder", "run_of", "verify_finished"]


class ResultsRefused(ValueError):
    """Results that cannot be shown as the run's: the message names the file and what to do."""


def run_of(out: Path) -> tuple[Manifest, TournamentConfig]:
    """The run an output folder holds: its manifest and the configuration it records (whose
    identity must be the manifest's). :class:`ResultsRefused` when the manifest is missing,
    damaged, a study's, or inconsistent."""
    path = out / MANIFEST
    if not os.path.lexists(path):
        if os.path.lexists(out / STUDY_MANIFEST):
            raise ResultsRefused(
                f"{out}: a study's output folder: read it with xuezhan.study.load_study_results (xuezhan report "
                f"reports it as a study); each variant's folder, {out}/variants/<name>, is a tournament's"
            )
        raise ResultsRefused(
            f"{path}: missing, so the stored results cannot be tied to their run and checked; restore it, "
            "or play the run again"
        )
    try:
        manifest = read_manifest(path)
    except RunRefused as exc:
        raise ResultsRefused(str(exc)) from None
    if manifest.kind != "tournament":
        raise ResultsRefused(f"{path}: the manifest of a {manifest.kind}, not of a tournament")
    try:
        config = config_from_dict(manifest.config, source=str(path))
    except (ConfigError, ValueError) as exc:
        raise ResultsRefused(f"{path}: a damaged manifest (its configuration: {exc})") from None
    if config.identity() != manifest.identity or config.n_games != manifest.n_games:
        raise ResultsRefused(f"{path}: a damaged manifest: its configuration is not the run it names")
    return manifest, config


def verify_finished(out: Path, manifest: Manifest, config: TournamentConfig) -> None:
    """Check ``out/results.parquet`` against the run (see the module's docstring)."""
    from xuezhan.tournament.scheduling import chunks
    from xuezhan.tournament.store import PartError, final_footer, parts_folder, stored_chunks, verify_final

    path = out / FINAL
    fix = "rewrite it from the run's stored chunks with --resume, or play the run again"
    try:
        footer = final_footer(path)
        if footer.run != manifest.identity:
            raise ResultsRefused(
                f"{path}: the results table of another run ({footer.run}; this folder's run is {manifest.identity}); "
                f"{fix}"
            )
        all_chunks = chunks(config)
        want_rows = tuple(SEATS * len(c) for c in all_chunks)
        if footer.chunks != tuple(range(len(all_chunks))) or footer.rows != want_rows:
            hands = sum(footer.rows) // SEATS
            raise ResultsRefused(
                f"{path}: holds {hands} hand(s) in {len(footer.chunks)} chunk(s); the run played {config.n_games} "
                f"in {len(all_chunks)}; {fix}"
            )
        if parts_folder(out) is not None:  # the checksums the run stored with its chunks
            for chunk, (seg, rg) in stored_chunks(out).items():
                if not 0 <= chunk < len(footer.checksums) or seg.checksums[rg] != footer.checksums[chunk]:
                    raise ResultsRefused(
                        f"{path}: chunk {chunk} is not the one the run stored ({seg.path}, row group {rg}); {fix}"
                    )
        verify_final(footer)
    except PartError as exc:
        raise ResultsRefused(str(exc)) from None


def read_folder(out: Path, columns: Sequence[str] | None = None, categories: bool = False) -> pd.DataFrame:
    """The results of the run in the output folder ``out``, verified (see the module's
    docstring): its final table once it finished, else the chunks stored so far
    (``FileNotFoundError``: none yet). A folder that is no run's (no ``manifest.json``, no
    ``parts/``) is read as its ``results.parquet`` file is (:func:`read_file`). ``columns`` and
    ``categories`` as for :func:`~.results.load_results`."""
    from xuezhan.tournament.frames import checked_frame
    from xuezhan.tournament.scheduling import games_of
    from xuezhan.tournament.schema import table_to_frame
    from xuezhan.tournament.store import PartError, parts_folder, read_stored

    path = out / FINAL
    try:
        parts = parts_folder(out)
    except PartError as exc:
        raise ResultsRefused(str(exc)) from None
    if parts is None and not os.path.lexists(out / MANIFEST) and not os.path.lexists(out / STUDY_MANIFEST):
        if not os.path.lexists(path):
            raise FileNotFoundError(f"{out}: no {FINAL} and no {PARTS}/ folder: not a tournament output folder")
        return read_file(path, columns, categories)
    manifest, config = run_of(out)
    if os.path.lexists(path):
        verify_finished(out, manifest, config)
        return read_file(path, columns, categories, verified=True)
    if parts is None:
        raise FileNotFoundError(f"{out}: no {FINAL} and no {PARTS}/ folder: the run has stored no hands yet")
    try:
        table = read_stored(out, manifest.identity, games_of(config), columns)
    except PartError as exc:
        raise ResultsRefused(str(exc)) from None
    return checked_frame(table_to_frame(table), out / PARTS, columns)


def read_file(
    path: Path, columns: Sequence[str] | None = None, categories: bool = False, *, verified: bool = False
) -> pd.DataFrame:
    """A results table file. A run's ``results.parquet`` (its footer names its run) is checked
    against its own checksums first (``verified``: already checked against its run); a table
    without them (a user's own, a CSV) is read as it is."""
    from xuezhan.tournament.frames import checked_frame, read_table
    from xuezhan.tournament.store import RUN_KEY, PartError, final_footer, verify_final

    if not verified and path.suffix == ".parquet" and _names_a_run(path, RUN_KEY):
        try:
            verify_final(final_footer(path))
        except PartError as exc:
            raise ResultsRefused(str(exc)) from None
    return checked_frame(read_table(path, columns, categories), path, columns)


def _names_a_run(path: Path, key: str) -> bool:
    """Whether the Parquet file ``path`` says in its footer which run wrote it."""
    import pyarrow.parquet as pq

    try:
        return key.encode() in (pq.read_metadata(path).metadata or {})
    except Exception:  # noqa: BLE001 - not readable: read_table names the fault
        return False
