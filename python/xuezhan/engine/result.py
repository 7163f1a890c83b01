"""The result of a finished hand (RULES.md R9.3): what the engine returns to its callers.

:class:`HandResult` holds, per seat, its delta, whether and how it won, how often it dealt in,
its kongs, and what the end of the hand found (pig, ready check, escape); and for the hand, the
wins in order, the kongs, the payments, the rules that fired and the next dealer. It is built
once from the hand's own records, so callers (matches, tournaments, reports) copy fields
instead of re-reading the events.

    >>> from xuezhan.engine import Round
    >>> r = Round("leshan", ["1235679m1235579p", "123456789m3455p", "123456789s1489m",
    ...           "124468p1356789s"], wall="", dealer=0)
    >>> r.apply("0 discard 5p"); r.apply("1 hu")
    >>> res = r.hand_result()
    >>> res.deltas, res.end, res.next_dealer
    ((-1, 1, 0, 0), 'wall', 1)
    >>> res.seats[1].won, res.seats[1].how, res.seats[0].dealt_in
    (True, 'discard', 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from xuezhan.engine.actions import TILE_STR
from xuezhan.engine.events import Pay, Win

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.ledger import KongRecord, Ledger

__all__ = ["HandResult", "SeatResult", "next_dealer"]

_TILE = TILE_STR


def next_dealer(wins: Sequence[Win], dealer: int) -> int:
    """R9.2: the first winner; the discarder (kong-maker) if the first win was a multiple win on
    one discard or robbed kong; the dealer stays if nobody won.

    >>> a, b = (Win(s, 0, "5p", 1, 1, 1, group=7) for s in (1, 3))
    >>> next_dealer([], 2), next_dealer([a], 2), next_dealer([a, b], 2)
    (2, 1, 0)
    """
    if not wins:
        return dealer
    first = wins[0]
    multiple = sum(w.group == first.group for w in wins) > 1
    return first.frm if multiple else first.seat  # type: ignore[return-value]


class SeatResult(NamedTuple):
    """One seat's part of a hand."""

    delta: int
    won: bool
    win_order: int  # 1 for the hand's first win, …; 0 if it did not win
    how: str | None  # "self_draw", "discard" or "rob" (R3.3) of its (first) win; None if none
    fan: int  # capped fan of its (first) win (0 if none)
    fan_items: tuple[str, ...]  # the R5 items of its (first) win, sorted
    dealt_in: int  # wins on its discards or robbed kongs (R6.1, R3.3)
    kongs: int
    pig: bool  # R7.1, found by the ready check
    checked: bool  # it was still playing when the ready check was made (R7, R8)
    ready: bool  # R7.3
    escaped: bool  # R8
    wins: int  # how many times it won (at most 1 unless winners stay, R14)


class HandResult(NamedTuple):
    """A finished hand (R9.3); :attr:`seats` is each seat's part, :meth:`to_dict` the JSON-ready
    form ``Round.result()`` gives."""

    deltas: tuple[int, ...]
    next_dealer: int | None
    end: str | None  # "wall", "three_won" or "escape"
    wins: tuple[Win, ...]  # the win events, in order
    kongs: tuple[KongRecord, ...]
    payments: tuple[Pay, ...]  # the pay events, in order
    fired: tuple[str, ...]  # rule ids that fired, sorted
    pigs: frozenset[int]  # R7.1, found by the ready check
    checked: tuple[int, ...]  # the seats the ready check was made for (R7, R8)
    ready: frozenset[int]  # R7.3
    escaped: tuple[bool, ...]  # R8

    @classmethod
    def of(cls, ledger: Ledger, escaped: Sequence[bool]) -> HandResult:
        """The result recorded in a hand's ``ledger`` (finished or not: then it is the result so
        far); ``escaped``: which seats escaped (R8)."""
        return cls(
            tuple(ledger.deltas),
            ledger.next_dealer,
            ledger.end_reason,
            tuple(ledger.wins),
            tuple(ledger.kongs),
            tuple(ledger.payments),
            tuple(sorted(ledger.fired)),
            frozenset(ledger.pigs),
            ledger.checked,
            frozenset(ledger.ready),
            tuple(escaped),
        )

    @property
    def seats(self) -> tuple[SeatResult, ...]:
        """Each seat's part of the hand, seat 0 first."""
        # a seat's first win (when winners stay, R14, it may win again: ``wins`` counts them)
        order: dict[int, tuple[int, Win | None]] = {}
        n_wins = [0, 0, 0, 0]
        for i, w in enumerate(self.wins, start=1):
            order.setdefault(w.seat, (i, w))
            n_wins[w.seat] += 1
        dealt_in = [0, 0, 0, 0]
        for w in self.wins:
            if w.frm is not None and w.how != "self_draw":
                dealt_in[w.frm] += 1
        kongs = [0, 0, 0, 0]
        for k in self.kongs:
            kongs[k.seat] += 1
        seats = []
        for s in range(4):
            i, win = order.get(s, (0, None))
            seats.append(
                SeatResult(
                    self.deltas[s],
                    win is not None,
                    i,
                    win.how if win is not None else None,
                    win.fan if win is not None else 0,
                    tuple(sorted(win.items)) if win is not None else (),
                    dealt_in[s],
                    kongs[s],
                    s in self.pigs,
                    s in self.checked,
                    s in self.ready,
                    self.escaped[s],
                    n_wins[s],
                )
            )
        return tuple(seats)

    def to_dict(self) -> dict[str, Any]:
        """``{"deltas", "next_dealer", "end", "wins", "kongs", "payments", "fired"}``, JSON-ready."""
        return {
            "deltas": list(self.deltas),
            "next_dealer": self.next_dealer,
            "end": self.end,
            "wins": [
                {
                    "seat": w.seat,
                    "from": w.frm,
                    "tile": w.tile,
                    "fan": w.fan,
                    "points": w.points,
                    "items": dict(w.items),
                }
                for w in self.wins
            ],
            "kongs": [{"seat": k.seat, "tile": _TILE[k.kind], "how": k.how, "from": k.frm} for k in self.kongs],
            "payments": [p.to_json() for p in self.payments],
            "fired": list(self.fired),
        }
