"""Which engine plays a tournament's hands, and the native engine's chunk player.

``engine`` (the TOML's key, ``--engine`` on the command line, not part of a run's identity):

- ``python``: the round engine (:mod:`xuezhan.engine`) plays every hand, one decision at a time
  through the seat loop: what plays external bots, ``module:Class`` strategies and ``search``;
- ``native``: the Rust engine (:mod:`xuezhan.native`) plays whole hands of the built-in
  strategies ``random``, ``greedy`` and ``value`` under rules it has; anything else in the
  line-up or the rules is one :class:`~.config.ConfigError` naming the entry or the option;
- ``auto`` (the default): ``native`` when it can, else ``python``.

Both give the same table, row for row, and the same hand logs byte for byte
(``tests/test_native_differential.py``); the report says which one played.

    >>> from xuezhan.tournament.config import TournamentConfig
    >>> resolve_engine(TournamentConfig(strategies=["random", "greedy", "value", "value"]))
    'native'
    >>> resolve_engine(TournamentConfig(strategies=["random", "greedy", "value", "search"]))
    'python'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from xuezhan.tournament.config import ConfigError, TournamentConfig
from xuezhan.tournament.results import SCHEMA
from xuezhan.tournament.scheduling import Game, GameArrays, chunk_games, game_arrays

__all__ = ["NativeRunner", "native_obstacle", "resolve_engine", "runner_for"]


def native_obstacle(config: TournamentConfig) -> str | None:
    """What keeps the native engine from playing ``config`` (naming the entry or the rule
    option), or None when it can."""
    from xuezhan import native

    for i, spec in enumerate(config.strategies):
        why = native.unsupported_strategy(spec.strategy if spec.cmd is None else None, spec.options)
        if why is not None:
            return f"strategies[{i}] ({spec.name!r}): {why}"
    why = native.unsupported_rules(config.build_rules())
    if why is not None:
        return f"rules: {why}"
    return None


def resolve_engine(config: TournamentConfig) -> str:
    """The engine that plays ``config``: ``native`` or ``python`` (see the module doc).
    ``engine = "native"`` with something it cannot play is a :class:`ConfigError` naming it."""
    if config.engine == "python":
        return "python"
    why = native_obstacle(config)
    if why is None:
        return "native"
    if config.engine == "native":
        raise ConfigError(f"engine = 'native' cannot play this tournament: {why} (use engine = 'auto' or 'python')")
    return "python"


class NativeRunner:
    """Plays a tournament's chunks with the native engine: the same rows as
    :class:`~.play.HandRunner`, a chunk at a time in one call (each hand from its own seed)."""

    def __init__(self, config: TournamentConfig) -> None:
        from xuezhan import native

        self.config = config
        rules = config.build_rules()
        self.rules = rules
        self.rules_id = rules.rules_id
        self._labels = pa.array(config.labels, SCHEMA.field("strategy").type)
        self._rules_id = pa.array([rules.rules_id], SCHEMA.field("rules_id").type)
        self.lineup = native.lineup([native.Entry(str(s.strategy), s.options) for s in config.strategies])

    def play_games(self, games: Sequence[Game] | GameArrays, threads: int = 1) -> pa.Table:
        """The rows of ``games`` in (hand, seat) order, as an Arrow table of the results schema;
        ``threads``: the native engine's threads (the table is the same for any count)."""
        from xuezhan import native

        g = games if isinstance(games, GameArrays) else _arrays(games)
        logs = bool(self.config.hand_logs)
        seeds, seatings, cols = native.play_columns(
            self.rules, g.seed, self.lineup, seatings=g.seating, logs=logs, threads=threads
        )
        if logs:
            self._write_logs(g, cols["lines"])
        n = len(g.index)
        entry = seatings.reshape(-1).astype(np.int8)
        # the columns built here straight from the engine's arrays (a few microseconds each: a
        # chunk's fixed cost, which a 40-hand chunk of random players would otherwise feel)
        columns: dict[str, Any] = {
            "hand": np.repeat(g.index, 4),
            "seed_index": np.repeat(g.seed_index, 4),
            "rotation": np.repeat(g.rotation, 4),
            "seed": np.repeat(seeds, 4),
            "rules_id": self._rules_id.take(np.zeros(4 * n, dtype=np.int8)),
            "entry": entry,
            "strategy": self._labels.take(entry),
            "seat": np.tile(np.arange(4, dtype=np.int8), n),
            "timeouts": np.zeros(4 * n, dtype=np.int8),  # no clock, no timeout (R10)
        }
        for name in native.STRING_COLUMNS:
            columns[name] = native.string_column(cols, name, SCHEMA.field(name).type)
        arrays = [_typed(columns[f.name] if f.name in columns else cols[f.name], f.type) for f in SCHEMA]
        return pa.Table.from_arrays(arrays, schema=SCHEMA)

    def _write_logs(self, games: GameArrays, lines: list[list[str]]) -> None:
        from xuezhan.engine.events import dumps
        from xuezhan.engine.log import header_of
        from xuezhan.engine.setup import deal
        from xuezhan.tournament.hand_logs import write_log_lines

        for index, seed, body in zip(games.index.tolist(), games.seed.tolist(), lines, strict=True):
            dealer = _dealer(seed)
            hands, wall, direction = deal(seed, dealer)
            exchange = direction if self.rules.exchange_three else None
            head = dumps(header_of(self.rules, seed, dealer, hands, wall, exchange))
            write_log_lines([head, *body], self.config.hand_logs, index)  # type: ignore[arg-type]

    def play_chunk(self, chunk_id: int, threads: int = 1) -> pa.Table:
        """The rows of one chunk's hands, in (hand, seat) order."""
        return self.play_games(game_arrays(self.config, chunk_games(self.config, chunk_id)), threads)

    def close(self) -> None:
        """Nothing to release (no processes)."""


def _typed(values: Any, type: pa.DataType) -> pa.Array:
    """``values`` (a numpy or Arrow array) as an Arrow array of ``type``."""
    if isinstance(values, pa.Array):
        return values if values.type == type else values.cast(type)
    return pa.array(values, type=type)


def _arrays(games: Sequence[Game]) -> GameArrays:
    n = len(games)
    return GameArrays(
        np.fromiter((g.index for g in games), dtype=np.int64, count=n),
        np.fromiter((g.seed_index for g in games), dtype=np.int64, count=n),
        np.fromiter((g.rotation for g in games), dtype=np.int8, count=n),
        np.fromiter((g.seed for g in games), dtype=np.int64, count=n),
        np.array([g.seating for g in games], dtype=np.uint8).reshape(n, 4),
    )


def _dealer(seed: int) -> int:
    from xuezhan.engine.seeds import first_dealer

    return first_dealer(seed)


def runner_for(config: TournamentConfig) -> Any:
    """The chunk player of ``config``'s engine (:func:`resolve_engine`): a
    :class:`NativeRunner` or a :class:`~.play.HandRunner`."""
    if resolve_engine(config) == "native":
        return NativeRunner(config)
    from xuezhan.tournament.play import HandRunner

    return HandRunner(config)
