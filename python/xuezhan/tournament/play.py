"""Playing one tournament hand and turning the engine's result into table rows.

This is the only module of the tournament package that talks to the round engine
(``xuezhan.engine``) and builds strategies; the rest only sees rows.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from xuezhan.tournament.config import SEATS, StrategySpec, TournamentConfig
from xuezhan.tournament.scheduling import Game, derive_seed

__all__ = ["HandRunner", "build_strategy"]


def _builtin() -> dict[str, type]:
    """Built-in strategy names: the package registry when it has one, else the known three."""
    import xuezhan.strategies as pkg

    registry = getattr(pkg, "REGISTRY", None)
    if isinstance(registry, dict) and registry:
        return dict(registry)
    from xuezhan.strategies.greedy import GreedyStrategy
    from xuezhan.strategies.random_bot import RandomStrategy
    from xuezhan.strategies.value import ValueStrategy

    return {"random": RandomStrategy, "greedy": GreedyStrategy, "value": ValueStrategy}


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
    builtin = _builtin()
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

    Strategies are built once per worker and ``reset`` before every hand (the Strategy
    protocol), except those whose constructor takes a ``seed``: they are built afresh for
    every hand with a seed derived from the hand's seed and the seat (mixed with a ``seed``
    option if the entry gives one), so their randomness never depends on which hands the same
    worker played before.
    """

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.rules = config.build_rules()
        self.rules_id = self.rules.rules_id
        self.factories = [strategy_factory(spec) for spec in config.strategies]
        self.seeded = [spec.cmd is None and _takes_seed(f) for spec, f in zip(config.strategies, self.factories)]
        self.strategies: list[Any] = [
            None if seeded else f(**spec.options)
            for spec, f, seeded in zip(config.strategies, self.factories, self.seeded)
        ]

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
        options = dict(spec.options)
        options["seed"] = derive_seed(game.seed, "strategy", seat, options.get("seed", ""))
        return self.factories[entry](**options)

    def play(self, game: Game) -> list[dict[str, Any]]:
        from xuezhan.engine.match import first_dealer, run_round
        from xuezhan.engine.round import Round

        seated = [self._seat(game, seat) for seat in range(SEATS)]
        rules = self.rules
        for seat, strategy in enumerate(seated):
            strategy.reset(seat, rules)
        # R1.4 / R9.1: the wall and the dealer come from the hand's seed alone.
        rnd = Round.from_seed(rules, game.seed, first_dealer(game.seed))
        timeouts = [0, 0, 0, 0]  # R10.3: every tournament hand is a match of one hand
        run_round(rnd, seated, timeouts)
        if self.config.hand_logs:
            from xuezhan.tournament.hand_logs import write_hand_log

            write_hand_log(rnd, self.config.hand_logs, game.index)
        for strategy in seated:
            end = getattr(strategy, "end_hand", None)
            if callable(end):
                end()
        return rows_from_round(rnd, timeouts, game, self.config, self.rules_id)


def rows_from_round(
    rnd: Any, timeouts: list[int], game: Game, config: TournamentConfig, rules_id: str
) -> list[dict[str, Any]]:
    """The four rows (one per seat) of a finished hand; see :mod:`.results` for the columns."""
    wins = rnd.wins
    win_of: dict[int, tuple[int, dict]] = {}
    dealt_in = [0, 0, 0, 0]
    for order, w in enumerate(wins, start=1):
        win_of[w["seat"]] = (order, w)
        if w["from"] is not None and w.get("how") != "self_draw":
            dealt_in[w["from"]] += 1
    kongs = [0, 0, 0, 0]
    for k in rnd.kongs:
        kongs[k["seat"]] += 1
    pig = [False] * 4
    ready = [False] * 4
    for e in rnd.events:
        t = e["type"]
        if t == "pig":
            pig[e["seat"]] = True
        elif t == "ready":
            ready[e["seat"]] = True
    reason = rnd.end_reason
    active = rnd.active
    n_active = sum(active)
    checked_any = (reason == "wall" and n_active >= 2) or (reason == "escape" and n_active >= 1)
    rows = []
    labels = config.labels
    end = str(reason)
    fired = "+".join(sorted(rnd.fired))
    for seat in range(SEATS):
        entry = game.seating[seat]
        won = seat in win_of
        order, w = win_of.get(seat, (0, None))
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
                "delta": rnd.deltas[seat],
                "won": won,
                "win_order": order,
                "self_draw": bool(w is not None and w["from"] is None),
                "fan": int(w["fan"]) if w is not None else 0,
                "fan_items": "+".join(sorted(w["items"])) if w is not None else "",
                "dealt_in": dealt_in[seat],
                "kongs": kongs[seat],
                "pig": pig[seat],
                "checked": bool(checked_any and active[seat]),
                "ready": ready[seat],
                "escape": bool(rnd.escaped[seat]),
                "timeouts": timeouts[seat],
                "end": end,
                "fired": fired,
            }
        )
    return rows
