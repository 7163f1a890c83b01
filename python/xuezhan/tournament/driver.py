"""``xuezhan.tournament.run``: play a tournament (resumable) and return its results table.

Before the first hand every external bot and guarded Python strategy of the line-up passes a
start-up check (:func:`check_bots`); one run at a time holds the output folder's lock; finished
chunks stream to a few Parquet segments (:mod:`.store`) and are dropped from memory; on
``--resume`` a folder left by a killed run is repaired and every stored chunk is verified
against the hands its id names before it is trusted.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from xuezhan.tournament.config import ConfigError, TournamentConfig, load_config
from xuezhan.tournament.executors import WorkerLost, executor_for
from xuezhan.tournament.results import (
    CSV,
    FINAL,
    MANIFEST,
    SCHEMA,
    OutputBusy,
    OutputLock,
    load_results,
    read_manifest,
    table_to_frame,
    write_manifest,
)
from xuezhan.tournament.scheduling import Game, chunks, game
from xuezhan.tournament.store import (
    PARTS,
    PartError,
    Segment,
    SegmentWriter,
    next_segment,
    recover,
    segments,
    stored_chunks,
    verify_segment,
    write_final,
)

__all__ = ["TournamentError", "play", "run"]


class TournamentError(RuntimeError):
    """A tournament that cannot start or continue (e.g. ``--resume`` of a different tournament)."""


def _games_of(config: TournamentConfig, all_chunks: list[range]) -> Callable[[int], list[Game]]:
    def games_of(chunk_id: int) -> list[Game]:
        if not 0 <= chunk_id < len(all_chunks):
            raise IndexError(chunk_id)
        return [game(config, i) for i in all_chunks[chunk_id]]

    return games_of


def _prepare_output(
    config: TournamentConfig, out: Path, resume: bool, overwrite: bool
) -> tuple[dict[str, Any], set[int]]:
    """Check, repair (``--resume`` after a kill) and verify the output folder; returns the
    manifest to keep up to date and the chunks already stored."""
    manifest = read_manifest(out)
    has_parts = next_segment(out) > 0
    if overwrite:
        shutil.rmtree(out / PARTS, ignore_errors=True)
        for name in (FINAL, MANIFEST, CSV):
            (out / name).unlink(missing_ok=True)
        manifest, has_parts = None, False
    if resume:
        if manifest is None and not has_parts:
            # nothing to resume: a fresh start
            pass
        elif manifest is None:
            raise TournamentError(
                f"{out}: stored results without {MANIFEST}: cannot tell which tournament they belong to"
            )
        elif manifest.get("identity") != config.identity():
            raise TournamentError(
                f"{out}: --resume of a different tournament (identity {manifest.get('identity')} on disk, "
                f"{config.identity()} now): the hands, seed, seating, rules or line-up changed"
            )
    elif manifest is not None or has_parts:
        raise TournamentError(
            f"{out}: already holds tournament results; continue them with --resume or start over with --overwrite"
        )
    all_chunks = chunks(config)
    done: set[int] = set()
    stored: list[Segment] = []
    if resume and has_parts:
        try:
            for note in recover(out):
                print(f"{out}/{PARTS}/{note}", file=sys.stderr)
            stored = segments(out)
            games_of = _games_of(config, all_chunks)
            for seg in stored:
                verify_segment(seg, games_of)
            done = set(stored_chunks(out))
        except PartError as exc:
            raise TournamentError(f"{exc}; delete it and --resume plays its chunks again") from None
    new = {
        "identity": config.identity(),
        "config": config.to_dict(),
        "n_games": config.n_games,
        "chunks": len(all_chunks),
        "started": (manifest or {}).get("started", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())),
        # which chunk ids each segment holds (the segments' footers say the same)
        "segments": {seg.path.name: list(seg.chunks) for seg in stored},
    }
    write_manifest(out, new)
    return new, done


def check_programs(config: TournamentConfig) -> None:
    """Fail fast, naming the entry, when a strategy cannot be built: an external bot's program
    cannot be found, or a built-in / ``module:Class`` entry is unknown, not a strategy, or given
    options it does not take."""
    import os
    import shutil

    from xuezhan.tournament.play import check_strategy

    for i, spec in enumerate(config.strategies):
        if spec.cmd is None:
            try:
                check_strategy(spec)
            except ValueError as exc:
                raise ConfigError(f"strategies[{i}] ({spec.name!r}): {exc}") from None
            continue
        argv = spec.argv()
        prog = argv[0] if argv else ""
        base = spec.workdir() or "."
        found = os.path.exists(os.path.join(base, prog)) if os.sep in prog else shutil.which(prog) is not None
        if not found:
            where = f" (relative paths are looked up from {spec.base_dir})" if spec.base_dir else ""
            raise ConfigError(
                f"strategies[{i}] ({spec.name!r}): cannot find the program {prog!r} of cmd = {spec.cmd!r}{where}"
            )


def check_bots(config: TournamentConfig) -> None:
    """The start-up check: every external bot and guarded Python strategy must start and answer.

    Each distinct entry is started once and sent one real request
    (:meth:`~xuezhan.strategies.external.ExternalStrategy.check`). A program that cannot run
    (missing, not executable, a folder, a missing ``cwd``), exits or answers garbage is one
    :class:`ConfigError` naming the entry and the command, with the end of its stderr.
    Unknown strategy names and modules that do not import raise :class:`ValueError`.
    """
    from xuezhan.strategies.external import BotStartError, ExternalStrategy
    from xuezhan.strategies.guarded import GuardedFactory
    from xuezhan.tournament.play import _takes_seed, strategy_factory

    rules = config.build_rules()
    checked: set[str] = set()
    for i, spec in enumerate(config.strategies):
        factory = strategy_factory(spec)
        guarded = isinstance(factory, GuardedFactory)
        if spec.cmd is None and not guarded:
            continue
        key = json.dumps(
            [spec.cmd, spec.cwd, spec.strategy, dict(spec.options)],
            sort_keys=True,
            default=str,
        )
        if key in checked:
            continue
        checked.add(key)
        options = dict(spec.options)
        if guarded and _takes_seed(factory):
            options.setdefault("seed", 0)
        bot = factory(**options)
        assert isinstance(bot, ExternalStrategy)
        try:
            bot.check(rules)
        except BotStartError as exc:
            raise ConfigError(f"strategies[{i}] ({spec.name!r}): {exc}") from None
        finally:
            bot.close()


def _resolve(config: TournamentConfig | str | Path | dict[str, Any], workers: int | None) -> TournamentConfig:
    if isinstance(config, (str, Path)):
        config = load_config(config)
    elif isinstance(config, dict):
        from xuezhan.tournament.config import config_from_dict

        config = config_from_dict(config)
    if workers is not None:
        config = config.replace(workers=workers)
    check_programs(config)
    check_bots(config)
    return config


def run(
    config: TournamentConfig | str | Path | dict[str, Any],
    *,
    output: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | None = None,
    csv: bool = False,
    workers: int | None = None,
    executor: str = "local",
    address: str | None = None,
    on_hands: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """Play a tournament and return its per-(hand, seat) results table, sorted by (hand, seat).

    ``config`` is a :class:`TournamentConfig`, a TOML path, or a dict in the TOML layout.
    ``output`` (default ``config.output``) is the output folder: finished chunks are stored in
    ``parts/`` as they finish (:mod:`.store`) and the final table is written to
    ``results.parquet`` (``results.csv`` with ``csv``), then read back. Without any output
    folder the results are only returned. ``resume`` continues an interrupted run in the same
    folder (same tournament required). ``workers`` overrides the configuration (0 = all
    cores). ``progress`` shows a tqdm bar (default: when stderr is a tty). ``executor`` is
    ``local`` (a process pool) or ``ray`` (a Ray cluster at ``address``, see
    :mod:`.ray_executor`); both give the same table. ``on_hands(n)`` is called with each
    finished chunk's number of hands (a caller's own progress bar). For runs too large to
    hold as one DataFrame, :func:`play` writes the table without loading it.
    """
    config = _resolve(config, workers)
    out = Path(output) if output is not None else (Path(config.output) if config.output else None)
    if out is None:
        table = _run(config, None, resume, overwrite, progress, csv, executor, address, on_hands)
        assert table is not None
        return table_to_frame(table)
    play(
        config,
        output=out,
        resume=resume,
        overwrite=overwrite,
        progress=progress,
        csv=csv,
        executor=executor,
        address=address,
        on_hands=on_hands,
    )
    return load_results(out)


def play(
    config: TournamentConfig | str | Path | dict[str, Any],
    *,
    output: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | None = None,
    csv: bool = False,
    workers: int | None = None,
    executor: str = "local",
    address: str | None = None,
    on_hands: Callable[[int], None] | None = None,
) -> Path:
    """Play a tournament into its output folder and return the path of ``results.parquet``.

    The same as :func:`run` with an output folder (required here), but the table is never
    loaded: the main process holds at most a few chunks at a time, whatever the number of
    hands. Read the table (or only some columns) with :func:`~.results.load_results`.
    """
    config = _resolve(config, workers)
    out = Path(output) if output is not None else (Path(config.output) if config.output else None)
    if out is None:
        raise TournamentError("play() writes its results to an output folder: give output= (or output in the file)")
    lock = OutputLock(out)
    try:
        lock.acquire()
    except OutputBusy as exc:
        raise TournamentError(str(exc)) from None
    try:
        _run(config, out, resume, overwrite, progress, csv, executor, address, on_hands)
    finally:
        lock.release()
    return out / FINAL


def _run(
    config: TournamentConfig,
    out: Path | None,
    resume: bool,
    overwrite: bool,
    progress: bool | None,
    csv: bool,
    executor: str,
    address: str | None,
    on_hands: Callable[[int], None] | None,
) -> pa.Table | None:
    execute = executor_for(executor, address)
    all_chunks = chunks(config)
    done: set[int] = set()
    manifest: dict[str, Any] = {}
    if out is not None:
        manifest, done = _prepare_output(config, out, resume, overwrite)
    pending = [i for i in range(len(all_chunks)) if i not in done]
    done_hands = sum(len(all_chunks[i]) for i in done)

    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(
            total=config.n_games,
            initial=done_hands,
            unit="hand",
            desc=config.name,
            dynamic_ncols=True,
            smoothing=0.1,
        )

    collected: dict[int, pa.Table] = {}
    writer: SegmentWriter | None = None
    if out is not None:

        def record(seg: Segment) -> None:
            manifest["segments"][seg.path.name] = list(seg.chunks)
            write_manifest(out, manifest)

        writer = SegmentWriter(out, first=next_segment(out), on_close=record)

    def on_chunk(chunk_id: int, table: pa.Table) -> None:
        # stored (or, without an output folder, collected) at once; nothing else keeps it
        if writer is not None:
            writer.add(chunk_id, table)
        else:
            collected[chunk_id] = table
        if bar is not None:
            bar.update(len(all_chunks[chunk_id]))
        if on_hands is not None:
            on_hands(len(all_chunks[chunk_id]))

    try:
        execute(config, pending, on_chunk=on_chunk)
    except WorkerLost as exc:
        spans = ", ".join(f"{all_chunks[c][0]}-{all_chunks[c][-1]}" for c in exc.chunks)
        saved = f"the finished chunks are saved in {out}; continue with --resume" if out else "nothing was saved"
        raise TournamentError(
            f"a worker process died (killed, or out of memory) while chunk(s) {', '.join(map(str, exc.chunks))} "
            f"(hands {spans}) were unfinished; {saved}"
        ) from None
    finally:
        if writer is not None:
            writer.close()  # however the run ends, every finished chunk is in a closed segment
        if bar is not None:
            bar.close()

    if out is not None:
        stored = stored_chunks(out)
        missing = [c for c in range(len(all_chunks)) if c not in stored]
        if missing:
            have = sum(len(all_chunks[c]) for c in stored if 0 <= c < len(all_chunks))
            raise TournamentError(
                f"{out}: expected {config.n_games} hands in {PARTS}/, found {have} "
                f"(chunk(s) {', '.join(map(str, missing[:10]))}{'…' if len(missing) > 10 else ''} missing)"
            )
        write_final(out, out / FINAL, range(len(all_chunks)), csv=out / CSV if csv else None)
        return None
    if not collected:
        return SCHEMA.empty_table()
    table = pa.concat_tables([collected[c] for c in sorted(collected)])
    return table.sort_by([("hand", "ascending"), ("seat", "ascending")])
