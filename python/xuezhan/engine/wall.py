"""The wall and the tiles of the hand as a whole (docs/rules.md R1, R2.3, R12.1).

:class:`Wall` holds the tiles that belong to no seat yet, in draw order, and what every seat can
count: how many are left, and how many of each kind lie face up (discard piles, melds, tiles set
aside). It is its own part so that the draw (the hottest path of a hand) and the visible-tile
count that observations share need nothing else of the hand. The seats' tiles are in
:mod:`.seats`; R12.1 conservation checks the two together against :attr:`Wall.dealt`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

__all__ = ["Wall"]


@dataclass(slots=True)
class Wall:
    """The wall in draw order and how far it has been drawn (R1.3), the dealt multiset (R12.1),
    and the tiles every seat sees (R2.3).

    The wall never changes length: a draw advances :attr:`pos` (tiles before it are gone), so a
    log and a determinization read the same list. :attr:`seen_view` is one shared ``bytes``
    object until the count changes again, so observations can hand it out without copying."""

    tiles: list[int]  # the wall in draw order (R1.2)
    dealt: bytes  # 27 counts of the hands and the wall together, as dealt (R1.1, R12.1)
    pos: int = 0  # the next tile to draw
    end: int = -1  # len(tiles), kept to spare a call in the draw; set from tiles when -1
    seen: bytearray = field(default_factory=lambda: bytearray(27))  # R2.3 visible tiles
    seen_view: bytes = bytes(27)  # bytes(seen), rebuilt at each change

    def __post_init__(self) -> None:
        if self.end < 0:
            self.end = len(self.tiles)

    @classmethod
    def deal(cls, hands: Sequence[Sequence[int]], wall: Sequence[int], dealt: bytes | None = None) -> Wall:
        """The wall of a new hand; ``dealt``, when the caller knows it (a deal from a seed is the
        whole set, R1.1), else counted from ``hands`` and ``wall``."""
        tiles = list(wall)
        if dealt is None:
            total = bytearray(27)
            for k in chain(*hands, tiles):
                total[k] += 1
            dealt = bytes(total)
        return cls(tiles, dealt)

    @property
    def count(self) -> int:
        """Tiles left to draw."""
        return self.end - self.pos

    @property
    def empty(self) -> bool:
        return self.pos >= self.end

    def left(self) -> list[int]:
        """The tiles still to be drawn, in order."""
        return self.tiles[self.pos :]

    def see(self, k: int, n: int) -> None:
        """``n`` more (or, negative, fewer) tiles of kind ``k`` are visible to every seat."""
        seen = self.seen
        seen[k] += n
        self.seen_view = bytes(seen)
