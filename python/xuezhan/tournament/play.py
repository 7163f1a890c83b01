"""Playing one tournament hand and turning the engine's result into table rows.

This is the only module of the tournament package that talks to the round engine
(``xuezhan.engine``) and builds strategies; the rest only sees rows.
"""

from __future__ import annotations

import importlib
from typing import Any

from xuezhan.tournament.config import SEATS, StrategySpec, TournamentConfig
from xuezhan.tournament.scheduling import Game, derive_seed

__all__ = ["HandRunner", "build_strategy"]


def build_strategy(spec: StrategySpec) -> Any:
    """A fresh strategy for one line-up entry: built-in name, ``module:Class`` or ``cmd``."""
    options = dict(spec.options)
    if spec.cmd is not None:
        from xuezhan.strategies.external import ExternalStrategy

        return ExternalStrategy(spec.cmd, name=spec.name, cwd=spec.cwd, **options)
    assert spec.strategy is not None
    if ":" in spec.strategy:
        module_name, _, attr = spec.strategy.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ValueError(f"strategy {spec.strategy!r}: cannot import module {module_name!r}: {exc}") from None
        obj = module
        for part in attr.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise ValueError(f"strategy {spec.strategy!r}: module {module_name!r} has no {attr!r}") from None
        return obj(**options)
    from xuezhan.strategies import make_strategy

    return make_strategy(spec.strategy, **options)


class HandRunner:
    """Holds a line-up's strategy instances and plays hands of a tournament with them."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.rules = config.build_rules()
        self.rules_id = self.rules.rules_id
        self.strategies = [build_strategy(spec) for spec in config.strategies]

    def close(self) -> None:
        for s in self.strategies:
            close = getattr(s, "close", None)
            if callable(close):
                close()

    def play(self, game: Game) -> list[dict[str, Any]]:
        from xuezhan.engine import play_hand

        seated = [self.strategies[game.seating[seat]] for seat in range(SEATS)]
        for seat, strategy in enumerate(seated):
            # Strategies with their own randomness are reseeded from the hand's seed, so a
            # hand's result does not depend on which hands the same instance played before.
            seed_fn = getattr(strategy, "seed", None)
            if callable(seed_fn):
                seed_fn(derive_seed(game.seed, "strategy", seat))
        result = play_hand(seated, self.rules, game.seed)
        return rows_from_result(result, game, self.config, self.rules_id)


def rows_from_result(result: Any, game: Game, config: TournamentConfig, rules_id: str) -> list[dict[str, Any]]:
    raise NotImplementedError("engine result adapter: written when xuezhan.engine lands")
