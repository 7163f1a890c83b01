"""Which hands a tournament plays: wall seeds, seatings and chunks of work.

Everything here is a pure function of the configuration and a hand's index, so the results
never depend on how the work is split between processes (or resumed after an interruption).

- Hand ``g`` (0-based, ``0 <= g < config.n_games``) belongs to seed group ``g // rotations``.
- ``duplicate`` seating: every wall seed is played ``4`` times; in rotation ``r`` seat ``s`` is
  taken by line-up entry ``(s - r) % 4``, so over a group each entry sits in each seat exactly
  once and meets exactly the same walls (and dealer, R9.1) as the others.
- ``random`` seating: each hand has its own wall seed and a seating drawn from
  ``(seed, hand, "seating")``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from dataclasses import dataclass
from typing import overload

import numpy as np

from xuezhan._core import shuffled_range as _shuffled_range
from xuezhan.engine.seeds import derive_seed, random_key
from xuezhan.tournament.config import SEATS, TournamentConfig

__all__ = [
    "Chunks",
    "Game",
    "GameArrays",
    "games_of",
    "Pending",
    "derive_seed",
    "game",
    "game_arrays",
    "games",
    "chunks",
    "chunk_games",
]


@dataclass(frozen=True)
class Game:
    """One hand of the tournament: its index, wall seed and which line-up entry sits where."""

    index: int
    seed_index: int  # the cluster (wall seed group) for clustered intervals
    rotation: int
    seed: int
    seating: tuple[int, ...]  # seating[seat] = index of the line-up entry in that seat


def game(config: TournamentConfig, index: int) -> Game:
    if not 0 <= index < config.n_games:
        raise IndexError(f"hand {index} is outside 0..{config.n_games - 1}")
    if config.seating == "duplicate":
        group, rotation = divmod(index, SEATS)
        seating = tuple((s - rotation) % SEATS for s in range(SEATS))
        return Game(index, group, rotation, derive_seed(config.seed, "wall", group), seating)
    # random.Random(seed).shuffle(list(range(4))), by the core's copy of the generator
    order = _shuffled_range(random_key(derive_seed(config.seed, "seating", index)), SEATS)
    return Game(index, index, 0, derive_seed(config.seed, "wall", index), tuple(order))


@dataclass(frozen=True)
class GameArrays:
    """The hands of a range of indices as columns (what :func:`game` gives hand by hand): the
    native engine plays a chunk from these without building a :class:`Game` per hand."""

    index: np.ndarray  # int64
    seed_index: np.ndarray  # int64
    rotation: np.ndarray  # int8
    seed: np.ndarray  # int64
    seating: np.ndarray  # uint8, (n, 4): the entry in each seat


def game_arrays(config: TournamentConfig, indices: range) -> GameArrays:
    """:func:`game` of every index of ``indices`` as columns; under duplicate seating each wall
    seed is derived once for its four rotations.

    >>> from xuezhan.tournament.config import TournamentConfig
    >>> c = TournamentConfig(strategies=["random"] * 4, hands=12)
    >>> a = game_arrays(c, range(2, 7))
    >>> [game(c, i).seating for i in range(2, 4)] == [tuple(r) for r in a.seating[:2].tolist()]
    True
    """
    if indices.step != 1 or not (indices.start >= 0 and indices.stop <= config.n_games):
        raise IndexError(f"hands {indices} are not a range inside 0..{config.n_games - 1}")
    index = np.arange(indices.start, indices.stop, dtype=np.int64)
    if config.seating == "duplicate":
        group, rotation = np.divmod(index, SEATS)
        first = int(group[0]) if len(group) else 0
        walls = [derive_seed(config.seed, "wall", g) for g in range(first, int(group[-1]) + 1)] if len(group) else []
        seed = np.asarray(walls, dtype=np.int64)[group - first] if len(group) else np.zeros(0, np.int64)
        seats = np.arange(SEATS, dtype=np.int64)
        seating = ((seats[None, :] - rotation[:, None]) % SEATS).astype(np.uint8)
        return GameArrays(index, group, rotation.astype(np.int8), seed, seating)
    gs = [game(config, int(i)) for i in index]
    return GameArrays(
        index,
        index.copy(),
        np.zeros(len(index), np.int8),
        np.fromiter((g.seed for g in gs), dtype=np.int64, count=len(gs)),
        np.array([g.seating for g in gs], dtype=np.uint8).reshape(len(gs), SEATS),
    )


def games(config: TournamentConfig, indices: Iterable[int] | None = None) -> Iterator[Game]:
    for i in range(config.n_games) if indices is None else indices:
        yield game(config, i)


class Chunks(Sequence[range]):
    """The units of work of a tournament: fixed ranges of ``config.chunk`` hands (independent of
    ``workers``), computed when asked for. Nothing is built up front, so a billion hands in
    chunks of one cost no more memory than a thousand.

    >>> from xuezhan.tournament.config import TournamentConfig
    >>> c = chunks(TournamentConfig(strategies=["random"] * 4, hands=10, chunk=4))
    >>> len(c), c[2], c.hands(range(1, 3))
    (3, range(8, 12), 8)
    """

    def __init__(self, n_games: int, size: int) -> None:
        self.n_games = n_games
        self.size = size

    def __len__(self) -> int:
        return -(-self.n_games // self.size)

    @overload
    def __getitem__(self, index: int) -> range: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[range]: ...
    def __getitem__(self, index: int | slice) -> range | Sequence[range]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"a chunk id is an integer, got {index!r}")
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"chunk {index} is outside the tournament's {n} chunks")
        start = index * self.size
        return range(start, min(start + self.size, self.n_games))

    def hands(self, chunk_ids: Iterable[int]) -> int:
        """The number of hands in the chunks ``chunk_ids``."""
        return sum(len(self[c]) for c in chunk_ids)


def chunks(config: TournamentConfig) -> Chunks:
    """The units of work: fixed ranges of ``config.chunk`` hands (independent of ``workers``)."""
    return Chunks(config.n_games, config.chunk)


def chunk_games(config: TournamentConfig, chunk_id: int) -> range:
    """The hand indices of chunk ``chunk_id``."""
    try:
        return chunks(config)[chunk_id]
    except IndexError:
        raise IndexError(f"chunk {chunk_id} is outside the tournament") from None


class Pending:
    """The chunks still to play, in order: ``range(total)`` without ``done``, iterated lazily
    (an executor takes the next one when a worker is free) and sized without being listed."""

    def __init__(self, total: int, done: Set[int] = frozenset()) -> None:
        self.total = total
        self.done = done
        self._len = total - sum(1 for c in done if 0 <= c < total)

    def __len__(self) -> int:
        return self._len

    def __contains__(self, chunk_id: object) -> bool:
        return isinstance(chunk_id, int) and 0 <= chunk_id < self.total and chunk_id not in self.done

    def __iter__(self) -> Iterator[int]:
        done = self.done
        return (c for c in range(self.total) if c not in done)


def games_of(config: TournamentConfig) -> Callable[[int], list[Game]]:
    """A chunk's hands by its id (``IndexError``: the tournament has no such chunk): what every
    stored chunk is checked against."""
    all_chunks = chunks(config)

    def hands(chunk_id: int) -> list[Game]:
        if not 0 <= chunk_id < len(all_chunks):
            raise IndexError(chunk_id)
        return [game(config, i) for i in all_chunks[chunk_id]]

    return hands
