"""``xuezhan.study.run_study``: play every variant of a study on the same walls (resumable).

Each variant is a tournament (:meth:`StudyConfig.tournament`) with the study's line-up, hands,
seed and seating, so every variant plays exactly the same wall seeds with the same seats
(duplicate seating: each strategy in each seat of each wall); it is run by the tournament's
driver and executors (local process pool or Ray), one after the other, into its own folder::

    OUTPUT/study.json                    the study, its identity and its variants' folders
    OUTPUT/variants/<variant>/           a tournament output folder (parts/, results.parquet)
    OUTPUT/results.parquet               the tidy table: ``variant`` + the tournament columns

so ``--resume`` continues whichever variant was interrupted, and each variant's folder can be
read on its own (``xuezhan report OUTPUT/variants/<variant>``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from xuezhan.study.config import StudyConfig, load_study, study_from_dict
from xuezhan.tournament.driver import TournamentError, run
from xuezhan.tournament.results import COLUMNS, FINAL, done_chunks, load_results
from xuezhan.tournament.scheduling import chunks

__all__ = [
    "STUDY_COLUMNS",
    "STUDY_MANIFEST",
    "VARIANTS",
    "StudyError",
    "load_study_results",
    "run_study",
    "tidy",
]

STUDY_MANIFEST = "study.json"
VARIANTS = "variants"
#: The tidy table's columns: the variant's name, then the tournament's columns.
STUDY_COLUMNS: dict[str, str] = {"variant": "string", **COLUMNS}


class StudyError(TournamentError):
    """A study that cannot start or continue (e.g. ``--resume`` of a different study)."""


def tidy(
    frames: dict[str, pd.DataFrame], order: list[str] | None = None
) -> pd.DataFrame:
    """One table from per-variant results: a ``variant`` column first, rows sorted by
    (variant in ``order``, hand, seat)."""
    order = order or list(frames)
    parts = [f.assign(variant=name) for name, f in ((n, frames[n]) for n in order)]
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in STUDY_COLUMNS.items()})
    df = pd.concat(parts, ignore_index=True)[list(STUDY_COLUMNS)]
    return df.astype(STUDY_COLUMNS)


def _check_output(
    config: StudyConfig, out: Path, resume: bool, overwrite: bool
) -> None:
    manifest_path = out / STUDY_MANIFEST
    exists = manifest_path.is_file() or (out / VARIANTS).is_dir()
    if overwrite:
        shutil.rmtree(out / VARIANTS, ignore_errors=True)
        for name in (STUDY_MANIFEST, FINAL, "results.csv"):
            (out / name).unlink(missing_ok=True)
        exists = False
    if exists and not resume:
        raise StudyError(
            f"{out}: already holds study results; continue them with --resume or start over with --overwrite"
        )
    if exists:
        if not manifest_path.is_file():
            raise StudyError(
                f"{out}: variant folders without {STUDY_MANIFEST}: cannot tell which study they belong to"
            )
        on_disk = json.loads(manifest_path.read_text(encoding="utf-8")).get("identity")
        if on_disk != config.identity():
            raise StudyError(
                f"{out}: --resume of a different study (identity {on_disk} on disk, {config.identity()} now): "
                "the hands, seed, seating, rules, variants or line-up changed"
            )
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "identity": config.identity(),
        "config": config.to_dict(),
        "variants": {v.name: f"{VARIANTS}/{v.slug}" for v in config.variants},
        "base_variant": config.base_variant,
        "n_games": config.n_games,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    tmp = out / f".{STUDY_MANIFEST}.tmp"
    tmp.write_text(
        json.dumps(manifest, indent=2, sort_keys=True, default=str), encoding="utf-8"
    )
    os.replace(tmp, manifest_path)


def _hands_done(config: StudyConfig, out: Path | None, resume: bool) -> int:
    if out is None or not resume:
        return 0
    total = 0
    for v in config.variants:
        tc = config.tournament(v)
        sizes = [len(r) for r in chunks(tc)]
        total += sum(
            sizes[i] for i in done_chunks(out / VARIANTS / v.slug) if i < len(sizes)
        )
    return total


def run_study(
    config: StudyConfig | str | Path | dict[str, Any],
    *,
    output: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | None = None,
    csv: bool = False,
    workers: int | None = None,
    executor: str = "local",
    address: str | None = None,
    on_variant: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Play every variant of a study and return the tidy table (``variant`` + tournament columns).

    ``config`` is a :class:`StudyConfig`, a TOML path or a dict in the TOML layout. ``output``
    (default ``config.output``; none: results only returned) holds one tournament folder per
    variant and the tidy ``results.parquet``. ``resume``, ``overwrite``, ``workers``, ``csv``,
    ``executor`` and ``address`` mean what they mean for :func:`xuezhan.tournament.run`;
    ``progress`` shows one bar over the whole study. ``on_variant(name)`` is called before each
    variant starts.
    """
    if isinstance(config, (str, Path)):
        config = load_study(config)
    elif isinstance(config, dict):
        config = study_from_dict(config)
    if workers is not None:
        config = config.replace(workers=workers)
    out = (
        Path(output)
        if output is not None
        else (Path(config.output) if config.output else None)
    )
    if out is not None:
        _check_output(config, out, resume, overwrite)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(
            total=config.n_games * len(config.variants),
            initial=_hands_done(config, out, resume),
            unit="hand",
            desc=config.name,
            dynamic_ncols=True,
            smoothing=0.1,
        )
    frames: dict[str, pd.DataFrame] = {}
    try:
        for v in config.variants:
            if bar is not None:
                bar.set_postfix_str(v.name)
            if on_variant is not None:
                on_variant(v.name)
            frames[v.name] = run(
                config.tournament(v),
                output=None if out is None else out / VARIANTS / v.slug,
                resume=resume,
                progress=False,
                executor=executor,
                address=address,
                on_hands=None if bar is None else bar.update,
            )
    finally:
        if bar is not None:
            bar.close()
    df = tidy(frames, [v.name for v in config.variants])
    if out is not None:
        tmp = out / f".{FINAL}.tmp"
        df.to_parquet(tmp, index=False)
        os.replace(tmp, out / FINAL)
        if csv:
            df.to_csv(out / "results.csv", index=False)
    return df


def load_study_results(path: str | Path) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """The tidy table of a study folder (or its ``results.parquet``, or any tidy Parquet/CSV)
    and the study's manifest when there is one. A folder whose study was interrupted gives the
    variants' part files written so far."""
    p = Path(path)
    manifest = None
    if p.is_dir():
        mp = p / STUDY_MANIFEST
        if not mp.is_file():
            raise FileNotFoundError(
                f"{p}: no {STUDY_MANIFEST}: not a study output folder"
            )
        manifest = json.loads(mp.read_text(encoding="utf-8"))
        if (p / FINAL).is_file():
            df = pd.read_parquet(p / FINAL)
        else:
            frames = {}
            for name, folder in manifest["variants"].items():
                if (p / folder).is_dir():
                    try:
                        frames[name] = load_results(p / folder)
                    except FileNotFoundError:
                        continue
            df = tidy(frames, [n for n in manifest["variants"] if n in frames])
    elif not p.exists():
        raise FileNotFoundError(f"{p}: no such study results file or folder")
    elif p.suffix == ".csv":
        df = pd.read_csv(p, keep_default_na=False, na_values=[])
    else:
        df = pd.read_parquet(p)
    missing = [c for c in STUDY_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(
            f"{p}: not a study results table: missing column(s) {', '.join(missing)}"
        )
    return df[list(STUDY_COLUMNS)].astype(STUDY_COLUMNS), manifest
