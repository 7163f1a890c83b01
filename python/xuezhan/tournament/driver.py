"""``xuezhan.tournament.run``: play a tournament (resumable) and return its results table.

Before the first hand every external bot and guarded Python strategy of the line-up passes a
start-up check (:func:`check_bots`); the output folder (:class:`~.folder.OutputFolder`) is
locked for the whole run and its manifest names the run; finished chunks stream to a few
checksummed Parquet segments (:mod:`.store`) and are dropped from memory; on ``--resume`` a
folder left by a killed run is repaired and every stored chunk is verified (its checksum, the
run that wrote it, the hands its id names) before it is trusted. Chunks are handed to the
workers lazily (:class:`~.scheduling.Pending`), so the main process's memory does not depend
on the number of hands or chunks.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import pyarrow as pa

from xuezhan.tournament.config import ConfigError, TournamentConfig, config_from_dict, load_config
from xuezhan.tournament.errors import RunRefused, TournamentError
from xuezhan.tournament.executors import WorkerLost, executor_for
from xuezhan.tournament.folder import CSV, FINAL, MANIFEST, PARTS, Manifest, OutputFolder
from xuezhan.tournament.options import RunOptions
from xuezhan.tournament.results import SCHEMA, load_results, table_to_frame
from xuezhan.tournament.scheduling import Chunks, Pending, chunks, games_of
from xuezhan.tournament.store import (
    PartError,
    SegmentWriter,
    has_results,
    next_segment,
    recover,
    stored_chunks,
    verified_chunks,
    write_final,
)

__all__ = ["RunRefused", "TournamentError", "manifest_of", "play", "resolve", "run"]


def manifest_of(config: TournamentConfig) -> Manifest:
    """The manifest of a tournament's output folder: its identity, configuration and rules."""
    rules = config.build_rules()
    return Manifest(
        kind="tournament",
        identity=config.identity(),
        name=config.name,
        config=config.to_dict(),
        rules={"rules_id": rules.rules_id, **rules.to_dict()},
        n_games=config.n_games,
    )


def _stored(config: TournamentConfig, out: Path) -> set[int]:
    """``--resume``: repair the folder after a kill and verify every stored chunk; the ids of
    the chunks stored. A damaged or foreign chunk is refused naming the file, the row group and
    the chunk (nothing is trusted before it is checked)."""
    if not has_results(out):
        return set()
    run = config.identity()
    try:
        for note in recover(out, run):
            print(f"{out}/{PARTS}/{note}", file=sys.stderr)
        # the one verified reader (the report of an unfinished run reads through it too)
        return {chunk for chunk, _ in verified_chunks(out, run, games_of(config))}
    except PartError as exc:
        raise RunRefused(str(exc)) from None


def check_programs(config: TournamentConfig) -> None:
    """Fail fast, naming the entry, when a strategy cannot be built: an external bot's program
    cannot be found, or a built-in / ``module:Class`` entry is unknown, not a strategy, or given
    options it does not take."""
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


#: A configuration a run plays: a tournament's, or a study's (which extends it).
C = TypeVar("C", bound=TournamentConfig)


def resolve(
    config: C | str | os.PathLike[str] | Mapping[str, Any],
    options: RunOptions,
    kind: type[C],
    load: Callable[[str | os.PathLike[str]], C],
    from_dict: Callable[[Mapping[str, Any]], C],
) -> C:
    """The configuration a run of ``kind`` plays, checked before anything is written: a path is
    read by ``load``, a mapping by ``from_dict``; ``options.workers`` overrides the file's; the
    line-up's programs and bots are checked (:func:`check_programs`, :func:`check_bots`) and
    the executor's extra required (:meth:`~.options.RunOptions.require_executor`). One
    function for tournaments (:func:`run`, :func:`play`) and studies
    (:func:`xuezhan.study.run_study`, :func:`~xuezhan.study.play_study`)."""
    if isinstance(config, (str, os.PathLike)):
        config = load(config)
    elif isinstance(config, Mapping):
        config = from_dict(config)
    elif type(config) is not kind:
        raise TypeError(f"config: expected a {kind.__name__}, a TOML path or a dict, got {type(config).__name__}")
    if options.workers is not None:
        config = config.replace(workers=options.workers)
    options.require_executor()
    check_programs(config)
    check_bots(config)
    return config


def _resolve(
    config: TournamentConfig | str | os.PathLike[str] | Mapping[str, Any], options: RunOptions
) -> TournamentConfig:
    return resolve(config, options, TournamentConfig, load_config, config_from_dict)


def run(
    config: TournamentConfig | str | Path | dict[str, Any],
    options: RunOptions | None = None,
    *,
    on_hands: Callable[[int], None] | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """Play a tournament and return its per-(hand, seat) results table, sorted by (hand, seat).

    ``config`` is a :class:`TournamentConfig`, a TOML path, or a dict in the TOML layout.
    ``options`` (:class:`~.options.RunOptions`, or its fields as keyword arguments) say how:
    the output folder (default ``config.output``), where finished chunks are stored in
    ``parts/`` as they finish (:mod:`.store`) and the final table is written to
    ``results.parquet`` (``results.csv`` with ``csv``), then read back; without any output
    folder the results are only returned. ``resume`` continues an interrupted run in the same
    folder (same tournament required). ``workers`` overrides the configuration (0 = all
    cores). ``progress`` shows a tqdm bar (default: when stderr is a tty). ``executor`` is
    ``local`` (a process pool) or ``ray`` (a Ray cluster at ``address``, see
    :mod:`.ray_executor`); both give the same table. ``on_hands(n)`` is called with each
    finished chunk's number of hands (a caller's own progress bar). For runs too large to
    hold as one DataFrame, :func:`play` writes the table without loading it.
    """
    opts = RunOptions.of(options, kwargs)
    config = _resolve(config, opts)
    out = opts.output_folder(config.output)
    if out is None:
        table = _collect(config, opts, on_hands)
        return table_to_frame(table)
    play(config, opts.replace(output=out, workers=None), on_hands=on_hands)
    return load_results(out)


def play(
    config: TournamentConfig | str | Path | dict[str, Any],
    options: RunOptions | None = None,
    *,
    on_hands: Callable[[int], None] | None = None,
    **kwargs: Any,
) -> Path:
    """Play a tournament into its output folder and return the path of ``results.parquet``.

    The same as :func:`run` with an output folder (required here), but the table is never
    loaded: the main process holds at most a few chunks at a time, whatever the number of
    hands. Read the table (or only some columns) with :func:`~.results.load_results`.
    """
    opts = RunOptions.of(options, kwargs)
    config = _resolve(config, opts)
    out = opts.output_folder(config.output)
    if out is None:
        raise RunRefused("play() writes its results to an output folder: give output= (or output in the file)")
    with OutputFolder(out, manifest_name=MANIFEST) as folder:
        folder.prepare(manifest_of(config), resume=opts.resume, overwrite=opts.overwrite)
        done = _stored(config, out) if opts.resume else set()
        _execute(config, out, done, opts, on_hands)
        all_chunks = chunks(config)
        stored = stored_chunks(out)
        missing = list(itertools.islice((c for c in range(len(all_chunks)) if c not in stored), 11))
        if len(stored) < len(all_chunks):
            have = all_chunks.hands(c for c in stored if 0 <= c < len(all_chunks))
            raise TournamentError(
                f"{out}: expected {config.n_games} hands in {PARTS}/, found {have} "
                f"(chunk(s) {', '.join(map(str, missing[:10]))}{'…' if len(missing) > 10 else ''} missing)"
            )
        try:
            write_final(
                out, out / FINAL, range(len(all_chunks)), run=config.identity(), csv=out / CSV if opts.csv else None
            )
        except PartError as exc:
            raise RunRefused(str(exc)) from None
    return out / FINAL


class _Progress:
    """The run's progress: a tqdm bar (when asked for) and the caller's ``on_hands``."""

    def __init__(
        self, config: TournamentConfig, done_hands: int, show: bool | None, on_hands: Callable[[int], None] | None
    ) -> None:
        self.on_hands = on_hands
        self.bar = None
        if show is None:
            show = sys.stderr.isatty()
        if show:
            from tqdm import tqdm

            self.bar = tqdm(
                total=config.n_games,
                initial=done_hands,
                unit="hand",
                desc=config.name,
                dynamic_ncols=True,
                smoothing=0.1,
            )

    def __call__(self, hands: int) -> None:
        if self.bar is not None:
            self.bar.update(hands)
        if self.on_hands is not None:
            self.on_hands(hands)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _lost(exc: WorkerLost, all_chunks: Chunks, out: Path | None) -> TournamentError:
    spans = ", ".join(f"{all_chunks[c][0]}-{all_chunks[c][-1]}" for c in exc.chunks)
    saved = f"the finished chunks are saved in {out}; continue with --resume" if out else "nothing was saved"
    return TournamentError(
        f"a worker process died (killed, or out of memory) while chunk(s) {', '.join(map(str, exc.chunks))} "
        f"(hands {spans}) were unfinished; {saved}"
    )


def _execute(
    config: TournamentConfig,
    out: Path,
    done: set[int],
    opts: RunOptions,
    on_hands: Callable[[int], None] | None,
) -> None:
    """Play the chunks not ``done``, each stored in ``out`` as it finishes."""
    execute = executor_for(opts.executor, opts.address)
    all_chunks = chunks(config)
    progress = _Progress(config, all_chunks.hands(done), opts.progress, on_hands)
    writer = SegmentWriter(out, run=config.identity(), first=next_segment(out))

    def on_chunk(chunk_id: int, table: pa.Table) -> None:
        writer.add(chunk_id, table)  # stored at once; nothing else keeps it
        progress(len(all_chunks[chunk_id]))

    try:
        execute(config, Pending(len(all_chunks), done), on_chunk=on_chunk)
    except WorkerLost as exc:
        raise _lost(exc, all_chunks, out) from None
    finally:
        writer.close()  # however the run ends, every finished chunk is in a closed segment
        progress.close()


def _collect(config: TournamentConfig, opts: RunOptions, on_hands: Callable[[int], None] | None) -> pa.Table:
    """Play every chunk and return the table (no output folder: small runs only)."""
    execute = executor_for(opts.executor, opts.address)
    all_chunks = chunks(config)
    progress = _Progress(config, 0, opts.progress, on_hands)
    collected: dict[int, pa.Table] = {}

    def on_chunk(chunk_id: int, table: pa.Table) -> None:
        collected[chunk_id] = table
        progress(len(all_chunks[chunk_id]))

    try:
        execute(config, Pending(len(all_chunks)), on_chunk=on_chunk)
    except WorkerLost as exc:
        raise _lost(exc, all_chunks, None) from None
    finally:
        progress.close()
    if not collected:
        return SCHEMA.empty_table()
    table = pa.concat_tables([collected[c] for c in sorted(collected)])
    return table.sort_by([("hand", "ascending"), ("seat", "ascending")])
