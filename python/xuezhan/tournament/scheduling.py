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

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from xuezhan._core import shuffled_range as _shuffled_range
from xuezhan.engine.seeds import derive_seed, random_key
from xuezhan.tournament.config import SEATS, TournamentConfig

__all__ = ["Game", "derive_seed", "game", "games", "chunks", "chunk_games"]


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


def games(config: TournamentConfig, indices: Iterable[int] | None = None) -> Iterator[Game]:
    for i in range(config.n_games) if indices is None else indices:
        yield game(config, i)


def chunks(config: TournamentConfig) -> list[range]:
    """The units of work: fixed ranges of ``config.chunk`` hands (independent of ``workers``)."""
    n, size = config.n_games, config.chunk
    return [range(start, min(start + size, n)) for start in range(0, n, size)]


def chunk_games(config: TournamentConfig, chunk_id: int) -> range:
    start = chunk_id * config.chunk
    if not 0 <= start < config.n_games:
        raise IndexError(f"chunk {chunk_id} is outside the tournament")
    return range(start, min(start + config.chunk, config.n_games))
