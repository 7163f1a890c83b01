"""The four seats of a hand and who is still in it (docs/rules.md R0, R2, R4.3, R11.2, R14).

:class:`Seats` holds what belongs to each seat: its concealed tiles (``bytearray(27)`` counts
that go straight to the Rust core), its melds (the one-byte codes of docs/internals.md, as a list
and as ``bytes``), its discard pile, its tiles set aside (R14.1), whether it has won or escaped,
its void suit, its wait mask and its pass-win lock. It answers the questions the turn and claim
flows ask about seats (who is next, who pays, is this seat locked, what it holds at the end)
without knowing the wall, the turn or the money: those are the other parts of
:class:`~xuezhan.engine.round.Round`.

The ``*_view`` fields are immutable tuples rebuilt only when their source changes, so the
observations of every seat share them (and identity tells a change).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from xuezhan._core import CoreRules
from xuezhan.engine._core_adapter import fan, wait_mask
from xuezhan.tiles import meld_kind, meld_type

__all__ = ["Holding", "Seats"]


class Holding(NamedTuple):
    """The tiles of one seat at the end of the hand: concealed counts, meld codes, void suit."""

    counts: bytes
    melds: bytes
    void: int


def _four(value: object) -> list:
    return [value, value, value, value]


@dataclass(slots=True)
class Seats:
    """Each seat's tiles and standing. ``active[s]``: still in the hand (R0): not escaped, and
    not won unless winners stay (``stay``, ``after_win = "stay"``, R14.4)."""

    counts: list[bytearray]  # concealed tiles, 27 counts each
    stay: bool = False  # R14: winners stay in the hand
    voids_known: bool = True  # R11.2: the voids are public (revealed, or none declared)
    melds: list[list[int]] = field(default_factory=lambda: [[], [], [], []])  # meld codes
    mbytes: list[bytes] = field(default_factory=lambda: _four(b""))  # bytes(melds[s]) for the core
    meld_from: list[list[int | None]] = field(default_factory=lambda: [[], [], [], []])  # discarder per meld
    # each seat's discard pile, as a tuple replaced at every change: it is also what the
    # observations show (a new tuple only when that pile changes, so identity tells)
    river: list[tuple[int, ...]] = field(default_factory=lambda: _four(()))
    # R14.1: each seat's self-drawn winning tiles, set aside in front of it (public); a tile
    # won on a discard stays in the discarder's pile, as several may win on it (R14.3).
    aside: list[tuple[int, ...]] = field(default_factory=lambda: _four(()))
    won: list[bool] = field(default_factory=lambda: _four(False))  # has won (at least once, R14)
    escaped: list[bool] = field(default_factory=lambda: _four(False))
    active: list[bool] = field(default_factory=lambda: _four(True))
    n_active: int = 4
    void: list[int] = field(default_factory=lambda: _four(-1))  # declared void suit (R11.2), -1 none
    mask: list[int] = field(default_factory=lambda: _four(0))  # wait masks (bit k: kind k completes)
    lock: list[int] = field(default_factory=lambda: _four(0))  # R4.3: best capped fan passed (0 = none)
    # cached immutable views for observations
    meld_view: tuple = ((), (), (), ())  # per seat ((type, kind), ...)
    river_view: tuple[tuple[int, ...], ...] = ((), (), (), ())
    aside_view: tuple[tuple[int, ...], ...] = ((), (), (), ())
    wins_view: tuple[tuple[int, ...], ...] = ((), (), (), ())  # each seat's winning tiles
    void_view: tuple = (-1, -1, -1, -1)
    status: tuple | None = None  # (won, escaped) as tuples; None after a change

    @classmethod
    def deal(cls, hands: Sequence[Sequence[int]], stay: bool, voids_known: bool) -> Seats:
        """The seats of a new hand holding ``hands`` (lists of kinds)."""
        counts = [bytearray(27) for _ in range(4)]
        for s, h in enumerate(hands):
            c = counts[s]
            for k in h:
                c[k] += 1
        return cls(counts, stay, voids_known)

    # ------------------------------------------------------------------ who is in
    def leave(self, seat: int, won: bool) -> None:
        """The seat has won (``won``) or escaped: it takes no further part (R2.4, R8), except a
        winner when winners stay (R14.1): it is locked, and still in the hand."""
        (self.won if won else self.escaped)[seat] = True
        self.status = None
        if self.stay and won:
            return
        self.active[seat] = False
        self.n_active -= 1

    def locked(self, seat: int) -> bool:
        """R14.2: the seat has won and stays in the hand: it may only win, make a kong that keeps
        its waits, or discard the tile it drew."""
        return self.stay and self.won[seat]

    def winners_in(self) -> set[int]:
        """The seats that won and are still in the hand (R14.5: ready in the ready check)."""
        return {s for s in range(4) if self.stay and self.won[s] and not self.escaped[s]}

    def others(self, seat: int) -> list[int]:
        """The other active seats (R6.2, R6.4 payers)."""
        a = self.active
        return [p for p in range(4) if p != seat and a[p]]

    def next_active(self, seat: int) -> int:
        """The first active seat after ``seat`` in turn order (R2.5)."""
        a = self.active
        for i in (1, 2, 3, 4):
            s = (seat + i) & 3
            if a[s]:
                return s
        return -1

    def status_view(self) -> tuple:
        """``(won, escaped)`` as tuples (rebuilt only after a change)."""
        v = self.status
        if v is None:
            v = self.status = (tuple(self.won), tuple(self.escaped))
        return v

    # ------------------------------------------------------------------ tiles
    def update_mask(self, s: int) -> None:
        """Refresh the seat's wait mask (the kinds that would complete its hand, via the core)."""
        self.mask[s] = wait_mask(bytes(self.counts[s]), self.mbytes[s], self.void[s])

    def score(self, seat: int, counts14: bytes, kind: int, ctx: int, core: CoreRules) -> tuple | None:
        """Fan of a win (R5) via the core: ``(raw, capped, points, items)`` or None if no win."""
        return fan(counts14, self.mbytes[seat], kind, ctx, core, self.void[seat])

    def set_river(self, seat: int, pile: tuple[int, ...]) -> None:
        """The seat's discard pile is now ``pile``."""
        river = self.river
        river[seat] = pile
        self.river_view = tuple(river)

    def melds_changed(self, seat: int) -> None:
        """Rebuild the seat's meld bytes and the meld view after its melds changed."""
        ms = self.melds[seat]
        self.mbytes[seat] = bytes(ms)
        mv = list(self.meld_view)
        mv[seat] = tuple((int(meld_type(c)), meld_kind(c)) for c in ms)
        self.meld_view = tuple(mv)

    def set_aside(self, seat: int, kind: int) -> None:
        """R14.1: the self-drawn winning tile leaves the hand and is set aside (the caller makes
        it visible); the hand is again the locked hand, so its waits are unchanged."""
        self.counts[seat][kind] -= 1
        self.aside[seat] += (kind,)
        self.aside_view = tuple(self.aside)
        self.update_mask(seat)

    def add_win(self, seat: int, kind: int) -> None:
        """The seat won on ``kind`` (public: :attr:`wins_view`)."""
        wv = list(self.wins_view)
        wv[seat] += (kind,)
        self.wins_view = tuple(wv)

    def set_voids(self, voids: Sequence[int]) -> None:
        """R11.2: the four declared voids are revealed together."""
        self.void = list(voids)
        self.void_view = tuple(self.void)
        self.voids_known = True

    def holdings(self, caught: tuple[int, int] | None = None) -> dict[int, Holding]:
        """The tiles of each active seat, for the ready check (R7, R8). ``caught``: ``(seat,
        kind)`` of a winner caught holding the tile it drew (another seat escaped during its
        turn): it is valued on its locked hand, without that tile (R14.5)."""
        held = {}
        for s in range(4):
            if self.active[s]:
                c = self.counts[s]
                if caught is not None and s == caught[0]:
                    c = bytearray(c)
                    c[caught[1]] -= 1
                held[s] = Holding(bytes(c), self.mbytes[s], self.void[s])
        return held
