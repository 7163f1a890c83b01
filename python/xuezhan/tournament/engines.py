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
from xuezhan.tournament.scheduling import Game, chunk_games, game

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
        self.labels = np.array(config.labels, dtype=object)
        self.lineup = native.lineup([native.Entry(str(s.strategy), s.options) for s in config.strategies])

    def play_games(self, games: Sequence[Game]) -> pa.Table:
        """The rows of ``games`` in (hand, seat) order, as an Arrow table of the results schema."""
        from xuezhan import native

        n = len(games)
        seeds = np.fromiter((g.seed for g in games), dtype=np.int64, count=n)
        seatings = np.array([g.seating for g in games], dtype=np.uint8).reshape(n, 4)
        logs = bool(self.config.hand_logs)
        t = native.play(self.rules, seeds, self.lineup, seatings=seatings, logs=logs)
        if logs:
            self._write_logs(games, t.column("log").to_pylist()[::4])
        entry = t.column("entry").to_numpy()
        columns: dict[str, Any] = {
            "hand": np.repeat(np.fromiter((g.index for g in games), dtype=np.int64, count=n), 4),
            "seed_index": np.repeat(np.fromiter((g.seed_index for g in games), dtype=np.int64, count=n), 4),
            "rotation": np.repeat(np.fromiter((g.rotation for g in games), dtype=np.int8, count=n), 4),
            "seed": t.column("seed"),
            "rules_id": pa.array(np.full(4 * n, self.rules_id, dtype=object), pa.string()),
            "entry": t.column("entry"),
            "strategy": pa.array(self.labels[entry], pa.string()),
        }
        for name in SCHEMA.names:
            if name not in columns and name != "timeouts":
                columns[name] = t.column(name)
        columns["timeouts"] = np.zeros(4 * n, dtype=np.int8)  # no clock, no timeout (R10)
        arrays = [
            pa.array(columns[f.name]).cast(f.type)
            if not isinstance(columns[f.name], pa.ChunkedArray)
            else columns[f.name].cast(f.type)
            for f in SCHEMA
        ]
        return pa.Table.from_arrays(arrays, schema=SCHEMA)

    def _write_logs(self, games: Sequence[Game], lines: list[list[str]]) -> None:
        from xuezhan.engine.events import dumps
        from xuezhan.engine.log import header_of
        from xuezhan.engine.setup import deal
        from xuezhan.tournament.hand_logs import write_log_lines

        for g, body in zip(games, lines, strict=True):
            dealer = _dealer(g.seed)
            hands, wall, direction = deal(g.seed, dealer)
            exchange = direction if self.rules.exchange_three else None
            head = dumps(header_of(self.rules, g.seed, dealer, hands, wall, exchange))
            write_log_lines([head, *body], self.config.hand_logs, g.index)  # type: ignore[arg-type]

    def play_chunk(self, chunk_id: int) -> pa.Table:
        """The rows of one chunk's hands, in (hand, seat) order."""
        return self.play_games([game(self.config, i) for i in chunk_games(self.config, chunk_id)])

    def close(self) -> None:
        """Nothing to release (no processes)."""


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
