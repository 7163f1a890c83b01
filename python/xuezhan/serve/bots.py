"""The bots a game room offers: the built-in strategies plus those of a server-side file.

A browser chooses a bot by name from this catalogue only. ``module:Class`` strategies and
external bot commands come from the server's bot file (``xuezhan serve --bots FILE.toml``),
never from the browser::

    [[bots]]
    name = "my-bot"
    cmd = "python examples/bot.py"    # or: strategy = "mypkg.bots:MyBot"

Entries use the tournament line-up format (:class:`xuezhan.tournament.StrategySpec`).

    >>> sorted(BotCatalog().names)
    ['greedy', 'random', 'value']
"""

from __future__ import annotations

import inspect
import secrets
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from xuezhan.tournament.config import ConfigError, StrategySpec
from xuezhan.tournament.play import strategy_factory

__all__ = ["STAND_IN", "BotCatalog"]

#: The strategy that plays a hand for a person who has left (RULES.md R8 aftermath).
STAND_IN = "greedy"


class BotCatalog:
    """Named strategy factories: built-ins and the entries of an optional bot file."""

    def __init__(self, specs: list[StrategySpec] | None = None) -> None:
        self._specs: dict[str, StrategySpec] = {
            n: StrategySpec(name=n, strategy=n) for n in ("random", "greedy", "value")
        }
        for spec in specs or []:
            self._specs[spec.name] = spec
        self._factories: dict[str, Callable[..., Any]] = {}

    @classmethod
    def from_file(cls, path: str | Path) -> BotCatalog:
        """Read a bot file; a bad file raises :class:`ConfigError` naming the file and entry."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the bot file: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not TOML: {exc}") from None
        unknown = sorted(set(data) - {"bots"})
        if unknown:
            raise ConfigError(f"{path}: unknown key {unknown[0]!r} (expected [[bots]] entries)")
        entries = data.get("bots", [])
        if not isinstance(entries, list):
            raise ConfigError(f"{path}: 'bots' must be an array of tables ([[bots]])")
        specs = [
            # relative paths of cmd, cwd and module:Class are looked up from the file's folder,
            # as in a tournament file
            StrategySpec.parse(e, f"{path}: bots[{i}]", base_dir=str(Path(path).resolve().parent))
            for i, e in enumerate(entries)
        ]
        for i, spec in enumerate(specs):
            try:
                strategy_factory(spec)
            except ValueError as exc:
                raise ConfigError(f"{path}: bots[{i}]: {exc}") from None
        return cls(specs)

    @property
    def names(self) -> list[str]:
        return list(self._specs)

    def build(self, name: str) -> Any:
        """A fresh strategy; an unknown name raises ``KeyError``."""
        spec = self._specs[name]
        factory = self._factories.get(name)
        if factory is None:
            factory = self._factories[name] = strategy_factory(spec)
        options: Mapping[str, Any] = spec.options
        if spec.cmd is None and _takes_seed(factory) and "seed" not in options:
            options = {**options, "seed": secrets.randbits(32)}
        return factory(**options)


def _takes_seed(factory: Callable[..., Any]) -> bool:
    try:
        return "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
