"""What a report states before any number (:class:`ReportHeader`): the run, its seed, rules,
line-up, when and with which version it was played and the command that played it; saved
beside the results (:data:`HEADER_FILE`) so that ``xuezhan report`` prints what the run printed.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "HEADER_FILE",
    "ReportHeader",
    "command_line",
    "describe_rules",
    "load_header",
    "run_header",
    "save_header",
]


@dataclass(frozen=True)
class ReportHeader:
    """What a report states before any number: the tournament, its seed, rules, line-up, when
    and with which version it was played, and the command that played it. Saved beside the
    results (``report.json``) so that ``xuezhan report`` prints what the run printed."""

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

    @property
    def title(self) -> str:
        return f"{self.name}: {self.hands:,} hands"

    def items(self) -> list[tuple[str, str]]:
        """The header as (label, value) lines."""
        walls = f"{self.walls:,} walls" + (f", {self.seating} seating" if self.seating else "")
        out = [("hands", f"{self.hands:,} on {walls}")]
        if self.seed is not None:
            out.append(("seed", str(self.seed)))
        out.append(("rules", self.rules))
        if self.lineup:
            out.append(("line-up", ", ".join(self.lineup)))
        out.append(("played", " with ".join(x for x in (self.date, f"xuezhan {self.version}") if x)))
        if self.command:
            out.append(("command", self.command))
        return out

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)

    @classmethod
    def from_json(cls, text: str) -> ReportHeader:
        d = json.loads(text)
        d["lineup"] = tuple(d.get("lineup") or ())
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


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


def run_header(config: Any, df: pd.DataFrame, command: str | None = None) -> ReportHeader:
    """The header of a tournament just played (``config``: its :class:`TournamentConfig`)."""
    return ReportHeader(
        name=config.name,
        hands=int(df["hand"].nunique()),
        walls=int(df["seed_index"].nunique()),
        seating=config.seating,
        seed=config.seed,
        rules=describe_rules(dict(config.rules)),
        lineup=tuple(config.labels),
        version=_version(),
        date=_now(),
        command=command,
    )


def load_header(results: str | Path, df: pd.DataFrame) -> ReportHeader:
    """The header saved by the run beside ``results`` (a folder or a file in it); without one,
    what the folder's manifest says; else what the table says."""
    path = Path(results)
    folder = path if path.is_dir() else path.parent
    saved = folder / HEADER_FILE
    if saved.is_file():
        with contextlib.suppress(ValueError, TypeError, KeyError):
            return ReportHeader.from_json(saved.read_text(encoding="utf-8"))
    from xuezhan.tournament.errors import RunRefused
    from xuezhan.tournament.folder import MANIFEST, read_manifest

    manifest = None
    with contextlib.suppress(OSError, ValueError, RunRefused):
        manifest = read_manifest(folder / MANIFEST)
    cfg: dict = manifest.config if manifest is not None else {}
    rules = ", ".join(sorted(map(str, df["rules_id"].unique()))) if "rules_id" in df else ""
    return ReportHeader(
        name=str(cfg.get("name") or (folder.name if path.is_dir() else path.stem)),
        hands=int(df["hand"].nunique()),
        walls=int(df["seed_index"].nunique()),
        seating=cfg.get("seating"),
        seed=cfg.get("seed"),
        rules=describe_rules(cfg["rules"]) if isinstance(cfg.get("rules"), dict) else rules,
        lineup=tuple(str(s.get("name", "")) for s in cfg.get("strategies", []) if isinstance(s, dict)),
        version=_version(),
        date=_manifest_date(manifest.started if manifest is not None else ""),
        command=None,
    )


def save_header(out: str | Path, header: ReportHeader) -> Path:
    """Save the run's header beside its results (``report.json``) for ``xuezhan report``."""
    path = Path(out) / HEADER_FILE
    path.write_text(header.to_json() + "\n", encoding="utf-8")
    return path
