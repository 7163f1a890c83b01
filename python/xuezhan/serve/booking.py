"""Booking a finished hand in the room's :class:`~xuezhan.serve.standings.Standings`: each
player's points, what its seat paid under R8 (the escape penalty, its own entry), the deal's
seed and commitment, and the hand's log with the seats' names (so replay links survive a
restart). The database is written in a worker thread, never on the event loop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from xuezhan.engine import Round, log_lines
from xuezhan.serve.replay import named_log
from xuezhan.serve.seating import Seat
from xuezhan.serve.standings import Standings
from xuezhan.serve.words import seat_labels

__all__ = ["book_hand", "escape_penalties"]

_log = logging.getLogger("xuezhan.serve")


def escape_penalties(rnd: Round) -> list[int]:
    """What each seat paid under R8 in ``rnd`` (booked apart from its points)."""
    paid = [0, 0, 0, 0]
    for e in rnd.ledger.events:
        if e.type == "pay" and e.rule == "R8":  # type: ignore[attr-defined]
            paid[e.frm] += e.amount  # type: ignore[attr-defined]
    return paid


async def book_hand(
    standings: Standings,
    table_name: str,
    rnd: Round,
    seed: int,
    commitment: str,
    seats: Sequence[Seat],
    table_id: str = "",
) -> str | None:
    """Book the finished ``rnd``; its replay id, or None when the database failed (said loudly
    in the server's log: the table keeps playing)."""
    players = [s.player_id if s.kind == "person" else None for s in seats]
    try:
        return await asyncio.to_thread(
            standings.book_hand,
            table_name,
            rnd.rules.preset,
            seed,
            commitment,
            named_log(log_lines(rnd), seat_labels([s.name for s in seats], rnd.dealer)),
            players,
            list(rnd.ledger.deltas),
            escape_penalties(rnd),
        )
    except Exception:  # the database failed: say so loudly, keep the table playing
        _log.exception("table %s: the hand could not be booked", table_id)
        return None
