"""Tournament definitions: the TOML file format and its validated Python form.

A tournament file (see ``tournaments/quick.toml``)::

    name = "quick"
    hands = 2000            # total hands played (rounded up to whole duplicate groups)
    seed = 20261202         # base seed; every hand's wall seed derives from (seed, index)
    seating = "duplicate"   # or "random"
    workers = 0             # 0 = all cores; 1 = run in this process
    chunk = 40              # hands per unit of work / per results part file
    output = "results/quick"

    [rules]
    preset = "leshan"       # then any R11 field, e.g. max_fan = 4, "fan.terminals" = true

    [[strategies]]          # exactly four entries: the four seats' line-up
    strategy = "random"     # a built-in name, or "module:Class"
    [[strategies]]
    name = "my-bot"         # the label in results (defaults to the strategy / command)
    cmd = "python examples/bot.py"   # an external bot speaking docs/protocol.md
    options = {}            # keyword arguments for the strategy's constructor

A plain list of strings is accepted too: ``strategies = ["random", "greedy", "value", "value"]``.
Unknown keys are an error naming the key (RULES.md R11 spirit: nothing is silently ignored).
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

__all__ = ["ConfigError", "StrategySpec", "TournamentConfig", "load_config", "SEATS"]

SEATS = 4
SEATINGS = ("duplicate", "random")


class ConfigError(ValueError):
    """A tournament definition that is not valid; the message names the offending key."""


@dataclass(frozen=True)
class StrategySpec:
    """One entry of the line-up: how to build a strategy and the label results use for it.

    Exactly one of ``strategy`` (built-in name or ``module:Class``) and ``cmd`` (an external
    program, docs/protocol.md) is set.
    """

    name: str
    strategy: str | None = None
    cmd: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    cwd: str | None = None

    @classmethod
    def parse(cls, entry: Any, where: str) -> "StrategySpec":
        if isinstance(entry, str):
            if not entry.strip():
                raise ConfigError(f"{where}: empty strategy name")
            return cls(name=entry, strategy=entry)
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: expected a strategy name or a table, got {entry!r}")
        allowed = {"name", "strategy", "cmd", "options", "cwd", "class"}
        unknown = sorted(set(entry) - allowed)
        if unknown:
            raise ConfigError(f"{where}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
        strategy = entry.get("strategy", entry.get("class"))
        cmd = entry.get("cmd")
        if (strategy is None) == (cmd is None):
            raise ConfigError(f"{where}: give exactly one of 'strategy' and 'cmd'")
        if strategy is not None and not isinstance(strategy, str):
            raise ConfigError(f"{where}.strategy: expected a string, got {strategy!r}")
        if cmd is not None and not (isinstance(cmd, str) and cmd.strip()):
            raise ConfigError(f"{where}.cmd: expected a command line string, got {cmd!r}")
        options = entry.get("options", {})
        if not isinstance(options, Mapping):
            raise ConfigError(f"{where}.options: expected a table, got {options!r}")
        name = entry.get("name", strategy if strategy is not None else cmd)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{where}.name: expected a non-empty string, got {name!r}")
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise ConfigError(f"{where}.cwd: expected a string, got {cwd!r}")
        return cls(name=name, strategy=strategy, cmd=cmd, options=dict(options), cwd=cwd)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name}
        if self.strategy is not None:
            d["strategy"] = self.strategy
        if self.cmd is not None:
            d["cmd"] = self.cmd
        if self.options:
            d["options"] = dict(self.options)
        if self.cwd is not None:
            d["cwd"] = self.cwd
        return d


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament definition. Build it with :func:`load_config` or directly."""

    strategies: tuple[StrategySpec, ...]
    hands: int = 1000
    seed: int = 0
    seating: str = "duplicate"
    rules: Mapping[str, Any] = field(default_factory=lambda: {"preset": "leshan"})
    workers: int = 0
    chunk: int = 40
    output: str | None = None
    name: str = "tournament"
    #: Folder for one gzip JSON-lines log per hand (``--logs``); not part of the identity.
    hand_logs: str | None = None

    def __post_init__(self) -> None:
        specs = tuple(
            s if isinstance(s, StrategySpec) else StrategySpec.parse(s, f"strategies[{i}]")
            for i, s in enumerate(self.strategies)
        )
        object.__setattr__(self, "strategies", specs)
        if len(specs) != SEATS:
            raise ConfigError(f"strategies: a line-up has exactly {SEATS} entries (one per seat), got {len(specs)}")
        for key in ("hands", "seed", "workers", "chunk"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{key}: expected an integer, got {value!r}")
        if self.hands < 1:
            raise ConfigError(f"hands: must be at least 1, got {self.hands}")
        if self.seed < 0:
            raise ConfigError(f"seed: must be non-negative, got {self.seed}")
        if self.workers < 0:
            raise ConfigError(f"workers: must be 0 (all cores) or more, got {self.workers}")
        if self.chunk < 1:
            raise ConfigError(f"chunk: must be at least 1, got {self.chunk}")
        if self.seating not in SEATINGS:
            raise ConfigError(f"seating: expected one of {', '.join(SEATINGS)}, got {self.seating!r}")
        if not isinstance(self.rules, Mapping):
            raise ConfigError(f"rules: expected a table, got {self.rules!r}")
        object.__setattr__(self, "rules", dict(self.rules))

    # ------------------------------------------------------------------ derived values
    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.strategies)

    @property
    def rotations(self) -> int:
        """Hands per wall seed: 4 under duplicate seating, 1 under random seating."""
        return SEATS if self.seating == "duplicate" else 1

    @property
    def n_games(self) -> int:
        """Hands actually played: ``hands`` rounded up to whole duplicate groups."""
        r = self.rotations
        return -(-self.hands // r) * r

    @property
    def effective_workers(self) -> int:
        return self.workers or (os.cpu_count() or 1)

    def build_rules(self):
        """The :class:`xuezhan.rules.Rules` value of this tournament (preset + overrides)."""
        from xuezhan.rules import Rules

        spec = dict(self.rules)
        spec.setdefault("preset", "leshan")
        return Rules.from_dict(spec)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "hands": self.hands,
            "seed": self.seed,
            "seating": self.seating,
            "rules": dict(self.rules),
            "workers": self.workers,
            "chunk": self.chunk,
            "output": self.output,
            "strategies": [s.to_dict() for s in self.strategies],
        }

    def identity(self) -> str:
        """A digest of everything that determines the results (not workers, not output).

        ``--resume`` refuses to continue a run whose identity differs: the part files on disk
        would otherwise mix two different tournaments.
        """
        d = self.to_dict()
        for key in ("workers", "output", "name"):
            d.pop(key)
        blob = json.dumps(d, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def replace(self, **changes: Any) -> "TournamentConfig":
        d = {
            "strategies": self.strategies,
            "hands": self.hands,
            "seed": self.seed,
            "seating": self.seating,
            "rules": self.rules,
            "workers": self.workers,
            "chunk": self.chunk,
            "output": self.output,
            "name": self.name,
            "hand_logs": self.hand_logs,
        }
        d.update(changes)
        return TournamentConfig(**d)


_TOP_KEYS = {"name", "hands", "seed", "seating", "rules", "workers", "chunk", "output", "strategies"}


def config_from_dict(data: Mapping[str, Any], *, source: str = "config") -> TournamentConfig:
    """Validate a parsed TOML document (or any mapping) into a :class:`TournamentConfig`."""
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ConfigError(f"{source}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(_TOP_KEYS))})")
    if "strategies" not in data:
        raise ConfigError(f"{source}: 'strategies' is required")
    raw = data["strategies"]
    if not isinstance(raw, list):
        raise ConfigError(f"{source}: 'strategies' must be a list, got {raw!r}")
    specs = []
    for i, entry in enumerate(raw):
        # External bots run from the current directory unless the entry gives a ``cwd``.
        specs.append(StrategySpec.parse(entry, f"{source}: strategies[{i}]"))
    kwargs: dict[str, Any] = {k: data[k] for k in _TOP_KEYS - {"strategies"} if k in data}
    try:
        return TournamentConfig(strategies=tuple(specs), **kwargs)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def load_config(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read a tournament TOML file; errors name the file and the key."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such tournament file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    data.setdefault("name", p.stem)
    return config_from_dict(data, source=str(p))
