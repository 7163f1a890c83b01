"""How a hand ends (docs/rules.md R4.5, R7, R8, R9.2, R14.5): a seat leaving it, an escape, and
the end itself with its ready check and the next dealer.

The functions take the parts of the hand they touch (the pending decision, the seats, the
ledger) and the rules, never the whole :class:`~xuezhan.engine.round.Round`: the payments of
the end are :mod:`.settlement`'s, the next dealer :mod:`.result`'s.
"""

from __future__ import annotations

from xuezhan.engine import events as ev
from xuezhan.engine import fired as F
from xuezhan.engine import settlement as pay
from xuezhan.engine.ledger import Ledger
from xuezhan.engine.result import next_dealer
from xuezhan.engine.seats import Seats
from xuezhan.engine.turn import Phase, Turn
from xuezhan.rules import Rules

__all__ = ["end_hand", "escape", "leave"]

_TURN, _OVER = Phase.TURN, Phase.OVER


def leave(turn: Turn, seats: Seats, seat: int, won: bool) -> None:
    """The seat has won or escaped (:meth:`~xuezhan.engine.seats.Seats.leave`): no decision is
    pending."""
    seats.leave(seat, won)
    turn.cur = None


def escape(turn: Turn, seats: Seats, ledger: Ledger, rules: Rules, dealer: int, seat: int, default: bool) -> None:
    """R8: ``seat`` escapes; the ready check of the seats still in, and the hand ends at once."""
    ledger.events.append(ev.Escape(seat, default))
    caught = _caught(turn, seats)  # before the escapee leaves: the seat on turn
    leave(turn, seats, seat, False)
    held = seats.holdings(caught)
    ledger.checked = tuple(held)
    ledger.pigs, ledger.ready = pay.settle_escape(ledger, rules, ledger.kongs, seat, held, seats.winners_in())
    end_hand(turn, seats, ledger, rules, dealer, "escape")


def _caught(turn: Turn, seats: Seats) -> tuple[int, int] | None:
    """``(seat, kind)`` of a winner on turn holding the tile it drew (R14.5: valued on its
    locked hand, without that tile, if the hand ends now)."""
    seat = turn.cur
    if seat is not None and turn.drawn >= 0 and seats.locked(seat) and turn.phase == _TURN:
        return (seat, turn.drawn)
    return None


def end_hand(turn: Turn, seats: Seats, ledger: Ledger, rules: Rules, dealer: int, reason: str) -> None:
    """The hand ends (``reason``: ``wall``, ``three_won`` or ``escape``): at an exhausted wall
    the ready check (R7, R4.5); then no decision is pending, the next dealer (R9.2) and the
    ``end`` event."""
    if reason == "wall":
        held = seats.holdings()
        if len(held) >= 2:
            ledger.checked = tuple(held)
        present = [q for q in range(4) if not seats.escaped[q]]
        ledger.pigs, ledger.ready = pay.end_of_wall(ledger, rules, ledger.kongs, held, present, seats.winners_in())
    turn.phase = _OVER
    turn.cur = None
    turn.legal = []
    turn.claims = None
    ledger.end_reason = reason
    ledger.next_dealer = nd = next_dealer(ledger.wins, dealer)
    if ledger.defaults_used:
        ledger.fired.add(F.DEFAULTS)
    ledger.events.append(ev.End(reason, list(ledger.deltas), nd))
