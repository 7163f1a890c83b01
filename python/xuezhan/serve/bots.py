"""The bots a game room offers: the built-in strategies plus those of a server-side file.

A browser chooses a bot by name from this catalogue only. ``module:Class`` strategies and
external bot commands come from the server's bot file (``xuezhan serve --bots FILE.toml``),
never from the browser::

    [[bots]]
    name = "my-bot"
    cmd = "python examples/bot.py"    # or: strategy = "mypkg.bots:MyBot"

Entries use the tournament line-up format (:class:`xuezhan.tournament.StrategySpec`).

The built-ins ``search`` (docs/search.md) and ``expert`` (高手, docs/strength.md) are offered
too, both searching bots, with ``search_seats`` (``xuezhan serve
--search-seats N``) as the server-wide number of searching seats at once: a searching bot costs
a core for 50–150 ms per searched decision, so the room bounds how many may be seated (the
table enforces it, :meth:`xuezhan.serve.tables.Table.seat_bot`). With ``search_seats=0`` no
searching bot is offered, and a bot file entry that searches is refused. A searching bot's
per-decision ``budget`` is capped by the room's decision time limit (:data:`BUDGET_SHARE`).

    >>> BotCatalog().names
    ['random', 'greedy', 'value', 'search', 'expert']
    >>> BotCatalog(search_seats=0).names
    ['random', 'greedy', 'value']
"""

from __future__ import annotations

import inspect
import secrets
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from xuezhan.strategies import REGISTRY
from xuezhan.strategies.search import DEFAULT_BUDGET
from xuezhan.tournament.config import ConfigError, StrategySpec
from xuezhan.tournament.play import check_strategy, strategy_factory

__all__ = ["BUDGET_SHARE", "BUILT_IN", "DEFAULT_SEARCH_SEATS", "STAND_IN", "BotCatalog"]

#: The strategy that plays a hand for a person who has left (RULES.md R8 aftermath).
STAND_IN = "greedy"

#: The built-in bots a room offers, with the label a person chooses by (``search`` only while
#: ``search_seats`` is above 0).
BUILT_IN: dict[str, str] = {
    "random": "random · any legal move",
    "greedy": "greedy · nearest to ready",
    "value": "value · weighs points and risk",
    "search": "search · looks ahead, slower",
    "expert": "expert · 高手, the strongest, thinks longer",
}

#: Searching seats the whole server holds at once unless ``xuezhan serve --search-seats`` says.
DEFAULT_SEARCH_SEATS = 4

#: The share of a decision's time limit (R10.1, R10.2) a searching bot's ``budget`` may use at
#: most: a search ends within its budget plus one sample, so a quarter keeps it far from the
#: limit (a late decision would take the R10 default and count as a timeout).
BUDGET_SHARE = 0.25


class BotCatalog:
    """Named strategy factories: built-ins and the entries of an optional bot file, and how many
    searching seats (``search_seats``) the server holds at once.

    A bad ``search_seats`` or a searching entry while ``search_seats`` is 0 raises
    :class:`ConfigError` naming it."""

    def __init__(self, specs: list[StrategySpec] | None = None, *, search_seats: int = DEFAULT_SEARCH_SEATS) -> None:
        if type(search_seats) is not int or search_seats < 0:
            raise ConfigError(f"search_seats: expected a whole number of at least 0, got {search_seats!r}")
        self.search_seats = search_seats
        self._specs: dict[str, StrategySpec] = {}
        self._labels: dict[str, str] = {}
        for n, label in BUILT_IN.items():
            spec = StrategySpec(name=n, strategy=n)
            if search_seats or not _searching(spec):
                self._specs[n], self._labels[n] = spec, label
        for spec in specs or []:
            if _searching(spec) and not search_seats:
                raise ConfigError(
                    f"bot {spec.name!r} searches (strategy {spec.strategy!r}), but searching bots are "
                    "off (search seats 0): remove the entry or allow search seats"
                )
            self._specs[spec.name] = spec
            self._labels[spec.name] = f"{spec.name} · " + (
                "searches, slower" if _searching(spec) else "the server's bot"
            )
        self._factories: dict[str, Callable[..., Any]] = {}

    @classmethod
    def from_file(cls, path: str | Path, *, search_seats: int = DEFAULT_SEARCH_SEATS) -> BotCatalog:
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
                if _searching(spec):  # a built-in: its options' values are checked now, not when seated
                    check_strategy(spec)
            except ValueError as exc:
                raise ConfigError(f"{path}: bots[{i}]: {exc}") from None
        try:
            return cls(specs, search_seats=search_seats)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None

    @property
    def names(self) -> list[str]:
        """The names on offer, in the order a person sees them (built-ins first)."""
        return list(self._specs)

    @property
    def labels(self) -> dict[str, str]:
        """Each offered name's label: what the bot is, in a few words."""
        return dict(self._labels)

    def searches(self, name: str) -> bool:
        """True for a bot that searches (a built-in strategy that asks for a sampler, such as
        ``search``): its seats count against ``search_seats``. False for an unknown name."""
        spec = self._specs.get(name)
        return spec is not None and _searching(spec)

    def build(self, name: str, *, time_limit: float | None = None) -> Any:
        """A fresh strategy; an unknown name raises ``KeyError``. ``time_limit`` (seconds): the
        shortest decision time limit of the table (R10); a searching bot's ``budget`` is capped
        at :data:`BUDGET_SHARE` of it (its own ``budget`` option, else the search's default,
        when that is smaller; ``budget = None`` in a bot file does not lift the room's cap)."""
        spec = self._specs[name]
        factory = self._factories.get(name)
        if factory is None:
            factory = self._factories[name] = strategy_factory(spec)
        options: Mapping[str, Any] = spec.options
        if spec.cmd is None and _takes_seed(factory) and "seed" not in options:
            options = {**options, "seed": secrets.randbits(32)}
        if time_limit is not None and _searching(spec):
            own = options.get("budget", DEFAULT_BUDGET)
            cap = BUDGET_SHARE * time_limit
            options = {**options, "budget": cap if own is None else min(own, cap)}
        return factory(**options)


def _searching(spec: StrategySpec) -> bool:
    """A built-in strategy that searches: its class asks the seat loop for a sampler."""
    if spec.cmd is not None or spec.strategy is None:
        return False
    return bool(getattr(REGISTRY.get(spec.strategy), "uses_sampler", False))


def _takes_seed(factory: Callable[..., Any]) -> bool:
    try:
        return "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
