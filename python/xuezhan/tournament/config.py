"""Tournament definitions: the TOML file format and its validated Python form.

A tournament file (see ``tournaments/quick.toml``)::

    name = "quick"
    hands = 2000            # total hands played (rounded up to whole duplicate groups)
    seed = 20261202         # base seed; every hand's wall seed derives from (seed, index)
    seating = "duplicate"   # or "random"
    workers = 0             # 0 = all cores; 1 = run in this process
    engine = "auto"         # auto (native when it can), native or python: the same results
    chunk = 0               # hands per unit of work and per stored row group (0: automatic)
    output = "results/quick"

    [rules]
    preset = "leshan"       # then any R11 field, e.g. max_fan = 4, "fan.terminals" = true

    [[strategies]]          # exactly four entries: the four seats' line-up
    strategy = "random"     # a built-in name, or "module:Class" (importable from this file's folder too)
    [[strategies]]
    name = "my-bot"         # the label in results (defaults to the strategy / command)
    cmd = "python bots/my_bot.py"   # an external bot speaking docs/protocol.md; relative
                                    # paths are looked up from this file's folder
    options = {}            # keyword arguments for the strategy's constructor
    # trusted = true        # module:Class only: run in-process, not pre-empted (R10.3)

A plain list of strings is accepted too: ``strategies = ["random", "greedy", "value", "value"]``.
Unknown keys are an error naming the key (docs/rules.md R11 spirit: nothing is silently ignored).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from xuezhan.rules import Rules

__all__ = [
    "ConfigError",
    "OptionTypeError",
    "StrategySpec",
    "TournamentConfig",
    "config_from_dict",
    "load_config",
    "SEATS",
    "TOURNAMENT_KEYS",
]

SEATS = 4
SEATINGS = ("duplicate", "random")
#: The engines that can play a tournament (:mod:`xuezhan.tournament.engines`).
ENGINES = ("auto", "native", "python")
#: Limits of one run: refused above them, before anything is allocated or started.
MAX_HANDS = 10**9
MAX_SEED = 2**63 - 1
MAX_WORKERS = 1024


def auto_chunk(hands: int) -> int:
    """Hands per chunk when a run does not say: about a thousand chunks, 40 to 1,000 hands each.

    A chunk is a unit of work and one row group of the stored results. Small chunks keep a short
    run's progress smooth and its workers busy; for long runs, each row group's footer entry
    (a few kilobytes per chunk, read whenever the results are checked or merged) and the main
    process's work per chunk would otherwise grow with the hands: a million hands make 1,000
    chunks of 1,000 rather than 25,000 of 40. Results never depend on it (each hand's seed does).

    >>> auto_chunk(8000), auto_chunk(200_000), auto_chunk(1_000_000), auto_chunk(10**8)
    (40, 200, 1000, 1000)
    """
    return max(40, min(1000, -(-hands // 1000)))


class ConfigError(ValueError):
    """A tournament definition that is not valid; the message names the offending key."""


class OptionTypeError(ConfigError, TypeError):
    """A field or option of the wrong type (``True``, ``4.0`` or ``"4"`` where an integer is
    meant); the message names the field. Both a :class:`ConfigError` and a :class:`TypeError`."""


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
    #: The folder of the tournament file (None: the current directory). Relative paths of
    #: ``cmd`` and ``cwd``, and ``module:Class`` modules, are looked up there; not part of
    #: the tournament's identity (moving the folder does not change the results).
    base_dir: str | None = field(default=None, compare=False)
    trusted: bool = False  # a module:Class strategy runs in-process, without pre-emption (R10.3)

    @classmethod
    def parse(cls, entry: Any, where: str, base_dir: str | None = None) -> StrategySpec:
        if isinstance(entry, str):
            if not entry.strip():
                raise ConfigError(f"{where}: empty strategy name")
            return cls(name=entry, strategy=entry, base_dir=base_dir)
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: expected a strategy name or a table, got {entry!r}")
        allowed = {"name", "strategy", "cmd", "options", "cwd", "class", "trusted"}
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
        bad = [k for k in options if not isinstance(k, str) or not k.isidentifier()]
        if bad:
            raise ConfigError(f"{where}.options: {bad[0]!r} is not an option name")
        trusted = entry.get("trusted", False)
        if not isinstance(trusted, bool):
            raise ConfigError(f"{where}.trusted: expected true or false, got {trusted!r}")
        if trusted and cmd is not None:
            raise ConfigError(f"{where}.trusted: only a 'module:Class' strategy can run in-process, not a cmd")
        return cls(
            name=name, strategy=strategy, cmd=cmd, options=dict(options), cwd=cwd, trusted=trusted, base_dir=base_dir
        )

    def argv(self) -> list[str]:
        """The external bot's command line, split like a shell would, with relative paths resolved
        against the tournament file's folder: the program when it is written as a path (it holds
        a ``/``), and every argument that names an existing file or folder there.
        Bare program names (``python``) are looked up on ``PATH`` as usual.

        >>> spec = StrategySpec(name="bot", cmd="python bots/b.py --fast", base_dir="/t")
        >>> spec.argv() == ["python", "bots/b.py", "--fast"]   # /t/bots/b.py does not exist
        True
        """
        import shlex

        if self.cmd is None:
            return []
        argv = shlex.split(self.cmd)
        if self.base_dir is None:
            return argv
        base = Path(self.base_dir)
        out = []
        for i, arg in enumerate(argv):
            resolved = arg
            if arg and not os.path.isabs(arg) and not arg.startswith("-"):
                candidate = base / arg
                if i == 0:
                    if ("/" in arg or os.sep in arg) and candidate.exists():
                        resolved = str(candidate.resolve())
                elif candidate.exists():
                    resolved = str(candidate.resolve())
            out.append(resolved)
        return out

    def command(self) -> str | None:
        """:meth:`argv` joined back into one command line (what the external adapter takes)."""
        import shlex

        return None if self.cmd is None else shlex.join(self.argv())

    def workdir(self) -> str | None:
        """``cwd``, relative to the tournament file's folder when it is a relative path."""
        if self.cwd is None or self.base_dir is None or os.path.isabs(self.cwd):
            return self.cwd
        return str((Path(self.base_dir) / self.cwd).resolve())

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
        if self.trusted:
            d["trusted"] = True
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
    #: Hands per unit of work (and per row group of the stored results); 0 picks
    #: :func:`auto_chunk` of the hands played.
    chunk: int = 0
    output: str | None = None
    name: str = "tournament"
    #: Folder for one gzip JSON-lines log per hand (``--logs``); not part of the identity.
    hand_logs: str | None = None
    #: Which engine plays the hands (:mod:`.engines`): ``auto`` (native when it can),
    #: ``native`` or ``python``; not part of the identity (both give the same results).
    engine: str = "auto"

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
                raise OptionTypeError(f"{key}: expected an integer, got {value!r}")
        if not 1 <= self.hands <= MAX_HANDS:
            raise ConfigError(f"hands: must be 1 to {MAX_HANDS:,} (one run; split bigger studies), got {self.hands:,}")
        if not 0 <= self.seed <= MAX_SEED:
            raise ConfigError(f"seed: must be 0 to {MAX_SEED:,} (a 63-bit integer), got {self.seed}")
        if not 0 <= self.workers <= MAX_WORKERS:
            raise ConfigError(f"workers: must be 0 (all cores) to {MAX_WORKERS}, got {self.workers}")
        if not 0 <= self.chunk <= MAX_HANDS:
            raise ConfigError(f"chunk: must be 0 (automatic) or 1 to {MAX_HANDS:,}, got {self.chunk}")
        if not isinstance(self.name, str) or not self.name:
            raise OptionTypeError(f"name: expected a non-empty string, got {self.name!r}")
        if self.output is not None and (not isinstance(self.output, str) or not self.output):
            raise OptionTypeError(f"output: expected a folder path (a string), got {self.output!r}")
        if self.hand_logs is not None and (not isinstance(self.hand_logs, str) or not self.hand_logs):
            raise OptionTypeError(f"hand_logs: expected a folder path (a string), got {self.hand_logs!r}")
        if self.engine not in ENGINES:
            raise ConfigError(f"engine: expected one of {', '.join(ENGINES)}, got {self.engine!r}")
        if not isinstance(self.seating, str):
            raise OptionTypeError(f"seating: expected one of {', '.join(SEATINGS)}, got {self.seating!r}")
        if self.seating not in SEATINGS:
            raise ConfigError(f"seating: expected one of {', '.join(SEATINGS)}, got {self.seating!r}")
        if not isinstance(self.rules, Mapping):
            raise OptionTypeError(f"rules: expected a table, got {self.rules!r}")
        object.__setattr__(self, "rules", dict(self.rules))
        if self.chunk == 0:
            object.__setattr__(self, "chunk", auto_chunk(self.n_games))

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

    def build_rules(self) -> Rules:
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
            "engine": self.engine,
            "strategies": [s.to_dict() for s in self.strategies],
        }

    def identity(self) -> str:
        """A digest of everything that determines the results (not workers, not output).

        ``--resume`` refuses to continue a run whose identity differs: the part files on disk
        would otherwise mix two different tournaments.
        """
        d = self.to_dict()
        for key in ("workers", "output", "name", "engine"):
            d.pop(key)
        blob = json.dumps(d, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def replace(self, **changes: Any) -> Self:
        return dataclasses.replace(self, **changes)


#: The keys of a tournament file (a study file has these and its variants).
TOURNAMENT_KEYS = frozenset(
    {"name", "hands", "seed", "seating", "rules", "workers", "chunk", "output", "engine", "strategies"}
)


def config_from_dict(
    data: Mapping[str, Any], *, source: str = "config", base_dir: str | None = None
) -> TournamentConfig:
    """Validate a parsed TOML document (or any mapping) into a :class:`TournamentConfig`.

    ``base_dir`` (the TOML file's folder) is where relative ``cmd`` paths, ``cwd`` and
    ``module:Class`` modules are looked up.
    """
    unknown = sorted(set(data) - TOURNAMENT_KEYS)
    if unknown:
        raise ConfigError(f"{source}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(TOURNAMENT_KEYS))})")
    if "strategies" not in data:
        raise ConfigError(f"{source}: 'strategies' is required")
    raw = data["strategies"]
    if not isinstance(raw, list):
        raise ConfigError(f"{source}: 'strategies' must be a list, got {raw!r}")
    specs = []
    for i, entry in enumerate(raw):
        specs.append(StrategySpec.parse(entry, f"{source}: strategies[{i}]", base_dir))
    kwargs: dict[str, Any] = {k: data[k] for k in TOURNAMENT_KEYS - {"strategies"} if k in data}
    try:
        return TournamentConfig(strategies=tuple(specs), **kwargs)
    except ConfigError as exc:
        raise type(exc)(f"{source}: {exc}") from None


def load_config(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read a tournament file (TOML; JSON when it ends in ``.json``) through the one bounded
    reader of input files (:func:`xuezhan.files.read_document`); errors name the file and the
    key."""
    from xuezhan.files import InputFileError, read_document

    p = Path(path)
    try:
        data = read_document(p, what="tournament file")
    except InputFileError as exc:
        raise ConfigError(str(exc)) from None
    data.setdefault("name", p.stem)
    return config_from_dict(data, source=str(p), base_dir=str(p.resolve().parent))
