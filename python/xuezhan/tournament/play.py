"""Playing one tournament hand and turning the engine's result into table rows.

This is the only module of the tournament package that talks to the round engine
(``xuezhan.engine``) and builds strategies; the rest only sees rows.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from xuezhan.engine.seeds import derive_seed, first_dealer
from xuezhan.strategies import REGISTRY
from xuezhan.tournament.config import SEATS, StrategySpec, TournamentConfig
from xuezhan.tournament.scheduling import Game

__all__ = ["HandRunner", "build_strategy"]


def strategy_factory(spec: StrategySpec) -> Callable[..., Any]:
    """A callable building the entry's strategy from its options (and ``seed``, see below)."""
    if spec.cmd is not None:
        from xuezhan.strategies.external import ExternalStrategy

        return lambda **kw: ExternalStrategy(spec.cmd, name=spec.name, cwd=spec.cwd, **kw)
    assert spec.strategy is not None
    if ":" in spec.strategy:
        module_name, _, attr = spec.strategy.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ValueError(f"strategy {spec.strategy!r}: cannot import module {module_name!r}: {exc}") from None
        obj: Any = module
        for part in attr.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise ValueError(f"strategy {spec.strategy!r}: module {module_name!r} has no {attr!r}") from None
        if not callable(obj):
            raise ValueError(f"strategy {spec.strategy!r} is not a class or factory")
        return obj
    builtin = REGISTRY
    if spec.strategy not in builtin:
        raise ValueError(
            f"unknown strategy {spec.strategy!r}: built-in strategies are {', '.join(sorted(builtin))}; "
            "use 'module:Class' for your own or cmd = '...' for an external bot"
        )
    return builtin[spec.strategy]


def _takes_seed(factory: Callable[..., Any]) -> bool:
    try:
        return "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


def build_strategy(spec: StrategySpec, **extra: Any) -> Any:
    """A fresh strategy for one line-up entry: built-in name, ``module:Class`` or ``cmd``."""
    return strategy_factory(spec)(**{**spec.options, **extra})


class HandRunner:
    """Holds a line-up's strategies and plays tournament hands with them.

    Strategies whose constructor takes a ``seed`` (every built-in one) are built afresh for
    every hand with a seed derived from the hand's seed and the seat (mixed with a ``seed``
    option if the entry gives one), so their randomness never depends on which hands the same
    worker played before. Others (external bots, classes without a ``seed``) are built once per
    worker and ``reset`` before every hand (the Strategy protocol). Every entry is built once
    here, so an unknown option is an error naming the entry and the option before any hand.
    """

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.rules = config.build_rules()
        self.rules_id = self.rules.rules_id
        self.factories = [strategy_factory(spec) for spec in config.strategies]
        self.seeded = [spec.cmd is None and _takes_seed(f) for spec, f in zip(config.strategies, self.factories)]
        self.strategies: list[Any] = [None] * len(self.factories)
        for entry, seeded in enumerate(self.seeded):
            built = self._build(entry, seed=0) if seeded else self._build(entry)
            if not seeded:
                self.strategies[entry] = built

    def _build(self, entry: int, **extra: Any) -> Any:
        spec = self.config.strategies[entry]
        try:
            return self.factories[entry](**{**spec.options, **extra})
        except TypeError as exc:  # an unknown or missing option
            raise ValueError(f"strategy {spec.name!r} (options {dict(spec.options)!r}): {exc}") from None

    def close(self) -> None:
        for s in self.strategies:
            close = getattr(s, "close", None)
            if callable(close):
                close()

    def __enter__(self) -> "HandRunner":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _seat(self, game: Game, seat: int) -> Any:
        entry = game.seating[seat]
        if not self.seeded[entry]:
            return self.strategies[entry]
        spec = self.config.strategies[entry]
        return self._build(entry, seed=derive_seed(game.seed, "strategy", seat, spec.options.get("seed", "")))

    def play(self, game: Game) -> list[dict[str, Any]]:
        from xuezhan.engine.match import run_round
        from xuezhan.engine.round import Round

        seated = [self._seat(game, seat) for seat in range(SEATS)]
        rules = self.rules
        for seat, strategy in enumerate(seated):
            strategy.reset(seat, rules)
        # R1.4 / R9.1: the wall and the dealer come from the hand's seed alone.
        rnd = Round.from_seed(rules, game.seed, first_dealer(game.seed))
        timeouts = [0, 0, 0, 0]  # R10.3: every tournament hand is a match of one hand
        run_round(rnd, seated, timeouts)
        for strategy in seated:
            end = getattr(strategy, "end_hand", None)
            if callable(end):
                end()
        return rows_from_round(rnd, timeouts, game, self.config, self.rules_id)


def rows_from_round(
    rnd: Any, timeouts: list[int], game: Game, config: TournamentConfig, rules_id: str
) -> list[dict[str, Any]]:
    """The four rows (one per seat) of a finished hand; see :mod:`.results` for the columns."""
    res = rnd.hand_result()
    labels = config.labels
    end = str(res.end)
    fired = "+".join(res.fired)
    rows = []
    for seat, sr in enumerate(res.seats):
        entry = game.seating[seat]
        rows.append(
            {
                "hand": game.index,
                "seed_index": game.seed_index,
                "rotation": game.rotation,
                "seed": game.seed,
                "rules_id": rules_id,
                "entry": entry,
                "strategy": labels[entry],
                "seat": seat,
                "dealer": seat == rnd.dealer,
                "delta": sr.delta,
                "won": sr.won,
                "win_order": sr.win_order,
                "self_draw": sr.how == "self_draw",
                "fan": sr.fan,
                "fan_items": "+".join(sr.fan_items),
                "dealt_in": sr.dealt_in,
                "kongs": sr.kongs,
                "pig": sr.pig,
                "checked": sr.checked,
                "ready": sr.ready,
                "escape": sr.escaped,
                "timeouts": timeouts[seat],
                "end": end,
                "fired": fired,
            }
        )
    return rows
