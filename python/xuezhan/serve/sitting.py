"""A person sits down: the seat is checked, the name proven, the seat taken, and only then is a
new name made a player.

A ``sit`` with the browser's secret names a player of the standings (积分). The steps, in order:

1. the seat must be free and the client not seated (else refused: nothing done);
2. the client address's sit rate (:class:`~xuezhan.serve.attempts.Attempts`);
3. what the standings know of the name (a read): nobody's yet, this browser's, or another
   browser's player, which a password may prove (one attempt at a time, with the backoff and
   the lockout of :mod:`.attempts`); every database step and the password's check run in the
   room's one password thread (:mod:`.passwords`), never in the threads the bots use;
4. the seat is taken;
5. a new name becomes a player now, and a browser proven by its password is remembered now: a
   sit refused at any earlier step leaves no trace in the standings. A new name someone else
   took meanwhile (at another table, or another server on the same database) frees the seat
   again and the sit is refused with the reason.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from xuezhan.serve.connections import Client
from xuezhan.serve.limits import RoomError
from xuezhan.serve.protocol import SitMsg
from xuezhan.serve.standings import StandingsError

if TYPE_CHECKING:
    from xuezhan.serve.lobby import Room
    from xuezhan.serve.tables import Table

__all__ = ["sit"]

_log = logging.getLogger("xuezhan.serve")


async def sit(table: Table, client: Client, m: SitMsg, room: Room) -> str:
    """Seat the person of ``client`` as ``m`` asks (see the module); its seat token, or
    :class:`RoomError` saying why not."""
    seating = table.seating
    seating.check_sit(client, m.seat, m.name)
    room.attempts.sit(client.peer)
    secret = m.secret
    if secret is None:  # a guest: nothing is kept
        return table.sit(client, m.seat, m.name)
    ledger = room.ledger
    try:
        claim = await room.passwords.run(ledger.lookup, m.name, secret)
    except StandingsError as exc:
        raise RoomError(str(exc)) from None
    if claim.player_id is None:
        return await _new_player(table, client, m, secret, room)
    proven = not claim.owned
    if proven:
        if not (m.password and claim.password_hash):
            raise RoomError(str(claim.refusal()))
        with room.attempts.password(client.peer, m.name) as attempt:
            if await room.passwords.check(m.password, claim.password_hash):
                attempt.passed()
            else:
                attempt.failed()
                raise RoomError(str(claim.refusal()))
    token = table.sit(client, m.seat, m.name, claim.player_id)
    if proven:  # remembered only now that the seat is taken
        try:
            await room.passwords.run(ledger.add_secret, claim.player_id, secret)
        except StandingsError as exc:  # the password proved it: the seat stands, unremembered
            _log.warning("table %s: this browser could not be remembered for %r: %s", table.id, m.name, exc)
    return token


async def _new_player(table: Table, client: Client, m: SitMsg, secret: str, room: Room) -> str:
    hashed = None
    if m.password is not None:
        least = room.limits.password_min
        if len(m.password) < least:
            raise RoomError(f"a new password needs at least {least} characters")
        hashed = await room.passwords.hash(m.password)
    token = table.sit(client, m.seat, m.name)  # the seat first: a name is made for a seat taken
    try:
        pid = await room.passwords.run(room.ledger.create_player, m.name, secret, hashed)
        table.seating.set_player(m.seat, token, pid)
    except (StandingsError, RoomError) as exc:
        table.seating.unsit(m.seat, token)
        raise RoomError(str(exc)) from None
    return token
