"""The R12 invariants of a hand (docs/rules.md R12.1–R12.3, R2.3), checked across its parts.

Each part keeps its own fields; the invariants are what must hold between them: the seats' tiles
and the wall add up to the dealt tiles, the visible-tile count matches the piles and melds, the
ledger's deltas balance, and the pending decision belongs to a seat still in the hand.
"""

from __future__ import annotations

from xuezhan.engine.ledger import Ledger
from xuezhan.engine.seats import Seats
from xuezhan.engine.turn import Phase, Turn
from xuezhan.engine.wall import Wall
from xuezhan.rules import Rules
from xuezhan.tiles import meld_kind, meld_size

__all__ = ["InvariantError", "check_invariants"]


class InvariantError(AssertionError):
    """An R12 invariant does not hold (a bug in the engine, never a user error)."""


def check_invariants(rules: Rules, wall: Wall, seats: Seats, turn: Turn, ledger: Ledger) -> None:
    """Raise :class:`InvariantError` unless R12.1–R12.3 hold now."""
    over = turn.phase == Phase.OVER
    # R12.1 tile conservation: hands + melds + discards + set aside (R14.1) + wall = the dealt multiset.
    total = bytearray(27)
    for s in range(4):
        c = seats.counts[s]
        for k in range(27):
            total[k] += c[k]
        for code in seats.melds[s]:
            total[meld_kind(code)] += meld_size(code)
        for k in seats.river[s]:
            total[k] += 1
        for k in seats.aside[s]:
            total[k] += 1
    for k in wall.tiles[wall.pos :]:
        total[k] += 1
    if bytes(total) != wall.dealt:
        raise InvariantError(f"R12.1 tile conservation broken: {list(total)} != {list(wall.dealt)}")
    if any(x > 4 for x in total):
        raise InvariantError("R12.1 a kind has more than four tiles")
    # R2.3: the public count of visible tiles matches the discard piles, melds and tiles set aside.
    seen = bytearray(27)
    for s in range(4):
        for k in seats.river[s]:
            seen[k] += 1
        for code in seats.melds[s]:
            seen[meld_kind(code)] += meld_size(code)
        for k in seats.aside[s]:
            seen[k] += 1
    if bytes(seen) != wall.seen_view or wall.seen != seen:
        raise InvariantError(f"R2.3 visible tiles {list(wall.seen_view)} != piles and melds {list(seen)}")
    # R12.2 the deltas sum to minus the escape penalty (zero without an escape).
    escaped = any(seats.escaped)
    penalty = rules.escape_penalty * rules.base if escaped and over else 0
    if escaped and not over:
        raise InvariantError("R8 the hand must end at once on an escape")
    if sum(ledger.deltas) != -penalty:
        raise InvariantError(f"R12.2 deltas {ledger.deltas} do not sum to {-penalty}")
    for s in range(4):
        if seats.active[s] != (not (seats.won[s] and not seats.stay) and not seats.escaped[s]):
            raise InvariantError(f"active flag of seat {s} is inconsistent")
    if seats.n_active != sum(seats.active):
        raise InvariantError("n_active is inconsistent")
    if turn.cur is not None and not seats.active[turn.cur]:
        raise InvariantError(f"R12.3 seat {turn.cur} has won or escaped but must act")
