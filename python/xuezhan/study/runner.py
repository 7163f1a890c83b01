"""``xuezhan.study.run_study``: play every variant of a study on the same walls (resumable).

Each variant is a tournament (:meth:`StudyConfig.tournament`) with the study's line-up, hands,
seed and seating, so every variant plays exactly the same wall seeds with the same seats
(duplicate seating: each strategy in each seat of each wall); it is run by the tournament's
driver and executors (local process pool or Ray), one after the other, into its own folder::

    OUTPUT/study.json                    the study, its identity and its variants' folders
    OUTPUT/variants/<variant>/           a tournament output folder (parts/, results.parquet)
    OUTPUT/results.parquet               the tidy table: ``variant`` + the tournament columns

so ``--resume`` continues whichever variant was interrupted, and each variant's folder can be
read on its own (``xuezhan report OUTPUT/variants/<variant>``). With an output folder the tidy
table is written batch by batch from the variants' tables (:func:`play_study`), so a study of
millions of hands never sits in memory as a whole; :func:`load_study_results` reads it back,
optionally only some columns with the strings as categoricals (what the report needs).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from xuezhan.study.config import StudyConfig, load_study, study_from_dict
from xuezhan.tournament.driver import play, resolve, run
from xuezhan.tournament.errors import RunRefused, TournamentError
from xuezhan.tournament.folder import CSV, FINAL, STUDY_MANIFEST, VARIANTS, Manifest, OutputFolder, read_manifest
from xuezhan.tournament.options import RunOptions
from xuezhan.tournament.results import COLUMNS, SCHEMA, done_chunks, load_results
from xuezhan.tournament.scheduling import chunks
from xuezhan.tournament.store import FINAL_ROW_GROUP

__all__ = [
    "STUDY_COLUMNS",
    "STUDY_MANIFEST",
    "VARIANTS",
    "StudyError",
    "manifest_of",
    "load_study_results",
    "play_study",
    "run_study",
    "tidy",
]

#: The tidy table's columns: the variant's name, then the tournament's columns.
STUDY_COLUMNS: dict[str, str] = {"variant": "string", **COLUMNS}
#: The tidy table as Arrow sees it (with the pandas metadata giving back STUDY_COLUMNS' dtypes).
STUDY_SCHEMA: pa.Schema = pa.Schema.from_pandas(
    pd.DataFrame({c: pd.Series(dtype=t) for c, t in STUDY_COLUMNS.items()}),
    preserve_index=False,
)


class StudyError(TournamentError):
    """A study that cannot start or continue (e.g. ``--resume`` of a different study)."""


def tidy(frames: dict[str, pd.DataFrame], order: list[str] | None = None) -> pd.DataFrame:
    """One table from per-variant results: a ``variant`` column first, rows sorted by
    (variant in ``order``, hand, seat)."""
    order = order or list(frames)
    parts = [f.assign(variant=name) for name, f in ((n, frames[n]) for n in order)]
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in STUDY_COLUMNS.items()})
    df = pd.concat(parts, ignore_index=True)[list(STUDY_COLUMNS)]
    return df.astype(STUDY_COLUMNS)


def manifest_of(config: StudyConfig) -> Manifest:
    """The manifest of a study's output folder: its identity, configuration, and each variant's
    folder and rules."""
    rules = {}
    for v in config.variants:
        r = config.tournament(v).build_rules()
        rules[v.name] = {"rules_id": r.rules_id, **r.to_dict()}
    return Manifest(
        kind="study",
        identity=config.identity(),
        name=config.name,
        config=config.to_dict(),
        rules=rules,
        n_games=config.n_games,
        variants={v.name: f"{VARIANTS}/{v.slug}" for v in config.variants},
        base_variant=config.base_variant,
    )


def _hands_done(config: StudyConfig, out: Path | None, resume: bool) -> int:
    if out is None or not resume:
        return 0
    total = 0
    for v in config.variants:
        tc = config.tournament(v)
        all_chunks = chunks(tc)
        try:
            done = done_chunks(out / VARIANTS / v.slug)
        except ValueError:  # damaged stored chunks: the variant's resume names them
            done = set()
        total += all_chunks.hands(i for i in done if 0 <= i < len(all_chunks))
    return total


def _resolve(config: StudyConfig | str | os.PathLike[str] | Mapping[str, Any], options: RunOptions) -> StudyConfig:
    return resolve(config, options, StudyConfig, load_study, study_from_dict)


def run_study(
    config: StudyConfig | str | Path | dict[str, Any],
    options: RunOptions | None = None,
    *,
    on_variant: Callable[[str], None] | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """Play every variant of a study and return the tidy table (``variant`` + tournament columns).

    ``config`` is a :class:`StudyConfig`, a TOML path or a dict in the TOML layout. ``options``
    (:class:`~xuezhan.tournament.options.RunOptions`, or its fields as keyword arguments) mean
    what they mean for :func:`xuezhan.tournament.run`: the output folder (default
    ``config.output``; none: results only returned) holds one tournament folder per variant
    and the tidy ``results.parquet``; ``progress`` shows one bar over the whole study.
    ``on_variant(name)`` is called before each variant starts. For studies too large to hold
    as one DataFrame use :func:`play_study`.
    """
    opts = RunOptions.of(options, kwargs)
    config = _resolve(config, opts)
    out = opts.output_folder(config.output)
    if out is not None:
        play_study(config, opts.replace(output=out, workers=None), on_variant=on_variant)
        return load_study_results(out)[0]
    frames: dict[str, pd.DataFrame] = {}
    with _bar(config, None, False, opts.progress) as tick:
        for v in config.variants:
            if on_variant is not None:
                on_variant(v.name)
            frames[v.name] = run(
                config.tournament(v), opts.replace(progress=False, workers=None, csv=False), on_hands=tick
            )
    return tidy(frames, [v.name for v in config.variants])


class _bar:
    """One progress bar over the whole study (a context manager giving its ``update``)."""

    def __init__(self, config: StudyConfig, out: Path | None, resume: bool, progress: bool | None) -> None:
        self.bar = None
        if progress is None:
            progress = sys.stderr.isatty()
        if progress:
            from tqdm import tqdm

            self.bar = tqdm(
                total=config.n_games * len(config.variants),
                initial=_hands_done(config, out, resume),
                unit="hand",
                desc=config.name,
                dynamic_ncols=True,
                smoothing=0.1,
            )

    def __enter__(self) -> Callable[[int], None] | None:
        return None if self.bar is None else self.bar.update

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


def play_study(
    config: StudyConfig | str | Path | dict[str, Any],
    options: RunOptions | None = None,
    *,
    on_variant: Callable[[str], None] | None = None,
    **kwargs: Any,
) -> Path:
    """Play every variant of a study into its output folder; return the tidy table's path.

    The same as :func:`run_study` with an output folder (required), without loading the
    table: each variant is played by :func:`xuezhan.tournament.driver.play` and the tidy
    ``results.parquet`` is written from the variants' tables one row group at a time. The
    study's folder (:class:`~xuezhan.tournament.folder.OutputFolder`) stays locked for the
    whole run: a second run, ``--resume`` or ``--overwrite`` of it is refused meanwhile.
    """
    opts = RunOptions.of(options, kwargs)
    config = _resolve(config, opts)
    out = opts.output_folder(config.output)
    if out is None:
        raise StudyError("play_study() writes its results to an output folder: give output= (or output in the file)")
    with OutputFolder(out, manifest_name=STUDY_MANIFEST) as folder:
        folder.prepare(manifest_of(config), resume=opts.resume, overwrite=opts.overwrite)
        variant_opts = RunOptions(resume=opts.resume, progress=False, executor=opts.executor, address=opts.address)
        with _bar(config, out, opts.resume, opts.progress) as tick:
            for v in config.variants:
                if on_variant is not None:
                    on_variant(v.name)
                play(config.tournament(v), variant_opts.replace(output=out / VARIANTS / v.slug), on_hands=tick)
        _write_tidy(out, [(v.name, out / VARIANTS / v.slug / FINAL) for v in config.variants], opts.csv)
    return out / FINAL


def _write_tidy(out: Path, variants: list[tuple[str, Path]], csv: bool) -> None:
    """The tidy table from the variants' tables, one row group at a time (bounded memory)."""
    tmp = out / f".{FINAL}.tmp"
    csv_tmp = out / f".{CSV}.tmp"
    first = True
    with (
        pq.ParquetWriter(str(tmp), STUDY_SCHEMA) as writer,
        open(csv_tmp, "w", encoding="utf-8", newline="") if csv else _Null() as csv_file,
    ):
        for name, path in variants:
            f = pq.ParquetFile(path)
            for batch in f.iter_batches(batch_size=FINAL_ROW_GROUP):
                table = pa.Table.from_batches([batch]).cast(SCHEMA)
                table = table.add_column(0, "variant", pa.array([name] * table.num_rows, pa.large_string()))
                table = table.replace_schema_metadata(STUDY_SCHEMA.metadata)
                writer.write_table(table, row_group_size=max(1, table.num_rows))
                if csv:
                    table.to_pandas().to_csv(csv_file, header=first, index=False)
                    first = False
            f.close()
    if csv and first:  # no rows: the header alone
        tidy({}).to_csv(csv_tmp, index=False)
    os.replace(tmp, out / FINAL)
    if csv:
        os.replace(csv_tmp, out / CSV)


class _Null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def load_study_results(
    path: str | Path, *, columns: list[str] | None = None, categories: bool = False
) -> tuple[pd.DataFrame, Manifest | None]:
    """The tidy table of a study folder (or its ``results.parquet``, or any tidy Parquet/CSV)
    and the study's manifest (:class:`~xuezhan.tournament.folder.Manifest`) when there is one.
    A folder whose study was interrupted gives the
    variants' chunks stored so far. ``columns`` reads only those columns (``variant`` always);
    ``categories`` reads the strings as pandas categoricals (a million-row table in a few
    hundred MB: what the report needs)."""
    wanted = STUDY_COLUMNS if columns is None else {c: STUDY_COLUMNS[c] for c in dict.fromkeys(["variant", *columns])}
    p = Path(path)
    manifest = None
    if p.is_dir():
        mp = p / STUDY_MANIFEST
        if not mp.is_file():
            raise FileNotFoundError(f"{p}: no {STUDY_MANIFEST}: not a study output folder")
        try:
            manifest = read_manifest(mp)
        except RunRefused as exc:
            raise ValueError(str(exc)) from None
        if (p / FINAL).is_file():
            df = _read_tidy(p / FINAL, list(wanted), categories)
        else:
            frames = {}
            for name, folder in manifest.variants.items():
                if (p / folder).is_dir():
                    try:
                        frames[name] = load_results(p / folder)
                    except FileNotFoundError:
                        continue
            df = tidy(frames, [n for n in manifest.variants if n in frames])
    elif not p.exists():
        raise FileNotFoundError(f"{p}: no such study results file or folder")
    elif p.suffix == ".csv":
        df = pd.read_csv(p, keep_default_na=False, na_values=[])
    else:
        df = _read_tidy(p, list(wanted), categories)
    missing = [c for c in wanted if c not in df.columns]
    if missing:
        raise ValueError(f"{p}: not a study results table: missing column(s) {', '.join(missing)}")
    df = df[list(wanted)]
    if categories and all(
        str(df[c].dtype) == t or isinstance(df[c].dtype, pd.CategoricalDtype) for c, t in wanted.items()
    ):
        return df, manifest
    return df.astype(wanted), manifest


def _read_tidy(p: Path, columns: list[str], categories: bool) -> pd.DataFrame:
    names = pq.read_schema(p).names
    cols = [c for c in columns if c in names]
    strings = [c for c in cols if STUDY_COLUMNS.get(c) == "string"] if categories else None
    return pq.read_table(p, columns=cols, read_dictionary=strings).to_pandas()
