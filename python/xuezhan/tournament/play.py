"""Playing one tournament hand and turning the engine's result into table rows.

This is the only module of the tournament package that talks to the round engine
(``xuezhan.engine``) and builds strategies; the rest only sees rows.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from xuezhan.engine.match import run_round
from xuezhan.engine.round import Round
from xuezhan.engine.seeds import derive_seed, first_dealer
from xuezhan.strategies import REGISTRY
from xuezhan.tournament.config import SEATS, StrategySpec, TournamentConfig
from xuezhan.tournament.scheduling import Game, chunk_games, game

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["HandRunner", "build_strategy", "check_strategy", "play_chunk", "strategy_factory"]


def strategy_factory(spec: StrategySpec) -> Callable[..., Any]:
    """A callable building the entry's strategy from its options (and ``seed``, see below)."""
    if spec.cmd is not None:
        from xuezhan.strategies.external import ExternalStrategy

        argv, cwd = spec.argv(), spec.workdir()
        return lambda **kw: ExternalStrategy(argv, name=spec.name, cwd=cwd, **kw)
    assert spec.strategy is not None
    if ":" in spec.strategy:
        from xuezhan.strategies.guarded import GuardedFactory, load_target

        obj = load_target(spec.strategy, spec.base_dir)
        if isinstance(obj, type) and not _is_strategy_class(obj):
            raise ValueError(
                f"strategy {spec.strategy!r} is not a strategy: a strategy class has the methods "
                "reset(seat, rules) and act(observation) (the Strategy protocol)"
            )
        if spec.trusted:
            return obj
        # R10.3: a user's Python strategy runs in a worker process that can be pre-empted,
        # unless the entry trusts it; built-in names below are trusted and run in-process.
        return GuardedFactory(spec.strategy, name=spec.name)
    builtin = REGISTRY
    if spec.strategy not in builtin:
        raise ValueError(
            f"unknown strategy {spec.strategy!r}: built-in strategies are {', '.join(sorted(builtin))}; "
            "use 'module:Class' for your own or cmd = '...' for an external bot"
        )
    return builtin[spec.strategy]


def _is_strategy_class(cls: type) -> bool:
    return callable(getattr(cls, "act", None)) and callable(getattr(cls, "reset", None))


def check_strategy(spec: StrategySpec) -> None:
    """Fail with a ``ValueError`` naming the problem when the entry cannot build a strategy:
    an unknown name, a module or class that is missing or not a strategy, or options its
    constructor does not take. External bots (``cmd``) are checked by the driver."""
    if spec.cmd is not None:
        return
    factory = strategy_factory(spec)
    options = dict(spec.options)
    if _takes_seed(factory):
        options.setdefault("seed", 0)
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        try:
            sig.bind(**options)
        except TypeError as exc:
            known = [n for n, p in sig.parameters.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
            raise ValueError(
                f"options {dict(spec.options)!r} do not fit {spec.strategy}: {exc} "
                f"(its options: {', '.join(known) or 'none'})"
            ) from None
    if factory in REGISTRY.values():  # a built-in: cheap to build, and its options' values are checked
        try:
            factory(**options)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"options {dict(spec.options)!r} do not fit {spec.strategy}: {exc}") from None
    if not isinstance(factory, type):  # a factory function: build one and look at it
        try:
            built = factory(**options)
        except Exception as exc:
            raise ValueError(f"{spec.strategy}: building the strategy failed: {type(exc).__name__}: {exc}") from None
        if not _is_strategy_class(type(built)):
            raise ValueError(f"{spec.strategy} did not build a strategy (no reset/act methods): {built!r}")


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
    worker played before. Others (external bots, classes without a ``seed``, classes marked
    ``deterministic = True`` such as greedy and value) are built once per worker and
    ``reset`` before every hand (the Strategy protocol). Every entry is built once
    here, so an unknown option is an error naming the entry and the option before any hand.
    """

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.rules = config.build_rules()
        self.rules_id = self.rules.rules_id
        self.labels = config.labels  # a derived value: computed once, not per hand
        self.factories = [strategy_factory(spec) for spec in config.strategies]
        # built afresh per hand with a derived seed, unless the seed cannot change a decision
        self.seeded = [
            spec.cmd is None and _takes_seed(f) and not getattr(f, "deterministic", False)
            for spec, f in zip(config.strategies, self.factories, strict=True)
        ]
        self.strategies: list[Any] = [None] * len(self.factories)
        for entry, seeded in enumerate(self.seeded):
            built = self._build(entry, seed=0) if seeded else self._build(entry)
            if not seeded:
                self.strategies[entry] = built

    def _build(self, entry: int, **extra: Any) -> Any:
        spec = self.config.strategies[entry]
        try:
            return self.factories[entry](**{**spec.options, **extra})
        except (TypeError, ValueError) as exc:  # an unknown or missing option, or a bad value
            raise ValueError(f"strategy {spec.name!r} (options {dict(spec.options)!r}): {exc}") from None

    def close(self) -> None:
        # factories that are not classes may hold processes too (guarded strategies' workers)
        for s in [*self.strategies, *(f for f in self.factories if not isinstance(f, type))]:
            close = getattr(s, "close", None)
            if callable(close):
                close()

    def __enter__(self) -> HandRunner:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _seat(self, game: Game, seat: int) -> Any:
        entry = game.seating[seat]
        if not self.seeded[entry]:
            return self.strategies[entry]
        spec = self.config.strategies[entry]
        return self._build(entry, seed=derive_seed(game.seed, "strategy", seat, spec.options.get("seed", "")))

    def play_chunk(self, chunk_id: int) -> Any:
        """The rows of one chunk's hands, in (hand, seat) order, as an Arrow table."""
        from xuezhan.tournament.schema import rows_to_table  # pyarrow and pandas: not for a strategy check

        rows: list[dict] = []
        for index in chunk_games(self.config, chunk_id):
            rows.extend(self.play(game(self.config, index)))
        return rows_to_table(rows)

    def play(self, game: Game) -> list[dict[str, Any]]:
        """The four rows of one tournament hand (and its hand log, when the run keeps them)."""
        return self.play_round(game)[0]

    def play_round(self, game: Game) -> tuple[list[dict[str, Any]], Round]:
        """:meth:`play`, and the finished round itself (for its log)."""
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
        return rows_from_round(rnd, timeouts, game, self.labels, self.rules_id), rnd


def rows_from_round(
    rnd: Any, timeouts: list[int], game: Game, labels: Sequence[str], rules_id: str
) -> list[dict[str, Any]]:
    """The four rows (one per seat) of a finished hand (``labels``: the line-up's entry names);
    see :mod:`.results` for the columns."""
    res = rnd.hand_result()
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
                "wins": sr.wins,
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


def play_chunk(runner: Any, config: TournamentConfig, chunk_id: int) -> pa.Table:
    """The rows of one chunk's hands, in (hand, seat) order, as an Arrow table: the unit of
    work of every executor (local or Ray), so a chunk's rows are the same wherever it is played.
    ``runner``: the chunk player of the config's engine (:func:`~.engines.runner_for`, a
    :class:`HandRunner` or the native engine's runner), built for ``config``."""
    return runner.play_chunk(chunk_id)
