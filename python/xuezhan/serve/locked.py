"""The locked hand at the table (血流成河, docs/rules.md R14): which seats play a locked hand, and
the one decision the room plays for a person.

When winners stay (``after_win = "stay"``), a seat that has won keeps its hand locked: on each
of its turns it wins with the drawn tile if it can, may make a kong of it that keeps its waits,
and otherwise discards it (摸什么打什么, R14.2). When the drawn tile does not complete its hand
and no kong is possible, the discard of that tile is its only legal action: the room plays it
for the person after a short pause (:func:`forced_discard` says when). A turn with a win or a
kong in it is the person's to decide; compulsory wins (R4.4) the engine takes by itself.

Everything here reads the round's public methods only (``locked``, ``legal_actions``).

    >>> from xuezhan.engine import Round
    >>> r = Round.from_seed("xueliu", 3, dealer=0)
    >>> locked_seats(r), forced_discard(r, 0)  # nobody has won yet: nothing is forced
    ([False, False, False, False], None)
"""

from __future__ import annotations

from xuezhan.engine import Round
from xuezhan.engine.actions import DISCARD, Action

__all__ = ["forced_discard", "locked_seats"]


def locked_seats(rnd: Round) -> list[bool]:
    """Each seat's locked state (R14.2): it has won and stays in the hand. Public, as wins are."""
    return [rnd.locked(s) for s in range(4)]


def forced_discard(rnd: Round, seat: int) -> Action | None:
    """The discard the room plays for ``seat`` on its own, or None: only when the seat's hand is
    locked (R14.2), the hand is waiting for that seat, and its one legal action is the discard
    of the tile it drew (no win, no kong that keeps its waits)."""
    if rnd.over or rnd.turn.cur != seat or not rnd.locked(seat):
        return None
    legal = rnd.legal_actions(seat)
    if len(legal) == 1 and legal[0].verb == DISCARD:
        return legal[0]
    return None
