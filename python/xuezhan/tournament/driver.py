"""``xuezhan.tournament.run``: play a tournament (resumable) and return its results table.

Before the first hand every external bot and guarded Python strategy of the line-up passes a
start-up check (:func:`check_bots`); one run at a time holds the output folder's lock; on
``--resume`` every part file on disk is verified against its chunk before it is trusted.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from xuezhan.tournament.config import ConfigError, TournamentConfig, load_config
from xuezhan.tournament.executors import WorkerLost, executor_for
from xuezhan.tournament.results import (
    FINAL,
    MANIFEST,
    PARTS,
    OutputBusy,
    OutputLock,
    PartError,
    done_chunks,
    part_path,
    read_manifest,
    read_parts,
    rows_to_frame,
    verify_part,
    write_final,
    write_manifest,
)
from xuezhan.tournament.scheduling import chunks, game

__all__ = ["TournamentError", "run"]


class TournamentError(RuntimeError):
    """A tournament that cannot start or continue (e.g. ``--resume`` of a different tournament)."""


def _prepare_output(config: TournamentConfig, out: Path, resume: bool, overwrite: bool) -> set[int]:
    manifest = read_manifest(out)
    has_parts = (out / PARTS).is_dir() and any((out / PARTS).glob("part-*.parquet"))
    if overwrite:
        for name in (PARTS,):
            shutil.rmtree(out / name, ignore_errors=True)
        for name in (FINAL, MANIFEST, "results.csv"):
            (out / name).unlink(missing_ok=True)
        manifest, has_parts = None, False
    if resume:
        if manifest is None and not has_parts:
            # nothing to resume: a fresh start
            pass
        elif manifest is None:
            raise TournamentError(f"{out}: part files without {MANIFEST}: cannot tell which tournament they belong to")
        elif manifest.get("identity") != config.identity():
            raise TournamentError(
                f"{out}: --resume of a different tournament (identity {manifest.get('identity')} on disk, "
                f"{config.identity()} now): the hands, seed, seating, rules or line-up changed"
            )
    elif manifest is not None or has_parts:
        raise TournamentError(
            f"{out}: already holds tournament results; continue them with --resume or start over with --overwrite"
        )
    write_manifest(
        out,
        {
            "identity": config.identity(),
            "config": config.to_dict(),
            "n_games": config.n_games,
            "chunks": len(chunks(config)),
            "started": (manifest or {}).get("started", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())),
        },
    )
    done = done_chunks(out) if resume else set()
    all_chunks = chunks(config)
    for chunk_id in sorted(done):
        path = part_path(out, chunk_id)
        if chunk_id >= len(all_chunks):
            raise TournamentError(
                f"{path}: this tournament has only {len(all_chunks)} chunks; the file is not one of its parts"
            )
        try:
            verify_part(path, [game(config, i) for i in all_chunks[chunk_id]])
        except PartError as exc:
            raise TournamentError(f"{exc}; delete it and --resume plays its chunk again") from None
    return done


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
        found = (os.path.exists(os.path.join(base, prog)) if os.sep in prog else shutil.which(prog) is not None)
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
    ``output`` (default ``config.output``) is the output folder: finished chunks are written to
    ``parts/`` as they finish and the final table to ``results.parquet`` (``results.csv`` with
    ``csv``). Without any output folder the results are only returned. ``resume`` continues an
    interrupted run in the same folder (same tournament required). ``workers`` overrides the
    configuration (0 = all cores). ``progress`` shows a tqdm bar (default: when stderr is a tty).
    ``executor`` is ``local`` (a process pool) or ``ray`` (a Ray cluster at ``address``, see
    :mod:`.ray_executor`); both give the same table. ``on_hands(n)`` is called with each
    finished chunk's number of hands (a caller's own progress bar).
    """
    if isinstance(config, (str, Path)):
        config = load_config(config)
    elif isinstance(config, dict):
        from xuezhan.tournament.config import config_from_dict

        config = config_from_dict(config)
    if workers is not None:
        config = config.replace(workers=workers)
    check_programs(config)
    check_bots(config)
    execute = executor_for(executor, address)
    out = Path(output) if output is not None else (Path(config.output) if config.output else None)
    if out is None:
        return _run(config, None, resume, overwrite, progress, csv, execute, on_hands)
    lock = OutputLock(out)
    try:
        lock.acquire()
    except OutputBusy as exc:
        raise TournamentError(str(exc)) from None
    try:
        return _run(config, out, resume, overwrite, progress, csv, execute, on_hands)
    finally:
        lock.release()


def _run(
    config: TournamentConfig,
    out: Path | None,
    resume: bool,
    overwrite: bool,
    progress: bool | None,
    csv: bool,
    execute: Callable[..., list[pd.DataFrame]],
    on_hands: Callable[[int], None] | None,
) -> pd.DataFrame:
    all_chunks = chunks(config)
    done: set[int] = set()
    if out is not None:
        done = _prepare_output(config, out, resume, overwrite)
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

    def on_chunk(chunk_id: int, frame: pd.DataFrame) -> None:
        if bar is not None:
            bar.update(len(all_chunks[chunk_id]))
        if on_hands is not None:
            on_hands(len(all_chunks[chunk_id]))

    try:
        frames = execute(config, pending, out_dir=out, on_chunk=on_chunk)
    except WorkerLost as exc:
        spans = ", ".join(f"{all_chunks[c][0]}-{all_chunks[c][-1]}" for c in exc.chunks)
        saved = f"the finished chunks are saved in {out}; continue with --resume" if out else "nothing was saved"
        raise TournamentError(
            f"a worker process died (killed, or out of memory) while chunk(s) {', '.join(map(str, exc.chunks))} "
            f"(hands {spans}) were unfinished; {saved}"
        ) from None
    finally:
        if bar is not None:
            bar.close()

    if out is not None:
        df = read_parts(out)
        n_hands = df["hand"].nunique()
        if len(df) != 4 * config.n_games or n_hands != config.n_games:
            raise TournamentError(
                f"{out}: expected {config.n_games} hands of 4 rows in {PARTS}/, found {n_hands} hands in {len(df)} rows"
            )
        write_final(out, df, csv=csv)
        return df
    if not frames:
        return rows_to_frame([])
    df = pd.concat(frames, ignore_index=True)
    return df.sort_values(["hand", "seat"], kind="stable").reset_index(drop=True)
