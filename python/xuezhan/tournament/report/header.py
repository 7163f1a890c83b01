"""What a report states before any number (:class:`ReportHeader`): the run, its seed, rules,
line-up, when and with which version it was played and the command that played it; saved
beside the results (:data:`HEADER_FILE`) so that ``xuezhan report`` prints what the run printed.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

__all__ = [
    "HEADER_FILE",
    "ReportHeader",
    "saved_header",
    "command_line",
    "describe_rules",
    "folder_header",
    "load_header",
    "played_header",
    "run_header",
    "save_header",
]


@dataclass(frozen=True)
class ReportHeader:
    """What a report states before any number: the tournament or study, its seed, rules,
    line-up (and a study's variants), when and with which version it was played, and the
    command that played it. Saved beside the results (``report.json``) so that ``xuezhan
    report`` prints what the run printed; ``kind`` says which report it heads, so that one
    kind's report never lands in a folder of the other's.

    ``hands`` are a study's hands per variant; ``walls`` the walls the report compares.
    """

    name: str
    hands: int
    walls: int
    seating: str | None = None
    seed: int | None = None
    rules: str = ""
    lineup: tuple[str, ...] = ()
    version: str = ""
    date: str = ""
    command: str | None = None
    #: The engine that played the hands (``native`` or ``python``; "" when not known).
    engine: str = ""
    kind: Literal["tournament", "study"] = "tournament"
    variants: tuple[str, ...] = ()
    base: str | None = None

    @property
    def title(self) -> str:
        if self.kind == "study":
            return f"{self.name}: {len(self.variants)} rule variants, {self.hands:,} hands each"
        return f"{self.name}: {self.hands:,} hands"

    def items(self) -> list[tuple[str, str]]:
        """The header as (label, value) lines."""
        walls = f"{self.walls:,} walls" + (f", {self.seating} seating" if self.seating else "")
        out = [("hands", f"{self.hands:,}{' per variant' if self.kind == 'study' else ''} on {walls}")]
        if self.seed is not None:
            out.append(("seed", str(self.seed)))
        out.append(("rules", self.rules))
        if self.variants:
            base = f" (base: {self.base})" if self.base else ""
            out.append(("variants", ", ".join(self.variants) + base))
        if self.lineup:
            out.append(("line-up", ", ".join(self.lineup)))
        engine = f"the {self.engine} engine of xuezhan {self.version}" if self.engine else f"xuezhan {self.version}"
        out.append(("played", " with ".join(x for x in (self.date, engine) if x)))
        if self.command:
            out.append(("command", self.command))
        return out

    def lines(self) -> list[str]:
        """The header as the terminal report prints it, never wrapped (the command line must
        paste back into a shell whole): the title with the walls, then the other items."""
        seating = f" ({self.seating} seating)" if self.seating else ""
        comma = "," if self.kind == "study" else ""
        first = f"{self.title}{comma} on {self.walls:,} walls{seating}"
        return [first, *(f"{label}: {value}" for label, value in self.items() if label != "hands")]

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)

    @classmethod
    def from_json(cls, text: str | bytes) -> ReportHeader:
        """The header of a ``report.json``; a ``ValueError`` (pydantic's ``ValidationError``)
        when it is not one: a field missing or of the wrong type, or not JSON."""
        from pydantic import TypeAdapter

        return TypeAdapter(cls).validate_json(text)


#: The header file beside the results.
HEADER_FILE = "report.json"


def _version() -> str:
    from xuezhan import __version__

    return str(__version__)


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def _manifest_date(started: str) -> str:
    """``2026-12-03T12:38:00Z`` (the manifest's start) as the header writes dates."""
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.strptime(started, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return started


def describe_rules(rules: dict[str, Any]) -> str:
    """Rules in words: ``leshan`` or ``leshan with max_fan = 4, fan.terminals = true``.

    >>> describe_rules({"preset": "leshan", "max_fan": 4, "fan": {"terminals": True}})
    'leshan with max_fan = 4, fan.terminals = true'
    """
    spec = dict(rules)
    preset = str(spec.pop("preset", "leshan"))

    def flat(d: dict[str, Any], prefix: str = "") -> list[str]:
        out = []
        for k, v in d.items():
            if isinstance(v, dict):
                out += flat(v, f"{prefix}{k}.")
            else:
                out.append(f"{prefix}{k} = {json.dumps(v)}")
        return out

    changes = flat(spec)
    return preset + (f" with {', '.join(changes)}" if changes else "")


def command_line() -> str | None:
    """The command being run, rebuilt from click's context: ``xuezhan tournament FILE`` and
    every option given on the command line, in the command's order (None outside a command)."""
    import click
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return None
    words = ["xuezhan", ctx.info_name or ""]
    for param in ctx.command.params:
        name = param.name or ""
        value = ctx.params.get(name)
        if isinstance(param, click.Argument):
            words.append(str(value))
            continue
        if not isinstance(param, click.Option) or ctx.get_parameter_source(name) != ParameterSource.COMMANDLINE:
            continue
        if param.is_flag:
            words.append(max(param.opts if value else param.secondary_opts or param.opts, key=len))
        else:
            words += [max(param.opts, key=len), str(value)]
    return shlex.join(words)


def played_header(config: Any, *, hands: int, walls: int, command: str | None = None, **more: Any) -> ReportHeader:
    """The header of a run just played, dated now: its name, seating, seed, rules and line-up
    from ``config`` (a tournament's or a study's), the counts given; ``more``: the other fields
    (the ``engine``; a study's ``kind``, ``variants`` and ``base``)."""
    return ReportHeader(
        name=config.name,
        hands=hands,
        walls=walls,
        seating=config.seating,
        seed=config.seed,
        rules=describe_rules(dict(config.rules)),
        lineup=tuple(config.labels),
        version=_version(),
        date=_now(),
        command=command,
        **more,
    )


def run_header(config: Any, df: pd.DataFrame, command: str | None = None) -> ReportHeader:
    """The header of a tournament just played (``config``: its :class:`TournamentConfig`)."""
    from xuezhan.tournament.engines import resolve_engine

    return played_header(
        config,
        hands=int(df["hand"].nunique()),
        walls=int(df["seed_index"].nunique()),
        command=command,
        engine=resolve_engine(config),
    )


#: The largest header file read (a real one is well under 4 KB).
MAX_HEADER_BYTES = 256 * 1024


def saved_header(folder: str | Path) -> ReportHeader | None:
    """The header saved in ``folder`` (:data:`HEADER_FILE`), or None when there is none or it
    is not one (too large, not UTF-8, not a header): the report then says what the results say."""
    from xuezhan.files import read_bytes

    path = Path(folder) / HEADER_FILE
    if not path.is_file():
        return None
    with contextlib.suppress(OSError, ValueError):
        return ReportHeader.from_json(read_bytes(path, what="report header", limit=MAX_HEADER_BYTES))
    return None


def folder_header(
    folder: str | Path,
    *,
    name: str,
    hands: int,
    walls: int,
    kind: Literal["tournament", "study"] = "tournament",
    rules: str = "",
    variants: tuple[str, ...] = (),
    base: str | None = None,
) -> ReportHeader:
    """The header of a ``kind`` report of the results in ``folder``: the one the run saved
    there; without one, what the folder's manifest says (``manifest.json``, a study's
    ``study.json``); else the given ``name``, counts, ``rules``, ``variants`` and ``base``."""
    from xuezhan.tournament.errors import RunRefused
    from xuezhan.tournament.folder import MANIFEST, STUDY_MANIFEST, read_manifest

    header = saved_header(folder)
    if header is not None and header.kind == kind:
        return header
    manifest = None
    with contextlib.suppress(OSError, ValueError, RunRefused):
        manifest = read_manifest(Path(folder) / (STUDY_MANIFEST if kind == "study" else MANIFEST))
    cfg: dict = manifest.config if manifest is not None and manifest.kind == kind else {}
    if cfg and manifest is not None and kind == "study":
        variants, base = tuple(manifest.variants), manifest.base_variant
    return ReportHeader(
        name=str(cfg.get("name") or name),
        hands=hands,
        walls=walls,
        seating=cfg.get("seating"),
        seed=cfg.get("seed"),
        rules=describe_rules(cfg["rules"]) if isinstance(cfg.get("rules"), dict) else rules,
        lineup=tuple(str(s.get("name", "")) for s in cfg.get("strategies", []) if isinstance(s, dict)),
        version=_version(),
        date=_manifest_date(manifest.started if cfg and manifest is not None else ""),
        command=None,
        kind=kind,
        variants=variants,
        base=base,
    )


def load_header(results: str | Path, df: pd.DataFrame) -> ReportHeader:
    """The header of a tournament report of ``results`` (a folder or a file in it): see
    :func:`folder_header`; without a saved header or a manifest, what the table says."""
    path = Path(results)
    return folder_header(
        path if path.is_dir() else path.parent,
        name=path.name if path.is_dir() else path.stem,
        hands=int(df["hand"].nunique()),
        walls=int(df["seed_index"].nunique()),
        rules=", ".join(sorted(map(str, df["rules_id"].unique()))) if "rules_id" in df else "",
    )


def save_header(out: str | Path, header: ReportHeader) -> Path:
    """Save the run's header beside its results (``report.json``) for ``xuezhan report``."""
    path = Path(out) / HEADER_FILE
    path.write_text(header.to_json() + "\n", encoding="utf-8")
    return path
