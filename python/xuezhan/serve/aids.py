"""The player's aids at the table, each from what its own seat knows (its observation): the
tiles it waits on when its hand is ready (听牌) with how many of each it has not seen, on its
turn the waits each discard would leave, and in the exchange and void phases the choice of the
built-in ``greedy`` strategy (换三张, 定缺, R11). The page shows each one only if the player
switched it on (Settings).

    >>> from xuezhan.engine import Round
    >>> r = Round.from_seed("chengdu", 3, dealer=0)
    >>> seat_aids(r, 0).suggest  # seat 0 chooses its three tiles first
    'exchange 119p'
"""

from __future__ import annotations

from xuezhan.engine import Round
from xuezhan.engine.observation import Observation
from xuezhan.evaluate import Meld, waits
from xuezhan.serve.protocol import Aids, WaitInfo
from xuezhan.strategies import GreedyStrategy
from xuezhan.tiles import TILE_STR as _TILE

__all__ = ["seat_aids"]


def _waits(obs: Observation, counts: bytearray, rnd: Round) -> list[WaitInfo]:
    seat = obs.seat
    melds = [Meld(t, k) for t, k in obs.melds[seat]]
    void = obs.voids[seat]
    found = waits(bytes(counts), melds, rules=rnd.rules, void=void if void >= 0 else None)
    out = []
    for w in found:
        k = w.kind
        # not in its own hand, no river, no meld: left in the wall or in the other hands
        out.append(WaitInfo(tile=w.tile, left=max(0, 4 - obs.hand[k] - obs.seen[k])))
    return out


def seat_aids(rnd: Round, seat: int) -> Aids:
    """The aids of ``seat`` now: ``waits`` when its hand is ready between turns, ``discards``
    (each discard that leaves it ready, with the waits) on its turn, ``suggest`` when it is
    choosing its exchange or void."""
    obs = rnd.observation(seat)
    if rnd.over or obs.escaped[seat]:
        return Aids()
    if obs.phase in ("exchange", "void"):
        if rnd.turn.cur != seat or not obs.legal_actions:
            return Aids()
        greedy = GreedyStrategy()
        greedy.reset(seat, rnd.rules)
        return Aids(suggest=str(greedy.act(obs)).split(" ", 1)[1])
    size = sum(obs.hand) + 3 * len(obs.melds[seat])
    counts = bytearray(obs.hand)
    if size == 13:
        return Aids(waits=_waits(obs, counts, rnd))
    if size != 14 or rnd.turn.cur != seat:
        return Aids()
    discards: dict[str, list[WaitInfo]] = {}
    mask = obs.discard_mask
    for k in range(27):
        if counts[k] and (mask >> k) & 1:
            counts[k] -= 1
            found = _waits(obs, counts, rnd)
            counts[k] += 1
            if found:
                discards[_TILE[k]] = found
    return Aids(discards=discards)
